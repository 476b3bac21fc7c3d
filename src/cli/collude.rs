//! `privdiffuse collude`: coalitions pool their answers; does it help them?

use super::run_args::{RunArgs, out_help};
use super::sim_options::SimOptions;
use crate::collusion::CollusionConfig;
use crate::io::collude_to_dir_on;
use crate::{Coalition, Estimator};

/// Pool coalitions' answers: estimator gains, privacy-loss audit, distinguishing attack
///
/// For each owner and each --coalition, --trials fresh draws of every mechanism
/// (same distances and values). The coalition pools its members' answers with
/// each estimator; coalition.csv reports its MSE, the gain MSE(best member) /
/// MSE(estimator) with a 95% interval and the win rate. audit.csv reports the
/// exact privacy loss ln p(view|u)/p(view|u+Δe₁) of every view (mean, 99%
/// quantile, max) against the accounted ε (correlated: max ε_j; independent:
/// Σ ε_j; gaussian: ε of the smallest-σ member) and a distinguishing-attack
/// lower bound on ε (Pitman estimate, Clopper–Pearson). Under the correlated
/// mechanism no estimator beats the best member (gain ≤ 1) and the loss never
/// exceeds max ε_j; under independent noise the coalition gains and composes.
///
/// What the estimators assume: mean, ivw (weights ε_j²), median, mle (the
/// ε-weighted median, the maximum-likelihood estimate) and pitman (the
/// posterior mean under a flat prior) all model the members' answers as
/// u + INDEPENDENT Laplace noise of scale 1/ε_j. That is the independent
/// mechanism's model; under the correlated mechanism it is misspecified:
/// there the best member's answer y* (largest ε) is a sufficient statistic,
/// so with a flat prior the mechanism-aware posterior mean is y* itself (the
/// `best` estimator) and no pooling can beat it. The gain column measures an
/// attack; the privacy evidence is audit.csv's loss against the accounted ε.
///
/// Coalition specs (members never include the owner or unreachable nodes):
///   far:min-d=X          every node at distance ≥ X
///   band:d=X             every node at distance X (±width/2 for continuous
///                        distances, width = distance range / --bins)
///   random:m=M[,min-d=X] M nodes drawn uniformly (seeded), optionally at ≥ X
///   nearest:m=M          the M closest nodes (ties: node index)
///   sybil:m=M,d=X        M fake accounts all at distance X
///   file:PATH            node ids listed in PATH, one per line (# comments)
/// An empty coalition is reported (size 0, NaN fields), not an error.
///
/// Output (DIR, default runs/<graph stem>-collude): coalition.csv,
/// audit.csv, summary.json (re-run it with --config), timings.json.
///
/// Examples:
///   privdiffuse collude --coalition far:min-d=4 --coalition nearest:m=5 --trials 500
///   privdiffuse collude --graph facebook_combined.txt --dim 1 --norm l1 \
///       --eps exp:a=3,b=1 --coalition far:min-d=3 --coalition sybil:m=50,d=4
#[derive(Debug, clap::Args)]
#[command(
    verbatim_doc_comment,
    mut_arg("out", |a| a.help(out_help("runs/<graph stem>-collude"))),
    mut_arg("owners", |a| a.help(
        "Owners: all | N (seeded sample) | ID,ID,... (one id: `17,`) \
         [default: 20, or all nodes on a smaller graph]"
    ))
)]
pub struct ColludeArgs {
    #[command(flatten)]
    sim: SimOptions,
    #[command(flatten)]
    owners: super::common::OwnerArgs,
    /// A coalition (repeatable): far:min-d=X | band:d=X | random:m=M[,min-d=X] |
    /// nearest:m=M | sybil:m=M,d=X | file:PATH (required unless --config gives some)
    #[arg(
        long = "coalition",
        id = "coalition",
        value_name = "SPEC",
        required_unless_present = "config",
        display_order = 211
    )]
    coalitions: Vec<Coalition>,
    /// Estimators, comma-separated: best, mean, ivw, median, mle, pitman [default: all].
    /// All but best assume independent Laplace noise (see above)
    #[arg(long, value_name = "LIST", display_order = 212)]
    estimators: Option<EstimatorList>,
    /// Trials per owner, coalition and mechanism (as many again under u+Δ for
    /// the attack) [default: 1000]
    #[arg(long, value_name = "T", display_order = 213)]
    trials: Option<usize>,
    /// δ' of the advanced-composition bound of the independent mechanism [default: 1e-6]
    #[arg(long, value_name = "D", display_order = 214)]
    composition_delta: Option<f64>,
    #[command(flatten)]
    run: RunArgs,
}

/// `--estimators best,ivw,...`: one flag value, a list of estimators.
#[derive(Clone, Debug)]
struct EstimatorList(Vec<Estimator>);

impl std::str::FromStr for EstimatorList {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        Estimator::parse_list(s).map(EstimatorList)
    }
}

impl ColludeArgs {
    /// The configuration: defaults, then `--config` (a collude or simulate
    /// summary.json), then explicit flags.
    pub fn config(&self) -> anyhow::Result<CollusionConfig> {
        let mut c = match &self.sim.config {
            Some(p) => crate::io::collude_config_from_summary(p)?,
            None => CollusionConfig::default(),
        };
        self.sim.apply(&mut c.sim)?;
        self.sim.refuse_unused_in("collude", &c.sim)?;
        self.owners.apply(&mut c.sim.owners);
        if !self.coalitions.is_empty() {
            c.coalitions = self.coalitions.clone();
        }
        if let Some(v) = &self.estimators {
            c.estimators = v.0.clone();
        }
        if let Some(v) = self.trials {
            c.trials = v;
        }
        if let Some(v) = self.composition_delta {
            c.composition_delta = v;
        }
        Ok(c)
    }
}

/// Runs `privdiffuse collude`.
pub fn run(args: ColludeArgs) -> anyhow::Result<()> {
    let config = args.config()?;
    let opts = args
        .run
        .output(|| crate::io::collude_default_out_dir(&config));
    let out = opts.out.clone();
    let job = super::cluster::Job::Collude(&config);
    let done = super::common::on_executor!(args.run, job, |exec| {
        collude_to_dir_on(&config, &opts, exec)
    });
    // The last clone of the progress control clears the screen before the summary.
    drop(opts);
    let Some((summary, timings)) = done else {
        return Ok(());
    };
    if !args.run.quiet {
        eprintln!(
            "{} owners × {} coalitions × {} trials in {:.2} s ({} threads) → {}",
            summary.owners,
            summary.config.coalitions.len(),
            summary.config.trials,
            timings.total_s,
            timings.threads,
            out.display()
        );
        for p in summary
            .pooled
            .iter()
            .filter(|p| p.estimator == "pitman" || p.estimator == "ivw")
        {
            eprintln!(
                "  {:<24} {:<12} {:<7} median gain {:.3} over {} owners (mean {:.3})",
                p.coalition, p.mechanism, p.estimator, p.median_gain, p.owners, p.mean_gain
            );
        }
        if let Some(d) = summary.max_chain_disagreement {
            eprintln!("  correlated loss: ε*-formula vs full chain agree to {d:.1e}");
        }
    }
    Ok(())
}

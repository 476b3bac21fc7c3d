//! `privdiffuse simulate`: the main job.

use super::run_args::{RunArgs, out_help};
use super::sim_options::SimOptions;
use crate::Post;
use crate::io::simulate_to_dir_on;
use crate::sim::SimConfig;

/// Simulate a network: distances → ε → one lazy path per owner → answers (the main job)
///
/// Every owner answers every reachable member with u + V_ε(d). Output (DIR,
/// default runs/<graph stem>): by_distance.csv (empirical vs theoretical MSE
/// per mechanism and distance), jumps.csv, owners.csv, paths.csv, ego.csv,
/// summary.json (re-run it with --config), timings.json and the figures.
///
/// With no options it reproduces the thesis' synthetic experiment on
/// data/geometric150: hop distance, ε from 15 (nearest) to 0.5 (farthest),
/// 2-D private GPS positions, ℓ2 noise, correlated and independent mechanisms.
///
/// A run on a changed graph (or with another seed) is a NEW release: its
/// answers compose with the old ones (Σ ε). To keep answering a network that
/// changes from the same paths, use `privdiffuse evolve`.
///
/// Examples:
///   privdiffuse simulate
///   privdiffuse simulate --graph facebook_combined.txt --eps exp:a=3,b=1 --dim 1 --norm l1
///   privdiffuse simulate --distance resistance --eps recip:c=2 --owners 20 --out runs/res
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment, mut_arg("out", |a| a.help(out_help("runs/<graph stem>"))))]
pub struct SimulateArgs {
    #[command(flatten)]
    sim: SimOptions,
    /// Post-processing of answers: none | clamp:LO,HI | bit | round [default: none]
    #[arg(long, value_name = "SPEC", display_order = 150)]
    post: Option<Post>,
    #[command(flatten)]
    owners: super::common::OwnerArgs,
    /// Owners whose answers ego.csv records: ID,ID,... [default: the first owner]
    #[arg(long, value_name = "IDS", value_delimiter = ',', display_order = 162)]
    ego_owners: Option<Vec<String>>,
    /// Independent replicates of the whole mechanism on the same distances [default: 1]
    #[arg(long, value_name = "K", display_order = 163)]
    replicates: Option<u32>,
    /// Run only replicate R, with exactly the numbers it has in a run of more replicates
    #[arg(
        long,
        value_name = "R",
        conflicts_with = "replicates",
        display_order = 164
    )]
    replicate: Option<u32>,
    /// Also write responses.csv (one row per answer: large)
    #[arg(long, display_order = 200)]
    responses: bool,
    #[command(flatten)]
    run: RunArgs,
}

impl SimulateArgs {
    /// The configuration: defaults, then `--config`, then explicit flags.
    pub fn config(&self) -> anyhow::Result<SimConfig> {
        let mut c = match &self.sim.config {
            Some(p) => crate::io::sim_config_from_summary(p)?,
            None => SimConfig::default(),
        };
        self.sim.apply(&mut c)?;
        self.sim.refuse_unused_in("simulate", &c)?;
        // What `--config` set, as the library's `run` and `collude` refuse it.
        c.refuse_unused()?;
        if let Some(v) = &self.post {
            c.post = *v;
        }
        self.owners.apply(&mut c.owners);
        if let Some(ids) = &self.ego_owners {
            c.ego_owners = Some(ids.iter().map(|s| s.trim().to_string()).collect());
        }
        if let Some(k) = self.replicates {
            c.replicates = k;
            c.first_replicate = 0;
        }
        if let Some(r) = self.replicate {
            c.replicates = 1;
            c.first_replicate = r;
        }
        if self.responses {
            c.responses = true;
        }
        Ok(c)
    }
}

/// Runs `privdiffuse simulate`.
pub fn run(args: SimulateArgs) -> anyhow::Result<()> {
    let config = args.config()?;
    let opts = args.run.output(|| crate::io::sim_default_out_dir(&config));
    let out = opts.out.clone();
    let job = super::cluster::Job::Simulate(&config);
    let done = super::common::on_executor!(args.run, job, |exec| {
        simulate_to_dir_on(&config, &opts, exec)
    });
    // The last clone of the progress control clears the screen before the summary.
    drop(opts);
    let Some((summary, timings)) = done else {
        return Ok(());
    };
    if !args.run.quiet {
        eprintln!(
            "simulated {} owners, {} answers per mechanism in {:.2} s ({} threads) → {}",
            summary.counts.owners,
            summary.counts.responses / summary.mse.len().max(1) as u64,
            timings.total_s,
            timings.threads,
            out.display()
        );
        for m in &summary.mse {
            eprintln!(
                "  {:<12} MSE {:.6} (theory {:.6})",
                m.mechanism, m.mse, m.mse_theory
            );
        }
    }
    Ok(())
}

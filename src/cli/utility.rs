//! `privdiffuse utility`: network-wide utility of the mechanisms.

use super::run_args::{RunArgs, out_help};
use super::sim_options::{Shared, SimOptions};
use crate::Post;
use crate::io::utility_to_dir_on;
use crate::sim::SimConfig;
use crate::utility::UtilityConfig;

/// Network-wide utility: every recipient estimates the mean of the values it can reach
///
/// Every owner answers every member it reaches (hop distance); each recipient
/// j estimates ū_j, the mean of its own value and those of the owners reaching
/// it, from its own value and one answer per owner, under the schemes
/// correlated, independent (plain means; with --values bits:P --post bit --dim 1
/// also their debiased means) and access (exact values within --access-radius
/// hops, nothing beyond). Output (DIR): utility.csv (MSE per scheme and log₂
/// recipient-degree bucket, plus all recipients, with theory and, with
/// --replicates ≥ 2, standard errors), recipients.csv (--recipients),
/// utility.png/.svg, summary.json, timings.json.
///
/// The --mechanism and --bins options of simulate are refused: utility runs
/// its own schemes, per hop level.
///
/// Examples:
///   privdiffuse utility --graph facebook_combined.txt --eps exp:a=3,b=1 --dim 1 --norm l1
///   privdiffuse utility --values bits:0.3 --post bit --dim 1 --replicates 10 --out runs/u
#[derive(Debug, clap::Args)]
#[command(
    verbatim_doc_comment,
    mut_arg("out", |a| a.help(out_help("runs/<graph stem>-utility"))),
    mut_arg("plots", |a| a.help("Draw the figure (default)")),
    mut_arg("no_plots", |a| a.help("Skip the figure"))
)]
pub struct UtilityArgs {
    #[command(flatten)]
    sim: SimOptions,
    /// Post-processing of answers: none | bit [default: none]
    #[arg(long, value_name = "SPEC", display_order = 150)]
    post: Option<Post>,
    #[command(flatten)]
    owners: super::common::OwnerArgs,
    /// Hops within which the access scheme sees exact values [default: 1]
    #[arg(long, value_name = "R", display_order = 161)]
    access_radius: Option<u32>,
    /// Independent repetitions of the random schemes (standard errors from
    /// their spread) [default: 1]
    #[arg(long, value_name = "K", display_order = 162)]
    replicates: Option<usize>,
    /// Also write recipients.csv (one row per recipient, first replicate)
    #[arg(long, display_order = 200)]
    recipients: bool,
    #[command(flatten)]
    run: RunArgs,
}

impl UtilityArgs {
    fn config(&self) -> anyhow::Result<UtilityConfig> {
        self.sim.refuse_unused(
            "utility",
            &[
                (
                    Shared::Mechanism,
                    crate::mechanism::why_no_gaussian("utility").unwrap_or_default(),
                ),
                (Shared::Bins, "it aggregates per hop level"),
                (Shared::Delta, "δ belongs to the Gaussian mechanism"),
            ],
        )?;
        let mut c = match &self.sim.config {
            Some(p) => crate::io::utility_config_from_summary(p)?,
            None => UtilityConfig {
                sim: SimConfig::default(),
                ..UtilityConfig::default()
            },
        };
        self.sim.apply(&mut c.sim)?;
        if let Some(v) = &self.post {
            c.sim.post = *v;
        }
        self.owners.apply(&mut c.sim.owners);
        if let Some(r) = self.access_radius {
            c.access_radius = r;
        }
        if let Some(r) = self.replicates {
            c.replicates = r;
        }
        Ok(c)
    }
}

/// Runs `privdiffuse utility`.
pub fn run(args: UtilityArgs) -> anyhow::Result<()> {
    let config = args.config()?;
    let opts = args.run.output(|| {
        let d = crate::io::sim_default_out_dir(&config.sim);
        let name = format!(
            "{}-utility",
            d.file_name()
                .map(|s| s.to_string_lossy())
                .unwrap_or_default()
        );
        d.with_file_name(name)
    });
    let out = opts.out.clone();
    let job = super::cluster::Job::Utility(&config);
    let done = super::common::on_executor!(args.run, job, |exec| {
        utility_to_dir_on(&config, args.recipients, &opts, exec)
    });
    // The last clone of the progress control clears the screen before the summary.
    drop(opts);
    let Some((summary, timings)) = done else {
        return Ok(());
    };
    if !args.run.quiet {
        eprintln!(
            "utility: {} owners × {} recipients in {:.2} s ({} threads) → {}",
            summary.owners,
            summary.recipients,
            timings.total_s,
            timings.threads,
            out.display()
        );
        super::common::print_scheme_totals(&summary.totals);
    }
    Ok(())
}

//! `privdiffuse relay`: the decentralised protocol.

use super::run_args::{RunArgs, out_help};
use super::sim_options::{Shared, SimOptions};
use crate::io::relay_to_dir_on;
use crate::io::{relay_config_from_summary, relay_default_out_dir};
use crate::relay::RelayConfig;
use crate::sim::Owners;

/// Diffuse each owner's signal between friends, each relay trimming it (no trusted centre)
///
/// The thesis' local protocol (§3.3.1): the owner samples her path once —
/// the path simulate samples with the same seed — and sends it trimmed at
/// ε(w) to her friends; every node that holds its own level ε(d) forwards
/// once, in synchronous rounds, the signal trimmed at ε(d + w) to each friend,
/// and reads its answer at ε(d). With --untrimmed F1,F2,… a seeded fraction F
/// of the nodes (nested sets) forwards the richest signal it has instead.
/// Distances: hop or weighted. Output (DIR): relay.csv (per owner and
/// fraction: rounds, messages, bytes, recipients, answers identical to
/// simulate's, largest learned ε relative to one's own; default DIR
/// runs/<graph stem>-relay), relay_by_distance.csv,
/// summary.json (totals next to the central scheme's cost), timings.json,
/// relay.png/.svg; with --responses, responses.csv (every recipient's
/// read-out: the file `simulate --mechanism correlated --responses` writes,
/// byte for byte, when the answers are identical).
///
/// The --mechanism and --delta options of simulate are refused (the relay is
/// the correlated mechanism); --unreachable takes only skip.
///
/// Examples:
///   privdiffuse relay --graph facebook_combined.txt --dim 1 --norm l1
///   privdiffuse relay --eps exp:a=3,b=1 --untrimmed 0,0.05,0.2 --out runs/relay
#[derive(Debug, clap::Args)]
#[command(
    verbatim_doc_comment,
    mut_arg("out", |a| a.help(out_help("runs/<graph stem>-relay"))),
    mut_arg("plots", |a| a.help("Draw the figure (default)")),
    mut_arg("no_plots", |a| a.help("Skip the figure"))
)]
pub struct RelayArgs {
    #[command(flatten)]
    sim: SimOptions,
    /// Owners: all | N (seeded sample) | ID,ID,... (one id: `17,`) [default: all]
    #[arg(long, value_name = "SPEC", display_order = 160)]
    owners: Option<Owners>,
    /// Fractions of the nodes that forward untrimmed, each in [0, 1] [default: 0]
    #[arg(
        long,
        value_name = "F1,F2,...",
        value_delimiter = ',',
        display_order = 165
    )]
    untrimmed: Option<Vec<f64>>,
    /// Also write responses.csv: every recipient's answer as read from the
    /// signal it holds (first --untrimmed fraction), the columns and bytes
    /// of `simulate --mechanism correlated --responses` (large)
    #[arg(long, display_order = 200)]
    responses: bool,
    #[command(flatten)]
    run: RunArgs,
}

impl RelayArgs {
    /// The configuration: defaults, then `--config`, then explicit flags.
    pub fn config(&self) -> anyhow::Result<RelayConfig> {
        self.sim.refuse_unused(
            "relay",
            &[
                (
                    Shared::Mechanism,
                    crate::mechanism::why_no_gaussian("relay").unwrap_or_default(),
                ),
                (Shared::Delta, "δ belongs to the Gaussian mechanism"),
                (Shared::Bins, "it aggregates per hop level"),
            ],
        )?;
        let mut c = match &self.sim.config {
            Some(p) => relay_config_from_summary(p)?,
            None => RelayConfig::default(),
        };
        self.sim.apply(&mut c.sim)?;
        if let Some(v) = &self.owners {
            c.sim.owners = v.clone();
        }
        if let Some(f) = &self.untrimmed {
            c.untrimmed = f.clone();
        }
        if self.responses {
            c.sim.responses = true;
        }
        Ok(c)
    }
}

/// Runs `privdiffuse relay`.
pub fn run(args: RelayArgs) -> anyhow::Result<()> {
    let config = args.config()?;
    let opts = args.run.output(|| relay_default_out_dir(&config));
    let out = opts.out.clone();
    let job = super::cluster::Job::Relay(&config);
    let done = super::common::on_executor!(args.run, job, |exec| {
        relay_to_dir_on(&config, &opts, exec)
    });
    // The last clone of the progress control clears the screen before the summary.
    drop(opts);
    let Some((summary, timings)) = done else {
        return Ok(());
    };
    if !args.run.quiet {
        eprintln!(
            "relayed {} owners' signals in {:.2} s ({} threads) → {}",
            summary.totals.first().map_or(0, |t| t.owners),
            timings.total_s,
            timings.threads,
            out.display()
        );
        for t in &summary.totals {
            eprintln!(
                "  untrimmed {:<5} {} of {} answers identical, {:.1} rounds, {:.0} messages and {:.0} bytes per owner (central: {} bytes), learned ε up to {:.3}× one's own",
                crate::util::fmt_f64(t.untrimmed),
                t.identical,
                t.recipients,
                t.rounds_mean,
                t.messages_per_owner,
                t.bytes_per_owner,
                t.central_bytes / t.owners.max(1),
                t.eps_learned_excess_max
            );
        }
    }
    Ok(())
}

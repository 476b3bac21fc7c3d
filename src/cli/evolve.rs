//! `privdiffuse evolve`: releases over a changing network from one stored
//! path per owner (the release store).

use super::common::with_threads;
use crate::distance::DistanceKind;
use crate::evolve::EvolveConfig;
use crate::io::OutputOptions;
use crate::io::evolve::{default_out, evolve_to_dir};
use crate::process::Norm;
use crate::process::discrete::{Grid, NoiseKind, RngSource};
use crate::sim::Owners;
use crate::{EpsilonMap, ValueSpec};
use std::path::PathBuf;

/// Release over a network that changes: one stored path per owner, new answers only where ε rose
///
/// Batch 0 answers every reachable pair of START with u + V_ε(d), each owner's
/// path kept in the store (FILE.db, SQLite). Then, per batch of --batch events
/// of EVENTS.csv (header time,u,v,op[,w]; op add|remove): the events are
/// applied, distances recomputed where they can change, and a pair whose
/// ε = min(ε(d), --eps-max) rose above every ε it was released gets a new
/// answer read from the SAME path (a pair whose ε fell keeps what it holds).
/// A recipient holding old and new answers stays max-ε private. Re-running
/// `simulate` on the changed graph instead is a NEW release: its answers
/// compose with the old ones (Σ ε).
///
/// Each batch is one transaction: after a crash (SIGKILL included) run the
/// same command with --resume; answers and timeline.csv are those of an
/// uninterrupted run, whatever --threads. One writer at a time (a lock on
/// FILE.db itself; FILE.db is created 0600); `privdiffuse answers` reads
/// beside it. A file that is not a release store is refused, never written.
///
/// Output (DIR, default <store without .db>-evolve): timeline.csv (one row
/// per batch: batch,time,events,pairs_closer,pairs_farther,answers,pairs,
/// mse,mse_theory,eps_spent — the store's answers — resample_mse,
/// resample_eps_spent — fresh noise at each new ε, pooled — frozen_mse,
/// frozen_eps_spent — the first answer only), summary.json, timings.json,
/// timeline.png/.svg.
///
/// A pair whose ε is out of range (0 or underflowed, below 1e-60, below the
/// smallest rung of --noise discrete) gets no answer: on START the map is
/// refused; a pair an event puts there is skipped and counted (timeline.csv
/// gains a column pairs_skipped once a batch skipped one).
///
/// Examples:
///   privdiffuse generate events --graph data/facebook_ego0.edges --hold-out 0.1 --seed 1 --out /tmp/ego.edges
///   privdiffuse evolve --graph /tmp/ego.edges --nodes /tmp/ego.nodes --events /tmp/ego.events.csv \
///       --store /tmp/ego.db --eps exp:a=3,b=1 --dim 1 --norm l1
///   privdiffuse answers --store /tmp/ego.db --owner 0 --recipient 17
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct EvolveArgs {
    /// START edge list (`u v [w]` per line)
    #[arg(long, value_name = "START")]
    graph: PathBuf,
    /// File of node ids that exist from the start (nodes that appear only on later events)
    #[arg(long, value_name = "FILE")]
    nodes: Option<PathBuf>,
    #[command(flatten)]
    header: super::common::HeaderArgs,
    /// Events: header time,u,v,op[,w]; op add | remove; rows in time order
    #[arg(long, value_name = "EVENTS.csv")]
    events: PathBuf,
    /// The release store (SQLite): created, or continued with --resume
    #[arg(long, value_name = "FILE.db")]
    store: PathBuf,
    /// Distance: hop | weighted | resistance [default: hop]
    #[arg(long, value_name = "KIND")]
    distance: Option<DistanceKind>,
    /// Privacy map ε(d): exp:a=A,b=B | recip:c=C | power:c=C,p=P | table:… | range:LO..HI
    /// (a range is resolved once on START and recorded as its exp: map) [default: range:0.5..15]
    #[arg(long, value_name = "SPEC")]
    eps: Option<EpsilonMap>,
    /// Upper clamp of ε, and the paths' top (fixed at creation): required with
    /// weighted and resistance distances [default for hop: ε(1)]
    #[arg(long, value_name = "E")]
    eps_max: Option<f64>,
    /// Private values, drawn once on START and --nodes: uniform:LO,HI | normal:M,SD |
    /// bits:P | const:X | file:PATH | coords | auto [default: auto]
    #[arg(long, value_name = "SPEC")]
    values: Option<ValueSpec>,
    /// Dimension n of the values [default: 2]
    #[arg(long, value_name = "N")]
    dim: Option<usize>,
    /// Norm of the noise: l1 | l2 [default: l2]
    #[arg(long, value_name = "NORM")]
    norm: Option<Norm>,
    /// Owners: all | N (seeded sample) | ID,ID,... (one id: `17,`) [default: all]
    #[arg(long, value_name = "SPEC")]
    owners: Option<Owners>,
    /// Master seed [default: 1]
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Worker threads (results do not depend on it) [default: all cores]
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Events per batch [default: 100]
    #[arg(long, value_name = "N")]
    batch: Option<usize>,
    /// Noise of the paths: laplace (f64; simulations) | discrete (exact integers on a grid:
    /// floating-point safe; levels are the ladder's rungs at or below ε, answers multiples of
    /// the grid; see docs/releases.md) [default: laplace]
    #[arg(long, value_name = "KIND")]
    noise: Option<NoiseKind>,
    /// Grid γ of --noise discrete, a power of two (2^-10 or 0.0009765625) [default: 2^-10]
    #[arg(long, value_name = "G")]
    granularity: Option<Grid>,
    /// Levels per doubling of the --noise discrete ladder (1 to 1024) [default: 32]
    #[arg(long, value_name = "M")]
    levels_per_doubling: Option<u32>,
    /// Entropy of the --noise discrete paths: seeded (reproducible) | os (a release: not
    /// reproducible; --resume continues the stored paths, never redraws them). The resample
    /// policy, a measurement, stays seeded [default: seeded]
    #[arg(long, value_name = "SRC")]
    rng: Option<RngSource>,
    /// Continue the store from its last committed batch (same options, START and events)
    #[arg(long)]
    resume: bool,
    /// Output directory [default: <store without .db>-evolve]; one that holds files is refused
    /// unless --force or --store exists (--resume)
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Replace the files of an existing --out
    #[arg(long)]
    force: bool,
    /// Skip the figures
    #[arg(long)]
    no_plots: bool,
    /// No progress line
    #[arg(long, short)]
    quiet: bool,
    /// Measurement: recompute every owner at every batch, not only those an
    /// event reached (the same results, slower)
    #[arg(long, hide = true)]
    full_recompute: bool,
}

/// Runs `privdiffuse evolve`.
pub fn run(a: EvolveArgs) -> anyhow::Result<()> {
    let d = EvolveConfig::default();
    let config = EvolveConfig {
        graph: a.graph,
        nodes: a.nodes,
        header: a.header.get(),
        events: a.events,
        store: a.store,
        distance: a.distance.unwrap_or(d.distance),
        eps: a.eps.unwrap_or(d.eps),
        eps_max: a.eps_max,
        dim: a.dim.unwrap_or(d.dim),
        norm: a.norm.unwrap_or(d.norm),
        values: a.values.unwrap_or(d.values),
        owners: a.owners.unwrap_or(d.owners),
        seed: a.seed.unwrap_or(d.seed),
        batch: a.batch.unwrap_or(d.batch),
        resume: a.resume,
        noise: a.noise.unwrap_or(d.noise),
        granularity: a.granularity.unwrap_or(d.granularity),
        levels_per_doubling: a.levels_per_doubling.unwrap_or(d.levels_per_doubling),
        rng: a.rng.unwrap_or(d.rng),
    };
    let out = a.out.unwrap_or_else(|| default_out(&config.store));
    let control = super::progress::control(!a.quiet);
    let o = {
        let opts = OutputOptions {
            out: out.clone(),
            explicit_out: true,
            force: a.force,
            plots: !a.no_plots,
            control: control.clone(),
        };
        with_threads(a.threads, || {
            evolve_to_dir(&config, a.full_recompute, &opts)
        })?
    };
    // The last clone of the progress control clears the screen before the summary.
    drop(control);
    if !a.quiet {
        let last = o.timeline.last();
        eprintln!(
            "{}: {} of {} batches committed ({} implied answers at batch 0, {} explicit); \
             wrote {}",
            config.store.display(),
            o.timeline.len().saturating_sub(1),
            o.batches,
            o.implied,
            o.explicit,
            out.display()
        );
        if let Some(r) = last {
            eprintln!(
                "last batch: eps spent {} (resample {}, frozen {}), mse {} (resample {}, frozen {})",
                fmt(r.eps_spent),
                fmt(r.resample_eps_spent),
                fmt(r.frozen_eps_spent),
                fmt(r.mse),
                fmt(r.resample_mse),
                fmt(r.frozen_mse)
            );
        }
    }
    Ok(())
}

fn fmt(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), |v| format!("{v:.6}"))
}

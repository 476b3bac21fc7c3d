//! `privdiffuse simulate`: the main job.

use crate::distance::DistanceKind;
use crate::mechanism::MechanismChoice;
use crate::process::Norm;
use crate::sim::{RunOptions, SimConfig, Unreachable, simulate_to_dir};
use std::path::PathBuf;

/// Simulate a network: distances → ε → one lazy path per owner → answers (the main job)
///
/// Every owner answers every reachable member with u + V_ε(d). Output (DIR,
/// default results/<graph stem>): by_distance.csv (empirical vs theoretical MSE
/// per mechanism and distance), jumps.csv, owners.csv, paths.csv, ego.csv,
/// summary.json (re-run it with --config), timings.json and the figures.
///
/// With no options it reproduces the thesis' synthetic experiment on
/// data/geometric150: hop distance, ε from 15 (nearest) to 0.5 (farthest),
/// 2-D private GPS positions, ℓ2 noise, correlated and independent mechanisms.
///
/// Examples:
///   privdiffuse simulate
///   privdiffuse simulate --graph facebook_combined.txt --eps exp:a=3,b=1 --dim 1 --norm l1
///   privdiffuse simulate --distance resistance --eps recip:c=2 --owners 20 --out results/res
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct SimulateArgs {
    /// Edge list (`u v [w]` per line; .gz read transparently) [default: data/geometric150.edges]
    #[arg(long, value_name = "PATH")]
    graph: Option<PathBuf>,
    /// File of node ids (one per line) adding nodes that appear on no edge line
    #[arg(long, value_name = "FILE")]
    nodes: Option<PathBuf>,
    /// Arcs are one-way (distances follow out-edges)
    #[arg(long)]
    directed: bool,
    /// Distance: hop | weighted | resistance | resistance-approx [default: hop]
    #[arg(long, value_name = "KIND")]
    distance: Option<DistanceKind>,
    /// Buckets of by_distance.csv for continuous distances [default: 20]
    #[arg(long, value_name = "K")]
    bins: Option<usize>,
    /// Privacy map ε(d): exp:a=A,b=B | recip:c=C | power:c=C,p=P |
    /// table:1=15,2=5,*=0.5 | range:LO..HI [default: range:0.5..15]
    #[arg(long, value_name = "SPEC")]
    eps: Option<String>,
    /// Lower clamp of ε (also the level of unreachable members with --unreachable floor)
    #[arg(long, value_name = "E")]
    eps_min: Option<f64>,
    /// Upper clamp of ε
    #[arg(long, value_name = "E")]
    eps_max: Option<f64>,
    /// Unreachable members: skip (counted) or floor (answered at --eps-min) [default: skip]
    #[arg(long, value_name = "HOW")]
    unreachable: Option<Unreachable>,
    /// Dimension n of the private values [default: 2]
    #[arg(long, value_name = "N")]
    dim: Option<usize>,
    /// Norm of the Laplace noise: l1 (independent coordinates) | l2 [default: l2]
    #[arg(long, value_name = "NORM")]
    norm: Option<Norm>,
    /// correlated | independent | gaussian | both (correlated + independent) [default: both]
    #[arg(long, value_name = "M")]
    mechanism: Option<MechanismChoice>,
    /// δ of the Gaussian mechanism [default: 1e-5]
    #[arg(long, value_name = "D")]
    delta: Option<f64>,
    /// Private values: file:PATH | coords | auto | uniform:LO,HI | normal:M,SD | bits:P | const:X
    /// [default: auto = coords next to the graph when --dim 2, else uniform:0,1]
    #[arg(long, value_name = "SPEC")]
    values: Option<String>,
    /// Sensitivity Δ: noise at level ε has scale Δ/ε [default: 1]
    #[arg(long, value_name = "X")]
    sensitivity: Option<f64>,
    /// Post-processing of answers: none | clamp:LO,HI | bit | round [default: none]
    #[arg(long, value_name = "SPEC")]
    post: Option<String>,
    /// Owners: all | N (seeded sample) | ID,ID,... (one id: `17,`) [default: all]
    #[arg(long, value_name = "SPEC")]
    owners: Option<String>,
    /// Master seed [default: 1]
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Largest component for exact resistance [default: 20000]
    #[arg(long, value_name = "N")]
    resistance_cap: Option<usize>,
    /// Random projections of resistance-approx [default: see `distances --help`]
    #[arg(long, value_name = "K")]
    approx_k: Option<usize>,
    /// Also write responses.csv (one row per answer: large)
    #[arg(long)]
    responses: bool,
    /// Re-run the configuration recorded in a summary.json (flags given here override it)
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Output directory [default: results/<graph stem>, replaced atomically]
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Replace an existing non-empty --out directory
    #[arg(long)]
    force: bool,
    /// Worker threads [default: all cores]; results do not depend on it
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Draw the figures (default)
    #[arg(long, overrides_with = "no_plots")]
    plots: bool,
    /// Skip the figures
    #[arg(long)]
    no_plots: bool,
    /// No progress bar
    #[arg(long, short)]
    quiet: bool,
}

impl SimulateArgs {
    /// The configuration: defaults, then `--config`, then explicit flags.
    pub fn config(&self) -> anyhow::Result<SimConfig> {
        let mut c = match &self.config {
            Some(p) => SimConfig::from_summary(p)?,
            None => SimConfig::default(),
        };
        macro_rules! set {
            ($($f:ident),*) => { $( if let Some(v) = &self.$f { c.$f = v.clone(); } )* };
        }
        set!(
            graph,
            distance,
            bins,
            eps,
            unreachable,
            dim,
            norm,
            mechanism,
            delta,
            values,
            sensitivity,
            post,
            owners,
            seed
        );
        if self.nodes.is_some() {
            c.nodes = self.nodes.clone();
        }
        if self.eps_min.is_some() {
            c.eps_min = self.eps_min;
        }
        if self.eps_max.is_some() {
            c.eps_max = self.eps_max;
        }
        if let Some(k) = self.resistance_cap {
            c.distance_options.resistance_cap = k;
        }
        if let Some(k) = self.approx_k {
            c.distance_options.approx_k = k;
        }
        if self.directed {
            c.directed = true;
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
    let out = args.out.clone().unwrap_or_else(|| config.default_out_dir());
    let opts = RunOptions {
        explicit_out: args.out.is_some(),
        out: out.clone(),
        force: args.force,
        plots: !args.no_plots,
        progress: !args.quiet,
    };
    let work = || simulate_to_dir(&config, &opts);
    let (summary, timings) = match args.threads {
        Some(t) => rayon::ThreadPoolBuilder::new()
            .num_threads(t.max(1))
            .build()?
            .install(work)?,
        None => work()?,
    };
    if !args.quiet {
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

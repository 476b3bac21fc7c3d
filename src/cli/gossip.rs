//! `privdiffuse gossip`: private gossip averaging (Muffliato) beside
//! diffusion. Flags become one [`GossipConfig`]; the library runs and writes.

use crate::gossip::{GossipConfig, GossipScheme};
use crate::io::{OutputOptions, gossip_to_dir};
use crate::sim::Owners;
use crate::{Coalition, ValueSpec};
use std::path::PathBuf;

/// Private gossip averaging (Muffliato) with its pairwise privacy, beside diffusion
///
/// Every node adds N(0, σ²) noise to its value once, then gossips with the
/// Metropolis–Hastings matrix W for T steps (simple, or accelerated with
/// constant momentum); every member ends with an estimate of the network
/// mean. Privacy of a source u against an observer v, in Rényi DP at
/// --alpha and as ε at --delta (tight Gaussian curve): the reference code's
/// accounting (per-message sum, t₀ = 0, capped at the local level α/(2σ²)·Δ²)
/// for the --owners to every member, and the exact loss (the projector onto
/// what v sees) for every source to the --observers. See docs/gossip.md.
///
/// Output (DIR): privacy.csv (source,observer,distance,rdp_paper,rdp_exact,
/// eps_paper,eps_exact), privacy_by_distance.csv, utility.csv (utility's
/// columns), coalition.csv (--coalition), two_schools.csv (diffusion matched
/// per hop), utility.png/.svg, summary.json, timings.json.
///
/// Examples:
///   privdiffuse gossip --graph data/karate.edges --sigma 1 --owners all --out runs/g
///   privdiffuse gossip --graph G --sigma 1.936 --gossip simple --steps 64 --coalition nearest:m=5 --out runs/g2
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct GossipArgs {
    /// Edge list (`u v` per line; .gz read transparently) [default: data/geometric150.edges]
    #[arg(long, value_name = "PATH", display_order = 0)]
    graph: Option<PathBuf>,
    /// File of node ids (one per line) adding nodes that appear on no edge line
    #[arg(long, value_name = "FILE", display_order = 10)]
    nodes: Option<PathBuf>,
    #[command(flatten)]
    view: super::common::ViewArgs,
    /// Sources of the code's accounting: all | N (seeded sample) | ID,ID,... [default: 20, all on smaller graphs]
    #[arg(long, value_name = "SPEC", display_order = 20)]
    owners: Option<Owners>,
    /// Observers of the exact loss (every source at once) [default: the owners]
    #[arg(long, value_name = "SPEC", display_order = 21)]
    observers: Option<Owners>,
    /// Coalition (repeatable; collude's specs except sybil): exact loss of the pooled views
    #[arg(long, value_name = "SPEC", display_order = 22)]
    coalition: Vec<Coalition>,
    /// σ of the Gaussian noise each node adds once
    #[arg(
        long,
        value_name = "S",
        required_unless_present = "config",
        display_order = 30
    )]
    sigma: Option<f64>,
    /// Gossip steps T [default: the mixing rule ⌈ln(n·max(¼, σ²)/σ²)/√λ₂⌉, 1/λ₂ for simple]
    #[arg(long, value_name = "T", display_order = 31)]
    steps: Option<u64>,
    /// accelerated | simple [default: accelerated]
    #[arg(long, value_name = "KIND", display_order = 32)]
    gossip: Option<GossipScheme>,
    /// Rényi order α > 1 [default: 2]
    #[arg(long, value_name = "A", display_order = 33)]
    alpha: Option<f64>,
    /// δ of the ε columns, in (0, 1) [default: 1e-6]
    #[arg(long, value_name = "D", display_order = 34)]
    delta: Option<f64>,
    /// Private values (one per node): uniform:LO,HI | bits:P | infection:… | sir:… | smooth:… | file:PATH [default: uniform:0,1]
    #[arg(long, value_name = "SPEC", display_order = 40)]
    values: Option<ValueSpec>,
    /// Sensitivity Δ [default: the width of the values' public range; required for file: and smooth:]
    #[arg(long, value_name = "X", display_order = 41)]
    sensitivity: Option<f64>,
    /// Independent noise draws of the utility [default: 1]
    #[arg(long, value_name = "R", display_order = 50)]
    replicates: Option<usize>,
    /// Master seed [default: 1]
    #[arg(long, value_name = "S", display_order = 51)]
    seed: Option<u64>,
    /// Re-run the configuration recorded in a gossip summary.json (flags given here override it)
    #[arg(long, value_name = "FILE", display_order = 60)]
    config: Option<PathBuf>,
    /// Output directory (must be new unless --force)
    #[arg(long, value_name = "DIR", display_order = 220)]
    out: PathBuf,
    /// Replace --out if it exists
    #[arg(long, display_order = 230)]
    force: bool,
    /// Worker threads [default: all cores]; results do not depend on it
    #[arg(long, value_name = "T", display_order = 240)]
    threads: Option<usize>,
    /// Skip the figure
    #[arg(long, display_order = 260)]
    no_plots: bool,
    /// No progress bar
    #[arg(long, short, display_order = 270)]
    quiet: bool,
}

impl GossipArgs {
    fn config(&self) -> anyhow::Result<GossipConfig> {
        let mut c = match &self.config {
            Some(p) => crate::io::gossip_config_from_summary(p)?,
            None => GossipConfig::default(),
        };
        macro_rules! set {
            ($($f:ident),*) => { $( if let Some(v) = &self.$f { c.$f = v.clone(); } )* };
        }
        set!(
            graph, owners, values, sigma, gossip, alpha, delta, replicates, seed
        );
        if self.nodes.is_some() {
            c.nodes = self.nodes.clone();
        }
        if let Some(v) = self.view.view() {
            c.view = Some(v);
        }
        if self.observers.is_some() {
            c.observers = self.observers.clone();
        }
        if !self.coalition.is_empty() {
            c.coalitions = self.coalition.clone();
        }
        if self.sensitivity.is_some() {
            c.sensitivity = self.sensitivity;
        }
        if self.steps.is_some() {
            c.steps = self.steps;
        }
        Ok(c)
    }
}

/// Runs `privdiffuse gossip`.
pub fn run(args: GossipArgs) -> anyhow::Result<()> {
    let config = args.config()?;
    let opts = OutputOptions {
        explicit_out: true,
        out: args.out.clone(),
        force: args.force,
        plots: !args.no_plots,
        control: super::progress::control(!args.quiet),
    };
    let (summary, timings) =
        super::common::with_threads(args.threads, || gossip_to_dir(&config, &opts))?;
    if !args.quiet {
        eprintln!(
            "gossip: {} nodes, λ₂ = {:.6e}, γ = {:.6}, T = {}; {} owners, {} observers in {:.2} s \
             (eigendecomposition {:.2} s, {} threads) → {}",
            summary.nodes,
            summary.lambda2.lambda2,
            summary.gamma,
            summary.steps,
            summary.owners,
            summary.observers,
            timings.total_s,
            timings.eigen_s,
            timings.threads,
            args.out.display()
        );
        super::common::print_scheme_totals(&summary.totals);
    }
    Ok(())
}

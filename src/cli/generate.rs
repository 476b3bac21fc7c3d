//! `privdiffuse generate`: seeded synthetic graphs written as edge lists.

use super::common::CommonArgs;
use crate::Error;
use crate::graph::generate::{
    GeometricParam, barabasi_albert, erdos_renyi, geometric, max_edge_length, watts_strogatz,
};
use crate::io::{coords_to, edge_list_to};
use crate::util::{AtomicFile, AtomicPair, Existing, fmt_f64};
use std::path::{Path, PathBuf};

/// Generate a synthetic graph (geometric, Erdős–Rényi, Barabási–Albert, Watts–Strogatz)
///
/// Writes an edge list (`u v` per line, ids 0..n-1), headed by a `#` comment
/// recording the command and seed.
///
/// Example: `privdiffuse generate geometric --n 150 --edges 1256 --seed 1 --out g.edges`
/// (also writes `g.coords.csv`).
#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    #[command(subcommand)]
    pub model: Model,
}

/// The random graph models.
#[derive(Debug, clap::Subcommand)]
pub enum Model {
    /// Random geometric graph: n points uniform in the unit square, an edge
    /// between points at distance ≤ a radius. Also writes STEM.coords.csv
    /// (`node,x,y`), STEM = the --out path without its extension.
    Geometric(GeometricArgs),
    /// Erdős–Rényi G(n, m): exactly m distinct edges, uniformly at random.
    Er(ErArgs),
    /// Barabási–Albert preferential attachment: a clique on m+1 nodes, then each
    /// new node links to m distinct earlier nodes chosen proportionally to degree.
    Ba(BaArgs),
    /// Watts–Strogatz small world: ring lattice with k neighbours per node, each
    /// edge rewired with probability p.
    Ws(WsArgs),
    /// A graph split for `evolve`: START (= --out, G without the held-out
    /// edges), STEM.events.csv (held-out edges added back in random order,
    /// with --remove also START edges removed, times 1, 2, …) and STEM.nodes
    /// (every node of G). Example: `privdiffuse generate events --graph
    /// data/facebook_ego0.edges --hold-out 0.1 --seed 1 --out ego.edges`
    Events(super::generate_events::EventsArgs),
}

/// `generate geometric`.
#[derive(Debug, clap::Args)]
pub struct GeometricArgs {
    /// Number of nodes.
    #[arg(long)]
    pub n: usize,
    /// Connection radius (unit square side = 1), e.g. 0.17.
    #[arg(long, conflicts_with = "edges", required_unless_present = "edges")]
    pub radius: Option<f64>,
    /// Target edge count instead of a radius: the radius becomes the M-th smallest
    /// pairwise distance (exactly M edges unless distances tie), e.g. 1256.
    #[arg(long, value_name = "M")]
    pub edges: Option<u64>,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// `generate er`.
#[derive(Debug, clap::Args)]
pub struct ErArgs {
    /// Number of nodes.
    #[arg(long)]
    pub n: usize,
    /// Number of edges, at most n(n-1)/2.
    #[arg(long)]
    pub m: u64,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// `generate ba`.
#[derive(Debug, clap::Args)]
pub struct BaArgs {
    /// Number of nodes.
    #[arg(long)]
    pub n: usize,
    /// Edges per new node (1 ≤ m < n).
    #[arg(long)]
    pub m: usize,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// `generate ws`.
#[derive(Debug, clap::Args)]
pub struct WsArgs {
    /// Number of nodes.
    #[arg(long)]
    pub n: usize,
    /// Ring neighbours per node (even, < n), k/2 on each side.
    #[arg(long)]
    pub k: usize,
    /// Rewiring probability in [0, 1].
    #[arg(long)]
    pub p: f64,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// Runs `privdiffuse generate`.
pub fn run(args: GenerateArgs) -> anyhow::Result<()> {
    if let Model::Events(a) = &args.model {
        return super::generate_events::run(a);
    }
    let (command, common) = describe(&args.model);
    let header = format!(
        "privdiffuse generate {command} --seed {} --out {}",
        common.seed,
        common.out.display()
    );
    let seed = common.seed;
    let out = &common.out;
    // Both files claimed before the work: an existing one is refused at once,
    // and neither appears unless both are complete.
    let existing = Existing::for_out(true, common.force);
    // A geometric graph's two files are one output (AtomicPair): placed
    // together, so concurrent --force runs never mix two runs' files.
    let files = match &args.model {
        Model::Geometric(_) => Files::Pair(
            coords_path(out),
            Box::new(
                AtomicPair::create_with(out, coords_path(out), existing).map_err(Error::from)?,
            ),
        ),
        _ => Files::One(AtomicFile::create_with(out, existing).map_err(Error::from)?),
    };
    let (g, coords) = match &args.model {
        Model::Geometric(a) => {
            let param = match (a.radius, a.edges) {
                (Some(r), _) => GeometricParam::Radius(r),
                (None, Some(m)) => GeometricParam::TargetEdges(m),
                (None, None) => {
                    return Err(
                        crate::Error::param("radius", "none", "--radius R or --edges M").into(),
                    );
                }
            };
            let (g, pts) = geometric(a.n, param, seed)?;
            (g, Some(pts))
        }
        Model::Er(a) => (erdos_renyi(a.n, a.m, seed)?, None),
        Model::Ba(a) => (barabasi_albert(a.n, a.m, seed)?, None),
        Model::Ws(a) => (watts_strogatz(a.n, a.k, a.p, seed)?, None),
        Model::Events(_) => return Ok(()),
    };
    let (components, _) = g.components();
    let mut summary = format!(
        "{} nodes, {} edges, {components} component(s)",
        g.n(),
        g.m()
    );
    if let Some(pts) = &coords {
        summary.push_str(&format!(", radius {}", fmt_f64(max_edge_length(&g, pts))));
    }
    let header = format!("{header}\n{summary}");
    let isolated = g.stats().isolated;
    let cpath = match (&coords, files) {
        (Some(pts), Files::Pair(cpath, mut pair)) => {
            edge_list_to(&g, pair.first(), &header).map_err(io(out))?;
            coords_to(g.ids(), pts, pair.second()).map_err(io(&cpath))?;
            pair.commit().map_err(Error::from)?;
            Some(cpath)
        }
        (_, Files::One(mut f)) => {
            edge_list_to(&g, &mut f, &header).map_err(io(out))?;
            f.commit().map_err(Error::from)?;
            None
        }
        (None, Files::Pair(..)) => {
            return Err(Error::Numerical("a geometric graph without coordinates".into()).into());
        }
    };
    eprintln!("wrote {} ({summary})", out.display());
    if let Some(cpath) = cpath {
        eprintln!("wrote {}", cpath.display());
        if isolated > 0 {
            eprintln!(
                "note: {isolated} isolated node(s) appear on no edge line; load with --nodes {} to keep them",
                cpath.display()
            );
        }
    } else if isolated > 0 {
        eprintln!(
            "note: {isolated} isolated node(s) appear on no edge line (the graph has ids 0..{}); \
             pass a node list with --nodes to keep them",
            g.n() - 1
        );
    }
    Ok(())
}

/// The files of one graph: the edge list alone, or with its coordinates.
enum Files {
    One(AtomicFile),
    Pair(PathBuf, Box<AtomicPair>),
}

/// An I/O error on `path`.
fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::io(path, e)
}

/// `STEM.coords.csv` beside the edge file, STEM = the file without its extension.
pub fn coords_path(out: &Path) -> PathBuf {
    out.with_extension("coords.csv")
}

/// The model part of the command line, canonical form, and the shared options.
fn describe(model: &Model) -> (String, &CommonArgs) {
    match model {
        Model::Geometric(a) => {
            let p = match (a.radius, a.edges) {
                (Some(r), _) => format!("--radius {}", fmt_f64(r)),
                (None, Some(m)) => format!("--edges {m}"),
                (None, None) => String::new(),
            };
            (format!("geometric --n {} {p}", a.n), &a.common)
        }
        Model::Er(a) => (format!("er --n {} --m {}", a.n, a.m), &a.common),
        Model::Ba(a) => (format!("ba --n {} --m {}", a.n, a.m), &a.common),
        Model::Ws(a) => (
            format!("ws --n {} --k {} --p {}", a.n, a.k, fmt_f64(a.p)),
            &a.common,
        ),
        Model::Events(a) => ("events".into(), &a.common),
    }
}

//! `privdiffuse distances`: distances from chosen owners to every reachable node.

use super::Output;
use crate::distance::{DistanceKind, DistanceOptions, Distances};
use crate::graph::Graph;
use crate::util::write_f64;
use crate::{Error, Owners, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Distances from given owners to every node they reach (CSV)
///
/// Writes `source,target,distance` with the ids of the input file; the owner
/// itself and unreachable nodes are left out.
///
/// Examples:
///   privdiffuse distances --graph data/karate.edges --distance hop --owners 0,33
///   privdiffuse distances --graph web.txt.gz --distance resistance-approx --owner 42 --out r42.csv
#[derive(Debug, clap::Args)]
pub struct DistancesArgs {
    /// Edge list: `u v [w]` per line (spaces, tabs or commas), `#`/`%` comments,
    /// optional header, `.gz` read transparently. `w` is the edge length
    /// (= electrical resistance).
    #[arg(long, value_name = "PATH")]
    pub graph: PathBuf,
    /// Node list adding isolated nodes: one id per line.
    #[arg(long, value_name = "FILE")]
    pub nodes: Option<PathBuf>,
    #[command(flatten)]
    pub view: super::common::ViewArgs,
    /// Read `u v` as the arc u → v only (hop and weighted follow out-arcs;
    /// the resistance kinds refuse directed graphs).
    #[arg(long)]
    pub directed: bool,
    /// hop (edges on a shortest path), weighted (sum of lengths, Dijkstra),
    /// resistance (exact effective resistance, dense: components up to
    /// --resistance-cap nodes) or resistance-approx (JL sketch, any size),
    /// as on every other command
    #[arg(long, value_name = "KIND", default_value = "hop")]
    pub distance: DistanceKind,
    /// Owners: all | ID,ID,... (ids as written in the edge list, e.g. `0,33`;
    /// one id: `42,` or --owner 42). A bare number N is refused: it means N
    /// sampled owners elsewhere and node N here.
    #[arg(long, value_name = "SPEC", required_unless_present = "owner")]
    pub owners: Option<Owners>,
    /// One owner by node id (repeatable; instead of --owners)
    #[arg(long, value_name = "ID", conflicts_with = "owners")]
    pub owner: Vec<String>,
    /// Output CSV file (written atomically; an existing FILE is refused
    /// without --force); standard output if omitted or `-`.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace --out if it exists.
    #[arg(long)]
    pub force: bool,
    /// Largest connected component (nodes) for --distance resistance; memory
    /// is 8·n² bytes (20,000 nodes → 3.2 GB).
    #[arg(long, value_name = "NODES", default_value_t = DistanceOptions::DEFAULT_RESISTANCE_CAP)]
    pub resistance_cap: usize,
    /// Random projections of the resistance-approx sketch (memory 4·k·N bytes;
    /// median relative error about 0.67·√(2/k)).
    #[arg(long, value_name = "K", default_value_t = DistanceOptions::default().approx_k)]
    pub approx_k: usize,
    /// Relative residual at which each conjugate-gradient solve of the sketch stops.
    #[arg(long, value_name = "TOL", default_value_t = DistanceOptions::default().approx_tol)]
    pub approx_tol: f64,
    /// Seed of the sketch's random projections.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,
}

/// Maps owner ids to node indices; an unknown id is a parameter error naming it.
fn owner_indices(g: &Graph, ids: &[String], graph: &Path) -> Result<Vec<u32>> {
    let mut seen = std::collections::HashSet::new();
    ids.iter()
        .map(|id| {
            let i = g.ids().index_of(id).ok_or_else(|| {
                Error::param(
                    "owner",
                    id,
                    match g.view_of() {
                        Some(v) => {
                            format!("a node id of the view {} of {}", v.spec, graph.display())
                        }
                        None => format!("a node id that occurs in {}", graph.display()),
                    },
                )
            })?;
            if !seen.insert(i) {
                // As `simulate --owners`: a repeat would print the same rows twice.
                return Err(Error::param("--owners", id, "each owner once"));
            }
            Ok(i)
        })
        .collect()
}

/// Runs `privdiffuse distances`.
pub fn run(args: DistancesArgs) -> anyhow::Result<()> {
    // Claimed before the work: an existing --out is refused at once.
    let mut out = Output::open(args.out.as_deref(), args.force)?;
    let g = super::plain_graph::load(&args.graph, &args.nodes, args.directed, &args.view)?;
    let owners = match (&args.owners, args.owner.is_empty()) {
        (_, false) => owner_indices(&g, &args.owner, &args.graph)?,
        (Some(Owners::All), true) => (0..g.n() as u32).collect(),
        (Some(Owners::Ids(ids)), true) => owner_indices(&g, ids, &args.graph)?,
        (Some(Owners::Count(n)), true) => {
            return Err(Error::param(
                "owners",
                n,
                format!(
                    "all or a list of ids: write `--owner {n}` (or `--owners {n},`) for node \
                     {n}; a bare number means {n} sampled owners in simulate, which distances \
                     does not draw"
                ),
            )
            .into());
        }
        (None, true) => {
            return Err(Error::param("owners", "(missing)", "--owners SPEC or --owner ID").into());
        }
    };
    let opts = DistanceOptions {
        resistance_cap: args.resistance_cap,
        approx_k: args.approx_k,
        approx_tol: args.approx_tol,
        seed: args.seed,
    };
    let d = Distances::for_rows(&g, args.distance, &opts, owners.len())?;
    let out_name = args
        .out
        .as_deref()
        .map_or_else(|| PathBuf::from("<stdout>"), Path::to_path_buf);
    let mut line = String::with_capacity(1 << 16);
    line.push_str("source,target,distance\n");
    let mut ws = d.workspace();
    let mut err: Option<std::io::Error> = None;
    d.batch(&owners, &mut ws, |i, row| {
        if err.is_some() {
            return;
        }
        let s = owners[i];
        for (t, &x) in row.iter().enumerate() {
            if t as u32 == s || !x.is_finite() {
                continue;
            }
            use std::fmt::Write as _;
            let _ = write!(line, "{},{},", g.ids().label(s), g.ids().label(t as u32));
            write_f64(&mut line, x);
            line.push('\n');
            if line.len() >= 1 << 16 {
                if let Err(e) = out.write_all(line.as_bytes()) {
                    err = Some(e);
                    return;
                }
                line.clear();
            }
        }
    });
    if let Some(e) = err {
        return Err(Error::io(out_name, e).into());
    }
    out.write_all(line.as_bytes())
        .map_err(|e| Error::io(&out_name, e))?;
    out.finish()?;
    Ok(())
}

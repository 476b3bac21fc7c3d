//! `privdiffuse subgraph`: write a view of a graph (an ego network, or the
//! nodes of a list) as an edge list that loads back to the same graph.

use super::common::ViewArgs;
use crate::graph::Graph;
use crate::io::edge_list_to;
use crate::util::{AtomicFile, Existing};
use crate::{Error, GraphView};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Write an ego network or an induced subgraph of a graph as an edge list
///
/// The output keeps the original ids and edge lengths; its first lines are
/// `#` comments recording the command and the view. Loaded again (with
/// --directed for a directed graph) it is the same graph that --ego or
/// --subgraph gives any other command. When the view has isolated nodes, or
/// string ids whose order the edge lines alone would not keep, FILE is
/// accompanied by STEM.nodes listing every node in order (load it with
/// --nodes STEM.nodes).
///
/// Examples:
///   privdiffuse subgraph --graph facebook_combined.txt --ego 0 --out data/facebook_ego0.edges
///   privdiffuse subgraph --graph data/karate.edges --ego 33:2 --out k33.edges
///   privdiffuse subgraph --graph web.txt.gz --subgraph seeds.txt --out part.edges
#[derive(Debug, clap::Args)]
#[command(
    verbatim_doc_comment,
    group(clap::ArgGroup::new("view").required(true).args(["ego", "subgraph"]))
)]
pub struct SubgraphArgs {
    /// Edge list (`u v [w]` per line; .gz read transparently; see `info --help`)
    #[arg(long, value_name = "PATH")]
    pub graph: PathBuf,
    /// Node list adding isolated nodes to the graph: one id per line
    #[arg(long, value_name = "FILE")]
    pub nodes: Option<PathBuf>,
    /// Read `u v` as the arc u → v only (the ego network then follows out-arcs)
    #[arg(long)]
    pub directed: bool,
    #[command(flatten)]
    pub view: ViewArgs,
    /// Output edge list (its folder is created if missing; an existing FILE is
    /// refused without --force)
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Replace --out (and STEM.nodes) if they exist
    #[arg(long)]
    pub force: bool,
}

/// Whether the edge lines alone load back in `g`'s node order: every node is
/// on an edge line, and for string ids (numbered by first appearance) the
/// lines name nodes first in index order.
fn edges_keep_order(g: &Graph) -> bool {
    if g.stats().isolated > 0 {
        return false;
    }
    if g.ids().is_integer() {
        // Integer ids are sorted on loading, and a view keeps them ascending.
        return true;
    }
    let mut next = 0u32;
    let mut seen = vec![false; g.n()];
    for (u, v, _) in g.edges() {
        for x in [u, v] {
            if !std::mem::replace(&mut seen[x as usize], true) {
                if x != next {
                    return false;
                }
                next += 1;
            }
        }
    }
    true
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `STEM.nodes` beside the edge list.
fn nodes_path(out: &Path) -> PathBuf {
    out.with_extension("nodes")
}

/// The command line recorded in the file's first comment line.
fn command_line(a: &SubgraphArgs, view: &GraphView) -> String {
    let mut s = format!("privdiffuse subgraph --graph {}", a.graph.display());
    if let Some(n) = &a.nodes {
        s.push_str(&format!(" --nodes {}", n.display()));
    }
    if a.directed {
        s.push_str(" --directed");
    }
    match view {
        GraphView::Ego { id, radius } => s.push_str(&format!(" --ego {id}:{radius}")),
        GraphView::Subgraph(f) => s.push_str(&format!(" --subgraph {}", f.display())),
    }
    s.push_str(&format!(" --out {}", a.out.display()));
    s
}

/// Runs `privdiffuse subgraph`.
pub fn run(args: SubgraphArgs) -> anyhow::Result<()> {
    let Some(view) = args.view.view() else {
        // clap requires one of the two.
        return Err(Error::param("ego", "", "--ego ID[:R] or --subgraph FILE").into());
    };
    let existing = Existing::for_out(true, args.force);
    // Claimed before the work: an existing --out is refused at once.
    let mut edges_file = AtomicFile::create_with(&args.out, existing).map_err(Error::from)?;
    let g = super::plain_graph::load(&args.graph, &args.nodes, args.directed, &args.view)?;
    let of = g.view_of().cloned();
    let (of_nodes, of_edges) = of.as_ref().map_or((0, 0), |v| (v.of_nodes, v.of_edges));
    let mut summary = format!(
        "{}: {}, {} (of {of_nodes} nodes, {of_edges} edges)",
        view.describe(),
        plural(g.n() as u64, "node"),
        plural(g.m(), "edge")
    );
    if g.is_directed() {
        summary.push_str("; directed: load with --directed");
    }
    let with_nodes = !edges_keep_order(&g);
    let nodes = nodes_path(&args.out);
    if with_nodes {
        if nodes == args.out {
            return Err(Error::param(
                "out",
                args.out.display(),
                "a file name whose extension is not .nodes (STEM.nodes lists the nodes)",
            )
            .into());
        }
        summary.push_str(&format!("; load with --nodes {}", nodes.display()));
    }
    let header = format!("{}\n{summary}", command_line(&args, &view));
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e: std::io::Error| Error::io(&p, e)
    };
    edge_list_to(&g, &mut edges_file, &header).map_err(io(&args.out))?;
    let mut nodes_file = None;
    if with_nodes {
        let mut f = AtomicFile::create_with(&nodes, existing).map_err(Error::from)?;
        writeln!(f, "# nodes of {}, in order", args.out.display()).map_err(io(&nodes))?;
        for i in 0..g.n() as u32 {
            writeln!(f, "{}", g.ids().label(i)).map_err(io(&nodes))?;
        }
        nodes_file = Some(f);
    }
    edges_file.commit().map_err(Error::from)?;
    eprintln!("wrote {} ({summary})", args.out.display());
    if let Some(f) = nodes_file {
        f.commit().map_err(Error::from)?;
        eprintln!("wrote {}", nodes.display());
    }
    Ok(())
}

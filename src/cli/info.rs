//! `privdiffuse info`: load a graph and print its statistics.

use crate::graph::GraphStats;
use std::io::Write;
use std::path::PathBuf;

/// Describe a graph file: size, connectivity, degrees, what the loader dropped
///
/// Dropped lines are self-loops, duplicate edges and duplicates whose weight
/// disagreed (the first weight is kept). With --ego or --subgraph the
/// statistics are those of the view (the dropped lines still the file's).
///
/// Examples: `privdiffuse info --graph data/karate.edges`,
/// `privdiffuse info --graph facebook_combined.txt.gz --json`.
#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    /// Edge list: one `u v` or `u v w` per line (w = edge length > 0), columns
    /// separated by spaces, tabs or commas; `#` and `%` comment lines; an optional
    /// header such as `source,target,weight`; gzip (`.gz`) read transparently.
    /// An id made only of ASCII digits is a number (`007`, `07` and `7` are one
    /// node, printed `7`, in every file that names nodes); when every id is a
    /// number nodes are sorted numerically, otherwise they keep their order of
    /// first appearance. Lines are at most 1 MiB.
    #[arg(long, value_name = "PATH")]
    pub graph: PathBuf,
    /// Node list adding nodes that are on no edge line (isolated nodes): one id
    /// per line, comments allowed, extra columns ignored (so a generated
    /// `STEM.coords.csv` works).
    #[arg(long, value_name = "FILE")]
    pub nodes: Option<PathBuf>,
    #[command(flatten)]
    pub view: super::common::ViewArgs,
    /// Read `u v` as the arc u → v only (components are then weakly connected
    /// and degrees count in- plus out-arcs).
    #[arg(long)]
    pub directed: bool,
    /// Print the statistics as JSON (the `GraphStats` fields) instead of aligned text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `privdiffuse info`.
pub fn run(args: InfoArgs) -> anyhow::Result<()> {
    let g = super::plain_graph::load(&args.graph, &args.nodes, args.directed, &args.view)?;
    let s = g.stats();
    // Ids that are text (a header read as an edge shows here: issue 33
    // item 12); reported when there are any.
    let text_ids = g.ids().text_count();
    let mut out = std::io::stdout().lock();
    if args.json {
        #[derive(serde::Serialize)]
        struct WithText<'a> {
            #[serde(flatten)]
            stats: &'a GraphStats,
            text_ids: usize,
        }
        if text_ids > 0 {
            let stats = &s;
            serde_json::to_writer_pretty(&mut out, &WithText { stats, text_ids })?;
        } else {
            serde_json::to_writer_pretty(&mut out, &s)?;
        }
        writeln!(out)?;
    } else {
        let file = args.graph.display().to_string();
        write!(out, "{}", human(&file, &s, text_ids))?;
    }
    Ok(())
}

/// Aligned `name  value` lines.
fn human(file: &str, s: &GraphStats, text_ids: usize) -> String {
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let mut rows: Vec<(&str, String)> = vec![("file", file.to_string())];
    if let Some(v) = &s.view {
        let what = v
            .spec
            .parse::<crate::GraphView>()
            .map_or_else(|_| v.spec.clone(), |g| g.describe());
        rows.push((
            "view",
            format!(
                "{what} of {file} ({} nodes, {} edges); the rows below describe the view",
                v.of_nodes, v.of_edges
            ),
        ));
    }
    rows.extend([
        ("nodes", s.nodes.to_string()),
        ("edges", s.edges.to_string()),
        ("directed", yes_no(s.directed).into()),
        ("weighted", yes_no(s.weighted).into()),
        ("components", s.components.to_string()),
        ("largest component", s.largest_component.to_string()),
        ("isolated nodes", s.isolated.to_string()),
        (
            "degree min/mean/max",
            format!("{} / {:.3} / {}", s.degree_min, s.degree_mean, s.degree_max),
        ),
        ("self-loops dropped", s.self_loops_dropped.to_string()),
        ("duplicates dropped", s.duplicates_dropped.to_string()),
        ("conflicting weights", s.conflicting_weights.to_string()),
    ]);
    if text_ids > 0 {
        rows.push(("text ids", format!("{text_ids} of {}", s.nodes)));
    }
    let mut text = String::new();
    for (k, v) in &rows {
        text.push_str(&format!("{k:<20} {v}\n"));
    }
    text
}

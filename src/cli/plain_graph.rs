//! The graph of the commands that read one and nothing else (`distances`,
//! `info`, `subgraph`): loaded one way, its dropped lines warned of once.

use super::common::ViewArgs;
use crate::Result;
use crate::graph::{Graph, LoadOptions};
use std::path::{Path, PathBuf};

/// Loads `graph` (as arcs when `directed`, adding the isolated nodes of
/// `nodes`) and cuts out `view`'s view; what the loader dropped is warned
/// of on stderr.
pub(super) fn load(
    graph: &Path,
    nodes: &Option<PathBuf>,
    directed: bool,
    view: &ViewArgs,
) -> Result<Graph> {
    let opts = LoadOptions {
        directed,
        nodes_file: nodes.clone(),
        ..LoadOptions::default()
    };
    let g = view.load(graph, &opts)?;
    if let Some(w) = g.dropped().warning() {
        eprintln!("{w}");
    }
    Ok(g)
}

//! Graph files: edge lists readable by [`load_graph`](crate::graph::load_graph)
//! and the node coordinates of a generated geometric graph. The generators in
//! [`graph::generate`](crate::graph::generate) return data; these write it.

use crate::graph::{Graph, NodeIds};
use crate::util::{AtomicFile, write_f64};
use crate::{Error, Result};
use std::io::Write;
use std::path::Path;

/// Writes `g` as an edge list readable by [`crate::graph::load_graph`]: each
/// line of `header_comment` as a `# ` comment, then one `u v` (or `u v w`) line
/// per edge with original ids (undirected edges once, u < v by index). Atomic:
/// the file appears only when complete.
pub fn write_edge_list(g: &Graph, path: &Path, header_comment: &str) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    let io = |e| Error::io(path, e);
    for line in header_comment.lines() {
        writeln!(f, "# {line}").map_err(io)?;
    }
    let ids = g.ids();
    let mut w = String::new();
    for (u, v, len) in g.edges() {
        if g.is_weighted() {
            w.clear();
            write_f64(&mut w, len);
            writeln!(f, "{} {} {w}", ids.label(u), ids.label(v)).map_err(io)?;
        } else {
            writeln!(f, "{} {}", ids.label(u), ids.label(v)).map_err(io)?;
        }
    }
    Ok(f.commit()?)
}

/// Writes node coordinates as CSV `node,x,y` (shortest round-trip numbers),
/// one row per node in index order. Atomic.
pub fn write_coords(ids: &NodeIds, coords: &[[f64; 2]], path: &Path) -> Result<()> {
    if ids.len() != coords.len() {
        return Err(Error::param(
            "coordinates",
            coords.len(),
            format!("one [x, y] per node ({})", ids.len()),
        ));
    }
    let mut f = AtomicFile::create(path)?;
    let io = |e| Error::io(path, e);
    writeln!(f, "node,x,y").map_err(io)?;
    let mut line = String::new();
    for (i, c) in coords.iter().enumerate() {
        line.clear();
        write_f64(&mut line, c[0]);
        line.push(',');
        write_f64(&mut line, c[1]);
        writeln!(f, "{},{line}", ids.label(i as u32)).map_err(io)?;
    }
    Ok(f.commit()?)
}

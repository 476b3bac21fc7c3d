//! Graph files: edge lists readable by [`load_graph`](crate::graph::load_graph)
//! and the node coordinates of a generated geometric graph. The generators in
//! [`graph::generate`](crate::graph::generate) return data; these write it.

use crate::error::{Error, Result};
use crate::graph::{Graph, NodeIds};
use crate::util::{AtomicFile, write_f64};
use std::io::Write;
use std::path::Path;

/// Writes `g` as an edge list readable by `crate::graph::load_graph`: each
/// line of `header_comment` as a `# ` comment, then one `u v` (or `u v w`) line
/// per edge with original ids (undirected edges once, u < v by index). Atomic:
/// the file appears only when complete (replacing one that exists).
pub fn write_edge_list(g: &Graph, path: &Path, header_comment: &str) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    edge_list_to(g, &mut f, header_comment).map_err(|e| Error::io(path, e))?;
    Ok(f.commit()?)
}

/// The text of [`write_edge_list`], to any writer (e.g. an [`AtomicFile`]
/// created with another policy for an existing file).
pub fn edge_list_to(g: &Graph, f: &mut impl Write, header_comment: &str) -> std::io::Result<()> {
    for line in header_comment.lines() {
        writeln!(f, "# {line}")?;
    }
    let ids = g.ids();
    let mut w = String::new();
    for (u, v, len) in g.edges() {
        if g.is_weighted() {
            w.clear();
            write_f64(&mut w, len);
            writeln!(f, "{} {} {w}", ids.label(u), ids.label(v))?;
        } else {
            writeln!(f, "{} {}", ids.label(u), ids.label(v))?;
        }
    }
    Ok(())
}

/// Writes node coordinates as CSV `node,x,y` (shortest round-trip numbers),
/// one row per node in index order. Atomic.
pub fn write_coords(ids: &NodeIds, coords: &[[f64; 2]], path: &Path) -> Result<()> {
    check_coords(ids, coords)?;
    let mut f = AtomicFile::create(path)?;
    coords_to(ids, coords, &mut f).map_err(|e| Error::io(path, e))?;
    Ok(f.commit()?)
}

fn check_coords(ids: &NodeIds, coords: &[[f64; 2]]) -> Result<()> {
    if ids.len() != coords.len() {
        return Err(Error::param(
            "coordinates",
            coords.len(),
            format!("one [x, y] per node ({})", ids.len()),
        ));
    }
    Ok(())
}

/// The text of [`write_coords`], to any writer (`coords` must hold one
/// point per node, as [`write_coords`] checks).
pub fn coords_to(ids: &NodeIds, coords: &[[f64; 2]], f: &mut impl Write) -> std::io::Result<()> {
    writeln!(f, "node,x,y")?;
    let mut line = String::new();
    for (i, c) in coords.iter().enumerate().take(ids.len()) {
        line.clear();
        write_f64(&mut line, c[0]);
        line.push(',');
        write_f64(&mut line, c[1]);
        writeln!(f, "{},{line}", ids.label(i as u32))?;
    }
    Ok(())
}

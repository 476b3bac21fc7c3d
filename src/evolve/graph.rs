//! The graph of a batch as the store rebuilds it (the running edge set on
//! the store's ids), shared by the live run and a resume.

use crate::distance::DistanceKind;
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeIds};
use std::collections::BTreeMap;

/// The running edge set: `(u, v) → length`, u < v.
pub(super) type Edges = BTreeMap<(u32, u32), f64>;

/// Largest component exact resistance distances are computed for in
/// `evolve`: the factorisation runs on one thread there, so the answers do
/// not depend on the thread count (the store lists batch 0 by recomputing it).
pub(super) const RESISTANCE_MAX: usize = 5000;

/// The undirected graph on `ids` with edge set `edges`, as the store
/// rebuilds it; resistance distances refuse components above [`RESISTANCE_MAX`].
pub(super) fn graph_of(ids: &NodeIds, edges: &Edges, kind: DistanceKind) -> Result<Graph> {
    let g = crate::store::graph_of(ids.clone(), edges)?;
    if kind == DistanceKind::Resistance {
        let (count, label) = g.components();
        let mut size = vec![0usize; count];
        for &l in &label {
            size[l as usize] += 1;
        }
        if let Some(&big) = size.iter().max().filter(|&&s| s > RESISTANCE_MAX) {
            return Err(Error::Unsupported(format!(
                "evolve with resistance distances: a component of {big} nodes, above \
                 {RESISTANCE_MAX} (beyond it the factorisation is parallel and its last bits \
                 could depend on the thread count); use hop or weighted distances"
            )));
        }
    }
    Ok(g)
}

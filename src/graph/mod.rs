//! The social network: who can be reached from whom, and how far.
//!
//! A [`Graph`] is static and stored as compressed sparse rows: node indices
//! are `u32` (`0..n`), `neighbors(u)` is a plain slice of the CSR target
//! array, so traversals touch no per-node allocation. Undirected graphs store
//! every edge as two arcs; directed ones follow out-arcs. Edges may carry
//! `f64` lengths, which the resistance distances read as electrical
//! resistances. [`NodeIds`] maps indices back to the ids of the input file
//! (integers, or any string token), and every output names nodes by those ids.
//!
//! * [`load`] — edge lists as researchers have them (SNAP `.txt`/`.gz`, CSV
//!   exports, comments, headers, string ids); [`Graph::load`] is the loader of
//!   the command line's `--graph`. Dropped self-loops and duplicate edges are
//!   counted ([`Dropped`]), never silently lost.
//! * [`generate`] — random geometric, Erdős–Rényi, Barabási–Albert and
//!   Watts–Strogatz graphs, seeded through [`rng_for`](crate::rng_for).
//! * [`stats`] — degrees, components and what the loader dropped
//!   ([`GraphStats`], as `privdiffuse info` prints).
//! * [`view`] — induced subgraphs with the ids kept: [`Graph::ego`] (`--ego
//!   ID[:R]`), [`Graph::subgraph`] and [`Graph::subgraph_file`]
//!   (`--subgraph FILE`), described by a [`GraphView`].
//!
//! The graph knows nothing of privacy: distances live in
//! [`distance`](crate::distance); writing a graph to a file is the output
//! layer's job, above this one.
//!
//! ```
//! use privdiffuse::Graph;
//! # fn main() -> Result<(), privdiffuse::Error> {
//! // A path 0 – 1 – 2 plus a duplicate edge and a self-loop, both dropped.
//! let g = Graph::from_index_edges(3, &[(0, 1), (1, 2), (2, 1), (2, 2)], None, false)?;
//! assert_eq!((g.n(), g.m()), (3, 2));
//! assert_eq!(g.neighbors(1), &[0, 2]);
//! let s = g.stats();
//! assert_eq!((s.duplicates_dropped, s.self_loops_dropped, s.components), (1, 1, 1));
//! # Ok(()) }
//! ```

pub mod generate;
mod ids;
pub mod load;
pub mod stats;
pub mod view;

pub use generate::GeometricParam;
pub use ids::NodeIds;
pub use load::{HeaderMode, LoadOptions, load_graph};
pub use stats::GraphStats;
pub use view::{GraphView, ViewOf};

use rayon::prelude::*;

use crate::error::{Error, Result};

/// Nodes per parallel task when building the CSR arrays.
const NODE_BLOCK: usize = 4096;

/// Splits `data` (laid out by `offsets`, one segment per node) into blocks
/// of [`NODE_BLOCK`] consecutive nodes: (first node, the block's elements).
fn node_blocks<'a, T>(mut data: &'a mut [T], offsets: &[usize]) -> Vec<(usize, &'a mut [T])> {
    let n = offsets.len() - 1;
    let mut out = Vec::with_capacity(n.div_ceil(NODE_BLOCK));
    let mut node = 0;
    while node < n {
        let hi = (node + NODE_BLOCK).min(n);
        let (block, rest) = std::mem::take(&mut data).split_at_mut(offsets[hi] - offsets[node]);
        out.push((node, block));
        data = rest;
        node = hi;
    }
    out
}

/// Counts of input lines the builder dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Dropped {
    /// Edges `u u`.
    pub self_loops: u64,
    /// Repeated edges (for undirected graphs `u v` and `v u` are the same edge).
    pub duplicates: u64,
    /// Duplicates whose weight differed from the first occurrence (first kept).
    pub conflicting_weights: u64,
}

impl Dropped {
    /// A one-line warning for standard error when duplicates disagreed on
    /// their weight (the first weight was kept), else `None`.
    pub fn warning(&self) -> Option<String> {
        (self.conflicting_weights > 0).then(|| {
            format!(
                "warning: {} duplicate edge(s) had a different weight than their first occurrence; the first weight was kept",
                self.conflicting_weights
            )
        })
    }
}

/// A static graph in CSR form.
#[derive(Clone, Debug)]
pub struct Graph {
    directed: bool,
    offsets: Vec<usize>,
    targets: Vec<u32>,
    weights: Option<Vec<f64>>,
    ids: NodeIds,
    edges: u64,
    dropped: Dropped,
    /// The file it was read from (see [`Graph::source`]).
    source: Option<std::path::PathBuf>,
    /// What it was cut from, for a view (see [`Graph::view_of`]).
    view: Option<ViewOf>,
}

impl Graph {
    /// Reads an edge list as `--graph` does (undirected; see `load` for the
    /// format) and remembers the path ([`Graph::source`]).
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<Graph> {
        load_graph(path.as_ref(), &LoadOptions::default())
    }

    /// As [`Graph::load`], with options (directed arcs, a file of extra nodes).
    pub fn load_with(path: impl AsRef<std::path::Path>, opts: &LoadOptions) -> Result<Graph> {
        load_graph(path.as_ref(), opts)
    }

    /// The file the graph was read from, if it was read from one: where
    /// `values = auto` looks for the coordinates written beside a generated
    /// graph.
    pub fn source(&self) -> Option<&std::path::Path> {
        self.source.as_deref()
    }

    /// Records the file the graph was read from.
    pub fn with_source(mut self, path: impl Into<std::path::PathBuf>) -> Graph {
        self.source = Some(path.into());
        self
    }

    /// Builds a graph on `ids.len()` nodes from edges given as index pairs.
    ///
    /// Self-loops and duplicate edges are dropped and counted (the first
    /// weight of a duplicate is kept). `weights`, if given, has one entry per
    /// edge and every entry must be finite and > 0.
    pub fn from_edges(
        ids: NodeIds,
        edges: &[(u32, u32)],
        weights: Option<&[f64]>,
        directed: bool,
    ) -> Result<Graph> {
        let n = ids.len();
        check_edge_input(n, edges, weights)?;
        let mut dropped = Dropped::default();
        let offsets = arc_offsets(n, edges, directed, &mut dropped.self_loops)?;
        let mut arcs = place_arcs(edges, &offsets, directed, weights.is_some());
        let (kept, dup_arcs, conflict_arcs) = dedup_segments(&mut arcs, &offsets, weights);
        let (new_offsets, targets, wout) = compact_segments(&arcs, &offsets, &kept, weights);
        let arcs_kept = targets.len() as u64;
        let (edges_kept, dups, conflicts) = if directed {
            (arcs_kept, dup_arcs, conflict_arcs)
        } else {
            (arcs_kept / 2, dup_arcs / 2, conflict_arcs / 2)
        };
        dropped.duplicates = dups;
        dropped.conflicting_weights = conflicts;
        Ok(Graph {
            directed,
            offsets: new_offsets,
            targets,
            weights: wout,
            ids,
            edges: edges_kept,
            dropped,
            source: None,
            view: None,
        })
    }

    /// A graph whose original ids are `0..n`.
    pub fn from_index_edges(
        n: usize,
        edges: &[(u32, u32)],
        weights: Option<&[f64]>,
        directed: bool,
    ) -> Result<Graph> {
        Graph::from_edges(NodeIds::range(n), edges, weights, directed)
    }

    /// Number of nodes.
    #[inline]
    pub fn n(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of edges (undirected edges counted once).
    #[inline]
    pub fn m(&self) -> u64 {
        self.edges
    }

    /// Whether arcs are one-way.
    #[inline]
    pub fn is_directed(&self) -> bool {
        self.directed
    }

    /// Whether edges carry lengths.
    #[inline]
    pub fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }

    /// Out-neighbours of `u` (all neighbours for undirected graphs), ascending.
    #[inline]
    pub fn neighbors(&self, u: u32) -> &[u32] {
        let u = u as usize;
        &self.targets[self.offsets[u]..self.offsets[u + 1]]
    }

    /// Lengths of the arcs in [`Graph::neighbors`] order, if weighted.
    #[inline]
    pub fn neighbor_weights(&self, u: u32) -> Option<&[f64]> {
        let u = u as usize;
        self.weights
            .as_ref()
            .map(|w| &w[self.offsets[u]..self.offsets[u + 1]])
    }

    /// Length of arc number `arc` (1.0 when unweighted).
    #[inline]
    pub fn arc_weight(&self, arc: usize) -> f64 {
        self.weights.as_ref().map_or(1.0, |w| w[arc])
    }

    /// Out-degree of `u`.
    #[inline]
    pub fn degree(&self, u: u32) -> usize {
        let u = u as usize;
        self.offsets[u + 1] - self.offsets[u]
    }

    /// CSR offsets (`n + 1` entries).
    #[inline]
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// CSR arc targets.
    #[inline]
    pub fn targets(&self) -> &[u32] {
        &self.targets
    }

    /// CSR arc lengths, if weighted.
    #[inline]
    pub fn weights(&self) -> Option<&[f64]> {
        self.weights.as_deref()
    }

    /// Original node ids.
    #[inline]
    pub fn ids(&self) -> &NodeIds {
        &self.ids
    }

    /// What the builder dropped.
    #[inline]
    pub fn dropped(&self) -> Dropped {
        self.dropped
    }

    /// Each edge once as `(u, v, length)`: `u < v` for undirected graphs.
    pub fn edges(&self) -> impl Iterator<Item = (u32, u32, f64)> + '_ {
        (0..self.n() as u32).flat_map(move |u| {
            let lo = self.offsets[u as usize];
            self.neighbors(u)
                .iter()
                .enumerate()
                .filter(move |&(_, &v)| self.directed || u < v)
                .map(move |(i, &v)| (u, v, self.arc_weight(lo + i)))
        })
    }

    /// Records counts from an earlier stage (e.g. the loader) in the graph.
    pub fn add_dropped(&mut self, extra: Dropped) {
        self.dropped.self_loops += extra.self_loops;
        self.dropped.duplicates += extra.duplicates;
        self.dropped.conflicting_weights += extra.conflicting_weights;
    }
}

// The phases of `Graph::from_edges`, in order.

/// Checks the sizes `from_edges` can index (node and edge positions are
/// `u32`) and the weights: one per edge, each finite and > 0.
fn check_edge_input(n: usize, edges: &[(u32, u32)], weights: Option<&[f64]>) -> Result<()> {
    if n > u32::MAX as usize {
        return Err(Error::param("node count", n, "at most 2^32 - 1 nodes"));
    }
    if edges.len() > u32::MAX as usize {
        // Arcs remember their edge's position as a `u32`.
        return Err(Error::param(
            "edge count",
            edges.len(),
            "at most 2^32 - 1 edges (self-loops and repeats included)",
        ));
    }
    if let Some(w) = weights {
        if w.len() != edges.len() {
            return Err(Error::param(
                "weights",
                w.len(),
                format!("one weight per edge ({})", edges.len()),
            ));
        }
        if let Some((i, x)) = w
            .iter()
            .enumerate()
            .find(|(_, x)| !(x.is_finite() && **x > 0.0))
        {
            return Err(Error::param(
                format!("weight of edge {i}"),
                x,
                "a finite number > 0",
            ));
        }
    }
    Ok(())
}

/// The CSR offsets of the arcs before deduplication (each node's
/// out-degree, summed), checking every endpoint is below `n`; self-loops
/// are skipped and counted in `self_loops`.
fn arc_offsets(
    n: usize,
    edges: &[(u32, u32)],
    directed: bool,
    self_loops: &mut u64,
) -> Result<Vec<usize>> {
    // Out-degree before deduplication. (Sequential: atomic increments at
    // random addresses measured slower on 2 threads than plain ones,
    // whose cache misses overlap.)
    let mut degree = vec![0usize; n];
    for &(u, v) in edges {
        if u as usize >= n || v as usize >= n {
            return Err(Error::param(
                "edge endpoint",
                format!("{u}-{v}"),
                format!("node indices below {n}"),
            ));
        }
        if u == v {
            *self_loops += 1;
            continue;
        }
        degree[u as usize] += 1;
        if !directed {
            degree[v as usize] += 1;
        }
    }
    let mut offsets = vec![0usize; n + 1];
    for i in 0..n {
        offsets[i + 1] = offsets[i] + degree[i];
    }
    Ok(offsets)
}

/// Every arc as (target << 32 | input position) in its source's segment
/// of `offsets`: sorting a segment orders it by target, first occurrence
/// of a repeated edge first (the position matters only for weights; it is
/// 0 without them, `weighted` false). Placed in two passes, so that no
/// write lands at a random address of the whole array: first each arc goes
/// to its block of NODE_BLOCK sources (one write stream per block) as
/// (source within the block << 32 | target), its position beside it; then,
/// per block in parallel, to its source's segment.
fn place_arcs(edges: &[(u32, u32)], offsets: &[usize], directed: bool, weighted: bool) -> Vec<u64> {
    let n = offsets.len() - 1;
    let total = offsets[n];
    let blocks_n = n.div_ceil(NODE_BLOCK);
    let mut cursor: Vec<usize> = (0..blocks_n).map(|b| offsets[b * NODE_BLOCK]).collect();
    let mut arcs = vec![0u64; total];
    let mut position = weighted.then(|| vec![0u32; total]);
    for (k, &(u, v)) in edges.iter().enumerate() {
        if u == v {
            continue;
        }
        let ends: &[(u32, u32)] = if directed {
            &[(u, v)]
        } else {
            &[(u, v), (v, u)]
        };
        for &(from, to) in ends {
            let b = from as usize / NODE_BLOCK;
            let at = cursor[b];
            arcs[at] = (((from as usize % NODE_BLOCK) as u64) << 32) | to as u64;
            if let Some(p) = position.as_mut() {
                p[at] = k as u32;
            }
            cursor[b] += 1;
        }
    }
    drop(cursor);
    node_blocks(&mut arcs, offsets)
        .into_par_iter()
        .for_each_init(Vec::new, |tagged, (first, block)| {
            let hi = (first + NODE_BLOCK).min(n);
            let base = offsets[first];
            let mut fill: Vec<usize> = offsets[first..hi].iter().map(|&o| o - base).collect();
            tagged.clear();
            tagged.extend_from_slice(block);
            let pos = position.as_deref().map(|p| &p[base..base + block.len()]);
            for (j, &t) in tagged.iter().enumerate() {
                let local = (t >> 32) as usize;
                let k = pos.map_or(0, |p| p[j] as u64);
                block[fill[local]] = ((t & 0xFFFF_FFFF) << 32) | k;
                fill[local] += 1;
            }
        });
    arcs
}

/// The weight of a placed arc (its input position in the low 32 bits); 1
/// without weights.
#[inline]
fn arc_weight(weights: Option<&[f64]>, k: u64) -> f64 {
    weights
        .map(|w| w[(k & 0xFFFF_FFFF) as usize])
        .unwrap_or(1.0)
}

/// Sorts and deduplicates each segment in place, blocks of nodes in
/// parallel: `kept[u]` arcs survive at the front of u's segment. Returns
/// `kept` and the arcs dropped as repeats, and as repeats whose weight
/// differed from the first.
fn dedup_segments(
    arcs: &mut [u64],
    offsets: &[usize],
    weights: Option<&[f64]>,
) -> (Vec<usize>, u64, u64) {
    let n = offsets.len() - 1;
    let weight_of = |k: u64| arc_weight(weights, k);
    let mut kept = vec![0usize; n];
    let blocks: Vec<_> = node_blocks(arcs, offsets)
        .into_iter()
        .zip(kept.chunks_mut(NODE_BLOCK))
        .map(|((first, a), k)| (first, a, k))
        .collect();
    let (dup_arcs, conflict_arcs) = blocks
        .into_par_iter()
        .map(|(first, block, kept)| {
            let (mut dups, mut conflicts) = (0u64, 0u64);
            let base = offsets[first];
            for (i, kept) in kept.iter_mut().enumerate() {
                let u = first + i;
                let seg = &mut block[offsets[u] - base..offsets[u + 1] - base];
                seg.sort_unstable();
                let mut len = 0usize;
                for j in 0..seg.len() {
                    let arc = seg[j];
                    if len > 0 && seg[len - 1] >> 32 == arc >> 32 {
                        dups += 1;
                        if weight_of(seg[len - 1]) != weight_of(arc) {
                            conflicts += 1;
                        }
                        continue;
                    }
                    seg[len] = arc;
                    len += 1;
                }
                *kept = len;
            }
            (dups, conflicts)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    (kept, dup_arcs, conflict_arcs)
}

/// The final CSR arrays from the kept front of each segment: offsets,
/// targets and (with `weights`) each arc's weight.
fn compact_segments(
    arcs: &[u64],
    offsets: &[usize],
    kept: &[usize],
    weights: Option<&[f64]>,
) -> (Vec<usize>, Vec<u32>, Option<Vec<f64>>) {
    let n = kept.len();
    let mut new_offsets = vec![0usize; n + 1];
    for u in 0..n {
        new_offsets[u + 1] = new_offsets[u] + kept[u];
    }
    let segment = |u: usize| &arcs[offsets[u]..offsets[u] + kept[u]];
    let mut targets = vec![0u32; new_offsets[n]];
    node_blocks(&mut targets, &new_offsets)
        .into_par_iter()
        .for_each(|(first, out)| {
            let arcs = (first..).flat_map(|u| segment(u).iter());
            for (t, &arc) in out.iter_mut().zip(arcs) {
                *t = (arc >> 32) as u32;
            }
        });
    let mut wout = weights.map(|_| vec![0.0f64; new_offsets[n]]);
    if let Some(ws) = wout.as_mut() {
        node_blocks(ws, &new_offsets)
            .into_par_iter()
            .for_each(|(first, out)| {
                let arcs = (first..).flat_map(|u| segment(u).iter());
                for (w, &arc) in out.iter_mut().zip(arcs) {
                    *w = arc_weight(weights, arc);
                }
            });
    }
    (new_offsets, targets, wout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_undirected_csr_dropping_loops_and_duplicates() {
        let e = [(0, 1), (1, 0), (1, 2), (2, 2), (0, 1), (3, 1)];
        let w = [1.0, 2.0, 3.0, 1.0, 1.0, 4.0];
        let g = Graph::from_index_edges(5, &e, Some(&w), false).unwrap();
        assert_eq!(g.n(), 5);
        assert_eq!(g.m(), 3);
        assert_eq!(g.neighbors(1), &[0, 2, 3]);
        assert_eq!(g.neighbor_weights(1).unwrap(), &[1.0, 3.0, 4.0]);
        assert_eq!(g.neighbors(4), &[] as &[u32]);
        assert_eq!(
            g.dropped(),
            Dropped {
                self_loops: 1,
                duplicates: 2,
                conflicting_weights: 1
            }
        );
        let es: Vec<_> = g.edges().collect();
        assert_eq!(es, vec![(0, 1, 1.0), (1, 2, 3.0), (1, 3, 4.0)]);
    }

    #[test]
    fn directed_keeps_one_arc() {
        let g = Graph::from_index_edges(3, &[(0, 1), (1, 0), (1, 2)], None, true).unwrap();
        assert_eq!(g.m(), 3);
        assert_eq!(g.neighbors(0), &[1]);
        assert_eq!(g.neighbors(2), &[] as &[u32]);
    }

    #[test]
    fn rejects_bad_weights_and_endpoints() {
        assert!(Graph::from_index_edges(2, &[(0, 1)], Some(&[0.0]), false).is_err());
        assert!(Graph::from_index_edges(2, &[(0, 1)], Some(&[f64::NAN]), false).is_err());
        assert!(Graph::from_index_edges(2, &[(0, 2)], None, false).is_err());
    }
}

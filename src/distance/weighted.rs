//! Dijkstra's algorithm with a binary heap over the CSR arrays; edge weights
//! are lengths (1 when the graph is unweighted). Lazy deletion: a popped entry
//! whose key exceeds the settled distance is skipped.

use crate::graph::Graph;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Heap entry ordered so that `BinaryHeap` (a max-heap) pops the smallest distance.
#[derive(Clone, Copy, PartialEq)]
struct Entry(f64, u32);

impl Eq for Entry {}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .0
            .total_cmp(&self.0)
            .then_with(|| other.1.cmp(&self.1))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Reusable priority queue (part of a `Workspace`).
#[derive(Default)]
pub(crate) struct Heap(BinaryHeap<Entry>);

/// Shortest-path lengths from `s` along out-arcs into `out` (∞ when unreachable).
pub(crate) fn dijkstra(g: &Graph, s: u32, heap: &mut Heap, out: &mut Vec<f64>) {
    let n = g.n();
    out.clear();
    out.resize(n, f64::INFINITY);
    let heap = &mut heap.0;
    heap.clear();
    let offsets = g.offsets();
    let targets = g.targets();
    let weights = g.weights();
    out[s as usize] = 0.0;
    heap.push(Entry(0.0, s));
    while let Some(Entry(d, u)) = heap.pop() {
        let u = u as usize;
        if d > out[u] {
            continue;
        }
        let (lo, hi) = (offsets[u], offsets[u + 1]);
        for (k, &v) in targets[lo..hi].iter().enumerate() {
            let nd = d + weights.map_or(1.0, |w| w[lo + k]);
            let dv = &mut out[v as usize];
            if nd < *dv {
                *dv = nd;
                heap.push(Entry(nd, v));
            }
        }
    }
}

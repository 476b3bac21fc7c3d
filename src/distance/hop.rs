//! Single-source BFS on the CSR arrays, writing hop counts straight into the
//! caller's `f64` row (no per-call allocation once the buffers have grown).
//!
//! Undirected graphs use direction-optimising BFS (Beamer, Asanović,
//! Patterson, *Direction-Optimizing Breadth-First Search*, SC 2012): when the
//! frontier's arcs outnumber a fraction of the unvisited nodes' arcs, a level
//! is expanded bottom-up: every unvisited node scans its neighbours and stops
//! at the first one on the frontier. On small-diameter social graphs this
//! skips most arcs of the middle levels. The row itself marks the frontier
//! (`out[u] == level`), so no extra bitmap is needed. Directed graphs stay
//! top-down (bottom-up would need in-arcs).

use crate::graph::Graph;

/// Switch to bottom-up when frontier arcs > unvisited arcs / ALPHA (Beamer's α).
const ALPHA: usize = 14;
/// Switch back to top-down when the frontier has fewer than n / BETA nodes.
const BETA: usize = 24;

/// Hop distances from `s` along out-arcs into `out` (∞ when unreachable).
/// `queue` is scratch space.
pub(crate) fn bfs(g: &Graph, s: u32, queue: &mut Vec<u32>, out: &mut Vec<f64>) {
    let n = g.n();
    out.clear();
    out.resize(n, f64::INFINITY);
    queue.clear();
    queue.reserve(n);
    let offsets = g.offsets();
    let targets = g.targets();
    let bottom_up_ok = !g.is_directed();
    out[s as usize] = 0.0;
    queue.push(s);
    // Arcs of nodes not yet visited (undirected: both directions counted).
    let mut unvisited_arcs = targets.len() - g.degree(s);
    let mut head = 0;
    let mut level = 0.0;
    while head < queue.len() {
        let end = queue.len();
        let next = level + 1.0;
        let frontier_arcs: usize = if bottom_up_ok {
            queue[head..end].iter().map(|&u| g.degree(u)).sum()
        } else {
            0
        };
        if bottom_up_ok && frontier_arcs > unvisited_arcs / ALPHA && end - head >= n / BETA {
            for v in 0..n {
                if out[v] != f64::INFINITY {
                    continue;
                }
                for &u in &targets[offsets[v]..offsets[v + 1]] {
                    if out[u as usize] == level {
                        out[v] = next;
                        queue.push(v as u32);
                        unvisited_arcs -= offsets[v + 1] - offsets[v];
                        break;
                    }
                }
            }
            head = end;
        } else {
            while head < end {
                let u = queue[head] as usize;
                head += 1;
                for &v in &targets[offsets[u]..offsets[u + 1]] {
                    let d = &mut out[v as usize];
                    if *d == f64::INFINITY {
                        *d = next;
                        queue.push(v);
                        unvisited_arcs -= offsets[v as usize + 1] - offsets[v as usize];
                    }
                }
            }
        }
        level = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plain top-down BFS as the oracle.
    fn reference(g: &Graph, s: u32) -> Vec<f64> {
        let mut d = vec![f64::INFINITY; g.n()];
        let mut q = std::collections::VecDeque::from([s]);
        d[s as usize] = 0.0;
        while let Some(u) = q.pop_front() {
            for &v in g.neighbors(u) {
                if d[v as usize].is_infinite() {
                    d[v as usize] = d[u as usize] + 1.0;
                    q.push_back(v);
                }
            }
        }
        d
    }

    /// A dense core plus long tails: forces both directions to be used.
    #[test]
    fn direction_switching_matches_plain_bfs() {
        let mut edges = Vec::new();
        for u in 0..60u32 {
            for v in u + 1..60 {
                if (u * 7 + v * 13) % 3 != 0 {
                    edges.push((u, v));
                }
            }
        }
        for t in 0..5u32 {
            let mut prev = t;
            for i in 0..30u32 {
                let v = 60 + t * 30 + i;
                edges.push((prev, v));
                prev = v;
            }
        }
        let g = Graph::from_index_edges(215, &edges, None, false).unwrap();
        let (mut q, mut row) = (Vec::new(), Vec::new());
        for s in [0u32, 59, 60, 89, 214] {
            bfs(&g, s, &mut q, &mut row);
            assert_eq!(row, reference(&g, s), "source {s}");
        }
    }
}

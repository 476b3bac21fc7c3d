//! Multi-source bit-parallel BFS ("MS-BFS", Then, Kaufmann, Chirigati, Hoang-Vu,
//! Pham, Kemper, Neumann, Vo: *The More the Merrier: Efficient Multi-Source
//! Graph Traversal*, VLDB 2014).
//!
//! Up to 64 BFS run at once, one bit per source in a `u64` per node: `seen[v]`
//! (sources that reached v), `visit[v]` (sources whose frontier holds v at this
//! level) and `next[v]` (sources reaching v at the next level). One pass over
//! the arcs of the frontier advances all 64 searches, so nodes shared between
//! the searches' frontiers are expanded once per level instead of 64 times.
//! The frontier is kept as a node list, so a level costs the arcs of its
//! frontier, not a scan of all N nodes (long paths stay linear).
//!
//! Levels are recorded per (node, source) as `u16` in a node-major `N × 64`
//! array: 128 bytes per node, O(64·N) per workspace, never N×N. A search that
//! would reach level 65,535 (diameter beyond `u16`) falls back to the exact
//! single-source BFS for that batch.

use super::hop;
use crate::graph::Graph;

const UNSEEN: u16 = u16::MAX;

/// Reusable bit-parallel BFS state (part of a `Workspace`).
#[derive(Default)]
pub(crate) struct BitBfs {
    seen: Vec<u64>,
    visit: Vec<u64>,
    next: Vec<u64>,
    levels: Vec<u16>,
    frontier: Vec<u32>,
    next_frontier: Vec<u32>,
}

impl BitBfs {
    /// Hop distances from each of `sources` (at most 64; repeats allowed):
    /// calls `f(i, row)` for `sources[i]`, `i` ascending. `queue` and `row` are
    /// scratch buffers.
    pub(crate) fn run(
        &mut self,
        g: &Graph,
        sources: &[u32],
        queue: &mut Vec<u32>,
        row: &mut Vec<f64>,
        mut f: impl FnMut(usize, &[f64]),
    ) {
        assert!(sources.len() <= 64, "at most 64 sources per batch");
        let n = g.n();
        if !self.search(g, sources) {
            // Diameter beyond u16: exact per-source BFS instead.
            for (i, &s) in sources.iter().enumerate() {
                hop::bfs(g, s, queue, row);
                f(i, row);
            }
            return;
        }
        row.clear();
        row.resize(n, f64::INFINITY);
        for i in 0..sources.len() {
            for (v, r) in row.iter_mut().enumerate() {
                let l = self.levels[v * 64 + i];
                *r = if l == UNSEEN { f64::INFINITY } else { l as f64 };
            }
            f(i, row);
        }
    }

    /// Runs the searches, filling `levels`; false on level overflow.
    fn search(&mut self, g: &Graph, sources: &[u32]) -> bool {
        let n = g.n();
        for v in [&mut self.seen, &mut self.visit, &mut self.next] {
            v.clear();
            v.resize(n, 0);
        }
        self.levels.clear();
        self.levels.resize(n * 64, UNSEEN);
        self.frontier.clear();
        self.next_frontier.clear();
        for (i, &s) in sources.iter().enumerate() {
            let s = s as usize;
            if self.visit[s] == 0 {
                self.frontier.push(s as u32);
            }
            self.visit[s] |= 1 << i;
            self.seen[s] |= 1 << i;
            self.levels[s * 64 + i] = 0;
        }
        let offsets = g.offsets();
        let targets = g.targets();
        let (seen, visit, next, levels) = (
            &mut self.seen[..],
            &mut self.visit[..],
            &mut self.next[..],
            &mut self.levels[..],
        );
        let mut level: u16 = 0;
        while !self.frontier.is_empty() {
            if level == UNSEEN - 1 {
                return false;
            }
            level += 1;
            for &u in &self.frontier {
                let u = u as usize;
                let w = visit[u];
                for &v in &targets[offsets[u]..offsets[u + 1]] {
                    let v = v as usize;
                    let mut d = w & !seen[v];
                    if d != 0 {
                        if next[v] == 0 {
                            self.next_frontier.push(v as u32);
                        }
                        next[v] |= d;
                        seen[v] |= d;
                        let lv = &mut levels[v * 64..v * 64 + 64];
                        while d != 0 {
                            lv[d.trailing_zeros() as usize] = level;
                            d &= d - 1;
                        }
                    }
                }
            }
            for &u in &self.frontier {
                visit[u as usize] = 0;
            }
            for &v in &self.next_frontier {
                visit[v as usize] = next[v as usize];
                next[v as usize] = 0;
            }
            std::mem::swap(&mut self.frontier, &mut self.next_frontier);
            self.next_frontier.clear();
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path longer than u16 levels: the batch must fall back and stay exact.
    #[test]
    fn deep_paths_fall_back_to_exact_bfs() {
        let n = 70_000u32;
        let edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        let g = Graph::from_index_edges(n as usize, &edges, None, false).unwrap();
        let mut b = BitBfs::default();
        let (mut q, mut row) = (Vec::new(), Vec::new());
        let mut seen = 0;
        b.run(&g, &[0, n - 1], &mut q, &mut row, |i, r| {
            seen += 1;
            let s = if i == 0 { 0 } else { n - 1 };
            assert_eq!(r[(n - 1 - s) as usize], (n - 1) as f64);
            assert_eq!(r[s as usize], 0.0);
            assert_eq!(r[40_000], (40_000f64 - s as f64).abs());
        });
        assert_eq!(seen, 2);
    }
}

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
//! Every search counts its nodes per level as it goes (a level histogram per
//! source, O(64 · levels)). Consumers that need no per-node answer stop there
//! ([`BitBfs::levels`] without rows): no per-node level is stored at all.
//! Otherwise levels are recorded per (node, source) as `u16` in a node-major
//! `N × 64` array (128 bytes per node, O(64·N) per workspace, never N×N) and
//! handed out per source as a compact `u16` row made by a blocked transpose
//! (all 64 sources in one pass of node tiles up to [`ONE_PASS_NODES`] nodes,
//! else [`GROUP`] sources per pass), or as the historical `f64` row
//! ([`BitBfs::run`]). A search that
//! would reach level 65,535 (diameter beyond `u16`) falls back to the exact
//! single-source BFS for that batch.

use super::hop;
use super::level_sums::LevelSums;
use super::visit::LevelSearch;
use super::{HopLevels, LevelRow};
use crate::graph::Graph;

const UNSEEN: u16 = u16::MAX;

/// Sources transposed per pass over the node-major levels of a large graph.
const GROUP: usize = 16;

/// Nodes up to which a batch's 64 level rows are transposed in one pass
/// (the rows then take as much memory as the node-major levels, 8 MiB at
/// most); above, [`GROUP`] rows per pass.
const ONE_PASS_NODES: usize = 1 << 16;

/// Nodes per tile of the transpose: a tile's node-major levels (16 KiB)
/// stay in L1 while each source's stretch of its row is written.
const TILE: usize = 128;

/// Reusable bit-parallel BFS state (part of a `Workspace`).
#[derive(Default)]
pub(crate) struct BitBfs {
    seen: Vec<u64>,
    visit: Vec<u64>,
    next: Vec<u64>,
    levels: Vec<u16>,
    frontier: Vec<u32>,
    next_frontier: Vec<u32>,
    /// Nodes reached per level and source: `counts[level][source]`.
    counts: Vec<[u64; 64]>,
    /// One source's histogram, handed to callbacks.
    hist: Vec<u64>,
    /// The transposed level rows of one pass (64 or `GROUP` of them, × N).
    rows: Vec<u16>,
    /// Fallback rows when the diameter exceeds `u16`.
    wide: Vec<u32>,
    /// Histograms only: the direction-optimising level search.
    level_search: LevelSearch,
    /// Its per-source histograms (and degree sums, when asked for).
    by_level: LevelSums,
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
        if !self.search(g, sources, true) {
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

    /// Hop levels from each of `sources` (at most 64; repeats allowed): calls
    /// `f(i, levels)` for `sources[i]`, `i` ascending, with the source's level
    /// histogram and, when `want_row(i)`, its level row.
    pub(crate) fn levels(
        &mut self,
        g: &Graph,
        sources: &[u32],
        queue: &mut Vec<u32>,
        frow: &mut Vec<f64>,
        want_row: &dyn Fn(usize) -> bool,
        f: &mut dyn FnMut(usize, &HopLevels<'_>),
    ) {
        assert!(sources.len() <= 64, "at most 64 sources per batch");
        let n = g.n();
        let rows = (0..sources.len()).any(want_row);
        if !rows && sources.len() > 1 {
            // Histograms only: counted from the level search's masks, with
            // no per-node level stored (and no depth limit).
            self.level_sums(g, sources, false, f);
            return;
        }
        // One source with its row: the direction-optimising single-source
        // BFS, without filling 64 levels per node.
        if (sources.len() == 1 && rows) || !self.search(g, sources, rows) {
            for (i, &s) in sources.iter().enumerate() {
                hop::bfs(g, s, queue, frow);
                self.hist.clear();
                self.wide.clear();
                for &d in frow.iter() {
                    let l = if d.is_finite() { d as u32 } else { u32::MAX };
                    if l != u32::MAX {
                        if l as usize >= self.hist.len() {
                            self.hist.resize(l as usize + 1, 0);
                        }
                        self.hist[l as usize] += 1;
                    }
                    self.wide.push(l);
                }
                let reached: u64 = self.hist.iter().sum();
                let row = want_row(i).then_some(LevelRow::Wide(&self.wide[..]));
                f(
                    i,
                    &HopLevels {
                        hist: &self.hist,
                        unreachable: n as u64 - reached,
                        row,
                        degs: None,
                    },
                );
            }
            return;
        }
        let group = if n <= ONE_PASS_NODES { 64 } else { GROUP };
        let mut i = 0;
        while i < sources.len() {
            let end = (i + group).min(sources.len());
            let wanted: Vec<bool> = (i..end).map(want_row).collect();
            if wanted.iter().any(|&w| w) {
                self.transpose(n, i, end);
            }
            for k in i..end {
                self.hist.clear();
                self.hist.extend(self.counts.iter().map(|c| c[k]));
                while self.hist.len() > 1 && self.hist.last() == Some(&0) {
                    self.hist.pop();
                }
                let reached: u64 = self.hist.iter().sum();
                let row = wanted[k - i]
                    .then(|| LevelRow::Compact(&self.rows[(k - i) * n..(k - i + 1) * n]));
                f(
                    k,
                    &HopLevels {
                        hist: &self.hist,
                        unreachable: n as u64 - reached,
                        row,
                        degs: None,
                    },
                );
            }
            i = end;
        }
    }

    /// Level histograms of each of `sources` (at most 64; repeats allowed)
    /// from the level search, with no per-node level stored and no depth
    /// limit, and, when `degrees`, the out-degree sums per level
    /// ([`HopLevels::out_degrees`]): calls `f(i, levels)` for `sources[i]`,
    /// `i` ascending, with no row.
    pub(crate) fn level_sums(
        &mut self,
        g: &Graph,
        sources: &[u32],
        degrees: bool,
        f: &mut dyn FnMut(usize, &HopLevels<'_>),
    ) {
        assert!(sources.len() <= 64, "at most 64 sources per batch");
        self.by_level
            .run(&mut self.level_search, g, sources, degrees);
        for i in 0..sources.len() {
            let hist = self.by_level.hist(i);
            let reached: u64 = hist.iter().sum();
            f(
                i,
                &HopLevels {
                    hist,
                    unreachable: g.n() as u64 - reached,
                    row: None,
                    degs: self.by_level.degrees(i),
                },
            );
        }
    }

    /// Level rows of sources `from..to` into `rows`: one sequential pass
    /// over the node-major levels, a tile of [`TILE`] nodes at a time, each
    /// source's stretch of the tile copied into its row. Every entry of
    /// `rows` is overwritten, so a buffer of the right length is not reset.
    fn transpose(&mut self, n: usize, from: usize, to: usize) {
        let g = to - from;
        if self.rows.len() != g * n {
            self.rows.clear();
            self.rows.resize(g * n, UNSEEN);
        }
        let (rows, levels) = (&mut self.rows[..], &self.levels[..64 * n]);
        for (t, tile) in levels.chunks(64 * TILE).enumerate() {
            let v = t * TILE;
            let len = tile.len() / 64;
            for (k, row) in rows.chunks_exact_mut(n).enumerate() {
                let src = tile.chunks_exact(64).map(|lv| lv[from + k]);
                for (r, l) in row[v..v + len].iter_mut().zip(src) {
                    *r = l;
                }
            }
        }
    }

    /// Runs the searches, counting nodes per level and source and (when
    /// `record`) filling `levels`; false on level overflow of `levels`.
    fn search(&mut self, g: &Graph, sources: &[u32], record: bool) -> bool {
        let n = g.n();
        for v in [&mut self.seen, &mut self.visit, &mut self.next] {
            v.clear();
            v.resize(n, 0);
        }
        self.levels.clear();
        if record {
            self.levels.resize(n * 64, UNSEEN);
        }
        self.counts.clear();
        self.counts.push([0; 64]);
        self.frontier.clear();
        self.next_frontier.clear();
        for (i, &s) in sources.iter().enumerate() {
            let s = s as usize;
            if self.visit[s] == 0 {
                self.frontier.push(s as u32);
            }
            self.visit[s] |= 1 << i;
            self.seen[s] |= 1 << i;
            if record {
                self.levels[s * 64 + i] = 0;
            }
            self.counts[0][i] = 1;
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
                if record {
                    return false;
                }
                // Levels are only counted: keep going with wider counters.
                return self.search_deep(g, sources);
            }
            level += 1;
            let mut count = [0u64; 64];
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
                        if record {
                            let lv = &mut levels[v * 64..v * 64 + 64];
                            while d != 0 {
                                let b = d.trailing_zeros() as usize;
                                lv[b] = level;
                                count[b] += 1;
                                d &= d - 1;
                            }
                        } else {
                            while d != 0 {
                                count[d.trailing_zeros() as usize] += 1;
                                d &= d - 1;
                            }
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
            if !self.frontier.is_empty() {
                self.counts.push(count);
            }
        }
        true
    }

    /// Histograms only, for a batch deeper than `u16` levels: per-source BFS.
    fn search_deep(&mut self, g: &Graph, sources: &[u32]) -> bool {
        let (mut q, mut row) = (Vec::new(), Vec::new());
        self.counts.clear();
        for (i, &s) in sources.iter().enumerate() {
            hop::bfs(g, s, &mut q, &mut row);
            for &d in row.iter().filter(|d| d.is_finite()) {
                let l = d as usize;
                if l >= self.counts.len() {
                    self.counts.resize(l + 1, [0; 64]);
                }
                self.counts[l][i] += 1;
            }
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

    /// Histograms and rows of the level route equal the exact BFS, with and
    /// without rows in the batch, on a random graph with several components.
    #[test]
    fn levels_match_exact_bfs() {
        use rand::{RngExt, SeedableRng};
        let n = 3000u32;
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let edges: Vec<(u32, u32)> = (0..4000)
            .map(|_| (rng.random_range(0..n), rng.random_range(0..n)))
            .collect();
        let g = Graph::from_index_edges(n as usize, &edges, None, false).unwrap();
        let sources: Vec<u32> = (0..40).map(|i| (i * 71) % n).chain([5, 5]).collect();
        let mut b = BitBfs::default();
        let (mut q, mut row) = (Vec::new(), Vec::new());
        for rows in [false, true] {
            let mut calls = 0;
            b.levels(
                &g,
                &sources,
                &mut q.clone(),
                &mut Vec::new(),
                &|i| rows && i % 3 != 1,
                &mut |i, lv| {
                    calls += 1;
                    hop::bfs(&g, sources[i], &mut q, &mut row);
                    let mut hist = vec![0u64; 0];
                    for d in row.iter().filter(|d| d.is_finite()) {
                        let l = *d as usize;
                        if l >= hist.len() {
                            hist.resize(l + 1, 0);
                        }
                        hist[l] += 1;
                    }
                    assert_eq!(lv.hist(), &hist[..], "source {i}");
                    let unreached = row.iter().filter(|d| !d.is_finite()).count() as u64;
                    assert_eq!(lv.unreachable(), unreached);
                    assert_eq!(lv.row().is_some(), rows && i % 3 != 1);
                    if let Some(r) = lv.row() {
                        r.for_each(|v, l| {
                            let d = row[v as usize];
                            assert_eq!(l.map(|l| l as f64).unwrap_or(f64::INFINITY), d);
                        });
                    }
                },
            );
            assert_eq!(calls, sources.len());
        }
    }

    /// Every row equals the exact BFS when a workspace is reused across
    /// batches (its rows are overwritten, not reset) and for both transposes:
    /// the one-pass transpose of a graph up to `ONE_PASS_NODES` nodes (64
    /// sources, a partial last tile) and the `GROUP`-row passes above it.
    #[test]
    fn rows_match_exact_bfs_across_batches_and_transposes() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for (n, per_batch) in [(3000u32, 64u32), (ONE_PASS_NODES as u32 + 3000, 20)] {
            let edges: Vec<(u32, u32)> = (0..2 * n)
                .map(|_| (rng.random_range(0..n), rng.random_range(0..n)))
                .collect();
            let g = Graph::from_index_edges(n as usize, &edges, None, false).unwrap();
            let mut b = BitBfs::default();
            let (mut q, mut row) = (Vec::new(), Vec::new());
            for batch in 0..2 {
                let sources: Vec<u32> = (0..per_batch).map(|i| (i * 97 + batch * 13) % n).collect();
                let mut calls = 0;
                b.levels(
                    &g,
                    &sources,
                    &mut Vec::new(),
                    &mut Vec::new(),
                    &|_| true,
                    &mut |i, lv| {
                        calls += 1;
                        hop::bfs(&g, sources[i], &mut q, &mut row);
                        let r = lv.row().unwrap();
                        assert_eq!(r.len(), n as usize);
                        r.for_each(|v, l| {
                            let l = l.map(|l| l as f64).unwrap_or(f64::INFINITY);
                            assert_eq!(l, row[v as usize], "batch {batch} source {i} node {v}");
                        });
                    },
                );
                assert_eq!(calls, per_batch);
            }
        }
    }

    /// Levels beyond u16: histograms (no rows) and wide rows stay exact.
    #[test]
    fn deep_levels_stay_exact() {
        let n = 70_000u32;
        let edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        let g = Graph::from_index_edges(n as usize, &edges, None, false).unwrap();
        let mut b = BitBfs::default();
        for rows in [false, true] {
            b.levels(
                &g,
                &[0, 10],
                &mut Vec::new(),
                &mut Vec::new(),
                &|_| rows,
                &mut |i, lv| {
                    let s = [0u32, 10][i];
                    assert_eq!(lv.hist().len(), (n - s) as usize);
                    assert_eq!(lv.hist().iter().sum::<u64>(), n as u64);
                    if let Some(r) = lv.row() {
                        assert_eq!(r.get(69_999), Some(69_999 - s));
                    }
                },
            );
        }
    }
}

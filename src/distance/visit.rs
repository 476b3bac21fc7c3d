//! Hop levels of up to 64 sources at once, handed to a visitor level by level,
//! with no distance row at all: the bit-parallel BFS of [`super::bitbfs`]
//! (Then et al., VLDB 2014) without its `N × 64` level array.
//!
//! After hop level `L` is expanded, the visitor gets the nodes first reached
//! at `L` by some source and, for each, the set of those sources as a `u64`
//! mask (bit `i` = `sources[i]`). Whatever a consumer adds per (node, level)
//! — one value per source and level, summed over the mask — it can take from
//! [`SubsetSums`]: eight table look-ups per mask instead of up to 64 adds.
//! Memory is 24 bytes per node (three words) plus the frontier lists.

use crate::graph::Graph;
use std::ops::ControlFlow;

/// What a [`LevelSearch`] reports.
pub trait LevelVisitor {
    /// Hop `level` (1, 2, … in order) is complete: `nodes[k]` was reached at
    /// exactly this level by the sources in `masks[k]` (and by no source
    /// before). `Break` ends the search (no further calls, not even
    /// [`done`](LevelVisitor::done)).
    fn level(&mut self, level: u32, nodes: &[u32], masks: &[u64]) -> ControlFlow<()>;

    /// The search is over: `seen[v]` holds the sources that reach `v` (a
    /// source reaches its own node, at level 0).
    fn done(&mut self, seen: &[u64]);
}

/// Reusable state of the level-by-level bit-parallel BFS (one per thread).
#[derive(Default)]
pub struct LevelSearch {
    seen: Vec<u64>,
    visit: Vec<u64>,
    next: Vec<u64>,
    frontier: Vec<u32>,
    next_frontier: Vec<u32>,
    masks: Vec<u64>,
}

impl LevelSearch {
    /// A search with no buffers yet (they grow to the graph at the first run).
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs the BFS of every source at once along out-arcs, reporting each
    /// level to `visitor`. Returns `Break` if the visitor stopped it.
    ///
    /// # Panics
    /// With more than 64 sources, or a source `>= g.n()`.
    pub fn run(
        &mut self,
        g: &Graph,
        sources: &[u32],
        visitor: &mut impl LevelVisitor,
    ) -> ControlFlow<()> {
        assert!(sources.len() <= 64, "at most 64 sources per search");
        let n = g.n();
        for v in [&mut self.seen, &mut self.visit, &mut self.next] {
            v.clear();
            v.resize(n, 0);
        }
        self.frontier.clear();
        self.next_frontier.clear();
        for (i, &s) in sources.iter().enumerate() {
            assert!((s as usize) < n, "source {s} out of range (n = {n})");
            let s = s as usize;
            if self.visit[s] == 0 {
                self.frontier.push(s as u32);
            }
            self.visit[s] |= 1 << i;
            self.seen[s] |= 1 << i;
        }
        let offsets = g.offsets();
        let targets = g.targets();
        let mut level = 0u32;
        while !self.frontier.is_empty() {
            level += 1;
            let (seen, visit, next) = (&mut self.seen[..], &self.visit[..], &mut self.next[..]);
            for &u in &self.frontier {
                let u = u as usize;
                let w = visit[u];
                for &v in &targets[offsets[u]..offsets[u + 1]] {
                    let v = v as usize;
                    let d = w & !seen[v];
                    if d != 0 {
                        if next[v] == 0 {
                            self.next_frontier.push(v as u32);
                        }
                        next[v] |= d;
                        seen[v] |= d;
                    }
                }
            }
            for &u in &self.frontier {
                self.visit[u as usize] = 0;
            }
            self.masks.clear();
            for &v in &self.next_frontier {
                let m = self.next[v as usize];
                self.visit[v as usize] = m;
                self.next[v as usize] = 0;
                self.masks.push(m);
            }
            if !self.next_frontier.is_empty() {
                visitor.level(level, &self.next_frontier, &self.masks)?;
            }
            std::mem::swap(&mut self.frontier, &mut self.next_frontier);
            self.next_frontier.clear();
        }
        visitor.done(&self.seen);
        ControlFlow::Continue(())
    }
}

/// Sums over subsets of up to 64 values, for masks of sources: eight tables
/// of 256 partial sums, one per byte of the mask, so that
/// [`sum`](SubsetSums::sum) is eight look-ups and seven adds whatever the
/// number of bits set. Building costs 8 × 255 adds. With an integer `T` the
/// sums are exact and independent of the order of the terms.
#[derive(Clone, Debug)]
pub struct SubsetSums<T> {
    table: Vec<[T; 256]>,
}

impl<T> Default for SubsetSums<T>
where
    T: Copy + Default + std::ops::Add<Output = T>,
{
    fn default() -> Self {
        SubsetSums {
            table: vec![[T::default(); 256]; 8],
        }
    }
}

impl<T> SubsetSums<T>
where
    T: Copy + Default + std::ops::Add<Output = T>,
{
    /// Tables for `values` (at most 64; missing ones count as zero).
    pub fn new(values: &[T]) -> Self {
        let mut s = Self::default();
        s.build(values);
        s
    }

    /// Rebuilds the tables for `values` (at most 64; missing ones are zero).
    pub fn build(&mut self, values: &[T]) {
        assert!(values.len() <= 64, "at most 64 values");
        for (b, t) in self.table.iter_mut().enumerate() {
            let lo = 8 * b;
            let mut vals = [T::default(); 8];
            for (k, x) in vals.iter_mut().enumerate() {
                if let Some(&v) = values.get(lo + k) {
                    *x = v;
                }
            }
            t[0] = T::default();
            for s in 1..256usize {
                t[s] = t[s & (s - 1)] + vals[s.trailing_zeros() as usize];
            }
        }
    }

    /// The sum of the values whose bits are set in `mask`.
    #[inline]
    pub fn sum(&self, mask: u64) -> T {
        let t = &self.table;
        let b = mask.to_le_bytes();
        ((t[0][b[0] as usize] + t[1][b[1] as usize]) + (t[2][b[2] as usize] + t[3][b[3] as usize]))
            + ((t[4][b[4] as usize] + t[5][b[5] as usize])
                + (t[6][b[6] as usize] + t[7][b[7] as usize]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::{DistanceKind, DistanceOptions, Distances};

    struct Record {
        levels: Vec<Vec<(u32, u64)>>,
        seen: Vec<u64>,
    }

    impl LevelVisitor for Record {
        fn level(&mut self, level: u32, nodes: &[u32], masks: &[u64]) -> ControlFlow<()> {
            assert_eq!(level as usize, self.levels.len() + 1);
            self.levels
                .push(nodes.iter().copied().zip(masks.iter().copied()).collect());
            ControlFlow::Continue(())
        }
        fn done(&mut self, seen: &[u64]) {
            self.seen = seen.to_vec();
        }
    }

    /// Every (source, node) pair is reported once, at its hop distance, and
    /// `seen` is the reachability; on a directed graph with repeats and
    /// unreachable parts.
    #[test]
    fn levels_are_the_hop_distances() {
        for directed in [false, true] {
            let n = 300u32;
            let edges: Vec<(u32, u32)> = (0..900u32)
                .map(|k| ((k * 7919) % n, (k * 104_729 + 13) % (n - 40)))
                .filter(|(a, b)| a != b)
                .collect();
            let g = Graph::from_index_edges(n as usize, &edges, None, directed).unwrap();
            let hop = Distances::new(&g, DistanceKind::Hop, &DistanceOptions::default()).unwrap();
            let sources: Vec<u32> = (0..64).map(|i| (i * 37 + 5) % n).collect();
            let mut rec = Record {
                levels: Vec::new(),
                seen: Vec::new(),
            };
            let mut search = LevelSearch::new();
            assert!(search.run(&g, &sources, &mut rec).is_continue());
            let mut ws = hop.workspace();
            let mut row = Vec::new();
            for (i, &s) in sources.iter().enumerate() {
                hop.from_owner(s, &mut ws, &mut row);
                for (v, &d) in row.iter().enumerate().take(n as usize) {
                    let reported: Vec<u32> = rec
                        .levels
                        .iter()
                        .enumerate()
                        .filter(|(_, l)| l.iter().any(|&(x, m)| x as usize == v && m >> i & 1 == 1))
                        .map(|(k, _)| k as u32 + 1)
                        .collect();
                    if d.is_finite() && d > 0.0 {
                        assert_eq!(reported, vec![d as u32], "source {s} node {v}");
                    } else {
                        assert!(reported.is_empty());
                    }
                    assert_eq!(rec.seen[v] >> i & 1 == 1, d.is_finite());
                }
            }
        }
    }

    #[test]
    fn subset_sums_add_the_masked_values() {
        let vals: Vec<i128> = (0..64i128).map(|i| i * i * 1_000_003 - 17).collect();
        let s = SubsetSums::new(&vals);
        for mask in [
            0u64,
            1,
            u64::MAX,
            0x8000_0000_0000_0001,
            0x0123_4567_89ab_cdef,
        ] {
            let want: i128 = (0..64)
                .filter(|i| mask >> i & 1 == 1)
                .map(|i| vals[i])
                .sum();
            assert_eq!(s.sum(mask), want);
        }
        let short = SubsetSums::new(&[1.5f64, 2.0, 4.0]);
        assert_eq!(short.sum(0b101), 5.5);
        assert_eq!(short.sum(u64::MAX), 7.5);
    }
}

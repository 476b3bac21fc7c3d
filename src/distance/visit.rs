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
    /// level to `visitor`, the nodes of a level in increasing id order
    /// whatever the direction used (so the order is a function of the graph
    /// and the sources alone). Returns `Break` if the visitor stopped it.
    ///
    /// Levels are expanded top-down (frontier → out-neighbours) while the
    /// frontier is small and bottom-up (every node not yet reached by every
    /// source ORs its neighbours' frontier bits) once the frontier's arcs
    /// outweigh those of the unsaturated nodes (Beamer et al., SC 2012, for
    /// bit-parallel sources); bottom-up needs the reverse arcs, so directed
    /// graphs stay top-down.
    ///
    /// # Panics
    /// With more than 64 sources, or a source `>= g.n()`.
    pub fn run(
        &mut self,
        g: &Graph,
        sources: &[u32],
        visitor: &mut impl LevelVisitor,
    ) -> ControlFlow<()> {
        self.run_with(g, sources, Direction::Auto, visitor)
    }

    /// [`run`](Self::run) with the expansion direction forced (for
    /// benchmarks and tests: every direction gives the same levels).
    pub fn run_with(
        &mut self,
        g: &Graph,
        sources: &[u32],
        direction: Direction,
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
        let mut all = 0u64;
        for (i, &s) in sources.iter().enumerate() {
            assert!((s as usize) < n, "source {s} out of range (n = {n})");
            let s = s as usize;
            if self.visit[s] == 0 {
                self.frontier.push(s as u32);
            }
            self.visit[s] |= 1 << i;
            self.seen[s] |= 1 << i;
            all |= 1 << i;
        }
        self.frontier.sort_unstable();
        let offsets = g.offsets();
        let targets = g.targets();
        let can_pull = !g.is_directed() && direction != Direction::TopDown;
        // Arcs of the nodes some source has not reached yet (bottom-up cost).
        let mut unsat_arcs = targets.len();
        let mut level = 0u32;
        while !self.frontier.is_empty() {
            level += 1;
            let frontier_arcs: usize = self
                .frontier
                .iter()
                .map(|&u| offsets[u as usize + 1] - offsets[u as usize])
                .sum();
            let pull = can_pull
                && (direction == Direction::BottomUp || frontier_arcs * PULL_RATIO > unsat_arcs);
            if pull {
                unsat_arcs = self.pull_level(offsets, targets, all);
            } else {
                self.push_level(offsets, targets);
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

    /// Top-down: every frontier node passes its bits to its out-neighbours.
    /// The new nodes are listed sorted (a scan of `next` when they are many).
    fn push_level(&mut self, offsets: &[usize], targets: &[u32]) {
        let (seen, visit, next) = (&mut self.seen[..], &self.visit[..], &mut self.next[..]);
        let list_max = (seen.len() / PUSH_LIST_DIV).max(1);
        let mut found = 0usize;
        for &u in &self.frontier {
            let u = u as usize;
            let w = visit[u];
            for &v in &targets[offsets[u]..offsets[u + 1]] {
                let v = v as usize;
                let d = w & !seen[v];
                if d != 0 {
                    if next[v] == 0 {
                        found += 1;
                        if found <= list_max {
                            self.next_frontier.push(v as u32);
                        }
                    }
                    next[v] |= d;
                    seen[v] |= d;
                }
            }
        }
        if found > list_max {
            self.next_frontier.clear();
            self.next_frontier.extend(
                next.iter()
                    .enumerate()
                    .filter(|(_, m)| **m != 0)
                    .map(|(v, _)| v as u32),
            );
        } else {
            self.next_frontier.sort_unstable();
        }
    }

    /// Bottom-up: every node not reached by all sources ORs the frontier
    /// bits of its neighbours (stopping once it has them all). Returns the
    /// arcs of the nodes still unsaturated.
    fn pull_level(&mut self, offsets: &[usize], targets: &[u32], all: u64) -> usize {
        let (seen, visit, next) = (&mut self.seen[..], &self.visit[..], &mut self.next[..]);
        let mut unsat = 0usize;
        for v in 0..seen.len() {
            let s = seen[v];
            if s == all {
                continue;
            }
            let mut acc = 0u64;
            let (lo, hi) = (offsets[v], offsets[v + 1]);
            // The next node's first neighbours' frontier words: random
            // reads, fetched while this node's are ORed.
            if let Some(ahead) = targets.get(hi..(hi + PREFETCH).min(targets.len())) {
                for &u in ahead {
                    prefetch(visit, u as usize);
                }
            }
            for &u in &targets[lo..hi] {
                acc |= visit[u as usize];
                if acc | s == all {
                    break;
                }
            }
            let d = acc & !s;
            if d != 0 {
                next[v] = d;
                seen[v] = s | d;
                self.next_frontier.push(v as u32);
            }
            if s | d != all {
                unsat += offsets[v + 1] - offsets[v];
            }
        }
        unsat
    }
}

/// Neighbours of the next node prefetched by a bottom-up level.
const PREFETCH: usize = 8;

/// Hints the cache to fetch `xs[i]` (no effect off x86-64; never faults).
#[inline(always)]
fn prefetch(xs: &[u64], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = xs.get(i) {
        // SAFETY: a prefetch hint on the address of an element of `xs`; it
        // reads nothing architecturally and cannot fault.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                (x as *const u64).cast::<i8>(),
            )
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (xs, i);
}

/// How `LevelSearch::run_with` expands levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Top-down while the frontier is small, bottom-up after (undirected).
    Auto,
    /// Always top-down.
    TopDown,
    /// Always bottom-up (undirected graphs; directed ones stay top-down).
    BottomUp,
}

/// Bottom-up once the frontier's arcs times this exceed the arcs of the
/// unsaturated nodes (Beamer's α).
const PULL_RATIO: usize = 14;

/// Top-down levels list at most n / this many new nodes as they are found
/// (then sorted); beyond, a scan of `next` (n words) is cheaper than the sort.
const PUSH_LIST_DIV: usize = 32;

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
            // Every direction reports the same levels, each in id order.
            for dir in [Direction::TopDown, Direction::BottomUp] {
                let mut other = Record {
                    levels: Vec::new(),
                    seen: Vec::new(),
                };
                assert!(search.run_with(&g, &sources, dir, &mut other).is_continue());
                assert_eq!(other.levels, rec.levels, "{dir:?} directed={directed}");
                assert_eq!(other.seen, rec.seen);
            }
            for l in &rec.levels {
                assert!(
                    l.windows(2).all(|w| w[0].0 < w[1].0),
                    "level not in id order"
                );
            }
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

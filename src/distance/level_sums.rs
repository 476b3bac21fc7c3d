//! Per-source sums over the hop levels of one [`LevelSearch`] (up to 64
//! sources): the nodes at each level and, when asked for, the sum of their
//! out-degrees. `simulate`'s histograms-only batches and the plan's
//! pre-pass count nodes; the relay (every relay trimming, hop distances)
//! also needs the degree sums — the messages sent from each hop — and gets
//! both from the same search.
//!
//! Per level, each reached node's mask is split into its eight bytes, each
//! byte counted in a table of 256 counters (eight increments per node,
//! whatever the number of sources in its mask), the tables then spread over
//! the sources of each byte value. Integer sums: exact, independent of the
//! order of the nodes.

use super::visit::{LevelSearch, LevelVisitor};
use crate::graph::Graph;
use std::ops::ControlFlow;

/// Reusable per-source level sums (see the module docs).
#[derive(Default)]
pub(crate) struct LevelSums {
    /// `hists[i][L]`: nodes at hop L from source i (level 0: the source).
    hists: Vec<Vec<u64>>,
    /// `degs[i][L]`: the sum of their out-degrees (only `with_degrees`).
    degs: Vec<Vec<u64>>,
    with_degrees: bool,
    /// Per byte of a mask, per value of that byte: nodes of the level.
    bytes: Vec<[u64; 256]>,
    /// The same for out-degrees.
    dbytes: Vec<[u64; 256]>,
}

impl LevelSums {
    /// Searches from `sources` (at most 64; repeats allowed) on `g` with
    /// `search`, counting nodes per level and source and, when `degrees`,
    /// their out-degrees. Levels past a source's deepest are trimmed: the
    /// last entry of its histogram is non-zero.
    pub(crate) fn run(
        &mut self,
        search: &mut LevelSearch,
        g: &Graph,
        sources: &[u32],
        degrees: bool,
    ) {
        self.reset(g, sources, degrees);
        let flow = search.run(
            g,
            sources,
            &mut Counter {
                sums: self,
                graph: g,
            },
        );
        debug_assert!(flow.is_continue());
        for (i, h) in self.hists.iter_mut().enumerate() {
            while h.len() > 1 && h.last() == Some(&0) {
                h.pop();
            }
            if degrees {
                self.degs[i].truncate(h.len());
            }
        }
    }

    /// Level 0 of `sources`: one node each, its out-degree.
    fn reset(&mut self, g: &Graph, sources: &[u32], degrees: bool) {
        let k = sources.len();
        self.with_degrees = degrees;
        self.hists.truncate(k);
        self.hists.resize_with(k, Vec::new);
        for h in &mut self.hists {
            h.clear();
            h.push(1);
        }
        self.degs.truncate(if degrees { k } else { 0 });
        if degrees {
            self.degs.resize_with(k, Vec::new);
            for (d, &s) in self.degs.iter_mut().zip(sources) {
                d.clear();
                d.push(g.degree(s) as u64);
            }
        }
        self.bytes.clear();
        self.bytes.resize(k.div_ceil(8), [0; 256]);
        self.dbytes.clear();
        if degrees {
            self.dbytes.resize(k.div_ceil(8), [0; 256]);
        }
    }

    /// Source `i`'s nodes per hop (`[0]` = 1, the last entry non-zero).
    pub(crate) fn hist(&self, i: usize) -> &[u64] {
        &self.hists[i]
    }

    /// Source `i`'s out-degree sums per hop, aligned with
    /// [`hist`](Self::hist), when the run counted them.
    pub(crate) fn degrees(&self, i: usize) -> Option<&[u64]> {
        self.degs.get(i).map(|d| &d[..])
    }
}

/// The search's visitor: adds each level to the sums.
struct Counter<'s> {
    sums: &'s mut LevelSums,
    graph: &'s Graph,
}

impl LevelVisitor for Counter<'_> {
    fn level(&mut self, level: u32, nodes: &[u32], masks: &[u64]) -> ControlFlow<()> {
        let s = &mut *self.sums;
        let nb = s.bytes.len();
        if s.with_degrees {
            for (&v, &m) in nodes.iter().zip(masks) {
                let deg = self.graph.degree(v) as u64;
                let b = m.to_le_bytes();
                for ((t, d), &x) in s.bytes.iter_mut().zip(&mut s.dbytes).zip(&b[..nb]) {
                    t[x as usize] += 1;
                    d[x as usize] += deg;
                }
            }
        } else {
            for &m in masks {
                let b = m.to_le_bytes();
                for (t, &x) in s.bytes.iter_mut().zip(&b[..nb]) {
                    t[x as usize] += 1;
                }
            }
        }
        let l = level as usize;
        for h in &mut s.hists {
            h.resize(l + 1, 0);
        }
        for d in &mut s.degs {
            d.resize(l + 1, 0);
        }
        for (k, t) in s.bytes.iter_mut().enumerate() {
            for x in 1..256 {
                let c = t[x];
                if c == 0 {
                    continue;
                }
                t[x] = 0;
                let dc = match s.dbytes.get_mut(k) {
                    Some(d) => std::mem::take(&mut d[x]),
                    None => 0,
                };
                let mut y = x;
                while y != 0 {
                    let i = 8 * k + y.trailing_zeros() as usize;
                    s.hists[i][l] += c;
                    if let Some(d) = s.degs.get_mut(i) {
                        d[l] += dc;
                    }
                    y &= y - 1;
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn done(&mut self, _seen: &[u64]) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::{DistanceKind, DistanceOptions, Distances};

    /// Nodes and out-degree sums per hop of 64 sources (repeats among
    /// them, masks in every byte) against one breadth-first search per
    /// source, on an undirected and a directed graph with nodes some
    /// sources do not reach; the histograms the same with and without
    /// degrees, and a workspace reused across runs of both kinds.
    #[test]
    fn sums_are_each_sources_bfs_counts() {
        for directed in [false, true] {
            let n = 300u32;
            let edges: Vec<(u32, u32)> = (0..700u32)
                .map(|k| ((k * 7919) % (n - 30), (k * 104_729 + 13) % (n - 30)))
                .filter(|(a, b)| a != b)
                .collect();
            let g = Graph::from_index_edges(n as usize, &edges, None, directed).unwrap();
            let hop = Distances::new(&g, DistanceKind::Hop, &DistanceOptions::default()).unwrap();
            let owners: Vec<u32> = (0..64).map(|i| (i * 37 + 5) % 280).chain([3]).collect();
            let (mut search, mut sums) = (LevelSearch::new(), LevelSums::default());
            for (owners, degrees) in [(&owners[1..], true), (&owners[..7], false)]
                .into_iter()
                .cycle()
                .take(3)
            {
                sums.run(&mut search, &g, owners, degrees);
                let (mut ws, mut row) = (hop.workspace(), Vec::new());
                for (i, &o) in owners.iter().enumerate() {
                    hop.from_owner(o, &mut ws, &mut row);
                    let ecc = row
                        .iter()
                        .filter(|d| d.is_finite())
                        .fold(0.0f64, |a, &d| a.max(d)) as usize;
                    let (h, d) = (sums.hist(i), sums.degrees(i));
                    assert_eq!(h.len(), ecc + 1, "owner {o}, directed {directed}");
                    assert_eq!(d.is_some(), degrees);
                    for l in 0..=ecc {
                        let at: Vec<u32> =
                            (0..n).filter(|&v| row[v as usize] == l as f64).collect();
                        let deg: u64 = at.iter().map(|&v| g.degree(v) as u64).sum();
                        assert_eq!(h[l], at.len() as u64, "owner {o} hop {l}");
                        if let Some(d) = d {
                            assert_eq!(d.len(), h.len());
                            assert_eq!(d[l], deg, "owner {o} hop {l}");
                        }
                    }
                }
            }
        }
    }
}

//! The relay on hop distances when every relay trims, for up to 64 owners
//! at once: the protocol's counts read off the 64-source level search, the
//! rounds fused into it.
//!
//! When every relay trims, the diffusion of an owner on hop distances is
//! fixed by the hops alone (ε is non-increasing, and a message crosses one
//! arc per round):
//!
//! * a node at hop d ≥ 1 hears only from its (in-)neighbours, which are at
//!   hop ≥ d − 1 and trim at ε(≥ d) ≤ ε(d); one of them is at hop d − 1;
//! * by induction on d, each node at hop d first holds its level in round
//!   d: its neighbour at hop d − 1 holds from round d − 1 and sends it, in
//!   round d, the signal trimmed at ε(d) — exactly its own level; no message
//!   reaches it earlier (d arcs) and none is richer;
//! * so every recipient holds, learns exactly ε(d), and forwards once to
//!   each (out-)neighbour trimmed at ε(d + 1) (the owner: ε(1)); the last
//!   holding round is the owner's eccentricity.
//!
//! An owner's counts therefore need, per hop, only the nodes and their
//! out-degrees — what the level search (the one `simulate` runs) hands over
//! level by level as (node, owners' mask) pairs, summed here over the masks
//! with byte tables: sixteen additions per node and level instead of work
//! per owner bit, and no per-node state at all. Recipients are then counted
//! per (hop, learned index, held) as in the sweep ([`super::levels`]). The
//! sweep ([`super::hop`]), round by round ([`super::flood`]) and the
//! exchange ([`super::job`]) run the protocol message by message; the tests
//! check that every engine gives these counts.
//!
//! Only for hop distances with no untrimmed relay; otherwise the sweep runs.

use super::levels::{LevelTally, OwnerReach};
use super::plan::RelayPlan;
use super::signal::{Diffusion, Signal};
use super::stats::{OwnerStats, RunStats};
use crate::distance::{LevelSearch, LevelVisitor};
use crate::error::Result;
use crate::graph::Graph;
use crate::process::family::NoiseFamily;
use std::ops::ControlFlow;

/// Owners per batch (one bit each).
const W: usize = 64;

/// Per hop and owner of a batch: the nodes at that hop and the sum of their
/// out-degrees (`nodes[L][i]`, `degs[L][i]`; hop 0 is the owner).
#[derive(Default)]
struct HopSums {
    nodes: Vec<[u64; W]>,
    degs: Vec<[u64; W]>,
    /// Per byte of a mask, per value of that byte: the level's nodes and
    /// out-degrees so far.
    bytes: Vec<[(u64, u64); 256]>,
}

impl HopSums {
    /// Hop 0 of `owners` in `g`; no other hop.
    fn reset(&mut self, g: &Graph, owners: &[u32]) {
        self.nodes.clear();
        self.degs.clear();
        let (mut nodes, mut degs) = ([0; W], [0; W]);
        for (i, &o) in owners.iter().enumerate() {
            nodes[i] = 1;
            degs[i] = g.degree(o) as u64;
        }
        self.nodes.push(nodes);
        self.degs.push(degs);
        self.bytes.clear();
        self.bytes.resize(owners.len().div_ceil(8), [(0, 0); 256]);
    }

    /// Owner `i`'s eccentricity (0: it reaches nobody).
    fn ecc(&self, i: usize) -> usize {
        (1..self.nodes.len())
            .rev()
            .find(|&l| self.nodes[l][i] > 0)
            .unwrap_or(0)
    }
}

/// The level search's visitor: fills [`HopSums`] level by level.
struct Sums<'s> {
    graph: &'s Graph,
    sums: &'s mut HopSums,
}

impl LevelVisitor for Sums<'_> {
    fn level(&mut self, level: u32, nodes: &[u32], masks: &[u64]) -> ControlFlow<()> {
        let s = &mut *self.sums;
        let nb = s.bytes.len();
        for (&v, &m) in nodes.iter().zip(masks) {
            let deg = self.graph.degree(v) as u64;
            for (t, &x) in s.bytes.iter_mut().zip(&m.to_le_bytes()[..nb]) {
                let c = &mut t[x as usize];
                c.0 += 1;
                c.1 += deg;
            }
        }
        debug_assert_eq!(level as usize, s.nodes.len());
        let (mut row, mut drow) = ([0; W], [0; W]);
        for (k, t) in s.bytes.iter_mut().enumerate() {
            t[0] = (0, 0);
            for (x, c) in t.iter_mut().enumerate().skip(1) {
                if c.0 == 0 {
                    continue;
                }
                let mut y = x;
                while y != 0 {
                    let i = 8 * k + y.trailing_zeros() as usize;
                    row[i] += c.0;
                    drow[i] += c.1;
                    y &= y - 1;
                }
                *c = (0, 0);
            }
        }
        s.nodes.push(row);
        s.degs.push(drow);
        ControlFlow::Continue(())
    }

    fn done(&mut self, _: &[u64]) {}
}

/// Per-worker buffers, reused across batches.
#[derive(Default)]
pub(crate) struct BatchScratch<S> {
    search: LevelSearch,
    sums: HopSums,
    /// Per trim index: out-degrees of the senders (one owner).
    degsum: Vec<u64>,
    tally: LevelTally<S>,
}

impl RelayPlan<'_> {
    /// Whether no fraction makes any relay untrimmed (round(F·N) = 0 for
    /// every F), so that [`Diffusion::batch_chunk`] may run.
    pub(crate) fn all_trim(&self) -> bool {
        let n = self.graph().n() as f64;
        self.fractions().iter().all(|&f| (f * n).round() == 0.0)
    }
}

impl<F: NoiseFamily> Diffusion<'_, '_, F> {
    /// Up to 64 owners at once (every relay trimming): `stats[i·F + f]`
    /// gets owner i's counts (the same under every fraction f), `run` the
    /// recipients per bucket.
    pub(crate) fn batch_chunk(
        &self,
        s: &mut BatchScratch<Signal<F>>,
        owners: &[u32],
        stats: &mut [OwnerStats],
        run: &mut RunStats,
    ) -> Result<()> {
        debug_assert!(owners.len() <= W && self.is_hop());
        let g = self.graph();
        s.sums.reset(g, owners);
        let mut visit = Sums {
            graph: g,
            sums: &mut s.sums,
        };
        let _ = s.search.run(g, owners, &mut visit);
        let nf = self.fractions().len();
        for (i, &o) in owners.iter().enumerate() {
            let ecc = s.sums.ecc(i);
            let stats = &mut stats[i * nf..(i + 1) * nf];
            if ecc == 0 {
                stats.fill(OwnerStats::default());
                continue;
            }
            let recipients: u64 = s.sums.nodes[1..=ecc].iter().map(|r| r[i]).sum();
            self.level_path(&mut s.tally, o, ecc)?;
            s.tally.clear_pairs(ecc);
            for d in 1..=ecc {
                // Every node at hop d holds its level and learned ε(d).
                s.tally.add(d, d as u32, true, s.sums.nodes[d][i]);
            }
            // Holders at hop d forward trimmed at ε(d + 1).
            s.degsum.clear();
            s.degsum.push(0);
            s.degsum.extend(s.sums.degs[..=ecc].iter().map(|r| r[i]));
            let reach = OwnerReach {
                ecc,
                recipients,
                rounds: Some(ecc as u32),
            };
            for (f, st) in stats.iter_mut().enumerate() {
                self.level_stats(&mut s.tally, reach, &s.degsum, f, st, run);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::{DistanceKind, DistanceOptions, Distances};

    /// The per-hop sums of 64 owners (repeats among them, masks in every
    /// byte) against one breadth-first search per owner, on an undirected
    /// and a directed graph with nodes some owners do not reach.
    #[test]
    fn hop_sums_are_each_owners_bfs_counts() {
        for directed in [false, true] {
            let n = 300u32;
            let edges: Vec<(u32, u32)> = (0..700u32)
                .map(|k| ((k * 7919) % (n - 30), (k * 104_729 + 13) % (n - 30)))
                .filter(|(a, b)| a != b)
                .collect();
            let g = Graph::from_index_edges(n as usize, &edges, None, directed).unwrap();
            let hop = Distances::new(&g, DistanceKind::Hop, &DistanceOptions::default()).unwrap();
            let owners: Vec<u32> = (0..64).map(|i| (i * 37 + 5) % 280).chain([3]).collect();
            let owners = &owners[1..];
            let mut sums = HopSums::default();
            sums.reset(&g, owners);
            let mut search = LevelSearch::new();
            let mut visit = Sums {
                graph: &g,
                sums: &mut sums,
            };
            assert!(search.run(&g, owners, &mut visit).is_continue());
            let (mut ws, mut row) = (hop.workspace(), Vec::new());
            for (i, &o) in owners.iter().enumerate() {
                hop.from_owner(o, &mut ws, &mut row);
                let ecc = row
                    .iter()
                    .filter(|d| d.is_finite())
                    .fold(0.0f64, |a, &d| a.max(d));
                assert_eq!(sums.ecc(i), ecc as usize, "owner {o}, directed {directed}");
                for l in 0..sums.nodes.len() {
                    let at: Vec<u32> = (0..n).filter(|&v| row[v as usize] == l as f64).collect();
                    let deg: u64 = at.iter().map(|&v| g.degree(v) as u64).sum();
                    assert_eq!(sums.nodes[l][i], at.len() as u64, "owner {o} hop {l}");
                    assert_eq!(sums.degs[l][i], deg, "owner {o} hop {l}");
                }
            }
        }
    }
}

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
//! level by level as (node, owners' mask) pairs, summed over the masks with
//! byte tables ([`LevelSums`], which also counts `simulate`'s histograms):
//! sixteen additions per node and level instead of work per owner bit, and
//! no per-node state at all. Under a `range:` map the plan's pre-pass (the
//! search that resolves the map, as in `simulate`) counts them for every
//! owner and the batch reads them from it: no second search. Recipients are then counted
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
use crate::distance::{LevelSearch, LevelSums};
use crate::error::Result;
use crate::process::family::NoiseFamily;

/// Owners per batch (one bit each).
const W: usize = 64;

/// Per-worker buffers, reused across batches.
#[derive(Default)]
pub(crate) struct BatchScratch<S> {
    search: LevelSearch,
    /// Per owner of the batch and hop: nodes and out-degrees (when the
    /// plan's pre-pass did not keep them).
    sums: LevelSums,
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
    /// Up to 64 owners at once (every relay trimming), the first at
    /// position `start` of the plan's owners: `stats[i·F + f]` gets owner
    /// i's counts (the same under every fraction f), `run` the recipients
    /// per bucket. The nodes and out-degrees per hop come from the plan's
    /// pre-pass when it kept them ([`crate::sim::Plan::level_sums`]), else
    /// from one level search of the batch.
    pub(crate) fn batch_chunk(
        &self,
        s: &mut BatchScratch<Signal<F>>,
        start: usize,
        owners: &[u32],
        stats: &mut [OwnerStats],
        run: &mut RunStats,
    ) -> Result<()> {
        debug_assert!(owners.len() <= W && self.is_hop());
        let BatchScratch {
            search,
            sums,
            degsum,
            tally,
        } = s;
        let sim = self.sim();
        if sim.level_sums(start).is_none() {
            sums.run(search, self.graph(), owners, true);
        }
        let nf = self.fractions().len();
        for (i, &o) in owners.iter().enumerate() {
            let (nodes, degs) = match sim.level_sums(start + i) {
                Some(c) => c,
                None => (sums.hist(i), sums.degrees(i).expect("counted with degrees")),
            };
            // The deepest hop reached (histograms end at it).
            let ecc = nodes.len() - 1;
            let stats = &mut stats[i * nf..(i + 1) * nf];
            if ecc == 0 {
                stats.fill(OwnerStats::default());
                continue;
            }
            let recipients: u64 = nodes[1..].iter().sum();
            self.level_path(tally, o, ecc)?;
            tally.clear_pairs(ecc);
            for (d, &count) in nodes.iter().enumerate().skip(1) {
                // Every node at hop d holds its level and learned ε(d).
                tally.add(d, d as u32, true, count);
            }
            // Holders at hop d forward trimmed at ε(d + 1).
            degsum.clear();
            degsum.push(0);
            degsum.extend_from_slice(degs);
            let reach = OwnerReach {
                ecc,
                recipients,
                rounds: Some(ecc as u32),
            };
            for (f, st) in stats.iter_mut().enumerate() {
                self.level_stats(tally, reach, degsum, f, st, run);
            }
        }
        Ok(())
    }
}

//! The relay as a [`RoundJob`]: the protocol itself, message by message,
//! with the nodes split into parts — what `relay --cluster` runs as a
//! timely dataflow (one exchange per round), and what
//! [`RelayEngine::Exchange`](super::RelayEngine::Exchange) runs in this
//! process.
//!
//! A *slot* is one owner under one fraction (slot `p·F + f` is owner
//! position p, fraction f: its row of `relay.csv`). A phase diffuses a
//! batch of slots at once; every process computes the phase's shared data
//! itself (each owner's distances — every node knows its own — and path,
//! which a message only refers to). A part keeps, per slot and node, the
//! richest trim received, the holding round and the signal held then; in
//! each round it consumes its inbox, and each node that comes to hold its
//! level sends its messages at once (they are delivered in the next
//! round). Counts are exact ([`RunStats`]), so the merged result equals the
//! local engines' bit for bit.

use super::plan::Relays;
use super::signal::{Diffusion, Signal, message_bytes};
use super::stats::{OwnerStats, RunStats};
use crate::control::Control;
use crate::error::Result;
use crate::exec::rounds::{Outbox, RoundExecutor, RoundJob};
use crate::process::family::NoiseFamily;
use rayon::prelude::*;
use std::ops::Range;

/// Largest number of slots diffused in one phase.
pub const MAX_SLOTS_PER_PHASE: usize = 64;

/// Per-part memory budget of a phase, in (slot, node) cells (20 bytes each).
const CELLS_PER_PHASE: usize = 1 << 23;

const NONE: u32 = u32::MAX;

/// A message: the slot it belongs to (its index in the phase) and its trim
/// level; the receiver is the node it is addressed to.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RelayMsg {
    /// Slot index within the phase.
    pub slot: u32,
    /// Trim level (sent by its bits).
    pub trim: f64,
}

/// One owner of a phase: its distances, value and signal.
pub struct OwnerData<F: NoiseFamily> {
    owner: u32,
    dist: Vec<f64>,
    /// `None` when the owner reaches nobody (no path sampled).
    sig: Option<Signal<F>>,
}

/// What every part of a phase reads.
pub struct PhaseData<F: NoiseFamily> {
    /// Global slot index of the phase's first slot.
    first: usize,
    /// Per slot of the phase: (owner data index, fraction index).
    slots: Vec<(usize, usize)>,
    owners: Vec<OwnerData<F>>,
}

/// A part's state: its node range, per (slot, node) cells, its counts.
pub struct RelayPart {
    nodes: Range<u32>,
    recv: Vec<f64>,
    hold: Vec<u32>,
    byhold: Vec<f64>,
    cand: Vec<bool>,
    cands: Vec<(u32, u32)>,
    stats: RunStats,
    /// Scratch of [`Signal::identical`].
    y: Vec<f64>,
}

/// The relay of a plan as a round job, under the run's noise family.
pub(crate) struct RelayJob<'p, 'a, F> {
    plan: Diffusion<'p, 'a, F>,
    slots_per_phase: usize,
}

impl<'p, 'a, F: NoiseFamily> RelayJob<'p, 'a, F> {
    /// The job of `plan`: every owner under every fraction.
    pub(crate) fn new(plan: Diffusion<'p, 'a, F>) -> Self {
        let n = plan.graph().n().max(1);
        RelayJob {
            plan,
            slots_per_phase: (CELLS_PER_PHASE / n).clamp(1, MAX_SLOTS_PER_PHASE),
        }
    }

    fn slots(&self) -> usize {
        self.plan.owners().len() * self.plan.fractions().len()
    }

    fn phase_slots(&self, phase: usize) -> Range<usize> {
        let a = phase * self.slots_per_phase;
        a..(a + self.slots_per_phase).min(self.slots())
    }

    fn owner_data(&self, owner: u32) -> Result<OwnerData<F>> {
        let plan = &self.plan;
        let mut dist = Vec::new();
        let d = plan.sim().distances();
        d.from_owner(owner, &mut d.workspace(), &mut dist);
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for (v, &x) in dist.iter().enumerate() {
            if v as u32 != owner && x.is_finite() {
                let e = plan.eps(x);
                plan.check_level(e, x)?;
                lo = lo.min(e);
                hi = hi.max(e);
            }
        }
        let sig = if lo.is_finite() {
            let mut s = Signal::default();
            plan.owner_path(owner, lo, hi, &mut s)?;
            Some(s)
        } else {
            None
        };
        Ok(OwnerData { owner, dist, sig })
    }

    /// Sends node `v`'s messages of slot `i` (global slot `g`).
    fn forward(
        &self,
        shared: &PhaseData<F>,
        part: &mut RelayPart,
        i: usize,
        v: u32,
        trim_untrimmed: Option<f64>,
        out: &mut Outbox<RelayMsg>,
    ) {
        let (oi, _) = shared.slots[i];
        let od = &shared.owners[oi];
        let Some(sig) = &od.sig else { return };
        let g = self.plan.graph();
        let dim = self.plan.model().dim;
        let st = &mut part.stats.owners[shared.first + i];
        let dv = od.dist[v as usize];
        for arc in g.offsets()[v as usize]..g.offsets()[v as usize + 1] {
            let t = trim_untrimmed.unwrap_or_else(|| self.plan.eps(dv + self.plan.arc_length(arc)));
            st.messages += 1;
            st.bytes += message_bytes::<F>(dim, sig.carried(self.plan.fam, t));
            out.send(
                g.targets()[arc],
                RelayMsg {
                    slot: i as u32,
                    trim: t,
                },
            );
        }
    }

    fn relays<'s>(&'s self, shared: &PhaseData<F>, i: usize) -> Relays<'s> {
        let (oi, f) = shared.slots[i];
        let owner = shared.owners[oi].owner;
        let order = self.plan.order();
        Relays::Order(order, order.bound(self.plan.fractions()[f], owner))
    }
}

impl<F: NoiseFamily> RoundJob for RelayJob<'_, '_, F> {
    type Shared = PhaseData<F>;
    type Part = RelayPart;
    type Msg = RelayMsg;
    type Partial = RunStats;

    fn nodes(&self) -> usize {
        self.plan.graph().n()
    }

    fn phases(&self) -> usize {
        self.slots().div_ceil(self.slots_per_phase)
    }

    fn phase_units(&self, phase: usize) -> u64 {
        let nf = self.plan.fractions().len();
        let r = self.phase_slots(phase);
        // Owners completed by the end of the phase, minus those before it.
        (r.end / nf - r.start / nf) as u64
    }

    fn begin_phase(&self, phase: usize) -> Result<PhaseData<F>> {
        let nf = self.plan.fractions().len();
        let range = self.phase_slots(phase);
        let positions: Vec<usize> = {
            let mut p: Vec<usize> = range.clone().map(|s| s / nf).collect();
            p.dedup();
            p
        };
        let owners: Vec<OwnerData<F>> = positions
            .par_iter()
            .map(|&p| self.owner_data(self.plan.owners()[p]))
            .collect::<Result<_>>()?;
        let slots = range
            .clone()
            .map(|s| (positions.partition_point(|&p| p < s / nf), s % nf))
            .collect();
        Ok(PhaseData {
            first: range.start,
            slots,
            owners,
        })
    }

    fn new_part(&self, nodes: Range<u32>) -> RelayPart {
        let cells = nodes.len() * self.slots_per_phase;
        RelayPart {
            nodes,
            recv: vec![f64::NEG_INFINITY; cells],
            hold: vec![NONE; cells],
            byhold: vec![f64::NEG_INFINITY; cells],
            cand: vec![false; cells],
            cands: Vec::new(),
            stats: RunStats::new(self.plan.owners().len(), self.plan.fractions().len()),
            y: Vec::new(),
        }
    }

    fn round(
        &self,
        shared: &PhaseData<F>,
        part: &mut RelayPart,
        round: u32,
        inbox: &[(u32, RelayMsg)],
        out: &mut Outbox<RelayMsg>,
    ) -> Result<()> {
        let len = part.nodes.len();
        if round == 0 {
            // The owners in this part hold their path and send first.
            for i in 0..shared.slots.len() {
                let o = shared.owners[shared.slots[i].0].owner;
                if part.nodes.contains(&o) {
                    part.hold[i * len + (o - part.nodes.start) as usize] = 0;
                    self.forward(shared, part, i, o, None, out);
                }
            }
            return Ok(());
        }
        for &(v, m) in inbox {
            let c = m.slot as usize * len + (v - part.nodes.start) as usize;
            if m.trim > part.recv[c] {
                part.recv[c] = m.trim;
            }
            if part.hold[c] == NONE && !part.cand[c] {
                part.cand[c] = true;
                part.cands.push((m.slot, v));
            }
        }
        let cands = std::mem::take(&mut part.cands);
        for &(i, v) in &cands {
            let i = i as usize;
            let c = i * len + (v - part.nodes.start) as usize;
            part.cand[c] = false;
            let od = &shared.owners[shared.slots[i].0];
            if part.recv[c] >= self.plan.eps(od.dist[v as usize]) {
                part.hold[c] = round;
                part.byhold[c] = part.recv[c];
                let untrimmed = self
                    .relays(shared, i)
                    .untrimmed(v, od.owner)
                    .then_some(part.byhold[c]);
                self.forward(shared, part, i, v, untrimmed, out);
            }
        }
        part.cands = cands;
        part.cands.clear();
        Ok(())
    }

    fn end_phase(&self, shared: &PhaseData<F>, part: &mut RelayPart) -> Result<()> {
        let len = part.nodes.len();
        let buckets = self.plan.buckets();
        for (i, &(oi, f)) in shared.slots.iter().enumerate() {
            let od = &shared.owners[oi];
            let g = shared.first + i;
            let cells = i * len..(i + 1) * len;
            if let Some(sig) = &od.sig {
                let mut st = OwnerStats::default();
                if part.nodes.contains(&od.owner) {
                    st.breakpoints = sig.len() as u64;
                }
                for v in part.nodes.clone() {
                    let d = od.dist[v as usize];
                    if v == od.owner || !d.is_finite() {
                        continue;
                    }
                    let c = i * len + (v - part.nodes.start) as usize;
                    let (ed, learned) = (self.plan.eps(d), part.recv[c]);
                    let ratio = learned / ed;
                    st.recipients += 1;
                    if part.hold[c] != NONE {
                        st.held += 1;
                        st.rounds = st.rounds.max(part.hold[c]);
                        if sig.identical(self.plan.fam, learned, ed, &mut part.y) {
                            st.identical += 1;
                        }
                    }
                    st.excess_max = st.excess_max.max(ratio);
                    part.stats.bucket(f, buckets.index(d)).add(ratio, 1);
                }
                part.stats.owners[g].merge(&st);
            }
            part.recv[cells.clone()].fill(f64::NEG_INFINITY);
            part.hold[cells.clone()].fill(NONE);
            part.byhold[cells].fill(f64::NEG_INFINITY);
        }
        Ok(())
    }

    fn finish(&self, part: RelayPart) -> RunStats {
        part.stats
    }
}

impl<F: NoiseFamily> Diffusion<'_, '_, F> {
    /// Every owner under every fraction as the round exchange on `exec`:
    /// `Some` counts where the executor merges (locally; process 0 of a
    /// cluster), `None` elsewhere.
    pub(crate) fn run_exchange(
        &self,
        exec: &impl RoundExecutor,
        control: &Control,
    ) -> Result<Option<RunStats>> {
        let job = RelayJob::new(Diffusion {
            plan: self.plan,
            fam: self.fam,
        });
        let mut total = RunStats::new(self.owners().len(), self.fractions().len());
        exec.execute_rounds(&job, control, &mut |_, part: RunStats| {
            total.merge(&part);
            Ok(())
        })?;
        Ok(exec.merges_here().then_some(total))
    }
}

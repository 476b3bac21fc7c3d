//! The relay on hop distances: one owner's whole diffusion as one
//! breadth-first sweep, every arc visited once carrying its one message.
//!
//! Rounds and hops coincide. A node at hop d first receives messages in
//! round d, from its (in-)neighbours at hop d − 1, which hold their level
//! from round d − 1 on; so the sweep visits nodes in the order they come to
//! hold their level, and when it reaches node u every message u receives by
//! its own round has been counted. Per node and fraction it keeps
//!
//! * `byhold`: the richest trim among the messages from hop d − 1 (those of
//!   round d): the node holds its level in round d iff ε(byhold) ≥ ε(d), and
//!   an untrimmed relay forwards exactly that signal;
//! * `got`: the richest trim among all messages it receives, in any round
//!   (its learned ε).
//!
//! Trims are kept as hop indices L (meaning ε(L)): ε is non-increasing, so
//! the richest signal is the smallest index, and the breakpoints a message
//! trimmed at ε(L) carries are one table look-up per L. Messages and bytes
//! are sums over senders of out-degree × the size at their trim level;
//! recipients are aggregated per (hop, learned index) pair.

use super::levels::{LevelTally, OwnerReach};
use super::plan::{RelayPlan, Relays};
use super::signal::{Diffusion, Signal, message_bytes};
use super::stats::{OwnerStats, RunStats};
use super::trace::{Message, NodeState, TraceSink};
use crate::error::Result;
use crate::process::family::NoiseFamily;

/// Not reached / nothing received.
const NONE: u32 = u32::MAX;

/// Per-worker buffers of the hop sweep, reused across owners (`S`: the
/// owner's signal).
#[derive(Default)]
pub(crate) struct HopScratch<S> {
    /// Per node: [hop (`NONE`: not reached yet), and with one fraction its
    /// `got` and `byhold`, unused] — one cache line fetch per arc.
    cell: Vec<[u32; 4]>,
    /// Nodes in the order reached (= the order they hold their level): the
    /// first `reached` entries of a buffer of n.
    queue: Vec<u32>,
    reached: usize,
    /// With several fractions, per node × fraction: richest trim index
    /// received (any round).
    got: Vec<u32>,
    /// With several fractions, per node × fraction: richest trim index
    /// received in its own round.
    byhold: Vec<u32>,
    /// Per fraction: the sending node's trim index.
    sent: Vec<u32>,
    /// Per fraction: whether any relay is untrimmed.
    active: Vec<bool>,
    /// Per fraction, per trim index: out-degrees of the senders.
    degsum: Vec<Vec<u64>>,
    /// Path, sizes, read-outs, pairs.
    tally: LevelTally<S>,
    /// Traced messages: (round, from, to, trim index).
    tmsg: Vec<(u32, u32, u32, u32)>,
}

impl<S> HopScratch<S> {
    #[inline]
    fn level(&self, v: u32) -> u32 {
        self.cell[v as usize][0]
    }

    #[inline]
    fn got(&self, v: u32, f: usize, nf: usize) -> u32 {
        if nf == 1 {
            self.cell[v as usize][1]
        } else {
            self.got[v as usize * nf + f]
        }
    }

    #[inline]
    fn byhold(&self, v: u32, f: usize, nf: usize) -> u32 {
        if nf == 1 {
            self.cell[v as usize][2]
        } else {
            self.byhold[v as usize * nf + f]
        }
    }

    /// The reached nodes, in the order reached (the owner first).
    #[inline]
    fn reached(&self) -> &[u32] {
        &self.queue[..self.reached]
    }
}

impl<F: NoiseFamily> Diffusion<'_, '_, F> {
    /// Diffuses `owner`'s signal under each set of `relays` (one per
    /// fraction f): `stats[f]` gets the owner's counts, `run` the
    /// recipients per bucket (fraction index f). With `trace` (one set of
    /// relays) every message and recipient is recorded.
    pub(crate) fn hop_owner(
        &self,
        s: &mut HopScratch<Signal<F>>,
        owner: u32,
        relays: &[Relays<'_>],
        stats: &mut [OwnerStats],
        run: &mut RunStats,
        trace: Option<&mut TraceSink>,
    ) -> Result<()> {
        let g = self.graph();
        let n = g.n();
        let nf = relays.len();
        if s.cell.len() != n {
            s.cell = vec![[NONE; 4]; n];
            s.queue = vec![0; n];
        }
        let multi = if nf > 1 { n * nf } else { 0 };
        if s.got.len() != multi {
            s.got = vec![NONE; multi];
            s.byhold = vec![NONE; multi];
        }
        s.sent.resize(nf, 0);
        s.active.clear();
        s.active.extend(relays.iter().map(|r| !r.is_empty()));
        s.degsum.resize(nf, Vec::new());
        for d in &mut s.degsum {
            d.clear();
        }
        s.tmsg.clear();
        let tracing = trace.is_some();
        self.sweep(s, owner, relays, tracing);
        let result = self.tally(s, owner, relays, stats, run, trace);
        // Reset what the sweep touched, whatever the outcome.
        for i in 0..s.reached {
            let v = s.queue[i] as usize;
            s.cell[v] = [NONE; 4];
            if nf > 1 {
                s.got[v * nf..(v + 1) * nf].fill(NONE);
                s.byhold[v * nf..(v + 1) * nf].fill(NONE);
            }
        }
        result
    }
}

impl RelayPlan<'_> {
    /// The breadth-first sweep: levels, `got`, `byhold`, degree sums.
    fn sweep<S>(&self, s: &mut HopScratch<S>, owner: u32, relays: &[Relays<'_>], tracing: bool) {
        let g = self.graph();
        let (offsets, targets) = (g.offsets(), g.targets());
        let nf = relays.len();
        let HopScratch {
            cell,
            queue,
            reached,
            got,
            byhold,
            sent,
            active,
            degsum,
            tmsg,
            ..
        } = s;
        let cell: &mut [[u32; 4]] = cell;
        let queue: &mut [u32] = queue;
        queue[0] = owner;
        cell[owner as usize][0] = 0;
        let (mut head, mut tail) = (0, 1);
        while head < tail {
            let u = queue[head];
            head += 1;
            let d = cell[u as usize][0];
            for f in 0..nf {
                sent[f] = if u == owner {
                    1
                } else if active[f] && relays[f].untrimmed(u, owner) {
                    if nf == 1 {
                        cell[u as usize][2]
                    } else {
                        byhold[u as usize * nf + f]
                    }
                } else {
                    d + 1
                };
            }
            let (lo, hi) = (offsets[u as usize], offsets[u as usize + 1]);
            for (f, ds) in degsum.iter_mut().enumerate() {
                let t = sent[f] as usize;
                if t >= ds.len() {
                    ds.resize(t + 1, 0);
                }
                ds[t] += (hi - lo) as u64;
            }
            let next = d + 1;
            if nf == 1 {
                // The common case: one cell per node holds everything.
                let t = sent[0];
                for &v in &targets[lo..hi] {
                    let c = &mut cell[v as usize];
                    if c[0] == NONE {
                        c[0] = next;
                        queue[tail] = v;
                        tail += 1;
                    }
                    let first = c[0] == next;
                    c[1] = c[1].min(t);
                    if first {
                        c[2] = c[2].min(t);
                    }
                }
            } else {
                for &v in &targets[lo..hi] {
                    let c = &mut cell[v as usize];
                    if c[0] == NONE {
                        c[0] = next;
                        queue[tail] = v;
                        tail += 1;
                    }
                    let first = c[0] == next;
                    let base = v as usize * nf;
                    for f in 0..nf {
                        let t = sent[f];
                        let x = &mut got[base + f];
                        *x = (*x).min(t);
                        if first {
                            let b = &mut byhold[base + f];
                            *b = (*b).min(t);
                        }
                    }
                }
            }
            if tracing {
                tmsg.extend(targets[lo..hi].iter().map(|&v| (next, u, v, sent[0])));
            }
        }
        *reached = tail;
    }
}

impl<F: NoiseFamily> Diffusion<'_, '_, F> {
    /// From the sweep to counts: the path, sizes, read-outs, buckets.
    fn tally(
        &self,
        s: &mut HopScratch<Signal<F>>,
        owner: u32,
        relays: &[Relays<'_>],
        stats: &mut [OwnerStats],
        run: &mut RunStats,
        trace: Option<&mut TraceSink>,
    ) -> Result<()> {
        let nf = relays.len();
        let recipients = (s.reached - 1) as u64;
        for st in stats.iter_mut() {
            *st = OwnerStats::default();
        }
        if recipients == 0 {
            return Ok(());
        }
        let ecc = s.level(s.queue[s.reached - 1]) as usize;
        self.level_path(&mut s.tally, owner, ecc)?;
        for (f, st) in stats.iter_mut().enumerate() {
            s.tally.clear_pairs(ecc);
            for i in 1..s.reached {
                let v = s.queue[i];
                let d = s.level(v) as usize;
                let eps = &s.tally.eps;
                let held = eps[s.byhold(v, f, nf) as usize] >= eps[d];
                let got = s.got(v, f, nf);
                s.tally.add(d, got, held, 1);
            }
            let degsum = &s.degsum[f];
            let reach = OwnerReach {
                ecc,
                recipients,
                rounds: None,
            };
            self.level_stats(&mut s.tally, reach, degsum, f, st, run);
        }
        if let Some(t) = trace {
            self.hop_trace(s, owner, relays[0], t);
        }
        Ok(())
    }

    /// Records the first fraction's messages and recipients.
    fn hop_trace(
        &self,
        s: &HopScratch<Signal<F>>,
        owner: u32,
        relays: Relays<'_>,
        t: &mut TraceSink,
    ) {
        let (fam, nf) = (self.fam, s.sent.len());
        let dim = self.model().dim;
        let mut y = Vec::new();
        let tl = &s.tally;
        t.messages
            .extend(s.tmsg.iter().map(|&(round, from, to, l)| Message {
                round,
                from,
                to,
                trim: tl.eps[l as usize],
                breakpoints: tl.bpc[l as usize],
                bytes: message_bytes::<F>(dim, tl.bpc[l as usize]),
            }));
        t.path = tl.sig.breakpoints(fam);
        t.value = tl.sig.u.clone();
        let mut nodes: Vec<u32> = s.reached()[1..].to_vec();
        nodes.sort_unstable();
        for v in nodes {
            let d = s.level(v) as usize;
            let (ed, learned) = (tl.eps[d], tl.eps[s.got(v, 0, nf) as usize]);
            let held = tl.eps[s.byhold(v, 0, nf) as usize] >= ed;
            t.nodes.push(NodeState {
                node: v,
                id: self.graph().ids().label(v).to_string(),
                distance: d as f64,
                eps: ed,
                untrimmed: relays.untrimmed(v, owner),
                hold_round: held.then_some(d as u32),
                eps_learned: Some(learned),
                answer: held.then(|| tl.sig.answer(fam, learned, ed)).flatten(),
                identical: held && tl.sig.identical(fam, learned, ed, &mut y),
            });
        }
    }
}

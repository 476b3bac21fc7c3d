//! The relay round by round: the engine of weighted distances (and a
//! second, literal implementation of the protocol for hop distances, used
//! to check the sweep of [`super::hop`]).
//!
//! A round is one synchronous step: every node that came to hold its level
//! in the previous round sends one message along each of its out-arcs,
//! whatever the arc's length, and every message sent in a round is
//! delivered in it (round 1 delivers the owner's). A node holds its level
//! in the first round after which the richest trim it has received is at
//! least ε(d_j); it forwards in the next round, trimmed at ε(d_j + w_jk)
//! toward neighbour k, or — an untrimmed relay — the richest signal received
//! up to and including its holding round. On weighted distances a node may
//! first hear of the owner along a path of few long edges, too poor for its
//! level, and hold it only rounds later along a shortest path.

use super::plan::Relays;
use super::signal::{Diffusion, Signal, message_bytes};
use super::stats::{OwnerStats, RunStats};
use super::trace::{Message, NodeState, TraceSink};
use crate::distance::Workspace;
use crate::error::Result;
use crate::process::family::NoiseFamily;

const NONE: u32 = u32::MAX;

/// Per-worker buffers of the round-by-round engine, reused across owners
/// (`S`: the owner's signal).
#[derive(Default)]
pub(crate) struct FloodScratch<S> {
    ws: Workspace,
    dist: Vec<f64>,
    /// ε(d_v) of the reached nodes.
    eps_of: Vec<f64>,
    /// Richest trim received (−∞: nothing).
    recv: Vec<f64>,
    /// Round in which the node first held its level.
    hold: Vec<u32>,
    /// Richest trim received up to its holding round.
    byhold: Vec<f64>,
    /// Whether the node is in `cands`.
    cand: Vec<bool>,
    cands: Vec<u32>,
    frontier: Vec<u32>,
    /// Recipients (reached, not the owner), in node order.
    reached: Vec<u32>,
    sig: S,
    /// Scratch of [`Signal::identical`].
    y: Vec<f64>,
}

impl<F: NoiseFamily> Diffusion<'_, '_, F> {
    /// [`Diffusion::hop_owner`] round by round, on the plan's distances.
    pub(crate) fn flood_owner(
        &self,
        s: &mut FloodScratch<Signal<F>>,
        owner: u32,
        relays: &[Relays<'_>],
        stats: &mut [OwnerStats],
        run: &mut RunStats,
        mut trace: Option<&mut TraceSink>,
    ) -> Result<()> {
        let g = self.graph();
        let n = g.n();
        for st in stats.iter_mut() {
            *st = OwnerStats::default();
        }
        self.sim()
            .distances()
            .from_owner(owner, &mut s.ws, &mut s.dist);
        if s.recv.len() != n {
            s.eps_of = vec![f64::NAN; n];
            s.recv = vec![f64::NEG_INFINITY; n];
            s.hold = vec![NONE; n];
            s.byhold = vec![f64::NEG_INFINITY; n];
            s.cand = vec![false; n];
        }
        s.reached.clear();
        s.reached
            .extend((0..n as u32).filter(|&v| v != owner && s.dist[v as usize].is_finite()));
        if s.reached.is_empty() {
            return Ok(());
        }
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &v in &s.reached {
            let d = s.dist[v as usize];
            let e = self.eps(d);
            self.check_level(e, d)?;
            s.eps_of[v as usize] = e;
            lo = lo.min(e);
            hi = hi.max(e);
        }
        self.owner_path(owner, lo, hi, &mut s.sig)?;
        let buckets = self.buckets();
        for (f, (st, relays)) in stats.iter_mut().zip(relays).enumerate() {
            st.recipients = s.reached.len() as u64;
            st.breakpoints = s.sig.len() as u64;
            let tr = if f == 0 { trace.as_deref_mut() } else { None };
            self.rounds(s, owner, *relays, st, tr);
            for &v in &s.reached {
                let i = v as usize;
                let (ed, learned) = (s.eps_of[i], s.recv[i]);
                let ratio = learned / ed;
                if s.hold[i] != NONE {
                    st.held += 1;
                    st.rounds = st.rounds.max(s.hold[i]);
                    if s.sig.identical(self.fam, learned, ed, &mut s.y) {
                        st.identical += 1;
                    }
                }
                st.excess_max = st.excess_max.max(ratio);
                run.bucket(f, buckets.index(s.dist[i])).add(ratio, 1);
            }
            if f == 0
                && let Some(t) = trace.as_deref_mut()
            {
                self.flood_trace(s, owner, *relays, t);
            }
            for &v in s.reached.iter().chain([&owner]) {
                let i = v as usize;
                s.recv[i] = f64::NEG_INFINITY;
                s.hold[i] = NONE;
                s.byhold[i] = f64::NEG_INFINITY;
            }
        }
        for &v in &s.reached {
            s.eps_of[v as usize] = f64::NAN;
        }
        Ok(())
    }

    /// The rounds of one owner under one set of relays: `recv`, `hold`,
    /// `byhold`, and the messages and bytes into `st`.
    fn rounds(
        &self,
        s: &mut FloodScratch<Signal<F>>,
        owner: u32,
        relays: Relays<'_>,
        st: &mut OwnerStats,
        mut trace: Option<&mut TraceSink>,
    ) {
        let g = self.graph();
        let (offsets, targets) = (g.offsets(), g.targets());
        let dim = self.model().dim;
        s.frontier.clear();
        s.frontier.push(owner);
        s.hold[owner as usize] = 0;
        let mut round = 0u32;
        while !s.frontier.is_empty() {
            round += 1;
            for &u in &s.frontier {
                let ui = u as usize;
                let untrimmed = relays.untrimmed(u, owner);
                let lo = offsets[ui];
                for (k, &v) in targets[lo..offsets[ui + 1]].iter().enumerate() {
                    let arc = lo + k;
                    let t = if untrimmed {
                        s.byhold[ui]
                    } else {
                        self.eps(s.dist[ui] + self.arc_length(arc))
                    };
                    let c = s.sig.carried(self.fam, t);
                    let bytes = message_bytes::<F>(dim, c);
                    st.messages += 1;
                    st.bytes += bytes;
                    let vi = v as usize;
                    if t > s.recv[vi] {
                        s.recv[vi] = t;
                    }
                    if s.hold[vi] == NONE && !s.cand[vi] {
                        s.cand[vi] = true;
                        s.cands.push(v);
                    }
                    if let Some(tr) = trace.as_deref_mut() {
                        tr.messages.push(Message {
                            round,
                            from: u,
                            to: v,
                            trim: t,
                            breakpoints: c,
                            bytes,
                        });
                    }
                }
            }
            s.frontier.clear();
            for v in s.cands.drain(..) {
                let vi = v as usize;
                s.cand[vi] = false;
                if s.recv[vi] >= s.eps_of[vi] {
                    s.hold[vi] = round;
                    s.byhold[vi] = s.recv[vi];
                    s.frontier.push(v);
                }
            }
        }
    }

    /// Records the recipients of one set of relays.
    fn flood_trace(
        &self,
        s: &mut FloodScratch<Signal<F>>,
        owner: u32,
        relays: Relays<'_>,
        t: &mut TraceSink,
    ) {
        let fam = self.fam;
        t.path = s.sig.breakpoints(fam);
        t.value = s.sig.u.clone();
        for &v in &s.reached {
            let i = v as usize;
            let (ed, learned) = (s.eps_of[i], s.recv[i]);
            let held = s.hold[i] != NONE;
            t.nodes.push(NodeState {
                node: v,
                id: self.graph().ids().label(v).to_string(),
                distance: s.dist[i],
                eps: ed,
                untrimmed: relays.untrimmed(v, owner),
                hold_round: held.then_some(s.hold[i]),
                eps_learned: (learned > f64::NEG_INFINITY).then_some(learned),
                answer: held.then(|| s.sig.answer(fam, learned, ed)).flatten(),
                identical: held && s.sig.identical(fam, learned, ed, &mut s.y),
            });
        }
    }
}

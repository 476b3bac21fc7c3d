//! Synchronous round jobs: a protocol over the nodes of a graph, run in
//! rounds of message exchange between parts of the node set — the second
//! kind of job an executor runs, beside the owner chunks of [`super::ChunkJob`]
//! (issue 26: the relay protocol).
//!
//! A [`RoundJob`] keeps per-part state ([`RoundJob::Part`]) for a contiguous
//! range of nodes. It runs in *phases* (e.g. batches of owners), one after
//! the other; each phase is a sequence of rounds 0, 1, 2, …: in every round
//! each part consumes its inbox (the messages addressed to its nodes in the
//! previous round of the phase; empty in round 0) and emits messages
//! addressed to nodes. A phase ends after the first round in which no part
//! emits anything. At the end every part hands back a partial result
//! ([`RoundJob::Partial`]), merged by the process that merges.
//!
//! The order of the messages in an inbox depends on how the nodes are
//! split into parts; a job's results must not (the relay keeps maxima,
//! integer sums and exact sums). Executors:
//!
//! * [`Local`]: the parts on the current rayon pool (four per thread),
//!   messages routed in memory ([`run_rounds_local`]);
//! * the cluster of feature `distributed` (its `rounds` module): nodes split
//!   over the peers, each peer's range over its worker threads, one
//!   timely-dataflow exchange per round.
//!
//! An engine asks for a [`RoundExecutor`] and never names either.

use super::{Executor, Local};
use crate::control::Control;
use crate::error::Result;
use rayon::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::ops::Range;

/// Messages addressed to nodes: `(node, message)`.
pub type Inbox<M> = Vec<(u32, M)>;

/// Messages a part emits in one round: `(node, message)`.
pub struct Outbox<M> {
    messages: Vec<(u32, M)>,
}

impl<M> Default for Outbox<M> {
    fn default() -> Self {
        Outbox {
            messages: Vec::new(),
        }
    }
}

impl<M> Outbox<M> {
    /// Sends `msg` to node `to` (delivered in the next round).
    #[inline]
    pub fn send(&mut self, to: u32, msg: M) {
        self.messages.push((to, msg));
    }

    /// Messages emitted so far.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether nothing was emitted.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// The messages, emptying the outbox.
    pub fn take(&mut self) -> Vec<(u32, M)> {
        std::mem::take(&mut self.messages)
    }
}

/// A synchronous round job (see the [module](self)).
pub trait RoundJob: Sync {
    /// What every part of a phase reads (built once per process and phase).
    type Shared: Sync + Send;
    /// Per-part state, kept across phases.
    type Part: Send;
    /// A message (a serde value: an executor spreading the parts over
    /// peers encodes it, exactly).
    type Msg: Serialize + DeserializeOwned + Send + Sync;
    /// A part's result (a serde value, as [`RoundJob::Msg`]).
    type Partial: Serialize + DeserializeOwned + Send;

    /// Number of nodes (messages are addressed to `0..nodes()`).
    fn nodes(&self) -> usize;
    /// Number of phases.
    fn phases(&self) -> usize;
    /// Units of work of phase `phase` (for progress reports, e.g. owners).
    fn phase_units(&self, phase: usize) -> u64;
    /// The shared data of phase `phase`.
    fn begin_phase(&self, phase: usize) -> Result<Self::Shared>;
    /// A part holding `nodes`.
    fn new_part(&self, nodes: Range<u32>) -> Self::Part;
    /// One round of one part: consume `inbox`, emit into `out`.
    fn round(
        &self,
        shared: &Self::Shared,
        part: &mut Self::Part,
        round: u32,
        inbox: &[(u32, Self::Msg)],
        out: &mut Outbox<Self::Msg>,
    ) -> Result<()>;
    /// After the last round of a phase.
    fn end_phase(&self, shared: &Self::Shared, part: &mut Self::Part) -> Result<()>;
    /// The part's result.
    fn finish(&self, part: Self::Part) -> Self::Partial;
}

/// The merge closure: called with part indices ascending (a part's index
/// counts the parts of lower processes first).
pub type MergeParts<'m, P> = dyn FnMut(usize, P) -> Result<()> + 'm;

/// `nodes` split into `parts` contiguous ranges of (nearly) equal size.
pub fn split(nodes: Range<u32>, parts: usize) -> Vec<Range<u32>> {
    let parts = parts.max(1);
    let (lo, len) = (nodes.start as u64, (nodes.end - nodes.start) as u64);
    (0..parts as u64)
        .map(|p| {
            let a = lo + len * p / parts as u64;
            let b = lo + len * (p + 1) / parts as u64;
            a as u32..b as u32
        })
        .collect()
}

/// The part (index into `ranges`, ascending and contiguous) holding `node`.
#[inline]
pub fn part_of(ranges: &[Range<u32>], node: u32) -> usize {
    ranges.partition_point(|r| r.end <= node)
}

/// An [`Executor`] that also runs [`RoundJob`]s.
pub trait RoundExecutor: Executor {
    /// Runs `job`; `merge` gets every part's result in part order where the
    /// executor merges ([`Executor::merges_here`]), and is never called
    /// elsewhere. `control` is checked between phases and told of the
    /// units done.
    fn execute_rounds<J: RoundJob>(
        &self,
        job: &J,
        control: &Control,
        merge: &mut MergeParts<'_, J::Partial>,
    ) -> Result<()>;
}

impl RoundExecutor for Local {
    fn execute_rounds<J: RoundJob>(
        &self,
        job: &J,
        control: &Control,
        merge: &mut MergeParts<'_, J::Partial>,
    ) -> Result<()> {
        run_rounds_local(job, rayon::current_num_threads() * 4, control, merge)
    }
}

/// Runs `job` in this process with `parts` parts on the current rayon pool.
pub fn run_rounds_local<J: RoundJob>(
    job: &J,
    parts: usize,
    control: &Control,
    merge: &mut MergeParts<'_, J::Partial>,
) -> Result<()> {
    let ranges = split(0..job.nodes() as u32, parts.min(job.nodes()).max(1));
    let states = run_phases(job, &ranges, control, |_, _, outs, inboxes| {
        let any = outs.iter().any(|o| !o.is_empty());
        route(&ranges, outs, inboxes);
        Ok(any)
    })?;
    for (i, p) in states.into_iter().enumerate() {
        merge(i, job.finish(p))?;
    }
    Ok(())
}

/// Runs every phase of `job` over parts holding `ranges` (in order) and
/// returns the parts' final states. A phase's rounds go on until
/// `deliver(phase, round, outboxes, inboxes)` — the round's outboxes in part
/// order, to be delivered into the (cleared) inboxes — says no message was
/// sent anywhere. `control` is checked before each phase and told of the
/// units done after it.
pub(crate) fn run_phases<J: RoundJob>(
    job: &J,
    ranges: &[Range<u32>],
    control: &Control,
    mut deliver: impl FnMut(usize, u32, Vec<Inbox<J::Msg>>, &mut [Inbox<J::Msg>]) -> Result<bool>,
) -> Result<Vec<J::Part>> {
    let mut states: Vec<J::Part> = ranges.iter().map(|r| job.new_part(r.clone())).collect();
    let total: u64 = (0..job.phases()).map(|p| job.phase_units(p)).sum();
    let mut done = 0u64;
    for phase in 0..job.phases() {
        control.check()?;
        let shared = job.begin_phase(phase)?;
        let mut inboxes: Vec<Inbox<J::Msg>> = ranges.iter().map(|_| Vec::new()).collect();
        for round in 0u32.. {
            let outs = round_parts(job, &shared, &mut states, round, &inboxes)?;
            if !deliver(phase, round, outs, &mut inboxes)? {
                break;
            }
        }
        states
            .par_iter_mut()
            .map(|p| job.end_phase(&shared, p))
            .collect::<Result<()>>()?;
        done += job.phase_units(phase);
        control.report("owners", done, total);
    }
    Ok(states)
}

/// One round of every part in parallel; the outboxes in part order.
pub(crate) fn round_parts<J: RoundJob>(
    job: &J,
    shared: &J::Shared,
    states: &mut [J::Part],
    round: u32,
    inboxes: &[Vec<(u32, J::Msg)>],
) -> Result<Vec<Inbox<J::Msg>>> {
    states
        .par_iter_mut()
        .zip(inboxes.par_iter())
        .map(|(p, inbox)| {
            let mut out = Outbox::default();
            job.round(shared, p, round, inbox, &mut out)?;
            Ok(out.take())
        })
        .collect()
}

/// Replaces `inboxes` by the messages of `outs`, each to the part of its
/// node (senders in part order).
pub(crate) fn route<M>(
    ranges: &[Range<u32>],
    outs: Vec<Vec<(u32, M)>>,
    inboxes: &mut [Vec<(u32, M)>],
) {
    for b in inboxes.iter_mut() {
        b.clear();
    }
    for out in outs {
        for (to, m) in out {
            inboxes[part_of(ranges, to)].push((to, m));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_covers_the_nodes_in_order() {
        for (n, p) in [(10u32, 3usize), (3, 8), (0, 2), (1_000_003, 7)] {
            let r = split(0..n, p);
            assert_eq!(r.len(), p);
            assert_eq!(r[0].start, 0);
            assert_eq!(r.last().unwrap().end, n);
            assert!(r.windows(2).all(|w| w[0].end == w[1].start));
            for v in [0, n / 2, n.saturating_sub(1)]
                .into_iter()
                .filter(|&v| v < n)
            {
                assert!(r[part_of(&r, v)].contains(&v), "{v} of {n} in {p}");
            }
        }
    }

    /// A flood on a path 0 – 1 – … – 9 from node 0, once per phase: each
    /// node forwards its hop once; the partial sums each node's hops over
    /// the phases. Same result whatever the number of parts.
    struct Flood;

    type FloodPart = (Range<u32>, Vec<u32>, Vec<u32>);

    impl RoundJob for Flood {
        type Shared = ();
        type Part = FloodPart;
        type Msg = u32;
        type Partial = Vec<u32>;
        fn nodes(&self) -> usize {
            10
        }
        fn phases(&self) -> usize {
            2
        }
        fn phase_units(&self, _: usize) -> u64 {
            1
        }
        fn begin_phase(&self, _: usize) -> Result<()> {
            Ok(())
        }
        fn new_part(&self, nodes: Range<u32>) -> FloodPart {
            let n = nodes.len();
            (nodes, vec![u32::MAX; n], vec![0; n])
        }
        fn round(
            &self,
            _: &(),
            (range, hop, _): &mut FloodPart,
            round: u32,
            inbox: &[(u32, u32)],
            out: &mut Outbox<u32>,
        ) -> Result<()> {
            if round == 0 && range.contains(&0) {
                hop[0] = 0;
                out.send(1, 1);
            }
            for &(v, h) in inbox {
                assert_eq!(h, round);
                let i = (v - range.start) as usize;
                if hop[i] == u32::MAX {
                    hop[i] = h;
                    if v + 1 < 10 {
                        out.send(v + 1, h + 1);
                    }
                }
            }
            Ok(())
        }
        fn end_phase(&self, _: &(), (_, hop, acc): &mut FloodPart) -> Result<()> {
            for (a, h) in acc.iter_mut().zip(hop.iter_mut()) {
                *a += *h;
                *h = u32::MAX;
            }
            Ok(())
        }
        fn finish(&self, (range, _, acc): FloodPart) -> Vec<u32> {
            range.zip(acc).flat_map(|(v, a)| [v, a]).collect()
        }
    }

    #[test]
    fn every_split_floods_alike() {
        let mut seen = Vec::new();
        for parts in [1, 3, 10, 16] {
            let mut all = Vec::new();
            run_rounds_local(&Flood, parts, &Control::default(), &mut |_, p| {
                all.extend(p);
                Ok(())
            })
            .unwrap();
            seen.push(all);
        }
        let want: Vec<u32> = (0..10).flat_map(|v| [v, 2 * v]).collect();
        assert!(seen.iter().all(|s| *s == want), "{seen:?}");
    }
}

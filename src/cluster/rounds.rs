//! A [`RoundJob`] over a cluster (feature `distributed`; issue 26): the
//! nodes split into one contiguous range per peer, each peer's range into
//! parts on its worker threads, and one timely-dataflow exchange per round.
//!
//! Every process runs the same phases and rounds. In a round it computes
//! its parts, keeps the messages addressed to its own nodes, and sends each
//! other process one record (possibly empty) with the messages addressed
//! to that process's nodes — encoded exactly (CBOR of the serde form, as
//! the chunk partials: floats round-trip bit for bit) — and the number of messages it emitted in all. The record
//! carries the round as its timely timestamp; once the probe has passed it,
//! every record of the round has arrived, so every process knows the
//! messages of its nodes and the total emitted: a phase ends, everywhere
//! in the same round, when that total is zero. At the end each process
//! sends its parts' results to process 0, which merges them in part order
//! (its own first, then process by process).
//!
//! The connections are the cluster's ([`Cluster::connect`]: deadline,
//! fingerprint agreement, heartbeats, one-line errors naming a lost peer);
//! this module only runs its own dataflow over them, as the chunk executor
//! does.

use super::{Cluster, cluster_error, codec};
use crate::control::Control;
use crate::error::Result;
use crate::exec::rounds::{MergeParts, RoundExecutor, RoundJob, part_of, run_phases, split};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::Duration;
use timely::communication::Hooks;
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::dataflow::operators::{Exchange, Input, Inspect, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};

/// (destination process, round, sending process, encoded payload).
type Record = (u64, u64, u64, Vec<u8>);

/// From the main thread to the timely worker.
enum Cmd {
    /// Send these records at time `t` and close time `t`.
    Send(u64, Vec<Record>),
}

/// From the timely worker to the main thread.
enum Evt {
    /// A record addressed to this process.
    Data(Record),
    /// Every record of time `t` has arrived.
    Done(u64),
}

impl RoundExecutor for Cluster {
    fn execute_rounds<J: RoundJob>(
        &self,
        job: &J,
        control: &Control,
        merge: &mut MergeParts<'_, J::Partial>,
    ) -> Result<()> {
        run_rounds_cluster(self, job, control, merge)
    }
}

/// Runs `job` over `cluster` (see the [module](self)); `merge` is called on
/// peer 0 only, with every part's result in part order.
fn run_rounds_cluster<J: RoundJob>(
    cluster: &Cluster,
    job: &J,
    control: &Control,
    merge: &mut MergeParts<'_, J::Partial>,
) -> Result<()> {
    let np = cluster.peers();
    let me = cluster.rank();
    let sockets = cluster.take_sockets()?;
    let (tx_cmd, rx_cmd) = mpsc::channel::<Cmd>();
    let (tx_evt, rx_evt) = mpsc::channel::<Evt>();
    let hooks = Hooks::default();
    let procs = ProcessBuilder::new_typed_vector(1, hooks.refill.clone(), None);
    let (builders, comms) = initialize_networking_from_sockets(procs, sockets, me, 1, hooks)
        .map_err(|e| cluster_error(format!("starting the exchange: {e}")))?;
    let rx_cmd = Mutex::new(Some(rx_cmd));
    let tx_evt = Mutex::new(Some(tx_evt));
    let guards = timely::execute::execute_from(
        builders.into_iter().map(AllocatorBuilder::Tcp).collect(),
        Box::new(comms),
        timely::WorkerConfig::default(),
        move |worker| {
            let rx = rx_cmd.lock().ok().and_then(|mut r| r.take());
            let tx = tx_evt.lock().ok().and_then(|mut t| t.take());
            let (Some(rx), Some(tx)) = (rx, tx) else {
                return;
            };
            let mut input = InputHandle::new();
            let probe = ProbeHandle::new();
            let data = tx.clone();
            worker.dataflow::<u64, _, _>(|scope| {
                scope
                    .input_from(&mut input)
                    .container::<Vec<Record>>()
                    .exchange(|r: &Record| r.0)
                    .inspect(move |r: &Record| {
                        let _ = data.send(Evt::Data(r.clone()));
                    })
                    .probe_with(&probe);
            });
            let mut waiting: Option<u64> = None;
            loop {
                match rx.recv_timeout(Duration::from_millis(1)) {
                    Ok(Cmd::Send(t, records)) => {
                        for r in records {
                            input.send(r);
                        }
                        input.advance_to(t + 1);
                        waiting = Some(t);
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
                worker.step();
                if let Some(t) = waiting
                    && !probe.less_equal(&t)
                {
                    let _ = tx.send(Evt::Done(t));
                    waiting = None;
                }
            }
            input.close();
            while !probe.done() {
                worker.step_or_park(Some(Duration::from_millis(20)));
            }
        },
    )
    .map_err(|e| cluster_error(format!("starting the timely worker: {e}")))?;
    let mut link = Link {
        np,
        me,
        tx: tx_cmd,
        rx: rx_evt,
        early: BTreeMap::new(),
        time: 0,
    };
    match drive(&mut link, cluster.workers(), job, control, merge) {
        Ok(()) => {
            drop(link);
            for r in guards.join() {
                r.map_err(|e| cluster_error(format!("a timely worker failed: {e}")))?;
            }
            Ok(())
        }
        Err(e) => {
            // The peers wait for this process's records: joining the worker
            // would wait for them. The process ends with the error, and the
            // peers' watchdogs name it.
            std::mem::forget(guards);
            Err(e)
        }
    }
}

/// The main thread's end of the exchange.
struct Link {
    np: usize,
    me: usize,
    tx: Sender<Cmd>,
    rx: Receiver<Evt>,
    /// Records of later rounds that arrived early (a faster peer).
    early: BTreeMap<u64, Vec<Record>>,
    /// The next timestamp.
    time: u64,
}

impl Link {
    /// Sends `records` at the next timestamp and returns every record
    /// addressed to this process at that time, by sending process.
    fn exchange(&mut self, records: Vec<Record>, control: &Control) -> Result<Vec<Record>> {
        let t = self.time;
        self.time += 1;
        self.tx
            .send(Cmd::Send(t, records))
            .map_err(|_| cluster_error("the timely worker stopped"))?;
        let mut got = self.early.remove(&t).unwrap_or_default();
        loop {
            match self.rx.recv_timeout(Duration::from_millis(200)) {
                Ok(Evt::Data(r)) if r.1 == t => got.push(r),
                Ok(Evt::Data(r)) => self.early.entry(r.1).or_default().push(r),
                Ok(Evt::Done(d)) if d == t => break,
                Ok(Evt::Done(_)) => {}
                Err(RecvTimeoutError::Timeout) => control.check()?,
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(cluster_error("the timely worker stopped"));
                }
            }
        }
        got.sort_by_key(|r| r.2);
        Ok(got)
    }
}

/// One round's record to another process: the messages this process
/// emitted in all, and those addressed to the receiver's nodes.
type Batch<M> = (u64, Vec<(u32, M)>);

fn drive<J: RoundJob>(
    link: &mut Link,
    workers: usize,
    job: &J,
    control: &Control,
    merge: &mut MergeParts<'_, J::Partial>,
) -> Result<()> {
    let (np, me) = (link.np, link.me);
    let procs = split(0..job.nodes() as u32, np);
    let mine = procs[me].clone();
    let local = split(mine.clone(), (workers * 4).clamp(1, (mine.len()).max(1)));
    let states = run_phases(job, &local, control, |phase, round, outs, inboxes| {
        let mut emitted = 0u64;
        let mut out: Vec<Vec<(u32, J::Msg)>> = (0..np).map(|_| Vec::new()).collect();
        for o in outs {
            emitted += o.len() as u64;
            for (to, m) in o {
                out[part_of(&procs, to)].push((to, m));
            }
        }
        let own = std::mem::take(&mut out[me]);
        let records: Vec<Record> = out
            .into_iter()
            .enumerate()
            .filter(|&(q, _)| q != me)
            .map(|(q, msgs)| {
                let batch: Batch<J::Msg> = (emitted, msgs);
                Ok((q as u64, link.time, me as u64, codec::encode(&batch)?))
            })
            .collect::<Result<_>>()?;
        let got = link.exchange(records, control)?;
        if got.len() != np - 1 {
            return Err(cluster_error(format!(
                "round {round} of phase {phase}: {} records arrived, expected {}",
                got.len(),
                np - 1
            )));
        }
        for b in inboxes.iter_mut() {
            b.clear();
        }
        let mut total_emitted = emitted;
        for (to, m) in own {
            inboxes[part_of(&local, to)].push((to, m));
        }
        for r in got {
            let (e, msgs) = codec::decode::<Batch<J::Msg>>(&r.3)?;
            total_emitted += e;
            for (to, m) in msgs {
                if !mine.contains(&to) {
                    return Err(cluster_error(format!(
                        "process {} sent a message for node {to}, not held here",
                        r.2
                    )));
                }
                inboxes[part_of(&local, to)].push((to, m));
            }
        }
        Ok(total_emitted != 0)
    })?;
    let partials: Vec<J::Partial> = states.into_iter().map(|p| job.finish(p)).collect();
    if me == 0 {
        let got = link.exchange(Vec::new(), control)?;
        let mut i = 0;
        for p in partials {
            merge(i, p)?;
            i += 1;
        }
        if got.len() != np - 1 {
            return Err(cluster_error(format!(
                "{} of {} processes sent their results",
                got.len(),
                np - 1
            )));
        }
        for r in got {
            for p in codec::decode::<Vec<J::Partial>>(&r.3)? {
                merge(i, p)?;
                i += 1;
            }
        }
    } else {
        let bytes = codec::encode(&partials)?;
        link.exchange(vec![(0, link.time, me as u64, bytes)], control)?;
    }
    Ok(())
}

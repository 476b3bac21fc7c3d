//! Running the relay: locally the owners in chunks of 64 on the executor's
//! threads (the [`ChunkJob`] machinery of `simulate`), each owner's
//! diffusion computed by the hop sweep or round by round, the counts merged
//! in chunk order; over several peers the protocol as the round exchange
//! ([`super::job`]).

use super::batch::BatchScratch;
use super::flood::FloodScratch;
use super::hop::HopScratch;
use super::plan::{RelayPlan, Relays};
use super::signal::{Diffusion, Signal};
use super::stats::{OwnerStats, RunStats};
use super::trace::{RelayTrace, TraceSink};
use crate::control::Control;
use crate::error::Result;
use crate::exec::{CHUNK, ChunkJob, Local, RoundExecutor};
use crate::process::family::{NoiseFamily, Visit};

/// How each owner's diffusion is computed (every engine gives the same
/// numbers; the choice is speed, or a check of one against another).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RelayEngine {
    /// On hop distances the 64-owner level search when every relay trims
    /// (the rounds in closed form), else the per-owner sweep; round by
    /// round on weighted ones.
    #[default]
    Auto,
    /// The per-owner sweep on hop distances (round by round on weighted
    /// ones).
    Sweep,
    /// Round by round for every owner, whatever the distance.
    Rounds,
    /// The partitioned round exchange of the cluster
    /// ([`crate::exec::rounds`]), run on the executor's threads: owners in
    /// batches, nodes in parts, messages routed between parts each round.
    Exchange,
}

impl std::str::FromStr for RelayEngine {
    type Err = crate::error::Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim() {
            "auto" => Ok(RelayEngine::Auto),
            "sweep" => Ok(RelayEngine::Sweep),
            "rounds" => Ok(RelayEngine::Rounds),
            "exchange" => Ok(RelayEngine::Exchange),
            _ => Err(crate::error::Error::param(
                "engine",
                s,
                "auto, sweep, rounds or exchange",
            )),
        }
    }
}

/// A worker: the engine it runs owners with and its buffers (`S`: the
/// owner's signal).
pub(crate) struct Worker<S> {
    engine: RelayEngine,
    hop: HopScratch<S>,
    flood: FloodScratch<S>,
    batch: BatchScratch<S>,
}

impl<S: Default> Worker<S> {
    /// A worker of `engine`, its buffers empty.
    pub(crate) fn new(engine: RelayEngine) -> Self {
        Worker {
            engine,
            hop: HopScratch::default(),
            flood: FloodScratch::default(),
            batch: BatchScratch::default(),
        }
    }
}

impl<F: NoiseFamily> Diffusion<'_, '_, F> {
    /// One owner under `relays` with `worker`'s engine and buffers.
    pub(crate) fn owner(
        &self,
        w: &mut Worker<Signal<F>>,
        owner: u32,
        relays: &[Relays<'_>],
        stats: &mut [OwnerStats],
        run: &mut RunStats,
        trace: Option<&mut TraceSink>,
    ) -> Result<()> {
        if self.is_hop() && matches!(w.engine, RelayEngine::Auto | RelayEngine::Sweep) {
            self.hop_owner(&mut w.hop, owner, relays, stats, run, trace)
        } else {
            self.flood_owner(&mut w.flood, owner, relays, stats, run, trace)
        }
    }
}

impl RelayPlan<'_> {
    /// The seeded relays of `owner`, one set per fraction.
    pub(crate) fn relays_of(&self, owner: u32) -> Vec<Relays<'_>> {
        self.fractions()
            .iter()
            .map(|&f| Relays::Order(self.order(), self.order().bound(f, owner)))
            .collect()
    }

    /// Every owner under every fraction, in this process (see
    /// [`RelayPlan::run_on`]).
    pub fn run_local(&self, engine: RelayEngine, control: &Control) -> Result<RunStats> {
        let stats = self.run_on(&Local, engine, control)?;
        stats.ok_or_else(|| crate::error::Error::Unsupported("a local run merges".into()))
    }

    /// Every owner under every fraction on `exec`: `Some` counts where the
    /// executor merges, `None` on a cluster's other peers. On one peer the
    /// owners run as chunks with `engine` (the exchange when asked for);
    /// over several peers always as the round exchange, the protocol itself
    /// (nodes partitioned over the peers, one exchange per round). Every
    /// engine gives the same counts, exactly. The noise family is chosen
    /// here, once.
    pub fn run_on<E: RoundExecutor>(
        &self,
        exec: &E,
        engine: RelayEngine,
        control: &Control,
    ) -> Result<Option<RunStats>> {
        struct Run<'x, 'a, E> {
            plan: &'x RelayPlan<'a>,
            exec: &'x E,
            engine: RelayEngine,
            control: &'x Control,
        }
        impl<E: RoundExecutor> Visit for Run<'_, '_, E> {
            type Out = Result<Option<RunStats>>;
            fn run<F: NoiseFamily>(self, fam: &F) -> Self::Out {
                let d = Diffusion {
                    plan: self.plan,
                    fam,
                };
                d.run_on(self.exec, self.engine, self.control)
            }
        }
        let (plan, control) = (self, control);
        self.sim().noise().visit(Run {
            plan,
            exec,
            engine,
            control,
        })
    }

    /// Every owner under every fraction as the round exchange on `exec`:
    /// `Some` counts where the executor merges (locally; process 0 of a
    /// cluster), `None` elsewhere.
    pub fn run_exchange(
        &self,
        exec: &impl RoundExecutor,
        control: &Control,
    ) -> Result<Option<RunStats>> {
        self.run_on(exec, RelayEngine::Exchange, control)
    }

    /// One owner's diffusion under `relays`, message by message.
    pub fn trace(&self, owner: u32, relays: Relays<'_>, engine: RelayEngine) -> Result<RelayTrace> {
        struct Trace<'x, 'a, 'r> {
            plan: &'x RelayPlan<'a>,
            owner: u32,
            relays: Relays<'r>,
            engine: RelayEngine,
        }
        impl Visit for Trace<'_, '_, '_> {
            type Out = Result<RelayTrace>;
            fn run<F: NoiseFamily>(self, fam: &F) -> Self::Out {
                let d = Diffusion {
                    plan: self.plan,
                    fam,
                };
                d.trace(self.owner, self.relays, self.engine)
            }
        }
        self.sim().noise().visit(Trace {
            plan: self,
            owner,
            relays,
            engine,
        })
    }
}

impl<F: NoiseFamily> Diffusion<'_, '_, F> {
    fn run_on<E: RoundExecutor>(
        &self,
        exec: &E,
        engine: RelayEngine,
        control: &Control,
    ) -> Result<Option<RunStats>> {
        if engine == RelayEngine::Exchange || exec.peers() > 1 {
            return self.run_exchange(exec, control);
        }
        let nf = self.fractions().len();
        let mut total = RunStats::new(0, nf);
        let job = OwnerJob { plan: self, engine };
        exec.execute(&job, control, &mut |_, part: RunStats| {
            total.append(part);
            Ok(())
        })?;
        Ok(exec.merges_here().then_some(total))
    }

    fn trace(&self, owner: u32, relays: Relays<'_>, engine: RelayEngine) -> Result<RelayTrace> {
        let mut stats = [OwnerStats::default()];
        let mut run = RunStats::new(0, 1);
        let mut sink = TraceSink::default();
        let engine = if engine == RelayEngine::Exchange {
            RelayEngine::Rounds
        } else {
            engine
        };
        let mut w = Worker::new(engine);
        self.owner(
            &mut w,
            owner,
            &[relays],
            &mut stats,
            &mut run,
            Some(&mut sink),
        )?;
        let [stats] = stats;
        Ok(RelayTrace {
            owner,
            value: sink.value,
            path: sink.path,
            messages: sink.messages,
            nodes: sink.nodes,
            stats,
        })
    }
}

/// The owners as chunks of [`CHUNK`].
struct OwnerJob<'p, 'q, 'a, F> {
    plan: &'p Diffusion<'q, 'a, F>,
    engine: RelayEngine,
}

impl<F: NoiseFamily> ChunkJob for OwnerJob<'_, '_, '_, F> {
    type Worker = Worker<Signal<F>>;
    type Partial = RunStats;

    fn chunks(&self) -> usize {
        self.plan.owners().len().div_ceil(CHUNK)
    }

    fn chunk_owners(&self, index: usize) -> u64 {
        let n = self.plan.owners().len();
        (n.min((index + 1) * CHUNK) - index * CHUNK) as u64
    }

    fn new_worker(&self) -> Self::Worker {
        Worker::new(self.engine)
    }

    fn run_chunk(&self, w: &mut Self::Worker, index: usize) -> Result<RunStats> {
        let owners = self.plan.owners();
        let chunk = &owners[index * CHUNK..owners.len().min((index + 1) * CHUNK)];
        let nf = self.plan.fractions().len();
        let mut part = RunStats::new(chunk.len(), nf);
        if self.engine == RelayEngine::Auto && self.plan.is_hop() && self.plan.all_trim() {
            let mut stats = std::mem::take(&mut part.owners);
            self.plan
                .batch_chunk(&mut w.batch, index * CHUNK, chunk, &mut stats, &mut part)?;
            part.owners = stats;
            return Ok(part);
        }
        let mut stats = vec![OwnerStats::default(); nf];
        for (i, &o) in chunk.iter().enumerate() {
            let relays = self.plan.relays_of(o);
            self.plan
                .owner(w, o, &relays, &mut stats, &mut part, None)?;
            part.owners[i * nf..(i + 1) * nf].clone_from_slice(&stats);
        }
        Ok(part)
    }
}

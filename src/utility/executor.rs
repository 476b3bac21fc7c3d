//! A utility run on an executor (local or a cluster): per-process shares of
//! the exact sums, added as they arrive.

use super::{Accumulators, ChunkPartial, UtilityPlan, UtilityResult};
use crate::control::Control;
use crate::error::{Error, Result};
use crate::exec::{ChunkJob, Executor};

impl<'a> UtilityPlan<'a> {
    /// [`run`](Self::run) on an executor: locally, or over a cluster where
    /// process `p` of `P` runs chunks `p, p + P, …` of every replicate on
    /// its threads (one [`Accumulators`] per thread, merged in the process),
    /// and sends per replicate one [`PeerShare`] — its per-recipient sums
    /// and aggregates — to process 0, which adds the shares exactly as they
    /// arrive (so any split and any arrival order give the integers of a
    /// local run; at most one running sum per unfinished replicate is held)
    /// and evaluates each replicate once all its shares are in. `Some` where
    /// the executor merges, `None` on the other processes.
    ///
    /// A guessed hop range is verified on process 0 once every share has
    /// arrived; if it was wrong, process 0 alone runs everything again with
    /// the exact range (the other processes have ended by then).
    pub fn run_on(
        &mut self,
        exec: &impl Executor,
        control: &Control,
    ) -> Result<Option<UtilityResult>> {
        match exec.peers() {
            1 => self.run(control).map(Some),
            np => {
                let job = ShareJob {
                    plan: self,
                    processes: np,
                    control,
                };
                let reps = self.config.replicates;
                // Shares are added as they arrive (exact sums commute): one
                // running sum per replicate still missing shares.
                let mut open: std::collections::BTreeMap<
                    usize,
                    (Accumulators, ChunkPartial, usize),
                > = std::collections::BTreeMap::new();
                let mut done: Vec<Option<(Vec<Vec<f64>>, ChunkPartial)>> = vec![None; reps];
                let mut first = None;
                {
                    let this = &*self;
                    let mut merge = |k: usize, share: PeerShare| -> Result<()> {
                        let r = k / np;
                        if !share.acc.fits(this) {
                            return Err(Error::Unsupported(
                                "cluster: utility sums of another layout arrived (peers \
                                 built from different versions?)"
                                    .into(),
                            ));
                        }
                        let entry = match open.remove(&r) {
                            None => (share.acc, share.partial, 1),
                            Some((mut a, mut p, n)) => {
                                a.merge(&share.acc);
                                p.merge(&share.partial);
                                (a, p, n + 1)
                            }
                        };
                        if entry.2 < np {
                            open.insert(r, entry);
                            return Ok(());
                        }
                        // Every process's share of replicate r is in.
                        let e = this.evaluate(&entry.0, r as u64);
                        done[r] = Some((e.sq_err.clone(), entry.1));
                        if r == 0 {
                            first = Some(e);
                        }
                        Ok(())
                    };
                    exec.execute(&job, control, &mut merge)?;
                }
                if !exec.merges_here() {
                    return Ok(None);
                }
                let per_rep: Vec<(Vec<Vec<f64>>, ChunkPartial)> =
                    done.into_iter().collect::<Option<_>>().ok_or_else(|| {
                        Error::Unsupported("cluster: not every replicate's shares arrived".into())
                    })?;
                if let Some(mut exact) = self.verify(&per_rep[0].1)? {
                    exact.first_guess = self.first_guess.or(self.guessed);
                    *self = exact;
                    return self.run(control).map(Some);
                }
                let mut partial = ChunkPartial::default();
                for (_, p) in &per_rep {
                    partial.merge(p);
                }
                let errs: Vec<Vec<Vec<f64>>> = per_rep.into_iter().map(|x| x.0).collect();
                let first = first.expect("replicates ≥ 1");
                let rows = self.rows(&errs, &first);
                Ok(Some(UtilityResult {
                    rows,
                    first,
                    partial,
                }))
            }
        }
    }
}

/// What one cluster process sends per replicate: its per-recipient sums
/// (once, whatever its number of chunks and threads) and its chunks'
/// aggregates.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PeerShare {
    /// The process's per-recipient sums, its threads' merged.
    pub acc: Accumulators,
    /// Its chunks' aggregates.
    pub partial: ChunkPartial,
}

/// The utility as a cluster job: item `k` is replicate `k / P`'s share of
/// process `k mod P` (so process `p` computes exactly its items), run one at
/// a time (each already uses every thread).
struct ShareJob<'p, 'a> {
    plan: &'p UtilityPlan<'a>,
    processes: usize,
    control: &'p Control,
}

impl ChunkJob for ShareJob<'_, '_> {
    type Worker = ();
    type Partial = PeerShare;
    fn chunks(&self) -> usize {
        self.processes * self.plan.config.replicates
    }
    fn chunk_owners(&self, index: usize) -> u64 {
        let p = index % self.processes;
        (p..self.plan.chunks())
            .step_by(self.processes)
            .map(|c| self.plan.chunk(c).len() as u64)
            .sum()
    }
    fn new_worker(&self) {}
    fn sequential(&self) -> bool {
        true
    }
    fn ordered(&self) -> bool {
        false
    }
    fn run_chunk(&self, _: &mut (), index: usize) -> Result<PeerShare> {
        let (r, p) = (index / self.processes, index % self.processes);
        let (acc, partial, _) = self.plan.run_replicate_below(
            r as u64,
            self.control,
            &|_| {},
            None,
            (p, self.processes),
        )?;
        Ok(PeerShare { acc, partial })
    }
}

//! The runner: owners in parallel (rayon over fixed chunks), per-worker reusable
//! buffers, streaming aggregation. Memory stays O(N + M + jumps): one distance
//! row per worker, never an N×N matrix. Chunks have a fixed size and their
//! partial sums are merged in chunk order, so results do not depend on the
//! number of threads.

use super::aggregate::{BucketAcc, Table};
use super::chunk::{ChunkOut, Counts};
use super::owner::{Dist, Wants, Worker};
use super::plan::{Buckets, LevelCache, Plan};
use super::rows::{ByDistanceRow, EgoRow, JumpRow, OwnerRow, PathRow, ResponseRow};
use crate::control::Control;
use crate::distance::HopLevels;
use crate::error::Result;
use crate::exec::{CHUNK, ChunkJob, Executor, Local};
use crate::mechanism::Mechanism;
use crate::post::Post;
use crate::process::family::{NoiseFamily, Visit};
use crate::sink::RecordSink;
use serde::Serialize;

/// The simulation as a [`ChunkJob`]: chunk `i` holds owners
/// `64i .. 64(i+1)` of the plan; its partial is a [`ChunkOut`].
struct SimJob<'p, 'a, F> {
    plan: &'p Plan<'a>,
    family: &'p F,
    wants: Wants,
}

impl<F: NoiseFamily> ChunkJob for SimJob<'_, '_, F> {
    type Worker = Worker<F>;
    type Partial = ChunkOut;

    fn chunks(&self) -> usize {
        self.plan.owners.len().div_ceil(CHUNK)
    }

    fn chunk_owners(&self, index: usize) -> u64 {
        self.plan
            .owners
            .chunks(CHUNK)
            .nth(index)
            .map_or(0, |c| c.len() as u64)
    }

    fn new_worker(&self) -> Worker<F> {
        self.plan.new_worker()
    }

    fn run_chunk(&self, w: &mut Worker<F>, index: usize) -> Result<ChunkOut> {
        let start = index * CHUNK;
        let end = (start + CHUNK).min(self.plan.owners.len());
        self.plan.process_chunk(
            self.family,
            w,
            self.wants,
            start,
            &self.plan.owners[start..end],
        )
    }
}

/// Where the optional per-row outputs go: one [`RecordSink`] per row type
/// (`None`: that output is not produced at all).
#[derive(Default)]
pub struct Sinks<'w> {
    /// Every jump of every correlated path.
    pub jumps: Option<&'w mut dyn RecordSink<JumpRow>>,
    /// One row per owner and replicate.
    pub owners: Option<&'w mut dyn RecordSink<OwnerRow>>,
    /// The first `path_owners` owners' paths.
    pub paths: Option<&'w mut dyn RecordSink<PathRow>>,
    /// The recorded owners' recipients.
    pub ego: Option<&'w mut dyn RecordSink<EgoRow>>,
    /// Every answer.
    pub responses: Option<&'w mut dyn RecordSink<ResponseRow>>,
}

/// Overall accuracy of one mechanism.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct MechanismTotal {
    /// Mechanism name.
    pub mechanism: String,
    /// Responses.
    pub responses: u64,
    /// Empirical MSE over all responses.
    pub mse: f64,
    /// Mean theoretical MSE over the same responses.
    pub mse_theory: f64,
}

/// What a run produces in memory.
#[derive(Clone, Debug)]
pub struct SimResult {
    /// `by_distance.csv` rows.
    pub rows: Vec<ByDistanceRow>,
    /// Per-mechanism totals.
    pub totals: Vec<MechanismTotal>,
    /// Counts.
    pub counts: Counts,
}

impl Plan<'_> {
    /// Runs the simulation, streaming optional rows into `sinks`; `control`
    /// is checked before each batch of chunks and told of the owners done
    /// after it.
    pub fn run(&self, sinks: &mut Sinks<'_>, control: &Control) -> Result<SimResult> {
        self.run_on(&Local, sinks, control)
    }

    /// [`Plan::run`] on an executor: the chunks may be computed elsewhere
    /// (a cluster), their partials merged here in chunk order. Where the
    /// executor does not merge (a cluster's process other than 0) nothing is
    /// written and the result is empty; `sinks` must still name the files
    /// process 0 writes (an `io::sink()` will do), as they decide which rows
    /// the chunks format.
    pub fn run_on<E: Executor>(
        &self,
        exec: &E,
        sinks: &mut Sinks<'_>,
        control: &Control,
    ) -> Result<SimResult> {
        // The family is chosen here, once; everything below is monomorphised.
        struct Run<'r, 'p, 'a, 'w, E> {
            plan: &'p Plan<'a>,
            exec: &'r E,
            sinks: &'r mut Sinks<'w>,
            control: &'r Control,
        }
        impl<E: Executor> Visit for Run<'_, '_, '_, '_, E> {
            type Out = Result<SimResult>;
            fn run<F: NoiseFamily>(self, family: &F) -> Result<SimResult> {
                self.plan
                    .run_with(family, self.exec, self.sinks, self.control)
            }
        }
        self.noise.visit(Run {
            plan: self,
            exec,
            sinks,
            control,
        })
    }

    fn run_with<F: NoiseFamily>(
        &self,
        family: &F,
        exec: &impl Executor,
        sinks: &mut Sinks<'_>,
        control: &Control,
    ) -> Result<SimResult> {
        let job = SimJob {
            plan: self,
            family,
            wants: Wants {
                jumps: sinks.jumps.is_some(),
                owners: sinks.owners.is_some(),
                paths: sinks.paths.is_some(),
                ego: sinks.ego.is_some(),
                responses: sinks.responses.is_some(),
            },
        };
        let mut tables: Vec<Table> = vec![Table::default(); self.mechanisms.len()];
        let mut counts = Counts::default();
        exec.execute(&job, control, &mut |_, out: ChunkOut| {
            for (t, o) in tables.iter_mut().zip(&out.tables) {
                t.merge(o);
            }
            add_counts(&mut counts, &out.counts);
            give(&mut sinks.jumps, out.jumps)?;
            give(&mut sinks.owners, out.owners)?;
            give(&mut sinks.paths, out.paths)?;
            give(&mut sinks.ego, out.ego)?;
            give(&mut sinks.responses, out.responses)
        })?;
        counts.owners = self.owners.len() as u64;
        Ok(self.finish(tables, counts))
    }

    fn finish(&self, tables: Vec<Table>, counts: Counts) -> SimResult {
        let with_post = !self.post.is_none();
        let bits = self.post == Post::Bit;
        let mut rows = Vec::new();
        let mut totals = Vec::new();
        for (m, t) in self.mechanisms.iter().zip(&tables) {
            // Finite buckets ascending, then the unreachable bucket (if any).
            let mut order: Vec<usize> = (0..t.buckets.len())
                .filter(|&b| self.buckets.edges(b).0.is_finite())
                .collect();
            order.extend((0..t.buckets.len()).filter(|&b| !self.buckets.edges(b).0.is_finite()));
            for b in order {
                let acc = &t.buckets[b];
                if acc.count == 0 {
                    continue;
                }
                let (lo, hi) = self.buckets.edges(b);
                rows.push(bucket_row(m.name(), lo, hi, acc, with_post, bits));
            }
            let tot = t.total();
            totals.push(MechanismTotal {
                mechanism: m.name().into(),
                responses: tot.count,
                mse: tot.mse(),
                mse_theory: tot.sum_theory / tot.count as f64,
            });
        }
        SimResult {
            rows,
            totals,
            counts,
        }
    }

    fn process_chunk<F: NoiseFamily>(
        &self,
        family: &F,
        w: &mut Worker<F>,
        wants: Wants,
        start: usize,
        owners: &[u32],
    ) -> Result<ChunkOut> {
        let mut out = ChunkOut {
            tables: vec![Table::default(); self.mechanisms.len()],
            counts: Counts::default(),
            jumps: Vec::new(),
            owners: Vec::new(),
            paths: Vec::new(),
            ego: Vec::new(),
            responses: Vec::new(),
        };
        let Worker { ws, s } = w;
        let mut err = None;
        if self.buckets == Buckets::Integer {
            // Hop levels: a row only where answers are handled one by one
            // (the independent mechanism's draws, responses, ego owners).
            let all = wants.responses || self.mechanisms.contains(&Mechanism::Independent);
            let want_row =
                |i: usize| all || (wants.ego && self.ego.binary_search(&(start + i)).is_ok());
            let rows = (0..owners.len()).filter(|&i| want_row(i)).count();
            // Without the pre-pass' histograms, a chunk with a few listed
            // owners counts its histograms first (no per-node levels stored).
            let local;
            let cache = match &self.levels {
                Some(c) => Some((c, 0)),
                None if rows > 0 && rows <= 4 => {
                    let mut c = LevelCache {
                        start: vec![0],
                        hist: Vec::new(),
                        degs: Vec::new(),
                        unreachable: Vec::new(),
                    };
                    self.distances.hop_levels(
                        owners,
                        ws,
                        |_| false,
                        |_, lv| {
                            c.hist.extend_from_slice(lv.hist());
                            c.start.push(c.hist.len());
                            c.unreachable.push(lv.unreachable());
                        },
                    )?;
                    local = c;
                    Some((&local, start))
                }
                None => None,
            };
            if let Some((c, base)) = cache
                && rows <= 4
            {
                // Histograms from the pre-pass: no second search, except a
                // single-source BFS for the few owners whose recipients
                // are listed (ego owners).
                for (i, &o) in owners.iter().enumerate() {
                    let p = start + i;
                    if want_row(i) {
                        self.distances.hop_levels(
                            &[o],
                            ws,
                            |_| true,
                            |_, lv| {
                                if err.is_none()
                                    && let Err(e) = self.process_owner(
                                        family,
                                        s,
                                        wants,
                                        (p, o),
                                        Dist::Levels(lv),
                                        &mut out,
                                    )
                                {
                                    err = Some(e);
                                }
                            },
                        )?;
                        if let Some(e) = err.take() {
                            return Err(e);
                        }
                        continue;
                    }
                    let q = p - base;
                    let lv = HopLevels {
                        hist: &c.hist[c.start[q]..c.start[q + 1]],
                        unreachable: c.unreachable[q],
                        row: None,
                        degs: None,
                    };
                    self.process_owner(family, s, wants, (p, o), Dist::Levels(&lv), &mut out)?;
                }
                return Ok(out);
            }
            self.distances.hop_levels(owners, ws, want_row, |i, lv| {
                if err.is_none()
                    && let Err(e) = self.process_owner(
                        family,
                        s,
                        wants,
                        (start + i, owners[i]),
                        Dist::Levels(lv),
                        &mut out,
                    )
                {
                    err = Some(e);
                }
            })?;
        } else {
            self.distances.batch(owners, ws, |i, row| {
                if err.is_none()
                    && let Err(e) = self.process_owner(
                        family,
                        s,
                        wants,
                        (start + i, owners[i]),
                        Dist::Row(row),
                        &mut out,
                    )
                {
                    err = Some(e);
                }
            });
        }
        match err {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }
}

/// Hands a chunk's rows to their sink, if that output is produced.
fn give<R>(sink: &mut Option<&mut dyn RecordSink<R>>, rows: Vec<R>) -> Result<()> {
    match sink.as_mut() {
        Some(w) if !rows.is_empty() => w.record_all(rows),
        _ => Ok(()),
    }
}

fn add_counts(a: &mut Counts, b: &Counts) {
    a.owners_without_recipients += b.owners_without_recipients;
    a.responses += b.responses;
    a.skipped_unreachable += b.skipped_unreachable;
    a.jumps += b.jumps;
    a.jumps_expected += b.jumps_expected;
}

fn bucket_row(
    mech: &str,
    lo: f64,
    hi: f64,
    acc: &BucketAcc,
    with_post: bool,
    bits: bool,
) -> ByDistanceRow {
    let c = acc.count as f64;
    ByDistanceRow {
        mechanism: mech.into(),
        distance_lo: lo,
        distance_hi: hi,
        count: acc.count,
        mean_eps: acc.sum_eps / c,
        mse: acc.mse(),
        mse_se: acc.mse_se(),
        mse_theory: acc.sum_theory / c,
        post_exact: with_post.then(|| acc.post_exact as f64 / c),
        post_mse: with_post.then(|| acc.post_sq / c),
        correct_rate: bits.then(|| acc.post_exact as f64 / c),
        correct_theory: bits.then(|| (acc.correct_undefined == 0).then(|| acc.correct_theory / c)),
    }
}

/// Runs a whole simulation from a configuration without writing files: loads
/// nothing (the caller passes the graph and prepared distances).
pub fn simulate(plan: &Plan<'_>) -> Result<SimResult> {
    plan.run(&mut Sinks::default(), &Control::default())
}

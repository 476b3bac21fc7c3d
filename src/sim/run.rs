//! The runner: owners in parallel (rayon over fixed chunks), per-worker reusable
//! buffers, streaming aggregation. Memory stays O(N + M + jumps): one distance
//! row per worker, never an N×N matrix. Chunks have a fixed size and their
//! partial sums are merged in chunk order, so results do not depend on the
//! number of threads.

use super::aggregate::{BucketAcc, OwnerCell, Table};
use super::config::{Owners, SimConfig, Unreachable};
use super::rows::{ByDistanceRow, EgoRow, JumpRow, OwnerRow, PathRow, ResponseRow};
use crate::control::Control;
use crate::distance::{Distances, HopLevels, LevelRow, Workspace};
use crate::epsilon::EpsilonMap;
use crate::error::{Error, Result};
use crate::exec::{CHUNK, ChunkJob, Executor, Local};
use crate::graph::Graph;
use crate::limits::{self, MemoryBudget, bytes_of};
use crate::mechanism::{Mechanism, NoiseModel, brownian_at, independent_noise, sample_owner_path};
use crate::post::Post;
use crate::process::laplace::laplace;
use crate::process::{NoisePath, Norm};
use crate::rng::{PrivRng, Purpose, rng_for};
use crate::util::table::{self, CsvRow};
use crate::values::Values;
use rayon::prelude::*;
use serde::Serialize;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Write;

/// The simulation as a [`ChunkJob`]: chunk `i` holds owners
/// `64i .. 64(i+1)` of the plan; its partial is a [`ChunkOut`].
struct SimJob<'p, 'a> {
    plan: &'p Plan<'a>,
    wants: Wants,
}

impl ChunkJob for SimJob<'_, '_> {
    type Worker = Worker;
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

    fn new_worker(&self) -> Worker {
        self.plan.new_worker()
    }

    fn run_chunk(&self, w: &mut Worker, index: usize) -> Result<ChunkOut> {
        let start = index * CHUNK;
        let end = (start + CHUNK).min(self.plan.owners.len());
        self.plan
            .process_chunk(w, self.wants, start, &self.plan.owners[start..end])
    }
}

/// How distances are bucketed in `by_distance.csv`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Buckets {
    /// One bucket per integer distance (hop); bucket 0 holds unreachable members.
    Integer,
    /// `k` equal-width bins over `[lo, lo + k·width]`; bucket `k` holds unreachable members.
    Bins {
        /// Lower edge of the first bin.
        lo: f64,
        /// Width of every bin.
        width: f64,
        /// Number of bins.
        k: usize,
    },
}

impl Buckets {
    #[inline]
    fn index(&self, d: f64) -> usize {
        match *self {
            Buckets::Integer => {
                if d.is_finite() {
                    d as usize
                } else {
                    0
                }
            }
            Buckets::Bins { lo, width, k } => {
                if !d.is_finite() {
                    k
                } else if width > 0.0 {
                    (((d - lo) / width) as usize).min(k - 1)
                } else {
                    0
                }
            }
        }
    }

    fn edges(&self, b: usize) -> (f64, f64) {
        match *self {
            Buckets::Integer if b == 0 => (f64::INFINITY, f64::INFINITY),
            Buckets::Integer => (b as f64, b as f64),
            Buckets::Bins { k, .. } if b == k => (f64::INFINITY, f64::INFINITY),
            Buckets::Bins { lo, width, .. } => (lo + b as f64 * width, lo + (b + 1) as f64 * width),
        }
    }
}

/// A validated, resolved simulation: graph, distances, owners, values, map.
/// Built only by [`Plan::new`], which checks everything; read-only after.
pub struct Plan<'a> {
    config: SimConfig,
    graph: &'a Graph,
    distances: &'a Distances<'a>,
    owners: Vec<u32>,
    map: EpsilonMap,
    model: NoiseModel,
    values: Values,
    post: Post,
    mechanisms: Vec<Mechanism>,
    buckets: Buckets,
    observed: (f64, f64),
    /// The memory budget in force when the plan was made (for the per-owner
    /// path check, without locking the process-wide setting in the loop).
    budget: MemoryBudget,
    /// Positions (in `owners`) of the owners recorded in `ego.csv`, ascending.
    ego: Vec<usize>,
    /// Replicates run.
    replicates: std::ops::Range<u32>,
    /// Hop-level histograms of the owners from the plan's pre-pass, when it
    /// ran and they fit [`limits::LEVEL_CACHE_MAX`].
    levels: Option<LevelCache>,
}

/// Owners' hop-level histograms, in owner order.
struct LevelCache {
    /// Owner at position p: `hist[start[p]..start[p + 1]]`.
    start: Vec<usize>,
    hist: Vec<u64>,
    unreachable: Vec<u64>,
}

impl<'a> Plan<'a> {
    /// The configuration it was built from.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// The network.
    pub fn graph(&self) -> &'a Graph {
        self.graph
    }

    /// The prepared distance routine.
    pub fn distances(&self) -> &'a Distances<'a> {
        self.distances
    }

    /// Owners (node indices) in output order.
    pub fn owners(&self) -> &[u32] {
        &self.owners
    }

    /// The privacy map used, clamped (a `range` map resolved on the observed
    /// distances).
    pub fn map(&self) -> &EpsilonMap {
        &self.map
    }

    /// The noise law (dimension, norm, sensitivity, δ).
    pub fn model(&self) -> &NoiseModel {
        &self.model
    }

    /// The private values (`auto` resolved).
    pub fn values(&self) -> &Values {
        &self.values
    }

    /// Post-processing of the answers.
    pub fn post(&self) -> &Post {
        &self.post
    }

    /// Mechanisms run, in output order.
    pub fn mechanisms(&self) -> &[Mechanism] {
        &self.mechanisms
    }

    /// Bucketing of distances in `by_distance` rows.
    pub fn buckets(&self) -> Buckets {
        self.buckets
    }

    /// The memory budget in force when the plan was made.
    pub fn budget(&self) -> MemoryBudget {
        self.budget
    }

    /// The replicates run (`first_replicate .. first_replicate + replicates`).
    pub fn replicates(&self) -> std::ops::Range<u32> {
        self.replicates.clone()
    }

    /// Positions in [`Plan::owners`] of the owners recorded in `ego.csv`.
    pub fn ego_positions(&self) -> &[usize] {
        &self.ego
    }

    /// Smallest and largest finite owner-to-member distance, when the plan
    /// needed them (a `range` map or continuous distances); NaN otherwise.
    pub fn observed(&self) -> (f64, f64) {
        self.observed
    }
}

/// Optional per-row outputs, written in owner order as the run streams.
#[derive(Default)]
pub struct Sinks<'w> {
    /// `jumps.csv`.
    pub jumps: Option<&'w mut dyn Write>,
    /// `owners.csv`.
    pub owners: Option<&'w mut dyn Write>,
    /// `paths.csv`.
    pub paths: Option<&'w mut dyn Write>,
    /// `ego.csv`.
    pub ego: Option<&'w mut dyn Write>,
    /// `responses.csv`.
    pub responses: Option<&'w mut dyn Write>,
    /// The directory the sinks are files of, named in I/O errors
    /// (`DIR/jumps.csv: No space left on device`); without it errors name
    /// the file alone.
    pub dir: Option<&'w std::path::Path>,
}

/// Totals of a run (echoed in `summary.json`).
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, PartialEq)]
pub struct Counts {
    /// Owners simulated.
    pub owners: u64,
    /// Owners with no reachable member (nothing to answer).
    pub owners_without_recipients: u64,
    /// Answers, summed over the mechanisms run (see [`MechanismTotal::responses`] for each).
    pub responses: u64,
    /// Unreachable members skipped (per mechanism run once).
    pub skipped_unreachable: u64,
    /// Jumps of all correlated paths.
    pub jumps: u64,
    /// Expected jumps: Σ_owners rate · ln(ε_hi/ε_lo).
    pub jumps_expected: f64,
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

impl<'a> Plan<'a> {
    /// Validates the configuration and resolves owners, values and the map
    /// (a `range:` map and continuous buckets need one pass over the owners'
    /// distances first).
    pub fn new(
        config: &SimConfig,
        graph: &'a Graph,
        distances: &'a Distances<'a>,
    ) -> Result<Plan<'a>> {
        Self::build(config, graph, distances, None)
    }

    /// [`Plan::new`] with the owners' observed range of hop distances
    /// `(lo, hi)` given instead of measured by a pre-pass (hop distances
    /// only; no level histograms are cached). The caller vouches for it:
    /// the utility checks its guess against the deepest level its search
    /// meets and plans again when they differ.
    pub(crate) fn with_hop_range(
        config: &SimConfig,
        graph: &'a Graph,
        distances: &'a Distances<'a>,
        range: (u32, u32),
    ) -> Result<Plan<'a>> {
        Self::build(config, graph, distances, Some(range))
    }

    fn build(
        config: &SimConfig,
        graph: &'a Graph,
        distances: &'a Distances<'a>,
        given: Option<(u32, u32)>,
    ) -> Result<Plan<'a>> {
        config.check()?;
        let model = NoiseModel::new(config.dim, config.norm, config.sensitivity, config.delta)?;
        let post = config.post;
        let map = config.clamped_map()?;
        let owners = select_owners(config, graph)?;
        let values = Values::resolve(
            &config.values,
            graph,
            &config.graph,
            config.dim,
            config.seed,
        )?;
        let integer = distances.is_integer();
        let (observed, levels) = if let (Some((lo, hi)), true) = (given, integer) {
            ((lo as f64, hi as f64), None)
        } else if map.needs_resolution() || !integer {
            observed_range(distances, &owners)
        } else {
            ((f64::NAN, f64::NAN), None)
        };
        let map = if map.needs_resolution() {
            if !observed.0.is_finite() {
                return Err(Error::Unsupported(
                    "no owner reaches any member: a range: map needs at least one finite distance"
                        .into(),
                ));
            }
            map.resolve(observed.0, observed.1)?
        } else {
            map
        };
        let budget = limits::memory_budget();
        let ego = ego_positions(config, graph, &owners)?;
        let buckets = if integer {
            Buckets::Integer
        } else {
            // (`bins` was checked against the memory budget by `config.check`.)
            let (lo, hi) = if observed.0.is_finite() {
                observed
            } else {
                (0.0, 1.0)
            };
            Buckets::Bins {
                lo,
                width: (hi - lo) / config.bins as f64,
                k: config.bins,
            }
        };
        Ok(Plan {
            config: config.clone(),
            graph,
            distances,
            owners,
            map,
            model,
            values,
            post,
            mechanisms: config.mechanism.mechanisms().to_vec(),
            buckets,
            observed,
            budget,
            ego,
            replicates: config.replicate_range(),
            levels,
        })
    }

    /// Refuses an owner's path over privacy levels `[eps_lo, eps_hi]` whose
    /// breakpoints (a path per worker, and in `simulate` the jump rows of
    /// the chunks in flight) would exceed the memory budget.
    pub(crate) fn check_path_memory(&self, eps_lo: f64, eps_hi: f64, rows: bool) -> Result<()> {
        let m = &self.model;
        let b = limits::path_breakpoints(m.norm.jump_rate(m.dim), m.level(eps_lo), m.level(eps_hi));
        let t = limits::pool_threads();
        let mut need = bytes_of(&[limits::path_bytes(b, m.dim), t]);
        if rows {
            // 64 bytes per jumps.csv row, 64 owners per chunk, 4t chunks.
            need = need.saturating_add(bytes_of(&[b, 64, CHUNK as u64, 4 * t]));
        }
        if need <= self.budget.bytes {
            return Ok(());
        }
        self.budget.check(
            "dim",
            format!(
                "{} (a path over ε from {} to {})",
                m.dim,
                limits::fmt_num(eps_lo),
                limits::fmt_num(eps_hi)
            ),
            need,
        )
    }
}

/// The owners: all (index order), a seeded sample (ascending index), or a
/// list of ids (given order).
pub(crate) fn select_owners(config: &SimConfig, graph: &Graph) -> Result<Vec<u32>> {
    let n = graph.n();
    match &config.owners {
        Owners::All => Ok((0..n as u32).collect()),
        &Owners::Count(k) => {
            if k > n {
                return Err(Error::param(
                    "owners",
                    k,
                    format!("at most the number of nodes ({n})"),
                ));
            }
            // Partial Fisher–Yates on a seeded generator.
            use rand::RngExt;
            let mut rng = rng_for(config.seed, 0, 0, Purpose::OwnerSample);
            let mut idx: Vec<u32> = (0..n as u32).collect();
            for i in 0..k {
                let j = rng.random_range(i..n);
                idx.swap(i, j);
            }
            let mut s = idx[..k].to_vec();
            s.sort_unstable();
            Ok(s)
        }
        Owners::Ids(ids) => {
            let mut seen = std::collections::HashSet::new();
            ids.iter()
                .map(|id| {
                    let i = graph
                        .ids()
                        .index_of(id)
                        .ok_or_else(|| Error::param("owners", id, "ids of nodes in the graph"))?;
                    if !seen.insert(i) {
                        return Err(Error::param("owners", id, "each owner once"));
                    }
                    Ok(i)
                })
                .collect()
        }
    }
}

/// Positions in `owners` of the `ego_owners` (default: the first owner).
fn ego_positions(config: &SimConfig, graph: &Graph, owners: &[u32]) -> Result<Vec<usize>> {
    let Some(ids) = &config.ego_owners else {
        return Ok(if owners.is_empty() { vec![] } else { vec![0] });
    };
    let at: std::collections::HashMap<u32, usize> =
        owners.iter().enumerate().map(|(p, &o)| (o, p)).collect();
    let mut pos = Vec::with_capacity(ids.len());
    for id in ids {
        let p = graph
            .ids()
            .index_of(id)
            .and_then(|i| at.get(&i).copied())
            .ok_or_else(|| Error::param("ego_owners", id, "ids of owners (see `owners`)"))?;
        pos.push(p);
    }
    pos.sort_unstable();
    pos.dedup();
    Ok(pos)
}

/// Smallest positive and largest finite distance from the owners to other
/// nodes; for hop distances also the owners' level histograms, when they fit
/// the cache.
fn observed_range(distances: &Distances<'_>, owners: &[u32]) -> ((f64, f64), Option<LevelCache>) {
    if distances.is_integer() {
        // Hop: the level histograms say it, no row needed.
        type Part = (f64, f64, Vec<u64>, Vec<usize>, Vec<u64>);
        let parts: Vec<Part> = owners
            .par_chunks(CHUNK)
            .map_init(
                || distances.workspace(),
                |ws, chunk| {
                    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
                    let (mut hist, mut len, mut unreachable) = (Vec::new(), Vec::new(), Vec::new());
                    let r = distances.hop_levels(
                        chunk,
                        ws,
                        |_| false,
                        |_, lv| {
                            let h = lv.hist();
                            if let Some(k) = (1..h.len()).find(|&k| h[k] > 0) {
                                lo = lo.min(k as f64);
                                hi = hi.max((h.len() - 1) as f64);
                            }
                            if hist.len() <= limits::LEVEL_CACHE_MAX {
                                hist.extend_from_slice(h);
                            }
                            len.push(h.len());
                            unreachable.push(lv.unreachable());
                        },
                    );
                    debug_assert!(r.is_ok());
                    (lo, hi, hist, len, unreachable)
                },
            )
            .collect();
        let lo = parts.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
        let hi = parts.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
        let total: usize = parts.iter().map(|p| p.3.iter().sum::<usize>()).sum();
        let cache = (total <= limits::LEVEL_CACHE_MAX).then(|| {
            let mut c = LevelCache {
                start: vec![0],
                hist: Vec::with_capacity(total),
                unreachable: Vec::with_capacity(owners.len()),
            };
            for (_, _, hist, len, unreachable) in parts {
                c.hist.extend_from_slice(&hist);
                for l in len {
                    c.start.push(c.start.last().unwrap() + l);
                }
                c.unreachable.extend_from_slice(&unreachable);
            }
            c
        });
        return ((lo, hi), cache);
    }
    let range = owners
        .par_chunks(CHUNK)
        .map_init(
            || distances.workspace(),
            |ws, chunk| {
                let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
                distances.batch(chunk, ws, |i, row| {
                    for (j, &d) in row.iter().enumerate() {
                        if j as u32 != chunk[i] && d.is_finite() {
                            lo = lo.min(d);
                            hi = hi.max(d);
                        }
                    }
                });
                (lo, hi)
            },
        )
        .reduce(
            || (f64::INFINITY, f64::NEG_INFINITY),
            |a, b| (a.0.min(b.0), a.1.max(b.1)),
        );
    (range, None)
}

/// Per-worker scratch, reused across owners.
struct Scratch {
    u: Vec<f64>,
    y: Vec<f64>,
    v: Vec<f64>,
    path: NoisePath,
    hop_unit: Vec<u32>,
    /// Per unit: u, raw, post(raw) (3n) of the current mechanism, for rows.
    unit_vals: Vec<f64>,
    /// One answer's u, raw, post(raw).
    vals: Vec<f64>,
    unit_d: Vec<f64>,
    unit_eps: Vec<f64>,
    unit_count: Vec<u64>,
    unit_bucket: Vec<usize>,
    unit_node: Vec<u32>,
    unit_noise: Vec<f64>,
    vars: Vec<f64>,
    order: Vec<u32>,
    cells: Vec<OwnerCell>,
    touched: Vec<usize>,
    recs: Vec<(u32, u32)>,
    recs_owner: u32,
    unit_sq: Vec<f64>,
    unit_scale: Vec<f64>,
    eps_cache: Vec<f64>,
    sigma_cache: Vec<(f64, f64)>,
    /// A recipient's id as text.
    label: String,
}

struct Worker {
    ws: Workspace,
    s: Scratch,
}

/// Which optional outputs are being written (skip formatting the rest).
#[derive(Clone, Copy, Debug, Default)]
struct Wants {
    jumps: bool,
    owners: bool,
    paths: bool,
    ego: bool,
    responses: bool,
}

/// Rows of one file from one chunk of owners, as CSV text.
type Rows = table::Records;

/// What one chunk of owners produces (its partial aggregate).
#[derive(Serialize, serde::Deserialize)]
pub(crate) struct ChunkOut {
    tables: Vec<Table>,
    counts: Counts,
    jumps: Rows,
    owners: Rows,
    paths: Rows,
    ego: Rows,
    responses: Rows,
}

/// A failure to format rows (into memory: never expected).
fn row_error(e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::InvalidData {
        // A non-finite number where the format promises one: refused before
        // any file is committed.
        return Error::Numerical(format!(
            "a row of the simulation's output: {e} (the values, the noise or their \
             sums overflow f64)"
        ));
    }
    Error::io("<simulation output>", e)
}

const UNIT_NONE: u32 = u32::MAX;

/// One owner's distances: hop levels (histogram, and a level row when
/// per-recipient work is needed) or a continuous `f64` row.
#[derive(Clone, Copy)]
enum Dist<'r> {
    Levels(&'r HopLevels<'r>),
    Row(&'r [f64]),
}

impl Plan<'_> {
    fn new_worker(&self) -> Worker {
        let n = self.model.dim;
        Worker {
            ws: self.distances.workspace(),
            s: Scratch {
                u: vec![0.0; n],
                y: vec![0.0; n],
                v: vec![0.0; n],
                path: NoisePath::empty(n),
                hop_unit: Vec::new(),
                unit_vals: Vec::new(),
                vals: Vec::new(),
                unit_d: Vec::new(),
                unit_eps: Vec::new(),
                unit_count: Vec::new(),
                unit_bucket: Vec::new(),
                unit_node: Vec::new(),
                unit_noise: Vec::new(),
                vars: Vec::new(),
                order: Vec::new(),
                cells: Vec::new(),
                touched: Vec::new(),
                recs: Vec::new(),
                recs_owner: u32::MAX,
                unit_sq: Vec::new(),
                unit_scale: Vec::new(),
                eps_cache: Vec::new(),
                sigma_cache: Vec::new(),
                label: String::new(),
            },
        }
    }

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
    pub fn run_on(
        &self,
        exec: &impl Executor,
        sinks: &mut Sinks<'_>,
        control: &Control,
    ) -> Result<SimResult> {
        self.write_headers(sinks)?;
        let job = SimJob {
            plan: self,
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
            let dir = sinks.dir;
            write_rows(&mut sinks.jumps, out.jumps, dir, "jumps.csv")?;
            write_rows(&mut sinks.owners, out.owners, dir, "owners.csv")?;
            write_rows(&mut sinks.paths, out.paths, dir, "paths.csv")?;
            write_rows(&mut sinks.ego, out.ego, dir, "ego.csv")?;
            write_rows(&mut sinks.responses, out.responses, dir, "responses.csv")
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

    fn write_headers(&self, sinks: &mut Sinks<'_>) -> Result<()> {
        let n = self.model.dim;
        let dir = sinks.dir;
        write_header::<JumpRow>(&mut sinks.jumps, n, &[], sink_path(dir, "jumps.csv"))?;
        write_header::<OwnerRow>(&mut sinks.owners, n, &[], sink_path(dir, "owners.csv"))?;
        write_header::<PathRow>(&mut sinks.paths, n, &[], sink_path(dir, "paths.csv"))?;
        let ego_leave: &[&str] = if self.post == Post::Bit {
            &[]
        } else {
            &["correct"]
        };
        write_header::<EgoRow>(&mut sinks.ego, n, ego_leave, sink_path(dir, "ego.csv"))?;
        write_header::<ResponseRow<'static>>(
            &mut sinks.responses,
            n,
            &[],
            sink_path(dir, "responses.csv"),
        )
    }

    fn process_chunk(
        &self,
        w: &mut Worker,
        wants: Wants,
        start: usize,
        owners: &[u32],
    ) -> Result<ChunkOut> {
        let mut out = ChunkOut {
            tables: vec![Table::default(); self.mechanisms.len()],
            counts: Counts::default(),
            jumps: Rows::new(),
            owners: Rows::new(),
            paths: Rows::new(),
            ego: Rows::new(),
            responses: Rows::new(),
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
                                        s,
                                        wants,
                                        p,
                                        o,
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
                    };
                    self.process_owner(s, wants, p, o, Dist::Levels(&lv), &mut out)?;
                }
                return Ok(out);
            }
            self.distances.hop_levels(owners, ws, want_row, |i, lv| {
                if err.is_none()
                    && let Err(e) = self.process_owner(
                        s,
                        wants,
                        start + i,
                        owners[i],
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
                    && let Err(e) =
                        self.process_owner(s, wants, start + i, owners[i], Dist::Row(row), &mut out)
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

    /// ε at an integer distance, cached per worker (the map is fixed).
    fn eps_at_hop(&self, cache: &mut Vec<f64>, d: usize) -> f64 {
        if d >= cache.len() {
            let from = cache.len();
            cache.extend((from..=d).map(|k| self.map.eps(k as f64)));
        }
        cache[d]
    }

    /// Collects the owner's recipients into units: one per distinct hop
    /// distance, from the level histogram (ε evaluated once per level), or
    /// one per recipient of a continuous row.
    fn build_units(
        &self,
        s: &mut Scratch,
        owner: u32,
        dist: Dist<'_>,
        counts: &mut Counts,
    ) -> Result<()> {
        s.unit_d.clear();
        s.unit_eps.clear();
        s.unit_count.clear();
        s.unit_bucket.clear();
        s.unit_node.clear();
        let floor = self.config.unreachable == Unreachable::Floor;
        let eps_floor = self.map.eps_min().unwrap_or(f64::NAN);
        let mut unreachable = 0u64;
        match dist {
            Dist::Levels(lv) => {
                let hist = lv.hist();
                unreachable = lv.unreachable();
                s.hop_unit.clear();
                s.hop_unit.resize(hist.len(), UNIT_NONE);
                for (k, &c) in hist.iter().enumerate().skip(1) {
                    if c > 0 {
                        s.hop_unit[k] = s.unit_d.len() as u32;
                        s.unit_d.push(k as f64);
                        let e = self.eps_at_hop(&mut s.eps_cache, k);
                        s.unit_eps.push(e);
                        s.unit_count.push(c);
                        s.unit_bucket.push(k);
                    }
                }
                if unreachable > 0 && floor {
                    s.unit_d.push(f64::INFINITY);
                    s.unit_eps.push(eps_floor);
                    s.unit_count.push(unreachable);
                    s.unit_bucket.push(0);
                }
            }
            Dist::Row(row) => {
                for (j, &d) in row.iter().enumerate() {
                    if j as u32 == owner {
                        continue;
                    }
                    if !d.is_finite() {
                        unreachable += 1;
                        if !floor {
                            continue;
                        }
                    }
                    let e = if d.is_finite() {
                        self.map.eps(d)
                    } else {
                        eps_floor
                    };
                    s.unit_d.push(d);
                    s.unit_eps.push(e);
                    s.unit_count.push(1);
                    s.unit_bucket.push(self.buckets.index(d));
                    s.unit_node.push(j as u32);
                }
            }
        }
        if !floor {
            counts.skipped_unreachable += unreachable;
        }
        // Every level of the run inside the range where its sums stay finite
        // (limits: "The range of privacy levels").
        let delta = self.model.sensitivity;
        for (k, &e) in s.unit_eps.iter().enumerate() {
            if !(limits::EPS_MIN..=limits::EPS_MAX).contains(&e)
                || !(limits::LEVEL_MIN..=limits::LEVEL_MAX).contains(&(e / delta))
            {
                let d = s.unit_d[k];
                let at = if d.is_finite() {
                    format!("distance {}", limits::fmt_num(d))
                } else {
                    "unreachable members (answered at `eps_min`)".to_string()
                };
                if let Some(err) = limits::level_error(&self.map.spec(), e, &at, delta) {
                    return Err(err);
                }
            }
        }
        Ok(())
    }

    /// Calls `f(node, unit)` for every answered recipient, in node order.
    /// Hop levels need their level row (asked for by `process_chunk`).
    fn each_recipient(
        &self,
        owner: u32,
        dist: Dist<'_>,
        hop_unit: &[u32],
        unit_d: &[f64],
        unit_node: &[u32],
        mut f: impl FnMut(u32, usize),
    ) {
        match dist {
            Dist::Levels(lv) => {
                let floor_unit = (self.config.unreachable == Unreachable::Floor
                    && unit_d.last().is_some_and(|d| !d.is_finite()))
                .then(|| unit_d.len() - 1);
                let row: LevelRow<'_> = lv
                    .row()
                    .expect("a level row is requested for per-recipient work");
                row.for_each(|v, l| {
                    if v == owner {
                        return;
                    }
                    match l {
                        Some(l) => f(v, hop_unit[l as usize] as usize),
                        None => {
                            if let Some(u) = floor_unit {
                                f(v, u)
                            }
                        }
                    }
                });
            }
            Dist::Row(_) => {
                for (k, &j) in unit_node.iter().enumerate() {
                    f(j, k);
                }
            }
        }
    }

    /// The independent baseline when no per-answer output is needed: the same
    /// draws in the same (node) order as the per-recipient route, summed per
    /// unit, so the aggregates are bitwise identical either way.
    fn independent_sums(&self, s: &mut Scratch, owner: u32, dist: Dist<'_>, rng: &mut PrivRng) {
        let units = s.unit_eps.len();
        let n = self.model.dim;
        s.unit_sq.clear();
        s.unit_sq.resize(units, 0.0);
        s.unit_scale.clear();
        s.unit_scale
            .extend(s.unit_eps.iter().map(|&e| 1.0 / self.model.level(e)));
        let l1 = self.model.norm == Norm::L1;
        let Scratch {
            unit_sq,
            unit_scale,
            unit_eps,
            hop_unit,
            unit_d,
            unit_node,
            v,
            ..
        } = s;
        let mut draw = |k: usize| -> f64 {
            if l1 {
                let mut sq = 0.0;
                for _ in 0..n {
                    let x = laplace(rng, unit_scale[k]);
                    sq += x * x;
                }
                sq
            } else {
                independent_noise(&self.model, unit_eps[k], rng, v);
                v.iter().map(|x| x * x).sum()
            }
        };
        self.each_recipient(owner, dist, hop_unit, unit_d, unit_node, |_, k| {
            unit_sq[k] += draw(k);
        });
        for k in 0..units {
            let b = s.unit_bucket[k];
            if b >= s.cells.len() {
                s.cells.resize(b + 1, OwnerCell::default());
            }
            let cell = &mut s.cells[b];
            if cell.count == 0 {
                s.touched.push(b);
            }
            cell.count += s.unit_count[k];
            cell.sum_sq += s.unit_sq[k];
        }
    }

    /// Lists every answered recipient as (node, unit index), in node order,
    /// once per owner.
    fn collect_recipients(&self, s: &mut Scratch, owner: u32, dist: Dist<'_>) {
        if s.recs_owner == owner {
            return;
        }
        s.recs.clear();
        s.recs_owner = owner;
        let Scratch {
            recs,
            hop_unit,
            unit_d,
            unit_node,
            ..
        } = s;
        self.each_recipient(owner, dist, hop_unit, unit_d, unit_node, |j, k| {
            recs.push((j, k as u32))
        });
    }

    fn sigma(&self, cache: &mut Vec<(f64, f64)>, eps: f64) -> Result<f64> {
        if let Some(&(_, sg)) = cache.iter().find(|(e, _)| *e == eps) {
            return Ok(sg);
        }
        let sg = self.model.gaussian_sigma(eps)?;
        if cache.len() < 64 {
            cache.push((eps, sg));
        }
        Ok(sg)
    }

    /// Probability that a `bit` answer equals the owner's bits `u` at level
    /// `eps` (README "Correct bits"): per coordinate 1 − ½·e^{−ε/(2Δ)} for
    /// Laplace noise of scale Δ/ε (1-D, or ℓ1 whose coordinates are
    /// independent), Φ(1/(2σ)) for Gaussian noise; the product over the
    /// coordinates. NaN where there is no closed form (ℓ2 noise in n ≥ 2, a
    /// value off {0, 1}, post-processing other than `bit`).
    fn correct_prob(&self, mech: Mechanism, eps: f64, sigma: f64, u: &[f64]) -> f64 {
        if self.post != Post::Bit || u.iter().any(|&x| x != 0.0 && x != 1.0) {
            return f64::NAN;
        }
        let n = self.model.dim as i32;
        let q = match mech {
            Mechanism::Gaussian => crate::process::calibration::normal_cdf(0.5 / sigma),
            _ if n == 1 || self.model.norm == Norm::L1 => {
                1.0 - 0.5 * (-0.5 * self.model.level(eps)).exp()
            }
            _ => return f64::NAN,
        };
        q.powi(n)
    }

    fn process_owner(
        &self,
        s: &mut Scratch,
        wants: Wants,
        pos: usize,
        owner: u32,
        dist: Dist<'_>,
        out: &mut ChunkOut,
    ) -> Result<()> {
        self.values.value(owner, &mut s.u);
        s.recs_owner = u32::MAX;
        self.build_units(s, owner, dist, &mut out.counts)?;
        let label = self.graph.ids().label(owner).to_string();
        let recipients: u64 = s.unit_count.iter().sum();
        if recipients == 0 {
            out.counts.owners_without_recipients += 1;
            if wants.owners {
                for r in self.replicates.clone() {
                    out.owners
                        .push_row(&OwnerRow {
                            owner: label.clone(),
                            replicate: r,
                            recipients: 0,
                            distance_min: None,
                            distance_max: None,
                            eps_lo: None,
                            eps_hi: None,
                            jumps: 0,
                            jumps_expected: 0.0,
                        })
                        .map_err(row_error)?;
                }
            }
            return Ok(());
        }
        for r in self.replicates.clone() {
            self.process_replicate(s, wants, pos, owner, &label, r, recipients, dist, out)?;
        }
        Ok(())
    }

    /// One replicate of one owner: every mechanism, rows and cells.
    #[allow(clippy::too_many_arguments)]
    fn process_replicate(
        &self,
        s: &mut Scratch,
        wants: Wants,
        pos: usize,
        owner: u32,
        label: &str,
        rep: u32,
        recipients: u64,
        dist: Dist<'_>,
        out: &mut ChunkOut,
    ) -> Result<()> {
        let n = self.model.dim;
        let seed = self.config.seed;
        let eps_lo = s.unit_eps.iter().copied().fold(f64::INFINITY, f64::min);
        let eps_hi = s.unit_eps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let units = s.unit_eps.len();
        s.unit_noise.resize(units * n, 0.0);
        let want_responses = wants.responses;
        let want_ego = wants.ego && self.ego.binary_search(&pos).is_ok();
        let bits = self.post == Post::Bit;
        let mut owner_jumps = 0u64;
        let mut owner_expected = 0.0;
        for (mi, &mech) in self.mechanisms.iter().enumerate() {
            // (Both cleared: a worker whose last owner failed half-way is
            // reused by the next chunk.)
            s.cells.clear();
            s.touched.clear();
            let first = mi == 0;
            let record_ego = want_ego && first;
            match mech {
                Mechanism::Correlated | Mechanism::Gaussian => {
                    s.vars.clear();
                    if mech == Mechanism::Correlated {
                        self.check_path_memory(eps_lo, eps_hi, wants.jumps)?;
                        let mut rng = rng_for(seed, owner as u64, rep as u64, Purpose::Path);
                        sample_owner_path(&self.model, eps_lo, eps_hi, &mut rng, &mut s.path)?;
                        for k in 0..units {
                            let v = s.path.value_at(self.model.level(s.unit_eps[k]));
                            s.unit_noise[k * n..(k + 1) * n].copy_from_slice(v);
                        }
                        owner_jumps = s.path.num_jumps() as u64;
                        owner_expected = self.model.norm.jump_rate(n) * (eps_hi.ln() - eps_lo.ln());
                        if wants.jumps || (wants.paths && pos < self.config.path_owners) {
                            self.record_path(s, wants, pos, label, rep, out)?;
                        }
                    } else {
                        for k in 0..units {
                            let sg = self.sigma(&mut s.sigma_cache, s.unit_eps[k])?;
                            s.vars.push(sg * sg);
                        }
                        let mut rng = rng_for(seed, owner as u64, rep as u64, Purpose::Gaussian);
                        brownian_at(n, &s.vars, &mut rng, &mut s.order, &mut s.unit_noise);
                        if wants.paths && pos < self.config.path_owners {
                            self.record_brownian(s, label, rep, out)?;
                        }
                    }
                    for k in 0..units {
                        let c = s.unit_count[k];
                        let e = s.unit_eps[k];
                        let v = &s.unit_noise[k * n..(k + 1) * n];
                        let theory = if mech == Mechanism::Gaussian {
                            n as f64 * s.vars[k]
                        } else {
                            self.model.laplace_mse(e)
                        };
                        let sigma = s.vars.get(k).map_or(f64::NAN, |v| v.sqrt());
                        let pc = if bits {
                            self.correct_prob(mech, e, sigma, &s.u)
                        } else {
                            0.0
                        };
                        let b = s.unit_bucket[k];
                        add_cell(
                            &mut s.cells,
                            &mut s.touched,
                            b,
                            c,
                            e,
                            v,
                            theory,
                            &s.u,
                            &self.post,
                            &mut s.y,
                        );
                        if bits {
                            add_correct_theory(&mut s.cells[b], c, pc);
                        }
                    }
                    if want_responses || record_ego {
                        // The per-level answer table: u, raw, post(raw) per unit.
                        s.unit_vals.clear();
                        for k in 0..units {
                            fill_answer(
                                &s.u,
                                &s.unit_noise[k * n..(k + 1) * n],
                                &self.post,
                                &mut s.vals,
                            );
                            s.unit_vals.extend_from_slice(&s.vals);
                        }
                        self.collect_recipients(s, owner, dist);
                        for &(j, k) in &s.recs {
                            let k = k as usize;
                            let vals = &s.unit_vals[k * 3 * n..(k + 1) * 3 * n];
                            let v = &s.unit_noise[k * n..(k + 1) * n];
                            let (d, e) = (s.unit_d[k], s.unit_eps[k]);
                            if record_ego {
                                ego_row(&mut out.ego, self, label, rep, j, d, e, v, vals)?;
                            }
                            if want_responses {
                                response_row(
                                    &mut out.responses,
                                    self,
                                    label,
                                    rep,
                                    j,
                                    d,
                                    e,
                                    mech,
                                    vals,
                                    &mut s.label,
                                )?;
                            }
                        }
                    }
                }
                Mechanism::Independent => {
                    let mut rng = rng_for(seed, owner as u64, rep as u64, Purpose::Independent);
                    if !want_responses && !record_ego && self.post.is_none() {
                        self.independent_sums(s, owner, dist, &mut rng);
                    } else {
                        self.collect_recipients(s, owner, dist);
                        for &(j, k) in &s.recs {
                            let k = k as usize;
                            let e = s.unit_eps[k];
                            independent_noise(&self.model, e, &mut rng, &mut s.v);
                            let b = s.unit_bucket[k];
                            // ε and theory are added per unit below, exactly as for
                            // the other mechanisms, so the columns agree bitwise.
                            add_cell(
                                &mut s.cells,
                                &mut s.touched,
                                b,
                                1,
                                0.0,
                                &s.v,
                                0.0,
                                &s.u,
                                &self.post,
                                &mut s.y,
                            );
                            if record_ego || want_responses {
                                fill_answer(&s.u, &s.v, &self.post, &mut s.vals);
                                let d = s.unit_d[k];
                                if record_ego {
                                    ego_row(
                                        &mut out.ego,
                                        self,
                                        label,
                                        rep,
                                        j,
                                        d,
                                        e,
                                        &s.v,
                                        &s.vals,
                                    )?;
                                }
                                if want_responses {
                                    response_row(
                                        &mut out.responses,
                                        self,
                                        label,
                                        rep,
                                        j,
                                        d,
                                        e,
                                        mech,
                                        &s.vals,
                                        &mut s.label,
                                    )?;
                                }
                            }
                        }
                    }
                    for k in 0..units {
                        let c = s.unit_count[k] as f64;
                        let cell = &mut s.cells[s.unit_bucket[k]];
                        cell.sum_eps += c * s.unit_eps[k];
                        cell.sum_theory += c * self.model.laplace_mse(s.unit_eps[k]);
                        if bits {
                            let pc = self.correct_prob(mech, s.unit_eps[k], f64::NAN, &s.u);
                            add_correct_theory(cell, s.unit_count[k], pc);
                        }
                    }
                }
            }
            // Fold this owner's (and replicate's) cells into the chunk table.
            for &b in &s.touched {
                s.cells[b].fold_into(out.tables[mi].at(b));
                s.cells[b] = OwnerCell::default();
            }
            s.touched.clear();
            out.counts.responses += recipients;
        }
        out.counts.jumps += owner_jumps;
        out.counts.jumps_expected += owner_expected;
        if !wants.owners {
            return Ok(());
        }
        let (dmin, dmax) = s
            .unit_d
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &d| {
                (a.min(d), b.max(d))
            });
        out.owners
            .push_row(&OwnerRow {
                owner: label.to_string(),
                replicate: rep,
                recipients,
                distance_min: Some(dmin),
                distance_max: Some(dmax),
                eps_lo: Some(eps_lo),
                eps_hi: Some(eps_hi),
                jumps: owner_jumps,
                jumps_expected: owner_expected,
            })
            .map_err(row_error)
    }
}

/// Adds `count` answers' probability `p` of a correct bit (NaN: none known).
#[inline]
fn add_correct_theory(cell: &mut OwnerCell, count: u64, p: f64) {
    if p.is_nan() {
        cell.correct_undefined += count;
    } else {
        cell.correct_theory += count as f64 * p;
    }
}

/// `vals` = u, raw = u + v, post(raw).
#[inline]
fn fill_answer(u: &[f64], v: &[f64], post: &Post, vals: &mut Vec<f64>) {
    let n = u.len();
    vals.clear();
    vals.extend_from_slice(u);
    vals.extend(u.iter().zip(v).map(|(a, b)| a + b));
    vals.extend_from_within(n..2 * n);
    post.apply(&mut vals[2 * n..]);
}

/// Adds `count` identical answers with noise `v` at level `eps` to bucket `b`
/// of the owner's cells.
#[allow(clippy::too_many_arguments)]
#[inline]
fn add_cell(
    cells: &mut Vec<OwnerCell>,
    touched: &mut Vec<usize>,
    b: usize,
    count: u64,
    eps: f64,
    v: &[f64],
    theory: f64,
    u: &[f64],
    post: &Post,
    y: &mut [f64],
) {
    if b >= cells.len() {
        cells.resize(b + 1, OwnerCell::default());
    }
    let cell = &mut cells[b];
    if cell.count == 0 {
        touched.push(b);
    }
    let c = count as f64;
    let sq: f64 = v.iter().map(|x| x * x).sum();
    cell.count += count;
    cell.sum_eps += c * eps;
    cell.sum_sq += c * sq;
    cell.sum_theory += c * theory;
    if !post.is_none() {
        for ((yi, ui), vi) in y.iter_mut().zip(u).zip(v) {
            *yi = ui + vi;
        }
        post.apply(y);
        let psq: f64 = y.iter().zip(u).map(|(a, b)| (a - b) * (a - b)).sum();
        if y == u {
            cell.post_exact += count;
        }
        cell.post_sq += c * psq;
    }
}

#[allow(clippy::too_many_arguments)]
fn ego_row(
    out: &mut Rows,
    plan: &Plan<'_>,
    owner: &str,
    replicate: u32,
    j: u32,
    d: f64,
    eps: f64,
    v: &[f64],
    vals: &[f64],
) -> Result<()> {
    let n = v.len();
    let correct = (plan.post == Post::Bit).then(|| u8::from(vals[2 * n..] == vals[..n]));
    out.push_row(&EgoRow {
        owner: Some(owner.to_string()),
        replicate,
        recipient: plan.graph.ids().label(j).to_string(),
        distance: d,
        eps,
        error_norm: plan.model.norm.norm_of(v),
        correct,
        values: vals.to_vec(),
    })
    .map_err(row_error)
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn response_row(
    out: &mut Rows,
    plan: &Plan<'_>,
    owner: &str,
    replicate: u32,
    j: u32,
    d: f64,
    eps: f64,
    mech: Mechanism,
    vals: &[f64],
    label: &mut String,
) -> Result<()> {
    label.clear();
    let _ = write!(label, "{}", plan.graph.ids().label(j));
    out.push_row(&ResponseRow {
        owner: Cow::Borrowed(owner),
        replicate,
        recipient: Cow::Borrowed(label),
        distance: d,
        eps,
        mechanism: Cow::Borrowed(mech.name()),
        values: Cow::Borrowed(vals),
    })
    .map_err(row_error)
}

/// Writes the header of a file of `T` rows (vectors of `n` columns).
fn write_header<T: CsvRow>(
    sink: &mut Option<&mut dyn Write>,
    n: usize,
    leave_out: &[&str],
    path: std::path::PathBuf,
) -> Result<()> {
    let Some(w) = sink.as_mut() else {
        return Ok(());
    };
    let text = table::Writer::with_header(Vec::new(), table::columns::<T>(n, leave_out))
        .and_then(|h| h.into_inner())
        .map_err(row_error)?;
    w.write_all(&text).map_err(|e| Error::io(path, e))
}

/// The path a sink's I/O errors name.
fn sink_path(dir: Option<&std::path::Path>, name: &str) -> std::path::PathBuf {
    dir.map_or_else(|| name.into(), |d| d.join(name))
}

/// Appends a chunk's rows to their file, if it is written.
fn write_rows(
    sink: &mut Option<&mut dyn Write>,
    rows: Rows,
    dir: Option<&std::path::Path>,
    name: &str,
) -> Result<()> {
    if let Some(w) = sink.as_mut()
        && !rows.is_empty()
    {
        w.write_all(rows.as_str().as_bytes())
            .map_err(|e| Error::io(sink_path(dir, name), e))?;
    }
    Ok(())
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

impl Plan<'_> {
    /// Writes the owner's path (paths.csv, first owners) and its jumps (jumps.csv).
    fn record_path(
        &self,
        s: &Scratch,
        wants: Wants,
        pos: usize,
        label: &str,
        rep: u32,
        out: &mut ChunkOut,
    ) -> Result<()> {
        let delta = self.model.sensitivity;
        for j in s.path.jumps().filter(|_| wants.jumps) {
            let eps = j.eps * delta;
            out.jumps
                .push_row(&JumpRow {
                    owner: label.to_string(),
                    replicate: rep,
                    eps,
                    distance: self.map.distance_at(eps),
                    jump_norm: j.size(self.model.norm),
                })
                .map_err(row_error)?;
        }
        if wants.paths && pos < self.config.path_owners {
            for (e, v) in s.path.breakpoints() {
                out.paths
                    .push_row(&PathRow {
                        owner: label.to_string(),
                        replicate: Some(rep),
                        eps: e * delta,
                        v: v.to_vec(),
                    })
                    .map_err(row_error)?;
            }
        }
        Ok(())
    }
}

impl Plan<'_> {
    /// paths.csv rows of a Gaussian owner: the Brownian path is continuous, so
    /// what exists of it are its values at the levels answered, ascending in ε.
    fn record_brownian(
        &self,
        s: &Scratch,
        label: &str,
        rep: u32,
        out: &mut ChunkOut,
    ) -> Result<()> {
        let n = self.model.dim;
        let mut order: Vec<usize> = (0..s.unit_eps.len()).collect();
        order.sort_by(|&a, &b| s.unit_eps[a].total_cmp(&s.unit_eps[b]));
        for k in order {
            out.paths
                .push_row(&PathRow {
                    owner: label.to_string(),
                    replicate: Some(rep),
                    eps: s.unit_eps[k],
                    v: s.unit_noise[k * n..(k + 1) * n].to_vec(),
                })
                .map_err(row_error)?;
        }
        Ok(())
    }
}

/// Runs a whole simulation from a configuration without writing files: loads
/// nothing (the caller passes the graph and prepared distances).
pub fn simulate(plan: &Plan<'_>) -> Result<SimResult> {
    plan.run(&mut Sinks::default(), &Control::default())
}

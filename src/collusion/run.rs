//! The collusion trial runner (issue 5, memo §5): for every owner and every
//! `--coalition`, `T` independent draws of each mechanism, pooled by the
//! estimators, audited, and attacked.
//!
//! Per owner (owners in parallel, results merged in owner order, so nothing
//! depends on the thread count):
//!
//! 1. the owner's distance row is computed once (O(N) per worker, never N×N);
//! 2. each coalition is selected ([`Coalition::select`]); member j answers at
//!    ε_j = map.eps(d_j) (sybils too, at their declared distance), i.e. at
//!    process level λ_j = ε_j/Δ. Members are ordered by ascending ε (ties by
//!    node index, sybils last) so members with equal ε form contiguous *units*;
//! 3. per mechanism, `T` views under u and `T` views under u' = u + Δ·e₁:
//!    * correlated: a fresh lazy path over [min ε_j, max ε_j] per trial, every
//!      member of a unit gets u + V_{λ_unit} (equal levels share one value);
//!    * independent: fresh noise per member;
//!    * gaussian: a Brownian path by variance at σ(ε_unit, δ)² per trial;
//! 4. views under u feed an [`EstimatorPanel`] (gain vs the best member) and the
//!    exact privacy loss (correlated: the ε* formula *and* the full-chain
//!    likelihood when n = 1 or ℓ1, their largest disagreement is recorded);
//!    Pitman estimates (coordinate 1) under u and u' give the
//!    distinguishing-attack lower bound on ε.
//!
//! Randomness: a coalition's trial t draws from
//! `rng_for_stream(seed, owner, t, purpose, key)` with `key` the coalition's
//! [`Coalition::stream_key`] (a stable hash of its canonical spec) and purpose
//! [`Purpose::Path`] (correlated), [`Purpose::Independent`] or
//! [`Purpose::Gaussian`]; t ∈ 1..=T under u and T+1..=2T under u' (trial 0 is
//! `simulate`'s draw). So a coalition's numbers depend on its spec, the owner
//! and the seed — not on its position among the `coalitions` of a run, nor on
//! which other coalitions are evaluated beside it. Two distinct specs of one
//! run whose keys collide (probability ≈ 2⁻⁶⁴ per pair) are refused, and so is
//! a spec listed twice.
//!
//! Memory per worker: O(N) for the distance row plus O(m·n) for one view.

use crate::exec::{CHUNK, ChunkJob, Executor};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;

use super::accounting::{Accounting, gaussian_sigma as smallest_sigma};
use super::audit::{
    DistinguishingBound, LossSummary, correlated_loss, correlated_loss_full_chain,
    distinguishing_lower_bound, gaussian_loss, independent_loss,
};
use super::coalition::{Coalition, Member};
use super::estimators::{Estimator, EstimatorPanel, EstimatorScratch, MemberNoise, View, estimate};
use super::stats::GainSummary;
use crate::control::Control;
use crate::distance::Workspace;
use crate::error::{Error, Result};
use crate::limits;
use crate::mechanism::{Mechanism, brownian_at, independent_noise, sample_owner_path};
use crate::process::{NoisePath, Norm};
use crate::rng::{Purpose, rng_for_stream};
use crate::sim::{Buckets, Plan};

#[path = "discrete.rs"]
mod discrete;

/// Largest `--trials` (views under u and u' use trial indices 1..=2T).
pub const MAX_TRIALS: usize = (u32::MAX / 2) as usize;

/// Relative slack of the "|L| ≤ bound on every view" check (λ·Δ and ε differ by
/// rounding).
pub const BOUND_SLACK: f64 = 1e-12;

/// What `collude` evaluates, besides the simulation plan.
#[derive(Clone, Debug)]
pub struct CollusionOptions {
    /// Coalitions, in output order.
    pub coalitions: Vec<Coalition>,
    /// Estimators, in output order.
    pub estimators: Vec<Estimator>,
    /// Trials per owner, coalition and mechanism (and as many again under u').
    pub trials: usize,
    /// δ' of the advanced-composition bound of the independent mechanism.
    pub composition_delta: f64,
}

impl CollusionOptions {
    /// Checks the counts and δ'.
    pub fn validate(&self) -> Result<()> {
        if self.coalitions.is_empty() {
            return Err(Error::param(
                "coalition",
                "(none)",
                "at least one coalition spec",
            ));
        }
        if self.estimators.is_empty() {
            return Err(Error::param(
                "estimators",
                "(none)",
                "a comma-separated list of best, mean, ivw, median, mle, pitman",
            ));
        }
        if self.trials == 0 || self.trials > MAX_TRIALS {
            return Err(Error::param(
                "trials",
                self.trials,
                format!("a whole number in 1..={MAX_TRIALS}"),
            ));
        }
        if !(self.composition_delta > 0.0 && self.composition_delta < 1.0) {
            return Err(Error::param(
                "composition_delta",
                self.composition_delta,
                "a number in (0, 1)",
            ));
        }
        for (i, a) in self.coalitions.iter().enumerate() {
            for b in &self.coalitions[..i] {
                if a.to_string() == b.to_string() {
                    return Err(Error::param(
                        "coalition",
                        a.label(),
                        format!("each coalition once ('{a}' is listed twice)"),
                    ));
                }
                if a.stream_key() == b.stream_key() {
                    return Err(Error::param(
                        "coalition",
                        a.label(),
                        format!(
                            "specs whose random-stream keys differ ('{a}' and '{b}' hash to the same 64-bit key {:016x}; change either spec)",
                            a.stream_key()
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Privacy-loss audit of one coalition under one mechanism.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AuditResult {
    /// The accounted ε of the coalition's view: max ε_j (correlated), Σ ε_j
    /// (independent, basic composition — holds on every view), the ε at which
    /// the smallest σ was calibrated (gaussian, an (ε, δ) guarantee).
    pub eps_bound: f64,
    /// Independent mechanism: the advanced-composition ε at `--composition-delta`.
    pub eps_advanced: Option<f64>,
    /// Gaussian mechanism: the smallest σ of the coalition.
    pub sigma_min: Option<f64>,
    /// The exact loss ln p(view|u)/p(view|u') over the `T` views under u.
    pub loss: LossSummary,
    /// Views whose loss exceeds `eps_bound`: |L| > eps_bound·(1 + 1e-12) for the
    /// Laplace mechanisms (must be 0), L > eps_bound for the Gaussian one
    /// (allowed with small probability).
    pub bound_exceeded: u64,
    /// Correlated mechanism, n = 1 or ℓ1: largest |ε*-formula − full-chain| loss
    /// over the views (memo §5; must be ≤ 1e-9).
    pub chain_disagreement: Option<f64>,
    /// Threshold attack on the Pitman estimate (coordinate 1), u vs u'.
    pub distinguishing: DistinguishingBound,
}

/// One mechanism's results for one owner and coalition.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MechanismResult {
    /// The mechanism.
    pub mechanism: Mechanism,
    /// Gain summaries per estimator, in `--estimators` order (NaN for an empty
    /// coalition).
    pub estimators: Vec<(Estimator, GainSummary)>,
    /// The audit (`None` for an empty coalition).
    pub audit: Option<AuditResult>,
}

/// One owner × coalition.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CoalitionResult {
    /// Owner node index.
    pub owner: u32,
    /// Index of the coalition in [`CollusionOptions::coalitions`].
    pub coalition: usize,
    /// The spec text.
    pub label: String,
    /// Members (sybil accounts included).
    pub size: usize,
    /// Members without a node (sybil accounts).
    pub sybils: usize,
    /// Smallest and largest member distance (NaN when empty).
    pub distance_range: (f64, f64),
    /// ε accounting of the members' levels.
    pub accounting: Accounting,
    /// Σ ε_j²: the independent view's information scale (1-D ℓ1: the
    /// inverse-variance mean has MSE 2Δ²/Σε_j²).
    pub eps_sq_sum: f64,
    /// One entry per plan mechanism, in plan order.
    pub mechanisms: Vec<MechanismResult>,
}

/// CPU seconds per phase, summed over workers (they exceed wall time with
/// several threads). Not deterministic; reported in `timings.json`.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, serde::Deserialize)]
pub struct PhaseTimes {
    /// Distance rows and coalition selection.
    pub select_s: f64,
    /// Drawing the views (paths, fresh noise, Brownian paths) under u.
    pub sample_s: f64,
    /// The estimator panel on views under u (sorting, medians, Pitman, …).
    pub estimate_s: f64,
    /// Exact privacy losses (both correlated computations) under u.
    pub audit_s: f64,
    /// Views under u' and their Pitman estimates (the distinguishing attack).
    pub attack_s: f64,
}

impl PhaseTimes {
    fn add(&mut self, o: &PhaseTimes) {
        self.select_s += o.select_s;
        self.sample_s += o.sample_s;
        self.estimate_s += o.estimate_s;
        self.audit_s += o.audit_s;
        self.attack_s += o.attack_s;
    }
}

/// Everything a run produces.
#[derive(Clone, Debug)]
pub struct CollusionResult {
    /// Owner-major, then coalition order.
    pub results: Vec<CoalitionResult>,
    /// Where the time went.
    pub phases: PhaseTimes,
}

/// Per-worker buffers, reused across owners, coalitions and trials.
struct Scratch {
    ws: Workspace,
    row: Vec<f64>,
    u: Vec<f64>,
    u1: Vec<f64>,
    members: Vec<Member>,
    eps: Vec<f64>,
    rates: Vec<f64>,
    sigmas: Vec<f64>,
    unit_start: Vec<usize>,
    unit_eps: Vec<f64>,
    unit_vars: Vec<f64>,
    unit_noise: Vec<f64>,
    answers: Vec<f64>,
    path: NoisePath,
    order32: Vec<u32>,
    order: Vec<usize>,
    est: EstimatorScratch,
    one: Vec<f64>,
    col: Vec<f64>,
    losses: Vec<f64>,
    est_u: Vec<f64>,
    est_u1: Vec<f64>,
    sigma_cache: Vec<(f64, f64)>,
    times: PhaseTimes,
    disc: discrete::DiscreteScratch,
}

/// Which noise a trial draws.
#[derive(Clone, Copy)]
enum Draw {
    Correlated,
    Independent,
    Gaussian,
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Runs every owner × coalition × mechanism of `plan` (owners in parallel on the
/// current rayon pool). `control` is checked before each owner and told of
/// the owners done after it.
pub fn collude(
    plan: &Plan<'_>,
    opts: &CollusionOptions,
    control: &Control,
) -> Result<CollusionResult> {
    opts.validate()?;
    for spec in &opts.coalitions {
        spec.check(plan.graph().ids())?;
    }
    check_memory(plan, opts)?;
    let done = AtomicU64::new(0);
    let per_owner: Vec<Result<(Vec<CoalitionResult>, PhaseTimes)>> = plan
        .owners()
        .par_iter()
        .map_init(
            || new_scratch(plan),
            |s, &owner| {
                control.check()?;
                s.times = PhaseTimes::default();
                let r = run_owner(plan, opts, s, owner).map(|v| (v, s.times));
                let total = plan.owners().len() as u64;
                control.report("owners", done.fetch_add(1, Ordering::Relaxed) + 1, total);
                r
            },
        )
        .collect();
    let mut results = Vec::with_capacity(plan.owners().len() * opts.coalitions.len());
    let mut phases = PhaseTimes::default();
    for r in per_owner {
        let (v, t) = r?;
        results.extend(v);
        phases.add(&t);
    }
    Ok(CollusionResult { results, phases })
}

/// [`collude`] on an executor: locally, or over a cluster where the owners
/// are cut into chunks of [`CHUNK`], chunk `i` computed
/// by process `i mod P` and its results (exact encoding) merged by process 0
/// in chunk order — the owner order of a local run, so the same results.
/// `Some` where the executor merges, `None` on the other processes.
pub fn collude_on(
    plan: &Plan<'_>,
    opts: &CollusionOptions,
    control: &Control,
    exec: &impl Executor,
) -> Result<Option<CollusionResult>> {
    if exec.peers() == 1 {
        return collude(plan, opts, control).map(Some);
    }
    opts.validate()?;
    for spec in &opts.coalitions {
        spec.check(plan.graph().ids())?;
    }
    check_memory(plan, opts)?;
    let job = OwnerChunks {
        plan,
        opts,
        control,
    };
    let mut results = Vec::with_capacity(plan.owners().len() * opts.coalitions.len());
    let mut phases = PhaseTimes::default();
    exec.execute(&job, control, &mut |_, part: OwnerChunk| {
        results.extend(part.results);
        phases.add(&part.times);
        Ok(())
    })?;
    Ok(exec
        .merges_here()
        .then_some(CollusionResult { results, phases }))
}

/// One chunk's results (its owners in order) and phase times.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct OwnerChunk {
    /// Owner-major, then coalition order.
    pub results: Vec<CoalitionResult>,
    /// CPU seconds per phase.
    pub times: PhaseTimes,
}

/// The collusion run as a [`ChunkJob`].
struct OwnerChunks<'p, 'a> {
    plan: &'p Plan<'a>,
    opts: &'p CollusionOptions,
    control: &'p Control,
}

impl ChunkJob for OwnerChunks<'_, '_> {
    type Worker = Scratch;
    type Partial = OwnerChunk;
    fn chunks(&self) -> usize {
        self.plan.owners().len().div_ceil(CHUNK)
    }
    fn chunk_owners(&self, index: usize) -> u64 {
        self.owners_of(index).len() as u64
    }
    fn new_worker(&self) -> Scratch {
        new_scratch(self.plan)
    }
    fn run_chunk(&self, s: &mut Scratch, index: usize) -> Result<OwnerChunk> {
        let mut part = OwnerChunk {
            results: Vec::new(),
            times: PhaseTimes::default(),
        };
        for &owner in self.owners_of(index) {
            self.control.check()?;
            s.times = PhaseTimes::default();
            part.results
                .extend(run_owner(self.plan, self.opts, s, owner)?);
            part.times.add(&s.times);
        }
        Ok(part)
    }
}

impl OwnerChunks<'_, '_> {
    fn owners_of(&self, index: usize) -> &[u32] {
        let o = self.plan.owners();
        let c = CHUNK;
        &o[(index * c).min(o.len())..((index + 1) * c).min(o.len())]
    }
}

/// Refuses coalition sizes and trial counts whose per-worker buffers need
/// more than the memory budget, before any member is selected: the sizes a
/// spec asks for (a sybil coalition's `m`, random's and nearest's `m` up to
/// the graph); the coalitions that the distances decide (far, band, file)
/// are checked per owner once selected ([`check_selected`]).
fn check_memory(plan: &Plan<'_>, opts: &CollusionOptions) -> Result<()> {
    let t = limits::pool_threads();
    let others = plan.graph().n().saturating_sub(1);
    let dim = plan.model().dim;
    let largest = opts
        .coalitions
        .iter()
        .filter_map(|c| Some((c, c.requested_size(others)?)))
        .max_by_key(|(_, m)| *m);
    let members = largest.map_or(0, |(_, m)| m);
    let coalition = limits::coalition_bytes(members, dim, t);
    let trials = limits::trials_bytes(opts.trials, t);
    let need = coalition.saturating_add(trials);
    match largest {
        Some((c, _)) if coalition >= trials => limits::check_memory("coalition", c, need),
        _ => limits::check_memory("trials", opts.trials, need),
    }
}

/// The check of [`check_memory`] for a coalition of `size` members as
/// selected for one owner.
fn check_selected(
    plan: &Plan<'_>,
    opts: &CollusionOptions,
    spec: &Coalition,
    size: usize,
) -> Result<()> {
    let t = limits::pool_threads();
    let need = limits::coalition_bytes(size, plan.model().dim, t)
        .saturating_add(limits::trials_bytes(opts.trials, t));
    if need <= plan.budget().bytes {
        return Ok(());
    }
    plan.budget()
        .check("coalition", format!("{spec} ({size} members)"), need)
}

fn new_scratch(plan: &Plan<'_>) -> Scratch {
    let n = plan.model().dim;
    Scratch {
        ws: plan.distances().workspace(),
        row: Vec::new(),
        u: vec![0.0; n],
        u1: vec![0.0; n],
        members: Vec::new(),
        eps: Vec::new(),
        rates: Vec::new(),
        sigmas: Vec::new(),
        unit_start: Vec::new(),
        unit_eps: Vec::new(),
        unit_vars: Vec::new(),
        unit_noise: Vec::new(),
        answers: Vec::new(),
        path: NoisePath::empty(n),
        order32: Vec::new(),
        order: Vec::new(),
        est: EstimatorScratch::new(),
        one: vec![0.0; n],
        col: Vec::new(),
        losses: Vec::new(),
        est_u: Vec::new(),
        est_u1: Vec::new(),
        sigma_cache: Vec::new(),
        times: PhaseTimes::default(),
        disc: Default::default(),
    }
}

fn run_owner(
    plan: &Plan<'_>,
    opts: &CollusionOptions,
    s: &mut Scratch,
    owner: u32,
) -> Result<Vec<CoalitionResult>> {
    let t0 = Instant::now();
    plan.distances().from_owner(owner, &mut s.ws, &mut s.row);
    plan.values().value(owner, &mut s.u);
    s.u1.copy_from_slice(&s.u);
    s.u1[0] += plan.model().sensitivity;
    let band_width = match plan.buckets() {
        Buckets::Integer => None,
        Buckets::Bins { width, .. } => Some(width),
    };
    s.times.select_s += secs(t0.elapsed());
    let mut out = Vec::with_capacity(opts.coalitions.len());
    for (c, spec) in opts.coalitions.iter().enumerate() {
        let t = Instant::now();
        let coalition = spec.select(
            owner,
            &s.row,
            band_width,
            plan.graph().ids(),
            plan.config().seed,
        )?;
        check_selected(plan, opts, spec, coalition.members.len())?;
        s.members.clear();
        s.members.extend_from_slice(&coalition.members);
        prepare_members(plan, s)?;
        let accounting = Accounting::new(&s.eps, opts.composition_delta)?;
        s.times.select_s += secs(t.elapsed());
        let size = s.members.len();
        let distance_range = if size == 0 {
            (f64::NAN, f64::NAN)
        } else {
            s.members
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), m| {
                    (lo.min(m.distance), hi.max(m.distance))
                })
        };
        let mut mechanisms = Vec::with_capacity(plan.mechanisms().len());
        for &mech in plan.mechanisms() {
            mechanisms.push(if size == 0 {
                MechanismResult {
                    mechanism: mech,
                    estimators: EstimatorPanel::new(&opts.estimators).summaries(),
                    audit: None,
                }
            } else {
                run_mechanism(plan, opts, s, owner, spec.stream_key(), mech, &accounting)?
            });
        }
        out.push(CoalitionResult {
            owner,
            coalition: c,
            label: coalition.label,
            size,
            sybils: s.members.iter().filter(|m| m.node.is_none()).count(),
            distance_range,
            accounting,
            eps_sq_sum: s.eps.iter().map(|e| e * e).sum(),
            mechanisms,
        });
    }
    Ok(out)
}

/// Orders the members by ascending ε (stable: node order, sybils after nodes
/// at the same ε as selected), fills ε_j, λ_j and the units of equal ε.
fn prepare_members(plan: &Plan<'_>, s: &mut Scratch) -> Result<()> {
    s.eps.clear();
    let delta = plan.model().sensitivity;
    for m in &s.members {
        let e = plan.map().eps(m.distance);
        // Inside the range where the statistics stay finite (limits).
        if !limits::level_in_range(e, delta) {
            let at = format!("member distance {}", limits::fmt_num(m.distance));
            if let Some(err) = limits::level_error(&plan.map().spec(), e, &at, delta) {
                return Err(err);
            }
        }
        s.eps.push(e);
    }
    // Sort members and ε together (stable, by ε).
    s.order.clear();
    s.order.extend(0..s.members.len());
    let eps = &s.eps;
    s.order.sort_by(|&a, &b| eps[a].total_cmp(&eps[b]));
    let members: Vec<Member> = s.order.iter().map(|&k| s.members[k]).collect();
    let sorted_eps: Vec<f64> = s.order.iter().map(|&k| s.eps[k]).collect();
    s.members = members;
    s.eps = sorted_eps;
    s.rates.clear();
    s.rates.extend(s.eps.iter().map(|&e| plan.model().level(e)));
    s.unit_start.clear();
    s.unit_eps.clear();
    for (j, &e) in s.eps.iter().enumerate() {
        if s.unit_eps.last() != Some(&e) {
            s.unit_start.push(j);
            s.unit_eps.push(e);
        }
    }
    s.unit_start.push(s.eps.len());
    discrete::prepare(plan, s)
}

/// σ(ε, δ) per unit, cached per worker (bisection is not free).
fn unit_sigmas(plan: &Plan<'_>, s: &mut Scratch) -> Result<()> {
    s.unit_vars.clear();
    s.sigmas.clear();
    for k in 0..s.unit_eps.len() {
        let e = s.unit_eps[k];
        let sg = match s.sigma_cache.iter().find(|(x, _)| *x == e) {
            Some(&(_, sg)) => sg,
            None => {
                let sg = plan.model().gaussian_sigma(e)?;
                if s.sigma_cache.len() < 256 {
                    s.sigma_cache.push((e, sg));
                }
                sg
            }
        };
        s.unit_vars.push(sg * sg);
        let count = s.unit_start[k + 1] - s.unit_start[k];
        s.sigmas.extend(std::iter::repeat_n(sg, count));
    }
    Ok(())
}

/// Draws one view into `s.answers` (members × n) around `base` (u or u').
fn draw_view(
    plan: &Plan<'_>,
    s: &mut Scratch,
    draw: Draw,
    owner: u32,
    (trial, stream): (u64, u64),
    under_u1: bool,
) -> Result<()> {
    let n = plan.model().dim;
    let seed = plan.config().seed;
    let m = s.members.len();
    s.answers.resize(m * n, 0.0);
    let units = s.unit_eps.len();
    match draw {
        Draw::Correlated | Draw::Gaussian => {
            s.unit_noise.resize(units * n, 0.0);
            if let Draw::Correlated = draw {
                let mut rng = rng_for_stream(seed, u64::from(owner), trial, Purpose::Path, stream);
                let lo = s.unit_eps[0];
                let hi = s.unit_eps[units - 1];
                sample_owner_path(plan.model(), lo, hi, &mut rng, &mut s.path)?;
                for k in 0..units {
                    let v = s.path.value_at(plan.model().level(s.unit_eps[k]));
                    s.unit_noise[k * n..(k + 1) * n].copy_from_slice(v);
                }
            } else {
                let mut rng =
                    rng_for_stream(seed, u64::from(owner), trial, Purpose::Gaussian, stream);
                brownian_at(n, &s.unit_vars, &mut rng, &mut s.order32, &mut s.unit_noise);
            }
            let base = if under_u1 { &s.u1 } else { &s.u };
            for k in 0..units {
                let v = &s.unit_noise[k * n..(k + 1) * n];
                for j in s.unit_start[k]..s.unit_start[k + 1] {
                    let row = &mut s.answers[j * n..(j + 1) * n];
                    for i in 0..n {
                        row[i] = base[i] + v[i];
                    }
                }
            }
        }
        Draw::Independent => {
            let mut rng =
                rng_for_stream(seed, u64::from(owner), trial, Purpose::Independent, stream);
            let base = if under_u1 { &s.u1 } else { &s.u };
            for j in 0..m {
                let row = &mut s.answers[j * n..(j + 1) * n];
                independent_noise(plan.model(), s.eps[j], &mut rng, row);
                for i in 0..n {
                    row[i] += base[i];
                }
            }
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn run_mechanism(
    plan: &Plan<'_>,
    opts: &CollusionOptions,
    s: &mut Scratch,
    owner: u32,
    stream: u64,
    mech: Mechanism,
    acc: &Accounting,
) -> Result<MechanismResult> {
    if let Some(d) = plan.discrete() {
        return discrete::run_mechanism(plan, d, opts, s, owner, stream, mech, acc);
    }
    let n = plan.model().dim;
    let delta = plan.model().sensitivity;
    let norm = plan.model().norm;
    let draw = match mech {
        Mechanism::Correlated => Draw::Correlated,
        Mechanism::Independent => Draw::Independent,
        Mechanism::Gaussian => Draw::Gaussian,
    };
    let gaussian = mech == Mechanism::Gaussian;
    if gaussian {
        unit_sigmas(plan, s)?;
    }
    let (eps_bound, eps_advanced, sigma_min) = match mech {
        Mechanism::Correlated => (acc.eps_max, None, None),
        Mechanism::Independent => (acc.eps_sum, Some(acc.eps_advanced), None),
        Mechanism::Gaussian => (acc.eps_max, None, Some(smallest_sigma(&s.sigmas))),
    };
    if mech == Mechanism::Correlated {
        let units = s.unit_eps.len();
        plan.check_path_memory(s.unit_eps[0], s.unit_eps[units - 1], false)?;
    }
    let chain = mech == Mechanism::Correlated && (n == 1 || norm == Norm::L1);
    let mut panel = EstimatorPanel::new(&opts.estimators);
    let pitman_in_panel = opts.estimators.contains(&Estimator::Pitman);
    let trials = opts.trials as u64;
    let key = |t: u64| (t, stream);
    s.losses.clear();
    s.est_u.clear();
    s.est_u1.clear();
    let mut disagreement: f64 = 0.0;
    let mut exceeded = 0u64;
    let limit = eps_bound * (1.0 + BOUND_SLACK);
    for t in 1..=trials {
        let t0 = Instant::now();
        draw_view(plan, s, draw, owner, key(t), false)?;
        let t1 = Instant::now();
        let model = if gaussian {
            MemberNoise::Gaussian { sigmas: &s.sigmas }
        } else {
            MemberNoise::Laplace { rates: &s.rates }
        };
        let view = View::new(&s.answers, n, model)?;
        panel.push(&view, &s.u);
        let p = match panel
            .last_estimate(Estimator::Pitman)
            .filter(|_| pitman_in_panel)
        {
            Some(e) => e[0],
            None => {
                s.col.clear();
                s.col.extend(s.answers.iter().step_by(n));
                let col = View::new(&s.col, 1, model)?;
                estimate(Estimator::Pitman, &col, &mut s.est, &mut s.one[..1]);
                s.one[0]
            }
        };
        s.est_u.push(p);
        let t2 = Instant::now();
        let loss = match mech {
            Mechanism::Correlated => {
                let l = correlated_loss(&s.answers, n, &s.rates, &s.u, delta, norm);
                if chain {
                    let fc = correlated_loss_full_chain(
                        &s.answers,
                        n,
                        &s.rates,
                        s.u[0],
                        delta,
                        &mut s.order,
                    );
                    disagreement = disagreement.max((l - fc.loss).abs());
                }
                l
            }
            Mechanism::Independent => independent_loss(&s.answers, n, &s.rates, &s.u, delta, norm),
            Mechanism::Gaussian => gaussian_loss(&s.answers, n, &s.sigmas, &s.u, delta),
        };
        let over = if gaussian {
            loss > eps_bound
        } else {
            loss.abs() > limit
        };
        exceeded += u64::from(over);
        s.losses.push(loss);
        let t3 = Instant::now();
        s.times.sample_s += secs(t1 - t0);
        s.times.estimate_s += secs(t2 - t1);
        s.times.audit_s += secs(t3 - t2);
    }
    let ta = Instant::now();
    for t in trials + 1..=2 * trials {
        draw_view(plan, s, draw, owner, key(t), true)?;
        // The attack thresholds coordinate 1 only: estimate on that column.
        s.col.clear();
        s.col.extend(s.answers.iter().step_by(n));
        let model = if gaussian {
            MemberNoise::Gaussian { sigmas: &s.sigmas }
        } else {
            MemberNoise::Laplace { rates: &s.rates }
        };
        let view = View::new(&s.col, 1, model)?;
        estimate(Estimator::Pitman, &view, &mut s.est, &mut s.one[..1]);
        s.est_u1.push(s.one[0]);
    }
    s.times.attack_s += secs(ta.elapsed());
    let distinguishing = distinguishing_lower_bound(&s.est_u, &s.est_u1, s.u[0], delta);
    Ok(MechanismResult {
        mechanism: mech,
        estimators: panel.summaries(),
        audit: Some(AuditResult {
            eps_bound,
            eps_advanced,
            sigma_min,
            loss: LossSummary::from_samples(&mut s.losses),
            bound_exceeded: exceeded,
            chain_disagreement: chain.then_some(disagreement),
            distinguishing,
        }),
    })
}

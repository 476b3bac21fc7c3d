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
use std::time::{Duration, Instant};

use serde::Serialize;

use super::accounting::{Accounting, gaussian_sigma as smallest_sigma};
use super::audit::{DistinguishingBound, LossSummary, distinguishing_lower_bound};
use super::coalition::{Coalition, Member};
use super::estimators::{Estimator, EstimatorPanel, EstimatorScratch, MemberNoise, View, estimate};
use super::stats::GainSummary;
use crate::control::Control;
use crate::distance::Workspace;
use crate::error::{Error, Result};
use crate::limits;
use crate::mechanism::Mechanism;
use crate::process::family::{NoiseFamily, StreamKey, ViewRef, Visit};
use crate::rng::Purpose;
use crate::sim::{Buckets, Plan};

pub use crate::process::family::BOUND_SLACK;

/// Largest `--trials` (views under u and u' use trial indices 1..=2T).
pub const MAX_TRIALS: usize = (u32::MAX / 2) as usize;

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
struct Scratch<F: NoiseFamily> {
    ws: Workspace,
    row: Vec<f64>,
    u: Vec<f64>,
    u1: Vec<f64>,
    members: Vec<Member>,
    /// Members' ε (the level used), ascending, their levels and the
    /// attacker's parameters (Laplace rates in value units, or σ).
    eps: Vec<f64>,
    levels: Vec<F::Level>,
    params: Vec<f64>,
    /// Units of equal level: first member, ε and level.
    unit_start: Vec<usize>,
    unit_eps: Vec<f64>,
    unit_levels: Vec<F::Level>,
    /// The secret as answered under u and u'.
    secret: Vec<F::Coord>,
    secret1: Vec<F::Coord>,
    /// One view: members' noise and answers (members × n).
    noise: Vec<F::Coord>,
    values: Vec<f64>,
    path: F::Path,
    level_cache: Vec<(f64, F::Level)>,
    order: Vec<usize>,
    est: EstimatorScratch,
    one: Vec<f64>,
    col: Vec<f64>,
    losses: Vec<f64>,
    est_u: Vec<f64>,
    est_u1: Vec<f64>,
    times: PhaseTimes,
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
    collude_on(plan, opts, control, &crate::exec::Local)?
        .ok_or_else(|| Error::Unsupported("a local run merges its results".into()))
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
    opts.validate()?;
    for spec in &opts.coalitions {
        spec.check(plan.graph().ids())?;
    }
    check_memory(plan, opts)?;
    // The family is chosen here, once; everything below is monomorphised.
    struct Run<'r, 'p, 'a, E> {
        job: (&'p Plan<'a>, &'p CollusionOptions, &'p Control),
        exec: &'r E,
    }
    impl<E: Executor> Visit for Run<'_, '_, '_, E> {
        type Out = Result<Option<CollusionResult>>;
        fn run<F: NoiseFamily>(self, family: &F) -> Self::Out {
            let (plan, opts, control) = self.job;
            // One owner per chunk locally (owners run in parallel however
            // few), chunks of [`CHUNK`] over a cluster.
            let size = if self.exec.peers() == 1 { 1 } else { CHUNK };
            let job = OwnerChunks {
                plan,
                opts,
                control,
                family,
                size,
            };
            job.run(self.exec)
        }
    }
    plan.noise().visit(Run {
        job: (plan, opts, control),
        exec,
    })
}

/// One chunk's results (its owners in order) and phase times.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct OwnerChunk {
    /// Owner-major, then coalition order.
    pub results: Vec<CoalitionResult>,
    /// CPU seconds per phase.
    pub times: PhaseTimes,
}

/// The collusion run as a [`ChunkJob`] under one family.
struct OwnerChunks<'p, 'a, F> {
    plan: &'p Plan<'a>,
    opts: &'p CollusionOptions,
    control: &'p Control,
    family: &'p F,
    /// Owners per chunk.
    size: usize,
}

impl<F: NoiseFamily> ChunkJob for OwnerChunks<'_, '_, F> {
    type Worker = Scratch<F>;
    type Partial = OwnerChunk;
    fn chunks(&self) -> usize {
        self.plan.owners().len().div_ceil(self.size)
    }
    fn chunk_owners(&self, index: usize) -> u64 {
        self.owners_of(index).len() as u64
    }
    fn new_worker(&self) -> Scratch<F> {
        new_scratch(self.plan)
    }
    fn run_chunk(&self, s: &mut Scratch<F>, index: usize) -> Result<OwnerChunk> {
        let mut part = OwnerChunk {
            results: Vec::new(),
            times: PhaseTimes::default(),
        };
        for &owner in self.owners_of(index) {
            self.control.check()?;
            s.times = PhaseTimes::default();
            part.results.extend(self.run_owner(s, owner)?);
            part.times.add(&s.times);
        }
        Ok(part)
    }
}

impl<F: NoiseFamily> OwnerChunks<'_, '_, F> {
    fn owners_of(&self, index: usize) -> &[u32] {
        let o = self.plan.owners();
        let c = self.size;
        &o[(index * c).min(o.len())..((index + 1) * c).min(o.len())]
    }

    /// Every chunk on `exec`, merged in chunk order where it merges.
    fn run(&self, exec: &impl Executor) -> Result<Option<CollusionResult>> {
        let n = self.plan.owners().len() * self.opts.coalitions.len();
        let mut results = Vec::with_capacity(n);
        let mut phases = PhaseTimes::default();
        exec.execute(self, self.control, &mut |_, part: OwnerChunk| {
            results.extend(part.results);
            phases.add(&part.times);
            Ok(())
        })?;
        Ok(exec
            .merges_here()
            .then_some(CollusionResult { results, phases }))
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

fn new_scratch<F: NoiseFamily>(plan: &Plan<'_>) -> Scratch<F> {
    let n = plan.model().dim;
    Scratch {
        ws: plan.distances().workspace(),
        row: Vec::new(),
        u: vec![0.0; n],
        u1: vec![0.0; n],
        members: Vec::new(),
        eps: Vec::new(),
        levels: Vec::new(),
        params: Vec::new(),
        unit_start: Vec::new(),
        unit_eps: Vec::new(),
        unit_levels: Vec::new(),
        secret: Vec::new(),
        secret1: Vec::new(),
        noise: Vec::new(),
        values: Vec::new(),
        path: F::Path::default(),
        level_cache: Vec::new(),
        order: Vec::new(),
        est: EstimatorScratch::new(),
        one: vec![0.0; n],
        col: Vec::new(),
        losses: Vec::new(),
        est_u: Vec::new(),
        est_u1: Vec::new(),
        times: PhaseTimes::default(),
    }
}

impl<F: NoiseFamily> OwnerChunks<'_, '_, F> {
    /// ε at every distance of the owner's row answerable by the family
    /// (the range of every command, limits; the discrete chain's smallest
    /// rung), as `simulate` checks it: a map that vanishes or overflows at
    /// a distance the graph has is refused even when no coalition member
    /// stands there.
    fn check_row_levels(&self, row: &[f64]) -> Result<()> {
        let (map, delta) = (self.plan.map(), self.plan.model().sensitivity);
        // Each distinct distance once: a 64-slot memo by bits (hop rows hold
        // a few values); the messages are built only for a refusal.
        let mut seen = [u64::MAX; 64];
        for &d in row {
            if !(d.is_finite() && d > 0.0) {
                continue;
            }
            let bits = d.to_bits();
            let slot = ((bits ^ (bits >> 29)) % 64) as usize;
            if seen[slot] == bits {
                continue;
            }
            seen[slot] = bits;
            let e = map.eps(d);
            let ok =
                limits::level_in_range(e, delta) && self.family.checked_level(e, "", "").is_ok();
            if !ok {
                let (spec, at) = (map.spec(), format!("distance {}", limits::fmt_num(d)));
                if let Some(err) = limits::level_error(&spec, e, &at, delta) {
                    return Err(err);
                }
                self.family.checked_level(e, &spec, &at)?;
            }
        }
        Ok(())
    }

    fn run_owner(&self, s: &mut Scratch<F>, owner: u32) -> Result<Vec<CoalitionResult>> {
        let (plan, opts) = (self.plan, self.opts);
        let t0 = Instant::now();
        plan.distances().from_owner(owner, &mut s.ws, &mut s.row);
        self.check_row_levels(&s.row)?;
        plan.values().value(owner, &mut s.u);
        let who = plan.graph().ids().label(owner).to_string();
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
            self.prepare_members(s, &who)?;
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
                    self.run_mechanism(s, owner, spec.stream_key(), mech, &accounting)?
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

    /// Orders the members by ascending ε (stable: node order, sybils after
    /// nodes at the same ε as selected); fills their levels, ε used (the
    /// rung's for the discrete chain) and attack parameters, the units of
    /// equal level, and the secret as answered under u and u'.
    fn prepare_members(&self, s: &mut Scratch<F>, who: &str) -> Result<()> {
        let plan = self.plan;
        let fam = self.family;
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
        if s.members.is_empty() {
            s.levels.clear();
            s.params.clear();
            s.unit_start.clear();
            s.unit_eps.clear();
            s.unit_levels.clear();
            return Ok(());
        }
        fam.prepare(
            &s.u,
            &mut s.secret,
            crate::process::family::Whose::Owner(who),
        )?;
        fam.neighbour(&s.u, &s.secret, &mut s.u1, &mut s.secret1);
        s.levels.clear();
        s.params.clear();
        for e in s.eps.iter_mut() {
            let level = fam.level_cached(&mut s.level_cache, *e, 256)?;
            *e = fam.eps_used(*e, level);
            s.levels.push(level);
            s.params.push(fam.member_param(*e, level));
        }
        s.unit_start.clear();
        s.unit_eps.clear();
        s.unit_levels.clear();
        for (j, &e) in s.eps.iter().enumerate() {
            if s.unit_eps.last() != Some(&e) {
                s.unit_start.push(j);
                s.unit_eps.push(e);
                s.unit_levels.push(s.levels[j]);
            }
        }
        s.unit_start.push(s.eps.len());
        crate::process::family::check_resolved(
            fam,
            &s.u,
            s.levels.iter().copied(),
            crate::process::family::Whose::Owner(who),
        )
    }

    /// Draws one view around u (or u' when `under_u1`): the members' noise
    /// into `s.noise`, their answers into `s.values` (members × n).
    fn draw_view(
        &self,
        s: &mut Scratch<F>,
        mech: Mechanism,
        key: StreamKey,
        under_u1: bool,
    ) -> Result<()> {
        let fam = self.family;
        let n = fam.dim();
        let m = s.members.len();
        s.noise.resize(m * n, F::Coord::default());
        s.values.resize(m * n, 0.0);
        let (u, secret) = if under_u1 {
            (&s.u1, &s.secret1)
        } else {
            (&s.u, &s.secret)
        };
        if mech == Mechanism::Independent {
            let mut rng = fam.generator(StreamKey {
                purpose: Purpose::Independent,
                ..key
            })?;
            for j in 0..m {
                let x = &mut s.noise[j * n..(j + 1) * n];
                fam.sample_fresh(s.levels[j], &mut rng, x)?;
                fam.answer(u, secret, x, &mut s.values[j * n..(j + 1) * n])?;
            }
        } else {
            let mut rng = fam.generator(StreamKey {
                purpose: fam.path_purpose(),
                ..key
            })?;
            fam.sample_path(&s.unit_levels, &mut rng, &mut s.path)?;
            for k in 0..s.unit_levels.len() {
                let x = fam.read(&s.path, k, s.unit_levels[k]);
                for j in s.unit_start[k]..s.unit_start[k + 1] {
                    s.noise[j * n..(j + 1) * n].copy_from_slice(x);
                    fam.answer(u, secret, x, &mut s.values[j * n..(j + 1) * n])?;
                }
            }
        }
        Ok(())
    }

    fn member_noise<'v>(&self, params: &'v [f64]) -> MemberNoise<'v> {
        if F::GAUSSIAN_MEMBERS {
            MemberNoise::Gaussian { sigmas: params }
        } else {
            MemberNoise::Laplace { rates: params }
        }
    }

    /// One coalition under one mechanism: `T` views under u (estimators,
    /// exact losses) and `T` under u' (the attack).
    fn run_mechanism(
        &self,
        s: &mut Scratch<F>,
        owner: u32,
        stream: u64,
        mech: Mechanism,
        acc: &Accounting,
    ) -> Result<MechanismResult> {
        let (plan, opts, fam) = (self.plan, self.opts, self.family);
        let n = fam.dim();
        let (eps_bound, eps_advanced, sigma_min) = match mech {
            Mechanism::Correlated => (acc.eps_max, None, None),
            Mechanism::Independent => (acc.eps_sum, Some(acc.eps_advanced), None),
            Mechanism::Gaussian => (acc.eps_max, None, Some(smallest_sigma(&s.params))),
        };
        let units = s.unit_eps.len();
        let b = fam.path_breakpoints(s.unit_levels[0], s.unit_levels[units - 1]);
        if mech == Mechanism::Correlated && b > 0 {
            plan.check_path_memory(s.unit_eps[0], s.unit_eps[units - 1], b, false)?;
        }
        let bound = fam.loss_bound(mech, &s.secret, &s.levels)?;
        let mut panel = EstimatorPanel::with_scale(&opts.estimators, fam.error_scale());
        let pitman_in_panel = opts.estimators.contains(&Estimator::Pitman);
        let trials = opts.trials as u64;
        let key = |t: u64| {
            StreamKey::new(plan.config().seed, u64::from(owner), t, Purpose::Path).on_stream(stream)
        };
        s.losses.clear();
        s.est_u.clear();
        s.est_u1.clear();
        let mut disagreement: Option<f64> = None;
        let mut exceeded = 0u64;
        for t in 1..=trials {
            let t0 = Instant::now();
            self.draw_view(s, mech, key(t), false)?;
            let t1 = Instant::now();
            let model = self.member_noise(&s.params);
            let view = View::new(&s.values, n, model)?;
            panel.push(&view, &s.u);
            let p = match panel
                .last_estimate(Estimator::Pitman)
                .filter(|_| pitman_in_panel)
            {
                Some(e) => e[0],
                None => {
                    s.col.clear();
                    s.col.extend(s.values.iter().step_by(n));
                    let col = View::new(&s.col, 1, model)?;
                    estimate(Estimator::Pitman, &col, &mut s.est, &mut s.one[..1]);
                    s.one[0]
                }
            };
            s.est_u.push(p);
            let t2 = Instant::now();
            let view = ViewRef {
                answers: &s.values,
                noise: &s.noise,
                levels: &s.levels,
                params: &s.params,
                u: &s.u,
                secret: &s.secret,
            };
            let l = fam.view_loss(mech, &view, eps_bound, &bound, &mut s.order)?;
            if let Some(c) = l.chain {
                disagreement = Some(disagreement.unwrap_or(0.0).max(c));
            }
            exceeded += u64::from(l.over);
            s.losses.push(l.loss);
            let t3 = Instant::now();
            s.times.sample_s += secs(t1 - t0);
            s.times.estimate_s += secs(t2 - t1);
            s.times.audit_s += secs(t3 - t2);
        }
        let ta = Instant::now();
        for t in trials + 1..=2 * trials {
            self.draw_view(s, mech, key(t), true)?;
            // The attack thresholds coordinate 1 only: estimate on that column.
            s.col.clear();
            s.col.extend(s.values.iter().step_by(n));
            let view = View::new(&s.col, 1, self.member_noise(&s.params))?;
            estimate(Estimator::Pitman, &view, &mut s.est, &mut s.one[..1]);
            s.est_u1.push(s.one[0]);
        }
        s.times.attack_s += secs(ta.elapsed());
        let (u0, shift) = fam.attack_origin(&s.u, &s.secret);
        let distinguishing = distinguishing_lower_bound(&s.est_u, &s.est_u1, u0, shift);
        Ok(MechanismResult {
            mechanism: mech,
            estimators: panel.summaries(),
            audit: Some(AuditResult {
                eps_bound,
                eps_advanced,
                sigma_min,
                loss: LossSummary::from_samples(&mut s.losses),
                bound_exceeded: exceeded,
                chain_disagreement: disagreement,
                distinguishing,
            }),
        })
    }
}

#[cfg(test)]
#[path = "discrete_tests.rs"]
mod discrete_tests;

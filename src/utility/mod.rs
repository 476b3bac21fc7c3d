//! Network-wide utility (`privdiffuse utility`): every recipient j estimates
//! the mean ū_j of the values of the owners reaching it (itself included)
//! from its own value and one answer of every other such owner, under
//! several schemes side by side:
//!
//! * [`Scheme::Correlated`], [`Scheme::Independent`]: the plain mean of the
//!   raw answers (one lazy path per owner, or fresh noise per answer);
//! * with projected bits (`values = bits:P`, `post = bit`, `dim = 1`) also
//!   [`Scheme::CorrelatedDebiased`], [`Scheme::IndependentDebiased`]: each
//!   answer replaced by (y − q)/(1 − 2q), q = ½·e^(−λ/2) the flip probability
//!   at process level λ = ε/Δ;
//! * [`Scheme::Access`] (thesis §3.1.2): owners within `access_radius` hops
//!   are seen exactly, others not at all.
//!
//! # Library API (chunk → partial → merge)
//! [`UtilityPlan::new`] validates and resolves a [`UtilityConfig`].
//! [`UtilityPlan::run_chunk`] runs one chunk of at most 64 owners (chunk
//! index, replicate) and returns a small [`ChunkPartial`] while adding its
//! answers into a per-worker [`Accumulators`] (O(N), exact `i128`
//! fixed-point sums: merging workers' vectors in any order with
//! [`Accumulators::merge`] gives identical integers).
//! [`UtilityPlan::evaluate`] turns the merged accumulators of one replicate
//! into per-recipient errors, and [`UtilityPlan::rows`] the replicates into
//! `utility.csv` rows. [`UtilityPlan::run`] does all of it on the rayon pool;
//! a cluster can distribute `run_chunk` over processes and merge the same
//! way. [`Utility`] is the builder for library users.
//!
//! # Degree buckets
//! Recipients are grouped by degree (out-degree on directed graphs) in
//! log₂ buckets: `[0,0]`, `[1,1]`, `[2,3]`, `[4,7]`, …, `[2^k, 2^(k+1) − 1]`;
//! only non-empty buckets are written, then one row over all recipients.
//!
//! # Exact sums
//! Every term is rounded once to a binary fixed point with 72 fraction bits
//! below the largest single term expected (the values' magnitude, or the
//! noise scale at the smallest ε any hop distance of the graph can map to —
//! distances are bounded by twice the eccentricity of one node per component,
//! n − 1 on directed graphs). The hardening pass bounds ε/Δ to
//! [10⁻⁶⁰, 10⁶⁰], so the scale is finite; `i128` leaves 2⁵⁵ times that
//! scale of headroom, more than 2³² additions of terms 2²³ times larger
//! than expected. A term that would not fit is refused with an error, never
//! wrapped. Cost measured against f64 accumulation: see the report/bench
//! (`benches/utility.rs`).

mod engine;
mod summary;

pub use engine::{Accumulators, CHUNK, ChunkPartial, ChunkScratch, Fixed};
pub use summary::{RangeGuess, UtilitySummary};

use crate::control::Control;
use crate::distance::{DistanceKind, Distances, LevelSearch, LevelVisitor};
use crate::error::{Error, Result};
use crate::exec::{ChunkJob, Executor};
use crate::graph::Graph;
use crate::limits;
use crate::post::Post;
use crate::process::Norm;
use crate::sim::{Plan, SimConfig, Unreachable};
use crate::values::Values;
use rayon::prelude::*;
use serde::Serialize;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// An estimation scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    /// Plain mean of the correlated mechanism's answers.
    Correlated,
    /// Plain mean of the independent baseline's answers.
    Independent,
    /// Debiased mean of projected correlated bits.
    CorrelatedDebiased,
    /// Debiased mean of projected independent bits.
    IndependentDebiased,
    /// Exact values within the access radius.
    Access,
}

impl Scheme {
    /// The name in `utility.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Correlated => "correlated",
            Scheme::Independent => "independent",
            Scheme::CorrelatedDebiased => "correlated-debiased",
            Scheme::IndependentDebiased => "independent-debiased",
            Scheme::Access => "access",
        }
    }
}

/// Everything that changes the numbers of a utility run: the simulation's
/// options (graph, distance = hop, ε, values, dim/norm, sensitivity, post =
/// none or bit, owners, seed) plus the access radius and replicates.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UtilityConfig {
    /// The simulation options (`mechanism`, `bins`, `responses` and
    /// `path_owners` are not used).
    pub sim: SimConfig,
    /// Hops within which the access scheme sees exact values (≥ 0).
    pub access_radius: u32,
    /// Independent repetitions of the random schemes (≥ 1).
    pub replicates: usize,
}

impl Default for UtilityConfig {
    fn default() -> Self {
        UtilityConfig {
            sim: SimConfig::default(),
            access_radius: 1,
            replicates: 1,
        }
    }
}

/// Largest `replicates`.
pub const MAX_REPLICATES: usize = 100_000;

/// Owners per bit-parallel search when guessing the owners' maximum
/// eccentricity (one batch).
pub const GUESS_SOURCES: usize = 64;

/// Bit-parallel searches spent guessing it.
pub const GUESS_ROUNDS: usize = 3;

/// Largest hop bound with per-level counts of independent answers (4 bytes
/// per recipient and level; see [`UtilityPlan::level_counts`]).
pub const LEVEL_COUNTS_MAX: usize = 32;

/// Recipients per generator of the evaluation-time independent noise.
const NOISE_BLOCK: usize = 4096;

/// ChaCha stream of those generators (stream 1 is the chunks' draws).
const NOISE_STREAM: u64 = 2;

impl UtilityConfig {
    /// Checks what needs no graph.
    pub fn check(&self) -> Result<()> {
        self.sim.check()?;
        if !self.sim.noise.is_laplace() {
            // Issue 25: the utility engine draws its own noise; not ported yet.
            return Err(Error::param(
                "noise",
                self.sim.noise,
                "laplace (utility has no discrete noise yet)",
            ));
        }
        if self.sim.distance != DistanceKind::Hop {
            return Err(Error::param(
                "distance",
                self.sim.distance,
                "hop (the utility aggregates answers per hop level)",
            ));
        }
        if self.sim.unreachable != Unreachable::Skip {
            return Err(Error::param(
                "unreachable",
                self.sim.unreachable,
                "skip (the utility averages the owners a recipient can reach)",
            ));
        }
        match self.sim.post {
            Post::None => {}
            Post::Bit => {
                if self.sim.dim != 1 {
                    return Err(Error::param(
                        "post",
                        "bit",
                        "`dim` = 1 for projected bits in the utility",
                    ));
                }
            }
            p => {
                return Err(Error::param(
                    "post",
                    p,
                    "none or bit (sums of other projections have no closed form)",
                ));
            }
        }
        if !(1..=MAX_REPLICATES).contains(&self.replicates) {
            return Err(Error::param(
                "replicates",
                self.replicates,
                format!("an integer in 1..={MAX_REPLICATES}"),
            ));
        }
        Ok(())
    }
}

/// Privacy level of one hop level, with what the engine needs of it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LevelInfo {
    pub lambda: f64,
    pub q: f64,
    pub var_fixed: i128,
    pub q_fixed: i128,
    pub var_deb_fixed: i128,
}

/// A validated utility run on a graph.
pub struct UtilityPlan<'a> {
    plan: Plan<'a>,
    config: UtilityConfig,
    schemes: Vec<Scheme>,
    random: Vec<Scheme>,
    levels: Vec<Option<LevelInfo>>,
    top: f64,
    fx_value: Fixed,
    fx_deb: Fixed,
    fx_var: Fixed,
    fx_bias: Fixed,
    fx_var_deb: Fixed,
    hop_bound: u32,
    level_counts: usize,
    /// The guessed maximum hop of a `range:` map, until verified.
    guessed: Option<u32>,
    /// A wrong guess this plan replaced.
    first_guess: Option<u32>,
    /// Gamma(c, 1) for c = 1..=64 (the independent sums' mixing laws).
    unit_gammas: Vec<rand_distr::Gamma<f64>>,
}

impl<'a> UtilityPlan<'a> {
    /// Validates `config` against the graph and resolves owners, values,
    /// the map and the fixed-point formats.
    ///
    /// A `range:` map is resolved on the owners' observed hop range
    /// `[1, max eccentricity]`. Measuring that needs a search from every
    /// owner before the first answer, as costly as the run's own search; so
    /// the plan *guesses* it instead from a few searches (a multi-source
    /// double sweep: [`GUESS_ROUNDS`] searches of [`GUESS_SOURCES`] owners)
    /// and the run verifies the guess
    /// against the deepest level its chunks meet (which is exact, every
    /// chunk searching to the end): see [`verify`](Self::verify). A wrong
    /// guess costs the chunks run until one meets a deeper level (then that
    /// depth is guessed and the run starts over), never a different number.
    pub fn new(
        config: &UtilityConfig,
        graph: &'a Graph,
        distances: &'a Distances<'a>,
    ) -> Result<UtilityPlan<'a>> {
        config.check()?;
        if config.sim.clamped_map()?.needs_resolution() && distances.is_integer() {
            let owners = crate::sim::plan::select_owners(&config.sim, graph)?;
            if let Some(hi) = guess_max_eccentricity(distances, &owners) {
                return Self::build(config, graph, distances, Some(hi));
            }
        }
        Self::build(config, graph, distances, None)
    }

    /// The plan with the owners' hop range measured first (a search from
    /// every owner; what [`new`](Self::new) guesses instead).
    pub fn exact(
        config: &UtilityConfig,
        graph: &'a Graph,
        distances: &'a Distances<'a>,
    ) -> Result<UtilityPlan<'a>> {
        config.check()?;
        Self::build(config, graph, distances, None)
    }

    /// The plan with the range guessed as `[1, hi]` (`hi` ≥ 1; tests force
    /// wrong guesses with it).
    #[cfg(test)]
    pub(crate) fn with_guess(
        config: &UtilityConfig,
        graph: &'a Graph,
        distances: &'a Distances<'a>,
        hi: u32,
    ) -> Result<UtilityPlan<'a>> {
        config.check()?;
        Self::build(config, graph, distances, Some(hi))
    }

    /// Checks a guessed range against the merged aggregates of a complete
    /// replicate (every chunk): `None` when the plan was not guessed or the
    /// guess was exact — the replicate's numbers stand — else the plan with
    /// the exact range `[1, deepest level met]`, to run again from the start.
    /// Without any answer the exact plan is built the measuring way, so that
    /// the error for a map with nothing to resolve on is the usual one.
    pub fn verify(&self, all_chunks: &ChunkPartial) -> Result<Option<UtilityPlan<'a>>> {
        let Some(hi) = self.guessed else {
            return Ok(None);
        };
        let (config, graph, distances) = (&self.config, self.graph(), self.plan.distances());
        if all_chunks.answers == 0 {
            return Self::exact(config, graph, distances).map(Some);
        }
        if all_chunks.max_level == hi {
            return Ok(None);
        }
        Self::build(config, graph, distances, Some(all_chunks.max_level)).map(|mut p| {
            p.guessed = None;
            Some(p)
        })
    }

    /// Whether the hop range of a `range:` map was guessed (and awaits
    /// [`verify`](Self::verify)).
    pub fn is_guessed(&self) -> bool {
        self.guessed.is_some()
    }

    /// The guessed maximum hop of a `range:` map and whether it held:
    /// `(guess, true)` for a verified guess, `(wrong guess, false)` after
    /// [`run`](Self::run) replaced this plan by the exact one; `None` when
    /// nothing was guessed.
    pub fn range_guess(&self) -> Option<(u32, bool)> {
        match (self.first_guess, self.guessed) {
            (Some(g), _) => Some((g, false)),
            (None, Some(g)) => Some((g, true)),
            (None, None) => None,
        }
    }

    fn build(
        config: &UtilityConfig,
        graph: &'a Graph,
        distances: &'a Distances<'a>,
        guess: Option<u32>,
    ) -> Result<UtilityPlan<'a>> {
        let plan = match guess {
            Some(hi) => Plan::with_hop_range(&config.sim, graph, distances, (1, hi.max(1)))?,
            None => Plan::new(&config.sim, graph, distances)?,
        };
        let bits = plan.post() == &Post::Bit;
        let n = graph.n();
        let hop_bound = hop_bound(graph).max(1);
        // The map on 1..=bound: non-increasing (the paths are walked down).
        let map = plan.map();
        let model = *plan.model();
        let mut levels = Vec::with_capacity(hop_bound as usize + 1);
        levels.push(None);
        let mut prev = f64::INFINITY;
        let mut floor_lambda = f64::INFINITY;
        let mut top = 0.0f64;
        for d in 1..=hop_bound {
            let eps = map.eps(d as f64);
            if eps > prev {
                return Err(Error::param(
                    "eps",
                    map.spec(),
                    "a map non-increasing in the distance (the utility walks each path down)",
                ));
            }
            prev = eps;
            let ok = (limits::EPS_MIN..=limits::EPS_MAX).contains(&eps)
                && (limits::LEVEL_MIN..=limits::LEVEL_MAX).contains(&model.level(eps));
            if ok {
                floor_lambda = floor_lambda.min(model.level(eps));
                top = top.max(model.level(eps));
            }
            levels.push(ok.then_some(LevelInfo {
                lambda: model.level(eps),
                q: 0.0,
                var_fixed: 0,
                q_fixed: 0,
                var_deb_fixed: 0,
            }));
        }
        if !floor_lambda.is_finite() {
            floor_lambda = 1.0;
            top = 1.0;
        }
        // Largest single terms.
        let mut umax = 0.0f64;
        let mut buf = vec![0.0; model.dim];
        for j in 0..n as u32 {
            plan.values().value(j, &mut buf);
            for x in &buf {
                umax = umax.max(x.abs());
            }
        }
        let q_of = |lambda: f64| 0.5 * (-0.5 * lambda).exp();
        let noise_scale = model.norm.mse_factor(model.dim).sqrt() / floor_lambda;
        let qf = q_of(floor_lambda);
        let fx_value = Fixed::for_scale(if bits { 1.0 } else { umax.max(noise_scale) });
        let fx_deb = Fixed::for_scale(1.0 / (1.0 - 2.0 * qf));
        let fx_var = Fixed::for_scale(if bits {
            0.25
        } else {
            model.laplace_mse(floor_lambda * model.sensitivity)
        });
        let fx_bias = Fixed::for_scale(0.5);
        let fx_var_deb = Fixed::for_scale(qf * (1.0 - qf) / ((1.0 - 2.0 * qf) * (1.0 - 2.0 * qf)));
        for l in levels.iter_mut().flatten() {
            let lambda = l.lambda;
            let q = q_of(lambda);
            l.q = q;
            let var = if bits {
                q * (1.0 - q)
            } else {
                model.norm.mse_factor(model.dim) / (lambda * lambda)
            };
            let to = |f: Fixed, x: f64| f.to_fixed(x).unwrap_or(i128::MAX / 4);
            l.var_fixed = to(fx_var, var);
            l.q_fixed = to(fx_bias, q);
            l.var_deb_fixed = to(
                fx_var_deb,
                q * (1.0 - q) / ((1.0 - 2.0 * q) * (1.0 - 2.0 * q)),
            );
        }
        let mut random = vec![Scheme::Correlated, Scheme::Independent];
        if bits {
            random.extend([Scheme::CorrelatedDebiased, Scheme::IndependentDebiased]);
        }
        let mut schemes = random.clone();
        schemes.push(Scheme::Access);
        let level_counts = if !bits
            && (model.norm == Norm::L1 || model.dim == 1)
            && hop_bound as usize <= LEVEL_COUNTS_MAX
        {
            hop_bound as usize
        } else {
            0
        };
        // One accumulator vector per worker.
        let t = limits::pool_threads();
        limits::check_memory(
            "threads",
            t,
            limits::bytes_of(&[
                n as u64,
                Accumulators::bytes_per_recipient(model.dim, random.len(), bits, level_counts),
                t + 1,
            ]),
        )?;
        Ok(UtilityPlan {
            plan,
            config: config.clone(),
            schemes,
            random,
            levels,
            top,
            fx_value,
            fx_deb,
            fx_var,
            fx_bias,
            fx_var_deb,
            hop_bound,
            level_counts,
            guessed: guess,
            first_guess: None,
            unit_gammas: (1..=CHUNK)
                .map(|c| rand_distr::Gamma::new(c as f64, 1.0).expect("shape c ≥ 1, scale 1"))
                .collect(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &UtilityConfig {
        &self.config
    }
    /// The simulation plan underneath (owners, values, map).
    pub fn sim(&self) -> &Plan<'a> {
        &self.plan
    }
    /// The network.
    pub fn graph(&self) -> &'a Graph {
        self.plan.graph()
    }
    /// Owners, in chunk order.
    pub fn owners(&self) -> &[u32] {
        self.plan.owners()
    }
    /// Number of chunks of [`CHUNK`] owners.
    pub fn chunks(&self) -> usize {
        self.owners().len().div_ceil(CHUNK)
    }
    /// The owners of chunk `c`.
    pub fn chunk(&self, c: usize) -> &[u32] {
        let o = self.owners();
        &o[c * CHUNK..((c + 1) * CHUNK).min(o.len())]
    }
    /// Schemes in output order.
    pub fn schemes(&self) -> &[Scheme] {
        &self.schemes
    }
    /// The random schemes (one answer-sum vector each), in order.
    pub fn random_schemes(&self) -> &[Scheme] {
        &self.random
    }
    /// Projected bits.
    pub fn bits(&self) -> bool {
        self.plan.post() == &Post::Bit
    }
    /// Dimension.
    pub fn dim(&self) -> usize {
        self.plan.model().dim
    }
    /// Norm.
    pub fn norm(&self) -> Norm {
        self.plan.model().norm
    }
    /// Master seed.
    pub fn seed(&self) -> u64 {
        self.config.sim.seed
    }
    /// The private values.
    pub fn values(&self) -> &Values {
        self.plan.values()
    }
    /// Access radius.
    pub fn access_radius(&self) -> u32 {
        self.config.access_radius
    }
    /// Upper bound on hop distances used for the fixed-point scale.
    pub fn hop_bound(&self) -> u32 {
        self.hop_bound
    }
    /// Hop levels whose independent answers are counted per recipient
    /// (0: none). With ℓ1 noise (or one dimension), raw answers and a hop
    /// bound of at most [`LEVEL_COUNTS_MAX`], the engine only counts each
    /// recipient's independent answers per level, and [`evaluate`](Self::evaluate)
    /// draws the noise of all of them at once: given W_i ~ Exp(1), a sum of
    /// Laplace(b_i) is normal with variance 2·Σ b_i²·W_i, and the W's of one
    /// level sum to Gamma(count, 1) — per recipient one gamma per level and
    /// one normal (per coordinate), exact in law. Otherwise the noise is
    /// drawn per (recipient, level, chunk) during the search.
    pub fn level_counts(&self) -> usize {
        self.level_counts
    }
    /// Fixed-point formats (values, debiased values, variances, bias, debiased variances).
    pub fn formats(&self) -> [Fixed; 5] {
        [
            self.fx_value,
            self.fx_deb,
            self.fx_var,
            self.fx_bias,
            self.fx_var_deb,
        ]
    }
    pub(crate) fn top(&self) -> f64 {
        self.top
    }

    pub(crate) fn level_info(&self, level: u32) -> Result<LevelInfo> {
        if let Some(Some(l)) = self.levels.get(level as usize) {
            return Ok(*l);
        }
        let eps = self.plan.map().eps(level as f64);
        let at = format!("distance {level}");
        Err(limits::level_error(
            &self.plan.map().spec(),
            eps,
            &at,
            self.plan.model().sensitivity,
        )
        .unwrap_or_else(|| {
            Error::Numerical(format!("hop level {level} beyond the bound of the run"))
        }))
    }

    #[inline]
    pub(crate) fn fix_value(&self, x: f64) -> Result<i128> {
        self.fx_value.to_fixed(x).ok_or_else(|| overflow(x))
    }
    #[inline]
    pub(crate) fn fix_deb(&self, x: f64) -> Result<i128> {
        self.fx_deb.to_fixed(x).ok_or_else(|| overflow(x))
    }
}

fn overflow(x: f64) -> Error {
    Error::Numerical(format!(
        "an answer of {x} is beyond the exact accumulators' range (2^23 times the largest \
         noise scale of the run)"
    ))
}

/// A lower bound on the owners' maximum eccentricity, usually equal to it
/// (a multi-source double sweep): peripheral nodes have the largest
/// eccentricities, and the nodes farthest from a set of nodes are
/// peripheral. One search from the first owner; then up to
/// [`GUESS_ROUNDS`] bit-parallel searches, each from up to
/// [`GUESS_SOURCES`] owners: first those farthest from the first owner,
/// then the owners (not yet used) among the nodes the previous search met
/// last. Every level met is the eccentricity of an owner. `None` without
/// owners.
fn guess_max_eccentricity(distances: &Distances<'_>, owners: &[u32]) -> Option<u32> {
    /// The deepest level of a search and the nodes met there.
    struct Deepest(u32, Vec<u32>);
    impl LevelVisitor for Deepest {
        fn level(&mut self, level: u32, nodes: &[u32], _: &[u64]) -> std::ops::ControlFlow<()> {
            self.0 = level;
            self.1.clear();
            self.1.extend_from_slice(nodes);
            std::ops::ControlFlow::Continue(())
        }
        fn done(&mut self, _: &[u64]) {}
    }
    let first = *owners.first()?;
    let g = distances.graph();
    let mut ws = distances.workspace();
    let mut row = Vec::new();
    distances.from_owner(first, &mut ws, &mut row);
    let mut best = row
        .iter()
        .filter(|d| d.is_finite())
        .fold(0.0f64, |a, &d| a.max(d)) as u32;
    let mut far: Vec<(f64, u32)> = owners
        .iter()
        .map(|&o| (row[o as usize], o))
        .filter(|(d, _)| d.is_finite())
        .collect();
    far.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    far.dedup_by_key(|x| x.1);
    // The farthest owners, spread over ties (evenly spaced in id order).
    let top = far.first().map_or(0.0, |x| x.0);
    let ties = far.iter().take_while(|x| x.0 == top).count();
    let mut sources: Vec<u32> = if ties > GUESS_SOURCES {
        far[..ties]
            .iter()
            .step_by(ties.div_ceil(GUESS_SOURCES))
            .map(|x| x.1)
            .collect()
    } else {
        far.iter().take(GUESS_SOURCES).map(|x| x.1).collect()
    };
    drop(row);
    // 0: not an owner, 1: an owner, 2: an owner already searched from.
    let mut state = vec![0u8; g.n()];
    for &o in owners {
        state[o as usize] = 1;
    }
    let mut search = LevelSearch::new();
    for _ in 0..GUESS_ROUNDS {
        if sources.is_empty() {
            break;
        }
        for &s in &sources {
            state[s as usize] = 2;
        }
        let mut deepest = Deepest(0, Vec::new());
        let _ = search.run(g, &sources, &mut deepest);
        best = best.max(deepest.0);
        // Spread over the last level (evenly spaced in id order).
        let cand: Vec<u32> = deepest
            .1
            .iter()
            .copied()
            .filter(|&v| state[v as usize] == 1)
            .collect();
        let step = cand.len().div_ceil(GUESS_SOURCES).max(1);
        sources = cand.iter().copied().step_by(step).collect();
    }
    Some(best)
}

/// Upper bound on any hop distance: twice the eccentricity of one node per
/// weak component (undirected); n − 1 on directed graphs.
fn hop_bound(g: &Graph) -> u32 {
    let n = g.n();
    if g.is_directed() {
        return n.saturating_sub(1).min(u32::MAX as usize) as u32;
    }
    let (off, tg) = (g.offsets(), g.targets());
    let mut dist = vec![u32::MAX; n];
    let mut queue = Vec::new();
    let mut bound = 0u32;
    for s in 0..n {
        if dist[s] != u32::MAX {
            continue;
        }
        dist[s] = 0;
        queue.clear();
        queue.push(s as u32);
        let mut h = 0;
        let mut ecc = 0;
        while h < queue.len() {
            let u = queue[h] as usize;
            h += 1;
            for &v in &tg[off[u]..off[u + 1]] {
                if dist[v as usize] == u32::MAX {
                    dist[v as usize] = dist[u] + 1;
                    ecc = ecc.max(dist[u] + 1);
                    queue.push(v);
                }
            }
        }
        bound = bound.max(ecc.saturating_mul(2));
    }
    bound.min(n.saturating_sub(1) as u32)
}

/// Per-recipient outcome of one replicate.
#[derive(Clone, Debug, PartialEq)]
pub struct RecipientErrors {
    /// Values averaged per recipient: 1 + owners (≠ j) reaching j.
    pub n_values: Vec<u64>,
    /// ū_j (`dim` per recipient).
    pub mean: Vec<f64>,
    /// Estimates per scheme ([`UtilityPlan::schemes`] order), `dim` per recipient.
    pub estimates: Vec<Vec<f64>>,
    /// Squared errors per scheme.
    pub sq_err: Vec<Vec<f64>>,
    /// Theoretical MSE per scheme (`None` for access).
    pub theory: Vec<Option<Vec<f64>>>,
}

/// One row of `utility.csv`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UtilityRow {
    /// Scheme name.
    pub scheme: String,
    /// Smallest degree of the bucket (`None`: all recipients).
    pub degree_lo: Option<u64>,
    /// Largest degree of the bucket.
    pub degree_hi: Option<u64>,
    /// Recipients in the bucket.
    pub recipients: u64,
    /// Mean over replicates of the mean squared error over the bucket.
    pub mse: f64,
    /// Standard error of `mse` over replicates (`None` with one replicate).
    pub mse_se: Option<f64>,
    /// Theoretical MSE (`None` for access).
    pub mse_theory: Option<f64>,
}

/// What a run produces in memory.
#[derive(Clone, Debug)]
pub struct UtilityResult {
    /// `utility.csv` rows.
    pub rows: Vec<UtilityRow>,
    /// The first replicate's per-recipient outcome.
    pub first: RecipientErrors,
    /// Aggregates of all chunks of all replicates.
    pub partial: ChunkPartial,
}

/// The log₂ degree bucket of a degree: 0 → 0, 1 → 1, 2..=3 → 2, …
pub fn degree_bucket(d: u64) -> usize {
    if d == 0 {
        0
    } else {
        64 - d.leading_zeros() as usize
    }
}

/// Degree range `[lo, hi]` of bucket `b`.
pub fn bucket_range(b: usize) -> (u64, u64) {
    if b == 0 {
        (0, 0)
    } else {
        (1u64 << (b - 1), (1u64 << (b - 1)) * 2 - 1)
    }
}

impl UtilityPlan<'_> {
    /// Runs every chunk of one replicate on the rayon pool: one
    /// [`Accumulators`] per worker, chunks taken dynamically, merged at the
    /// end (exact, so the result does not depend on the scheduling).
    pub fn run_replicate(
        &self,
        replicate: u64,
        control: &Control,
        done: &(dyn Fn(u64) + Sync),
    ) -> Result<(Accumulators, ChunkPartial)> {
        self.run_replicate_below(replicate, control, done, None, (0, 1))
            .map(|(a, p, _)| (a, p))
    }

    /// [`run_replicate`](Self::run_replicate) that gives up as soon as a
    /// chunk meets a level deeper than `ceiling`: then the third value is
    /// `false` and the aggregates are incomplete (their `max_level` is the
    /// deepest level met so far, beyond the ceiling).
    fn run_replicate_below(
        &self,
        replicate: u64,
        control: &Control,
        done: &(dyn Fn(u64) + Sync),
        ceiling: Option<u32>,
        (first, step): (usize, usize),
    ) -> Result<(Accumulators, ChunkPartial, bool)> {
        // This call's chunks: first, first + step, … (a cluster process's share).
        let chunks = self.chunks().saturating_sub(first).div_ceil(step.max(1));
        let next = AtomicUsize::new(0);
        let beyond = std::sync::atomic::AtomicBool::new(false);
        let workers = rayon::current_num_threads().clamp(1, chunks.max(1));
        let out: Mutex<Vec<Result<(Accumulators, ChunkPartial)>>> = Mutex::new(Vec::new());
        rayon::scope(|sc| {
            for _ in 0..workers {
                sc.spawn(|_| {
                    let r = (|| {
                        let mut acc = Accumulators::new(self);
                        let mut partial = ChunkPartial::default();
                        let mut scratch = ChunkScratch::new();
                        loop {
                            let c = next.fetch_add(1, Ordering::Relaxed);
                            if c >= chunks || beyond.load(Ordering::Relaxed) {
                                break;
                            }
                            let c = first + c * step.max(1);
                            control.check()?;
                            let p = self.run_chunk(
                                c as u64,
                                self.chunk(c),
                                replicate,
                                &mut scratch,
                                &mut acc,
                            )?;
                            partial.merge(&p);
                            done(p.owners);
                            if ceiling.is_some_and(|h| p.max_level > h) {
                                beyond.store(true, Ordering::Relaxed);
                            }
                        }
                        Ok((acc, partial))
                    })();
                    if let Ok(mut o) = out.lock() {
                        o.push(r);
                    }
                });
            }
        });
        let mut total = Accumulators::new(self);
        let mut partial = ChunkPartial::default();
        let results = out.into_inner().unwrap_or_default();
        for r in results {
            let (a, p) = r?;
            total.merge(&a);
            partial.merge(&p);
        }
        Ok((total, partial, !beyond.into_inner()))
    }

    /// The independent noise of every recipient's answers (`dim` per
    /// recipient) from the per-level counts, or `None` when the engine drew
    /// it during the search ([`level_counts`](Self::level_counts) = 0). One
    /// generator per block of [`NOISE_BLOCK`] recipients (keyed by block and
    /// replicate), so the draws do not depend on the thread count.
    fn level_noise(&self, acc: &Accumulators, replicate: u64) -> Option<Vec<f64>> {
        use rand_distr::{Distribution, Gamma, StandardNormal};
        if self.level_counts == 0 || !self.random.contains(&Scheme::Independent) {
            return None;
        }
        let dim = self.dim();
        let mut out = vec![0.0; self.graph().n() * dim];
        out.par_chunks_mut(NOISE_BLOCK * dim)
            .enumerate()
            .for_each(|(b, block)| {
                let mut rng = crate::rng::rng_for_stream(
                    self.seed(),
                    b as u64,
                    replicate,
                    crate::rng::Purpose::Independent,
                    NOISE_STREAM,
                );
                for (k, z) in block.chunks_mut(dim).enumerate() {
                    let j = b * NOISE_BLOCK + k;
                    let counts = acc.level_counts_of(j);
                    for x in z.iter_mut() {
                        // Σ over levels of 2·Gamma(count, 1)/λ²: the variance
                        // of the normal that the sum of the Laplace draws is,
                        // given their exponential mixing weights.
                        let mut var = 0.0;
                        for (l, &c) in counts.iter().enumerate() {
                            if c == 0 {
                                continue;
                            }
                            let lambda = self.levels[l + 1].map_or(f64::NAN, |i| i.lambda);
                            let w: f64 = Gamma::new(c as f64, 1.0)
                                .map(|g| g.sample(&mut rng))
                                .unwrap_or(f64::NAN);
                            var += 2.0 * w / (lambda * lambda);
                        }
                        let n: f64 = StandardNormal.sample(&mut rng);
                        *x = var.sqrt() * n;
                    }
                }
            });
        Some(out)
    }

    /// Per-recipient estimates and squared errors from the merged sums of
    /// replicate `replicate`.
    pub fn evaluate(&self, acc: &Accumulators, replicate: u64) -> RecipientErrors {
        let n = self.graph().n();
        let dim = self.dim();
        let bits = self.bits();
        let ns = self.schemes.len();
        let mut out = RecipientErrors {
            n_values: Vec::with_capacity(n),
            mean: Vec::with_capacity(n * dim),
            estimates: vec![Vec::with_capacity(n * dim); ns],
            sq_err: vec![Vec::with_capacity(n); ns],
            theory: self
                .schemes
                .iter()
                .map(|s| (*s != Scheme::Access).then(|| Vec::with_capacity(n)))
                .collect(),
        };
        let mut u = vec![0.0; dim];
        let fv = self.fx_value;
        let noise = self.level_noise(acc, replicate);
        for j in 0..n {
            self.values().value(j as u32, &mut u);
            let nj = 1 + acc.count(j);
            let nf = nj as f64;
            out.n_values.push(nj);
            let mean: Vec<f64> = (0..dim)
                .map(|d| (u[d] + fv.to_f64(acc.sum_u(j, d))) / nf)
                .collect();
            out.mean.extend_from_slice(&mean);
            for (si, s) in self.schemes.iter().enumerate() {
                let (est, theory): (Vec<f64>, Option<f64>) = match s {
                    Scheme::Access => {
                        let na = (1 + acc.access_count(j)) as f64;
                        (
                            (0..dim)
                                .map(|d| (u[d] + fv.to_f64(acc.access_sum(j, d))) / na)
                                .collect(),
                            None,
                        )
                    }
                    _ => {
                        let ri = self.random.iter().position(|r| r == s).expect("random");
                        let deb =
                            matches!(s, Scheme::CorrelatedDebiased | Scheme::IndependentDebiased);
                        let f = if deb { self.fx_deb } else { fv };
                        let extra = |d: usize| match (&noise, s) {
                            (Some(z), Scheme::Independent) => z[j * dim + d],
                            _ => 0.0,
                        };
                        let est = (0..dim)
                            .map(|d| (u[d] + f.to_f64(acc.sum(j, ri, d)) + extra(d)) / nf)
                            .collect();
                        let th = if deb {
                            self.fx_var_deb.to_f64(acc.var_deb(j))
                        } else if bits {
                            let b = self.fx_bias.to_f64(acc.bias(j));
                            b * b + self.fx_var.to_f64(acc.var(j))
                        } else {
                            self.fx_var.to_f64(acc.var(j))
                        };
                        (est, Some(th / (nf * nf)))
                    }
                };
                let e2: f64 = est.iter().zip(&mean).map(|(a, b)| (a - b) * (a - b)).sum();
                out.estimates[si].extend_from_slice(&est);
                out.sq_err[si].push(e2);
                if let (Some(t), Some(v)) = (out.theory[si].as_mut(), theory) {
                    t.push(v);
                }
            }
        }
        out
    }

    /// `utility.csv` rows from the replicates' per-recipient errors.
    pub fn rows(&self, reps: &[Vec<Vec<f64>>], first: &RecipientErrors) -> Vec<UtilityRow> {
        let g = self.graph();
        let n = g.n();
        let bucket: Vec<usize> = (0..n as u32)
            .map(|j| degree_bucket(g.degree(j) as u64))
            .collect();
        let nb = bucket.iter().copied().max().unwrap_or(0) + 1;
        let mut members = vec![0u64; nb];
        for &b in &bucket {
            members[b] += 1;
        }
        let r = reps.len();
        let mut rows = Vec::new();
        for (si, s) in self.schemes.iter().enumerate() {
            let groups: Vec<Option<usize>> = (0..nb)
                .filter(|&b| members[b] > 0)
                .map(Some)
                .chain([None])
                .collect();
            for grp in groups {
                let inside = |j: usize| grp.is_none_or(|b| bucket[j] == b);
                let count = match grp {
                    Some(b) => members[b],
                    None => n as u64,
                };
                if count == 0 {
                    continue;
                }
                let per_rep: Vec<f64> = reps
                    .iter()
                    .map(|rep| {
                        (0..n)
                            .filter(|&j| inside(j))
                            .map(|j| rep[si][j])
                            .sum::<f64>()
                            / count as f64
                    })
                    .collect();
                // Around the first replicate: equal replicates (access) give
                // exactly that value and a standard error of exactly 0.
                let base = per_rep[0];
                let mse = base + per_rep.iter().map(|x| x - base).sum::<f64>() / r as f64;
                let se = (r > 1).then(|| {
                    let var =
                        per_rep.iter().map(|x| (x - mse) * (x - mse)).sum::<f64>() / (r - 1) as f64;
                    (var / r as f64).sqrt()
                });
                let theory = first.theory[si].as_ref().map(|t| {
                    (0..n).filter(|&j| inside(j)).map(|j| t[j]).sum::<f64>() / count as f64
                });
                let (lo, hi) = match grp {
                    Some(b) => {
                        let (a, z) = bucket_range(b);
                        (Some(a), Some(z))
                    }
                    None => (None, None),
                };
                rows.push(UtilityRow {
                    scheme: s.name().into(),
                    degree_lo: lo,
                    degree_hi: hi,
                    recipients: count,
                    mse,
                    mse_se: se,
                    mse_theory: theory,
                });
            }
        }
        rows
    }

    /// Every replicate, then the rows. `control` is checked per chunk and
    /// told of the owners done. A guessed hop range is verified after the
    /// first replicate; if it was wrong, this plan is replaced by the exact
    /// one (see [`range_guess`](Self::range_guess)) and the run starts over.
    pub fn run(&mut self, control: &Control) -> Result<UtilityResult> {
        let reps = self.config.replicates as u64;
        let total = self.owners().len() as u64 * reps;
        let done = std::sync::atomic::AtomicU64::new(0);
        let report = |k: u64| {
            let d = done.fetch_add(k, Ordering::Relaxed) + k;
            control.report("owners", d, total);
        };
        let mut errs = Vec::new();
        let mut first = None;
        let mut partial = ChunkPartial::default();
        for r in 0..reps {
            let ceiling = if r == 0 { self.guessed } else { None };
            let (acc, p, complete) =
                self.run_replicate_below(r, control, &report, ceiling, (0, 1))?;
            if !complete {
                // Some owner lies deeper than guessed: guess that depth and
                // start over (the new guess is verified the same way).
                let mut next = Self::build(
                    &self.config,
                    self.graph(),
                    self.plan.distances(),
                    Some(p.max_level),
                )?;
                next.first_guess = self.first_guess.or(self.guessed);
                *self = next;
                return self.run(control);
            }
            if r == 0
                && let Some(mut exact) = self.verify(&p)?
            {
                // The guessed range was wrong: everything again, exactly,
                // and this plan becomes the exact one.
                exact.first_guess = self.first_guess.or(self.guessed);
                *self = exact;
                return self.run(control);
            }
            partial.merge(&p);
            let e = self.evaluate(&acc, r);
            errs.push(e.sq_err.clone());
            if first.is_none() {
                first = Some(e);
            }
        }
        let first = first.expect("replicates ≥ 1");
        let rows = self.rows(&errs, &first);
        Ok(UtilityResult {
            rows,
            first,
            partial,
        })
    }
}

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
                        let entry = match open.remove(&r) {
                            None => (share.acc, share.partial, 1),
                            Some((a, _, _)) if !a.same_layout(&share.acc) => {
                                return Err(Error::Unsupported(
                                    "cluster: utility sums of another layout arrived (peers \
                                     built from different versions?)"
                                        .into(),
                                ));
                            }
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

/// Builder for library users, like [`crate::sim::Simulation`]:
/// `Utility::new(&graph).eps(..).values(..).access_radius(2).run()`.
pub struct Utility<'g> {
    graph: &'g Graph,
    config: UtilityConfig,
    control: Control,
}

impl<'g> Utility<'g> {
    /// Defaults of [`UtilityConfig`] on `graph`.
    pub fn new(graph: &'g Graph) -> Self {
        Utility {
            graph,
            config: UtilityConfig::default(),
            control: Control::new(),
        }
    }
    /// A full configuration (its `graph` path is not read).
    pub fn with_config(graph: &'g Graph, config: UtilityConfig) -> Self {
        Utility {
            graph,
            config,
            control: Control::new(),
        }
    }
    /// Privacy map.
    pub fn eps(mut self, map: crate::epsilon::EpsilonMap) -> Self {
        self.config.sim.eps = map;
        self
    }
    /// Private values.
    pub fn values(mut self, v: crate::values::ValueSpec) -> Self {
        self.config.sim.values = v;
        self
    }
    /// Dimension.
    pub fn dim(mut self, dim: usize) -> Self {
        self.config.sim.dim = dim;
        self
    }
    /// Norm.
    pub fn norm(mut self, norm: Norm) -> Self {
        self.config.sim.norm = norm;
        self
    }
    /// Post-processing (none or bit).
    pub fn post(mut self, post: Post) -> Self {
        self.config.sim.post = post;
        self
    }
    /// Owners.
    pub fn owners(mut self, owners: crate::sim::Owners) -> Self {
        self.config.sim.owners = owners;
        self
    }
    /// Seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.config.sim.seed = seed;
        self
    }
    /// Access radius.
    pub fn access_radius(mut self, r: u32) -> Self {
        self.config.access_radius = r;
        self
    }
    /// Replicates.
    pub fn replicates(mut self, r: usize) -> Self {
        self.config.replicates = r;
        self
    }
    /// Cancellation and progress.
    pub fn control(mut self, control: Control) -> Self {
        self.control = control;
        self
    }
    /// The configuration so far.
    pub fn config(&self) -> &UtilityConfig {
        &self.config
    }
    /// Runs it.
    pub fn run(&self) -> Result<UtilityResult> {
        let d = Distances::new(
            self.graph,
            self.config.sim.distance,
            &self.config.sim.distance_options,
        )?;
        let mut plan = UtilityPlan::new(&self.config, self.graph, &d)?;
        plan.run(&self.control)
    }
}

#[cfg(test)]
mod tests;

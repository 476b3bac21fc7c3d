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
//!   are seen exactly, others not at all;
//! * [`Scheme::CorrelatedShrinkage`], [`Scheme::IndependentShrinkage`]: the
//!   empirical-Bayes `shrinkage` estimator, which weighs each answer by its
//!   noise variance (see [`shrinkage`]; when the hop bound is at most
//!   [`SHRINKAGE_LEVELS_MAX`]).
//!
//! With `noise = discrete` (issue 25) the same schemes run on the exact
//! integer chain: values rounded to the grid, each hop level answered at its
//! rung, the correlated answers read from one chain per owner walked down
//! every rung (simulate's), the independent ones one fresh exact draw each,
//! flips, variances and `mse_theory` from the discrete law (the theory adds
//! the owners' summed rounding). The engine is written once over the noise
//! family ([`NoiseFamily`]), chosen once
//! per chunk: see `engine.rs`, `fresh.rs` and `levels.rs`.
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

mod builder;
mod engine;
mod executor;
mod fixed;
mod fresh;
mod hops;
mod levels;
mod replicates;
mod rows;
pub mod shrinkage;
mod summary;

pub use builder::Utility;
pub use engine::{Accumulators, CHUNK, ChunkPartial, ChunkScratch};
pub use executor::PeerShare;
pub use fixed::Fixed;
use hops::{guess_max_eccentricity, hop_bound};
pub use rows::{RecipientErrors, UtilityResult, UtilityRow, bucket_range, degree_bucket};
pub use shrinkage::{SHRINKAGE_LEVELS_MAX, ShrinkPlan, ShrinkSums};
pub use summary::{RangeGuess, UtilityDiscreteSummary, UtilitySummary};

use crate::distance::{DistanceKind, Distances};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::limits;
use crate::post::Post;
use crate::process::Norm;
use crate::process::discrete::DiscreteSummary;
use crate::process::family::{Laplace, Noise, NoiseFamily};
use crate::sim::{Ignored, Plan, SimConfig, Unreachable};
use crate::values::Values;
use levels::{LevelInfo, Levels};
use serde::Serialize;

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
    /// Empirical-Bayes shrinkage of the correlated answers (debiased bits).
    CorrelatedShrinkage,
    /// Empirical-Bayes shrinkage of independent answers (debiased bits).
    IndependentShrinkage,
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
            Scheme::CorrelatedShrinkage => "correlated-shrinkage",
            Scheme::IndependentShrinkage => "independent-shrinkage",
        }
    }

    /// Whether `mse_theory` has a closed form (not for access, whose error
    /// is a deterministic bias, nor for shrinkage).
    pub fn has_theory(self) -> bool {
        !matches!(
            self,
            Scheme::Access | Scheme::CorrelatedShrinkage | Scheme::IndependentShrinkage
        )
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

pub use crate::limits::MAX_REPLICATES;

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
        self.sim.refuse_gaussian_mechanism("utility")?;
        self.sim.refuse_ignored(
            "utility",
            &[
                Ignored::Mechanism,
                Ignored::Replicates,
                Ignored::FirstReplicate,
                Ignored::EgoOwners,
                Ignored::PathOwners,
                Ignored::Responses,
                Ignored::Bins,
                Ignored::Delta,
            ],
        )?;
        self.sim.check()?;
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

/// A validated utility run on a graph.
pub struct UtilityPlan<'a> {
    plan: Plan<'a>,
    config: UtilityConfig,
    /// The noise family the answers are drawn from.
    noise: Noise,
    schemes: Vec<Scheme>,
    random: Vec<Scheme>,
    /// Index L (0 unused): the laws of hop level L, `None` where the
    /// family cannot answer ε(L).
    levels: Vec<Option<LevelInfo>>,
    /// ε of the run's largest level (the Laplace paths' top).
    top_eps: Option<f64>,
    fx_value: Fixed,
    fx_deb: Fixed,
    fx_var: Fixed,
    fx_bias: Fixed,
    fx_var_deb: Fixed,
    /// The largest E‖noise‖² of a level.
    mse_max: f64,
    /// Answers exact on a grid: the owners' summed rounding is accounted.
    on_grid: bool,
    hop_bound: u32,
    level_counts: usize,
    /// The guessed maximum hop of a `range:` map, until verified.
    guessed: Option<u32>,
    /// A wrong guess this plan replaced.
    first_guess: Option<u32>,
    /// Gamma(c, 1) for c = 1..=64 (the independent sums' mixing laws).
    unit_gammas: Vec<rand_distr::Gamma<f64>>,
    /// The shrinkage rows' part (`None`: hop bound too deep for them).
    shrink: Option<ShrinkPlan>,
}

/// The noise of a utility run: the plan's family, except that
/// `mechanism = gaussian` is still read as the Laplace process (the utility
/// has no Gaussian scheme; issue 32 item 3 refuses the combination).
fn utility_noise(plan: &Plan<'_>) -> Result<Noise> {
    Ok(match plan.noise() {
        Noise::Gaussian(_) => {
            let m = plan.model();
            Noise::Laplace(Laplace::new(m.dim, m.norm, m.sensitivity)?)
        }
        other => other.clone(),
    })
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
        let mut prev = f64::INFINITY;
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
        }
        // Largest single terms.
        let dim = plan.model().dim;
        let mut umax = 0.0f64;
        let mut buf = vec![0.0; dim];
        for j in 0..n as u32 {
            plan.values().value(j, &mut buf);
            for x in &buf {
                umax = umax.max(x.abs());
            }
        }
        let noise = utility_noise(&plan)?;
        let laws = Levels::new(&noise, map, hop_bound, bits, umax)?;
        let [fx_value, fx_deb, fx_var, fx_bias, fx_var_deb] = laws.formats;
        let mut random = vec![Scheme::Correlated, Scheme::Independent];
        if bits {
            random.extend([Scheme::CorrelatedDebiased, Scheme::IndependentDebiased]);
        }
        let mut schemes = random.clone();
        schemes.push(Scheme::Access);
        // Independent answers counted per level (their noise drawn at
        // evaluation) where fresh noise has iid Laplace coordinates.
        let laplace = laws
            .levels
            .iter()
            .flatten()
            .next()
            .is_some_and(|l| l.rate.is_some());
        let level_counts = if !bits && laplace && hop_bound as usize <= LEVEL_COUNTS_MAX {
            hop_bound as usize
        } else {
            0
        };
        // One accumulator vector per worker (on a grid, raw answers: Σ rounding).
        let rounding_bytes = if laws.on_grid && !bits {
            16 * dim as u64
        } else {
            0
        };
        let t = limits::pool_threads();
        limits::check_memory(
            "threads",
            t,
            limits::bytes_of(&[
                n as u64,
                Accumulators::bytes_per_recipient(dim, random.len(), bits, level_counts)
                    + rounding_bytes,
                t + 1,
            ]),
        )?;
        let mut built = UtilityPlan {
            plan,
            config: config.clone(),
            noise,
            schemes,
            random,
            levels: laws.levels,
            top_eps: laws.top_eps,
            fx_value,
            fx_deb,
            fx_var,
            fx_bias,
            fx_var_deb,
            mse_max: laws.mse_max,
            on_grid: laws.on_grid,
            hop_bound,
            level_counts,
            guessed: guess,
            first_guess: None,
            unit_gammas: (1..=CHUNK)
                .map(|c| rand_distr::Gamma::new(c as f64, 1.0).expect("shape c ≥ 1, scale 1"))
                .collect(),
            shrink: None,
        };
        // Shrinkage rows (src/utility/shrinkage.rs), after every other scheme.
        let accumulator_bytes = Accumulators::bytes_per_recipient(
            built.dim(),
            built.random_schemes().len(),
            built.bits(),
            built.level_counts(),
        ) + rounding_bytes;
        built.shrink = ShrinkPlan::new(&built, accumulator_bytes)?;
        if built.shrink.is_some() {
            built
                .schemes
                .extend([Scheme::CorrelatedShrinkage, Scheme::IndependentShrinkage]);
        }
        Ok(built)
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
    /// The noise family the answers are drawn from.
    pub fn noise(&self) -> &Noise {
        &self.noise
    }

    /// The largest E‖noise‖² of a hop level (0 without any).
    pub(crate) fn mse_max(&self) -> f64 {
        self.mse_max
    }

    /// ε of the run's largest level (`None` without a valid level).
    pub(crate) fn top_eps(&self) -> Option<f64> {
        self.top_eps
    }

    /// The shrinkage rows' part (`None` when the hop bound exceeds
    /// [`SHRINKAGE_LEVELS_MAX`]).
    pub fn shrinkage(&self) -> Option<&ShrinkPlan> {
        self.shrink.as_ref()
    }

    /// The laws of hop level `level` (≥ 1), `None` where the family cannot
    /// answer it or beyond the hop bound.
    pub(crate) fn level_info(&self, level: u32) -> Option<&LevelInfo> {
        self.levels.get(level as usize).and_then(Option::as_ref)
    }

    /// The laws of hop level `level` met by the search, or the family's
    /// refusal of its ε.
    pub(crate) fn level_law<F: NoiseFamily>(&self, fam: &F, level: u32) -> Result<&LevelInfo> {
        if let Some(l) = self.level_info(level) {
            return Ok(l);
        }
        let map = self.plan.map();
        let at = format!("distance {level}");
        match fam.checked_level(map.eps(level as f64), &map.spec(), &at) {
            Err(e) => Err(e),
            Ok(_) => Err(Error::Numerical(format!(
                "hop level {level} beyond the bound of the run"
            ))),
        }
    }

    /// Rounding slots per recipient record: Σ (γ·û_i − u_i) per coordinate
    /// for raw answers on a grid, none otherwise.
    pub(crate) fn rounding_slots(&self) -> usize {
        if self.on_grid && !self.bits() {
            self.dim()
        } else {
            0
        }
    }

    /// `theory` (Σ Var in value units², raw answers) plus the squared summed
    /// rounding of recipient `j`'s owners on a grid.
    pub(crate) fn with_rounding(&self, acc: &Accumulators, j: usize, theory: f64) -> f64 {
        if self.rounding_slots() == 0 {
            return theory;
        }
        let r: f64 = (0..self.dim())
            .map(|d| self.fx_value.to_f64(acc.rounding(j, d)).powi(2))
            .sum();
        theory + r
    }

    /// `summary.json`'s discrete record (`None` under Laplace), with the
    /// rungs' ε of hops 1..=`max_level`.
    pub fn discrete_summary(&self, max_level: u32) -> Option<UtilityDiscreteSummary> {
        let d = self.noise.discrete()?;
        Some(UtilityDiscreteSummary {
            noise: DiscreteSummary::of(d.noise(), d.rng()),
            eps_by_hop: (1..=max_level)
                .map(|l| self.level_info(l).map_or(f64::NAN, |x| x.eps_used))
                .collect(),
        })
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

/// The answer is not shown: where the noise vanishes against the value it
/// is the owner's secret.
fn overflow(_x: f64) -> Error {
    Error::Numerical(
        "an answer (not shown) is beyond the exact accumulators' range (2^23 times the largest \
         noise scale of the run)"
            .into(),
    )
}

#[cfg(test)]
mod tests;

//! Noise families: the one interface the engines are written against.
//!
//! An owner answers every recipient from **one sample path** of a lazy
//! process read at the recipient's level, or (the baseline) from fresh
//! noise per recipient. What differs between the processes — the level a
//! privacy request is answered at, how a path is drawn and read, how an
//! answer is formed from the secret and the noise, the closed forms — is a
//! [`NoiseFamily`]; everything else (units of equal level, aggregation, rows,
//! coalitions, stores) is written once in the engines, generic over it and
//! monomorphised, the family chosen once at the top ([`Noise`]).
//!
//! | family | level | noise | answer |
//! |---|---|---|---|
//! | [`Laplace`] | ε/Δ | f64 lazy Laplace path (memo §1–2) | u + V |
//! | [`Gaussian`] | σ(ε, δ)² | f64 Brownian path by variance (memo §4) | u + B(σ²) |
//! | [`Discrete`] | a rung of the ladder (ε rounded down) | i64 chain on the grid (memo `discrete.md`) | (û + X)·γ |
//!
//! Adding a family: one file here implementing [`NoiseFamily`], one variant of
//! [`Noise`] (with its arm of [`Noise::visit`]), and its tests.

mod continuous;
pub mod discrete;
pub mod gaussian;
pub mod laplace;
pub mod laplace_lazy;
pub mod loss;

pub use discrete::{Discrete, DiscreteState};
pub use gaussian::{BrownianWalk, Gaussian, Sigma};
pub use laplace::{Laplace, LaplaceWalk};
pub use laplace_lazy::LazyLaplace;

use super::gaussian::BrownianPath;
use super::mechanism::Mechanism;
use crate::error::{Error, Result};
use crate::limits::{LEVEL_MAX, LEVEL_MIN};
use crate::rng::Purpose;
use std::fmt::Debug;

/// The keys of one generator: `(seed, owner, trial, purpose)` as
/// [`rng_for`](crate::rng::rng_for) takes them, and for a coalition's trials
/// its stream key ([`rng_for_stream`](crate::rng::rng_for_stream)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamKey {
    /// The run's seed.
    pub seed: u64,
    /// The owner (node index).
    pub owner: u64,
    /// Replicate or trial.
    pub trial: u64,
    /// What the draws are for.
    pub purpose: Purpose,
    /// A coalition's stream key (`None`: the owner's own stream).
    pub stream: Option<u64>,
}

impl StreamKey {
    /// The key of `(seed, owner, trial, purpose)`.
    pub fn new(seed: u64, owner: u64, trial: u64, purpose: Purpose) -> StreamKey {
        StreamKey {
            seed,
            owner,
            trial,
            purpose,
            stream: None,
        }
    }

    /// The same key on a coalition's stream.
    pub fn on_stream(self, stream: u64) -> StreamKey {
        StreamKey {
            stream: Some(stream),
            ..self
        }
    }
}

/// One noise family: how an owner's noise is drawn, read and answered.
///
/// Whose secret a family prepares, as a refusal names it (never its value):
/// an owner of a run (`values`, by the owner's id or index) or the one value
/// of a gradual release (`value`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Whose<'a> {
    /// The owner with this id (or index) among a run's `values`.
    Owner(&'a str),
    /// A gradual release's `value`.
    Release,
}

impl Whose<'_> {
    /// The parameter and the value a refusal of this secret shows: the
    /// owner, never the value.
    pub fn shown(self) -> (&'static str, String) {
        match self {
            Whose::Owner(owner) => ("values", format!("(owner {owner}: not shown)")),
            Whose::Release => ("value", "(not shown)".to_string()),
        }
    }
}

/// How many noise standard deviations (at the largest level answered) a
/// value may reach under an f64 family: 2⁴². Beyond, rounding `u + V` to
/// f64 drops the noise's low bits, and from 2⁵³ on all of them: the answer
/// is the value itself. One rule for every command and face (the discrete
/// chain has its grid's limit instead, [`discrete::grid_limit`]).
pub const RESOLVED_SDS: f64 = 4_398_046_511_104.0;

/// Refuses a secret `u` that the noise at the largest of `levels` cannot
/// hide under f64 rounding ([`RESOLVED_SDS`]), naming whose it is and the
/// limit, never the value. Nothing to check for a family on a grid.
pub fn check_resolved<F: NoiseFamily + ?Sized>(
    fam: &F,
    u: &[f64],
    levels: impl IntoIterator<Item = F::Level>,
    whose: Whose<'_>,
) -> Result<()> {
    if fam.grid().is_some() {
        return Ok(());
    }
    let top = levels.into_iter().reduce(|a, b| if b > a { b } else { a });
    let Some(top) = top else {
        return Ok(());
    };
    let var = fam.coord_variance(top);
    // A level outside the range the family serves is refused by its own
    // check, in its own words (its variance overflows or vanishes here).
    let limit = RESOLVED_SDS * var.sqrt();
    if !(var.is_finite() && var > 0.0) || u.iter().all(|x| x.abs() <= limit) {
        return Ok(());
    }
    let (param, shown) = whose.shown();
    Err(Error::param(
        param,
        shown,
        format!(
            "values within ±{} (2^42 noise standard deviations at the largest ε answered; \
             beyond, f64 rounding of u + noise loses the noise and an answer shows the \
             value); rescale the values and `sensitivity`, or lower `eps_max`",
            crate::limits::fmt_num(limit)
        ),
    ))
}

/// Levels are the family's own (compared only within it, ordered like the
/// privacy levels they answer). Noise and secrets are vectors of
/// [`Coord`](NoiseFamily::Coord) (f64, or i64 grid steps) of length
/// [`dim`](NoiseFamily::dim).
pub trait NoiseFamily: Send + Sync {
    /// The index of the process at a privacy request; a larger level answers
    /// a larger ε (is less private).
    type Level: Copy + PartialEq + PartialOrd + Debug + Send + Sync;
    /// One coordinate of noise and of the secret as answered.
    type Coord: Copy
        + Default
        + PartialEq
        + Debug
        + Send
        + Sync
        + std::ops::Add<Output = Self::Coord>;
    /// One owner's sample path, reused across owners.
    type Path: Default + Send + Sync;
    /// The generator the draws come from.
    type Rng: rand::Rng;

    /// Dimension n of values and noise.
    fn dim(&self) -> usize;

    /// Whether [`level`](NoiseFamily::level) is costly enough that engines
    /// keep the levels they computed (the Gaussian calibration bisects).
    const COSTLY_LEVEL: bool = false;

    /// The level of `eps`, kept in `cache` (up to `cap` entries) when the
    /// family's levels are [costly](NoiseFamily::COSTLY_LEVEL).
    fn level_cached(
        &self,
        cache: &mut Vec<(f64, Self::Level)>,
        eps: f64,
        cap: usize,
    ) -> Result<Self::Level> {
        if !Self::COSTLY_LEVEL {
            return self.level(eps);
        }
        if let Some(&(_, l)) = cache.iter().find(|(e, _)| *e == eps) {
            return Ok(l);
        }
        let l = self.level(eps)?;
        if cache.len() < cap {
            cache.push((eps, l));
        }
        Ok(l)
    }

    /// The mechanism recorded for this family's one path per owner:
    /// `correlated`, or `gaussian` for the Brownian path.
    fn path_mechanism(&self) -> Mechanism;

    /// The purpose of the generator of the one path per owner.
    fn path_purpose(&self) -> Purpose {
        Purpose::Path
    }

    /// The level answering a request at privacy level `eps`; an error names
    /// the level when the family cannot answer it (out of range, below the
    /// smallest rung).
    fn level(&self, eps: f64) -> Result<Self::Level>;

    /// The privacy level an answer at `level` is given at, for a request at
    /// `eps`: `eps` itself, or the rung's ε (never more than asked).
    fn eps_used(&self, eps: f64, level: Self::Level) -> f64;

    /// The highest level whose value a holder of privacy level `eps` may
    /// see (memo §3: the path {V_l : l ≤ level(ε)} is what ε releases):
    /// the level answering `eps`, or `None` when no level is that private
    /// (the discrete chain below its smallest rung; above its largest it
    /// sees every rung).
    fn reach(&self, eps: f64) -> Option<Self::Level> {
        self.level(eps).ok()
    }

    /// E‖noise‖² of one answer at `level`, in value units² (the noise only).
    fn mse(&self, level: Self::Level) -> f64;

    /// P(a `bit` answer — post-processed to 1{y ≥ ½} — equals the owner's
    /// bits `u` ∈ {0, 1}ⁿ) at `level`; NaN where there is no closed form.
    fn correct_prob(&self, level: Self::Level, u: &[f64]) -> Result<f64>;

    /// The generator of `key`.
    fn generator(&self, key: StreamKey) -> Result<Self::Rng>;

    /// The secret as answered (`u` itself, or û on the grid) into `secret`;
    /// returns the squared rounding ‖answer without noise − u‖² (0 where the
    /// secret is used as is). A refusal names `whose` secret, never the value.
    fn prepare(&self, u: &[f64], secret: &mut Vec<Self::Coord>, whose: Whose<'_>) -> Result<f64>;

    /// A bound on the breakpoints of one path covering `[bottom, top]`, for
    /// the memory budget (0: the family's paths are small by construction).
    fn path_breakpoints(&self, _bottom: Self::Level, _top: Self::Level) -> u64 {
        0
    }

    /// Samples one path covering `levels` (any order, the units an owner
    /// answers) into `path`.
    fn sample_path(
        &self,
        levels: &[Self::Level],
        rng: &mut Self::Rng,
        path: &mut Self::Path,
    ) -> Result<()>;

    /// The noise of `path` at `levels[k] == level` (as sampled).
    fn read<'a>(&'a self, path: &'a Self::Path, k: usize, level: Self::Level) -> &'a [Self::Coord];

    /// Fresh noise at `level` into `out` (the independent baseline).
    fn sample_fresh(
        &self,
        level: Self::Level,
        rng: &mut Self::Rng,
        out: &mut [Self::Coord],
    ) -> Result<()>;

    /// The independent baseline when only sums are kept: for each recipient's
    /// unit `k` of `units` (recipients in node order), one fresh draw at
    /// `levels[k]` ([`sample_fresh`](NoiseFamily::sample_fresh)) whose
    /// squared error ([`answer`](NoiseFamily::answer)) is added to
    /// `sums[k]`. `units` is an iterator so that a caller can hand the
    /// recipients straight from a level row, without listing them first. A
    /// family may override it with a loop that gives the same bits faster.
    fn fresh_square_sums(
        &self,
        u: &[f64],
        secret: &[Self::Coord],
        levels: &[Self::Level],
        units: impl IntoIterator<Item = u32>,
        rng: &mut Self::Rng,
        sums: &mut [f64],
    ) -> Result<()> {
        fresh_square_sums_each(self, u, secret, levels, units, rng, sums)
    }

    /// The answer `y` to the value `u` (prepared as `secret`) under `noise`;
    /// returns its squared error ‖y − u‖² as the family accounts it.
    fn answer(
        &self,
        u: &[f64],
        secret: &[Self::Coord],
        noise: &[Self::Coord],
        y: &mut [f64],
    ) -> Result<f64>;

    /// The unit in which squared errors are accumulated across trials (1:
    /// value units). Only grids coarse enough to overflow f64's co-moments
    /// need another (see [`Discrete`]).
    fn error_scale(&self) -> f64 {
        1.0
    }

    /// The error's norm ‖y − u‖ (ℓ1 or ℓ2, the family's) of an answer.
    fn error_norm(&self, u: &[f64], y: &[f64], noise: &[Self::Coord]) -> f64;

    /// Calls `f(level, eps, noise)` for every breakpoint of `path`,
    /// ascending (the first at the path's bottom; each value holds from its
    /// level up to the next breakpoint's), `eps` the privacy level of the
    /// breakpoint (level·Δ, the rung's ε): the path as a step function of
    /// the level, what a lazy jump process is (memo §1–2; discrete §4). A
    /// family whose path is no step function (the Brownian path) refuses.
    fn steps(&self, path: &Self::Path, f: &mut OnStep<'_, Self::Level, Self::Coord>) -> Result<()>;

    /// `noise` in value units into `out`: itself for the f64 families, X·γ
    /// for the discrete chain (exact; refused at 2⁵³ grid steps and beyond,
    /// as an answer is).
    fn noise_value(&self, noise: &[Self::Coord], out: &mut [f64]) -> Result<()>;

    /// Changes (jumps) of a sampled path.
    fn changes(&self, path: &Self::Path) -> u64;

    /// Expected changes of a path from the lowest unit (`lo`, asked at
    /// `eps_lo`) to the highest.
    fn expected_changes(&self, lo: (f64, Self::Level), hi: (f64, Self::Level)) -> f64;

    /// Calls `f(eps, value)` for every breakpoint of `path` (ascending in ε;
    /// the value in value units), given the units it was sampled at.
    fn breakpoints(
        &self,
        path: &Self::Path,
        levels: &[Self::Level],
        eps: &[f64],
        f: &mut dyn FnMut(f64, &[f64]),
    );

    /// Calls `f(eps, size)` for every jump of `path` (ascending in ε, its
    /// size in the family's norm).
    fn jumps(&self, path: &Self::Path, f: &mut dyn FnMut(f64, f64));

    // The privacy loss of a coalition's view (memo §5): the laws differ —
    // f64 formulas with a full-chain cross-check (Laplace), N(μ, 2μ)
    // (Gaussian), exact rationals (discrete) — so each family has its own.

    /// Whether the attacker models members by Gaussian σ (else by Laplace
    /// rates in value units), see [`member_param`](NoiseFamily::member_param).
    const GAUSSIAN_MEMBERS: bool = false;

    /// What the bound of a view's loss is computed from, once per coalition
    /// (the exact rational for the discrete chain).
    type Bound;

    /// The attacker's parameter of a member answered at `level` (asked at
    /// privacy level `eps`): its Laplace rate in value units, or its σ.
    fn member_param(&self, eps: f64, level: Self::Level) -> f64;

    /// The neighbour u' = u + Δ·e₁ in values, and its secret as answered (Δ
    /// in the family's units: Δ_Z grid steps for the discrete chain).
    fn neighbour(
        &self,
        u: &[f64],
        secret: &[Self::Coord],
        u1: &mut Vec<f64>,
        secret1: &mut Vec<Self::Coord>,
    );

    /// The bound of every view's loss under `mech` for members at `levels`.
    fn loss_bound(
        &self,
        mech: Mechanism,
        secret: &[Self::Coord],
        levels: &[Self::Level],
    ) -> Result<Self::Bound>;

    /// The loss of one view under `mech`, against the accounted `eps_bound`
    /// and the exact `bound`. `order` is scratch.
    fn view_loss(
        &self,
        mech: Mechanism,
        view: &ViewRef<'_, Self>,
        eps_bound: f64,
        bound: &Self::Bound,
        order: &mut Vec<usize>,
    ) -> Result<ViewLoss>
    where
        Self: Sized;

    /// Where a distinguishing attack's two hypotheses sit: (u₁ as answered,
    /// the shift to u'₁), in values.
    fn attack_origin(&self, u: &[f64], secret: &[Self::Coord]) -> (f64, f64);

    // A gradual release (memo §3): one secret's path materialised lazily, as
    // requests at levels in any order need it — extended both ways with the
    // latent variance (Laplace), bridged at any variance (Gaussian), walked
    // down from a fixed top (discrete) — so each family has its own.

    /// One secret's lazily materialised path, as a saved release keeps it.
    type Lazy: Clone + Debug + PartialEq + Send + Sync;

    /// The level a release at `eps` (finite, > 0) is answered at; refuses
    /// levels the family does not serve (ε/Δ outside [1e−60, 1e60] for the
    /// f64 families; the discrete chain answers at the rung, or at its fixed
    /// top above it).
    fn release_level(&self, eps: f64) -> Result<Self::Level>;

    /// The noise at `level` (released at `eps`), materialising `lazy`
    /// (`None`: nothing drawn yet) from request `key`'s draws (the f64
    /// families: the generator of `key`; the discrete chain: one stream of
    /// (seed, owner) continued from the position `lazy` keeps). An extension
    /// beyond the memory budget is refused before anything is drawn.
    fn lazy_noise(
        &self,
        lazy: &mut Option<Self::Lazy>,
        level: Self::Level,
        key: StreamKey,
        eps: f64,
    ) -> Result<Vec<Self::Coord>>;

    /// The noise of `lazy` at `level` where it is materialised.
    fn lazy_read<'a>(&self, lazy: &'a Self::Lazy, level: Self::Level) -> Option<&'a [Self::Coord]>;

    /// Checks a restored `lazy` against the family (the latent's length, the
    /// walk's configuration); an error names the saved key it concerns.
    fn check_lazy(&self, _lazy: &Self::Lazy) -> std::result::Result<(), (&'static str, String)> {
        Ok(())
    }

    /// Checks a restored `lazy` drawn from a seeded stream by drawing it
    /// again (issue 33 item 7): from `key`'s stream at word 0 down to the
    /// lowest of the history's `levels`, it must be the stored path and
    /// stream position exactly, so that an edited seed, stream, path or
    /// position (a stream rewound to draw one secret's noise twice) is
    /// refused. Families whose saved noise is checked otherwise keep the
    /// default.
    fn check_replay(
        &self,
        _lazy: &Self::Lazy,
        _key: StreamKey,
        _levels: &[Self::Level],
    ) -> std::result::Result<(), (&'static str, String)> {
        Ok(())
    }

    /// Breakpoints (or points) `lazy` holds, for memory estimates.
    fn lazy_points(&self, lazy: &Self::Lazy) -> u64;

    /// This family's slot in `lazies`.
    fn lazy_slot(lazies: &mut Lazies) -> &mut Option<Self::Lazy>;

    /// What this family's slot in `lazies` holds.
    fn lazy_ref(lazies: &Lazies) -> Option<&Self::Lazy>;

    // One path walked down level by level, for engines that meet an owner's
    // recipients nearest first and never know the lowest level in advance
    // (the utility's bit-parallel search): the Laplace process from the
    // run's top ([`DownWalk`](crate::process::DownWalk)), the chain from the
    // owner's first rung through every rung below
    // ([`DiscreteWalk`](crate::process::discrete::DiscreteWalk)), the
    // Brownian motion by independent increments.

    /// One owner's path as it is walked down.
    type Walk: Default + Send;

    /// Starts `walk` (reusing its buffers): a path first read at `first`
    /// and then at lower levels only; `top` ≥ `first` is the largest level
    /// of the run. The f64 processes start at `top` from their marginal; the
    /// discrete chain starts at `first` (the chain of the owner's largest
    /// needed rung is simulate's path, memo `discrete.md` §4).
    fn start_walk(
        &self,
        top: Self::Level,
        first: Self::Level,
        rng: &mut Self::Rng,
        walk: &mut Self::Walk,
    ) -> Result<()>;

    /// The noise of a started `walk` at `level`, walking down to it (levels
    /// non-increasing from call to call).
    fn walk_to<'w>(
        &self,
        walk: &'w mut Self::Walk,
        level: Self::Level,
        rng: &mut Self::Rng,
    ) -> Result<&'w [Self::Coord]>;

    /// Changes (jumps) of a walk so far.
    fn walk_changes(&self, walk: &Self::Walk) -> u64;

    // Closed forms of single answers that estimators built on many answers
    // use (the utility's means, debiased bits and shrinkage).

    /// [`level`](NoiseFamily::level), refusing a level outside the range
    /// the family's sums are computed in (limits: "The range of privacy
    /// levels"); the error names the privacy map `spec` and where the level
    /// is used (`at`, e.g. "distance 3").
    fn checked_level(&self, eps: f64, _spec: &str, _at: &str) -> Result<Self::Level> {
        self.level(eps)
    }

    /// Var of one coordinate of an answer's noise at `level`, in value
    /// units² ([`mse`](NoiseFamily::mse)/n, as the family computes it).
    fn coord_variance(&self, level: Self::Level) -> f64;

    /// The law of a bit answered as 1{y ≥ ½} at `level` (one dimension):
    /// its flip probabilities and the debiasing they imply.
    fn bit_flips(&self, level: Self::Level) -> Result<BitFlips>;

    /// `Some(λ)` when each coordinate of fresh noise at `level` is an
    /// independent Laplace(1/λ) in value units (the Laplace family in ℓ1,
    /// or in one dimension): sums of such noise have exact laws drawn at
    /// once, a normal scale mixture with Gamma weights (Laplace(b) =
    /// b·√(2W)·Z, W ~ Exp(1), Z ~ N(0, 1)).
    fn laplace_rate(&self, _level: Self::Level) -> Option<f64> {
        None
    }

    /// The step γ of the grid answers are exact on (the discrete chain),
    /// `None` for the f64 families. On a grid the secret is rounded to it (a
    /// bias engines account, [`prepare`](NoiseFamily::prepare)), bits flip
    /// according to their rounded values, and sums of answers are exact
    /// integer sums — so fresh answers are drawn one by one and every
    /// statistic of them is read off the same draws (a sum of c exact draws
    /// costs c draws anyway; an f64 mixture would not be exact).
    fn grid(&self) -> Option<f64> {
        None
    }
}

/// The law of a bit answered as 1{y ≥ ½} ([`NoiseFamily::bit_flips`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BitFlips {
    /// [P(flip | bit 0), P(flip | bit 1)] (equal for symmetric f64 noise;
    /// on a grid finer than ½ ties go up, so they differ).
    pub flip: [f64; 2],
    /// 1 − f₀ − f₁ as the family computes it: the debiased answer to a bit
    /// b answered b̃ is (b̃ − f₀)/keep, unbiased for b.
    pub keep: f64,
}

impl BitFlips {
    /// Variance of the debiased answer of bit 0 and of bit 1:
    /// f_b(1 − f_b)/keep².
    pub fn debiased_variance(&self) -> [f64; 2] {
        let s = self.keep;
        self.flip.map(|f| f * (1.0 - f) / (s * s))
    }
}

/// What [`NoiseFamily::steps`] calls for each breakpoint: its level, its ε
/// and its noise.
pub type OnStep<'f, L, C> = dyn FnMut(L, f64, &[C]) + 'f;

/// One secret's lazily materialised noise, one slot per family (a release
/// fills its own family's): the keys of a saved release.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lazies {
    /// The Laplace path with its top latent.
    pub laplace: Option<LazyLaplace>,
    /// The Brownian path.
    pub gaussian: Option<BrownianPath>,
    /// The discrete walk and its stream position.
    pub discrete: Option<DiscreteState>,
}

/// The process level ε/Δ of a release at `eps`, refused outside the range
/// every f64 mechanism serves ([`crate::limits`], "The range of privacy
/// levels").
pub fn release_range(eps: f64, sensitivity: f64) -> Result<f64> {
    let q = eps / sensitivity;
    if (LEVEL_MIN..=LEVEL_MAX).contains(&q) {
        Ok(q)
    } else {
        Err(Error::param(
            "eps",
            eps,
            format!(
                "ε/Δ between {LEVEL_MIN:e} and {LEVEL_MAX:e} (noise must stay within f64 range)"
            ),
        ))
    }
}

/// One coalition's view as an audit reads it: the members' answers
/// (members × n, values), their noise and levels, the attacker's parameters,
/// the value u and the secret as answered.
pub struct ViewRef<'a, F: NoiseFamily> {
    /// Answers in values.
    pub answers: &'a [f64],
    /// The members' noise.
    pub noise: &'a [F::Coord],
    /// The members' levels.
    pub levels: &'a [F::Level],
    /// The attacker's parameters ([`NoiseFamily::member_param`]).
    pub params: &'a [f64],
    /// The value.
    pub u: &'a [f64],
    /// The secret as answered.
    pub secret: &'a [F::Coord],
}

/// The privacy loss of one view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewLoss {
    /// ln p(view | u)/p(view | u').
    pub loss: f64,
    /// Whether it exceeds the mechanism's bound.
    pub over: bool,
    /// |ε*-formula − full-chain| (Laplace correlated, n = 1 or ℓ1).
    pub chain: Option<f64>,
}

/// Relative slack of the "|L| ≤ bound on every view" check of the f64
/// Laplace losses (λ·Δ and ε differ by rounding).
pub const BOUND_SLACK: f64 = 1e-12;

/// Runs a generic computation with the family of a [`Noise`]
/// ([`Noise::visit`]): the one place where the family is chosen.
pub trait Visit {
    /// What the computation returns.
    type Out;
    /// The computation, monomorphised per family.
    fn run<F: NoiseFamily>(self, family: &F) -> Self::Out;
}

/// The noise of a run, chosen once at the top.
#[derive(Clone, Debug, PartialEq)]
pub enum Noise {
    /// The lazy Laplace process in f64.
    Laplace(Laplace),
    /// The Brownian process by variance, (ε, δ)-DP.
    Gaussian(Gaussian),
    /// The exact integer chain on a grid.
    Discrete(Discrete),
}

impl Noise {
    /// Runs `v` with this family.
    pub fn visit<V: Visit>(&self, v: V) -> V::Out {
        match self {
            Noise::Laplace(f) => v.run(f),
            Noise::Gaussian(f) => v.run(f),
            Noise::Discrete(f) => v.run(f),
        }
    }

    /// The discrete family, if this is it.
    pub fn discrete(&self) -> Option<&Discrete> {
        match self {
            Noise::Discrete(d) => Some(d),
            _ => None,
        }
    }

    /// The mechanism recorded for the one path per owner.
    pub fn path_mechanism(&self) -> Mechanism {
        struct M;
        impl Visit for M {
            type Out = Mechanism;
            fn run<F: NoiseFamily>(self, f: &F) -> Mechanism {
                f.path_mechanism()
            }
        }
        self.visit(M)
    }
}

/// [`NoiseFamily::fresh_square_sums`] answer by answer: the definition every
/// faster override must reproduce bit for bit.
pub fn fresh_square_sums_each<F: NoiseFamily + ?Sized>(
    fam: &F,
    u: &[f64],
    secret: &[F::Coord],
    levels: &[F::Level],
    units: impl IntoIterator<Item = u32>,
    rng: &mut F::Rng,
    sums: &mut [f64],
) -> Result<()> {
    let mut noise = vec![F::Coord::default(); u.len()];
    let mut y = vec![0.0; u.len()];
    for k in units {
        let k = k as usize;
        fam.sample_fresh(levels[k], rng, &mut noise)?;
        sums[k] += fam.answer(u, secret, &noise, &mut y)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;

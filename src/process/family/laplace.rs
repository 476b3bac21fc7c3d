//! [`Laplace`]: the lazy Laplace process in f64 (memo §1–2), at process level
//! ε/Δ. A path is the breakpoint list of [`NoisePath`]; fresh noise is the
//! optimal marginal ([`sample_marginal`]); an answer is u + V.

use super::continuous;
use super::laplace_lazy::LazyLaplace;
use super::loss::{correlated_loss, correlated_loss_full_chain, independent_loss};
use super::{
    BOUND_SLACK, BitFlips, Lazies, NoiseFamily, OnStep, StreamKey, ViewLoss, ViewRef, Whose,
    fresh_square_sums_each, release_range,
};
use crate::error::{Error, Result};
use crate::limits;
use crate::process::laplace::laplace;
use crate::process::mechanism::Mechanism;
use crate::process::{DownWalk, NoisePath, Norm, PathSampler, sample_marginal};
use crate::rng::{PrivRng, rng_for, rng_for_stream};

/// The Laplace family: dimension, norm and sensitivity Δ (noise at privacy
/// level ε has scale Δ/ε).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Laplace {
    dim: usize,
    norm: Norm,
    sensitivity: f64,
}

impl Laplace {
    /// Validates the parameters (`dim` in 1..=`MAX_DIM`, Δ finite > 0).
    pub fn new(dim: usize, norm: Norm, sensitivity: f64) -> Result<Laplace> {
        crate::process::check_dim("dim", dim)?;
        crate::process::check_sensitivity(sensitivity)?;
        Ok(Laplace {
            dim,
            norm,
            sensitivity,
        })
    }

    /// The family of `sampler`'s paths, whose levels are privacy levels
    /// themselves (Δ = 1).
    pub fn of_sampler(sampler: &PathSampler) -> Laplace {
        Laplace {
            dim: sampler.dim(),
            norm: sampler.norm(),
            sensitivity: 1.0,
        }
    }

    /// The norm of the privacy metric.
    pub fn norm(&self) -> Norm {
        self.norm
    }

    /// Sensitivity Δ.
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }
}

/// A Laplace path walked down from the run's top ([`DownWalk`]) and the
/// value it holds.
#[derive(Clone, Debug, Default)]
pub struct LaplaceWalk {
    walk: Option<DownWalk>,
    value: Vec<f64>,
}

/// The error of a walk read before it started (an engine's mistake).
pub(super) fn unstarted() -> Error {
    Error::Numerical("a path walk was read before it started".into())
}

/// The generator of `key` from the seeded ChaCha8 streams.
pub(super) fn seeded(key: StreamKey) -> PrivRng {
    match key.stream {
        None => rng_for(key.seed, key.owner, key.trial, key.purpose),
        Some(s) => rng_for_stream(key.seed, key.owner, key.trial, key.purpose, s),
    }
}

impl NoiseFamily for Laplace {
    type Level = f64;
    type Coord = f64;
    type Path = NoisePath;
    type Rng = PrivRng;

    fn dim(&self) -> usize {
        self.dim
    }

    fn path_mechanism(&self) -> Mechanism {
        Mechanism::Correlated
    }

    #[inline]
    fn level(&self, eps: f64) -> Result<f64> {
        Ok(eps / self.sensitivity)
    }

    #[inline]
    fn eps_used(&self, eps: f64, _level: f64) -> f64 {
        eps
    }

    #[inline]
    fn mse(&self, level: f64) -> f64 {
        self.norm.mse_factor(self.dim) / (level * level)
    }

    fn correct_prob(&self, level: f64, _u: &[f64]) -> Result<f64> {
        // Per coordinate 1 − ½·e^{−ε/(2Δ)} for Laplace noise of scale Δ/ε
        // (1-D, or ℓ1 whose coordinates are independent): docs/simulate.md,
        // "Correct bits".
        if self.dim == 1 || self.norm == Norm::L1 {
            Ok((1.0 - 0.5 * (-0.5 * level).exp()).powi(self.dim as i32))
        } else {
            Ok(f64::NAN)
        }
    }

    fn generator(&self, key: StreamKey) -> Result<PrivRng> {
        Ok(seeded(key))
    }

    fn prepare(&self, u: &[f64], secret: &mut Vec<f64>, _whose: Whose<'_>) -> Result<f64> {
        Ok(continuous::prepare(u, secret))
    }

    fn path_breakpoints(&self, bottom: f64, top: f64) -> u64 {
        limits::path_breakpoints(self.norm.jump_rate(self.dim), bottom, top)
    }

    fn sample_path(&self, levels: &[f64], rng: &mut PrivRng, path: &mut NoisePath) -> Result<()> {
        let lo = levels.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = levels.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        PathSampler::new(self.dim, self.norm, lo, hi)?.sample_into(rng, path);
        Ok(())
    }

    #[inline]
    fn read<'a>(&'a self, path: &'a NoisePath, _k: usize, level: f64) -> &'a [f64] {
        path.value_at(level)
    }

    #[inline]
    fn sample_fresh(&self, level: f64, rng: &mut PrivRng, out: &mut [f64]) -> Result<()> {
        sample_marginal(self.norm, level, out, rng);
        Ok(())
    }

    /// One scalar ℓ1 draw per answer without the per-answer slices: the same
    /// generator calls, `laplace(rng, 1/ε)` and `x²` (the one-term sum of
    /// [`answer`](NoiseFamily::answer)) as answer by answer. A run of
    /// recipients of one unit (consecutive nodes mostly share a hop) keeps
    /// that unit's sum and scale in locals: the same additions in the
    /// same order, stored when the unit changes, and one division per run.
    fn fresh_square_sums(
        &self,
        u: &[f64],
        secret: &[f64],
        levels: &[f64],
        units: impl IntoIterator<Item = u32>,
        rng: &mut PrivRng,
        sums: &mut [f64],
    ) -> Result<()> {
        if self.dim != 1 || self.norm != Norm::L1 || u.len() != 1 {
            return fresh_square_sums_each(self, u, secret, levels, units, rng, sums);
        }
        let mut units = units.into_iter();
        let Some(first) = units.next() else {
            return Ok(());
        };
        // One draw added to the run's sum (a closure: the loop it makes
        // measured faster than the same statements written inline).
        let mut add = |sum: &mut f64, scale: f64| {
            let x = laplace(rng, scale);
            *sum += x * x;
        };
        let mut at = first as usize;
        let (mut sum, mut scale) = (sums[at], 1.0 / levels[at]);
        add(&mut sum, scale);
        for k in units {
            let k = k as usize;
            if k != at {
                sums[at] = sum;
                at = k;
                (sum, scale) = (sums[k], 1.0 / levels[k]);
            }
            add(&mut sum, scale);
        }
        sums[at] = sum;
        Ok(())
    }

    #[inline]
    fn answer(&self, u: &[f64], _secret: &[f64], noise: &[f64], y: &mut [f64]) -> Result<f64> {
        Ok(continuous::answer(u, noise, y))
    }

    fn error_norm(&self, _u: &[f64], _y: &[f64], noise: &[f64]) -> f64 {
        self.norm.norm_of(noise)
    }

    fn steps(&self, path: &NoisePath, f: &mut OnStep<'_, f64, f64>) -> Result<()> {
        for (level, v) in path.breakpoints() {
            f(level, level * self.sensitivity, v);
        }
        Ok(())
    }

    fn noise_value(&self, noise: &[f64], out: &mut [f64]) -> Result<()> {
        out.copy_from_slice(noise);
        Ok(())
    }

    fn changes(&self, path: &NoisePath) -> u64 {
        path.num_jumps() as u64
    }

    fn expected_changes(&self, lo: (f64, f64), hi: (f64, f64)) -> f64 {
        self.norm.jump_rate(self.dim) * (hi.0.ln() - lo.0.ln())
    }

    fn breakpoints(
        &self,
        path: &NoisePath,
        _levels: &[f64],
        _eps: &[f64],
        f: &mut dyn FnMut(f64, &[f64]),
    ) {
        for (e, v) in path.breakpoints() {
            f(e * self.sensitivity, v);
        }
    }

    fn jumps(&self, path: &NoisePath, f: &mut dyn FnMut(f64, f64)) {
        for j in path.jumps() {
            f(j.eps * self.sensitivity, j.size(self.norm));
        }
    }

    type Bound = ();

    fn member_param(&self, _eps: f64, level: f64) -> f64 {
        level
    }

    fn neighbour(&self, u: &[f64], _secret: &[f64], u1: &mut Vec<f64>, secret1: &mut Vec<f64>) {
        continuous::neighbour(u, self.sensitivity, u1, secret1);
    }

    fn loss_bound(&self, _mech: Mechanism, _secret: &[f64], _levels: &[f64]) -> Result<()> {
        Ok(())
    }

    fn view_loss(
        &self,
        mech: Mechanism,
        v: &ViewRef<'_, Self>,
        eps_bound: f64,
        _bound: &(),
        order: &mut Vec<usize>,
    ) -> Result<ViewLoss> {
        let (n, delta, norm) = (self.dim, self.sensitivity, self.norm);
        let (loss, chain) = if mech == Mechanism::Correlated {
            let l = correlated_loss(v.answers, n, v.params, v.u, delta, norm);
            let chain = (n == 1 || norm == Norm::L1).then(|| {
                let fc = correlated_loss_full_chain(v.answers, n, v.params, v.u[0], delta, order);
                (l - fc.loss).abs()
            });
            (l, chain)
        } else {
            (
                independent_loss(v.answers, n, v.params, v.u, delta, norm),
                None,
            )
        };
        Ok(ViewLoss {
            loss,
            over: loss.abs() > eps_bound * (1.0 + BOUND_SLACK),
            chain,
        })
    }

    fn attack_origin(&self, u: &[f64], _secret: &[f64]) -> (f64, f64) {
        (u[0], self.sensitivity)
    }

    type Lazy = LazyLaplace;

    fn release_level(&self, eps: f64) -> Result<f64> {
        release_range(eps, self.sensitivity)
    }

    /// Each request draws from its own generator (memo §3: a lookup, the
    /// walk down, or the latent forward step).
    fn lazy_noise(
        &self,
        lazy: &mut Option<LazyLaplace>,
        level: f64,
        key: StreamKey,
        eps: f64,
    ) -> Result<Vec<f64>> {
        let mut rng = seeded(key);
        match lazy {
            Some(l) => l.noise_at(self.norm, level, eps, self.sensitivity, &mut rng),
            None => {
                let (l, v) = LazyLaplace::first(self.norm, self.dim, level, &mut rng)?;
                *lazy = Some(l);
                Ok(v)
            }
        }
    }

    fn lazy_read<'a>(&self, lazy: &'a LazyLaplace, level: f64) -> Option<&'a [f64]> {
        let p = lazy.path();
        p.contains(level).then(|| p.value_at(level))
    }

    /// The latent: one per coordinate (ℓ1), one in total (ℓ2), or none.
    fn check_lazy(&self, lazy: &LazyLaplace) -> std::result::Result<(), (&'static str, String)> {
        let l = lazy.top_latent();
        let want = match self.norm {
            Norm::L1 => self.dim,
            Norm::L2 => 1,
        };
        if (l.is_empty() || l.len() == want) && l.iter().all(|s| s.is_finite() && *s > 0.0) {
            return Ok(());
        }
        Err((
            "top_latent",
            format!("top_latent {l:?}: expected {want} finite numbers > 0, or none"),
        ))
    }

    fn lazy_points(&self, lazy: &LazyLaplace) -> u64 {
        lazy.path().len() as u64
    }

    fn lazy_slot(lazies: &mut Lazies) -> &mut Option<LazyLaplace> {
        &mut lazies.laplace
    }

    fn lazy_ref(lazies: &Lazies) -> Option<&LazyLaplace> {
        lazies.laplace.as_ref()
    }

    type Walk = LaplaceWalk;

    fn start_walk(
        &self,
        top: f64,
        _first: f64,
        rng: &mut PrivRng,
        walk: &mut LaplaceWalk,
    ) -> Result<()> {
        walk.value.resize(self.dim, 0.0);
        walk.walk = Some(DownWalk::start(self.norm, top, &mut walk.value, rng));
        Ok(())
    }

    #[inline]
    fn walk_to<'w>(
        &self,
        walk: &'w mut LaplaceWalk,
        level: f64,
        rng: &mut PrivRng,
    ) -> Result<&'w [f64]> {
        let w = walk.walk.as_mut().ok_or_else(unstarted)?;
        w.descend_to(level, &mut walk.value, rng);
        Ok(&walk.value)
    }

    fn walk_changes(&self, walk: &LaplaceWalk) -> u64 {
        walk.walk.map_or(0, |w| w.jumps())
    }

    /// ε ∈ [[`EPS_MIN`](limits::EPS_MIN), [`EPS_MAX`](limits::EPS_MAX)] and
    /// ε/Δ ∈ [[`LEVEL_MIN`](limits::LEVEL_MIN), [`LEVEL_MAX`](limits::LEVEL_MAX)].
    fn checked_level(&self, eps: f64, spec: &str, at: &str) -> Result<f64> {
        match limits::level_error(spec, eps, at, self.sensitivity) {
            Some(e) => Err(e),
            None => self.level(eps),
        }
    }

    /// mse_factor(n)/(n·λ²): the coordinates of ℓ1 and of ℓ2 noise share
    /// the variance.
    #[inline]
    fn coord_variance(&self, level: f64) -> f64 {
        self.norm.mse_factor(self.dim) / (self.dim as f64 * level * level)
    }

    /// q = P(V ≥ ½) = ½·e^(−λ/2) for either bit, keep = 1 − 2q.
    fn bit_flips(&self, level: f64) -> Result<BitFlips> {
        let q = 0.5 * (-0.5 * level).exp();
        Ok(BitFlips {
            flip: [q, q],
            keep: 1.0 - 2.0 * q,
        })
    }

    fn laplace_rate(&self, level: f64) -> Option<f64> {
        (self.norm == Norm::L1 || self.dim == 1).then_some(level)
    }
}

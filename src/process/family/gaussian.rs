//! [`Gaussian`]: the Brownian process indexed by variance (memo §4), at level
//! σ(ε, δ, Δ)² of the analytic Gaussian mechanism. One owner's path is the
//! Brownian motion sampled at exactly the variances its recipients need
//! ([`brownian_at`]); there is no fresh-noise baseline (refused upstream).

use super::continuous;
use super::laplace::{seeded, unstarted};
use super::loss::gaussian_loss;
use super::{
    BitFlips, Lazies, NoiseFamily, OnStep, StreamKey, ViewLoss, ViewRef, Whose, release_range,
};
use crate::error::{Error, Result};
use crate::process::Norm;
use crate::process::calibration::{Calibration, normal_cdf};
use crate::process::gaussian::BrownianPath;
use crate::process::laplace::std_normal;
use crate::process::mechanism::Mechanism;
use crate::rng::{PrivRng, Purpose};
use rand::Rng;

/// The Gaussian family: dimension, the norm errors are measured in, ℓ2
/// sensitivity Δ, δ and the calibration of σ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gaussian {
    dim: usize,
    norm: Norm,
    sensitivity: f64,
    delta: f64,
    calibration: Calibration,
}

impl Gaussian {
    /// Validates the parameters (`dim` in 1..=`MAX_DIM`, Δ finite > 0, δ in
    /// (0, 1)).
    pub fn new(dim: usize, norm: Norm, sensitivity: f64, delta: f64) -> Result<Gaussian> {
        crate::process::check_dim("dim", dim)?;
        crate::process::check_sensitivity(sensitivity)?;
        crate::process::check_delta(delta)?;
        // σ is calibrated to the ℓ2 sensitivity: an ℓ1 request in n ≥ 2
        // coordinates (where the norms differ) used to run ℓ2 silently.
        if norm == Norm::L1 && dim >= 2 {
            return Err(Error::param(
                "norm",
                "l1",
                "l2 for the Gaussian mechanism in 2 or more coordinates (it is calibrated to \
                 ℓ2 sensitivity)",
            ));
        }
        Ok(Gaussian {
            dim,
            norm,
            sensitivity,
            delta,
            calibration: Calibration::Analytic,
        })
    }

    /// The same family with σ calibrated by `calibration` (default: the
    /// analytic Gaussian mechanism).
    pub fn with_calibration(self, calibration: Calibration) -> Gaussian {
        Gaussian {
            calibration,
            ..self
        }
    }

    /// δ.
    pub fn delta(&self) -> f64 {
        self.delta
    }

    /// σ at privacy level `eps` (by default the analytic Gaussian
    /// mechanism, Balle & Wang 2018).
    pub fn sigma(&self, eps: f64) -> Result<f64> {
        self.calibration.sigma(eps, self.delta, self.sensitivity)
    }
}

/// A level of the Gaussian family: the noise's standard deviation σ(ε, δ, Δ)
/// per coordinate (the Brownian motion is indexed by its variance σ²).
/// Ordered like the privacy levels: a smaller σ is the larger level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sigma(pub f64);

impl PartialOrd for Sigma {
    fn partial_cmp(&self, other: &Sigma) -> Option<std::cmp::Ordering> {
        other.0.partial_cmp(&self.0)
    }
}

impl Sigma {
    /// The variance σ².
    #[inline]
    pub fn var(self) -> f64 {
        self.0 * self.0
    }
}

/// The Brownian motion walked up in variance (down in ε): the variance of
/// the value held (`None` before the walk starts) and the value.
#[derive(Clone, Debug, Default)]
pub struct BrownianWalk {
    var: Option<f64>,
    value: Vec<f64>,
}

/// The Brownian motion at the variances of one owner's units (unit order).
#[derive(Clone, Debug, Default)]
pub struct BrownianSample {
    order: Vec<u32>,
    vars: Vec<f64>,
    values: Vec<f64>,
}

impl NoiseFamily for Gaussian {
    type Level = Sigma;
    type Coord = f64;
    type Path = BrownianSample;
    type Rng = PrivRng;

    const COSTLY_LEVEL: bool = true;

    fn dim(&self) -> usize {
        self.dim
    }

    fn path_mechanism(&self) -> Mechanism {
        Mechanism::Gaussian
    }

    fn path_purpose(&self) -> Purpose {
        Purpose::Gaussian
    }

    fn level(&self, eps: f64) -> Result<Sigma> {
        self.sigma(eps).map(Sigma)
    }

    fn eps_used(&self, eps: f64, _level: Sigma) -> f64 {
        eps
    }

    fn mse(&self, level: Sigma) -> f64 {
        self.dim as f64 * level.var()
    }

    fn correct_prob(&self, level: Sigma, _u: &[f64]) -> Result<f64> {
        // Φ(1/(2σ)) per coordinate (σ as √σ², bit for bit the earlier engine).
        Ok(normal_cdf(0.5 / level.var().sqrt()).powi(self.dim as i32))
    }

    fn generator(&self, key: StreamKey) -> Result<PrivRng> {
        Ok(seeded(key))
    }

    fn prepare(&self, u: &[f64], secret: &mut Vec<f64>, _whose: Whose<'_>) -> Result<f64> {
        Ok(continuous::prepare(u, secret))
    }

    fn sample_path(
        &self,
        levels: &[Sigma],
        rng: &mut PrivRng,
        path: &mut BrownianSample,
    ) -> Result<()> {
        path.vars.clear();
        path.vars.extend(levels.iter().map(|l| l.var()));
        path.values.resize(levels.len() * self.dim, 0.0);
        brownian_at(self.dim, &path.vars, rng, &mut path.order, &mut path.values);
        Ok(())
    }

    fn read<'a>(&'a self, path: &'a BrownianSample, k: usize, _level: Sigma) -> &'a [f64] {
        &path.values[k * self.dim..(k + 1) * self.dim]
    }

    fn sample_fresh(&self, _level: Sigma, _rng: &mut PrivRng, _out: &mut [f64]) -> Result<()> {
        Err(Error::param(
            "mechanism",
            "independent",
            "correlated: the Gaussian noise has no independent baseline",
        ))
    }

    fn answer(&self, u: &[f64], _secret: &[f64], noise: &[f64], y: &mut [f64]) -> Result<f64> {
        Ok(continuous::answer(u, noise, y))
    }

    fn error_norm(&self, _u: &[f64], _y: &[f64], noise: &[f64]) -> f64 {
        self.norm.norm_of(noise)
    }

    /// The Brownian path is continuous: no step function.
    fn steps(&self, _path: &BrownianSample, _f: &mut OnStep<'_, Sigma, f64>) -> Result<()> {
        Err(Error::param(
            "mechanism",
            "gaussian",
            "a lazy jump process (laplace or discrete noise): the Brownian path has no \
             breakpoints to list, trim or walk",
        ))
    }

    fn noise_value(&self, noise: &[f64], out: &mut [f64]) -> Result<()> {
        out.copy_from_slice(noise);
        Ok(())
    }

    fn changes(&self, _path: &BrownianSample) -> u64 {
        0
    }

    fn expected_changes(&self, _lo: (f64, Sigma), _hi: (f64, Sigma)) -> f64 {
        0.0
    }

    /// The Brownian path is continuous: what exists of it are its values at
    /// the levels answered, ascending in ε.
    fn breakpoints(
        &self,
        path: &BrownianSample,
        levels: &[Sigma],
        eps: &[f64],
        f: &mut dyn FnMut(f64, &[f64]),
    ) {
        let mut order: Vec<usize> = (0..levels.len()).collect();
        order.sort_by(|&a, &b| eps[a].total_cmp(&eps[b]));
        for k in order {
            f(eps[k], self.read(path, k, levels[k]));
        }
    }

    fn jumps(&self, _path: &BrownianSample, _f: &mut dyn FnMut(f64, f64)) {}

    const GAUSSIAN_MEMBERS: bool = true;
    type Bound = ();

    fn member_param(&self, _eps: f64, level: Sigma) -> f64 {
        level.0
    }

    fn neighbour(&self, u: &[f64], _secret: &[f64], u1: &mut Vec<f64>, secret1: &mut Vec<f64>) {
        continuous::neighbour(u, self.sensitivity, u1, secret1);
    }

    fn loss_bound(&self, _mech: Mechanism, _secret: &[f64], _levels: &[Sigma]) -> Result<()> {
        Ok(())
    }

    /// An (ε, δ) guarantee: views whose loss exceeds ε are counted (they
    /// occur with small probability), never refused.
    fn view_loss(
        &self,
        _mech: Mechanism,
        v: &ViewRef<'_, Self>,
        eps_bound: f64,
        _bound: &(),
        _order: &mut Vec<usize>,
    ) -> Result<ViewLoss> {
        let loss = gaussian_loss(v.answers, self.dim, v.params, v.u, self.sensitivity);
        Ok(ViewLoss {
            loss,
            over: loss > eps_bound,
            chain: None,
        })
    }

    fn attack_origin(&self, u: &[f64], _secret: &[f64]) -> (f64, f64) {
        (u[0], self.sensitivity)
    }

    type Lazy = BrownianPath;

    fn release_level(&self, eps: f64) -> Result<Sigma> {
        release_range(eps, self.sensitivity)?;
        self.level(eps)
    }

    /// Each request draws from its own generator: the Brownian path at σ²,
    /// bridged between the variances drawn before (memo §4).
    fn lazy_noise(
        &self,
        lazy: &mut Option<BrownianPath>,
        level: Sigma,
        key: StreamKey,
        _eps: f64,
    ) -> Result<Vec<f64>> {
        let mut rng = seeded(key);
        let path = match lazy {
            Some(p) => p,
            None => lazy.insert(BrownianPath::new(self.dim)?),
        };
        Ok(path.sample_at(level.0 * level.0, &mut rng)?.to_vec())
    }

    fn lazy_read<'a>(&self, lazy: &'a BrownianPath, level: Sigma) -> Option<&'a [f64]> {
        lazy.value_at_var(level.0 * level.0)
    }

    fn lazy_points(&self, lazy: &BrownianPath) -> u64 {
        lazy.vars().len() as u64
    }

    fn lazy_slot(lazies: &mut Lazies) -> &mut Option<BrownianPath> {
        &mut lazies.gaussian
    }

    fn lazy_ref(lazies: &Lazies) -> Option<&BrownianPath> {
        lazies.gaussian.as_ref()
    }

    type Walk = BrownianWalk;

    /// B(σ_top²) ~ N(0, σ_top² I).
    fn start_walk(
        &self,
        top: Sigma,
        _first: Sigma,
        rng: &mut PrivRng,
        walk: &mut BrownianWalk,
    ) -> Result<()> {
        // σ as √σ², as `brownian_at` draws the first value.
        let sd = top.var().sqrt();
        walk.value.clear();
        walk.value
            .extend((0..self.dim).map(|_| sd * std_normal(rng)));
        walk.var = Some(top.var());
        Ok(())
    }

    /// Independent increments N(0, (σ² − σ_held²) I) (memo §4).
    fn walk_to<'w>(
        &self,
        walk: &'w mut BrownianWalk,
        level: Sigma,
        rng: &mut PrivRng,
    ) -> Result<&'w [f64]> {
        let held = walk.var.ok_or_else(unstarted)?;
        let s = level.var();
        if s > held {
            let sd = (s - held).sqrt();
            for x in &mut walk.value {
                *x += sd * std_normal(rng);
            }
            walk.var = Some(s);
        }
        Ok(&walk.value)
    }

    fn walk_changes(&self, _walk: &BrownianWalk) -> u64 {
        0
    }

    fn coord_variance(&self, level: Sigma) -> f64 {
        level.var()
    }

    /// P(N(0, σ²) ≥ ½) = Φ(−1/(2σ)) for either bit, keep = 1 − 2f.
    fn bit_flips(&self, level: Sigma) -> Result<BitFlips> {
        let f = normal_cdf(-0.5 / level.0);
        Ok(BitFlips {
            flip: [f, f],
            keep: 1.0 - 2.0 * f,
        })
    }
}

/// A Brownian path in Rⁿ sampled at the variances `vars` (any order; equal
/// variances get bitwise-equal values): `out[k·n..(k+1)·n] = B(vars[k])`.
/// `order` is scratch. Memo §4: B(s₁) ~ N(0, s₁ I), then independent
/// increments N(0, (s_{k+1} − s_k) I) in ascending variance.
pub fn brownian_at<R: Rng + ?Sized>(
    dim: usize,
    vars: &[f64],
    rng: &mut R,
    order: &mut Vec<u32>,
    out: &mut [f64],
) {
    order.clear();
    order.extend(0..vars.len() as u32);
    order.sort_unstable_by(|&a, &b| vars[a as usize].total_cmp(&vars[b as usize]));
    let mut prev_s = 0.0;
    let mut prev: Option<usize> = None;
    for &k in order.iter() {
        let k = k as usize;
        let s = vars[k];
        match prev {
            Some(p) if s == prev_s => {
                out.copy_within(p * dim..(p + 1) * dim, k * dim);
            }
            _ => {
                let sd = (s - prev_s).max(0.0).sqrt();
                for i in 0..dim {
                    let base = prev.map_or(0.0, |p| out[p * dim + i]);
                    out[k * dim + i] = base + sd * std_normal(rng);
                }
            }
        }
        prev = Some(k);
        prev_s = s;
    }
}

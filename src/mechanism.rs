//! Mechanisms: how one owner's answers to its recipients are noised.
//!
//! * [`Mechanism::Correlated`] — one lazy Laplace path per owner over the range
//!   of levels its recipients need; recipient j gets `u + V_{ε_j/Δ}`. A coalition
//!   learns no more than its best member (max ε).
//! * [`Mechanism::Independent`] — the naive baseline: fresh noise of the same law
//!   per recipient. Each answer alone is as accurate; a coalition composes (Σ ε).
//! * [`Mechanism::Gaussian`] — the (ε, δ) variant: one Brownian path indexed by
//!   variance, recipient j gets `u + B(σ(ε_j, δ)²)` (memo §4).
//!
//! Sensitivity Δ ≠ 1 runs the process at level ε/Δ (noise scale Δ/ε).

use crate::error::Result;
use crate::process::{NoisePath, Norm, PathSampler, sample_marginal};
use rand::Rng;

pub use crate::process::family::gaussian::brownian_at;
pub use crate::process::mechanism::{
    Mechanism, MechanismChoice, NOISE_NAMES, NoiseName, no_gaussian_form, resolve_noise,
    why_no_gaussian,
};

/// The law of the noise: dimension, norm, sensitivity and, for the Gaussian
/// mechanism, δ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoiseModel {
    /// Dimension n of the private values.
    pub dim: usize,
    /// Norm of the Laplace mechanisms.
    pub norm: Norm,
    /// Sensitivity Δ (Lipschitz constant): noise at level ε has scale Δ/ε.
    pub sensitivity: f64,
    /// δ of the Gaussian mechanism.
    pub delta: f64,
}

impl NoiseModel {
    /// Validates the parameters.
    pub fn new(dim: usize, norm: Norm, sensitivity: f64, delta: f64) -> Result<Self> {
        crate::process::check_dim("dim", dim)?;
        crate::process::check_sensitivity(sensitivity)?;
        crate::process::check_delta(delta)?;
        Ok(NoiseModel {
            dim,
            norm,
            sensitivity,
            delta,
        })
    }

    /// Process level for privacy level `eps`: ε/Δ.
    #[inline]
    pub fn level(&self, eps: f64) -> f64 {
        eps / self.sensitivity
    }

    /// Theoretical E‖noise‖² of a Laplace mechanism at ε: 2n/ε² (ℓ1) or
    /// n(n+1)/ε² (ℓ2), times Δ².
    #[inline]
    pub fn laplace_mse(&self, eps: f64) -> f64 {
        let l = self.level(eps);
        self.norm.mse_factor(self.dim) / (l * l)
    }
}

impl NoiseModel {
    /// σ of the Gaussian mechanism at privacy level `eps` (analytic Gaussian
    /// mechanism of Balle & Wang 2018, ℓ2 sensitivity Δ, this model's δ).
    pub fn gaussian_sigma(&self, eps: f64) -> Result<f64> {
        crate::process::Calibration::Analytic.sigma(eps, self.delta, self.sensitivity)
    }
}

/// Samples the owner's lazy path covering levels `[eps_lo, eps_hi]` (privacy
/// levels; the path itself is over ε/Δ) into `path`.
pub fn sample_owner_path<R: Rng + ?Sized>(
    model: &NoiseModel,
    eps_lo: f64,
    eps_hi: f64,
    rng: &mut R,
    path: &mut NoisePath,
) -> Result<()> {
    let s = PathSampler::new(
        model.dim,
        model.norm,
        model.level(eps_lo),
        model.level(eps_hi),
    )?;
    s.sample_into(rng, path);
    Ok(())
}

/// One fresh draw of the independent baseline at privacy level `eps` into `out`.
#[inline]
pub fn independent_noise<R: Rng + ?Sized>(
    model: &NoiseModel,
    eps: f64,
    rng: &mut R,
    out: &mut [f64],
) {
    sample_marginal(model.norm, model.level(eps), out, rng);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Purpose, rng_for};

    #[test]
    fn choice_parses() {
        for s in ["correlated", "independent", "gaussian", "both"] {
            let c: MechanismChoice = s.parse().unwrap();
            assert_eq!(c.to_string(), s);
        }
        assert!("bogus".parse::<MechanismChoice>().is_err());
        assert_eq!(MechanismChoice::Both.mechanisms().len(), 2);
    }

    #[test]
    fn model_validates_and_scales() {
        assert!(NoiseModel::new(0, Norm::L1, 1.0, 1e-5).is_err());
        assert!(NoiseModel::new(1, Norm::L1, 0.0, 1e-5).is_err());
        assert!(NoiseModel::new(1, Norm::L1, 1.0, 0.0).is_err());
        let m = NoiseModel::new(2, Norm::L2, 2.0, 1e-5).unwrap();
        // n(n+1)Δ²/ε² = 6·4/1
        assert_eq!(m.laplace_mse(1.0), 24.0);
    }

    /// Var B(s) = s and Cov(B(s1), B(s2)) = min(s1, s2): N = 40k, s.e. of a
    /// second moment ≈ sqrt(2)·s/√N.
    #[test]
    fn brownian_covariance() {
        let mut rng = rng_for(1, 0, 0, Purpose::Gaussian);
        let vars = [4.0, 1.0, 4.0];
        let mut out = [0.0; 3];
        let mut order = Vec::new();
        let n = 40_000;
        let (mut v4, mut c, mut v1) = (0.0, 0.0, 0.0);
        for _ in 0..n {
            brownian_at(1, &vars, &mut rng, &mut order, &mut out);
            assert_eq!(out[0], out[2]);
            v4 += out[0] * out[0];
            v1 += out[1] * out[1];
            c += out[0] * out[1];
        }
        let nf = n as f64;
        let tol = |s: f64| 6.0 * 2f64.sqrt() * s / nf.sqrt();
        assert!((v4 / nf - 4.0).abs() < tol(4.0));
        assert!((v1 / nf - 1.0).abs() < tol(1.0));
        assert!((c / nf - 1.0).abs() < tol(2.0));
    }
}

//! The Gaussian variant (memo §4): `V_ε = B(σ(ε, δ)²)`, a Brownian motion in
//! Rⁿ (independent coordinates) indexed by the noise **variance** s = σ²
//! (thesis Thm 15 writes `B_σ`; indexed by σ the variance would be σ, memo
//! §8.7). Smaller variance = larger ε = less noise.
//!
//! Any set of variances is sampled exactly in any order: first point
//! `N(0, s)`; more noise `x + N(0, s' − s)`; less noise (a bridge to
//! B(0) = 0) `N((s'/s)x, s'(s − s')/s)`; between two stored points the
//! Brownian bridge. Values are stored once and copied, never recomputed.

use super::laplace::std_normal;
use crate::error::{Error, Result};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// First point: `out ~ N(0, var·I)`.
pub fn first_draw<R: Rng + ?Sized>(var: f64, out: &mut [f64], rng: &mut R) {
    let sd = var.sqrt();
    for y in out.iter_mut() {
        *y = sd * std_normal(rng);
    }
}

/// More noise: given `x = B(var_x)`, draws `B(var_new)` for `var_new > var_x`:
/// `x + N(0, (var_new − var_x) I)`.
pub fn more_noise<R: Rng + ?Sized>(
    x: &[f64],
    var_x: f64,
    var_new: f64,
    out: &mut [f64],
    rng: &mut R,
) {
    let sd = (var_new - var_x).max(0.0).sqrt();
    for (y, &xi) in out.iter_mut().zip(x) {
        *y = xi + sd * std_normal(rng);
    }
}

/// Less noise: given `x = B(var_x)`, draws `B(var_new)` for
/// `0 < var_new < var_x` — the bridge from B(0) = 0:
/// `N((var_new/var_x)·x, var_new(var_x − var_new)/var_x · I)`.
pub fn less_noise<R: Rng + ?Sized>(
    x: &[f64],
    var_x: f64,
    var_new: f64,
    out: &mut [f64],
    rng: &mut R,
) {
    let w = var_new / var_x;
    let sd = (var_new * (1.0 - w)).max(0.0).sqrt();
    for (y, &xi) in out.iter_mut().zip(x) {
        *y = w * xi + sd * std_normal(rng);
    }
}

/// Brownian bridge: given `lo = B(var_lo)` and `hi = B(var_hi)` with
/// `var_lo < var < var_hi`, draws `B(var)`:
/// `N(lo + t(hi − lo), (var − var_lo)(var_hi − var)/(var_hi − var_lo) · I)`,
/// `t = (var − var_lo)/(var_hi − var_lo)`.
pub fn bridge<R: Rng + ?Sized>(
    var_lo: f64,
    lo: &[f64],
    var_hi: f64,
    hi: &[f64],
    var: f64,
    out: &mut [f64],
    rng: &mut R,
) {
    let span = var_hi - var_lo;
    let t = (var - var_lo) / span;
    let sd = (t * (var_hi - var)).max(0.0).sqrt();
    for ((y, &l), &h) in out.iter_mut().zip(lo).zip(hi) {
        *y = l + t * (h - l) + sd * std_normal(rng);
    }
}

/// A Brownian path in Rⁿ materialised at finitely many variances (ascending),
/// extended exactly on demand. Serialisable.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BrownianPath {
    dim: usize,
    vars: Vec<f64>,
    values: Vec<f64>,
}

impl BrownianPath {
    /// An empty path of dimension `dim` (≥ 1).
    pub fn new(dim: usize) -> Result<Self> {
        super::check_dim("dim", dim)?;
        Ok(BrownianPath {
            dim,
            vars: Vec::new(),
            values: Vec::new(),
        })
    }

    /// Rebuilds a path from stored points, checking shapes and that variances
    /// are finite, positive and strictly ascending.
    pub fn from_parts(dim: usize, vars: Vec<f64>, values: Vec<f64>) -> Result<Self> {
        let ok = dim > 0
            && values.len() == vars.len() * dim
            && vars.iter().all(|v| v.is_finite() && *v > 0.0)
            && vars.windows(2).all(|w| w[0] < w[1])
            && values.iter().all(|v| v.is_finite());
        if !ok {
            return Err(Error::param(
                "Brownian path points",
                format!(
                    "{} variances, {} values, dim {dim}",
                    vars.len(),
                    values.len()
                ),
                "strictly ascending finite variances > 0 with dim finite values each",
            ));
        }
        Ok(BrownianPath { dim, vars, values })
    }

    /// Dimension n.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Number of stored points.
    pub fn len(&self) -> usize {
        self.vars.len()
    }

    /// Whether no point is stored yet.
    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }

    /// Stored variances, ascending.
    pub fn vars(&self) -> &[f64] {
        &self.vars
    }

    /// Stored values, row-major.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The value of point `i`.
    pub fn value(&self, i: usize) -> &[f64] {
        &self.values[i * self.dim..(i + 1) * self.dim]
    }

    /// The stored value at exactly `var`, if any.
    pub fn value_at_var(&self, var: f64) -> Option<&[f64]> {
        let i = self.vars.partition_point(|&s| s < var);
        (i < self.vars.len() && self.vars[i] == var).then(|| self.value(i))
    }

    /// `B(var)`: a lookup when `var` is stored, otherwise an exact draw given
    /// the stored neighbours (first / more noise / less noise / bridge), which
    /// is then stored. `var` must be finite and > 0 (checked).
    pub fn sample_at<R: Rng + ?Sized>(&mut self, var: f64, rng: &mut R) -> Result<&[f64]> {
        if !(var.is_finite() && var > 0.0) {
            return Err(Error::param("noise variance", var, "a finite number > 0"));
        }
        let i = self.vars.partition_point(|&s| s < var);
        if i < self.vars.len() && self.vars[i] == var {
            return Ok(self.value(i));
        }
        let d = self.dim;
        let mut out = vec![0.0; d];
        if self.vars.is_empty() {
            first_draw(var, &mut out, rng);
        } else if i == self.vars.len() {
            more_noise(self.value(i - 1), self.vars[i - 1], var, &mut out, rng);
        } else if i == 0 {
            less_noise(self.value(0), self.vars[0], var, &mut out, rng);
        } else {
            bridge(
                self.vars[i - 1],
                self.value(i - 1),
                self.vars[i],
                self.value(i),
                var,
                &mut out,
                rng,
            );
        }
        self.vars.insert(i, var);
        self.values.splice(i * d..i * d, out);
        Ok(self.value(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Purpose, rng_for};

    #[test]
    fn lookup_is_bitwise_and_order_is_kept() {
        let mut rng = rng_for(2, 0, 0, Purpose::Gaussian);
        let mut p = BrownianPath::new(2).unwrap();
        let a = p.sample_at(4.0, &mut rng).unwrap().to_vec();
        let b = p.sample_at(1.0, &mut rng).unwrap().to_vec();
        let c = p.sample_at(9.0, &mut rng).unwrap().to_vec();
        let m = p.sample_at(2.0, &mut rng).unwrap().to_vec();
        assert_eq!(p.vars(), &[1.0, 2.0, 4.0, 9.0]);
        assert_eq!(p.value_at_var(4.0).unwrap(), &a[..]);
        assert_eq!(p.value_at_var(1.0).unwrap(), &b[..]);
        assert_eq!(p.value_at_var(9.0).unwrap(), &c[..]);
        assert_eq!(p.sample_at(2.0, &mut rng).unwrap(), &m[..]);
        assert!(p.sample_at(0.0, &mut rng).is_err());
        assert!(p.sample_at(f64::NAN, &mut rng).is_err());
        let q = BrownianPath::from_parts(2, p.vars().to_vec(), p.values().to_vec()).unwrap();
        assert_eq!(q, p);
        assert!(BrownianPath::from_parts(2, vec![2.0, 1.0], vec![0.0; 4]).is_err());
    }
}

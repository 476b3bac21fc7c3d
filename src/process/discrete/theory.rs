//! Closed forms of the discrete Laplace law and the chain (memo §1, §2), in
//! f64 for reporting: theoretical MSE columns, bit-flip probabilities of
//! `post bit`, utility debiasing. Nothing here is on a sampling path.

use super::DiscreteNoise;
use super::ladder::Rung;
use crate::error::Result;

/// (a, 1 − a) for a = e^{−t}, without cancellation in 1 − a.
fn a_pair(t: f64) -> (f64, f64) {
    ((-t).exp(), -(-t).exp_m1())
}

/// P(X = x) = (1 − a)/(1 + a)·a^{|x|} for X ~ DL(a = e^{−t}).
pub fn pmf(t: f64, x: i64) -> f64 {
    let (a, b) = a_pair(t);
    b / (1.0 + a) * (-t * x.unsigned_abs() as f64).exp()
}

/// Var X = 2a/(1 − a)² for X ~ DL(e^{−t}).
pub fn variance(t: f64) -> f64 {
    let (a, b) = a_pair(t);
    2.0 * a / (b * b)
}

/// P(X ≥ k) for X ~ DL(e^{−t}): a^k/(1 + a) for k ≥ 0, and
/// 1 − a^{1−k}/(1 + a) for k < 0 (symmetry).
pub fn tail(t: f64, k: i64) -> f64 {
    let a = (-t).exp();
    if k >= 0 {
        (-t * k as f64).exp() / (1.0 + a)
    } else {
        1.0 - (-t * (1 - k) as f64).exp() / (1.0 + a)
    }
}

/// c = P(B = 0) = (a₁/a₂)·((1 − a₂)/(1 − a₁))² between rates t₁ > t₂ (memo
/// §2): the probability that one step (or, by Chapman–Kolmogorov, any
/// number of steps) from t₁ down to t₂ adds no noise.
pub fn stay_probability(t1: f64, t2: f64) -> f64 {
    let r = (-t2).exp_m1() / (-t1).exp_m1();
    (-(t1 - t2)).exp() * r * r
}

/// P(X₁ = X₂) = c + (1 − c)·(1 − a₂)/(1 + a₂) for the chain's values at rates
/// t₁ > t₂ (memo §2).
pub fn atom(t1: f64, t2: f64) -> f64 {
    let c = stay_probability(t1, t2);
    c + (1.0 - c) * pmf(t2, 0)
}

impl DiscreteNoise {
    /// Variance of one coordinate's noise at `rung`, in grid steps²: 2a/(1 − a)².
    pub fn variance(&self, rung: Rung) -> f64 {
        variance(self.rate_f64(rung))
    }

    /// Mean squared error of an answer at `rung` in value units:
    /// n·2a/(1 − a)²·γ² (the noise only; the rounding of values to the grid
    /// adds ‖γ·û − u‖²).
    pub fn mse(&self, rung: Rung) -> f64 {
        let g = self.grid().value();
        self.dim() as f64 * self.variance(rung) * g * g
    }

    /// Probabilities that a bit released as 1{y ≥ ½} (`post bit`) differs
    /// from the bit, [P(flip | 0), P(flip | 1)], under the discrete law at
    /// `rung`: the bit b is rounded to the grid (û_b) and read back as
    /// 1{û_b + X ≥ h}, h = ⌈1/(2γ)⌉. Ties go up, so on a grid finer than ½
    /// the two differ (a^h/(1 + a) against a^{h+1}/(1 + a)). Fails when 1 is
    /// beyond the grid's range (γ < 2⁻⁵²).
    pub fn bit_flip_probabilities(&self, rung: Rung) -> Result<[f64; 2]> {
        let grid = self.grid();
        let t = self.rate_f64(rung);
        let (u0, u1) = (grid.round(0.0)?, grid.round(1.0)?);
        let h = if grid.exponent() <= -1 {
            1i64 << (-grid.exponent() - 1)
        } else {
            1
        };
        // P(u1 + X < h) = P(X ≤ h − u1 − 1) = P(X ≥ u1 + 1 − h).
        Ok([tail(t, h - u0), tail(t, u1 + 1 - h)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::discrete::Grid;

    /// The closed forms against direct sums of the pmf.
    #[test]
    fn closed_forms_match_sums() {
        for t in [0.01, 0.3, 1.0, 4.0] {
            let n = (60.0 / t) as i64;
            let (mut total, mut var) = (0.0, 0.0);
            for x in -n..=n {
                total += pmf(t, x);
                var += pmf(t, x) * (x * x) as f64;
            }
            assert!((total - 1.0).abs() < 1e-12, "t = {t}: {total}");
            assert!((var / variance(t) - 1.0).abs() < 1e-10, "t = {t}");
            for k in [-3, -1, 0, 1, 2, 5] {
                let direct: f64 = (k..=n).map(|x| pmf(t, x)).sum();
                assert!((tail(t, k) - direct).abs() < 1e-12, "t = {t}, k = {k}");
            }
        }
        // As t → 0 the jump probability tends to the continuous 1 − (t₂/t₁)².
        let (t1, t2) = (1e-6, 0.5e-6);
        assert!((1.0 - stay_probability(t1, t2) - 0.75).abs() < 1e-6);
    }

    #[test]
    fn bit_flips_follow_the_tie_rule() {
        let noise = DiscreteNoise::new(Grid::from_exponent(-2).unwrap(), 32, 1.0, 1).unwrap();
        let k = noise.rung_of(1.0).unwrap();
        let t = noise.rate_f64(k);
        // γ = 1/4: û₀ = 0, û₁ = 4, h = 2: flip 0 if X ≥ 2, flip 1 if X ≤ −3.
        let [p0, p1] = noise.bit_flip_probabilities(k).unwrap();
        assert!((p0 - tail(t, 2)).abs() < 1e-15);
        assert!((p1 - tail(t, 3)).abs() < 1e-15);
        let coarse = DiscreteNoise::new(Grid::from_exponent(0).unwrap(), 32, 1.0, 1).unwrap();
        let [q0, q1] = coarse.bit_flip_probabilities(k).unwrap();
        assert_eq!(q0, q1);
        assert!(
            noise.mse(k) > 0.0 && (noise.mse(k) / (noise.variance(k) / 16.0) - 1.0).abs() < 1e-15
        );
    }
}

//! Privacy accounting: the ε of a coalition's pooled view (memo §5, §4).
//!
//! * Correlated mechanism: the view is `max ε_j`-DP (the best member's answer is
//!   sufficient; the other answers are u-free noise added to it).
//! * Independent noise: basic composition `Σ ε_j`, and the heterogeneous
//!   advanced-composition bound at a chosen δ'.
//! * Gaussian mechanism: exactly as private as the smallest-σ member (its whole
//!   privacy profile).

use crate::error::{Error, Result};

/// ε of a coalition view under the mechanisms compared by `collude`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Accounting {
    /// Number of members.
    pub members: usize,
    /// Correlated mechanism: max ε_j (0 for an empty coalition).
    pub eps_max: f64,
    /// Independent noise, basic composition: Σ ε_j.
    pub eps_sum: f64,
    /// Independent noise, advanced composition at `delta`: the view is
    /// (eps_advanced, delta)-DP; never larger than `eps_sum`.
    pub eps_advanced: f64,
    /// The δ' of the advanced bound.
    pub delta: f64,
}

impl Accounting {
    /// Accounts a coalition whose members hold ε levels `eps` (each finite,
    /// ≥ 0); `delta` ∈ (0, 1) is the δ' of advanced composition.
    pub fn new(eps: &[f64], delta: f64) -> Result<Self> {
        if !(delta > 0.0 && delta < 1.0) {
            return Err(Error::param(
                "composition delta",
                delta,
                "a number in (0, 1)",
            ));
        }
        if let Some(&e) = eps.iter().find(|e| !(e.is_finite() && **e >= 0.0)) {
            return Err(Error::param("member epsilon", e, "a finite number ≥ 0"));
        }
        Ok(Accounting {
            members: eps.len(),
            eps_max: correlated_epsilon(eps),
            eps_sum: basic_composition(eps),
            eps_advanced: advanced_composition(eps, delta),
            delta,
        })
    }
}

/// Correlated mechanism: `max ε_j` (0 for no members).
pub fn correlated_epsilon(eps: &[f64]) -> f64 {
    eps.iter().copied().fold(0.0, f64::max)
}

/// Basic composition: `Σ ε_j`.
pub fn basic_composition(eps: &[f64]) -> f64 {
    eps.iter().sum()
}

/// Heterogeneous advanced composition of pure ε_j-DP mechanisms, (ε̃, δ')-DP.
///
/// Kairouz, Oh & Viswanath, "The Composition Theorem for Differential Privacy"
/// (ICML 2015; IEEE Trans. Inf. Theory 63(6), 2017), Theorem 3.5 with all δ_l = 0:
/// ε̃ = min{ Σε_l,
///          Σ ε_l(e^{ε_l} − 1)/(e^{ε_l} + 1) + sqrt(2 Σε_l² · ln(e + sqrt(Σε_l²)/δ')),
///          Σ ε_l(e^{ε_l} − 1)/(e^{ε_l} + 1) + sqrt(2 Σε_l² · ln(1/δ')) }.
/// For k equal ε it improves the Dwork–Rothblum–Vadhan form
/// `sqrt(2k ln(1/δ'))ε + kε(e^ε − 1)` (the drift term ε(e^ε − 1) becomes
/// ε(e^ε − 1)/(e^ε + 1) = ε·tanh(ε/2), computed as tanh to avoid overflow).
/// `delta` must be in (0, 1); returns 0 for no members.
pub fn advanced_composition(eps: &[f64], delta: f64) -> f64 {
    let basic = basic_composition(eps);
    if eps.is_empty() {
        return 0.0;
    }
    let sq: f64 = eps.iter().map(|e| e * e).sum();
    let drift: f64 = eps.iter().map(|&e| e * (0.5 * e).tanh()).sum();
    let a = drift + (2.0 * sq * (std::f64::consts::E + sq.sqrt() / delta).ln()).sqrt();
    let b = drift + (2.0 * sq * (1.0 / delta).ln()).sqrt();
    basic.min(a).min(b)
}

/// Gaussian mechanism: the coalition is as private as its smallest-σ member;
/// returns that σ (∞ for no members).
pub fn gaussian_sigma(sigmas: &[f64]) -> f64 {
    sigmas.iter().copied().fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn homogeneous_matches_hand_computation() {
        // 20 × ε = 0.5, δ' = 1e-5: drift 20·0.5·tanh(0.25) = 2.4491866; Σε² = 5;
        // sqrt(10·ln 1e5) = 10.7298; bound 13.18 > Σε = 10, so the min is basic.
        let eps = [0.5; 20];
        let a = Accounting::new(&eps, 1e-5).unwrap();
        assert_eq!(a.eps_max, 0.5);
        assert!((a.eps_sum - 10.0).abs() < 1e-12);
        assert_eq!(a.eps_advanced, a.eps_sum);
        // 1000 × ε = 0.01: drift 1000·0.01·tanh(0.005) = 0.0499996; Σε² = 0.1;
        // ln(1/δ') form: sqrt(0.2·ln 1e5) = 1.517427 → 1.567427; ln(e + sqrt(0.1)/δ')
        // form: sqrt(0.2·ln(e + 31622.78)) = 1.439564 → 1.489563 (the smaller one).
        let eps = [0.01; 1000];
        let adv = advanced_composition(&eps, 1e-5);
        let drift = 1000.0 * 0.01 * 0.005f64.tanh();
        let with_e = drift + (0.2 * (std::f64::consts::E + 0.1f64.sqrt() / 1e-5).ln()).sqrt();
        assert!((adv - with_e).abs() < 1e-9, "{adv} vs {with_e}");
        assert!((adv - 1.489563).abs() < 1e-5);
        // Large δ' = 0.5: ln 2 = 0.693 < ln(e + sqrt(0.1)/0.5) = 1.19, the plain form wins.
        let plain = drift + (0.2 * 2f64.ln()).sqrt();
        assert!((advanced_composition(&eps, 0.5) - plain).abs() < 1e-12);
        assert!(advanced_composition(&[800.0], 1e-5).is_finite());
    }

    #[test]
    fn rejects_bad_inputs() {
        assert!(Accounting::new(&[1.0], 0.0).is_err());
        assert!(Accounting::new(&[1.0], 1.0).is_err());
        assert!(Accounting::new(&[f64::NAN], 0.1).is_err());
        assert!(Accounting::new(&[-1.0], 0.1).is_err());
        let empty = Accounting::new(&[], 0.1).unwrap();
        assert_eq!(
            (empty.eps_max, empty.eps_sum, empty.eps_advanced),
            (0.0, 0.0, 0.0)
        );
        assert_eq!(gaussian_sigma(&[3.0, 2.0, 5.0]), 2.0);
    }
}

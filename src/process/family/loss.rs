//! The privacy loss of a view (memo §5, §4), in f64: the closed forms the
//! Laplace and Gaussian families audit coalitions with (the discrete chain's
//! are exact rationals, `process::discrete::loss`).
//!
//! The loss of a view y for neighbouring values u and u' = u + Δ·e₁ is
//! L(y) = ln p(y | u) / p(y | u'). A mechanism is ε-DP (for neighbours at ℓ
//! distance Δ, with rates λ = ε/Δ) iff |L| ≤ λΔ = ε on every view.
//!
//! * Correlated Laplace: y* (the top-rate member's answer) is sufficient, so
//!   L = λ*(|y*₁ − u'₁| − |y*₁ − u₁|) in 1-D and per coordinate under ℓ1 (only
//!   coordinate 1 differs), λ*(‖y* − u'‖₂ − ‖y* − u‖₂) under ℓ2. Evaluated by
//!   sign cases so rounding can never push |L| above λ*Δ. An independent second
//!   computation multiplies out the full chain of transition densities
//!   ([`correlated_loss_full_chain`]).
//! * Independent Laplace: L = Σ_j λ_j(|y_j − u'| − |y_j − u|), up to Σλ_jΔ.
//! * Gaussian (correlated Brownian path): L = (‖y* − u'‖² − ‖y* − u‖²)/(2σ*²).

use crate::process::Norm;

/// |t − Δ| − |t| for t = y − u and Δ > 0, by sign cases: Δ when y ≤ u, −Δ when
/// y ≥ u + Δ, Δ − 2t in between. Every branch lies in [−Δ, Δ] exactly (rounding
/// is monotone and ±Δ are representable), so λ·kernel never exceeds fl(λΔ).
#[inline]
fn abs_diff_kernel(t: f64, delta: f64) -> f64 {
    if t <= 0.0 {
        delta
    } else if t >= delta {
        -delta
    } else {
        delta - 2.0 * t
    }
}

/// ‖r − Δe₁‖₂ − ‖r‖₂ without cancellation, from a = r₁ and b² = Σ_{i>1} r_i²:
/// Δ(Δ − 2a)/(‖r − Δe₁‖ + ‖r‖), clamped to [−Δ, Δ] (the triangle inequality;
/// the clamp only absorbs rounding).
#[inline]
fn l2_diff(a: f64, b2: f64, delta: f64) -> f64 {
    let s_u = (a * a + b2).sqrt();
    let s_u1 = ((a - delta) * (a - delta) + b2).sqrt();
    (delta * (delta - 2.0 * a) / (s_u + s_u1)).clamp(-delta, delta)
}

/// Loss of one answer `y` (n values) at rate λ: λ(‖y − u'‖ − ‖y − u‖), ℓ1 or ℓ2
/// (the same in 1-D, where the sign-case kernel is used).
#[inline]
fn member_loss(y: &[f64], u: &[f64], rate: f64, delta: f64, norm: Norm) -> f64 {
    if y.len() == 1 || norm == Norm::L1 {
        return rate * abs_diff_kernel(y[0] - u[0], delta);
    }
    let b2: f64 = y[1..]
        .iter()
        .zip(&u[1..])
        .map(|(p, q)| (p - q) * (p - q))
        .sum();
    rate * l2_diff(y[0] - u[0], b2, delta)
}

fn top_rate(rates: &[f64]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (j, &r) in rates.iter().enumerate() {
        if best.is_none_or(|b| r > rates[b]) {
            best = Some(j);
        }
    }
    best
}

/// Correlated Laplace mechanism: the exact loss λ*(‖y* − u'‖ − ‖y* − u‖) of a view
/// (`answers`: m × n row-major, `rates`: λ_j), u' = u + Δe₁. |L| ≤ fl(λ*Δ) on every
/// input. 0 for an empty coalition.
pub fn correlated_loss(
    answers: &[f64],
    n: usize,
    rates: &[f64],
    u: &[f64],
    delta: f64,
    norm: Norm,
) -> f64 {
    let Some(j) = top_rate(rates) else {
        return 0.0;
    };
    member_loss(&answers[j * n..(j + 1) * n], u, rates[j], delta, norm)
}

/// Independent Laplace noise: L = Σ_j λ_j(‖y_j − u'‖ − ‖y_j − u‖); bounded by
/// Σλ_jΔ and reaching it when all answers lie below u.
pub fn independent_loss(
    answers: &[f64],
    n: usize,
    rates: &[f64],
    u: &[f64],
    delta: f64,
    norm: Norm,
) -> f64 {
    rates
        .iter()
        .enumerate()
        .map(|(j, &rate)| member_loss(&answers[j * n..(j + 1) * n], u, rate, delta, norm))
        .sum()
}

/// Gaussian mechanism (memo §4): L = (‖y* − u'‖² − ‖y* − u‖²)/(2σ*²) =
/// Δ(Δ − 2(y*₁ − u₁))/(2σ*²) with y* the smallest-σ member's answer; exactly
/// N(μ, 2μ) under u, μ = Δ²/(2σ*²). 0 for an empty coalition.
pub fn gaussian_loss(answers: &[f64], n: usize, sigmas: &[f64], u: &[f64], delta: f64) -> f64 {
    let mut best: Option<usize> = None;
    for (j, &s) in sigmas.iter().enumerate() {
        if best.is_none_or(|b| s < sigmas[b]) {
            best = Some(j);
        }
    }
    let Some(j) = best else { return 0.0 };
    let a = answers[j * n] - u[0];
    delta * (delta - 2.0 * a) / (2.0 * sigmas[j] * sigmas[j])
}

/// The two log-likelihoods of the full-chain computation and their difference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FullChain {
    /// ln p(y | u) (density w.r.t. Lebesgue measure on distinct values and
    /// counting measure on the atoms where consecutive levels agree).
    pub ln_p_u: f64,
    /// ln p(y | u + Δ).
    pub ln_p_u1: f64,
    /// `ln_p_u − ln_p_u1`.
    pub loss: f64,
}

/// Correlated Laplace mechanism, coordinate 1 (1-D, or ℓ1 where the other
/// coordinates' likelihood does not involve u₁): the loss from the full chain of
/// transition densities (memo §5), an independent check of [`correlated_loss`].
/// With levels sorted λ_1 ≤ … ≤ λ_m:
/// ln p(y|u) = ln(λ_m/2) − λ_m|y_m − u| + Σ_{i<m} [y_i == y_{i+1} ? 2 ln(λ_i/λ_{i+1})
///           : ln((1 − (λ_i/λ_{i+1})²)λ_i/2) − λ_i|y_i − y_{i+1}|].
/// `u_first` is u₁ (u' = u + Δe₁). Equal rates with different answers have
/// probability 0 (−∞). `order` is a reusable buffer.
pub fn correlated_loss_full_chain(
    answers: &[f64],
    n: usize,
    rates: &[f64],
    u_first: f64,
    delta: f64,
    order: &mut Vec<usize>,
) -> FullChain {
    let m = rates.len();
    if m == 0 {
        return FullChain {
            ln_p_u: 0.0,
            ln_p_u1: 0.0,
            loss: 0.0,
        };
    }
    order.clear();
    order.extend(0..m);
    order.sort_by(|&a, &b| rates[a].total_cmp(&rates[b]));
    let y = |k: usize| answers[order[k] * n];
    let lam = |k: usize| rates[order[k]];
    let mut chain = 0.0;
    for k in 0..m - 1 {
        let (li, lj) = (lam(k), lam(k + 1));
        let q = li / lj;
        chain += if y(k) == y(k + 1) {
            2.0 * q.ln()
        } else {
            (-q * q).ln_1p() + (0.5 * li).ln() - li * (y(k) - y(k + 1)).abs()
        };
    }
    let (top, ytop) = (lam(m - 1), y(m - 1));
    let ln_p = |v: f64| (0.5 * top).ln() - top * (ytop - v).abs() + chain;
    let (a, b) = (ln_p(u_first), ln_p(u_first + delta));
    FullChain {
        ln_p_u: a,
        ln_p_u1: b,
        loss: a - b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_cases_stay_in_bounds() {
        let d = 0.1;
        for &t in &[
            -1e300,
            -1.0,
            -0.0,
            0.0,
            1e-300,
            0.05,
            0.1 - 1e-17,
            0.1,
            0.2,
            f64::MAX,
        ] {
            let k = abs_diff_kernel(t, d);
            assert!((-d..=d).contains(&k), "{t}: {k}");
        }
        assert_eq!(abs_diff_kernel(0.05, 0.1), 0.0);
        assert_eq!(l2_diff(-3.0, 0.0, 1.0), 1.0);
        // ‖(0.5, 1)‖ = ‖(−0.5, 1)‖: a point on the bisector has zero loss.
        assert_eq!(l2_diff(0.5, 1.0, 1.0), 0.0);
        // Far away the loss tends to Δ·cos(angle): (−1e8, 1e8) → Δ/√2.
        assert!((l2_diff(-1e8, 1e16, 1.0) - 0.5f64.sqrt()).abs() < 1e-8);
    }

    #[test]
    fn empty_views_carry_no_loss() {
        assert_eq!(correlated_loss(&[], 1, &[], &[0.0], 1.0, Norm::L1), 0.0);
        assert_eq!(independent_loss(&[], 1, &[], &[0.0], 1.0, Norm::L1), 0.0);
        assert_eq!(gaussian_loss(&[], 1, &[], &[0.0], 1.0), 0.0);
    }
}

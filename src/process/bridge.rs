//! The 1-D closed-form bridge of memo §3a: `V_eps` given `a = V_eps_a` and
//! `b = V_eps_b` with `eps_a < eps < eps_b`, when only released values were
//! kept (no jump list). A stored path needs no bridge: a lookup inside the
//! materialised range already is the exact bridge (memo §3).

use super::forward::truncated_exp;
use super::laplace::exp1;
use rand::{Rng, RngExt};

/// Which atom or piece the bridge returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BridgeCase {
    /// `V_eps = a` (no jump in (eps_a, eps]).
    Lower,
    /// `V_eps = b` (no jump in (eps, eps_b]).
    Upper,
    /// Jumps on both sides: a continuous value.
    Continuous,
}

/// The three weights `(w_b, w_a, w_c)` of memo §3a for `d = |a − b| > 0`
/// (common factor `e^{−ε_a d}` removed): return b, return a, continuous.
pub fn bridge_weights(d: f64, eps_a: f64, eps: f64, eps_b: f64) -> [f64; 3] {
    let q1 = (eps / eps_b) * (eps / eps_b);
    let q2 = (eps_a / eps) * (eps_a / eps);
    let g = (-(eps - eps_a) * d).exp();
    let w_b = q1 * (1.0 - q2) * eps_a / 2.0;
    let w_a = q2 * (1.0 - q1) * (eps / 2.0) * g;
    let w_c = (1.0 - q1) * (1.0 - q2) * eps * eps_a / (2.0 * (eps * eps - eps_a * eps_a))
        * (eps - eps_a * g);
    [w_b, w_a, w_c]
}

/// Draws `V_eps` given `a = V_eps_a`, `b = V_eps_b`, `eps_a ≤ eps ≤ eps_b`
/// (memo §3a). Atoms are returned as bitwise copies of `a` or `b`, so
/// `P(V_eps == a) = (ε_a/ε)²` and `P(V_eps == b) = (ε/ε_b)²` hold exactly.
/// Levels outside `[eps_a, eps_b]` are clamped to the nearer end.
pub fn bridge_1d<R: Rng + ?Sized>(
    a: f64,
    eps_a: f64,
    b: f64,
    eps_b: f64,
    eps: f64,
    rng: &mut R,
) -> (f64, BridgeCase) {
    if eps <= eps_a {
        return (a, BridgeCase::Lower);
    }
    if eps >= eps_b {
        return (b, BridgeCase::Upper);
    }
    if a == b {
        // The continuous parts put zero mass on Δ = 0: no jump anywhere.
        return (a, BridgeCase::Lower);
    }
    let delta = a - b;
    let d = delta.abs();
    let sgn = delta.signum();
    let [w_b, w_a, w_c] = bridge_weights(d, eps_a, eps, eps_b);
    let u = rng.random::<f64>() * (w_b + w_a + w_c);
    if u < w_b {
        return (b, BridgeCase::Upper);
    }
    if u < w_b + w_a {
        return (a, BridgeCase::Lower);
    }
    // x = V_eps − b along sgn(Δ), density ∝ e^{−ε|x| − ε_a|d − x|}.
    let (sum, diff) = (eps + eps_a, eps - eps_a);
    let g = (-diff * d).exp();
    let m_neg = 1.0 / sum;
    let m_mid = -(-diff * d).exp_m1() / diff;
    let m_pos = g / sum;
    let r = rng.random::<f64>() * (m_neg + m_mid + m_pos);
    let x = if r < m_neg {
        -exp1(rng) / sum
    } else if r < m_neg + m_mid {
        truncated_exp(diff, d, rng.random::<f64>())
    } else {
        d + exp1(rng) / sum
    };
    (b + sgn * x, BridgeCase::Continuous)
}

//! Forward dynamics (increasing ε, i.e. relaxing privacy) of the lazy process.
//!
//! * [`relax_privacy`] — the 1-D forward kernel RELAXPRIVACY of paper 000
//!   Alg. 1 / eq. (25), with the seed's slips fixed (memo §1d, §8.1): a random
//!   sign when x = 0, and every case returns.
//! * [`relax_case_probs`] — its four case probabilities as a pure function.
//! * [`forward_latent`] — the latent-variance forward step of memo §2.4, exact
//!   in any dimension: state (ε, s, v) with `v = B(s)`, jump hazard ε·s.
//! * [`latent_posterior`] — an exact draw of the latent s given only `v` at the
//!   top of a path: `1/s ~ InverseGaussian(mean ε/‖v‖, shape ε²)`.
//!
//! Backward increments of the process are independent of the value at the top
//! (memo §1a), so running these kernels from the top of a stored path keeps
//! the joint law of the whole path exact.

use super::laplace::{exp1, std_normal};
use rand::{Rng, RngExt};
use rand_distr::{Distribution, Gamma};

/// Which branch of RELAXPRIVACY was taken (memo §1d table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelaxCase {
    /// y = x (no jump in (ε1, ε2]).
    Stay,
    /// y on the other side of 0 from x.
    Opposite,
    /// y strictly between 0 and x.
    Between,
    /// y beyond x, away from 0.
    Beyond,
}

/// The probabilities of the four cases of RELAXPRIVACY from `x = V_eps1` to
/// level `eps2 > eps1`, in the order stay, opposite, between, beyond
/// (memo §1d). They sum to 1 for every x; `1 − e^{−(ε2−ε1)|x|}` is computed
/// with `expm1` so tiny |x| keeps full relative accuracy.
pub fn relax_case_probs(x: f64, eps1: f64, eps2: f64) -> [f64; 4] {
    let a = x.abs();
    let t = (eps2 - eps1) * a;
    let e = (-t).exp();
    let one_minus_e = -(-t).exp_m1();
    [
        eps1 / eps2 * e,
        (eps2 - eps1) / (2.0 * eps2),
        (eps1 + eps2) / (2.0 * eps2) * one_minus_e,
        (eps2 - eps1) / (2.0 * eps2) * e,
    ]
}

/// A draw of z on `[0, d]` with density ∝ `e^{−rate·z}` (rate > 0), by
/// inversion: `z = −ln(1 − U(1 − e^{−rate·d}))/rate`, written with
/// `ln_1p`/`expm1` so it stays accurate for small `rate·d`.
#[inline]
pub(crate) fn truncated_exp(rate: f64, d: f64, u: f64) -> f64 {
    let mass = -(-rate * d).exp_m1(); // 1 − e^{−rate d}
    let z = -(-u * mass).ln_1p() / rate;
    z.clamp(0.0, d)
}

/// RELAXPRIVACY with the branch taken: given `x = V_eps1`, draws
/// `y = V_eps2` for `eps2 > eps1` (memo §1d). `eps2 == eps1` returns `x`.
pub fn relax_privacy_case<R: Rng + ?Sized>(
    x: f64,
    eps1: f64,
    eps2: f64,
    rng: &mut R,
) -> (f64, RelaxCase) {
    if eps2 <= eps1 {
        return (x, RelaxCase::Stay);
    }
    let p = relax_case_probs(x, eps1, eps2);
    let a = x.abs();
    // sgn(0) = 0 in the paper would return 0 in cases 2–4: pick a side instead.
    let sigma = if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else if rng.random::<bool>() {
        1.0
    } else {
        -1.0
    };
    let u: f64 = rng.random::<f64>();
    let rate_out = eps1 + eps2;
    if u < p[0] {
        (x, RelaxCase::Stay)
    } else if u < p[0] + p[1] {
        (-sigma * exp1(rng) / rate_out, RelaxCase::Opposite)
    } else if u < p[0] + p[1] + p[2] {
        let z = truncated_exp(eps2 - eps1, a, rng.random::<f64>());
        (sigma * z, RelaxCase::Between)
    } else {
        (sigma * (a + exp1(rng) / rate_out), RelaxCase::Beyond)
    }
}

/// RELAXPRIVACY: given `x = V_eps1`, draws `y = V_eps2` for `eps2 > eps1`
/// (paper 000 Alg. 1 corrected, memo §1d). `y == x` bitwise with probability
/// `(ε1/ε2)·e^{−(ε2−ε1)|x|}`, which averages to `(ε1/ε2)²`.
#[inline]
pub fn relax_privacy<R: Rng + ?Sized>(x: f64, eps1: f64, eps2: f64, rng: &mut R) -> f64 {
    relax_privacy_case(x, eps1, eps2, rng).0
}

/// Exponent `2/(n+1)` of the latent shrink factor `s' = s·U^{2/(n+1)}` for a
/// process whose latent has shape `(n+1)/2` (n = 1 for one ℓ1 coordinate).
#[inline]
fn shrink_exponent(latent_dim: usize) -> f64 {
    2.0 / (latent_dim as f64 + 1.0)
}

/// The latent-variance forward step of memo §2.4, in any dimension.
///
/// State at level `e`: latent variance `s` and value `v = B(s)` (`v.len()` =
/// n, the ℓ2 dimension; use n = 1 per coordinate for ℓ1). Moves the state up
/// to `e_target` (inclusive): jumps occur with hazard `ε·s` per unit ε; at a
/// jump `s' = s·U^{2/(n+1)}` and `v' = (s'/s)v + sqrt(s'(s−s')/s)·Z` (the
/// Brownian bridge back to B(0) = 0). `on_jump(e, v)` receives each jump level
/// with the value that holds from that level up. Returns the number of jumps.
pub fn forward_latent<R: Rng + ?Sized>(
    e: f64,
    s: &mut f64,
    v: &mut [f64],
    e_target: f64,
    rng: &mut R,
    mut on_jump: impl FnMut(f64, &[f64]),
) -> usize {
    let expo = shrink_exponent(v.len());
    let mut e = e;
    let mut jumps = 0;
    loop {
        // P(no jump in (e, e']) = exp(−s(e'² − e²)/2).
        let e_next = (e * e + 2.0 * exp1(rng) / *s).sqrt();
        if e_next.is_nan() || e_next > e_target {
            return jumps;
        }
        let u: f64 = 1.0 - rng.random::<f64>(); // (0, 1]
        // shrink = s'/s = U^{2/(n+1)}; the bridge variance s'(s − s')/s is
        // written as s'·(1 − shrink) so it cannot overflow for huge s.
        let shrink = u.powf(expo);
        let s_new = *s * shrink;
        let one_minus = -(expo * u.ln()).exp_m1();
        let sd = (s_new * one_minus).max(0.0).sqrt();
        for x in v.iter_mut() {
            *x = shrink * *x + sd * std_normal(rng);
        }
        *s = s_new;
        e = e_next;
        jumps += 1;
        on_jump(e, v);
    }
}

/// Draws the latent variance of a fresh point at level `eps`:
/// `s ~ Gamma((n+1)/2, scale 2/ε²)` (memo §1b, §2), so that `sqrt(s)·Z_n` has
/// the marginal law of `V_eps` (ℓ2 of dimension n; n = 1 for one coordinate).
pub fn latent_prior<R: Rng + ?Sized>(eps: f64, latent_dim: usize, rng: &mut R) -> f64 {
    let shape = (latent_dim as f64 + 1.0) / 2.0;
    match Gamma::new(shape, 2.0 / (eps * eps)) {
        Ok(g) => g.sample(rng),
        Err(_) => f64::NAN,
    }
}

/// Draws `s` exactly from its posterior given only `v = V_eps` (any n):
/// the posterior is GIG(1/2, ε², ‖v‖²), i.e. `1/s ~ InverseGaussian(mean
/// ε/‖v‖, shape ε²)`, with `E[s | v] = ‖v‖/ε + 1/ε²` (memo §2.4). Valid only
/// at the top of a stored path. `norm_v` is the Euclidean norm of `v`; at
/// `norm_v == 0` the posterior is Gamma(1/2, scale 2/ε²).
pub fn latent_posterior<R: Rng + ?Sized>(eps: f64, norm_v: f64, rng: &mut R) -> f64 {
    if norm_v == 0.0 {
        return latent_prior(eps, 0, rng);
    }
    let mu = eps / norm_v;
    let lambda = eps * eps;
    1.0 / inverse_gaussian(mu, lambda, rng)
}

/// InverseGaussian(mean `mu`, shape `lambda`) by Michael, Schucany & Haas
/// (1976), with the smaller root written without cancellation:
/// `x = mu / (1 + t + sqrt(t(t + 2)))`, `t = mu·Z²/(2 lambda)`.
pub fn inverse_gaussian<R: Rng + ?Sized>(mu: f64, lambda: f64, rng: &mut R) -> f64 {
    let z = std_normal(rng);
    let t = mu * z * z / (2.0 * lambda);
    let x = mu / (1.0 + t + (t * (t + 2.0)).sqrt());
    let u: f64 = rng.random::<f64>();
    if u * (mu + x) <= mu { x } else { mu * mu / x }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Purpose, rng_for};

    #[test]
    fn case_probabilities_sum_to_one() {
        for &x in &[0.0, 1e-300, -1e-300, 1.0, -1.0, 700.0, -700.0] {
            for &(e1, e2) in &[(1.0, 2.0), (0.3, 6.0), (1.0, 1.0 + 1e-9), (0.01, 100.0)] {
                let p = relax_case_probs(x, e1, e2);
                let s: f64 = p.iter().sum();
                assert!((s - 1.0).abs() < 1e-12, "x={x} ({e1},{e2}) sum={s}");
                assert!(p.iter().all(|&q| (0.0..=1.0).contains(&q)));
            }
        }
    }

    #[test]
    fn zero_input_never_returns_zero_in_moving_cases() {
        let mut rng = rng_for(1, 0, 0, Purpose::Release);
        let mut pos = 0;
        for _ in 0..2000 {
            let (y, c) = relax_privacy_case(0.0, 1.0, 3.0, &mut rng);
            match c {
                RelaxCase::Stay => assert_eq!(y, 0.0),
                RelaxCase::Between => assert_eq!(y, 0.0), // [0, 0] interval (prob 0)
                _ => {
                    assert_ne!(y, 0.0);
                    pos += (y > 0.0) as usize;
                }
            }
        }
        assert!(pos > 300, "both signs must occur: {pos}");
    }

    #[test]
    fn truncated_exp_stays_in_range() {
        for &(r, d) in &[(1.0, 1e-300), (1.0, 5.0), (1e-12, 3.0), (50.0, 700.0)] {
            for &u in &[0.0, 1e-17, 0.5, 1.0 - 1e-16] {
                let z = truncated_exp(r, d, u);
                assert!((0.0..=d).contains(&z), "{r} {d} {u} {z}");
            }
        }
    }
}

//! Rényi DP to (ε, δ), memo (12). Both (8) and (11) are linear in α:
//! `ε(α) = α·ρ`, i.e. ρ-zCDP, and for (11) exactly μ-GDP with `μ = √(2ρ)`
//! (the view is Gaussian). Losses are carried in units of the local level
//! `αΔ²/(2σ²)` (memo (9)): a loss of `x` units is `ρ = xΔ²/(2σ²)`, so
//! `μ = (Δ/σ)·√x`. ε at δ comes from the tight Gaussian curve
//! `δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)` (Balle & Wang's profile,
//! [`analytic_delta`] with σ = 1/μ), exact for (11) and as valid as (8)
//! itself for (8).

use crate::process::calibration::{analytic_delta, erfcx};

/// The local level `αΔ²/(2σ²)`: the RDP of one node's noisy value, and the
/// cap (9) of every loss.
pub fn local_level(alpha: f64, sensitivity: f64, sigma: f64) -> f64 {
    alpha * sensitivity * sensitivity / (2.0 * sigma * sigma)
}

/// μ of a loss of `units` local levels.
pub fn mu_of(units: f64, sensitivity: f64, sigma: f64) -> f64 {
    sensitivity / sigma * units.max(0.0).sqrt()
}

/// The smallest ε ≥ 0 at which μ-GDP holds with `delta`: the inverse of the
/// tight Gaussian curve, by bisection to ~1e-12 relative.
pub fn gaussian_eps(mu: f64, delta: f64) -> f64 {
    if mu.is_nan() || mu <= 0.0 {
        return 0.0;
    }
    let sigma = 1.0 / mu;
    if analytic_delta(0.0, sigma) <= delta {
        return 0.0;
    }
    let mut hi = mu.max(1.0);
    while analytic_delta(hi, sigma) > delta {
        hi *= 2.0;
        if hi > 1e300 {
            return f64::INFINITY;
        }
    }
    let mut lo = 0.0;
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi || hi - lo <= 1e-13 * hi {
            break;
        }
        if analytic_delta(mid, sigma) > delta {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// The Laplace mechanism's privacy profile at level `eps_l`:
/// `δ_L(ε′) = 1 − e^{(ε′ − ε_L)/2}` for ε′ < ε_L, 0 beyond.
pub fn laplace_delta(eps_prime: f64, eps_l: f64) -> f64 {
    if eps_prime >= eps_l {
        0.0
    } else {
        -((eps_prime - eps_l) / 2.0).exp_m1()
    }
}

/// The largest Laplace ε whose privacy profile lies below μ-GDP's at every
/// ε′ ≥ 0 (issue 36 item 5): the binding point is ε′ = 0, where
/// `1 − e^{−ε_L/2} = 2Φ(μ/2) − 1`, so `ε_L = −2 ln(2Φ(−μ/2))`
/// (= −2 ln erfc(μ/(2√2)), taken through erfcx so that large μ does not
/// underflow). Checked on a grid of ε′ and lowered by bisection if the
/// profiles ever crossed.
pub fn matched_laplace_eps(mu: f64) -> f64 {
    if mu.is_nan() || mu <= 0.0 {
        return 0.0;
    }
    let x = mu / (2.0 * std::f64::consts::SQRT_2);
    let closed = -2.0 * (erfcx(x).ln() - x * x);
    let below = |eps_l: f64| {
        (0..=256).all(|i| {
            let e = eps_l * i as f64 / 256.0;
            laplace_delta(e, eps_l) <= analytic_delta(e, 1.0 / mu) + 1e-12
        })
    };
    if below(closed) {
        return closed;
    }
    let (mut lo, mut hi) = (0.0, closed);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if below(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::calibration::normal_cdf;

    #[test]
    fn gaussian_eps_inverts_the_tight_curve() {
        for mu in [0.05, 0.3, 1.0, 2.0, 5.0] {
            for delta in [1e-3, 1e-6, 1e-9] {
                let e = gaussian_eps(mu, delta);
                let d = analytic_delta(e, 1.0 / mu);
                if e > 0.0 {
                    assert!((d - delta).abs() <= 1e-9 * delta, "μ={mu} δ={delta}: {d}");
                } else {
                    assert!(d <= delta);
                }
            }
        }
        // μ-GDP is (ε, δ)-DP with δ(0) = 2Φ(μ/2) − 1: below δ, ε = 0.
        assert_eq!(gaussian_eps(1e-8, 1e-6), 0.0);
        assert!((2.0 * normal_cdf(0.5e-8) - 1.0) < 1e-6);
    }

    #[test]
    fn matched_laplace_lies_below_the_gaussian_profile_and_touches_it_at_zero() {
        for mu in [0.05, 0.3, 1.0, 2.0, 5.0, 10.0] {
            let el = matched_laplace_eps(mu);
            let closed = -2.0 * (2.0 * normal_cdf(-mu / 2.0)).ln();
            assert!(
                (el - closed).abs() <= 1e-9 * closed,
                "μ={mu}: {el} vs {closed}"
            );
            for i in 0..=4000 {
                let e = 3.0 * el * i as f64 / 4000.0;
                assert!(laplace_delta(e, el) <= analytic_delta(e, 1.0 / mu) + 1e-12);
            }
            // Any larger ε crosses at ε′ = 0.
            assert!(laplace_delta(0.0, el * 1.001) > analytic_delta(0.0, 1.0 / mu));
        }
    }
}

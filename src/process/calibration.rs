//! Gaussian-mechanism calibration σ(ε, δ, Δ₂) (memo §4).
//!
//! Three calibrations, all non-increasing in ε for fixed δ:
//! * [`Calibration::Analytic`] — Balle & Wang (2018): the smallest σ with
//!   `Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) ≤ δ` (an iff condition);
//! * [`Calibration::Classic`] — `Δ·sqrt(2 ln(1.25/δ))/ε` (proven for ε < 1);
//! * [`Calibration::LeNyPappas`] — thesis Thm 6: `Δ(K + sqrt(K² + 2ε))/(2ε)`,
//!   `K = Q⁻¹(δ)`.
//!
//! Φ comes from [`erfc`]/[`erfcx`], W. J. Cody's rational Chebyshev
//! approximations (Math. Comp. 1969; SPECFUN CALERF), accurate to a few ulps
//! including the far tails.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// How σ is derived from (ε, δ, Δ₂).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Calibration {
    /// Balle & Wang's analytic Gaussian mechanism (tightest; the default).
    #[default]
    Analytic,
    /// The textbook `Δ·sqrt(2 ln(1.25/δ))/ε`.
    Classic,
    /// Le Ny & Pappas (thesis Thm 6).
    LeNyPappas,
}

impl std::str::FromStr for Calibration {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "analytic" => Ok(Calibration::Analytic),
            "classic" => Ok(Calibration::Classic),
            "le-ny-pappas" | "lenypappas" | "lnp" => Ok(Calibration::LeNyPappas),
            _ => Err(Error::param(
                "calibration",
                s,
                "analytic, classic or le-ny-pappas",
            )),
        }
    }
}

impl std::fmt::Display for Calibration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Calibration::Analytic => "analytic",
            Calibration::Classic => "classic",
            Calibration::LeNyPappas => "le-ny-pappas",
        })
    }
}

/// Validates (ε, δ, Δ): ε finite > 0, δ in (0, 1), Δ finite > 0.
pub fn check_gaussian_params(eps: f64, delta: f64, sensitivity: f64) -> Result<()> {
    if !(eps.is_finite() && eps > 0.0) {
        return Err(Error::param("eps", eps, "a finite number > 0"));
    }
    crate::process::check_delta(delta)?;
    crate::process::check_sensitivity(sensitivity)?;
    Ok(())
}

impl Calibration {
    /// σ for (ε, δ) and ℓ2 sensitivity Δ₂ (validated).
    pub fn sigma(self, eps: f64, delta: f64, sensitivity: f64) -> Result<f64> {
        check_gaussian_params(eps, delta, sensitivity)?;
        let s = match self {
            Calibration::Classic => sensitivity * (2.0 * (1.25 / delta).ln()).sqrt() / eps,
            Calibration::LeNyPappas => {
                let k = normal_upper_quantile(delta);
                let r = (k * k + 2.0 * eps).sqrt();
                if k > 0.0 {
                    sensitivity * (k + r) / (2.0 * eps)
                } else {
                    // Same value, without cancellation for K ≤ 0 (δ ≥ 1/2).
                    sensitivity / (r - k)
                }
            }
            Calibration::Analytic => analytic_sigma(eps, delta)? * sensitivity,
        };
        if s.is_finite() && s > 0.0 {
            Ok(s)
        } else {
            Err(Error::Numerical(format!(
                "{self} calibration gave σ = {s} for ε = {eps}, δ = {delta}"
            )))
        }
    }
}

// Cody's coefficients (SPECFUN CALERF): erf on |x| ≤ 0.46875, erfc on
// (0.46875, 4] and on (4, ∞). Kept with their published digits.
#[allow(clippy::excessive_precision)]
const A: [f64; 5] = [
    3.161_123_743_870_565_6e0,
    1.138_641_541_510_501_56e2,
    3.774_852_376_853_020_21e2,
    3.209_377_589_138_469_47e3,
    1.857_777_061_846_031_53e-1,
];
#[allow(clippy::excessive_precision)]
const B: [f64; 4] = [
    2.360_129_095_234_412_09e1,
    2.440_246_379_344_441_73e2,
    1.282_616_526_077_372_28e3,
    2.844_236_833_439_170_62e3,
];
#[allow(clippy::excessive_precision)]
const C: [f64; 9] = [
    5.641_884_969_886_700_89e-1,
    8.883_149_794_388_375_94e0,
    6.611_919_063_714_162_95e1,
    2.986_351_381_974_001_31e2,
    8.819_522_212_417_690_9e2,
    1.712_047_612_634_070_58e3,
    2.051_078_377_826_071_47e3,
    1.230_339_354_797_997_25e3,
    2.153_115_354_744_038_46e-8,
];
#[allow(clippy::excessive_precision)]
const D: [f64; 8] = [
    1.574_492_611_070_983_47e1,
    1.176_939_508_913_124_99e2,
    5.371_811_018_620_098_58e2,
    1.621_389_574_566_690_19e3,
    3.290_799_235_733_459_63e3,
    4.362_619_090_143_247_16e3,
    3.439_367_674_143_721_64e3,
    1.230_339_354_803_749_42e3,
];
#[allow(clippy::excessive_precision)]
const P: [f64; 6] = [
    3.053_266_349_612_323_44e-1,
    3.603_448_999_498_044_39e-1,
    1.257_817_261_112_292_46e-1,
    1.608_378_514_874_227_66e-2,
    6.587_491_615_298_378_03e-4,
    1.631_538_713_730_209_78e-2,
];
#[allow(clippy::excessive_precision)]
const Q: [f64; 5] = [
    2.568_520_192_289_822_42e0,
    1.872_952_849_923_460_47e0,
    5.279_051_029_514_284_12e-1,
    6.051_834_131_244_131_91e-2,
    2.335_204_976_268_691_85e-3,
];
#[allow(clippy::excessive_precision)]
const FRAC_1_SQRT_PI: f64 = 5.641_895_835_477_562_869_5e-1;

/// erf(y)/y-type kernel on |y| ≤ 0.46875: returns erf(y).
fn erf_small(y: f64) -> f64 {
    let z = y * y;
    let mut num = A[4] * z;
    let mut den = z;
    for i in 0..3 {
        num = (num + A[i]) * z;
        den = (den + B[i]) * z;
    }
    y * (num + A[3]) / (den + B[3])
}

/// erfcx(y) = e^{y²} erfc(y) for y > 0.46875 (Cody's second and third ranges).
fn erfcx_large(y: f64) -> f64 {
    if y <= 4.0 {
        let mut num = C[8] * y;
        let mut den = y;
        for i in 0..7 {
            num = (num + C[i]) * y;
            den = (den + D[i]) * y;
        }
        (num + C[7]) / (den + D[7])
    } else {
        if y >= 6.71e7 {
            return FRAC_1_SQRT_PI / y;
        }
        let z = 1.0 / (y * y);
        let mut num = P[5] * z;
        let mut den = z;
        for i in 0..4 {
            num = (num + P[i]) * z;
            den = (den + Q[i]) * z;
        }
        let r = z * (num + P[4]) / (den + Q[4]);
        (FRAC_1_SQRT_PI - r) / y
    }
}

/// e^{−y²} for y ≥ 0 without the rounding error of squaring y: split
/// y = y₀ + r with y₀ a multiple of 1/16, so y² = y₀² + (y − y₀)(y + y₀).
fn exp_neg_sq(y: f64) -> f64 {
    let y0 = (y * 16.0).trunc() / 16.0;
    let del = (y - y0) * (y + y0);
    (-y0 * y0).exp() * (-del).exp()
}

/// The complementary error function, relative error a few ulps for all x
/// (Cody). Underflows to 0 only beyond x ≈ 26.55.
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    let y = x.abs();
    let r = if y <= 0.46875 {
        return 1.0 - erf_small(x);
    } else if y >= 26.6 {
        0.0
    } else {
        exp_neg_sq(y) * erfcx_large(y)
    };
    if x < 0.0 { 2.0 - r } else { r }
}

/// The scaled complementary error function `e^{x²} erfc(x)` (Cody), finite
/// for all x ≥ −26.6 and ≈ 1/(x√π) for large x.
pub fn erfcx(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    let y = x.abs();
    if y <= 0.46875 {
        return (x * x).exp() * (1.0 - erf_small(x));
    }
    let r = erfcx_large(y);
    if x >= 0.0 {
        r
    } else if x < -26.628 {
        f64::INFINITY
    } else {
        let e = 1.0 / exp_neg_sq(y); // e^{x²}
        2.0 * e - r
    }
}

/// The standard normal CDF Φ(x) = erfc(−x/√2)/2, with full relative accuracy
/// in the lower tail.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x * std::f64::consts::FRAC_1_SQRT_2)
}

/// The upper quantile `K = Q⁻¹(p)`: the K with `1 − Φ(K) = p`, for p in (0, 1).
/// Bisection on Φ (to the last bit), so its accuracy is that of [`erfc`].
pub fn normal_upper_quantile(p: f64) -> f64 {
    if !(p > 0.0 && p < 1.0) {
        return f64::NAN;
    }
    // Q(x) = Φ(−x) is decreasing; Q(−40) = 1, Q(40) = 0 in f64.
    let (mut lo, mut hi) = (-40.0f64, 40.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if normal_cdf(-mid) > p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The Balle–Wang privacy profile for Δ = 1:
/// `δ(σ) = Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ)`, decreasing in σ.
///
/// Both terms share the factor `e^{g}`, `g = −1/(8σ²) + ε/2 − ε²σ²/2`
/// (= −x₁²/2 = ε − y²/2), so when `x₁ = 1/(2σ) − εσ < 0` the profile is
/// `½e^{g}(erfcx(−x₁/√2) − erfcx(y/√2))`, `y = 1/(2σ) + εσ`: no overflow of
/// e^ε and no underflow of Φ in the tails.
pub fn analytic_delta(eps: f64, sigma: f64) -> f64 {
    let a = 1.0 / (2.0 * sigma);
    let b = eps * sigma;
    let x1 = a - b;
    let y = a + b;
    let r2 = std::f64::consts::FRAC_1_SQRT_2;
    let g = -a * a / 2.0 + eps / 2.0 - b * b / 2.0;
    let second = 0.5 * erfcx(y * r2) * g.exp();
    if x1 < 0.0 {
        0.5 * g.exp() * (erfcx(-x1 * r2) - erfcx(y * r2))
    } else {
        normal_cdf(x1) - second
    }
}

/// The analytic σ for Δ = 1: the smallest σ with
/// `analytic_delta(ε, σ) ≤ δ`, by bisection on ln σ to ~1e-13 relative.
pub fn analytic_sigma(eps: f64, delta: f64) -> Result<f64> {
    check_gaussian_params(eps, delta, 1.0)?;
    // Bracket: δ(lo) > δ ≥ δ(hi).
    let (mut lo, mut hi) = (1.0f64, 1.0f64);
    let mut k = 0;
    while analytic_delta(eps, lo) <= delta {
        lo /= 2.0;
        k += 1;
        if k > 2000 {
            return Err(Error::Numerical(format!(
                "analytic calibration: no lower bracket for ε = {eps}, δ = {delta}"
            )));
        }
    }
    k = 0;
    while analytic_delta(eps, hi) > delta {
        hi *= 2.0;
        k += 1;
        if k > 2000 {
            return Err(Error::Numerical(format!(
                "analytic calibration: no upper bracket for ε = {eps}, δ = {delta}"
            )));
        }
    }
    let (mut llo, mut lhi) = (lo.ln(), hi.ln());
    // ~1e-14 absolute on ln σ (1e-14 relative on σ), or until the bracket
    // cannot be split further in f64 (large |ln σ|).
    while lhi - llo > 1e-14 {
        let mid = 0.5 * (llo + lhi);
        if mid <= llo || mid >= lhi {
            break;
        }
        if analytic_delta(eps, mid.exp()) > delta {
            llo = mid;
        } else {
            lhi = mid;
        }
    }
    Ok(lhi.exp())
}

#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    #[test]
    fn erfc_matches_high_precision_values() {
        // Reference values from mpmath at 40 digits.
        let cases = [
            (0.1, 0.887_537_083_981_715_107_8),
            (0.46875, 0.507_386_526_782_062_008_41),
            (0.5, 0.479_500_122_186_953_462_32),
            (1.0, 0.157_299_207_050_285_130_66),
            (2.0, 0.004_677_734_981_047_265_837_9),
            (3.5, 7.430_983_723_414_127_455_2e-7),
            (4.0, 1.541_725_790_028_001_885_2e-8),
            (5.0, 1.537_459_794_428_034_850_2e-12),
            (10.0, 2.088_487_583_762_544_757e-45),
            (26.0, 5.663_192_408_856_142_846_5e-296),
            (-0.3, 1.328_626_759_459_127_427_6),
            (-1.0, 1.842_700_792_949_714_869_3),
            (-5.0, 1.999_999_999_998_462_540_2),
        ];
        for (x, want) in cases {
            let got = erfc(x);
            assert!(rel(got, want) < 1e-15, "erfc({x}) = {got:e}, want {want:e}");
        }
        assert_eq!(erfc(30.0), 0.0);
        assert_eq!(erfc(-30.0), 2.0);
        // erfcx continuity and asymptotics.
        assert!(rel(erfcx(1.0), 0.157_299_207_050_285_130_66 * 1f64.exp()) < 1e-15);
        assert!(rel(erfcx(1e8), FRAC_1_SQRT_PI / 1e8) < 1e-15);
    }

    #[test]
    fn quantile_inverts_tail() {
        for p in [0.5, 0.1, 1e-5, 1e-12, 0.9] {
            let k = normal_upper_quantile(p);
            assert!(rel(normal_cdf(-k), p) < 1e-13, "{p} {k}");
        }
        assert!(normal_upper_quantile(0.5).abs() < 1e-15);
    }

    #[test]
    fn memo_section_4_numbers() {
        // (ε, analytic, Le Ny–Pappas, classic) at δ = 1e−5, Δ = 1.
        let rows = [
            (1.0, 3.7306, 4.3791, 4.8448),
            (0.1, 30.7496, 42.7658, 48.4481),
            (5.0, 0.8919, 0.9574, 0.9690),
        ];
        for (eps, an, lnp, cl) in rows {
            let d = 1e-5;
            let a = Calibration::Analytic.sigma(eps, d, 1.0).unwrap();
            let l = Calibration::LeNyPappas.sigma(eps, d, 1.0).unwrap();
            let c = Calibration::Classic.sigma(eps, d, 1.0).unwrap();
            assert!((a - an).abs() < 5e-5, "analytic ε={eps}: {a}");
            assert!((l - lnp).abs() < 5e-5, "LNP ε={eps}: {l}");
            assert!((c - cl).abs() < 5e-5, "classic ε={eps}: {c}");
            // The root satisfies the Balle–Wang equation.
            assert!(
                rel(analytic_delta(eps, a), d) < 1e-9,
                "{}",
                analytic_delta(eps, a)
            );
            // Sensitivity scales σ linearly.
            let a3 = Calibration::Analytic.sigma(eps, d, 3.0).unwrap();
            assert!(rel(a3, 3.0 * a) < 1e-15);
        }
        // mpmath: 3.73063163481594 (ε = 1), 30.7495661319774 (ε = 0.1).
        let a1 = analytic_sigma(1.0, 1e-5).unwrap();
        assert!(rel(a1, 3.730_631_634_815_94) < 1e-11, "{a1}");
        let a01 = analytic_sigma(0.1, 1e-5).unwrap();
        assert!(rel(a01, 30.749_566_131_977_4) < 1e-11, "{a01}");
    }

    #[test]
    fn sigma_is_non_increasing_in_eps() {
        for cal in [
            Calibration::Analytic,
            Calibration::Classic,
            Calibration::LeNyPappas,
        ] {
            for delta in [1e-10, 1e-5, 0.01, 0.3] {
                let mut prev = f64::INFINITY;
                for i in 0..80 {
                    let eps = 0.01 * 1.15f64.powi(i);
                    let s = cal.sigma(eps, delta, 1.0).unwrap();
                    assert!(
                        s <= prev * (1.0 + 1e-12),
                        "{cal} δ={delta} ε={eps}: {s} > {prev}"
                    );
                    prev = s;
                }
            }
        }
    }

    #[test]
    fn extreme_parameters_terminate_and_satisfy_the_condition() {
        for eps in [1e-99, 1e-10, 0.01, 50.0, 700.0, 1e4] {
            for delta in [1e-300, 1e-5, 0.5] {
                let s = analytic_sigma(eps, delta).unwrap();
                assert!(s.is_finite() && s > 0.0, "ε={eps} δ={delta}: {s}");
                assert!(analytic_delta(eps, s) <= delta, "ε={eps} δ={delta}");
                for cal in [Calibration::Classic, Calibration::LeNyPappas] {
                    assert!(cal.sigma(eps, delta, 1.0).unwrap().is_finite());
                }
            }
        }
    }

    #[test]
    fn rejects_bad_parameters() {
        for (e, d, s) in [
            (0.0, 1e-5, 1.0),
            (-1.0, 1e-5, 1.0),
            (f64::NAN, 1e-5, 1.0),
            (1.0, 0.0, 1.0),
            (1.0, 1.0, 1.0),
            (1.0, f64::NAN, 1.0),
            (1.0, 1e-5, 0.0),
            (1.0, 1e-5, f64::INFINITY),
        ] {
            assert!(Calibration::Analytic.sigma(e, d, s).is_err());
            assert!(Calibration::Classic.sigma(e, d, s).is_err());
        }
        assert!("bogus".parse::<Calibration>().is_err());
        assert_eq!(
            "le-ny-pappas".parse::<Calibration>().unwrap(),
            Calibration::LeNyPappas
        );
    }
}

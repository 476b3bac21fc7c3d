//! Small statistics for the collusion evaluation: the MSE/gain accumulator with
//! a delta-method confidence interval, Clopper–Pearson bounds (regularised
//! incomplete beta + bisection), squared errors and empirical quantiles.

/// 97.5% standard normal quantile (two-sided 95% intervals).
const Z975: f64 = 1.959_963_984_540_054;

/// Squared Euclidean error ‖est − u‖².
#[inline]
pub fn squared_error(est: &[f64], u: &[f64]) -> f64 {
    est.iter().zip(u).map(|(e, v)| (e - v) * (e - v)).sum()
}

/// Streams paired per-trial squared errors (best member, estimator) and
/// produces MSEs, the gain MSE(best)/MSE(estimator) with a 95% CI, and the win
/// rate. O(1) per trial (Welford-style co-moments, numerically stable);
/// mergeable, so parallel partial results combine exactly (Chan et al.).
///
/// The moments are kept in units of `scale` (issue 33 item 8): squared
/// errors on a coarse grid γ are of order γ² and their co-moments of order
/// γ⁴, which overflow f64 on grids above 2^187; divided by `scale` (a power
/// of two: exact, see the discrete coalition runner) they stay finite, and
/// the summary multiplies the MSEs back. The gain and its interval are
/// ratios: scale-free.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GainAccumulator {
    n: u64,
    mean_b: f64,
    mean_e: f64,
    m2_b: f64,
    m2_e: f64,
    c_be: f64,
    wins: u64,
    scale: f64,
}

impl Default for GainAccumulator {
    fn default() -> Self {
        GainAccumulator {
            n: 0,
            mean_b: 0.0,
            mean_e: 0.0,
            m2_b: 0.0,
            m2_e: 0.0,
            c_be: 0.0,
            wins: 0,
            scale: 1.0,
        }
    }
}

/// What a [`GainAccumulator`] reports. NaN where undefined (no trials; CI
/// with fewer than two trials).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GainSummary {
    /// Number of trials.
    pub trials: u64,
    /// MSE of the best member's answer.
    pub mse_best: f64,
    /// Standard error of `mse_best`.
    pub mse_best_se: f64,
    /// MSE of the estimator.
    pub mse: f64,
    /// Standard error of `mse`.
    pub mse_se: f64,
    /// MSE(best) / MSE(estimator): > 1 means pooling helps the coalition.
    pub gain: f64,
    /// Delta-method standard error of `gain`.
    pub gain_se: f64,
    /// 95% interval for the gain (delta method on ln gain, so it stays > 0).
    pub gain_lo: f64,
    /// Upper end of the 95% interval.
    pub gain_hi: f64,
    /// Share of trials where the estimate is strictly closer to u than the best
    /// member's answer.
    pub win_rate: f64,
}

impl GainAccumulator {
    /// No trials yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// No trials yet; squared errors are accumulated in units of `scale`
    /// (a power of two, e.g. γ² of a coarse grid; see the type's docs).
    pub fn with_scale(scale: f64) -> Self {
        GainAccumulator {
            scale,
            ..Self::default()
        }
    }

    /// Adds one trial: squared errors of the best member's answer and of the
    /// estimator (same trial, so the pair is correlated — that is what makes the
    /// interval tight).
    #[inline]
    pub fn push(&mut self, se_best: f64, se_est: f64) {
        let (se_best, se_est) = (se_best / self.scale, se_est / self.scale);
        self.n += 1;
        let nf = self.n as f64;
        let db = se_best - self.mean_b;
        let de = se_est - self.mean_e;
        self.mean_b += db / nf;
        self.mean_e += de / nf;
        self.m2_b += db * (se_best - self.mean_b);
        self.m2_e += de * (se_est - self.mean_e);
        self.c_be += db * (se_est - self.mean_e);
        self.wins += u64::from(se_est < se_best);
    }

    /// Combines another accumulator's trials into this one (of the same
    /// scale).
    pub fn merge(&mut self, o: &GainAccumulator) {
        debug_assert_eq!(self.scale, o.scale, "merging accumulators of two scales");
        if o.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *o;
            return;
        }
        let (na, nb) = (self.n as f64, o.n as f64);
        let n = na + nb;
        let db = o.mean_b - self.mean_b;
        let de = o.mean_e - self.mean_e;
        let f = na * nb / n;
        self.m2_b += o.m2_b + db * db * f;
        self.m2_e += o.m2_e + de * de * f;
        self.c_be += o.c_be + db * de * f;
        self.mean_b += db * nb / n;
        self.mean_e += de * nb / n;
        self.n += o.n;
        self.wins += o.wins;
    }

    /// Number of trials pushed.
    pub fn trials(&self) -> u64 {
        self.n
    }

    /// The summary. Gain CI: with paired means b̄, ē, ln(b̄/ē) has variance
    /// ≈ [Var b/b̄² − 2 Cov(b,e)/(b̄ē) + Var e/ē²]/T (delta method); the interval is
    /// gain · exp(±1.96 s.e.).
    pub fn summary(&self) -> GainSummary {
        let t = self.n as f64;
        let (mb, me) = if self.n == 0 {
            (f64::NAN, f64::NAN)
        } else {
            (self.mean_b, self.mean_e)
        };
        let gain = mb / me;
        let (vb, ve, cbe) = if self.n >= 2 {
            let d = t - 1.0;
            (self.m2_b / d, self.m2_e / d, self.c_be / d)
        } else {
            (f64::NAN, f64::NAN, f64::NAN)
        };
        let var_log = (vb / (mb * mb) - 2.0 * cbe / (mb * me) + ve / (me * me)) / t;
        // `f64::max` would turn the NaN of a single trial into a zero-width
        // interval; one draw gives no interval at all.
        let se_log = if var_log.is_nan() {
            f64::NAN
        } else {
            var_log.max(0.0).sqrt()
        };
        let k = self.scale;
        GainSummary {
            trials: self.n,
            mse_best: mb * k,
            mse_best_se: (vb / t).sqrt() * k,
            mse: me * k,
            mse_se: (ve / t).sqrt() * k,
            gain,
            gain_se: gain * se_log,
            gain_lo: gain * (-Z975 * se_log).exp(),
            gain_hi: gain * (Z975 * se_log).exp(),
            win_rate: self.wins as f64 / t,
        }
    }
}

/// Two-sided Clopper–Pearson interval for a binomial proportion: `k` successes
/// in `n` trials at `confidence` (e.g. 0.95). Each end is a one-sided
/// (1 + confidence)/2 bound: the upper end solves P(Bin(n, p) ≤ k) = (1 − c)/2,
/// i.e. it is the (1 + c)/2 quantile of Beta(k + 1, n − k). E.g. 0/100 → upper
/// 0.0362, 5/100 → [0.0164, 0.1128]. Returns (0, 1) for n = 0.
pub fn clopper_pearson(k: u64, n: u64, confidence: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let k = k.min(n);
    let a = 0.5 * (1.0 - confidence);
    let lo = if k == 0 {
        0.0
    } else {
        beta_quantile(a, k as f64, (n - k + 1) as f64)
    };
    let hi = if k == n {
        1.0
    } else {
        beta_quantile(1.0 - a, (k + 1) as f64, (n - k) as f64)
    };
    (lo, hi)
}

pub use crate::special::ln_gamma;

/// Regularised incomplete beta I_x(a, b) (Numerical Recipes §6.4: continued
/// fraction by modified Lentz, on the side where it converges fast).
pub fn beta_inc(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_bt = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (-x).ln_1p();
    let bt = ln_bt.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        bt * beta_cf(x, a, b) / a
    } else {
        1.0 - bt * beta_cf(1.0 - x, b, a) / b
    }
}

fn beta_cf(x: f64, a: f64, b: f64) -> f64 {
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / off_zero(1.0 - qab * x / qap);
    let mut h = d;
    // Converges in O(sqrt(max(a, b))) steps on this side of the mean.
    for m in 1..100_000 {
        let m = m as f64;
        let m2 = 2.0 * m;
        h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), &mut c, &mut d);
        let del = lentz_step(
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
            &mut c,
            &mut d,
        );
        h *= del;
        if (del - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// One modified-Lentz step with partial numerator `aa`: updates C and D
/// (each kept off 0) and returns the factor D·C the fraction moves by.
fn lentz_step(aa: f64, c: &mut f64, d: &mut f64) -> f64 {
    *d = 1.0 / off_zero(1.0 + aa * *d);
    *c = off_zero(1.0 + aa / *c);
    *d * *c
}

/// `v`, or Lentz's floor 1e-300 where `v` is closer to 0 (a zero denominator).
fn off_zero(v: f64) -> f64 {
    const TINY: f64 = 1e-300;
    if v.abs() < TINY { TINY } else { v }
}

/// The p-quantile of Beta(a, b): bisection on I_x(a, b) (monotone in x), to
/// adjacent floating-point numbers.
pub fn beta_quantile(p: f64, a: f64, b: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if beta_inc(mid, a, b) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Empirical p-quantile of `sorted` (ascending), linear interpolation between
/// order statistics (R type 7). NaN for an empty slice.
pub fn quantile_sorted(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_gamma_known_values() {
        assert!((ln_gamma(1.0)).abs() < 1e-14);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-14);
        assert!((ln_gamma(10.0) - 362_880f64.ln()).abs() < 1e-12);
        // ln Γ(101) = ln 100! = 363.73937555556347
        assert!((ln_gamma(101.0) - 363.739_375_555_563_47).abs() < 1e-10);
    }

    #[test]
    fn beta_inc_identities() {
        for &x in &[0.01, 0.3, 0.5, 0.9] {
            assert!((beta_inc(x, 1.0, 1.0) - x).abs() < 1e-14);
            assert!((beta_inc(x, 3.0, 1.0) - x.powi(3)).abs() < 1e-13);
            assert!((beta_inc(x, 2.5, 4.0) + beta_inc(1.0 - x, 4.0, 2.5) - 1.0).abs() < 1e-13);
        }
        assert!((beta_inc(0.5, 7.0, 7.0) - 0.5).abs() < 1e-13);
    }

    #[test]
    fn gain_accumulator_merges_exactly() {
        let data: Vec<(f64, f64)> = (0..101)
            .map(|i| {
                let x = i as f64;
                ((x * 0.37).sin().abs() + 0.1, (x * 0.11).cos().abs() + 0.2)
            })
            .collect();
        let mut all = GainAccumulator::new();
        let (mut a, mut b) = (GainAccumulator::new(), GainAccumulator::new());
        for (i, &(x, y)) in data.iter().enumerate() {
            all.push(x, y);
            if i < 40 { a.push(x, y) } else { b.push(x, y) }
        }
        a.merge(&b);
        let (s, t) = (all.summary(), a.summary());
        assert_eq!(s.trials, t.trials);
        for (u, v) in [
            (s.mse, t.mse),
            (s.gain, t.gain),
            (s.gain_lo, t.gain_lo),
            (s.win_rate, t.win_rate),
        ] {
            assert!((u - v).abs() < 1e-12);
        }
        // Direct two-pass check of the means.
        let mb: f64 = data.iter().map(|p| p.0).sum::<f64>() / 101.0;
        let me: f64 = data.iter().map(|p| p.1).sum::<f64>() / 101.0;
        assert!((s.gain - mb / me).abs() < 1e-12);
        assert!(s.gain_lo < s.gain && s.gain < s.gain_hi);
    }

    #[test]
    fn identical_errors_give_a_degenerate_interval() {
        let mut a = GainAccumulator::new();
        for i in 0..10 {
            a.push(i as f64, i as f64);
        }
        let s = a.summary();
        assert_eq!((s.gain, s.win_rate), (1.0, 0.0));
        assert!((s.gain_lo - 1.0).abs() < 1e-7 && (s.gain_hi - 1.0).abs() < 1e-7);
    }

    #[test]
    fn one_trial_gives_no_interval() {
        let mut a = GainAccumulator::new();
        a.push(2.0, 1.0);
        let s = a.summary();
        assert_eq!(s.gain, 2.0);
        assert!(s.gain_lo.is_nan() && s.gain_hi.is_nan() && s.gain_se.is_nan());
    }

    #[test]
    fn quantiles() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(quantile_sorted(&v, 0.5), 3.0);
        assert_eq!(quantile_sorted(&v, 1.0), 5.0);
        assert_eq!(quantile_sorted(&v, 0.99), 4.96);
    }
}

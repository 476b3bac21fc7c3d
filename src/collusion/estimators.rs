//! What a coalition computes from its pooled answers (memo §5).
//!
//! Every estimator here is translation-equivariant, so under the correlated
//! mechanism its risk is constant in u and at least that of the best member's
//! answer y* (the Pitman estimator of that model, memo §5): no estimator beats
//! the best member. Under independent noise the pooled estimators win; the
//! Pitman estimator of the independent-Laplace model is the strongest practical
//! attack (minimum MSE among equivariant estimators).
//!
//! For n > 1 all estimators work coordinate by coordinate. Under the ℓ1 mechanism
//! this is exact (independent coordinates); under ℓ2 the per-coordinate Laplace
//! model is an approximation the attacker chooses to use.
//!
//! Cost: O(m log m) per coordinate (one sort, shared by median, MLE and Pitman in
//! [`estimate_many`]); buffers live in [`EstimatorScratch`] and are reused.

use std::fmt;
use std::str::FromStr;

use super::stats::{GainAccumulator, GainSummary, squared_error};
use crate::error::{Error, Result};

/// A pooled estimator of the owner's value.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Estimator {
    /// The answer of the member with the largest ε (smallest σ); ties: the
    /// lowest member position.
    Best,
    /// The plain mean of the members' answers.
    Mean,
    /// Inverse-variance weighted mean: weights λ_j² (Laplace, Var = 2/λ²) or
    /// 1/σ_j² (Gaussian).
    Ivw,
    /// Coordinate-wise median (midpoint of the two middle answers for even m).
    Median,
    /// Maximum likelihood under independent noise: the weighted median with
    /// weights λ_j (argmin Σ λ_j|y_j − u|, midpoint when the objective is flat);
    /// for the Gaussian model the inverse-variance mean.
    Mle,
    /// Posterior mean under a flat prior for independent noise, computed
    /// exactly piecewise (memo §5); for the Gaussian model the inverse-variance
    /// mean.
    Pitman,
}

impl Estimator {
    /// All estimators, in the order of the `--estimators` default.
    pub const ALL: [Estimator; 6] = [
        Estimator::Best,
        Estimator::Mean,
        Estimator::Ivw,
        Estimator::Median,
        Estimator::Mle,
        Estimator::Pitman,
    ];

    /// The name used on the command line and in output files.
    pub fn name(self) -> &'static str {
        match self {
            Estimator::Best => "best",
            Estimator::Mean => "mean",
            Estimator::Ivw => "ivw",
            Estimator::Median => "median",
            Estimator::Mle => "mle",
            Estimator::Pitman => "pitman",
        }
    }

    /// The canonical spec of a list: names joined by commas.
    pub fn list_spec(list: &[Estimator]) -> String {
        list.iter().map(|e| e.name()).collect::<Vec<_>>().join(",")
    }

    /// Parses a comma-separated list such as `best,ivw,pitman` (spaces allowed,
    /// repeated names kept once, in first-seen order).
    pub fn parse_list(s: &str) -> Result<Vec<Estimator>> {
        let mut out = Vec::new();
        for tok in s.split(',') {
            let tok = tok.trim();
            if tok.is_empty() {
                continue;
            }
            let e: Estimator = tok.parse()?;
            if !out.contains(&e) {
                out.push(e);
            }
        }
        if out.is_empty() {
            return Err(Error::param(
                "estimators",
                s,
                "a comma-separated list of best, mean, ivw, median, mle, pitman",
            ));
        }
        Ok(out)
    }
}

impl fmt::Display for Estimator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Estimator {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let t = s.trim();
        Estimator::ALL
            .iter()
            .copied()
            .find(|e| e.name().eq_ignore_ascii_case(t))
            .ok_or_else(|| {
                Error::param(
                    "estimators",
                    t,
                    format!(
                        "one of best, mean, ivw, median, mle, pitman{}",
                        crate::util::suggest::did_you_mean(
                            t,
                            &["best", "mean", "ivw", "median", "mle", "pitman"]
                        )
                    ),
                )
            })
    }
}

/// Serde for a list of estimators as today's comma-separated spec
/// (`"best,ivw,pitman"`), e.g. `#[serde(with = "estimator_list")]`.
pub mod estimator_list {
    use super::Estimator;

    /// Writes `best,ivw,...`.
    pub fn serialize<S: serde::Serializer>(v: &[Estimator], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&Estimator::list_spec(v))
    }

    /// Reads a comma-separated list ([`Estimator::parse_list`]).
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Estimator>, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(d)?;
        Estimator::parse_list(&text).map_err(serde::de::Error::custom)
    }
}

/// What the attacker knows about each member's noise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MemberNoise<'a> {
    /// Laplace noise with per-member rate λ_j (density ∝ e^{−λ_j|v|} per
    /// coordinate; λ_j = ε_j/Δ).
    Laplace {
        /// λ_j per member.
        rates: &'a [f64],
    },
    /// Gaussian noise with per-member, per-coordinate standard deviation σ_j.
    Gaussian {
        /// σ_j per member.
        sigmas: &'a [f64],
    },
}

impl MemberNoise<'_> {
    fn params(&self) -> &[f64] {
        match self {
            MemberNoise::Laplace { rates } => rates,
            MemberNoise::Gaussian { sigmas } => sigmas,
        }
    }
}

/// A coalition's pooled answers: `m` members × `n` coordinates, row-major, with
/// the noise model the attacker assumes. Validated once, so the estimators
/// cannot fail.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    answers: &'a [f64],
    n: usize,
    m: usize,
    model: MemberNoise<'a>,
    best: Option<usize>,
}

impl<'a> View<'a> {
    /// Checks shapes (`answers.len() == m·n`, one parameter per member, n ≥ 1)
    /// and that every rate / σ is finite and > 0. `m = 0` is allowed (an empty
    /// coalition: every estimate is NaN).
    pub fn new(answers: &'a [f64], n: usize, model: MemberNoise<'a>) -> Result<Self> {
        let params = model.params();
        let m = params.len();
        if n == 0 {
            return Err(Error::param("view dimension", n, "n ≥ 1"));
        }
        if answers.len() != m * n {
            return Err(Error::param(
                "view answers",
                format!("{} values", answers.len()),
                format!("{m} members × {n} coordinates = {} values", m * n),
            ));
        }
        let what = match model {
            MemberNoise::Laplace { .. } => "member noise rate",
            MemberNoise::Gaussian { .. } => "member noise sigma",
        };
        if let Some(&p) = params.iter().find(|p| !(p.is_finite() && **p > 0.0)) {
            return Err(Error::param(what, p, "a finite number > 0"));
        }
        let best = best_index(model);
        Ok(View {
            answers,
            n,
            m,
            model,
            best,
        })
    }

    /// Number of members.
    pub fn members(&self) -> usize {
        self.m
    }

    /// Number of coordinates.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// The noise model.
    pub fn model(&self) -> MemberNoise<'a> {
        self.model
    }

    /// Position of the best member (largest rate / smallest σ; ties: lowest
    /// position), `None` for an empty coalition.
    pub fn best_member(&self) -> Option<usize> {
        self.best
    }

    /// Member `j`'s answer (n values).
    pub fn answer(&self, j: usize) -> &'a [f64] {
        &self.answers[j * self.n..(j + 1) * self.n]
    }

    #[inline]
    fn at(&self, j: usize, i: usize) -> f64 {
        self.answers[j * self.n + i]
    }
}

fn best_index(model: MemberNoise<'_>) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    match model {
        MemberNoise::Laplace { rates } => {
            for (j, &r) in rates.iter().enumerate() {
                if best.is_none_or(|(_, b)| r > b) {
                    best = Some((j, r));
                }
            }
        }
        MemberNoise::Gaussian { sigmas } => {
            for (j, &s) in sigmas.iter().enumerate() {
                if best.is_none_or(|(_, b)| s < b) {
                    best = Some((j, s));
                }
            }
        }
    }
    best.map(|(j, _)| j)
}

/// Reusable buffers for the estimators (no allocation once warm).
#[derive(Clone, Debug, Default)]
pub struct EstimatorScratch {
    /// (answer, weight) pairs of one coordinate, sorted by answer.
    pairs: Vec<(f64, f64)>,
    /// Prefix sums of weights.
    prefix: Vec<f64>,
    /// Suffix sums of weights (weight strictly above each knot).
    suffix: Vec<f64>,
}

impl EstimatorScratch {
    /// Empty buffers.
    pub fn new() -> Self {
        Self::default()
    }
}

/// Writes estimator `est`'s estimate (n values) into `out`.
///
/// # Panics
/// If `out.len() != view.dim()`.
pub fn estimate(est: Estimator, view: &View<'_>, scratch: &mut EstimatorScratch, out: &mut [f64]) {
    estimate_many(std::slice::from_ref(&est), view, scratch, out);
}

/// Writes the estimates of all `ests` into `out` (row k = `ests[k]`, n values
/// each), sorting each coordinate at most once.
///
/// # Panics
/// If `out.len() != ests.len() · view.dim()`.
pub fn estimate_many(
    ests: &[Estimator],
    view: &View<'_>,
    scratch: &mut EstimatorScratch,
    out: &mut [f64],
) {
    let n = view.n;
    assert_eq!(out.len(), ests.len() * n, "output buffer size");
    let Some(best) = view.best else {
        out.fill(f64::NAN);
        return;
    };
    let gaussian = matches!(view.model, MemberNoise::Gaussian { .. });
    let needs_sort = ests.iter().any(|e| match e {
        Estimator::Median => true,
        Estimator::Mle | Estimator::Pitman => !gaussian,
        _ => false,
    });
    for i in 0..n {
        if needs_sort {
            fill_sorted(view, i, &mut scratch.pairs);
        }
        let r = view.at(best, i);
        for (k, &e) in ests.iter().enumerate() {
            let v = match e {
                Estimator::Best => r,
                Estimator::Mean => mean(view, i, r),
                Estimator::Ivw => ivw(view, i, r),
                Estimator::Median => median_sorted(&scratch.pairs),
                Estimator::Mle | Estimator::Pitman if gaussian => ivw(view, i, r),
                Estimator::Mle => {
                    weighted_median_sorted(&scratch.pairs, &mut scratch.prefix, &mut scratch.suffix)
                }
                Estimator::Pitman => pitman_sorted(&scratch.pairs, &mut scratch.prefix),
            };
            out[k * n + i] = v;
        }
    }
}

/// Means are accumulated as offsets from the best member's answer `r`: exact
/// when all answers agree (no spurious one-ulp "wins") and free of cancellation
/// at large |u|.
fn mean(view: &View<'_>, i: usize, r: f64) -> f64 {
    let s: f64 = (0..view.m).map(|j| view.at(j, i) - r).sum();
    r + s / view.m as f64
}

fn ivw(view: &View<'_>, i: usize, r: f64) -> f64 {
    let (mut sw, mut swy) = (0.0, 0.0);
    match view.model {
        MemberNoise::Laplace { rates } => {
            for (j, &l) in rates.iter().enumerate() {
                let w = l * l;
                sw += w;
                swy += w * (view.at(j, i) - r);
            }
        }
        MemberNoise::Gaussian { sigmas } => {
            for (j, &s) in sigmas.iter().enumerate() {
                let w = 1.0 / (s * s);
                sw += w;
                swy += w * (view.at(j, i) - r);
            }
        }
    }
    r + swy / sw
}

/// Coordinate `i`'s (answer, weight) pairs sorted by answer; weight = rate for
/// the Laplace model (1 for Gaussian, where only the median uses the sort).
fn fill_sorted(view: &View<'_>, i: usize, pairs: &mut Vec<(f64, f64)>) {
    pairs.clear();
    match view.model {
        MemberNoise::Laplace { rates } => {
            pairs.extend(rates.iter().enumerate().map(|(j, &r)| (view.at(j, i), r)));
        }
        MemberNoise::Gaussian { .. } => pairs.extend((0..view.m).map(|j| (view.at(j, i), 1.0))),
    }
    pairs.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
}

fn median_sorted(pairs: &[(f64, f64)]) -> f64 {
    let m = pairs.len();
    if m % 2 == 1 {
        pairs[m / 2].0
    } else {
        0.5 * pairs[m / 2 - 1].0 + 0.5 * pairs[m / 2].0
    }
}

/// Fills `prefix[k]` with the weight at or below knot k (C_k, summed from the
/// low end) and returns the total weight W.
fn cumulative_weights(pairs: &[(f64, f64)], prefix: &mut Vec<f64>) -> f64 {
    prefix.clear();
    let mut c = 0.0;
    for p in pairs {
        c += p.1;
        prefix.push(c);
    }
    c
}

/// argmin_u Σ w_j|y_j − u| over sorted pairs. The objective's slope between
/// knots k and k+1 is C_k − R_k (weight at or below minus weight above); the
/// minimiser is the first knot where it turns ≥ 0, and the midpoint of the flat
/// piece when it is exactly 0. C and R are summed from opposite ends so equal
/// weights on both sides compare exactly equal.
fn weighted_median_sorted(
    pairs: &[(f64, f64)],
    prefix: &mut Vec<f64>,
    suffix: &mut Vec<f64>,
) -> f64 {
    let m = pairs.len();
    cumulative_weights(pairs, prefix);
    suffix.clear();
    suffix.resize(m, 0.0);
    let mut r = 0.0;
    for k in (0..m).rev() {
        suffix[k] = r; // weight strictly above knot k
        r += pairs[k].1;
    }
    for k in 0..m {
        if prefix[k] > suffix[k] {
            return pairs[k].0;
        }
        if prefix[k] == suffix[k] {
            return 0.5 * pairs[k].0 + 0.5 * pairs[k + 1].0;
        }
    }
    pairs[m - 1].0
}

/// Taylor coefficients 1/(k!(k+2)) of φ2 (see [`phi12`]).
const PHI2_COEF: [f64; 18] = {
    let mut c = [0.0; 18];
    let mut fact = 1.0;
    let mut k = 0;
    while k < 18 {
        c[k] = 1.0 / (fact * (k as f64 + 2.0));
        k += 1;
        fact *= k as f64;
    }
    c
};

/// For x ≤ 0: (φ1(x), φ2(x), e^x) with φ1(x) = (e^x − 1)/x = ∫₀¹ e^{xτ} dτ ∈ (0, 1]
/// and φ2(x) = (e^x(x − 1) + 1)/x² = ∫₀¹ τ e^{xτ} dτ ∈ (0, 1/2]. One `expm1`
/// serves all three near 0 (plus one `exp` for x < −1); φ2's closed form cancels near 0, so |x| < 1 uses its
/// series Σ x^k/(k!(k+2)) (18 terms: 1/(18!·20) < 1e-17).
#[inline]
fn phi12(x: f64) -> (f64, f64, f64) {
    if x == 0.0 {
        return (1.0, 0.5, 1.0);
    }
    let em1 = x.exp_m1();
    // 1 + expm1 loses relative precision once e^x ≪ 1: take exp there.
    let ex = if x > -1.0 { em1 + 1.0 } else { x.exp() };
    let p1 = em1 / x;
    let p2 = if x > -1.0 {
        let mut s = PHI2_COEF[17];
        for &c in PHI2_COEF[..17].iter().rev() {
            s = s * x + c;
        }
        s
    } else {
        (ex * (x - 1.0) + 1.0) / (x * x)
    };
    (p1, p2, ex)
}

/// Posterior mean of u under a flat prior and independent Laplace noise,
/// likelihood e^{ℓ(u)}, ℓ(u) = −Σ w_j|y_j − u| (memo §5).
///
/// ℓ is concave and piecewise linear with knots at the sorted answers; its
/// slope between knots k and k+1 is s_k = W − 2C_k (weight above minus weight at
/// or below), ±W on the tails. The maximum sits at the weighted median knot k*;
/// we walk outward from it in both directions with ℓ(k*) = 0, so every exponent
/// is ≤ 0 and the knots that carry the mass have the smallest rounding error.
/// The walk stops at the first knot k with ℓ_k < −50: by concavity the mass
/// beyond it is ≤ e^{ℓ_k}/|s_k| while the mass between k* and k is
/// ≥ (1 − e^{ℓ_k})/|s_k| (ℓ lies above its chord, whose slope is at most |s_k|
/// steep), so the neglected part is < e^{−50} ≈ 2e−22 relative (for the first
/// moment: < e^{−50}·2|y_k − y_k*|, itself a few posterior scales at most).
/// This skips most pieces when many members crowd the maximum. Each piece is
/// anchored at its
/// higher end, so the exponent x = −|s|L is ≤ 0: I0 = e^{ℓ_hi} L φ1(x),
/// ∫(u − anchor) e^ℓ = ±e^{ℓ_hi} L² φ2(x); e^ℓ is carried from piece to piece
/// by multiplying by e^x (relative drift ≤ m ulp). Positions are relative to
/// the maximising knot to avoid cancellation at large |u|.
fn pitman_sorted(pairs: &[(f64, f64)], prefix: &mut Vec<f64>) -> f64 {
    let m = pairs.len();
    let w = cumulative_weights(pairs, prefix);
    let slope = |k: usize| w - 2.0 * prefix[k];
    // Maximising knot: first k whose right slope is ≤ 0 (the last knot has −W).
    let kstar = (0..m).find(|&k| slope(k) <= 0.0).unwrap_or(m - 1);
    let center = pairs[kstar].0;
    let x = |k: usize| pairs[k].0 - center;
    let (mut i0, mut i1) = (0.0, 0.0);
    // e^{−50}: see the doc comment.
    const CUT: f64 = 1.928_749_847_963_918e-22;

    // Right of the maximum: slopes ≤ 0, pieces anchored at their left knot.
    let mut el = 1.0;
    let mut k = kstar;
    while el >= CUT {
        if k == m - 1 {
            // Tail ℓ_{m−1} − W(u − y_{m−1}).
            i0 += el / w;
            i1 += el * (x(k) / w + 1.0 / (w * w));
            break;
        }
        let len = pairs[k + 1].0 - pairs[k].0;
        if len > 0.0 {
            let (p1, p2, ex) = phi12(slope(k) * len);
            let p0 = el * len * p1;
            i0 += p0;
            i1 += x(k) * p0 + el * len * len * p2;
            el *= ex;
        }
        k += 1;
    }
    // Left of the maximum: slopes > 0, pieces anchored at their right knot.
    let mut el = 1.0;
    let mut k = kstar;
    while el >= CUT {
        if k == 0 {
            // Tail ℓ_0 + W(u − y_0).
            i0 += el / w;
            i1 += el * (x(0) / w - 1.0 / (w * w));
            break;
        }
        let len = pairs[k].0 - pairs[k - 1].0;
        if len > 0.0 {
            let (p1, p2, ex) = phi12(-slope(k - 1) * len);
            let p0 = el * len * p1;
            i0 += p0;
            i1 += x(k) * p0 - el * len * len * p2;
            el *= ex;
        }
        k -= 1;
    }
    center + i1 / i0
}

/// Per-(coalition, mechanism) evaluation of a set of estimators over trials:
/// estimates each view, and feeds (best member, estimator) squared errors into
/// one [`GainAccumulator`] per estimator. Owns its buffers; one per worker,
/// combined with [`EstimatorPanel::merge`].
#[derive(Clone, Debug)]
pub struct EstimatorPanel {
    ests: Vec<Estimator>,
    acc: Vec<GainAccumulator>,
    out: Vec<f64>,
    best: Vec<f64>,
    scratch: EstimatorScratch,
}

impl EstimatorPanel {
    /// A panel for `ests` (in output order).
    pub fn new(ests: &[Estimator]) -> Self {
        Self::with_scale(ests, 1.0)
    }

    /// A panel whose squared errors are accumulated in units of `scale`
    /// ([`GainAccumulator::with_scale`]).
    pub fn with_scale(ests: &[Estimator], scale: f64) -> Self {
        EstimatorPanel {
            ests: ests.to_vec(),
            acc: vec![GainAccumulator::with_scale(scale); ests.len()],
            out: Vec::new(),
            best: Vec::new(),
            scratch: EstimatorScratch::new(),
        }
    }

    /// Evaluates one trial's view against the true value `u` (n values). Empty
    /// views are skipped (there is no best member to compare with).
    pub fn push(&mut self, view: &View<'_>, u: &[f64]) {
        let Some(b) = view.best_member() else { return };
        let n = view.dim();
        self.out.resize(self.ests.len() * n, 0.0);
        estimate_many(&self.ests, view, &mut self.scratch, &mut self.out);
        self.best.clear();
        self.best.extend_from_slice(view.answer(b));
        let se_best = squared_error(&self.best, u);
        for (k, acc) in self.acc.iter_mut().enumerate() {
            acc.push(se_best, squared_error(&self.out[k * n..(k + 1) * n], u));
        }
    }

    /// The last view's estimate by `est` (n values), if `est` is in the panel
    /// and a view was pushed — e.g. the Pitman estimate for the distinguishing
    /// attack.
    pub fn last_estimate(&self, est: Estimator) -> Option<&[f64]> {
        let k = self.ests.iter().position(|&e| e == est)?;
        let n = self.out.len() / self.ests.len().max(1);
        self.out.get(k * n..(k + 1) * n).filter(|s| !s.is_empty())
    }

    /// Adds another panel's trials (same estimators, same order).
    ///
    /// # Panics
    /// If the estimator lists differ.
    pub fn merge(&mut self, other: &EstimatorPanel) {
        assert_eq!(
            self.ests, other.ests,
            "merging panels of different estimators"
        );
        for (a, b) in self.acc.iter_mut().zip(&other.acc) {
            a.merge(b);
        }
    }

    /// One summary per estimator, in panel order.
    pub fn summaries(&self) -> Vec<(Estimator, GainSummary)> {
        self.ests
            .iter()
            .copied()
            .zip(self.acc.iter().map(GainAccumulator::summary))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phi_functions_match_closed_forms() {
        for &x in &[-1e-12f64, -1e-6, -0.3, -0.999, -1.0, -1.5, -30.0, -800.0] {
            let closed2 = if x < -1e-3 {
                (x.exp() * (x - 1.0) + 1.0) / (x * x)
            } else {
                0.5 + x / 3.0
            };
            let (p1, p2, ex) = phi12(x);
            assert!((p2 - closed2).abs() <= 1e-12 * closed2, "{x}");
            assert!(p1 > 0.0 && p1 <= 1.0);
            assert!((ex - x.exp()).abs() <= 1e-15 * x.exp().max(1e-300));
        }
        assert_eq!(phi12(0.0), (1.0, 0.5, 1.0));
        // Continuity across the series/closed-form switch.
        assert!((phi12(-1.0).1 - phi12(-1.0 + 1e-12).1).abs() < 1e-11);
        assert_eq!(PHI2_COEF[0], 0.5);
        assert_eq!(PHI2_COEF[2], 1.0 / 8.0);
    }

    #[test]
    fn weighted_median_ties_take_the_midpoint() {
        let pairs = [(0.0, 1.0), (1.0, 1.0), (5.0, 1.0), (9.0, 1.0)];
        let (mut a, mut b) = (Vec::new(), Vec::new());
        assert_eq!(weighted_median_sorted(&pairs, &mut a, &mut b), 3.0);
        let pairs = [(0.0, 1.0), (1.0, 3.0), (5.0, 1.0)];
        assert_eq!(weighted_median_sorted(&pairs, &mut a, &mut b), 1.0);
        let pairs = [
            (0.0, 0.1),
            (1.0, 0.1),
            (5.0, 0.1),
            (6.0, 0.1),
            (7.0, 0.1),
            (8.0, 0.1),
        ];
        assert_eq!(weighted_median_sorted(&pairs, &mut a, &mut b), 5.5);
    }
}

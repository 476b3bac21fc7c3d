//! The statistics behind figure 1b: the expected number of jumps per bin of
//! distance, Σ over paths of λ·|Δ ln ε| (memo §1a, §2: the jumps of a path
//! form a Poisson process in ln ε of rate λ = 2n (ℓ1) or n + 1 (ℓ2)), the
//! binning, and the chi-square test the figure's legend reports.

use super::data::{JumpRow, OwnerRow};
use crate::epsilon::EpsilonMap;

pub use crate::special::{gamma_q, ln_gamma};

/// Expected number of jumps per histogram bin, summed over owners.
///
/// `edges` are the ascending bin edges (k + 1 of them for k bins); `ranges`
/// the `[distance_min, distance_max]` each owner's path covers; `rate` = λ;
/// `ln_eps(d)` = ln ε(d), continuous and monotone in d. For each owner and
/// bin, the overlap `[d₁', d₂']` of the bin with the owner's range adds
/// `λ·|ln ε(d₁') − ln ε(d₂')|` (exact: the integral of the density). Ranges
/// that are empty or not finite add nothing.
pub fn expected_jump_counts(
    edges: &[f64],
    ranges: &[(f64, f64)],
    rate: f64,
    ln_eps: &dyn Fn(f64) -> f64,
) -> Vec<f64> {
    let k = edges.len().saturating_sub(1);
    let mut out = vec![0.0; k];
    for &(lo, hi) in ranges {
        if !(lo.is_finite() && hi.is_finite() && hi > lo) {
            continue;
        }
        for (b, slot) in out.iter_mut().enumerate() {
            let a = edges[b].max(lo);
            let z = edges[b + 1].min(hi);
            if z > a {
                let d = (ln_eps(a) - ln_eps(z)).abs();
                if d.is_finite() {
                    *slot += rate * d;
                }
            }
        }
    }
    out
}

/// `bins` equal-width bins over `[lo, hi]` (k + 1 edges; the last edge is
/// exactly `hi`).
pub fn histogram_edges(lo: f64, hi: f64, bins: usize) -> Vec<f64> {
    let bins = bins.max(1);
    let w = (hi - lo) / bins as f64;
    let mut e: Vec<f64> = (0..bins).map(|i| lo + w * i as f64).collect();
    e.push(hi);
    e
}

/// Counts of `xs` per bin: bin `i` is `[edges[i], edges[i+1])`, the last bin
/// also takes `x = edges[k]`. Values outside the edges (and NaN) are ignored.
pub fn bin_counts(edges: &[f64], xs: impl IntoIterator<Item = f64>) -> Vec<f64> {
    let k = edges.len().saturating_sub(1);
    let mut out = vec![0.0; k];
    if k == 0 {
        return out;
    }
    for x in xs {
        if !(x >= edges[0] && x <= edges[k]) {
            continue;
        }
        // First edge > x, minus one; x = last edge goes to the last bin.
        let i = edges
            .partition_point(|&e| e <= x)
            .saturating_sub(1)
            .min(k - 1);
        out[i] += 1.0;
    }
    out
}

/// Number of bins for `n` jumps: Rice's rule 2·n^{1/3}, kept within 8..=40.
pub fn default_bins(n: usize) -> usize {
    ((2.0 * (n as f64).cbrt()).ceil() as usize).clamp(8, 40)
}

/// Histogram of jump distances with its theoretical counterpart.
#[derive(Clone, Debug, PartialEq)]
pub struct JumpHistogram {
    /// Bin edges (k + 1).
    pub edges: Vec<f64>,
    /// Observed jumps per bin.
    pub counts: Vec<f64>,
    /// Expected jumps per bin ([`expected_jump_counts`]); empty when the jump
    /// rate is unknown.
    pub expected: Vec<f64>,
    /// λ used for `expected`.
    pub rate: Option<f64>,
}

impl JumpHistogram {
    /// Bins `distances` over the union of the owners' ranges and computes the
    /// expected counts (when `rate` is known).
    pub fn new(
        distances: &[f64],
        ranges: &[(f64, f64)],
        rate: Option<f64>,
        ln_eps: &dyn Fn(f64) -> f64,
        bins: usize,
    ) -> JumpHistogram {
        let finite = ranges
            .iter()
            .filter(|(a, b)| a.is_finite() && b.is_finite() && b >= a);
        let lo = finite.clone().map(|r| r.0).fold(f64::INFINITY, f64::min);
        let hi = finite.map(|r| r.1).fold(f64::NEG_INFINITY, f64::max);
        let (lo, hi) = if lo < hi { (lo, hi) } else { (0.0, 1.0) };
        let edges = histogram_edges(lo, hi, bins);
        let counts = bin_counts(&edges, distances.iter().copied());
        let expected = match rate {
            Some(r) => expected_jump_counts(&edges, ranges, r, ln_eps),
            None => Vec::new(),
        };
        JumpHistogram {
            edges,
            counts,
            expected,
            rate,
        }
    }

    /// Pearson's chi-square of the counts against the expected counts (see
    /// [`chi_square`]); None when there is no theory.
    pub fn chi_square(&self) -> Option<ChiSquare> {
        (self.expected.len() == self.counts.len() && !self.expected.is_empty())
            .then(|| chi_square(&self.counts, &self.expected))
    }
}

/// Result of a chi-square goodness-of-fit test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChiSquare {
    /// Σ (O − E)² / E over the pooled groups.
    pub statistic: f64,
    /// Degrees of freedom (= groups: the total is not conditioned on, since
    /// the jump counts are Poisson with known means).
    pub df: usize,
    /// Upper-tail probability, `Q(df/2, statistic/2)`.
    pub p_value: f64,
}

/// Chi-square test of Poisson counts `observed` against known means
/// `expected`. Adjacent bins are pooled left to right until each group expects
/// at least 5 (a last short group joins its neighbour), so the χ²
/// approximation holds.
pub fn chi_square(observed: &[f64], expected: &[f64]) -> ChiSquare {
    let mut groups: Vec<(f64, f64)> = Vec::new();
    let (mut o, mut e) = (0.0, 0.0);
    for (&ob, &ex) in observed.iter().zip(expected) {
        o += ob;
        e += ex;
        if e >= 5.0 {
            groups.push((o, e));
            o = 0.0;
            e = 0.0;
        }
    }
    if e > 0.0 || o > 0.0 {
        match groups.last_mut() {
            Some(last) => {
                last.0 += o;
                last.1 += e;
            }
            None => groups.push((o, e)),
        }
    }
    let mut stat = 0.0;
    for &(o, e) in &groups {
        stat += if e > 0.0 {
            (o - e) * (o - e) / e
        } else if o > 0.0 {
            f64::INFINITY
        } else {
            0.0
        };
    }
    let df = groups.len();
    ChiSquare {
        statistic: stat,
        df,
        p_value: if df == 0 {
            1.0
        } else {
            gamma_q(df as f64 / 2.0, stat / 2.0)
        },
    }
}

/// ln ε(d) for the theory: the run's privacy map when `summary.json` records
/// it, otherwise a piecewise-linear interpolation through the exact
/// `(distance, ln ε)` pairs the data carry (owner ranges and jumps), which is
/// exact for `exp:` and `range:` maps.
#[derive(Clone, Debug)]
pub enum LnEps {
    /// The recorded map.
    Map(EpsilonMap),
    /// Knots `(d, ln ε)`, ascending in d.
    Knots(Vec<(f64, f64)>),
}

impl LnEps {
    /// Builds the interpolant from the data.
    pub fn from_data(owners: &[OwnerRow], jumps: &[JumpRow]) -> LnEps {
        let mut k: Vec<(f64, f64)> = owners
            .iter()
            .filter_map(OwnerRow::range)
            .flat_map(|o| {
                [
                    (o.distance_min, o.eps_hi.ln()),
                    (o.distance_max, o.eps_lo.ln()),
                ]
            })
            .chain(jumps.iter().map(|j| (j.distance, j.eps.ln())))
            .filter(|(d, l)| d.is_finite() && l.is_finite())
            .collect();
        k.sort_by(|a, b| a.0.total_cmp(&b.0));
        k.dedup_by(|b, a| a.0 == b.0);
        LnEps::Knots(k)
    }

    /// ln ε(d).
    pub fn ln_eps(&self, d: f64) -> f64 {
        match self {
            LnEps::Map(m) => m.ln_eps(d),
            LnEps::Knots(k) => {
                if k.is_empty() {
                    return f64::NAN;
                }
                let i = k.partition_point(|p| p.0 <= d);
                if i == 0 {
                    return k[0].1;
                }
                if i == k.len() {
                    return k[k.len() - 1].1;
                }
                let (a, b) = (k[i - 1], k[i]);
                a.1 + (b.1 - a.1) * (d - a.0) / (b.0 - a.0)
            }
        }
    }

    /// ε of the answer at distance d (for the RMS envelope).
    pub fn eps(&self, d: f64) -> f64 {
        match self {
            LnEps::Map(m) => m.eps(d),
            LnEps::Knots(_) => self.ln_eps(d).exp(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_counts_exp_map_are_rate_times_b_times_overlap() {
        // exp:a=3,b=0.5 → ln ε = 3 − 0.5 d; λ = 3; owners cover [1,5] and [2,3].
        let ln = |d: f64| 3.0 - 0.5 * d;
        let e = histogram_edges(0.0, 6.0, 6);
        let got = expected_jump_counts(&e, &[(1.0, 5.0), (2.0, 3.0), (4.0, 4.0)], 3.0, &ln);
        let want = [0.0, 1.5, 3.0, 1.5, 1.5, 0.0];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{got:?}");
        }
    }

    #[test]
    fn binning_edges_and_outside_values() {
        let e = histogram_edges(0.0, 1.0, 4);
        assert_eq!(e.len(), 5);
        assert_eq!(e[4], 1.0);
        let c = bin_counts(&e, [0.0, 0.24, 0.25, 0.99, 1.0, -0.1, 1.1, f64::NAN]);
        assert_eq!(c, vec![2.0, 1.0, 0.0, 2.0]);
    }

    #[test]
    fn gamma_q_known_values() {
        // Q(1, x) = e^{−x}; Q(1/2, x) = erfc(√x); chi-square df = 2: p = e^{−x/2}.
        for x in [0.1, 1.0, 2.5, 10.0, 40.0] {
            assert!((gamma_q(1.0, x) - (-x).exp()).abs() < 1e-14 * (1.0 + (-x).exp()));
        }
        // erfc(1) = 0.157299207050285, erfc(3) = 2.20904969985854e-5.
        assert!((gamma_q(0.5, 1.0) - 0.157_299_207_050_285).abs() < 1e-13);
        assert!((gamma_q(0.5, 9.0) / 2.209_049_699_858_54e-5 - 1.0).abs() < 1e-10);
        // Chi-square df = 10 at its median 9.341818: p = 0.5.
        assert!((gamma_q(5.0, 9.341_818 / 2.0) - 0.5).abs() < 1e-6);
        assert!((ln_gamma(10.0) - 362_880f64.ln()).abs() < 1e-12);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
    }

    #[test]
    fn chi_square_pools_small_bins() {
        let cs = chi_square(&[1.0, 2.0, 10.0, 0.0], &[1.0, 3.0, 10.0, 1.0]);
        // Groups: (3,4)→ pooled until ≥5 with the 10: (13,14); last (0,1) joins it.
        assert_eq!(cs.df, 1);
        assert!((cs.statistic - 4.0 / 15.0).abs() < 1e-12);
    }
}

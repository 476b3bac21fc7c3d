//! Statistics of the privacy-loss audit (memo §5, §4): the losses of the
//! sampled views summarised, and an empirical lower bound on ε from a
//! distinguishing attack. The losses themselves are the noise families'
//! closed forms ([`crate::process::family::loss`], re-exported here).

use super::stats::{clopper_pearson, quantile_sorted};
pub use crate::process::family::loss::{
    FullChain, correlated_loss, correlated_loss_full_chain, gaussian_loss, independent_loss,
};

/// Mean, 99% quantile and maximum of per-trial losses.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LossSummary {
    /// Number of samples.
    pub count: usize,
    /// Sample mean (estimates the KL divergence E_u L).
    pub mean: f64,
    /// Empirical 0.99 quantile (type 7).
    pub q99: f64,
    /// Largest loss.
    pub max: f64,
    /// Largest |loss| (what the ε bound caps).
    pub max_abs: f64,
}

impl LossSummary {
    /// Summarises `losses` (sorted in place). NaN fields for no samples.
    pub fn from_samples(losses: &mut [f64]) -> Self {
        losses.sort_unstable_by(f64::total_cmp);
        let count = losses.len();
        let mean = losses.iter().sum::<f64>() / count as f64;
        let max_abs = losses.iter().fold(f64::NAN, |m, x| m.max(x.abs()));
        LossSummary {
            count,
            mean,
            q99: quantile_sorted(losses, 0.99),
            max: losses.last().copied().unwrap_or(f64::NAN),
            max_abs,
        }
    }
}

/// Result of the distinguishing attack u vs u' = u + Δ.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DistinguishingBound {
    /// Decide "u'" when the estimate exceeds this (u + Δ/2).
    pub threshold: f64,
    /// Trials under u.
    pub trials_u: u64,
    /// Trials under u'.
    pub trials_u1: u64,
    /// Trials under u decided as u'.
    pub false_pos: u64,
    /// Trials under u' decided as u.
    pub false_neg: u64,
    /// Clopper–Pearson upper bound of the false-positive rate (one-sided
    /// 97.5%, so that it and `fn_upper` hold jointly with probability ≥ 95%).
    pub fp_upper: f64,
    /// Clopper–Pearson upper bound of the false-negative rate (one-sided 97.5%).
    pub fn_upper: f64,
    /// max(0, ln((1 − FN_ub)/FP_ub), ln((1 − FP_ub)/FN_ub)): with ≥ 95%
    /// confidence the mechanism's ε (for neighbours at distance Δ) is at least
    /// this.
    pub eps_lower_bound: f64,
}

/// Empirical lower bound on ε from a threshold test on one coordinate of an
/// estimate (e.g. Pitman): `est_u` from trials under u, `est_u1` under
/// u' = u + Δe₁, `u_first` = u₁.
///
/// An ε-DP mechanism forces P(decide u' | u') ≤ e^ε P(decide u' | u) and the
/// mirror inequality, i.e. ε ≥ ln((1 − FN)/FP) and ε ≥ ln((1 − FP)/FN). Using
/// upper confidence bounds for both error rates keeps the statement valid. The
/// threshold is fixed in advance at the midpoint; choosing the best threshold
/// on the same data would be optimistic.
pub fn distinguishing_lower_bound(
    est_u: &[f64],
    est_u1: &[f64],
    u_first: f64,
    delta: f64,
) -> DistinguishingBound {
    let threshold = u_first + 0.5 * delta;
    let false_pos = est_u.iter().filter(|&&x| x > threshold).count() as u64;
    let false_neg = est_u1
        .iter()
        .filter(|&&x| x <= threshold || x.is_nan())
        .count() as u64;
    let (nu, nu1) = (est_u.len() as u64, est_u1.len() as u64);
    let fp_upper = clopper_pearson(false_pos, nu, 0.95).1;
    let fn_upper = clopper_pearson(false_neg, nu1, 0.95).1;
    let a = ((1.0 - fn_upper) / fp_upper).ln();
    let b = ((1.0 - fp_upper) / fn_upper).ln();
    DistinguishingBound {
        threshold,
        trials_u: nu,
        trials_u1: nu1,
        false_pos,
        false_neg,
        fp_upper,
        fn_upper,
        eps_lower_bound: 0f64.max(a).max(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_views_bound_nothing() {
        let d = distinguishing_lower_bound(&[], &[], 0.0, 1.0);
        assert_eq!(d.eps_lower_bound, 0.0);
    }
}

//! The rows of the CSV files `collude` writes, one type per file: written by
//! [`crate::io::collude`], read back by the coalition figure (see
//! [`crate::util::table`]). Field names are the columns; floats are written in
//! shortest round-trip form.

use crate::util::table::CsvRow;
use serde::{Deserialize, Serialize};

/// One row of `coalition.csv`: one owner × coalition × mechanism × estimator.
/// An empty coalition has `NaN` levels and statistics.
///
/// What the estimators assume: `mean`, `ivw` (weights ε_j²), `median`, `mle`
/// (the ε-weighted median, the maximum-likelihood estimate) and `pitman` (the
/// posterior mean under a flat prior, the best equivariant estimate) all model
/// the answers as u plus *independent* Laplace noise of scale 1/ε_j — the
/// independent mechanism's model. Under the correlated mechanism that model is
/// wrong: the best member's answer y* (largest ε) is a sufficient statistic
/// (memo §5), so with a flat prior the mechanism-aware posterior mean is y*
/// itself — the `best` row — and no pooling can help (gain ≤ 1). `gain`
/// measures these attacks; the privacy evidence is `audit.csv`'s loss against
/// the accounted ε, not this column.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CoalitionRow {
    /// Owner id.
    pub owner: String,
    /// Coalition spec label (e.g. `far:min-d=3`; quoted when it holds commas).
    pub coalition: String,
    /// Members.
    pub size: u64,
    /// Largest member ε.
    pub eps_max: f64,
    /// Sum of member ε.
    pub eps_sum: f64,
    /// Mechanism.
    pub mechanism: String,
    /// Estimator.
    pub estimator: String,
    /// MSE of the estimator.
    pub mse: f64,
    /// MSE(best member) / MSE(estimator).
    pub gain: f64,
    /// Lower end of the 95% interval of `gain`.
    pub gain_lo: f64,
    /// Upper end of the 95% interval of `gain`.
    pub gain_hi: f64,
    /// Share of trials where the estimate beats the best member.
    pub win_rate: f64,
}

impl CsvRow for CoalitionRow {
    /// An empty coalition's levels and statistics are all `NaN`; otherwise
    /// only the interval of the gain may be (one trial gives none).
    fn allows(&self, field: &str, value: f64) -> bool {
        value.is_nan() && (self.size == 0 || matches!(field, "gain_lo" | "gain_hi"))
    }
}

/// One row of `audit.csv`: the privacy-loss audit of one owner × coalition ×
/// mechanism (`NaN` for an empty coalition).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditRow {
    /// Owner id.
    pub owner: String,
    /// Coalition spec label.
    pub coalition: String,
    /// Mechanism.
    pub mechanism: String,
    /// Accounted ε of the coalition's view.
    pub eps_bound: f64,
    /// Mean privacy loss over the sampled views.
    pub loss_mean: f64,
    /// 99th percentile of the loss.
    pub loss_q99: f64,
    /// Largest loss.
    pub loss_max: f64,
    /// Distinguishing-attack lower bound on ε.
    pub eps_lower_bound: f64,
}

impl CsvRow for AuditRow {
    /// An empty coalition (no accounted ε) has `NaN` everywhere; otherwise
    /// every number is finite.
    fn allows(&self, _field: &str, value: f64) -> bool {
        value.is_nan() && self.eps_bound.is_nan()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::table::{columns, line};

    #[test]
    fn headers_and_rows_keep_their_text() {
        assert_eq!(
            columns::<CoalitionRow>(0, &[]).join(","),
            "owner,coalition,size,eps_max,eps_sum,mechanism,estimator,mse,gain,gain_lo,gain_hi,win_rate"
        );
        assert_eq!(
            columns::<AuditRow>(0, &[]).join(","),
            "owner,coalition,mechanism,eps_bound,loss_mean,loss_q99,loss_max,eps_lower_bound"
        );
        let r = CoalitionRow {
            owner: "5".into(),
            coalition: "sybil:m=20,d=6".into(),
            size: 0,
            eps_max: f64::NAN,
            eps_sum: f64::NAN,
            mechanism: "correlated".into(),
            estimator: "best".into(),
            mse: 0.5,
            gain: 1.0,
            gain_lo: 1.0,
            gain_hi: 1.0,
            win_rate: 0.0,
        };
        assert_eq!(
            line(&r).unwrap(),
            "5,\"sybil:m=20,d=6\",0,NaN,NaN,correlated,best,0.5,1,1,1,0"
        );
    }
}

//! The row of a sweep CSV after the grid keys: the sweep writes each point's
//! key values followed by one [`SweepRow`] per metric (see [`metrics`](super::metrics)),
//! and the sweep figure reads the same type back (see [`crate::util::table`]).

use crate::util::table::CsvRow;
use serde::{Deserialize, Serialize};

/// One metric of one sweep point (the grid keys precede it in the file).
/// Empty text and `None` are empty cells: not applicable to this metric.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    /// Mechanism name.
    pub mechanism: String,
    /// Estimator name (collusion rows).
    pub estimator: String,
    /// Coalition spec (collusion rows).
    pub coalition: String,
    /// Metric name (see `METRICS`).
    pub metric: String,
    /// Lower edge of the distance bucket (per-bucket rows).
    pub distance_lo: Option<f64>,
    /// Upper edge of the distance bucket (per-bucket rows).
    pub distance_hi: Option<f64>,
    /// The number.
    pub value: f64,
}

impl CsvRow for SweepRow {
    /// The unreachable bucket's edges.
    const INFINITE: &'static [&'static str] = &["distance_lo", "distance_hi"];
    /// A metric undefined at its point (a standard error from one owner, an
    /// empty coalition).
    const UNDEFINED: &'static [&'static str] = &["value"];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::table::{fields, line};

    #[test]
    fn columns_are_the_output_columns() {
        assert_eq!(fields::<SweepRow>(), super::super::grid::OUTPUT_COLUMNS);
    }

    #[test]
    fn keys_then_row_in_one_line() {
        let keys = vec!["exp:a=4,b=1".to_string(), "2".to_string()];
        let row = SweepRow {
            mechanism: "correlated".into(),
            estimator: String::new(),
            coalition: String::new(),
            metric: "mse".into(),
            distance_lo: Some(1.0),
            distance_hi: Some(1.0),
            value: 0.0000001,
        };
        assert_eq!(
            line(&(&keys, &row)).unwrap(),
            "\"exp:a=4,b=1\",2,correlated,,,mse,1,1,0.0000001"
        );
        let total = SweepRow {
            distance_lo: None,
            distance_hi: None,
            metric: "mse_all".into(),
            value: f64::NAN,
            ..row
        };
        assert_eq!(
            line(&(&keys, &total)).unwrap(),
            "\"exp:a=4,b=1\",2,correlated,,,mse_all,,,NaN"
        );
    }
}

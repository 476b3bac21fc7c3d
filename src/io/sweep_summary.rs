//! The tidy aggregate of a sweep CSV, `STEM.summary.csv`: one row per grid
//! point *without its seed* (and replicate) and metric row, with the mean,
//! standard error and count of the metric over the seeds.
//!
//! Columns: the sweep CSV's key columns except `seed` and `replicate` (the
//! pooled keys), then `mechanism,estimator,coalition,metric,distance_lo,
//! distance_hi,mean,se,n`. `se` is the sample standard deviation over the
//! seeds divided by √n (NaN for n < 2): the seeds are independent
//! realisations, so it is the standard error of `mean`; a 95 % interval is
//! `mean ± t(0.975, n−1)·se` ([`t975`]). Values that are NaN (a metric
//! undefined at its point) are left out of `mean` and `n`.
//!
//! The sweep figure ([`super::sweep_figure`]) draws the same aggregate.

use crate::error::{Error, Result};
use crate::sweep::grid::OUTPUT_COLUMNS;
use crate::sweep::rows::SweepRow;
use crate::util::table::{self, CsvRow, Keyed, Reader};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

/// Key columns pooled over (their values are realisations, not settings).
pub const POOLED_KEYS: [&str; 2] = ["seed", "replicate"];

/// The columns after the keys in `STEM.summary.csv`.
pub const SUMMARY_TAIL: [&str; 9] = [
    "mechanism",
    "estimator",
    "coalition",
    "metric",
    "distance_lo",
    "distance_hi",
    "mean",
    "se",
    "n",
];

/// One row of `STEM.summary.csv` after the key columns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    /// Mechanism name.
    pub mechanism: String,
    /// Estimator name (collusion rows).
    pub estimator: String,
    /// Coalition spec (collusion rows).
    pub coalition: String,
    /// Metric name.
    pub metric: String,
    /// Lower edge of the distance bucket (per-bucket rows).
    pub distance_lo: Option<f64>,
    /// Upper edge of the distance bucket.
    pub distance_hi: Option<f64>,
    /// Mean over the seeds (NaN when no seed has a number).
    pub mean: f64,
    /// Standard error of the mean (NaN for n < 2).
    pub se: f64,
    /// Seeds (and replicates) with a number.
    pub n: usize,
}

impl CsvRow for SummaryRow {
    const INFINITE: &'static [&'static str] = &["distance_lo", "distance_hi"];
    const UNDEFINED: &'static [&'static str] = &["mean", "se"];

    /// Also `±inf` as `mean` or `se`: sums of finite values that overflow
    /// (written as they are, as they always were).
    fn allows(&self, field: &str, value: f64) -> bool {
        let aggregate = field == "mean" || field == "se";
        (aggregate && value.is_infinite())
            || (value == f64::INFINITY && Self::INFINITE.contains(&field))
            || (value.is_nan() && Self::UNDEFINED.contains(&field))
    }
}

/// 97.5 % quantile of Student's t with `df` degrees of freedom (exact to 3
/// decimals up to 30, then 1.96 + 2.4/df, within 0.002 of the truth).
pub fn t975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::NAN,
        1..=30 => T[df - 1],
        _ => 1.96 + 2.4 / df as f64,
    }
}

/// A sweep CSV read back: its key columns and rows.
#[derive(Clone, Debug)]
pub struct SweepTable {
    /// The key column headers (before the [`OUTPUT_COLUMNS`]).
    pub keys: Vec<String>,
    /// Each row: its key cells and its typed tail.
    pub rows: Vec<(Vec<String>, SweepRow)>,
}

impl SweepTable {
    /// Reads a sweep CSV (lines of at most 1 MiB, the file at most a
    /// quarter of the memory budget: its rows are held in memory).
    pub fn read(csv: &Path) -> Result<SweepTable> {
        SweepTable::read_with(csv, false, None)
    }

    /// As [`SweepTable::read`] for a figure: numbers as every figure reads
    /// them (`NaN` only as a `value`, `inf` only as a bucket edge, finite
    /// ones within ±[`DRAWABLE`](super::figure_input::DRAWABLE)), and at most
    /// `max_rows` rows; otherwise an error naming the file, line and column.
    pub fn read_drawable(csv: &Path, max_rows: Option<usize>) -> Result<SweepTable> {
        SweepTable::read_with(csv, true, max_rows)
    }

    fn read_with(csv: &Path, drawable: bool, max_rows: Option<usize>) -> Result<SweepTable> {
        let mut reader = Reader::open_limited(csv, crate::limits::memory_budget().bytes / 4)?;
        if let Some(max) = max_rows {
            reader = reader.at_most(max, super::figure_input::ROW_CAP_REASON);
        }
        let header: Vec<String> = reader.header().iter().map(String::from).collect();
        if header.iter().all(String::is_empty) {
            return Err(Error::input(csv, 1, "expected a sweep CSV header"));
        }
        let nt = OUTPUT_COLUMNS.len();
        if header.len() < nt || header[header.len() - nt..] != OUTPUT_COLUMNS.map(String::from) {
            return Err(Error::input(
                csv,
                1,
                format!(
                    "expected the columns to end with {} (a sweep CSV)",
                    OUTPUT_COLUMNS.join(",")
                ),
            ));
        }
        let nk = header.len() - nt;
        let tail_names: Vec<String> = header[nk..].to_vec();
        let mut rows: Vec<(Vec<String>, SweepRow)> = Vec::new();
        reader.records(|line, rec| {
            let tail: csv::StringRecord = rec.iter().skip(nk).collect();
            let row = table::decode(csv, line, &tail_names, &tail)?;
            if drawable {
                table::check_row(csv, line, &row, super::figure_input::DRAWABLE)?;
            }
            rows.push((rec.iter().take(nk).map(String::from).collect(), row));
            Ok::<_, Error>(())
        })?;
        Ok(SweepTable {
            keys: header[..nk].to_vec(),
            rows,
        })
    }

    /// Index of a key column.
    pub fn key(&self, name: &str) -> Option<usize> {
        self.keys.iter().position(|k| k == name)
    }
}

/// One aggregated row: the key cells (pooled keys left out), the row (its
/// `value` is the mean), the standard error and the count.
#[derive(Clone, Debug)]
pub struct Aggregate {
    /// Key cells, one per key column of the table (pooled ones empty).
    pub keys: Vec<String>,
    /// The metric row; `value` = mean.
    pub row: SweepRow,
    /// Standard error of the mean.
    pub se: f64,
    /// Values pooled.
    pub n: usize,
}

/// A point's identity: its key cells, the row's scheme (mechanism,
/// estimator, coalition), a metric and the bucket's edges (by their bits, so
/// equal numbers group).
pub(crate) type PointKey = (
    Vec<String>,
    String,
    String,
    String,
    String,
    Option<u64>,
    Option<u64>,
);

/// The [`PointKey`] of `row` with key cells `keys`, under `metric`.
pub(crate) fn point_key(keys: &[String], row: &SweepRow, metric: &str) -> PointKey {
    (
        keys.to_vec(),
        row.mechanism.clone(),
        row.estimator.clone(),
        row.coalition.clone(),
        metric.to_string(),
        row.distance_lo.map(f64::to_bits),
        row.distance_hi.map(f64::to_bits),
    )
}

/// Groups the rows by every key except `pooled` (column indices) and every
/// tail column but `value`, in order of first appearance; mean, se and n of
/// each group's numbers.
pub fn aggregate<'a>(
    rows: impl IntoIterator<Item = (&'a [String], &'a SweepRow)>,
    pooled: &[usize],
) -> Vec<Aggregate> {
    let mut index: HashMap<PointKey, usize> = HashMap::new();
    let mut groups: Vec<(Vec<String>, SweepRow, Vec<f64>)> = Vec::new();
    for (cells, r) in rows {
        let keys: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if pooled.contains(&i) {
                    String::new()
                } else {
                    c.clone()
                }
            })
            .collect();
        let i = *index
            .entry(point_key(&keys, r, &r.metric))
            .or_insert_with(|| {
                groups.push((keys, r.clone(), Vec::new()));
                groups.len() - 1
            });
        if !r.value.is_nan() {
            groups[i].2.push(r.value);
        }
    }
    groups
        .into_iter()
        .map(|(keys, mut row, xs)| {
            let n = xs.len();
            let mean = if n == 0 {
                f64::NAN
            } else {
                xs.iter().sum::<f64>() / n as f64
            };
            let se = if n < 2 {
                f64::NAN
            } else {
                let ss: f64 = xs.iter().map(|x| (x - mean) * (x - mean)).sum();
                (ss / (n - 1) as f64).sqrt() / (n as f64).sqrt()
            };
            row.value = mean;
            Aggregate { keys, row, se, n }
        })
        .collect()
}

/// The header and rows of `STEM.summary.csv` for the sweep CSV's key
/// columns `keys` and its rows.
pub fn summary_rows(
    keys: &[String],
    rows: &[Keyed<SweepRow>],
) -> (Vec<String>, Vec<Keyed<SummaryRow>>) {
    let pooled: Vec<usize> = (0..keys.len())
        .filter(|&i| POOLED_KEYS.contains(&keys[i].as_str()))
        .collect();
    let kept: Vec<usize> = (0..keys.len()).filter(|i| !pooled.contains(i)).collect();
    let header = kept
        .iter()
        .map(|&i| keys[i].clone())
        .chain(SUMMARY_TAIL.map(String::from))
        .collect();
    let rows = aggregate(rows.iter().map(|r| (&r.keys[..], &r.row)), &pooled);
    let rows = rows
        .into_iter()
        .map(|a| Keyed {
            keys: kept.iter().map(|&i| a.keys[i].clone()).collect(),
            row: SummaryRow {
                mechanism: a.row.mechanism,
                estimator: a.row.estimator,
                coalition: a.row.coalition,
                metric: a.row.metric,
                distance_lo: a.row.distance_lo,
                distance_hi: a.row.distance_hi,
                mean: a.row.value,
                se: a.se,
                n: a.n,
            },
        })
        .collect();
    (header, rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(metric: &str, value: f64) -> SweepRow {
        SweepRow {
            mechanism: "correlated".into(),
            estimator: String::new(),
            coalition: String::new(),
            metric: metric.into(),
            distance_lo: None,
            distance_hi: None,
            value,
        }
    }

    #[test]
    fn seeds_pool_into_mean_se_n() {
        let k = |m: &str, s: &str| vec![m.to_string(), s.to_string()];
        let rows = [
            (k("2", "1"), row("gain_mean", 1.0)),
            (k("2", "2"), row("gain_mean", 3.0)),
            (k("2", "3"), row("gain_mean", f64::NAN)),
            (k("5", "1"), row("gain_mean", 4.0)),
        ];
        let a = aggregate(rows.iter().map(|(k, r)| (&k[..], r)), &[1]);
        assert_eq!(a.len(), 2);
        assert_eq!((a[0].row.value, a[0].n), (2.0, 2));
        // sd of {1, 3} = √2, se = √2/√2 = 1.
        assert!((a[0].se - 1.0).abs() < 1e-12);
        assert_eq!((a[1].row.value, a[1].n), (4.0, 1));
        assert!(a[1].se.is_nan());
    }

    #[test]
    fn t_quantiles() {
        assert_eq!(t975(4), 2.776);
        assert!((t975(60) - 2.000).abs() < 0.002);
        assert!((t975(1000) - 1.962).abs() < 0.002);
    }
}

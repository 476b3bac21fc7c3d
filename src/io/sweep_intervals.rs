//! Replicate intervals and fixed scheme styles for the sweep figures of
//! `command = utility` (issues 22.5 and 27).
//!
//! * A utility point is already a mean over its replicates (`utility_mse`,
//!   `utility_mse_all`) and its `_se` companion is the standard error over
//!   those replicates. Where a line's point holds one seed, the figure draws
//!   that mean with whiskers ± [`Z95`]·se (the 95 % normal interval over
//!   replicates); where seeds are pooled (n ≥ 2) the band over seeds of
//!   [`super::sweep_figure`] applies instead, and the note says which.
//! * Every utility scheme has its own colour and marker in every utility
//!   figure ([`SCHEMES`]), keyed by the name in the `scheme` (sweep:
//!   `mechanism`) column, and a legend that names its estimator.

use super::sweep_summary::{Aggregate, PointKey, point_key};
use crate::error::{Error, Result};
use crate::sweep::rows::SweepRow;
use std::collections::HashMap;
use std::path::Path;

/// The normal 97.5 % quantile: whiskers are mean ± `Z95`·se.
pub const Z95: f64 = 1.96;

/// Metrics whose `_se` companion is a standard error over replicates.
pub const REPLICATE_METRICS: [&str; 2] = ["utility_mse", "utility_mse_all"];

/// The `_se` companion of `metric` when it is one over replicates.
pub fn replicate_se_metric(metric: &str) -> Option<String> {
    REPLICATE_METRICS
        .contains(&metric)
        .then(|| format!("{metric}_se"))
}

/// How one utility scheme is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SchemeStyle {
    /// The scheme as `utility.csv` (`scheme`) and a sweep (`mechanism`) name it.
    pub name: &'static str,
    /// What the recipient computes from the answers (legend text).
    pub estimator: &'static str,
    /// Index into the figures' palette (`plot::style::SERIES`).
    pub color: usize,
    /// Marker code (`plot::markers`): shape by estimator, hollow for the
    /// debiased mean and for independent shrinkage.
    pub marker: usize,
}

/// Marker codes shared with the plot layer (0–3 as before: 3 draws a circle).
pub mod marker {
    /// Filled circle.
    pub const CIRCLE: usize = 0;
    /// Filled triangle.
    pub const TRIANGLE: usize = 1;
    /// Filled square.
    pub const SQUARE: usize = 2;
    /// Hollow circle.
    pub const HOLLOW_CIRCLE: usize = 4;
    /// Hollow triangle.
    pub const HOLLOW_TRIANGLE: usize = 5;
    /// Filled diamond.
    pub const DIAMOND: usize = 6;
    /// Hollow diamond.
    pub const HOLLOW_DIAMOND: usize = 7;
}

/// The fixed palette of the utility schemes: correlated noise in blues and
/// green, independent noise in vermillion, orange and purple (the two plain
/// means keep the colours the mechanisms have in every other figure), access
/// rights in black. No two schemes share a colour or a marker.
pub const SCHEMES: [SchemeStyle; 7] = [
    SchemeStyle {
        name: "correlated",
        estimator: "plain mean",
        color: 0,
        marker: marker::CIRCLE,
    },
    SchemeStyle {
        name: "independent",
        estimator: "plain mean",
        color: 1,
        marker: marker::TRIANGLE,
    },
    SchemeStyle {
        name: "access",
        estimator: "exact values within the access radius",
        color: 6,
        marker: marker::SQUARE,
    },
    SchemeStyle {
        name: "correlated-debiased",
        estimator: "debiased mean",
        color: 5,
        marker: marker::HOLLOW_CIRCLE,
    },
    SchemeStyle {
        name: "independent-debiased",
        estimator: "debiased mean",
        color: 4,
        marker: marker::HOLLOW_TRIANGLE,
    },
    SchemeStyle {
        name: "correlated-shrinkage",
        estimator: "shrinkage (empirical Bayes)",
        color: 2,
        marker: marker::DIAMOND,
    },
    SchemeStyle {
        name: "independent-shrinkage",
        estimator: "shrinkage (empirical Bayes)",
        color: 3,
        marker: marker::HOLLOW_DIAMOND,
    },
];

/// The style of scheme `name`, if it is a utility scheme.
pub fn scheme_style(name: &str) -> Option<&'static SchemeStyle> {
    SCHEMES.iter().find(|s| s.name == name)
}

/// The legend text of a utility scheme: `correlated-shrinkage: shrinkage
/// (empirical Bayes)`.
pub fn scheme_label(name: &str) -> Option<String> {
    scheme_style(name).map(|s| format!("{}: {}", s.name, s.estimator))
}

/// Whether the rows of `metric` are utility rows (their `mechanism` is a
/// scheme).
pub fn is_utility_metric(metric: &str) -> bool {
    metric.starts_with("utility_")
}

/// Refuses a negative replicate standard error (line `i + 2` of `csv`);
/// non-finite numbers were refused when the CSV was read.
pub fn check_se(csv: &Path, rows: &[(Vec<String>, SweepRow)]) -> Result<()> {
    for (i, (_, r)) in rows.iter().enumerate() {
        let is_se = REPLICATE_METRICS
            .iter()
            .any(|m| r.metric.strip_suffix("_se") == Some(m));
        if is_se && r.value < 0.0 {
            return Err(Error::input(
                csv,
                i + 2,
                format!(
                    "column value: expected a standard error ≥ 0 for {}, got {}",
                    r.metric,
                    crate::util::fmt_f64(r.value)
                ),
            ));
        }
    }
    Ok(())
}

/// The replicate standard errors of the aggregated points that hold one
/// seed, found by the point's keys, scheme and bucket.
pub struct ReplicateSe {
    se: HashMap<PointKey, f64>,
}

impl ReplicateSe {
    /// Indexes the `_se` rows of [`REPLICATE_METRICS`] among `aggs`.
    pub fn new(aggs: &[Aggregate]) -> ReplicateSe {
        let se = aggs
            .iter()
            .filter(|a| {
                a.n == 1
                    && REPLICATE_METRICS
                        .iter()
                        .any(|m| a.row.metric.strip_suffix("_se") == Some(m))
            })
            .map(|a| (point_key(&a.keys, &a.row, &a.row.metric), a.row.value))
            .collect();
        ReplicateSe { se }
    }

    /// The interval (low, high) = mean ∓ [`Z95`]·se of point `a` (a mean over
    /// replicates of one seed), or None: pooled seeds, no finite se, or a
    /// metric without replicates.
    pub fn interval(&self, a: &Aggregate) -> Option<(f64, f64)> {
        if a.n != 1 || !a.row.value.is_finite() {
            return None;
        }
        let m = replicate_se_metric(&a.row.metric)?;
        let se = *self.se.get(&point_key(&a.keys, &a.row, &m))?;
        (se.is_finite() && se >= 0.0).then_some((a.row.value - Z95 * se, a.row.value + Z95 * se))
    }
}

#[cfg(test)]
mod tests;

//! The rows of `privdiffuse relax`: one [`ReleaseRow`] per answer (the CSV
//! `trial,step,eps,y1..yn`) and one [`AccuracyRow`] per requested level (the
//! accuracy table).

use crate::util::table::CsvRow;
use serde::{Deserialize, Serialize};

/// One answer: trial, request number, level and the released `u + noise`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReleaseRow {
    /// Trial (0-based; each trial releases the secret afresh on its own stream).
    pub trial: u64,
    /// Request number within the release (continuing a resumed one's history).
    pub step: u64,
    /// Privacy level ε of this answer.
    pub eps: f64,
    /// The released value, columns `y1..yn`.
    pub y: Vec<f64>,
}

impl CsvRow for ReleaseRow {
    const VECTOR: Option<&'static str> = Some("y");
}

/// Accuracy at one requested level over all trials: the lazy release against
/// the single-release optimum and, for strictly increasing requests, the
/// composition baseline (fresh noise with budget ε_i − ε_(i−1) per step,
/// inverse-variance weighted).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AccuracyRow {
    /// Request number.
    pub step: u64,
    /// Level ε.
    pub eps: f64,
    /// Mean ‖y − u‖² of the lazy release.
    pub mse: f64,
    /// The optimal single-release MSE at ε.
    pub optimum: f64,
    /// `mse / optimum` (1 up to Monte-Carlo noise).
    pub ratio: f64,
    /// Mean squared error of the composition baseline's combined estimate.
    pub comp_mse: Option<f64>,
    /// Its theoretical value, 1 / Σ_(j ≤ i) 1/mse_j of the fresh releases.
    pub comp_theory: Option<f64>,
    /// `comp_mse / optimum`.
    pub comp_ratio: Option<f64>,
}

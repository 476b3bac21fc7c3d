//! What a utility run produces: per-recipient errors of a replicate, the
//! rows of `utility.csv`, and the log₂ degree buckets they are grouped by.

use super::ChunkPartial;
#[cfg(doc)]
use super::UtilityPlan;
use crate::util::table::CsvRow;
use serde::{Deserialize, Serialize};

/// Per-recipient outcome of one replicate.
#[derive(Clone, Debug, PartialEq)]
pub struct RecipientErrors {
    /// Values averaged per recipient: 1 + owners (≠ j) reaching j.
    pub n_values: Vec<u64>,
    /// ū_j (`dim` per recipient).
    pub mean: Vec<f64>,
    /// Estimates per scheme ([`UtilityPlan::schemes`] order), `dim` per recipient.
    pub estimates: Vec<Vec<f64>>,
    /// Squared errors per scheme.
    pub sq_err: Vec<Vec<f64>>,
    /// Theoretical MSE per scheme (`None` for access).
    pub theory: Vec<Option<Vec<f64>>>,
}

/// One row of `utility.csv` (its fields are the file's columns).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UtilityRow {
    /// Scheme name.
    pub scheme: String,
    /// Smallest degree of the bucket (`None`: all recipients).
    pub degree_lo: Option<u64>,
    /// Largest degree of the bucket.
    pub degree_hi: Option<u64>,
    /// Recipients in the bucket.
    pub recipients: u64,
    /// Mean over replicates of the mean squared error over the bucket.
    pub mse: f64,
    /// Standard error of `mse` over replicates (`None` with one replicate).
    pub mse_se: Option<f64>,
    /// Theoretical MSE (`None` for access).
    pub mse_theory: Option<f64>,
}

impl CsvRow for UtilityRow {}

/// What a run produces in memory.
#[derive(Clone, Debug)]
pub struct UtilityResult {
    /// `utility.csv` rows.
    pub rows: Vec<UtilityRow>,
    /// The first replicate's per-recipient outcome.
    pub first: RecipientErrors,
    /// Aggregates of all chunks of all replicates.
    pub partial: ChunkPartial,
}

/// The log₂ degree bucket of a degree: 0 → 0, 1 → 1, 2..=3 → 2, …
pub fn degree_bucket(d: u64) -> usize {
    if d == 0 {
        0
    } else {
        64 - d.leading_zeros() as usize
    }
}

/// Degree range `[lo, hi]` of bucket `b`.
pub fn bucket_range(b: usize) -> (u64, u64) {
    if b == 0 {
        (0, 0)
    } else {
        (1u64 << (b - 1), (1u64 << (b - 1)) * 2 - 1)
    }
}

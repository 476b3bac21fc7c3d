//! `summary.json` of a utility run as a typed record.

use super::{UtilityConfig, UtilityRow};
use serde::Serialize;

/// `summary.json` of a utility run.
#[derive(Clone, Debug, Serialize)]
pub struct UtilitySummary {
    /// The configuration (re-run with it).
    pub config: UtilityConfig,
    /// The resolved privacy map's canonical spec.
    pub map: String,
    /// Nodes (= recipients).
    pub recipients: u64,
    /// Owners per replicate.
    pub owners: u64,
    /// Answers per scheme per replicate.
    pub answers: u64,
    /// Jumps of the correlated paths (all replicates).
    pub jumps: u64,
    /// Deepest hop level met.
    pub max_level: u32,
    /// Hop bound used for the fixed-point scale.
    pub hop_bound: u32,
    /// Fraction bits of the fixed-point formats (values, debiased values,
    /// variances, bias, debiased variances).
    pub fixed_point_shifts: Vec<i32>,
    /// Degree buckets.
    pub degree_buckets: &'static str,
    /// Rows over all recipients.
    pub totals: Vec<UtilityRow>,
}

/// A guessed hop range ([`UtilityPlan::range_guess`](super::UtilityPlan::range_guess)).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RangeGuess {
    /// The guessed maximum hop.
    pub guessed: u32,
    /// Whether it was the owners' maximum eccentricity.
    pub held: bool,
}

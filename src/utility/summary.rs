//! `summary.json` of a utility run as a typed record.

use super::{UtilityConfig, UtilityPlan, UtilityResult, UtilityRow};
use crate::process::discrete::DiscreteSummary;
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
    /// With `noise = discrete`: γ, m, Δ_Z, the noise, the entropy source and
    /// the rung's ε used at each hop (issue 25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discrete: Option<UtilityDiscreteSummary>,
}

/// The `discrete` record of a utility's `summary.json`: simulate's record
/// (noise, γ, m, Δ_Z, rng) and the rung's ε used at each hop 1, 2, … up to
/// the deepest level met.
#[derive(Clone, Debug, Serialize)]
pub struct UtilityDiscreteSummary {
    /// γ, m, Δ_Z, the noise and the entropy source.
    #[serde(flatten)]
    pub noise: DiscreteSummary,
    /// ε of the rung answering hop 1, 2, …
    pub eps_by_hop: Vec<f64>,
}

impl UtilitySummary {
    /// The summary of a finished run: what `utility` writes as
    /// `summary.json` (the numbers per replicate, the rows over all
    /// recipients).
    pub fn of(plan: &UtilityPlan<'_>, res: &UtilityResult) -> UtilitySummary {
        let config = plan.config();
        UtilitySummary {
            config: config.clone(),
            map: plan.sim().map().spec(),
            recipients: plan.graph().n() as u64,
            owners: plan.owners().len() as u64,
            answers: res.partial.answers / config.replicates as u64,
            jumps: res.partial.jumps,
            max_level: res.partial.max_level,
            hop_bound: plan.hop_bound(),
            fixed_point_shifts: plan.formats().iter().map(|f| f.shift).collect(),
            degree_buckets: "log2: [0,0], [1,1], [2,3], [4,7], ..., [2^k, 2^(k+1)-1]",
            totals: res
                .rows
                .iter()
                .filter(|r| r.degree_lo.is_none())
                .cloned()
                .collect(),
            discrete: plan.discrete_summary(res.partial.max_level),
        }
    }
}

/// A guessed hop range ([`UtilityPlan::range_guess`](super::UtilityPlan::range_guess)).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RangeGuess {
    /// The guessed maximum hop.
    pub guessed: u32,
    /// Whether it was the owners' maximum eccentricity.
    pub held: bool,
}

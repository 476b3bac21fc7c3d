//! `summary.json` of a collusion run as a typed record.

use super::config::CollusionConfig;
use super::pool::{PooledAudit, PooledEstimator, pool};
use super::run::{CollusionOptions, CollusionResult};
use crate::graph::GraphStats;
use crate::sim::{MapSummary, Plan};
use serde::Serialize;

/// `summary.json` of `collude`.
#[derive(Clone, Debug, Serialize)]
pub struct CollusionSummary {
    /// Always "privdiffuse".
    pub tool: &'static str,
    /// Always "collude".
    pub command: &'static str,
    /// Crate version.
    pub version: &'static str,
    /// Everything needed to re-run (`--config summary.json`).
    pub config: CollusionConfig,
    /// The privacy map used.
    pub eps_map: MapSummary,
    /// The private values used (`auto` resolved).
    pub values: String,
    /// Graph statistics.
    pub graph: GraphStats,
    /// Owners evaluated.
    pub owners: usize,
    /// Owner × coalition pairs with no member.
    pub empty_coalitions: usize,
    /// Largest |ε*-formula − full-chain| privacy loss over every correlated
    /// view (n = 1 or ℓ1; null otherwise). Must be ≤ 1e-9.
    pub max_chain_disagreement: Option<f64>,
    /// Laplace-mechanism views with |L| above the accounted ε (must be 0).
    pub laplace_bound_violations: u64,
    /// Pooled estimator results, coalition × mechanism × estimator.
    pub pooled: Vec<PooledEstimator>,
    /// Pooled audits, coalition × mechanism.
    pub audit: Vec<PooledAudit>,
    /// With `noise = discrete`: γ, m, Δ_Z and the entropy source, as in
    /// `simulate`'s summary (issue 25); absent for `laplace`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discrete: Option<crate::process::discrete::DiscreteSummary>,
}

/// Builds `summary.json`.
pub fn summarize_collusion(
    config: &CollusionConfig,
    plan: &Plan<'_>,
    opts: &CollusionOptions,
    result: &CollusionResult,
) -> CollusionSummary {
    let (pooled, audit) = pool(plan, opts, &result.results);
    let max_chain = audit
        .iter()
        .filter_map(|a| a.chain_disagreement)
        .reduce(f64::max);
    let laplace_bound_violations = audit
        .iter()
        .filter(|a| a.mechanism != "gaussian")
        .map(|a| a.bound_exceeded)
        .sum();
    CollusionSummary {
        tool: "privdiffuse",
        command: "collude",
        version: env!("CARGO_PKG_VERSION"),
        config: config.clone(),
        eps_map: MapSummary::of(plan),
        values: plan.values().spec().to_string(),
        graph: plan.graph().stats(),
        owners: plan.owners().len(),
        empty_coalitions: result.results.iter().filter(|r| r.size == 0).count(),
        max_chain_disagreement: max_chain,
        laplace_bound_violations,
        pooled,
        audit,
        discrete: config.sim.discrete_summary(),
    }
}

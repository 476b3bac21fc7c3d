//! [`RelaySummary`]: what a relay run is and what it cost, as
//! `summary.json` records it (the files themselves are written by
//! [`crate::io`]).

use super::config::RelayConfig;
use super::plan::RelayPlan;
use super::stats::{RelayTotal, RunStats, totals};
use crate::graph::GraphStats;
use crate::sim::{MapSummary, SimConfig};
use serde::Serialize;

/// What a round is, in `summary.json`.
const ROUND: &str = "one synchronous step: every node that came to hold its level in the \
previous round sends one message along each of its out-arcs, whatever the arc's length \
(round 1 delivers the owner's messages)";

/// How bytes are accounted, in `summary.json`.
const BYTES: &str = "relay: 8 bytes per message (reference to the owner's path and trim \
level) plus 8 + 8n per breakpoint carried; central: 8 + 8n per answer (header and n values)";

/// How bytes are accounted under `noise = discrete`.
const BYTES_DISCRETE: &str = "relay: 8 bytes per message (reference to the owner's path and trim \
level) plus 4 + 8n per integer breakpoint carried (rung index and n integers); central: 8 + 8n \
per answer (header and n values)";

/// `summary.json` of a relay run.
#[derive(Clone, Debug, Serialize)]
pub struct RelaySummary {
    /// Always "privdiffuse".
    pub tool: &'static str,
    /// Crate version.
    pub version: &'static str,
    /// The configuration (re-run with `--config`).
    pub config: RelayConfig,
    /// The privacy map used.
    pub eps_map: MapSummary,
    /// The private values used (`auto` resolved).
    pub values: String,
    /// Graph statistics.
    pub graph: GraphStats,
    /// The replicate whose paths were diffused (simulate's first).
    pub replicate: u32,
    /// What a round is.
    pub round: &'static str,
    /// How bytes are accounted.
    pub bytes: &'static str,
    /// Per fraction: totals next to the central scheme's.
    pub totals: Vec<RelayTotal>,
    /// With `noise = discrete`: γ, m, Δ_Z and the entropy source (issue 25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discrete: Option<crate::process::discrete::DiscreteSummary>,
}

/// The summary of a finished run.
pub fn summarize(plan: &RelayPlan<'_>, stats: &RunStats) -> RelaySummary {
    let discrete = plan.config().sim_config().discrete_summary();
    RelaySummary {
        tool: "privdiffuse",
        version: env!("CARGO_PKG_VERSION"),
        config: RelayConfig {
            // `responses` as given (the plan's simulation never writes them:
            // the relay does), so that `--config` re-runs it.
            sim: SimConfig {
                responses: plan.config().sim.responses,
                ..plan.config().sim_config()
            },
            untrimmed: plan.fractions().to_vec(),
        },
        eps_map: MapSummary::of(plan.sim()),
        values: plan.sim().values().spec().to_string(),
        graph: plan.graph().stats(),
        replicate: plan.replicate(),
        round: ROUND,
        bytes: if discrete.is_some() {
            BYTES_DISCRETE
        } else {
            BYTES
        },
        totals: totals(stats, plan.fractions(), plan.model().dim),
        discrete,
    }
}

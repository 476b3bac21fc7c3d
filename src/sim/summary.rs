//! `summary.json` of a simulation as a typed record: the configuration, the
//! resolved map, graph statistics and totals (written and read back by
//! [`crate::io`]).

use super::chunk::Counts;
use super::config::SimConfig;
use super::plan::Plan;
use super::run::{MechanismTotal, SimResult};
use crate::graph::{Graph, GraphStats};
use serde::{Deserialize, Serialize};

/// The resolved privacy map, as recorded in `summary.json` (and read back
/// by [`SummaryFile`](crate::io::summary::SummaryFile)).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MapSummary {
    /// The `--eps` spec as given (empty when a hand-written summary has none).
    #[serde(default)]
    pub requested: String,
    /// Canonical spec of the map used (a `range:` map as its `exp:` form).
    pub spec: String,
    /// `a` of the equivalent `exp:a,b` map, when there is one.
    pub a: Option<f64>,
    /// `b` of the equivalent `exp:a,b` map, when there is one.
    pub b: Option<f64>,
    /// Smallest observed owner-to-member distance (when it was needed).
    pub observed_distance_min: Option<f64>,
    /// Largest observed owner-to-member distance (when it was needed).
    pub observed_distance_max: Option<f64>,
}

/// `summary.json`.
#[derive(Clone, Debug, Serialize)]
pub struct SimSummary {
    /// Always "privdiffuse".
    pub tool: &'static str,
    /// Crate version.
    pub version: &'static str,
    /// Everything needed to re-run (`--config summary.json`).
    pub config: SimConfig,
    /// The privacy map used.
    pub eps_map: MapSummary,
    /// The private values used (`auto` resolved).
    pub values: String,
    /// Graph statistics.
    pub graph: GraphStats,
    /// Replicates run (each owner's mechanism realised this many times on
    /// the same distances; see `config.first_replicate` for the first).
    pub replicates: u32,
    /// Counts of owners, responses, jumps (responses and jumps summed over
    /// the replicates).
    pub counts: Counts,
    /// Mean jumps per correlated path, empirical.
    pub jumps_per_path: f64,
    /// Mean jumps per correlated path, theory (rate · ln(ε_hi/ε_lo) averaged).
    pub jumps_per_path_expected: f64,
    /// Overall empirical vs theoretical MSE per mechanism.
    pub mse: Vec<MechanismTotal>,
    /// With `noise = discrete`: γ, m, Δ_Z and the entropy source (issue 25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discrete: Option<crate::process::discrete::DiscreteSummary>,
}

impl MapSummary {
    /// The map of a resolved plan.
    pub fn of(plan: &Plan<'_>) -> MapSummary {
        let (a, b) = plan.map().exp_params().unzip();
        let observed = plan.observed();
        let known = observed.0.is_finite();
        MapSummary {
            requested: plan.config().eps.to_string(),
            spec: plan.map().spec(),
            a,
            b,
            observed_distance_min: known.then_some(observed.0),
            observed_distance_max: known.then_some(observed.1),
        }
    }
}

/// Builds the summary of a finished run.
pub fn summarize(plan: &Plan<'_>, result: &SimResult) -> SimSummary {
    summary_of(
        plan.config(),
        MapSummary::of(plan),
        plan.values().spec().to_string(),
        plan.graph(),
        result,
    )
}

/// The summary (`summary.json`) of an in-memory run ([`Simulation::run`]) on
/// `graph`, the graph it ran on: the same value [`crate::io::simulate_to_dir`] writes
/// for the same options. Bindings use it to save a [`SimOutput`] as the
/// command line's files.
///
/// [`Simulation::run`]: super::Simulation::run
/// [`SimOutput`]: crate::sim::SimOutput
pub fn summarize_output(out: &crate::sim::SimOutput, graph: &Graph) -> SimSummary {
    let (a, b) = out.map().exp_params().unzip();
    let observed = out.observed_distances();
    let eps_map = MapSummary {
        requested: out.config().eps.to_string(),
        spec: out.map().spec(),
        a,
        b,
        observed_distance_min: observed.map(|o| o.0),
        observed_distance_max: observed.map(|o| o.1),
    };
    let result = SimResult {
        rows: Vec::new(),
        totals: out.totals().to_vec(),
        counts: out.counts().clone(),
    };
    summary_of(
        out.config(),
        eps_map,
        out.values().to_string(),
        graph,
        &result,
    )
}

fn summary_of(
    config: &SimConfig,
    eps_map: MapSummary,
    values: String,
    graph: &Graph,
    result: &SimResult,
) -> SimSummary {
    // One path per owner with recipients and replicate.
    let paths = ((result.counts.owners - result.counts.owners_without_recipients)
        * u64::from(config.replicates))
    .max(1) as f64;
    let has_paths = config
        .mechanism
        .mechanisms()
        .contains(&crate::mechanism::Mechanism::Correlated);
    SimSummary {
        tool: "privdiffuse",
        version: env!("CARGO_PKG_VERSION"),
        config: config.clone(),
        eps_map,
        values,
        graph: graph.stats(),
        replicates: config.replicates,
        counts: result.counts.clone(),
        jumps_per_path: if has_paths {
            result.counts.jumps as f64 / paths
        } else {
            0.0
        },
        jumps_per_path_expected: if has_paths {
            result.counts.jumps_expected / paths
        } else {
            0.0
        },
        mse: result.totals.clone(),
        discrete: config.discrete_summary(),
    }
}

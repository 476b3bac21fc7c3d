//! [`Collusion`]: coalitions, estimators and trials over a loaded graph, run
//! in memory — the library's face of `privdiffuse collude` (example on
//! [`Collusion`]).
//!
//! It takes every option of [`Simulation`](crate::sim::Simulation) (the same
//! setters) plus the coalitions, estimators, trials and δ'. Defaults are those
//! of `collude`: 20 sampled owners (every node on a smaller graph), every
//! estimator, 1000 trials. [`Collusion::run`] validates, runs on the caller's
//! rayon pool and writes nothing.

use super::coalition::Coalition;
use super::config::CollusionConfig;
use super::estimators::Estimator;
use super::pool::{PooledAudit, PooledEstimator, audit_rows, coalition_rows};
use super::rows::{AuditRow, CoalitionRow};
use super::run::{CoalitionResult, PhaseTimes, collude};
use super::summary::{CollusionSummary, summarize_collusion};
use crate::control::Control;
use crate::distance::Distances;
use crate::error::Result;
use crate::graph::Graph;
use crate::sim::builder::sim_setters;
use crate::sim::{Plan, SimConfig};
use std::path::Path;

/// A collusion evaluation over a loaded graph, described by typed values.
///
/// ```
/// use privdiffuse::{Coalition, Collusion, EpsilonMap, Estimator, Graph, Norm};
/// # fn main() -> Result<(), privdiffuse::Error> {
/// let g = Graph::load("data/karate.edges")?;
/// let out = Collusion::new(&g)
///     .eps(EpsilonMap::exp(3.0, 1.0)?)
///     .dim(1)
///     .norm(Norm::L1)
///     .coalition(Coalition::far(3.0)?) // every member at ≥ 3 hops
///     .coalition(Coalition::sybil(20, 4.0)?) // 20 fake accounts at 4 hops
///     .estimators([Estimator::Best, Estimator::Mean, Estimator::Pitman])
///     .trials(200)
///     .run()?;
/// for p in out.pooled() {
///     println!("{} {} {} gain {:.3}", p.coalition, p.mechanism, p.estimator, p.mean_gain);
/// }
/// let gain = |coalition: &str, mechanism: &str, estimator: &str| {
///     out.pooled()
///         .iter()
///         .find(|p| p.coalition == coalition && p.mechanism == mechanism && p.estimator == estimator)
///         .map(|p| p.mean_gain)
///         .unwrap()
/// };
/// // Sybils at one distance hold one answer under the correlated mechanism:
/// // pooling them gains nothing. Under independent noise averaging 20
/// // answers divides the MSE by 20 (gain ≈ 20; 200 trials × 20 owners).
/// assert!((gain("sybil:m=20,d=4", "correlated", "mean") - 1.0).abs() < 1e-9);
/// assert!(gain("sybil:m=20,d=4", "independent", "mean") > 10.0);
/// // The best member is the yardstick: its gain is 1 by definition.
/// assert_eq!(gain("far:min-d=3", "independent", "best"), 1.0);
/// // The rows of coalition.csv, typed: the correlated view of 20 sybils is
/// // max ε-private (ε(4) = 1/e), the independent one only Σ ε, 20 times more.
/// for r in out.coalition_rows().iter().filter(|r| r.coalition.starts_with("sybil")) {
///     assert_eq!(r.size, 20);
///     assert!((r.eps_max - (-1f64).exp()).abs() < 1e-12);
///     assert!((r.eps_sum - 20.0 * r.eps_max).abs() < 1e-9);
/// }
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Collusion<'g> {
    graph: &'g Graph,
    config: CollusionConfig,
    control: Control,
}

impl<'g> Collusion<'g> {
    /// An evaluation of `graph` with `collude`'s defaults and no coalition yet.
    pub fn new(graph: &'g Graph) -> Self {
        let mut config = CollusionConfig::default();
        config.sim.graph = graph.source().map(Path::to_path_buf).unwrap_or_default();
        config.sim.directed = graph.is_directed();
        Collusion::with_config(graph, config)
    }

    /// An evaluation described by `config` (as read from a `summary.json`;
    /// its graph fields are not read again).
    pub fn with_config(graph: &'g Graph, config: CollusionConfig) -> Self {
        Collusion {
            graph,
            config,
            control: Control::default(),
        }
    }

    sim_setters!(config.sim);

    /// Adds a coalition (they are evaluated in the order added).
    pub fn coalition(mut self, coalition: Coalition) -> Self {
        self.config.coalitions.push(coalition);
        self
    }

    /// Replaces the coalitions.
    pub fn coalitions(mut self, coalitions: impl IntoIterator<Item = Coalition>) -> Self {
        self.config.coalitions = coalitions.into_iter().collect();
        self
    }

    /// The estimators a coalition pools its answers with, in output order
    /// (repeats kept once).
    pub fn estimators(mut self, estimators: impl IntoIterator<Item = Estimator>) -> Self {
        let mut list: Vec<Estimator> = Vec::new();
        for e in estimators {
            if !list.contains(&e) {
                list.push(e);
            }
        }
        self.config.estimators = list;
        self
    }

    /// Trials per owner, coalition and mechanism (as many again under u + Δ
    /// for the distinguishing attack).
    pub fn trials(mut self, trials: usize) -> Self {
        self.config.trials = trials;
        self
    }

    /// δ' of the advanced-composition bound of the independent mechanism.
    pub fn composition_delta(mut self, delta: f64) -> Self {
        self.config.composition_delta = delta;
        self
    }

    /// The configuration as recorded so far.
    pub fn config(&self) -> &CollusionConfig {
        &self.config
    }

    /// Validates the description and runs every owner × coalition ×
    /// mechanism. Nothing is written to disk.
    pub fn run(&self) -> Result<CollusionOutput> {
        let mut config = self.config.clone();
        config.fit_default_owners(self.graph.n());
        let opts = config.options()?;
        for c in &opts.coalitions {
            c.check(self.graph.ids())?;
        }
        let sim: &SimConfig = &config.sim;
        let distances = Distances::new(self.graph, sim.distance, &sim.distance_options)?;
        let plan = Plan::new(sim, self.graph, &distances)?;
        let result = collude(&plan, &opts, &self.control)?;
        let summary = summarize_collusion(&config, &plan, &opts, &result);
        Ok(CollusionOutput {
            coalition_rows: coalition_rows(&plan, &result.results)?,
            audit_rows: audit_rows(&plan, &result.results),
            results: result.results,
            phases: result.phases,
            summary,
        })
    }
}

/// What a [`Collusion`] produced.
#[derive(Clone, Debug)]
pub struct CollusionOutput {
    results: Vec<CoalitionResult>,
    coalition_rows: Vec<CoalitionRow>,
    audit_rows: Vec<AuditRow>,
    phases: PhaseTimes,
    summary: CollusionSummary,
}

impl CollusionOutput {
    /// Per owner × coalition (owner-major): members, accounting, and per
    /// mechanism the estimator gains and the privacy-loss audit — the rows of
    /// `coalition.csv` and `audit.csv`.
    pub fn results(&self) -> &[CoalitionResult] {
        &self.results
    }

    /// Pooled over owners: coalition × mechanism × estimator.
    pub fn pooled(&self) -> &[PooledEstimator] {
        &self.summary.pooled
    }

    /// Pooled audits: coalition × mechanism.
    pub fn audit(&self) -> &[PooledAudit] {
        &self.summary.audit
    }

    /// The rows of `coalition.csv` (owner × coalition × mechanism ×
    /// estimator), as `collude` writes them.
    pub fn coalition_rows(&self) -> &[CoalitionRow] {
        &self.coalition_rows
    }

    /// The rows of `audit.csv` (owner × coalition × mechanism), as `collude`
    /// writes them.
    pub fn audit_rows(&self) -> &[AuditRow] {
        &self.audit_rows
    }

    /// CPU seconds per phase (not deterministic).
    pub fn phases(&self) -> PhaseTimes {
        self.phases
    }

    /// The configuration that was run (the default owner sample fitted to
    /// the graph).
    pub fn config(&self) -> &CollusionConfig {
        &self.summary.config
    }

    /// What `collude` writes as `summary.json`: the configuration, the ε
    /// map, the graph, the pooled gains and audits.
    pub fn summary(&self) -> &CollusionSummary {
        &self.summary
    }
}

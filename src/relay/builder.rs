//! [`Relay`]: the decentralised protocol over a loaded graph, run in memory
//! — the library's face of `privdiffuse relay` (example on [`Relay`]).

use super::config::RelayConfig;
use super::plan::{RelayPlan, Relays};
use super::rows::{RelayByDistanceRow, RelayRow};
use super::run::RelayEngine;
use super::stats::{RelayTotal, RunStats, bucket_rows, owner_rows};
use super::summary::{RelaySummary, summarize};
use super::trace::RelayTrace;
use crate::control::Control;
use crate::distance::{DistanceKind, Distances};
use crate::epsilon::EpsilonMap;
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::process::Norm;
use crate::sim::Owners;
use crate::values::ValueSpec;
use std::path::Path;

/// Who forwards untrimmed in a [`Relay::trace`].
#[derive(Clone, Debug, PartialEq)]
pub enum Untrimmed {
    /// The run's seeded choice for this fraction (as in [`Relay::run`]).
    Fraction(f64),
    /// These node ids (the owner, if listed, still trims).
    Nodes(Vec<String>),
}

/// The relay protocol over a loaded graph, described by typed values
/// (defaults: those of `privdiffuse relay`, i.e. of `simulate`, with every
/// relay trimming).
///
/// ```
/// use privdiffuse::relay::Relay;
/// use privdiffuse::{EpsilonMap, Graph, Norm, Owners};
/// # fn main() -> Result<(), privdiffuse::Error> {
/// let g = Graph::load("data/karate.edges")?;
/// let out = Relay::new(&g)
///     .eps(EpsilonMap::exp(3.0, 1.0)?)
///     .dim(1)
///     .norm(Norm::L1)
///     .owners(Owners::Count(5))
///     .untrimmed([0.0, 0.2])
///     .run()?;
/// for r in out.rows() {
///     // Every answer is simulate's, whoever trims.
///     assert_eq!(r.identical, r.recipients);
///     // Messages: every member forwards once to each friend (2|E| = 156).
///     assert_eq!(r.messages, 156);
///     if r.untrimmed == 0.0 {
///         // Trimming relays leak nothing beyond each recipient's level.
///         assert_eq!(r.eps_learned_excess_max, Some(1.0));
///     }
/// }
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Relay<'g> {
    graph: &'g Graph,
    config: RelayConfig,
    engine: RelayEngine,
    control: Control,
}

impl<'g> Relay<'g> {
    /// A relay run on `graph` with the default options.
    pub fn new(graph: &'g Graph) -> Self {
        let mut config = RelayConfig::default();
        config.sim.graph = graph.source().map(Path::to_path_buf).unwrap_or_default();
        config.sim.directed = graph.is_directed();
        Relay::with_config(graph, config)
    }

    /// A relay run described by `config` (its graph fields are not read
    /// again: the graph is given).
    pub fn with_config(graph: &'g Graph, config: RelayConfig) -> Self {
        Relay {
            graph,
            config,
            engine: RelayEngine::Auto,
            control: Control::default(),
        }
    }

    /// The privacy map ε(d), with its clamps (default `range:0.5..15`).
    pub fn eps(mut self, map: EpsilonMap) -> Self {
        self.config.sim.eps_min = map.eps_min();
        self.config.sim.eps_max = map.eps_max();
        self.config.sim.eps = map;
        self
    }

    /// Clamps of ε (parameters `eps_min`, `eps_max`).
    pub fn eps_clamp(mut self, eps_min: Option<f64>, eps_max: Option<f64>) -> Self {
        self.config.sim.eps_min = eps_min;
        self.config.sim.eps_max = eps_max;
        self
    }

    /// `hop` (default) or `weighted` distances.
    pub fn distance(mut self, kind: DistanceKind) -> Self {
        self.config.sim.distance = kind;
        self
    }

    /// Buckets of the by-distance rows for weighted distances (default 20).
    pub fn bins(mut self, bins: usize) -> Self {
        self.config.sim.bins = bins;
        self
    }

    /// Dimension n of the private values (default 2).
    pub fn dim(mut self, dim: usize) -> Self {
        self.config.sim.dim = dim;
        self
    }

    /// Norm of the Laplace noise (default ℓ2).
    pub fn norm(mut self, norm: Norm) -> Self {
        self.config.sim.norm = norm;
        self
    }

    /// The owners' private values (default `auto`).
    pub fn values(mut self, values: ValueSpec) -> Self {
        self.config.sim.values = values;
        self
    }

    /// Sensitivity Δ (default 1).
    pub fn sensitivity(mut self, sensitivity: f64) -> Self {
        self.config.sim.sensitivity = sensitivity;
        self
    }

    /// Which owners diffuse their values (default all).
    pub fn owners(mut self, owners: Owners) -> Self {
        self.config.sim.owners = owners;
        self
    }

    /// Master seed (default 1): the paths of `simulate` with this seed, and
    /// the order in which relays stop trimming.
    pub fn seed(mut self, seed: u64) -> Self {
        self.config.sim.seed = seed;
        self
    }

    /// The untrimmed fractions, each in [0, 1] (default `[0]`).
    pub fn untrimmed(mut self, fractions: impl IntoIterator<Item = f64>) -> Self {
        self.config.untrimmed = fractions.into_iter().collect();
        self
    }

    /// How each owner's diffusion is computed (default
    /// `RelayEngine::Auto`; the numbers never depend on it).
    pub fn engine(mut self, engine: RelayEngine) -> Self {
        self.engine = engine;
        self
    }

    /// Cancellation token and progress callback.
    pub fn control(mut self, control: Control) -> Self {
        self.control = control;
        self
    }

    /// The configuration as recorded so far.
    pub fn config(&self) -> &RelayConfig {
        &self.config
    }

    fn distances(&self) -> Result<Distances<'g>> {
        let s = &self.config.sim;
        Distances::new(self.graph, s.distance, &s.distance_options)
    }

    /// Validates the description and diffuses every owner's signal under
    /// every fraction. Nothing is written to disk; the owners run on the
    /// caller's rayon pool, and the numbers do not depend on it.
    pub fn run(&self) -> Result<RelayOutput> {
        self.config.check()?;
        let distances = self.distances()?;
        let plan = RelayPlan::new(&self.config, self.graph, &distances)?;
        let stats = plan.run_local(self.engine, &self.control)?;
        Ok(RelayOutput::new(&plan, stats))
    }

    /// One owner's diffusion, message by message (`owner` an original id):
    /// with the map of [`Relay::run`] (a `range:` map is resolved over the
    /// configured owners), by the sweep on hop distances and round by round
    /// on weighted ones.
    pub fn trace(&self, owner: &str, untrimmed: Untrimmed) -> Result<RelayTrace> {
        self.config.check()?;
        let distances = self.distances()?;
        let plan = RelayPlan::new(&self.config, self.graph, &distances)?;
        let o = self
            .graph
            .ids()
            .index_of(owner)
            .ok_or_else(|| Error::param("owner", owner, "the id of a node in the graph"))?;
        match untrimmed {
            Untrimmed::Fraction(f) => {
                super::config::check_fractions(&[f])?;
                let relays = Relays::Order(plan.order(), plan.order().bound(f, o));
                plan.trace(o, relays, self.engine)
            }
            Untrimmed::Nodes(ids) => {
                let mut flags = vec![false; self.graph.n()];
                for id in &ids {
                    let v = self.graph.ids().index_of(id).ok_or_else(|| {
                        Error::param("untrimmed", id, "ids of nodes in the graph")
                    })?;
                    flags[v as usize] = true;
                }
                plan.trace(o, Relays::Nodes(&flags), self.engine)
            }
        }
    }
}

/// What a [`Relay`] produced.
#[derive(Clone, Debug)]
pub struct RelayOutput {
    rows: Vec<RelayRow>,
    by_distance: Vec<RelayByDistanceRow>,
    summary: RelaySummary,
    stats: RunStats,
}

impl RelayOutput {
    pub(crate) fn new(plan: &RelayPlan<'_>, stats: RunStats) -> RelayOutput {
        let labels: Vec<String> = plan
            .owners()
            .iter()
            .map(|&o| plan.graph().ids().label(o).to_string())
            .collect();
        RelayOutput {
            rows: owner_rows(&stats, &labels, plan.fractions()),
            by_distance: bucket_rows(&stats, plan.buckets(), plan.fractions()),
            summary: summarize(plan, &stats),
            stats,
        }
    }

    /// The rows of `relay.csv`: per owner (in owner order) and fraction.
    pub fn rows(&self) -> &[RelayRow] {
        &self.rows
    }

    /// The rows of `relay_by_distance.csv`: per fraction and bucket.
    pub fn by_distance(&self) -> &[RelayByDistanceRow] {
        &self.by_distance
    }

    /// Per fraction over all owners, next to the central scheme's cost.
    pub fn totals(&self) -> &[RelayTotal] {
        &self.summary.totals
    }

    /// What `relay` writes as `summary.json`.
    pub fn summary(&self) -> &RelaySummary {
        &self.summary
    }

    /// The exact counts behind the rows.
    pub fn stats(&self) -> &RunStats {
        &self.stats
    }
}

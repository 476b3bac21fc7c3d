//! The [`Utility`] builder for library users.

use super::{UtilityConfig, UtilityPlan, UtilityResult};
use crate::control::Control;
use crate::distance::Distances;
use crate::error::Result;
use crate::graph::Graph;
use crate::post::Post;
use crate::process::Norm;

/// Builder for library users, like [`crate::sim::Simulation`]:
/// `Utility::new(&graph).eps(..).values(..).access_radius(2).run()`.
pub struct Utility<'g> {
    graph: &'g Graph,
    config: UtilityConfig,
    control: Control,
}

impl<'g> Utility<'g> {
    /// Defaults of [`UtilityConfig`] on `graph`.
    pub fn new(graph: &'g Graph) -> Self {
        Utility {
            graph,
            config: UtilityConfig::default(),
            control: Control::new(),
        }
    }
    /// A full configuration (its `graph` path is not read).
    pub fn with_config(graph: &'g Graph, config: UtilityConfig) -> Self {
        Utility {
            graph,
            config,
            control: Control::new(),
        }
    }
    /// Privacy map.
    pub fn eps(mut self, map: crate::epsilon::EpsilonMap) -> Self {
        self.config.sim.eps = map;
        self
    }
    /// Private values.
    pub fn values(mut self, v: crate::values::ValueSpec) -> Self {
        self.config.sim.values = v;
        self
    }
    /// Dimension.
    pub fn dim(mut self, dim: usize) -> Self {
        self.config.sim.dim = dim;
        self
    }
    /// Norm.
    pub fn norm(mut self, norm: Norm) -> Self {
        self.config.sim.norm = norm;
        self
    }
    /// Post-processing (none or bit).
    pub fn post(mut self, post: Post) -> Self {
        self.config.sim.post = post;
        self
    }
    /// Owners.
    pub fn owners(mut self, owners: crate::sim::Owners) -> Self {
        self.config.sim.owners = owners;
        self
    }
    /// Seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.config.sim.seed = seed;
        self
    }
    /// Access radius.
    pub fn access_radius(mut self, r: u32) -> Self {
        self.config.access_radius = r;
        self
    }
    /// Replicates.
    pub fn replicates(mut self, r: usize) -> Self {
        self.config.replicates = r;
        self
    }
    /// Cancellation and progress.
    pub fn control(mut self, control: Control) -> Self {
        self.control = control;
        self
    }
    /// The configuration so far.
    pub fn config(&self) -> &UtilityConfig {
        &self.config
    }
    /// Runs it.
    pub fn run(&self) -> Result<UtilityResult> {
        let d = Distances::new(
            self.graph,
            self.config.sim.distance,
            &self.config.sim.distance_options,
        )?;
        let mut plan = UtilityPlan::new(&self.config, self.graph, &d)?;
        plan.run(&self.control)
    }
}

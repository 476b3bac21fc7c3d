//! The configuration of a collusion run: every option of `collude` that
//! changes the numbers, and its defaults.

use super::coalition::Coalition;
use super::estimators::{Estimator, estimator_list};
use super::run::CollusionOptions;
use crate::error::Result;
use crate::sim::{Owners, SimConfig};
use serde::Serialize;

/// Default `--trials`.
pub const DEFAULT_TRIALS: usize = 1000;

/// Default `--owners` of `collude`: a seeded sample of this many owners (all
/// nodes on smaller graphs).
pub const DEFAULT_OWNERS: usize = 20;

/// Default `--composition-delta`.
pub const DEFAULT_COMPOSITION_DELTA: f64 = 1e-6;

/// Every option of `collude` that changes the numbers: the simulation's, plus
/// coalitions, estimators, trials and δ'. Echoed in `summary.json` (flattened,
/// so `--config` accepts a `simulate` summary too).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CollusionConfig {
    /// Graph, distances, ε map, values, mechanisms, owners, seed.
    #[serde(flatten)]
    pub sim: SimConfig,
    /// Coalitions, in order (each recorded as its spec).
    pub coalitions: Vec<Coalition>,
    /// Estimators, in order (recorded as `best,mean,...`).
    #[serde(with = "estimator_list")]
    pub estimators: Vec<Estimator>,
    /// Trials per owner, coalition and mechanism.
    pub trials: usize,
    /// δ' of the advanced-composition bound.
    pub composition_delta: f64,
}

impl Default for CollusionConfig {
    /// Simulate's defaults with [`DEFAULT_OWNERS`] sampled owners, every
    /// estimator, [`DEFAULT_TRIALS`] trials and no coalition.
    fn default() -> Self {
        CollusionConfig {
            sim: SimConfig {
                owners: Owners::Count(DEFAULT_OWNERS),
                ..SimConfig::default()
            },
            coalitions: Vec::new(),
            estimators: Estimator::ALL.to_vec(),
            trials: DEFAULT_TRIALS,
            composition_delta: DEFAULT_COMPOSITION_DELTA,
        }
    }
}

/// The keys of a `collude` configuration beyond the simulation's.
pub(crate) const OWN_KEYS: [&str; 4] = ["coalitions", "estimators", "trials", "composition_delta"];

impl CollusionConfig {
    /// The runner's options (validated).
    pub fn options(&self) -> Result<CollusionOptions> {
        let opts = CollusionOptions {
            coalitions: self.coalitions.clone(),
            estimators: self.estimators.clone(),
            trials: self.trials,
            composition_delta: self.composition_delta,
        };
        opts.validate()?;
        Ok(opts)
    }

    /// The default owner sample ([`DEFAULT_OWNERS`]) becomes every node on a
    /// graph smaller than it; any other choice is kept.
    pub fn fit_default_owners(&mut self, nodes: usize) {
        if self.sim.owners == Owners::Count(DEFAULT_OWNERS) && nodes < DEFAULT_OWNERS {
            self.sim.owners = Owners::All;
        }
    }
}

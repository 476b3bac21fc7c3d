//! [`GossipConfig`]: everything that changes the numbers of a gossip run,
//! validated by [`GossipConfig::check`] before any graph is read.

use super::iteration::{GossipScheme, MAX_STEPS};
use crate::collusion::Coalition;
use crate::error::{Error, Result};
use crate::graph::GraphView;
use crate::sim::Owners;
use crate::value_models::ValueModel;
use crate::values::ValueSpec;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Default `owners`: a seeded sample of this many (every node of a smaller
/// graph), as `collude`.
pub const DEFAULT_OWNERS: usize = crate::collusion::DEFAULT_OWNERS;

pub use crate::limits::MAX_REPLICATES;

/// A gossip run (`privdiffuse gossip`, Python `gossip()`, sweep
/// `command = gossip`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GossipConfig {
    /// Edge list.
    pub graph: PathBuf,
    /// Extra node ids.
    pub nodes: Option<PathBuf>,
    /// `ego` / `subgraph` view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub view: Option<GraphView>,
    /// Sources of the accounting (8).
    pub owners: Owners,
    /// Observers of the exact loss (11) (`None`: the owners).
    pub observers: Option<Owners>,
    /// Coalitions (as `collude`'s `coalition`; not `sybil:`).
    pub coalitions: Vec<Coalition>,
    /// Private values (one number per node).
    pub values: ValueSpec,
    /// Δ (`None`: the width of the values' public range).
    pub sensitivity: Option<f64>,
    /// σ of the noise added once per node (3).
    pub sigma: f64,
    /// T (`None`: the mixing rule (6)).
    pub steps: Option<u64>,
    /// Simple or accelerated gossip.
    pub gossip: GossipScheme,
    /// Rényi order α > 1.
    pub alpha: f64,
    /// δ of the (ε, δ) columns.
    pub delta: f64,
    /// Independent noise draws of the utility (≥ 1).
    pub replicates: usize,
    /// Master seed.
    pub seed: u64,
}

impl Default for GossipConfig {
    fn default() -> Self {
        GossipConfig {
            graph: PathBuf::from(crate::sim::DEFAULT_GRAPH),
            nodes: None,
            view: None,
            owners: Owners::Count(DEFAULT_OWNERS),
            observers: None,
            coalitions: Vec::new(),
            values: ValueSpec::Uniform { lo: 0.0, hi: 1.0 },
            sensitivity: None,
            sigma: 1.0,
            steps: None,
            gossip: GossipScheme::Accelerated,
            alpha: 2.0,
            delta: 1e-6,
            replicates: 1,
            seed: 1,
        }
    }
}

impl GossipConfig {
    /// The refusal of a gossip run whose `sigma` was not given: σ sets the
    /// privacy, so no face picks it for the user (the CLI requires `--sigma`,
    /// a sweep's gossip point and Python's `gossip()` `sigma`; the `1` of
    /// [`Default`] is only a placeholder for the library's struct update).
    pub fn sigma_missing() -> Error {
        Error::param(
            "command",
            "gossip",
            "a `sigma` too (σ of the noise each node adds once: it sets the privacy, so it has \
             no default)",
        )
    }

    /// Checks what needs no graph.
    pub fn check(&self) -> Result<()> {
        if !(self.sigma.is_finite() && self.sigma > 0.0) {
            return Err(Error::param("sigma", self.sigma, "a finite number > 0"));
        }
        if !(self.sigma * self.sigma).is_normal() {
            // The mixing rule and every privacy number divide by σ².
            return Err(Error::param(
                "sigma",
                self.sigma,
                "a σ whose square is a normal number (about 1e-154 to 1e154)",
            ));
        }
        if let Some(t) = self.steps
            && !(1..=MAX_STEPS).contains(&t)
        {
            return Err(Error::param(
                "steps",
                t,
                format!("a whole number in 1..={MAX_STEPS}"),
            ));
        }
        if !(self.alpha.is_finite() && self.alpha > 1.0) {
            return Err(Error::param(
                "alpha",
                self.alpha,
                "a finite Rényi order > 1",
            ));
        }
        if !(self.delta > 0.0 && self.delta < 1.0) {
            return Err(Error::param("delta", self.delta, "a number in (0, 1)"));
        }
        if !(1..=MAX_REPLICATES).contains(&self.replicates) {
            return Err(Error::param(
                "replicates",
                self.replicates,
                format!("a whole number in 1..={MAX_REPLICATES}"),
            ));
        }
        if let Some(s) = self.sensitivity
            && !(s.is_finite() && s > 0.0)
        {
            return Err(Error::param("sensitivity", s, "a finite number > 0"));
        }
        self.owners.check()?;
        if let Some(o) = &self.observers {
            o.check().map_err(|e| match e {
                Error::Parameter {
                    value, expected, ..
                } => Error::Parameter {
                    name: "observers".into(),
                    value,
                    expected,
                },
                e => e,
            })?;
        }
        for c in &self.coalitions {
            if c.to_string().starts_with("sybil") {
                return Err(Error::param(
                    "coalition",
                    c,
                    "far:, band:, random:, nearest: or file: (gossip has no accounts outside the \
                     graph)",
                ));
            }
        }
        self.values.check()?;
        self.interval().map(drop)
    }

    /// The values' public range `[lo, hi]` and the sensitivity Δ: the
    /// model's range and its width (`bits:` and the bit models [0, 1],
    /// `uniform:a,b` [a, b]), or `sensitivity` when given (at least that
    /// width). Values without a public range need `sensitivity`: `file:`
    /// and given values are then taken in [0, Δ] (the memo's setting
    /// x ∈ [0, 1], scaled), `smooth:` in [−Δ/2, Δ/2] and `normal:m,s` in
    /// [m − Δ/2, m + Δ/2]; a secret outside is refused naming its owner.
    pub fn interval(&self) -> Result<(f64, f64, f64)> {
        let known = match &self.values {
            ValueSpec::Uniform { lo, hi } => Some((*lo, *hi)),
            ValueSpec::Bits { .. }
            | ValueSpec::Model(ValueModel::Infection { .. } | ValueModel::Sir { .. }) => {
                Some((0.0, 1.0))
            }
            ValueSpec::Auto => Some((0.0, 1.0)),
            ValueSpec::Const { x } => Some((*x, *x)),
            _ => None,
        };
        match (known, self.sensitivity) {
            (Some((lo, hi)), None) if hi > lo => Ok((lo, hi, hi - lo)),
            (Some((lo, hi)), Some(s)) if s >= hi - lo && s > 0.0 => Ok((lo, hi, s)),
            (Some((lo, hi)), Some(s)) => Err(Error::param(
                "sensitivity",
                s,
                format!("at least the width {} of the values' public range", hi - lo),
            )),
            (Some(_), None) => Err(Error::param(
                "values",
                &self.values,
                "values that vary (a public range of positive width), or a `sensitivity`",
            )),
            (None, None) => Err(Error::param(
                "values",
                &self.values,
                "a `sensitivity` too (these values have no public range)",
            )),
            (None, Some(s)) => Ok(match &self.values {
                ValueSpec::Model(ValueModel::Smooth { .. }) => (-s / 2.0, s / 2.0, s),
                ValueSpec::Normal { mean, .. } => (mean - s / 2.0, mean + s / 2.0, s),
                _ => (0.0, s, s),
            }),
        }
    }
}

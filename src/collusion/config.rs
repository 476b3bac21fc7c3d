//! The configuration of a collusion run: every option of `collude` that
//! changes the numbers, and its defaults.

use super::coalition::Coalition;
use super::estimators::{Estimator, estimator_list};
use super::run::CollusionOptions;
use crate::error::Result;
use crate::sim::{Owners, SimConfig};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::OnceLock;

/// Default `--trials`.
pub const DEFAULT_TRIALS: usize = 1000;

/// Default `--owners` of `collude`: a seeded sample of this many owners (all
/// nodes on smaller graphs).
pub const DEFAULT_OWNERS: usize = 20;

/// Default `--composition-delta`.
pub const DEFAULT_COMPOSITION_DELTA: f64 = 1e-6;

/// Every option of `collude` that changes the numbers: the simulation's, plus
/// coalitions, estimators, trials and δ'. Echoed in `summary.json` (flattened,
/// so `--config` accepts a `simulate` summary too), and read back from that
/// flat object: see the [`Deserialize`] impl.
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
    /// Simulate's defaults with `DEFAULT_OWNERS` sampled owners, every
    /// estimator, `DEFAULT_TRIALS` trials and no coalition.
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
    /// The runner's options (validated). The simulation's keys `collude`
    /// does not use are refused here, for every face: `post`, `replicates`,
    /// `first_replicate`, `ego_owners`, `path_owners`, `responses`, and
    /// `delta`/`bins` where the run has no use for them.
    pub fn options(&self) -> Result<CollusionOptions> {
        use crate::sim::config::Ignored;
        self.sim.refuse_ignored(
            "collude",
            &[
                Ignored::Post,
                Ignored::Replicates,
                Ignored::FirstReplicate,
                Ignored::EgoOwners,
                Ignored::PathOwners,
                Ignored::Responses,
            ],
        )?;
        self.sim.refuse_unused()?;
        let opts = CollusionOptions {
            coalitions: self.coalitions.clone(),
            estimators: self.estimators.clone(),
            trials: self.trials,
            composition_delta: self.composition_delta,
        };
        opts.validate()?;
        Ok(opts)
    }

    /// The default owner sample (`DEFAULT_OWNERS`) becomes every node on a
    /// graph smaller than it; any other choice is kept.
    pub fn fit_default_owners(&mut self, nodes: usize) {
        if self.sim.owners == Owners::Count(DEFAULT_OWNERS) && nodes < DEFAULT_OWNERS {
            self.sim.owners = Owners::All;
        }
    }
}

/// Every key of a `collude` configuration: the simulation's, then
/// collusion's own (`OWN_KEYS`).
pub fn collusion_keys() -> &'static [&'static str] {
    static KEYS: OnceLock<Vec<&'static str>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut keys = crate::util::table::fields::<SimConfig>().to_vec();
        keys.extend(OWN_KEYS);
        keys
    })
}

/// Reads the flat object `summary.json` echoes (the simulation's keys beside
/// collusion's own keys; serde's `flatten` cannot refuse unknown keys). A key that is
/// absent keeps `collude`'s default ([`CollusionConfig::default`]: 20 sampled
/// owners, every estimator, …); an unknown key is refused naming every valid
/// one. Besides the recorded forms, `estimators` may be a list of names and
/// `coalitions` a single spec.
impl<'de> Deserialize<'de> for CollusionConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let mut given = serde_json::Map::<String, Value>::deserialize(d)?;
        let sim_keys = crate::util::table::fields::<SimConfig>();
        if let Some(k) = given
            .keys()
            .find(|k| !sim_keys.contains(&k.as_str()) && !OWN_KEYS.contains(&k.as_str()))
        {
            return Err(D::Error::unknown_field(k, collusion_keys()));
        }
        let mut c = CollusionConfig::default();
        let bad = |key: &str, e: serde_json::Error| D::Error::custom(format!("{key}: {e}"));
        if let Some(v) = given.remove("coalitions") {
            let v = match v {
                Value::String(_) => Value::Array(vec![v]),
                v => v,
            };
            c.coalitions = serde_json::from_value(v).map_err(|e| bad("coalitions", e))?;
        }
        if let Some(v) = given.remove("estimators") {
            let v = match v {
                Value::Array(names) => Value::String(
                    names
                        .iter()
                        .map(|n| {
                            n.as_str()
                                .map(str::to_string)
                                .unwrap_or_else(|| n.to_string())
                        })
                        .collect::<Vec<_>>()
                        .join(","),
                ),
                v => v,
            };
            c.estimators = estimator_list::deserialize(v).map_err(|e| bad("estimators", e))?;
        }
        if let Some(v) = given.remove("trials") {
            c.trials = serde_json::from_value(v).map_err(|e| bad("trials", e))?;
        }
        if let Some(v) = given.remove("composition_delta") {
            c.composition_delta =
                serde_json::from_value(v).map_err(|e| bad("composition_delta", e))?;
        }
        // The simulation's keys over collude's defaults (its owner sample).
        let Value::Object(mut sim) = serde_json::to_value(&c.sim).map_err(D::Error::custom)? else {
            return Err(D::Error::custom(
                "the default configuration is not an object",
            ));
        };
        sim.extend(given);
        c.sim = SimConfig::deserialize(Value::Object(sim)).map_err(D::Error::custom)?;
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_its_flat_summary_object_over_collude_defaults() {
        let c = CollusionConfig {
            trials: 7,
            coalitions: vec!["far:min-d=2".parse().unwrap()],
            ..CollusionConfig::default()
        };
        let back: CollusionConfig =
            serde_json::from_value(serde_json::to_value(&c).unwrap()).unwrap();
        assert_eq!(back, c);
        // Absent keys keep collude's defaults (20 sampled owners), not simulate's.
        let partial: CollusionConfig = serde_json::from_str(
            r#"{"dim": 1, "estimators": ["best", "mean"], "coalitions": "band:d=2"}"#,
        )
        .unwrap();
        assert_eq!(partial.sim.owners, Owners::Count(DEFAULT_OWNERS));
        assert_eq!(
            (
                partial.sim.dim,
                partial.estimators.len(),
                partial.coalitions.len()
            ),
            (1, 2, 1)
        );
        let e = serde_json::from_str::<CollusionConfig>(r#"{"bogus": 1}"#).unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with("unknown field `bogus`"), "{msg}");
        assert!(
            msg.contains("`eps`") && msg.contains("`composition_delta`"),
            "{msg}"
        );
        let e = serde_json::from_str::<CollusionConfig>(r#"{"trials": "many"}"#).unwrap_err();
        assert!(e.to_string().starts_with("trials:"), "{e}");
    }
}

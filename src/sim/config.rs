//! The simulation's configuration: every option that changes the results, with
//! the defaults of the thesis' synthetic experiment. `summary.json` echoes it so
//! that a run can be repeated with `--config summary.json`.

use crate::distance::{DistanceKind, DistanceOptions};
use crate::mechanism::MechanismChoice;
use crate::process::Norm;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The bundled default network (the thesis' 150-node random geometric graph).
pub const DEFAULT_GRAPH: &str = "data/geometric150.edges";

/// What to do with members the owner cannot reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Unreachable {
    /// Not answered; counted in `summary.json`.
    #[default]
    Skip,
    /// Answered at `--eps-min`.
    Floor,
}

impl std::str::FromStr for Unreachable {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim() {
            "skip" => Ok(Unreachable::Skip),
            "floor" => Ok(Unreachable::Floor),
            _ => Err(Error::param("--unreachable", s, "skip or floor")),
        }
    }
}

/// Which owners share their values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnerSpec {
    /// Every node.
    All,
    /// A seeded random sample of this many distinct nodes.
    Sample(usize),
    /// These original ids, in this order.
    List(Vec<String>),
}

impl std::str::FromStr for OwnerSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let t = s.trim();
        if t == "all" {
            return Ok(OwnerSpec::All);
        }
        if !t.contains(',') {
            return match t.parse::<usize>() {
                Ok(0) | Err(_) => Err(Error::param(
                    "--owners",
                    s,
                    "all, a count N ≥ 1, or a comma-separated list of node ids (one id: `17,`)",
                )),
                Ok(n) => Ok(OwnerSpec::Sample(n)),
            };
        }
        let ids: Vec<String> = t
            .split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(String::from)
            .collect();
        if ids.is_empty() {
            return Err(Error::param("--owners", s, "at least one node id"));
        }
        Ok(OwnerSpec::List(ids))
    }
}

/// Every option that influences the simulated numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimConfig {
    /// Edge list.
    pub graph: PathBuf,
    /// Optional list of node ids (adds isolated nodes).
    pub nodes: Option<PathBuf>,
    /// Arcs are one-way.
    pub directed: bool,
    /// Distance kind.
    pub distance: DistanceKind,
    /// Options of the distance routes (resistance cap, sketch size, seed).
    pub distance_options: DistanceOptions,
    /// Buckets for continuous distances.
    pub bins: usize,
    /// Privacy map spec (`--eps`).
    pub eps: String,
    /// Lower clamp of ε.
    pub eps_min: Option<f64>,
    /// Upper clamp of ε.
    pub eps_max: Option<f64>,
    /// Unreachable members: skip or answer at `eps_min`.
    pub unreachable: Unreachable,
    /// Dimension of the private values.
    pub dim: usize,
    /// Norm of the Laplace mechanisms.
    pub norm: Norm,
    /// Mechanism(s).
    pub mechanism: MechanismChoice,
    /// δ of the Gaussian mechanism.
    pub delta: f64,
    /// Private values spec (`--values`).
    pub values: String,
    /// Sensitivity Δ.
    pub sensitivity: f64,
    /// Post-processing spec (`--post`).
    pub post: String,
    /// Owners spec (`--owners`).
    pub owners: String,
    /// Master seed.
    pub seed: u64,
    /// Write `responses.csv`.
    pub responses: bool,
    /// How many owners' full paths go to `paths.csv`.
    pub path_owners: usize,
}

impl Default for SimConfig {
    /// The thesis' synthetic experiment on the bundled geometric graph.
    fn default() -> Self {
        SimConfig {
            graph: PathBuf::from(DEFAULT_GRAPH),
            nodes: None,
            directed: false,
            distance: DistanceKind::Hop,
            distance_options: DistanceOptions::default(),
            bins: 20,
            eps: "range:0.5..15".into(),
            eps_min: None,
            eps_max: None,
            unreachable: Unreachable::Skip,
            dim: 2,
            norm: Norm::L2,
            mechanism: MechanismChoice::Both,
            delta: 1e-5,
            values: "auto".into(),
            sensitivity: 1.0,
            post: "none".into(),
            owners: "all".into(),
            seed: 1,
            responses: false,
            path_owners: 4,
        }
    }
}

impl SimConfig {
    /// Reads the `config` object of a `summary.json` written by `simulate`.
    pub fn from_summary(path: &Path) -> Result<SimConfig> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| Error::input(path, e.line(), format!("not valid JSON: {e}")))?;
        let cfg = v.get("config").cloned().ok_or_else(|| {
            Error::input(path, 1, "expected a summary.json with a \"config\" object")
        })?;
        serde_json::from_value(cfg)
            .map_err(|e| Error::input(path, 1, format!("invalid \"config\": {e}")))
    }

    /// The default output directory: `results/<graph file stem>`.
    pub fn default_out_dir(&self) -> PathBuf {
        let stem = self
            .graph
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "run".into());
        // `foo.edges.gz` → `foo`
        let stem = stem
            .strip_suffix(".edges")
            .or_else(|| stem.strip_suffix(".txt"))
            .map(String::from)
            .unwrap_or(stem);
        PathBuf::from("results").join(stem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_specs() {
        assert_eq!("all".parse::<OwnerSpec>().unwrap(), OwnerSpec::All);
        assert_eq!("20".parse::<OwnerSpec>().unwrap(), OwnerSpec::Sample(20));
        assert_eq!(
            "17,".parse::<OwnerSpec>().unwrap(),
            OwnerSpec::List(vec!["17".into()])
        );
        assert_eq!(
            "a, b".parse::<OwnerSpec>().unwrap(),
            OwnerSpec::List(vec!["a".into(), "b".into()])
        );
        assert!("0".parse::<OwnerSpec>().is_err());
        assert!("x".parse::<OwnerSpec>().is_err());
        assert!(",".parse::<OwnerSpec>().is_err());
    }

    #[test]
    fn config_round_trips_through_json() {
        let c = SimConfig::default();
        let s = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<SimConfig>(&s).unwrap(), c);
        assert_eq!(c.default_out_dir(), PathBuf::from("results/geometric150"));
    }
}

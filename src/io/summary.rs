//! `summary.json` read back. `simulate` writes a [`SimSummary`](crate::sim::SimSummary)
//! and `collude` a [`CollusionSummary`](crate::collusion::CollusionSummary); both
//! begin with the same keys — tool, version, the configuration (collude's
//! adds the collusion keys to simulate's), the privacy map, the values and the
//! graph — and [`SummaryFile`] is those keys, typed. Every key is optional so
//! that a partial or hand-written file reads; the keys that follow (counts,
//! pooled results) are ignored.

use crate::distance::DistanceKind;
use crate::error::{Error, Result};
use crate::graph::GraphStats;
use crate::process::Norm;
use crate::sim::MapSummary;
use serde::Deserialize;
use std::path::Path;

/// The keys every `summary.json` starts with.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct SummaryFile {
    /// `privdiffuse`.
    pub tool: Option<String>,
    /// `collude` for collude's summary (simulate writes none).
    pub command: Option<String>,
    /// Version of the writer.
    pub version: Option<String>,
    /// The configuration, as far as readers use it.
    pub config: ConfigEcho,
    /// The privacy map used.
    pub eps_map: Option<MapSummary>,
    /// The private values used (`auto` resolved).
    pub values: Option<String>,
    /// Graph statistics.
    pub graph: Option<GraphStats>,
}

/// The keys of `summary.json`'s `config` that readers use: the figures
/// need the map's clamps, the dimension and norm, the distance kind and the
/// sensitivity. The file holds every field of [`SimConfig`](crate::sim::SimConfig)
/// under the same names (a test keeps them in step).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ConfigEcho {
    /// Distance kind.
    pub distance: Option<DistanceKind>,
    /// Privacy map spec as given (`--eps`).
    pub eps: Option<String>,
    /// Lower clamp of ε.
    pub eps_min: Option<f64>,
    /// Upper clamp of ε.
    pub eps_max: Option<f64>,
    /// Dimension of the private values.
    pub dim: Option<usize>,
    /// Norm of the Laplace mechanisms.
    pub norm: Option<Norm>,
    /// Sensitivity Δ.
    pub sensitivity: Option<f64>,
    /// Master seed.
    pub seed: Option<u64>,
}

/// The largest `summary.json` read back (`--config`, `plot`): far above
/// any the tool writes.
pub(crate) const MAX_SUMMARY_BYTES: u64 = 64 << 20;

/// The `config` object of the `summary.json` at `path`, as a run wrote it
/// (every command's `--config` reads it here).
pub(crate) fn config_object(path: &Path) -> Result<serde_json::Value> {
    let text = crate::util::lines::read_text(path, MAX_SUMMARY_BYTES)?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::input(path, e.line(), format!("not valid JSON: {e}")))?;
    v.get("config").cloned().ok_or_else(|| no_config(path))
}

/// The error of a `summary.json` without a `config` object.
pub(crate) fn no_config(path: &Path) -> Error {
    Error::input(path, 1, "expected a summary.json with a \"config\" object")
}

/// A `config` object of [`config_object`] read as `T`.
pub(crate) fn config_as<T: serde::de::DeserializeOwned>(
    path: &Path,
    config: serde_json::Value,
) -> Result<T> {
    serde_json::from_value(config)
        .map_err(|e| Error::input(path, 1, format!("invalid \"config\": {e}")))
}

impl SummaryFile {
    /// Parses the text of a `summary.json` (`file` names it in errors).
    pub fn parse(file: &Path, text: &str) -> Result<SummaryFile> {
        serde_json::from_str(text).map_err(|e| {
            let what = if e.is_data() {
                "unexpected content"
            } else {
                "invalid JSON"
            };
            Error::input(file, e.line(), format!("{what}: {e}"))
        })
    }

    /// Reads `file`.
    pub fn read(file: &Path) -> Result<SummaryFile> {
        let text = crate::util::lines::read_text(file, MAX_SUMMARY_BYTES)?;
        SummaryFile::parse(file, &text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collusion::{CollusionConfig, CollusionSummary};
    use crate::sim::{Counts, SimConfig, SimSummary};

    fn map() -> MapSummary {
        MapSummary {
            requested: "range:0.5..15".into(),
            spec: "exp:a=3,b=1".into(),
            a: Some(3.0),
            b: Some(1.0),
            observed_distance_min: Some(1.0),
            observed_distance_max: None,
        }
    }

    fn graph() -> GraphStats {
        crate::graph::Graph::from_edges(
            crate::graph::NodeIds::range(3),
            &[(0, 1), (1, 2)],
            None,
            false,
        )
        .unwrap()
        .stats()
    }

    fn echo(c: &SimConfig) -> ConfigEcho {
        ConfigEcho {
            distance: Some(c.distance),
            eps: Some(c.eps.to_string()),
            eps_min: c.eps_min,
            eps_max: c.eps_max,
            dim: Some(c.dim),
            norm: Some(c.norm),
            sensitivity: Some(c.sensitivity),
            seed: Some(c.seed),
        }
    }

    #[test]
    fn reads_what_simulate_and_collude_write() {
        let config = SimConfig {
            eps_min: Some(0.25),
            dim: 3,
            sensitivity: 2.0,
            distance: DistanceKind::ResistanceApprox,
            ..SimConfig::default()
        };
        let sim = SimSummary {
            tool: "privdiffuse",
            version: "9.9.9",
            config: config.clone(),
            eps_map: map(),
            values: "uniform:0,1".into(),
            graph: graph(),
            replicates: 1,
            counts: Counts::default(),
            jumps_per_path: f64::NAN,
            jumps_per_path_expected: 1.5,
            mse: Vec::new(),
            discrete: None,
        };
        let text = serde_json::to_string_pretty(&sim).unwrap();
        let back = SummaryFile::parse(Path::new("s.json"), &text).unwrap();
        assert_eq!(
            back,
            SummaryFile {
                tool: Some("privdiffuse".into()),
                command: None,
                version: Some("9.9.9".into()),
                config: echo(&config),
                eps_map: Some(map()),
                values: Some("uniform:0,1".into()),
                graph: Some(graph()),
            }
        );
        let collude = CollusionSummary {
            tool: "privdiffuse",
            command: "collude",
            version: "9.9.9",
            config: CollusionConfig {
                sim: config.clone(),
                ..CollusionConfig::default()
            },
            eps_map: map(),
            values: "auto".into(),
            graph: graph(),
            owners: 3,
            empty_coalitions: 0,
            max_chain_disagreement: None,
            laplace_bound_violations: 0,
            pooled: Vec::new(),
            audit: Vec::new(),
            discrete: None,
        };
        let text = serde_json::to_string_pretty(&collude).unwrap();
        let back = SummaryFile::parse(Path::new("c.json"), &text).unwrap();
        assert_eq!(back.command.as_deref(), Some("collude"));
        assert_eq!(back.config, echo(&config));
    }

    #[test]
    fn partial_files_read_and_bad_ones_are_named() {
        let p = Path::new("summary.json");
        let s = SummaryFile::parse(p, r#"{"config":{"dim":2},"extra":[1]}"#).unwrap();
        assert_eq!(s.config.dim, Some(2));
        assert_eq!(s.eps_map, None);
        let m = SummaryFile::parse(p, r#"{"eps_map": "#)
            .unwrap_err()
            .to_string();
        assert!(m.starts_with("summary.json:1: invalid JSON"), "{m}");
        let m = SummaryFile::parse(p, "{\n\"config\":{\"norm\":\"l3\"}}")
            .unwrap_err()
            .to_string();
        assert!(
            m.starts_with("summary.json:2: unexpected content") && m.contains("l3"),
            "{m}"
        );
    }
}

//! What a job is, in a form the peers of a cluster compare before any work
//! (feature `distributed`; issue 22 item 6): an ordered list of `(key,
//! value)` strings —
//!
//! 1. `command` (`simulate`, `collude`, `utility`, `relay`), `version` (the crate
//!    version and, built from a checkout, its git commit: `0.1.0 (git …)`)
//!    and `binary.sha256`, the running executable's content (issue 33 item
//!    14: a peer built from another commit, from a tree with uncommitted
//!    changes, or outside a checkout, where `version` alone would agree);
//! 2. the configuration as `summary.json` records it (the serde form of
//!    [`SimConfig`], [`CollusionConfig`] or [`UtilityConfig`]) flattened to
//!    dotted keys in field order (`seed`, `distance_options.approx_k`,
//!    `sim.seed` for utility, `coalitions.0`);
//! 3. every input file by content instead of path: `graph.sha256`,
//!    `nodes.sha256`, `view.sha256` (`subgraph:`), `values.sha256`
//!    (`file:`), `values.coords.sha256` (`coords`, or `auto` in 2-D: the
//!    file beside the graph, or `absent`), `coalitions.I.sha256` (`file:`).
//!
//! Options that only shape process 0's outputs are not fields of these
//! configurations (`out`, `force`, plots, `recipients`, threads, workers,
//! quiet, timings), so they are never compared. The fields that choose the
//! rows every peer computes and sends — `responses`, `path_owners`,
//! `ego_owners` — are compared: a peer without `responses` would leave its
//! chunks' answers out of process 0's `responses.csv`. So is a `file:`
//! coalition's label (its path as written): the label travels in the
//! partials into `coalition.csv`.
//!
//! Built next to the configurations, never by the engines; the cluster
//! receives the list as plain strings ([`ClusterSpec`](crate::cluster::ClusterSpec)).

mod flat;
mod hash;

use crate::collusion::coalition::Coalition;
use crate::collusion::config::CollusionConfig;
use crate::error::{Error, Result};
use crate::graph::view::GraphView;
use crate::relay::RelayConfig;
use crate::sim::config::SimConfig;
use crate::utility::UtilityConfig;
use crate::values::{ValueSpec, coords_path};
use serde::Serialize;

/// A job's fingerprint: `(key, value)` strings in a fixed order (see the
/// [module](self)). Equal jobs give equal lists; compare them with `==`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    entries: Vec<(String, String)>,
}

/// Keys replaced by other entries: a path by its file's digest.
type Replacements = Vec<(String, Vec<(String, String)>)>;

impl Fingerprint {
    /// The fingerprint of `simulate` with `config`. Reads (hashes) every
    /// input file; errors only for a path that is not a regular file or a
    /// file that fails while being read.
    pub fn simulate(config: &SimConfig) -> Result<Fingerprint> {
        Fingerprint::build("simulate", config, sim_files(config, "")?)
    }

    /// The fingerprint of `collude` with `config` (its simulation options
    /// are flattened into it, as in `summary.json`).
    pub fn collude(config: &CollusionConfig) -> Result<Fingerprint> {
        let mut files = sim_files(&config.sim, "")?;
        files.extend(coalition_files(&config.coalitions)?);
        Fingerprint::build("collude", config, files)
    }

    /// The fingerprint of `utility` with `config` (simulation options under
    /// `sim.`).
    pub fn utility(config: &UtilityConfig) -> Result<Fingerprint> {
        Fingerprint::build("utility", config, sim_files(&config.sim, "sim.")?)
    }

    /// The fingerprint of `relay` with `config`, as its `summary.json`
    /// records it (simulation options under `sim.`, the options the relay
    /// does not use normalised by [`RelayConfig::sim_config`], then
    /// `untrimmed.I`).
    pub fn relay(config: &RelayConfig) -> Result<Fingerprint> {
        let recorded = RelayConfig {
            sim: config.sim_config(),
            untrimmed: config.untrimmed.clone(),
        };
        Fingerprint::build("relay", &recorded, sim_files(&recorded.sim, "sim.")?)
    }

    /// The entries, in order.
    pub fn entries(&self) -> &[(String, String)] {
        &self.entries
    }

    /// The entries, in order, as the cluster takes them.
    pub fn into_entries(self) -> Vec<(String, String)> {
        self.entries
    }

    fn build(
        command: &str,
        config: &impl Serialize,
        mut replace: Replacements,
    ) -> Result<Fingerprint> {
        let mut entries = vec![
            ("command".to_string(), command.to_string()),
            (
                "version".to_string(),
                env!("PRIVDIFFUSE_VERSION").to_string(),
            ),
            ("binary.sha256".to_string(), hash::executable_digest()?),
        ];
        for (key, value) in flat::flatten(config)? {
            match replace.iter().position(|(k, _)| *k == key) {
                Some(i) => entries.extend(replace.swap_remove(i).1),
                None => entries.push((key, value)),
            }
        }
        // A path key that is not in the serde form: a renamed field, which
        // must not let a path (or nothing) stand for a file's content.
        if let Some((key, _)) = replace.first() {
            return Err(Error::Unsupported(format!(
                "fingerprint: the configuration has no key `{key}` to replace by its file's digest"
            )));
        }
        Ok(Fingerprint { entries })
    }
}

fn entry(key: String, value: impl Into<String>) -> (String, String) {
    (key, value.into())
}

/// The input files of the simulation options under `prefix`.
fn sim_files(c: &SimConfig, prefix: &str) -> Result<Replacements> {
    let key = |name: &str| format!("{prefix}{name}");
    let digest = |name: &str, key: String, path: &std::path::Path| -> Result<_> {
        Ok(entry(key, hash::file_digest(name, path)?))
    };
    let mut out = vec![(
        key("graph"),
        vec![digest("graph", key("graph.sha256"), &c.graph)?],
    )];
    if let Some(p) = &c.nodes {
        out.push((key("nodes"), vec![digest("nodes", key("nodes.sha256"), p)?]));
    }
    if let Some(GraphView::Subgraph(p)) = &c.view {
        out.push((
            key("view"),
            vec![
                entry(key("view"), "subgraph"),
                digest("subgraph", key("view.sha256"), p)?,
            ],
        ));
    }
    let coords = || {
        digest(
            "values",
            key("values.coords.sha256"),
            &coords_path(&c.graph),
        )
    };
    match &c.values {
        ValueSpec::File(p) => out.push((
            key("values"),
            vec![
                entry(key("values"), "file"),
                digest("values", key("values.sha256"), p)?,
            ],
        )),
        ValueSpec::Coords => out.push((
            key("values"),
            vec![entry(key("values"), "coords"), coords()?],
        )),
        // `auto` reads the coordinates beside the graph when there are some
        // and the values are 2-D: whether they exist decides the values.
        ValueSpec::Auto if c.dim == 2 => {
            out.push((key("values"), vec![entry(key("values"), "auto"), coords()?]))
        }
        _ => {}
    }
    Ok(out)
}

/// The `file:` coalitions: label kept (it travels into `coalition.csv`),
/// content added.
fn coalition_files(coalitions: &[Coalition]) -> Result<Replacements> {
    let mut out = Vec::new();
    for (i, c) in coalitions.iter().enumerate() {
        // The canonical spec of a file coalition is `file:PATH`.
        if let Some(path) = c.to_string().strip_prefix("file:") {
            let key = format!("coalitions.{i}");
            out.push((
                key.clone(),
                vec![
                    entry(key.clone(), c.label()),
                    entry(
                        format!("{key}.sha256"),
                        hash::file_digest("coalition", std::path::Path::new(path))?,
                    ),
                ],
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;

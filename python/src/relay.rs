//! `relay`: the options through the door into a `RelayConfig` (flat
//! simulation keys nested under `sim`, as `summary.json` records them), the
//! decentralised protocol run in memory (issue 26), and its files.

use crate::door;
use crate::errors::blocking;
use crate::graph::PyGraph;
use crate::tables::{Files, RunDir};
use privdiffuse::io::memory::{HeldFile, SavedFigures};
use privdiffuse::io::relay::{RelayTimings, relay_files, relay_responses_csv};
use privdiffuse::relay::{RelayByDistanceRow, RelayConfig, RelayEngine, RelayPlan};
use privdiffuse::util::table::fields;
use privdiffuse::{CancelToken, Control, Distances, Error, SimConfig};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::{Map, Value};
use std::sync::OnceLock;
use std::time::Instant;

/// What `relay` returned: its files, formatted once.
#[pyclass(module = "privdiffuse._privdiffuse", name = "RelayOutput", frozen)]
pub struct PyRelayOutput {
    files: Vec<HeldFile>,
    by_distance: Vec<RelayByDistanceRow>,
    seconds: f64,
    threads: usize,
}

crate::result_class!(PyRelayOutput {});

impl Files for PyRelayOutput {
    crate::held_files!();

    fn seconds(&self) -> f64 {
        self.seconds
    }
}

impl RunDir for PyRelayOutput {
    type Timings = RelayTimings;

    fn figures(&self) -> SavedFigures<'_> {
        SavedFigures::Relay(&self.by_distance)
    }

    fn timings(&self) -> RelayTimings {
        RelayTimings {
            threads: self.threads,
            relay_s: self.seconds,
            total_s: self.seconds,
            ..Default::default()
        }
    }
}

/// Every key of a relay configuration for Python: the simulation's, then
/// `untrimmed`.
pub fn relay_keys() -> &'static [&'static str] {
    static KEYS: OnceLock<Vec<&'static str>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut keys = fields::<SimConfig>().to_vec();
        keys.extend(fields::<RelayConfig>().iter().filter(|k| **k != "sim"));
        keys
    })
}

/// Relay options as the nested object `summary.json` records: `untrimmed`
/// at the top, a `sim` object merged, every other key under `sim`.
fn relay_given(given: Map<String, Value>) -> PyResult<Map<String, Value>> {
    let own = fields::<RelayConfig>();
    let sim_keys = fields::<SimConfig>();
    let mut top = Map::new();
    let mut sim = Map::new();
    for (k, v) in given {
        if k == "sim" {
            match v {
                Value::Object(m) => sim.extend(m),
                _ => {
                    return Err(crate::errors::param_err(
                        "sim",
                        v,
                        "a dict of simulation options",
                    ));
                }
            }
        } else if own.contains(&k.as_str()) {
            top.insert(k, v);
        } else if sim_keys.contains(&k.as_str()) {
            sim.insert(k, v);
        } else {
            let e = <serde_json::Error as serde::de::Error>::unknown_field(&k, relay_keys());
            return Err(PyTypeError::new_err(e.to_string()));
        }
    }
    if !sim.is_empty() {
        top.insert("sim".into(), Value::Object(sim));
    }
    Ok(top)
}

/// Internal: runs the decentralised protocol (see `privdiffuse.relay`):
/// `options` are the keys of `summary.json`'s `config` (the simulation's
/// flat or under `sim`, and `untrimmed`).
#[pyfunction]
#[pyo3(signature = (graph, options, threads=None))]
pub fn _relay(
    py: Python<'_>,
    graph: Option<PyRef<'_, PyGraph>>,
    options: &Bound<'_, PyDict>,
    threads: Option<usize>,
) -> PyResult<PyRelayOutput> {
    let door::Options { given, values } = door::options(options)?;
    let given = relay_given(given)?;
    let mut config: RelayConfig = door::config("relay", &RelayConfig::default(), &given)?;
    let sim_keys = match given.get("sim") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    let g = graph.map(|p| p.g.clone());
    let token = CancelToken::new();
    let t = Instant::now();
    let (files, by_distance, threads) = blocking(py, &token, threads, || {
        config.check()?;
        let (base, run) = door::run_graph(g, &mut config.sim, &sim_keys)?;
        if let Some(v) = values {
            door::set_values(v, &base, &run, &mut config.sim)?;
        }
        let sim = &config.sim;
        let distances = Distances::new(&run, sim.distance, &sim.distance_options)?;
        let plan = RelayPlan::new(&config, &run, &distances)?;
        let control = Control::new().with_cancel(token.clone());
        let stats = plan.run_local(RelayEngine::Auto, &control)?;
        let (mut files, by_distance) = relay_files(&plan, &stats)?;
        if config.sim.responses {
            files.push(relay_responses_csv(&plan, &control)?);
        }
        Ok::<_, Error>((files, by_distance, rayon::current_num_threads()))
    })?;
    Ok(PyRelayOutput {
        files,
        by_distance,
        seconds: t.elapsed().as_secs_f64(),
        threads,
    })
}

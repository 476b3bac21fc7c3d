//! `utility`: the options through the door into a `UtilityConfig` (flat
//! simulation keys nested under `sim`), the run in memory, and its files.

use crate::door;
use crate::errors::blocking;
use crate::graph::PyGraph;
use crate::tables::{Files, RunDir};
use privdiffuse::io::UtilityTimings;
use privdiffuse::io::memory::{HeldFile, SavedFigures, utility_files};
use privdiffuse::utility::{UtilityConfig, UtilityPlan, UtilityRow};
use privdiffuse::{CancelToken, Control, Distances, Error};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::{Map, Value};
use std::time::Instant;

/// What `utility` (and `gossip`, whose `utility.csv` has the same rows)
/// returned: its files (formatted once: the plan borrows the graph) and its
/// rows for the figure.
#[pyclass(module = "privdiffuse._privdiffuse", name = "UtilityOutput", frozen)]
pub struct PyUtilityOutput {
    pub(crate) files: Vec<HeldFile>,
    pub(crate) rows: Vec<UtilityRow>,
    pub(crate) seconds: f64,
    pub(crate) threads: usize,
}

crate::result_class!(PyUtilityOutput {});

impl Files for PyUtilityOutput {
    crate::held_files!();

    fn seconds(&self) -> f64 {
        self.seconds
    }
}

impl RunDir for PyUtilityOutput {
    type Timings = UtilityTimings;

    fn figures(&self) -> SavedFigures<'_> {
        SavedFigures::Utility(&self.rows)
    }

    fn timings(&self) -> UtilityTimings {
        UtilityTimings {
            threads: self.threads,
            utility_s: self.seconds,
            total_s: self.seconds,
            ..Default::default()
        }
    }
}

/// Internal: runs the network-wide utility (see `privdiffuse.utility`):
/// `options` are the keys of `summary.json`'s `config` (the simulation's
/// flat or under `sim`); `recipients` also formats `recipients.csv`.
#[pyfunction]
#[pyo3(signature = (graph, options, recipients=false, threads=None))]
pub fn _utility(
    py: Python<'_>,
    graph: Option<PyRef<'_, PyGraph>>,
    options: &Bound<'_, PyDict>,
    recipients: bool,
    threads: Option<usize>,
) -> PyResult<PyUtilityOutput> {
    let door::Options { given, values } = door::options(options)?;
    let given = door::utility_given(given)?;
    let mut config: UtilityConfig = door::config("utility", &UtilityConfig::default(), &given)?;
    let sim_keys = match given.get("sim") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    let g = graph.map(|p| p.g.clone());
    let token = CancelToken::new();
    let t = Instant::now();
    let (files, rows, threads) = blocking(py, &token, threads, || {
        config.check()?;
        let (base, run) = door::run_graph(g, &mut config.sim, &sim_keys)?;
        if let Some(v) = values {
            door::set_values(v, &base, &run, &mut config.sim)?;
        }
        let sim = &config.sim;
        let distances = Distances::new(&run, sim.distance, &sim.distance_options)?;
        let mut plan = UtilityPlan::new(&config, &run, &distances)?;
        let res = plan.run(&Control::new().with_cancel(token.clone()))?;
        let files = utility_files(&plan, &res, recipients)?;
        Ok::<_, Error>((files, res.rows, rayon::current_num_threads()))
    })?;
    Ok(PyUtilityOutput {
        files,
        rows,
        seconds: t.elapsed().as_secs_f64(),
        threads,
    })
}

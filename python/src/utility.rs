//! `utility`: the options through the door into a `UtilityConfig` (flat
//! simulation keys nested under `sim`), the run in memory, and its files.

use crate::door;
use crate::errors::blocking;
use crate::graph::PyGraph;
use crate::tables::csv_columns;
use privdiffuse::io::memory::{SavedFigures, save_files, utility_files};
use privdiffuse::io::{OutputOptions, UtilityTimings};
use privdiffuse::utility::{UtilityConfig, UtilityPlan, UtilityRow};
use privdiffuse::{CancelToken, Control, Distances, Error};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::time::Instant;

/// What `utility` (and `gossip`, whose `utility.csv` has the same rows)
/// returned: its files (formatted once: the plan borrows the graph) and its
/// rows for the figure.
#[pyclass(module = "privdiffuse._privdiffuse", name = "UtilityOutput", frozen)]
pub struct PyUtilityOutput {
    pub(crate) files: Vec<(&'static str, Vec<u8>)>,
    pub(crate) rows: Vec<UtilityRow>,
    pub(crate) seconds: f64,
    pub(crate) threads: usize,
}

impl PyUtilityOutput {
    fn file(&self, name: &str) -> PyResult<&[u8]> {
        self.files
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, b)| &b[..])
            .ok_or_else(|| {
                let names: Vec<&str> = self.files.iter().map(|(n, _)| *n).collect();
                crate::errors::param_err("file", name, &format!("one of {}", names.join(", ")))
            })
    }
}

#[pymethods]
impl PyUtilityOutput {
    /// Internal: the names of the files `_bytes` gives.
    fn _names(&self) -> Vec<&'static str> {
        self.files.iter().map(|(n, _)| *n).collect()
    }

    /// Internal: the bytes of one file of the run directory.
    fn _bytes<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, self.file(name)?))
    }

    /// Internal: the columns of one CSV file of the run directory.
    fn _table<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
        csv_columns(py, &String::from_utf8_lossy(self.file(name)?))
    }

    /// Seconds the run took.
    #[getter]
    fn seconds(&self) -> f64 {
        self.seconds
    }

    /// Internal: writes the command line's files into the new directory
    /// `dir`, all or nothing (see `UtilityResult.save`).
    #[pyo3(signature = (dir, force=false, plots=true))]
    fn _save(&self, py: Python<'_>, dir: PathBuf, force: bool, plots: bool) -> PyResult<()> {
        let token = CancelToken::new();
        blocking(py, &token, None, || {
            let files: Vec<(&str, &[u8])> = self.files.iter().map(|(n, b)| (*n, &b[..])).collect();
            let timings = UtilityTimings {
                threads: self.threads,
                utility_s: self.seconds,
                total_s: self.seconds,
                ..Default::default()
            };
            let opts = OutputOptions {
                out: dir.clone(),
                explicit_out: true,
                force,
                plots,
                control: Control::new().with_cancel(token.clone()),
            };
            save_files(&files, SavedFigures::Utility(&self.rows), &timings, &opts)
        })
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

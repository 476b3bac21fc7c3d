//! `gossip`: the options through the door into a `GossipConfig`, the run in
//! memory, and its files.

use crate::door;
use crate::errors::blocking;
use crate::graph::PyGraph;
use crate::tables::csv_columns;
use privdiffuse::gossip::{GossipConfig, GossipTimings, run_gossip};
use privdiffuse::io::OutputOptions;
use privdiffuse::io::gossip_files;
use privdiffuse::io::memory::{SavedFigures, save_files};
use privdiffuse::utility::UtilityRow;
use privdiffuse::{CancelToken, Control, Error, SimConfig};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::PathBuf;
use std::time::Instant;

/// What `gossip` returned: its files and its utility rows for the figure.
#[pyclass(module = "privdiffuse._privdiffuse", name = "GossipOutput", frozen)]
pub struct PyGossipOutput {
    files: Vec<(&'static str, Vec<u8>)>,
    rows: Vec<UtilityRow>,
    seconds: f64,
    threads: usize,
}

impl PyGossipOutput {
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
impl PyGossipOutput {
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
    /// `dir`, all or nothing.
    #[pyo3(signature = (dir, force=false, plots=true))]
    fn _save(&self, py: Python<'_>, dir: PathBuf, force: bool, plots: bool) -> PyResult<()> {
        let token = CancelToken::new();
        blocking(py, &token, None, || {
            let files: Vec<(&str, &[u8])> = self.files.iter().map(|(n, b)| (*n, &b[..])).collect();
            let timings = GossipTimings {
                threads: self.threads,
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

/// Internal: private gossip averaging beside diffusion (see
/// `privdiffuse.gossip`): `options` are the keys of `summary.json`'s
/// `config`.
#[pyfunction]
#[pyo3(signature = (graph, options, threads=None))]
pub fn _gossip(
    py: Python<'_>,
    graph: Option<PyRef<'_, PyGraph>>,
    options: &Bound<'_, PyDict>,
    threads: Option<usize>,
) -> PyResult<PyGossipOutput> {
    let door::Options { given, values } = door::options(options)?;
    let mut config: GossipConfig = door::config(&GossipConfig::default(), &given)?;
    let g = graph.map(|p| p.g.clone());
    let token = CancelToken::new();
    let t = Instant::now();
    let (files, rows, threads) = blocking(py, &token, threads, || {
        config.check()?;
        // The graph and in-memory values as every run reads them.
        let mut sim = SimConfig {
            graph: config.graph.clone(),
            nodes: config.nodes.clone(),
            view: config.view.clone(),
            dim: 1,
            ..SimConfig::default()
        };
        let (base, run) = door::run_graph(g, &mut sim, &given)?;
        if let Some(v) = values {
            door::set_values(v, &base, &run, &mut sim)?;
            config.values = sim.values.clone();
        }
        config.graph = sim.graph.clone();
        let out = run_gossip(&run, &config, &Control::new().with_cancel(token.clone()))?;
        let files = gossip_files(&out)?;
        Ok::<_, Error>((files, out.utility, rayon::current_num_threads()))
    })?;
    Ok(PyGossipOutput {
        files,
        rows,
        seconds: t.elapsed().as_secs_f64(),
        threads,
    })
}

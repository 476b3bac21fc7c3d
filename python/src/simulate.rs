//! `simulate`: the options through the door into a `SimConfig`, the run in
//! memory (typed rows), and its files formatted on demand or saved.

use crate::door;
use crate::errors::{blocking, quick};
use crate::graph::PyGraph;
use crate::tables::csv_columns;
use privdiffuse::io::memory::{SavedFigures, save_files, simulation_file, simulation_file_names};
use privdiffuse::io::{OutputOptions, RunFigures, SimTimings};
use privdiffuse::mechanism::Mechanism;
use privdiffuse::sim::Rows;
use privdiffuse::{CancelToken, Control, Graph, SimConfig, SimOutput, Simulation};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// What `simulate` returned: the in-memory output and the graph it ran on.
#[pyclass(module = "privdiffuse._privdiffuse", name = "SimOutput", frozen)]
pub struct PySimOutput {
    out: SimOutput,
    graph: Arc<Graph>,
    seconds: f64,
    threads: usize,
}

#[pymethods]
impl PySimOutput {
    /// Internal: the graph the simulation ran on.
    #[getter]
    fn _graph(&self) -> PyGraph {
        PyGraph {
            g: self.graph.clone(),
        }
    }

    /// Internal: the names of the files `_bytes` gives.
    fn _names(&self) -> Vec<&'static str> {
        simulation_file_names(&self.out)
    }

    /// Internal: the bytes of one file of the run directory.
    fn _bytes<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyBytes>> {
        let b = quick(py, || simulation_file(&self.out, &self.graph, name))?;
        Ok(PyBytes::new(py, &b))
    }

    /// Internal: the columns of one CSV file of the run directory.
    fn _table<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
        let b = quick(py, || simulation_file(&self.out, &self.graph, name))?;
        csv_columns(py, &String::from_utf8_lossy(&b))
    }

    /// Seconds the run took (distances, plan and simulation).
    #[getter]
    fn seconds(&self) -> f64 {
        self.seconds
    }

    /// Internal: writes the command line's files into `dir` atomically (see
    /// `SimulationResult.save`).
    #[pyo3(signature = (dir, force=false, plots=true))]
    fn _save(&self, py: Python<'_>, dir: PathBuf, force: bool, plots: bool) -> PyResult<()> {
        let token = CancelToken::new();
        blocking(py, &token, None, || {
            let files = simulation_file_names(&self.out)
                .into_iter()
                .map(|n| Ok((n, simulation_file(&self.out, &self.graph, n)?)))
                .collect::<privdiffuse::Result<Vec<_>>>()?;
            let files: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (*n, &b[..])).collect();
            let laplace = self
                .out
                .config()
                .mechanism
                .mechanisms()
                .contains(&Mechanism::Correlated);
            let timings = SimTimings {
                threads: self.threads,
                simulate_s: self.seconds,
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
            save_files(
                &files,
                SavedFigures::Run(RunFigures::Simulation { laplace }),
                &timings,
                &opts,
            )
        })
    }
}

/// Internal: runs a simulation (see `privdiffuse.simulate`): `options` are
/// the keys of `summary.json`'s `config`.
#[pyfunction]
#[pyo3(signature = (graph, options, threads=None))]
pub fn _simulate(
    py: Python<'_>,
    graph: Option<PyRef<'_, PyGraph>>,
    options: &Bound<'_, PyDict>,
    threads: Option<usize>,
) -> PyResult<PySimOutput> {
    let door::Options { given, values } = door::options(options)?;
    let mut config: SimConfig = door::config("simulate", &SimConfig::default(), &given)?;
    let g = graph.map(|p| p.g.clone());
    let token = CancelToken::new();
    let t = Instant::now();
    let (out, graph, threads) = blocking(py, &token, threads, || {
        let (base, run) = door::run_graph(g, &mut config, &given)?;
        if let Some(v) = values {
            door::set_values(v, &base, &run, &mut config)?;
        }
        let mut keep = vec![Rows::Jumps, Rows::Owners, Rows::Paths, Rows::Ego];
        if config.responses {
            keep.push(Rows::Responses);
        }
        let out = Simulation::with_config(&run, config)
            .keep(keep)
            .control(Control::new().with_cancel(token.clone()))
            .run()?;
        Ok((out, run, rayon::current_num_threads()))
    })?;
    Ok(PySimOutput {
        out,
        graph,
        seconds: t.elapsed().as_secs_f64(),
        threads,
    })
}

//! `simulate`: the options through the door into a `SimConfig`, the run in
//! memory (typed rows), and its files formatted on demand or saved.

use crate::door;
use crate::errors::blocking;
use crate::graph::PyGraph;
use crate::tables::{Files, RunDir};
use privdiffuse::io::memory::{
    SavedFigures, simulation_columns, simulation_file, simulation_file_names,
};
use privdiffuse::io::{RunFigures, SimTimings};
use privdiffuse::mechanism::Mechanism;
use privdiffuse::sim::Rows;
use privdiffuse::util::table::Columns;
use privdiffuse::{CancelToken, Control, Graph, SimConfig, SimOutput, Simulation};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::borrow::Cow;
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

crate::result_class!(PySimOutput {
    /// Internal: the graph the simulation ran on.
    #[getter]
    fn _graph(&self) -> PyGraph {
        PyGraph {
            g: self.graph.clone(),
        }
    }
});

impl Files for PySimOutput {
    fn names(&self) -> Vec<String> {
        let names = simulation_file_names(&self.out);
        names.into_iter().map(String::from).collect()
    }

    fn bytes(&self, name: &str) -> privdiffuse::Result<Cow<'_, [u8]>> {
        simulation_file(&self.out, &self.graph, name).map(Cow::Owned)
    }

    fn columns(&self, name: &str) -> privdiffuse::Result<Columns> {
        simulation_columns(&self.out, name)
    }

    fn seconds(&self) -> f64 {
        self.seconds
    }
}

impl RunDir for PySimOutput {
    type Timings = SimTimings;

    fn figures(&self) -> SavedFigures<'_> {
        let mechanisms = self.out.config().mechanism.mechanisms();
        let laplace = mechanisms.contains(&Mechanism::Correlated);
        SavedFigures::Run(RunFigures::Simulation { laplace })
    }

    fn timings(&self) -> SimTimings {
        SimTimings {
            threads: self.threads,
            simulate_s: self.seconds,
            total_s: self.seconds,
            ..Default::default()
        }
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

//! `collude`: the options through the door into a `CollusionConfig`, the
//! evaluation in memory, and its files formatted on demand or saved.

use crate::door;
use crate::errors::{blocking, quick};
use crate::graph::PyGraph;
use crate::tables::csv_columns;
use privdiffuse::collusion::CollusionConfig;
use privdiffuse::collusion::CollusionOutput;
use privdiffuse::io::memory::{COLLUSION_FILES, SavedFigures, collusion_file, save_files};
use privdiffuse::io::{CollusionTimings, OutputOptions, RunFigures};
use privdiffuse::{CancelToken, Collusion, Control};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::PathBuf;
use std::time::Instant;

/// What `collude` returned.
#[pyclass(module = "privdiffuse._privdiffuse", name = "CollusionOutput", frozen)]
pub struct PyCollusionOutput {
    out: CollusionOutput,
    seconds: f64,
    threads: usize,
}

#[pymethods]
impl PyCollusionOutput {
    /// Internal: the names of the files `_bytes` gives.
    fn _names(&self) -> Vec<&'static str> {
        COLLUSION_FILES.to_vec()
    }

    /// Internal: the bytes of one file of the run directory.
    fn _bytes<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyBytes>> {
        let b = quick(py, || collusion_file(&self.out, name))?;
        Ok(PyBytes::new(py, &b))
    }

    /// Internal: the columns of one CSV file of the run directory.
    fn _table<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
        let b = quick(py, || collusion_file(&self.out, name))?;
        csv_columns(py, &String::from_utf8_lossy(&b))
    }

    /// Seconds the evaluation took.
    #[getter]
    fn seconds(&self) -> f64 {
        self.seconds
    }

    /// Internal: writes the command line's files into the new directory
    /// `dir`, all or nothing (see `CollusionResult.save`).
    #[pyo3(signature = (dir, force=false, plots=true))]
    fn _save(&self, py: Python<'_>, dir: PathBuf, force: bool, plots: bool) -> PyResult<()> {
        let token = CancelToken::new();
        blocking(py, &token, None, || {
            let files = COLLUSION_FILES
                .iter()
                .map(|n| Ok((*n, collusion_file(&self.out, n)?)))
                .collect::<privdiffuse::Result<Vec<_>>>()?;
            let files: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (*n, &b[..])).collect();
            let timings = CollusionTimings {
                threads: self.threads,
                collude_s: self.seconds,
                phases: self.out.phases(),
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
                SavedFigures::Run(RunFigures::Collusion),
                &timings,
                &opts,
            )
        })
    }
}

/// Internal: runs a collusion study (see `privdiffuse.collude`): `options`
/// are the keys of `summary.json`'s `config`.
#[pyfunction]
#[pyo3(signature = (graph, options, threads=None))]
pub fn _collude(
    py: Python<'_>,
    graph: Option<PyRef<'_, PyGraph>>,
    options: &Bound<'_, PyDict>,
    threads: Option<usize>,
) -> PyResult<PyCollusionOutput> {
    let door::Options { given, values } = door::options(options)?;
    let mut config: CollusionConfig = door::config("collude", &CollusionConfig::default(), &given)?;
    let g = graph.map(|p| p.g.clone());
    let token = CancelToken::new();
    let t = Instant::now();
    let (out, threads) = blocking(py, &token, threads, || {
        config.sim.check()?;
        let (base, run) = door::run_graph(g, &mut config.sim, &given)?;
        if let Some(v) = values {
            door::set_values(v, &base, &run, &mut config.sim)?;
        }
        let out = Collusion::with_config(&run, config)
            .control(Control::new().with_cancel(token.clone()))
            .run()?;
        Ok((out, rayon::current_num_threads()))
    })?;
    Ok(PyCollusionOutput {
        out,
        seconds: t.elapsed().as_secs_f64(),
        threads,
    })
}

//! `collude`: the options through the door into a `CollusionConfig`, the
//! evaluation in memory, and its files formatted on demand or saved.

use crate::door;
use crate::errors::blocking;
use crate::graph::PyGraph;
use crate::tables::{Files, RunDir};
use privdiffuse::collusion::CollusionConfig;
use privdiffuse::collusion::CollusionOutput;
use privdiffuse::io::memory::{COLLUSION_FILES, SavedFigures, collusion_columns, collusion_file};
use privdiffuse::io::{CollusionTimings, RunFigures};
use privdiffuse::util::table::Columns;
use privdiffuse::{CancelToken, Collusion, Control};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::borrow::Cow;
use std::time::Instant;

/// What `collude` returned.
#[pyclass(module = "privdiffuse._privdiffuse", name = "CollusionOutput", frozen)]
pub struct PyCollusionOutput {
    out: CollusionOutput,
    seconds: f64,
    threads: usize,
}

crate::result_class!(PyCollusionOutput {});

impl Files for PyCollusionOutput {
    fn names(&self) -> Vec<String> {
        COLLUSION_FILES.iter().map(|n| n.to_string()).collect()
    }

    fn bytes(&self, name: &str) -> privdiffuse::Result<Cow<'_, [u8]>> {
        collusion_file(&self.out, name).map(Cow::Owned)
    }

    fn columns(&self, name: &str) -> privdiffuse::Result<Columns> {
        collusion_columns(&self.out, name)
    }

    fn seconds(&self) -> f64 {
        self.seconds
    }
}

impl RunDir for PyCollusionOutput {
    type Timings = CollusionTimings;

    fn figures(&self) -> SavedFigures<'_> {
        SavedFigures::Run(RunFigures::Collusion)
    }

    fn timings(&self) -> CollusionTimings {
        CollusionTimings {
            threads: self.threads,
            collude_s: self.seconds,
            phases: self.out.phases(),
            total_s: self.seconds,
            ..Default::default()
        }
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

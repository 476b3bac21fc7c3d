//! `evolve` and `Store`: an evolving release through the door (kwargs →
//! JSON → serde into [`EvolveConfig`]), and a release store read or
//! answered from Python (issue 24 item 6). Tables are the rows of the CSV
//! text the command line writes (`timeline.csv`, `privdiffuse answers`), as
//! columns.

use crate::door;
use crate::errors::{blocking, quick, to_py};
use crate::tables::columns_dict;
use numpy::IntoPyArray;
use privdiffuse::evolve::EvolveConfig;
use privdiffuse::io::OutputOptions;
use privdiffuse::io::evolve::{evolve_to_dir, timeline_columns, timeline_csv};
use privdiffuse::store::{AnswerFilter, Store};
use privdiffuse::{CancelToken, Control, Error};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::Mutex;

/// Internal: runs (or with `resume`, continues) an evolving release; writes
/// the command line's `DIR` files into `out` when given. Returns
/// `(timeline columns, summary numbers, timeline.csv's text)` (the text:
/// `plot` draws the figure from it, as from the file).
#[pyfunction]
#[pyo3(signature = (options, out=None, plots=true, threads=None, force=false))]
pub fn _evolve<'py>(
    py: Python<'py>,
    options: &Bound<'py, PyDict>,
    out: Option<PathBuf>,
    plots: bool,
    threads: Option<usize>,
    force: bool,
) -> PyResult<(Bound<'py, PyDict>, String, String)> {
    let door::Options { given, values } = door::options(options)?;
    if values.is_some() {
        return Err(crate::errors::param_err(
            "values",
            "an array or a dict",
            "a spec string or a path (evolve draws values on START and nodes)",
        ));
    }
    let config: EvolveConfig = door::config("evolve", &EvolveConfig::default(), &given)?;
    let token = CancelToken::new();
    let (csv, cols, summary) = blocking(py, &token, threads, || {
        let control = Control::new().with_cancel(token.clone());
        // With `out`, the command line's directory and its rules (claimed
        // for the run; refused when it holds files unless `force` or the
        // store exists).
        let run = match out {
            Some(out) => {
                let opts = OutputOptions {
                    out,
                    explicit_out: true,
                    force,
                    plots,
                    control,
                };
                evolve_to_dir(&config, false, &opts)?
            }
            None => config.evolve().control(control).run()?,
        };
        let summary = serde_json::json!({
            "config": run.config,
            "batches": run.batches,
            "started_at": run.started_at,
            "implied": run.implied,
            "explicit": run.explicit,
            "store_bytes": run.store_bytes,
        });
        let cols = timeline_columns(&run.timeline)?;
        Ok((timeline_csv(&run.timeline)?, cols, summary.to_string()))
    })?;
    let text = String::from_utf8_lossy(&csv).into_owned();
    Ok((columns_dict(py, cols.into_vec())?, summary, text))
}

/// A release store (see `privdiffuse.Store`).
#[pyclass(module = "privdiffuse._privdiffuse", name = "Store", frozen)]
pub struct PyStore {
    store: Mutex<Option<Store>>,
}

impl PyStore {
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut Store) -> privdiffuse::Result<T> + Send,
    ) -> PyResult<T> {
        quick(py, || {
            let mut s = self
                .store
                .lock()
                .map_err(|_| Error::Unsupported("the store's handle was poisoned".into()))?;
            match s.as_mut() {
                Some(s) => f(s),
                None => Err(Error::Unsupported("the store was closed".into())),
            }
        })
    }
}

#[pymethods]
impl PyStore {
    /// Opens `path`: for reading (beside a writer), or with `write` as the
    /// writer (holds the store's lock; `answer` may release).
    #[new]
    #[pyo3(signature = (path, write=false))]
    fn new(py: Python<'_>, path: PathBuf, write: bool) -> PyResult<PyStore> {
        let store = quick(py, || {
            if write {
                Store::open_writer(&path)
            } else {
                Store::open(&path)
            }
        })?;
        Ok(PyStore {
            store: Mutex::new(Some(store)),
        })
    }

    /// The store's file.
    #[getter]
    fn path(&self, py: Python<'_>) -> PyResult<PathBuf> {
        self.with(py, |s| Ok(s.path().to_path_buf()))
    }

    /// Whether this handle is the writer.
    #[getter]
    fn writer(&self, py: Python<'_>) -> PyResult<bool> {
        self.with(py, |s| Ok(s.is_writer()))
    }

    /// The last committed batch.
    #[getter]
    fn last_batch(&self, py: Python<'_>) -> PyResult<Option<u64>> {
        self.with(py, |s| s.last_batch())
    }

    /// Internal: the stored configuration as JSON.
    fn _config(&self, py: Python<'_>) -> PyResult<String> {
        self.with(py, |s| {
            serde_json::to_string(s.config()?)
                .map_err(|e| Error::Numerical(format!("the store's configuration: {e}")))
        })
    }

    /// Internal: `(batch, distance, eps, y, released)` of `Store::answer`.
    #[allow(clippy::type_complexity)]
    fn _answer<'py>(
        &self,
        py: Python<'py>,
        owner: String,
        recipient: String,
    ) -> PyResult<(u64, f64, f64, Bound<'py, PyAny>, bool)> {
        let a = self.with(py, |s| s.answer(&owner, &recipient))?;
        Ok((
            a.batch,
            a.distance,
            a.eps,
            a.y.into_pyarray(py).into_any(),
            a.released,
        ))
    }

    /// Internal: the text of `privdiffuse answers` with these filters.
    #[pyo3(signature = (owner=None, recipient=None))]
    fn _answers_csv(
        &self,
        py: Python<'_>,
        owner: Option<String>,
        recipient: Option<String>,
    ) -> PyResult<Vec<u8>> {
        self.with(py, |s| {
            let mut out = Vec::new();
            s.write_answers(&AnswerFilter { owner, recipient }, &mut out)?;
            Ok(out)
        })
    }

    /// Internal: the columns of [`PyStore::_answers_csv`].
    #[pyo3(signature = (owner=None, recipient=None))]
    fn _answers<'py>(
        &self,
        py: Python<'py>,
        owner: Option<String>,
        recipient: Option<String>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let filter = AnswerFilter { owner, recipient };
        let cols = self.with(py, |s| s.answer_columns(&filter))?;
        columns_dict(py, cols.into_vec())
    }

    /// Internal: the text of `timeline.csv` from the committed timeline.
    fn _timeline_csv(&self, py: Python<'_>) -> PyResult<Vec<u8>> {
        self.with(py, |s| timeline_csv(&s.timeline()?))
    }

    /// Internal: the columns of `timeline.csv`.
    fn _timeline<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let cols = self.with(py, |s| timeline_columns(&s.timeline()?))?;
        columns_dict(py, cols.into_vec())
    }

    /// Closes the store (a writer's lock is released); later calls fail.
    fn close(&self) -> PyResult<()> {
        let mut s = self
            .store
            .lock()
            .map_err(|_| to_py(Error::Unsupported("the store's handle was poisoned".into())))?;
        *s = None;
        Ok(())
    }
}

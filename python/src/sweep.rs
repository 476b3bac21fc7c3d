//! `sweep`: `base` and `grid` dicts become the `[base]`/`[grid]` tables of a
//! sweep file (read by the same `Grid::from_toml_str`), run by the library's
//! sweep into a directory owned by the call, whose files are kept in memory.

use crate::door::to_json;
use crate::errors::{blocking, param_err, to_py};
use crate::tables::{Files, Save};
use privdiffuse::io::memory::HeldFile;
use privdiffuse::io::sweep::{SWEEP_FILES, run_sweep_held};
use privdiffuse::io::{SweepOptions, side_file};
use privdiffuse::util::{AtomicFile, Existing};
use privdiffuse::{CancelToken, Control, Error, Grid};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::io::Write;
use std::path::Path;

/// What `sweep` returned: its files ([`SWEEP_FILES`], with their typed
/// rows) and what it did.
#[pyclass(module = "privdiffuse._privdiffuse", name = "SweepOutput", frozen)]
pub struct PySweepOutput {
    files: Vec<HeldFile>,
    /// Points in the grid.
    #[pyo3(get)]
    points: usize,
    /// Graphs loaded.
    #[pyo3(get)]
    graphs_loaded: usize,
    /// Wall seconds.
    seconds: f64,
}

crate::result_class!(PySweepOutput {});

impl Files for PySweepOutput {
    crate::held_files!();

    fn seconds(&self) -> f64 {
        self.seconds
    }
}

impl Save for PySweepOutput {
    /// Writes the CSV to `path` and its side files beside it
    /// (`STEM.summary.csv`, `STEM.timings.csv`), each atomically; refused
    /// if any exists, unless `force` (no figures: `plots` is ignored).
    fn save(&self, path: &Path, force: bool, _: bool, _: Control) -> privdiffuse::Result<()> {
        let targets = [
            path.to_path_buf(),
            side_file(path, "summary.csv"),
            side_file(path, "timings.csv"),
        ];
        let existing = Existing::for_out(true, force);
        for t in &targets {
            privdiffuse::util::atomic::check_new(t, existing)?;
        }
        for (t, file) in targets.iter().zip(&self.files) {
            let mut f = AtomicFile::create_with(t, existing)?;
            f.write_all(&file.bytes).map_err(|e| Error::io(t, e))?;
            f.commit()?;
        }
        Ok(())
    }
}

/// A `[base]` or `[grid]` dict as a TOML table, in the dict's order (the
/// first grid key is the outermost axis).
fn table(obj: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<toml::Table> {
    let mut t = toml::Table::new();
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(t);
    };
    let d = obj
        .cast::<PyDict>()
        .map_err(|_| PyTypeError::new_err(format!("{name}: expected a dict of options")))?;
    for (k, v) in d.iter() {
        let key: String = k.extract()?;
        let json = to_json(&v, &key)?;
        let value = toml::Value::try_from(&json).map_err(|e| {
            param_err(
                &key,
                &json,
                &format!("a string, number, boolean or list ({e})"),
            )
        })?;
        t.insert(key, value);
    }
    Ok(t)
}

/// Internal: runs a sweep (see `privdiffuse.sweep`): `base` fixed options
/// and `grid` lists, the keys of a sweep file's `[base]` and `[grid]`.
#[pyfunction]
#[pyo3(signature = (base=None, grid=None, threads=None))]
pub fn _sweep(
    py: Python<'_>,
    base: Option<&Bound<'_, PyAny>>,
    grid: Option<&Bound<'_, PyAny>>,
    threads: Option<usize>,
) -> PyResult<PySweepOutput> {
    let mut doc = toml::Table::new();
    let b = table(base, "base")?;
    let g = table(grid, "grid")?;
    if !b.is_empty() {
        doc.insert("base".into(), toml::Value::Table(b));
    }
    if !g.is_empty() {
        doc.insert("grid".into(), toml::Value::Table(g));
    }
    let text = toml::to_string(&doc).map_err(|e| param_err("grid", e, "a sweep file's tables"))?;
    let grid = Grid::from_toml_str(&text).map_err(to_py)?;
    let token = CancelToken::new();
    blocking(py, &token, threads, || {
        let dir = tempfile::tempdir().map_err(|e| Error::io(std::env::temp_dir(), e))?;
        let mut opts = SweepOptions::new(dir.path().join(SWEEP_FILES[0]));
        opts.control = Control::new().with_cancel(token.clone());
        let (report, files) = run_sweep_held(&grid, &opts)?;
        Ok(PySweepOutput {
            files,
            points: report.points,
            graphs_loaded: report.graphs_loaded,
            seconds: report.seconds,
        })
    })
}

//! What the five result classes (`SimOutput`, `CollusionOutput`,
//! `UtilityOutput`, `RelayOutput`, `SweepOutput`) share, written once: a
//! run's files by name ([`Files`]), their bytes, their tables as columns
//! (name → numpy int64 / float64 array or list of str, the types
//! `pandas.read_csv` gives the file; the Python package makes a DataFrame
//! of them when pandas is importable) and how they are saved. The
//! [`result_class!`](crate::result_class) macro gives a class these
//! methods.

use crate::errors::{blocking, quick};
use numpy::IntoPyArray;
use privdiffuse::io::OutputOptions;
use privdiffuse::io::memory::{HeldFile, SavedFigures, save_files};
use privdiffuse::util::table::{Column, Columns};
use privdiffuse::{CancelToken, Control};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use serde::Serialize;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// A run's files, as a result class holds them.
pub trait Files: Sync {
    /// The files' names, in the order the command writes them.
    fn names(&self) -> Vec<String>;
    /// The bytes of file `name` (an unknown name refused naming the others).
    fn bytes(&self, name: &str) -> privdiffuse::Result<Cow<'_, [u8]>>;
    /// The columns of table `name` from its typed rows (a file that is not
    /// a table refused).
    fn columns(&self, name: &str) -> privdiffuse::Result<Columns>;
    /// Seconds the run took.
    fn seconds(&self) -> f64;
}

/// How a result is saved as the command line writes it.
pub trait Save {
    /// Writes the files into `dir` (a run directory; a sweep's CSV path),
    /// refused if it exists unless `force`.
    fn save(
        &self,
        dir: &Path,
        force: bool,
        plots: bool,
        control: Control,
    ) -> privdiffuse::Result<()>;
}

/// A result saved as a run directory: every file of [`Files`], then what
/// differs between commands, the figures and `timings.json`.
pub trait RunDir: Files {
    /// The content of `timings.json`.
    type Timings: Serialize;
    /// The figures drawn from the saved files.
    fn figures(&self) -> SavedFigures<'_>;
    /// `timings.json` (the run's seconds as its command's and total time).
    fn timings(&self) -> Self::Timings;
}

impl<T: RunDir> Save for T {
    fn save(
        &self,
        dir: &Path,
        force: bool,
        plots: bool,
        control: Control,
    ) -> privdiffuse::Result<()> {
        let names = self.names();
        let files = names
            .iter()
            .map(|n| Ok((n.as_str(), self.bytes(n)?)))
            .collect::<privdiffuse::Result<Vec<_>>>()?;
        let files: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (*n, &b[..])).collect();
        let opts = OutputOptions {
            out: dir.to_path_buf(),
            explicit_out: true,
            force,
            plots,
            control,
        };
        save_files(&files, self.figures(), &self.timings(), &opts)
    }
}

/// The bytes of file `name` of `files`.
pub fn bytes<'py>(
    py: Python<'py>,
    files: &impl Files,
    name: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let b = quick(py, || files.bytes(name).map(Cow::into_owned))?;
    Ok(PyBytes::new(py, &b))
}

/// The columns of table `name` of `files`.
pub fn table<'py>(py: Python<'py>, files: &impl Files, name: &str) -> PyResult<Bound<'py, PyDict>> {
    let cols = quick(py, || files.columns(name))?;
    columns_dict(py, cols.into_vec())
}

/// Writes `files` (see [`Save::save`]), the GIL released, Ctrl-C honoured.
pub fn save(
    py: Python<'_>,
    files: &(impl Save + Sync),
    dir: PathBuf,
    force: bool,
    plots: bool,
) -> PyResult<()> {
    let token = CancelToken::new();
    blocking(py, &token, None, || {
        files.save(
            &dir,
            force,
            plots,
            Control::new().with_cancel(token.clone()),
        )
    })
}

/// The file `name` among `files`, or an error naming them.
pub fn held<'a>(files: &'a [HeldFile], name: &str) -> privdiffuse::Result<&'a HeldFile> {
    files.iter().find(|f| f.name == name).ok_or_else(|| {
        let names: Vec<&str> = files.iter().map(|f| f.name).collect();
        privdiffuse::Error::param("file", name, format!("one of {}", names.join(", ")))
    })
}

/// The columns of table `name` among `files` (a file without typed rows,
/// `summary.json`, refused).
pub fn held_columns(files: &[HeldFile], name: &str) -> privdiffuse::Result<Columns> {
    held(files, name)?.columns().unwrap_or_else(|| {
        Err(privdiffuse::Error::param(
            "file",
            name,
            "a table of this result (a .csv file)",
        ))
    })
}

/// The [`Files`] of a list of [`HeldFile`]s, but `seconds`.
#[macro_export]
macro_rules! held_files {
    () => {
        fn names(&self) -> Vec<String> {
            self.files.iter().map(|f| f.name.to_string()).collect()
        }
        fn bytes(&self, name: &str) -> privdiffuse::Result<std::borrow::Cow<'_, [u8]>> {
            Ok(std::borrow::Cow::Borrowed(
                &$crate::tables::held(&self.files, name)?.bytes,
            ))
        }
        fn columns(&self, name: &str) -> privdiffuse::Result<privdiffuse::util::table::Columns> {
            $crate::tables::held_columns(&self.files, name)
        }
    };
}

/// A result class's shared methods (`_names`, `_bytes`, `_table`,
/// `seconds`, `_save`) from its [`Files`], then `$extra` methods.
#[macro_export]
macro_rules! result_class {
    ($ty:ty { $($extra:tt)* }) => {
        #[pymethods]
        impl $ty {
            /// Internal: the names of the files `_bytes` gives.
            fn _names(&self) -> Vec<String> {
                $crate::tables::Files::names(self)
            }

            /// Internal: the bytes of one file.
            fn _bytes<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
                $crate::tables::bytes(py, self, name)
            }

            /// Internal: the columns of one CSV file.
            fn _table<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
                $crate::tables::table(py, self, name)
            }

            /// Seconds the run took.
            #[getter]
            fn seconds(&self) -> f64 {
                $crate::tables::Files::seconds(self)
            }

            /// Internal: writes the command line's files (see the
            /// Python class's `save`).
            #[pyo3(signature = (dir, force=false, plots=true))]
            fn _save(&self, py: Python<'_>, dir: std::path::PathBuf, force: bool, plots: bool) -> PyResult<()> {
                $crate::tables::save(py, self, dir, force, plots)
            }

            $($extra)*
        }
    };
}

/// Columns as a dict: name → numpy int64 / float64 array, or for text a
/// numpy bool array (every cell `true`/`false`, as `bool` is written) or a
/// list of str with NaN for an empty cell; no rows, empty object arrays (as
/// `pandas.read_csv` reads them).
pub fn columns_dict<'py>(
    py: Python<'py>,
    cols: Vec<(String, Column)>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (name, col) in cols {
        if column_len(&col) == 0 {
            // No rows: an untyped (object) column, as pandas reads a header alone.
            dict.set_item(name, Vec::<Py<PyAny>>::new().into_pyarray(py))?;
            continue;
        }
        match col {
            Column::Int(v) => dict.set_item(name, v.into_pyarray(py))?,
            Column::Float(v) => dict.set_item(name, v.into_pyarray(py))?,
            Column::Text(v) => dict.set_item(name, text_column(py, v)?)?,
        }
    }
    Ok(dict)
}

fn column_len(col: &Column) -> usize {
    match col {
        Column::Int(v) => v.len(),
        Column::Float(v) => v.len(),
        Column::Text(v) => v.len(),
    }
}

/// A text column as `pandas.read_csv` types it: bool when every cell is a
/// boolean, else str with NaN for an empty cell.
fn text_column(py: Python<'_>, v: Vec<String>) -> PyResult<Bound<'_, PyAny>> {
    let truth = |s: &String| match s.as_str() {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    };
    if let Some(b) = v.iter().map(truth).collect::<Option<Vec<bool>>>() {
        return Ok(b.into_pyarray(py).into_any());
    }
    let cells = v.into_iter().map(|s| -> PyResult<Bound<'_, PyAny>> {
        if s.is_empty() {
            Ok(f64::NAN.into_pyobject(py)?.into_any())
        } else {
            Ok(s.into_pyobject(py)?.into_any())
        }
    });
    let cells = cells.collect::<PyResult<Vec<_>>>()?;
    Ok(PyList::new(py, cells)?.into_any())
}

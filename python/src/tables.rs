//! A CSV file's text as columns: name → numpy array or list of str, the
//! types `pandas.read_csv` would infer (the Python package makes a DataFrame
//! of them when pandas is importable).

use numpy::IntoPyArray;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// Columns of a CSV text: name → numpy int64 / float64 array or list of str
/// (the types `pandas.read_csv` would infer: an all-integer column is int64,
/// an all-numeric one float64 with `inf`/`NaN`, anything else text).
pub fn csv_columns<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyDict>> {
    let mut rd = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let header: Vec<String> = rd
        .headers()
        .map_err(|e| PyValueError::new_err(e.to_string()))?
        .iter()
        .map(String::from)
        .collect();
    let mut cols: Vec<Vec<String>> = vec![Vec::new(); header.len()];
    for rec in rd.records() {
        let rec = rec.map_err(|e| PyValueError::new_err(e.to_string()))?;
        for (c, f) in cols.iter_mut().zip(rec.iter()) {
            c.push(f.to_string());
        }
    }
    let dict = PyDict::new(py);
    for (name, col) in header.iter().zip(cols) {
        if let Some(v) = col
            .iter()
            .map(|s| s.parse::<i64>().ok())
            .collect::<Option<Vec<i64>>>()
        {
            dict.set_item(name, v.into_pyarray(py))?;
        } else if let Some(v) = col
            .iter()
            .map(|s| {
                if s.is_empty() {
                    Some(f64::NAN)
                } else {
                    s.parse::<f64>().ok()
                }
            })
            .collect::<Option<Vec<f64>>>()
        {
            dict.set_item(name, v.into_pyarray(py))?;
        } else {
            dict.set_item(name, PyList::new(py, col)?)?;
        }
    }
    Ok(dict)
}

//! `EpsilonMap`: the privacy map ε(d), from its spec or its constructors,
//! evaluated on numbers and numpy arrays.

use crate::errors::{param_err, parse, to_py};
use numpy::{IntoPyArray, PyArray1, PyArrayMethods, PyReadonlyArray1};
use privdiffuse::EpsilonMap;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A privacy map ε(d), non-increasing in the distance d.
#[pyclass(module = "privdiffuse._privdiffuse", name = "EpsilonMap", frozen)]
#[derive(Clone)]
pub struct PyEpsilonMap {
    pub map: EpsilonMap,
}

#[pymethods]
impl PyEpsilonMap {
    /// EpsilonMap(spec): parses the command line's spec (`exp:a=3,b=1`,
    /// `recip:c=2`, `power:c=4,p=1.5`, `table:1=4,2=2;beyond=0.5`,
    /// `range:0.5..15`, with optional `;min=`/`;max=` clamps).
    #[new]
    fn new(spec: &str) -> PyResult<Self> {
        Ok(PyEpsilonMap { map: parse(spec)? })
    }

    /// EpsilonMap.exp(a, b): ε(d) = e^(a − b·d).
    #[staticmethod]
    fn exp(a: f64, b: f64) -> PyResult<Self> {
        Ok(PyEpsilonMap {
            map: EpsilonMap::exp(a, b).map_err(to_py)?,
        })
    }

    /// EpsilonMap.recip(c): ε(d) = c / d.
    #[staticmethod]
    fn recip(c: f64) -> PyResult<Self> {
        Ok(PyEpsilonMap {
            map: EpsilonMap::recip(c).map_err(to_py)?,
        })
    }

    /// EpsilonMap.power(c, p): ε(d) = c / d^p.
    #[staticmethod]
    fn power(c: f64, p: f64) -> PyResult<Self> {
        Ok(PyEpsilonMap {
            map: EpsilonMap::power(c, p).map_err(to_py)?,
        })
    }

    /// EpsilonMap.table(entries, beyond=None): ε at listed distances
    /// (`{d: eps}` or pairs), `beyond` past the last one.
    #[staticmethod]
    #[pyo3(signature = (entries, beyond=None))]
    fn table(entries: &Bound<'_, PyAny>, beyond: Option<f64>) -> PyResult<Self> {
        let pairs: Vec<(f64, f64)> = if let Ok(d) = entries.cast::<PyDict>() {
            d.iter()
                .map(|(k, v)| Ok((k.extract()?, v.extract()?)))
                .collect::<PyResult<_>>()?
        } else {
            entries.extract()?
        };
        Ok(PyEpsilonMap {
            map: EpsilonMap::table(&pairs, beyond).map_err(to_py)?,
        })
    }

    /// EpsilonMap.range(lo, hi): exponential from `hi` at the smallest
    /// observed distance to `lo` at the largest (resolved by a run).
    #[staticmethod]
    fn range(lo: f64, hi: f64) -> PyResult<Self> {
        Ok(PyEpsilonMap {
            map: EpsilonMap::range(lo, hi).map_err(to_py)?,
        })
    }

    /// with_clamp(eps_min=None, eps_max=None) -> EpsilonMap: ε clamped into [eps_min, eps_max].
    #[pyo3(signature = (eps_min=None, eps_max=None))]
    fn with_clamp(&self, eps_min: Option<f64>, eps_max: Option<f64>) -> PyResult<Self> {
        Ok(PyEpsilonMap {
            map: self
                .map
                .clone()
                .with_clamp(eps_min, eps_max)
                .map_err(to_py)?,
        })
    }

    /// resolve(d_min, d_max) -> EpsilonMap: a `range` map fixed for these distances.
    fn resolve(&self, d_min: f64, d_max: f64) -> PyResult<Self> {
        Ok(PyEpsilonMap {
            map: self.map.resolve(d_min, d_max).map_err(to_py)?,
        })
    }

    /// The canonical spec string.
    #[getter]
    fn spec(&self) -> String {
        self.map.spec()
    }

    /// map(d) -> float or numpy array: ε at a distance or at each distance
    /// of an array (any shape; `inf` for d = 0 under `recip`/`power`).
    fn __call__<'py>(&self, py: Python<'py>, d: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        if self.map.needs_resolution() {
            return Err(param_err(
                "eps",
                self.map.spec(),
                "a map fixed by distances: call resolve(d_min, d_max) on a range map first",
            ));
        }
        if let Ok(x) = d.extract::<f64>() {
            return Ok(pyo3::types::PyFloat::new(py, self.map.eps(x)).into_any());
        }
        let (flat, shape) = as_f64_array(py, d, "d")?;
        let v: Vec<f64> = py.detach(|| flat.iter().map(|&x| self.map.eps(x)).collect());
        Ok(v.into_pyarray(py).reshape(shape)?.into_any())
    }

    /// Internal: ε at each distance.
    fn _eps<'py>(
        &self,
        py: Python<'py>,
        d: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        if self.map.needs_resolution() {
            return Err(param_err(
                "eps",
                self.map.spec(),
                "a map fixed by distances: call resolve(d_min, d_max) on a range map first",
            ));
        }
        let d = d.as_slice()?;
        let v: Vec<f64> = py.detach(|| d.iter().map(|&x| self.map.eps(x)).collect());
        Ok(v.into_pyarray(py))
    }

    /// Internal: the distance at which ε(d) equals each level.
    fn _distance_at<'py>(
        &self,
        py: Python<'py>,
        eps: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let e = eps.as_slice()?;
        let v: Vec<f64> = e.iter().map(|&x| self.map.distance_at(x)).collect();
        Ok(v.into_pyarray(py))
    }

    fn __repr__(&self) -> String {
        format!("EpsilonMap('{}')", self.map.spec())
    }

    fn __str__(&self) -> String {
        self.map.spec()
    }

    fn __eq__(&self, other: &Self) -> bool {
        self.map.spec() == other.map.spec()
    }
}

/// `x` as a flat float64 vector and its shape (via `numpy.asarray`).
pub fn as_f64_array(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    name: &str,
) -> PyResult<(Vec<f64>, Vec<usize>)> {
    let np = py.import("numpy")?;
    let arr = np.call_method1("asarray", (x, "float64")).map_err(|e| {
        PyTypeError::new_err(format!(
            "{name}: expected numbers or an array of numbers ({e})"
        ))
    })?;
    let arr = np.call_method1("ascontiguousarray", (arr,))?;
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    let flat = arr.call_method1("reshape", (-1,))?;
    let flat: PyReadonlyArray1<'_, f64> = flat.extract()?;
    Ok((flat.as_slice()?.to_vec(), shape))
}

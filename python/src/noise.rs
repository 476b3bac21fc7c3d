//! Noise paths (`NoisePath`, `sample_paths`) and the gradual release of one
//! secret (`GradualRelease`).

use crate::epsilon::as_f64_array;
use crate::errors::{blocking, param_err, parse, to_py};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods};
use privdiffuse::process::discrete::{Grid, NoiseKind, NoiseOptions, RngSource};
use privdiffuse::process::release::{ReleaseNoise, refuse_discrete_options};
use privdiffuse::util::Existing;
use privdiffuse::{
    CancelToken, Error, GradualRelease, NoisePath, Norm, PathSampler, Purpose, rng_for,
};
use pyo3::prelude::*;
use rayon::prelude::*;
use std::path::PathBuf;

/// One sample path of the lazy Laplace process: piecewise constant in ε,
/// `values[i]` holds for levels in [levels[i], levels[i+1]).
#[pyclass(module = "privdiffuse._privdiffuse", name = "NoisePath", frozen)]
pub struct PyNoisePath {
    pub path: NoisePath,
}

#[pymethods]
impl PyNoisePath {
    /// Breakpoint levels, ascending: numpy array (n_breaks,).
    #[getter]
    fn levels<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.path.levels().to_vec().into_pyarray(py)
    }

    /// Values at the breakpoints: numpy array (n_breaks, dim).
    #[getter]
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let k = self.path.len();
        Ok(self
            .path
            .values()
            .to_vec()
            .into_pyarray(py)
            .reshape([k, self.path.dim()])?)
    }

    /// Dimension of the noise.
    #[getter]
    fn dim(&self) -> usize {
        self.path.dim()
    }

    /// Lowest level sampled.
    #[getter]
    fn eps_lo(&self) -> f64 {
        self.path.eps_lo()
    }

    /// Highest level sampled.
    #[getter]
    fn eps_hi(&self) -> f64 {
        self.path.eps_hi()
    }

    /// Number of jumps (breakpoints after the first).
    #[getter]
    fn n_jumps(&self) -> usize {
        self.path.num_jumps()
    }

    /// at(eps) -> numpy array: V at a level, shape (dim,), or at each level
    /// of a 1-D array, shape (len(eps), dim). Levels must lie inside
    /// [eps_lo, eps_hi] (ValueError otherwise).
    fn at<'py>(&self, py: Python<'py>, eps: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        if let Ok(x) = eps.extract::<f64>() {
            let one = self._at_slice(py, &[x])?;
            return Ok(one.reshape([self.path.dim()])?.into_any());
        }
        let (flat, shape) = as_f64_array(py, eps, "eps")?;
        if shape.len() != 1 {
            return Err(param_err(
                "eps",
                format!("an array of shape {shape:?}"),
                "a level or a 1-D array of levels",
            ));
        }
        Ok(self._at_slice(py, &flat)?.into_any())
    }

    fn __len__(&self) -> usize {
        self.path.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "NoisePath(dim={}, eps_lo={}, eps_hi={}, n_breaks={})",
            self.path.dim(),
            self.path.eps_lo(),
            self.path.eps_hi(),
            self.path.len()
        )
    }
}

impl PyNoisePath {
    fn _at_slice<'py>(&self, py: Python<'py>, e: &[f64]) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (lo, hi) = (self.path.eps_lo(), self.path.eps_hi());
        if let Some(x) = e.iter().find(|&&x| !(x >= lo && x <= hi)) {
            return Err(param_err(
                "eps",
                x,
                &format!("levels inside the sampled range [{lo}, {hi}]"),
            ));
        }
        let dim = self.path.dim();
        let out: Vec<f64> = py.detach(|| {
            let mut out = vec![0.0; e.len() * dim];
            out.par_chunks_mut(dim * 4096)
                .zip(e.par_chunks(4096))
                .for_each(|(o, e)| {
                    for (k, &x) in e.iter().enumerate() {
                        o[k * dim..(k + 1) * dim].copy_from_slice(self.path.value_at(x));
                    }
                });
            out
        });
        Ok(out.into_pyarray(py).reshape([e.len(), dim])?)
    }
}

/// sample_paths(k, dim, norm, (eps_lo, eps_hi), seed, threads=None) -> list[NoisePath]
///
/// Path i is drawn from `rng_for(seed, i, 0, Purpose::Path)`, the generator
/// of owner i in a simulation.
#[pyfunction]
#[pyo3(signature = (k, dim, norm, range, seed, threads=None))]
pub fn _sample_paths(
    py: Python<'_>,
    k: usize,
    dim: usize,
    norm: &str,
    range: (f64, f64),
    seed: u64,
    threads: Option<usize>,
) -> PyResult<Vec<Py<PyNoisePath>>> {
    let (eps_lo, eps_hi) = range;
    let norm: Norm = parse(norm)?;
    let sampler = PathSampler::new(dim, norm, eps_lo, eps_hi).map_err(to_py)?;
    // Each path holds about (expected jumps + 1)·(dim + 1) numbers.
    let per = (sampler.expected_jumps() + 2.0) * (dim as f64 + 1.0) * 8.0 + 64.0;
    privdiffuse::limits::check_memory("k", k, (per * k as f64) as u64).map_err(to_py)?;
    let token = CancelToken::new();
    let paths = blocking(py, &token, threads, || {
        (0..k as u64)
            .into_par_iter()
            .map(|i| {
                if i % 4096 == 0 && token.is_cancelled() {
                    return Err(Error::Cancelled);
                }
                let mut rng = rng_for(seed, i, 0, Purpose::Path);
                Ok(sampler.sample(&mut rng))
            })
            .collect::<privdiffuse::Result<Vec<NoisePath>>>()
    })?;
    paths
        .into_iter()
        .map(|path| Py::new(py, PyNoisePath { path }))
        .collect()
}

/// One secret released at privacy levels in any order: each answer is the
/// value plus the noise path read at that level (`privdiffuse relax`).
#[pyclass(module = "privdiffuse._privdiffuse", name = "GradualRelease")]
pub struct PyGradualRelease {
    r: GradualRelease,
    /// Built from a number (a 1-D value): releases are numbers too.
    scalar: bool,
}

/// The grid of `granularity=` (a number or text such as "2^-10"; the
/// default when `None`).
fn grid_of(granularity: Option<&Bound<'_, PyAny>>) -> PyResult<Grid> {
    Ok(match granularity {
        None => Grid::default(),
        Some(g) => match g.extract::<f64>() {
            Ok(x) => Grid::from_value(x).map_err(to_py)?,
            Err(_) => parse::<Grid>(&g.extract::<String>()?)?,
        },
    })
}

/// The secret as the library takes it, and whether it was given as a number
/// (`GradualRelease(0.3)`, a 1-D value) rather than a sequence.
fn secret(value: &Bound<'_, PyAny>) -> PyResult<(Vec<f64>, bool)> {
    let is_sequence = value.hasattr("__len__")?;
    if !is_sequence && let Ok(x) = value.extract::<f64>() {
        return Ok((vec![x], true));
    }
    match value.extract::<Vec<f64>>() {
        Ok(v) => Ok((v, false)),
        // The value is the secret: the message names its type, never its content.
        Err(_) => Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "value: expected a number (a 1-D value) or a sequence of numbers, found {}",
            value
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))),
    }
}

#[pymethods]
impl PyGradualRelease {
    /// GradualRelease(value, mechanism=None, sensitivity=1.0, seed=0, delta=None,
    /// granularity=None, levels_per_doubling=None, eps_max=None, rng=None, *,
    /// noise=None, norm=None)
    ///
    /// `value` is a number (a 1-D secret, whose releases are numbers) or a
    /// sequence of numbers (releases are numpy arrays of its length).
    /// `noise` is `laplace` (the default; `norm` "l1" or "l2", default "l1"),
    /// `gaussian` (needs `delta`; ℓ2) or `discrete` (the exact integer chain
    /// of `relax --noise discrete`, with `granularity` "2^-10" by default,
    /// `levels_per_doubling` 32, the fixed top `eps_max` 256 and `rng`
    /// "seeded" or "os"; levels answered at their rungs) — the words of the
    /// command line's `--noise` and `--norm`. `mechanism` is the older
    /// spelling of both in one word (`laplace-l1`, `laplace-l2`, `gaussian`,
    /// `discrete`), still taken.
    #[new]
    #[pyo3(signature = (value, mechanism=None, sensitivity=1.0, seed=0, delta=None,
                        granularity=None, levels_per_doubling=None, eps_max=None, rng=None,
                        *, noise=None, norm=None))]
    // The public constructor's typed keyword arguments: pyo3 binds each to
    // a parameter of its own (it has no way to gather keywords into a
    // struct and keep them typed and named in the signature), so this list
    // is the shape.
    #[allow(clippy::too_many_arguments)]
    fn new(
        value: &Bound<'_, PyAny>,
        mechanism: Option<&str>,
        sensitivity: f64,
        seed: u64,
        delta: Option<f64>,
        granularity: Option<&Bound<'_, PyAny>>,
        levels_per_doubling: Option<u32>,
        eps_max: Option<f64>,
        rng: Option<&str>,
        noise: Option<&str>,
        norm: Option<&str>,
    ) -> PyResult<Self> {
        let (value, scalar) = secret(value)?;
        let kind = release_kind(mechanism, noise, norm)?;
        let mechanism = mechanism.unwrap_or(kind.as_str());
        if kind == "discrete" {
            if let Some(d) = delta {
                return Err(param_err("delta", d, "no delta for the discrete mechanism"));
            }
            let grid = grid_of(granularity)?;
            let noise = ReleaseNoise::Discrete {
                granularity: grid,
                levels_per_doubling: levels_per_doubling
                    .unwrap_or(privdiffuse::process::discrete::DEFAULT_LEVELS_PER_DOUBLING),
                eps_max: eps_max.unwrap_or(privdiffuse::process::release::DEFAULT_EPS_MAX),
                rng: match rng {
                    Some(r) => parse::<RngSource>(r)?,
                    None => RngSource::Seeded,
                },
            };
            return Ok(PyGradualRelease {
                r: GradualRelease::new(value, noise, sensitivity, seed).map_err(to_py)?,
                scalar,
            });
        }
        // The discrete chain's options without it: refused in `relax`'s words
        // (one check), the granularity shown as typed.
        let options = NoiseOptions {
            noise: NoiseKind::Laplace,
            granularity: grid_of(granularity)?,
            levels_per_doubling: levels_per_doubling
                .unwrap_or(privdiffuse::process::discrete::DEFAULT_LEVELS_PER_DOUBLING),
            rng: match rng {
                Some(r) => parse::<RngSource>(r)?,
                None => RngSource::Seeded,
            },
        };
        refuse_discrete_options(&options, eps_max).map_err(|e| match (e, granularity) {
            (Error::Parameter { name, expected, .. }, Some(g)) if name == "granularity" => {
                let typed = g.str().map_or_else(|_| "?".into(), |t| t.to_string());
                to_py(Error::Parameter {
                    name,
                    value: typed,
                    expected,
                })
            }
            (e, _) => to_py(e),
        })?;
        let noise = match (kind.as_str(), delta) {
            ("laplace-l1" | "l1", None) => ReleaseNoise::Laplace { norm: Norm::L1 },
            ("laplace-l2" | "l2", None) => ReleaseNoise::Laplace { norm: Norm::L2 },
            ("gaussian", Some(delta)) => ReleaseNoise::Gaussian {
                delta,
                calibration: Default::default(),
            },
            ("gaussian", None) => {
                return Err(param_err(
                    "delta",
                    "None",
                    "a number in (0, 1) for the gaussian mechanism",
                ));
            }
            (_, Some(d)) => {
                return Err(param_err("delta", d, "no delta for the laplace mechanisms"));
            }
            _ => {
                return Err(param_err(
                    "mechanism",
                    mechanism,
                    "laplace-l1, laplace-l2, gaussian or discrete",
                ));
            }
        };
        Ok(PyGradualRelease {
            r: GradualRelease::new(value, noise, sensitivity, seed).map_err(to_py)?,
            scalar,
        })
    }

    /// release(eps) -> the answer at level `eps`: a float when the value was
    /// a number, else a numpy array (dim,).
    fn release<'py>(&mut self, py: Python<'py>, eps: f64) -> PyResult<Bound<'py, PyAny>> {
        let y = self.r.release(eps).map_err(to_py)?;
        match (self.scalar, y.as_slice()) {
            (true, [x]) => Ok(pyo3::types::PyFloat::new(py, *x).into_any()),
            _ => Ok(y.into_pyarray(py).into_any()),
        }
    }

    /// Levels released so far, in release order.
    #[getter]
    fn levels(&self) -> Vec<f64> {
        self.r.history().iter().map(|h| h.eps).collect()
    }

    /// The current privacy level (the highest ε released), or None.
    #[getter]
    fn privacy_level(&self) -> Option<f64> {
        self.r.privacy_level()
    }

    /// The noise path sampled so far (Laplace mechanisms), or None.
    #[getter]
    fn noise_path(&self) -> Option<PyNoisePath> {
        self.r.noise_path().map(|p| PyNoisePath { path: p.clone() })
    }

    /// save(path, force=False): writes the state (value, history, path) as JSON atomically.
    #[pyo3(signature = (path, force=false))]
    fn save(&self, path: PathBuf, force: bool) -> PyResult<()> {
        privdiffuse::io::save_release_with(&self.r, &path, Existing::for_out(true, force))
            .map_err(to_py)
    }

    /// GradualRelease.load(path, scalar=False) -> GradualRelease: a state
    /// written by `save` or `relax`. The file keeps the value as a list, so
    /// releases are arrays unless `scalar=True` (a 1-D state only).
    #[staticmethod]
    #[pyo3(signature = (path, scalar=false))]
    fn load(path: PathBuf, scalar: bool) -> PyResult<Self> {
        let r = GradualRelease::load(&path).map_err(to_py)?;
        Self::with_scalar(r, scalar)
    }

    /// GradualRelease.from_json(text, scalar=False) -> GradualRelease: a
    /// state from the text `to_json` returned (validated as `load` does).
    #[staticmethod]
    #[pyo3(signature = (text, scalar=false))]
    fn from_json(text: &str, scalar: bool) -> PyResult<Self> {
        let r = GradualRelease::from_json(text, std::path::Path::new("<text>")).map_err(to_py)?;
        Self::with_scalar(r, scalar)
    }

    /// Whether releases are numbers (the value was given as a number).
    #[getter]
    fn scalar(&self) -> bool {
        self.scalar
    }

    /// to_json() -> str: the state as JSON text.
    fn to_json(&self) -> PyResult<String> {
        self.r.to_json().map_err(to_py)
    }

    fn __repr__(&self) -> String {
        // Python's words: `None`, or the float as `repr` prints it.
        let level = match self.r.privacy_level() {
            None => "None".to_string(),
            Some(x) if x.fract() == 0.0 && x.abs() < 1e16 => format!("{x:.1}"),
            Some(x) => format!("{x:?}"),
        };
        format!(
            "GradualRelease(dim={}, releases={}, privacy_level={level})",
            self.r.dim(),
            self.r.history().len(),
        )
    }
}

impl PyGradualRelease {
    /// `r` with releases as numbers when `scalar` (a 1-D state only).
    fn with_scalar(r: GradualRelease, scalar: bool) -> PyResult<Self> {
        if scalar && r.dim() != 1 {
            return Err(param_err(
                "scalar",
                "True",
                &format!(
                    "False for a state of dimension {} (numbers are 1-D values)",
                    r.dim()
                ),
            ));
        }
        Ok(PyGradualRelease { r, scalar })
    }
}

/// The one word the constructor dispatches on (`laplace-l1`, `laplace-l2`,
/// `gaussian`, `discrete`) from `noise=` and `norm=` (the command line's
/// `--noise`/`--norm` words) or from the older one-word `mechanism=`; both
/// spellings at once are refused.
fn release_kind(
    mechanism: Option<&str>,
    noise: Option<&str>,
    norm: Option<&str>,
) -> PyResult<String> {
    let lower = |s: &str| s.trim().to_ascii_lowercase();
    if let Some(m) = mechanism {
        if noise.is_some() || norm.is_some() {
            return Err(param_err(
                "mechanism",
                m,
                "None when noise= or norm= is given (mechanism is their older one-word spelling)",
            ));
        }
        return Ok(lower(m));
    }
    let noise = noise.map_or_else(|| "laplace".to_string(), lower);
    let norm = norm.map(lower);
    match (noise.as_str(), norm.as_deref()) {
        ("laplace", None | Some("l1")) => Ok("laplace-l1".into()),
        ("laplace", Some("l2")) => Ok("laplace-l2".into()),
        ("gaussian", None | Some("l2")) => Ok("gaussian".into()),
        ("discrete", None | Some("l1")) => Ok("discrete".into()),
        ("laplace" | "gaussian" | "discrete", Some(n)) => Err(param_err(
            "norm",
            n,
            match noise.as_str() {
                "laplace" => "l1 or l2",
                "gaussian" => "l2 (the Gaussian mechanism is calibrated in ℓ2)",
                _ => "l1 (the discrete chain has independent integer coordinates)",
            },
        )),
        (n, _) => Err(param_err("noise", n, "laplace, gaussian or discrete")),
    }
}

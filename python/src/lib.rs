//! `privdiffuse._privdiffuse`: the native half of the Python package.
//!
//! Thin PyO3 wrappers over the typed Rust API of the `privdiffuse` crate
//! (`Graph`, `Distances`, `EpsilonMap`, `PathSampler`/`NoisePath`,
//! `Simulation`, `Collusion`, `GradualRelease`, the figures). The pure-Python
//! package `privdiffuse` (beside this crate) adds the conversions from
//! networkx/scipy and the pandas frames.
//!
//! Every heavy call runs on a worker thread with the GIL released while the
//! calling thread polls `Python::check_signals` every 50 ms: Ctrl-C cancels
//! the run through its `CancelToken` and raises `KeyboardInterrupt`. Library
//! errors map to `ValueError` (parameters, input), `FileNotFoundError`,
//! `FileExistsError`, `OSError`; a panic (a bug) to `RuntimeError`.

#![allow(clippy::type_complexity, clippy::needless_question_mark)]

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use privdiffuse::collusion::{Coalition, Estimator};
use privdiffuse::io::plot::{Kind, PlotOptions};
use privdiffuse::process::release::ReleaseNoise;
use privdiffuse::sim::{MechanismTotal, Rows, SimOutput, SimSummary};
use privdiffuse::util::atomic::{AtomicDir, Existing};
use privdiffuse::{
    CancelToken, Control, DistanceKind, DistanceOptions, Distances, EpsilonMap, Error,
    GradualRelease, Graph, MechanismChoice, NodeIds, NoisePath, Norm, Owners, PathSampler, Post,
    Purpose, ValueSpec, rng_for,
};
use pyo3::exceptions::{
    PyFileExistsError, PyFileNotFoundError, PyKeyboardInterrupt, PyOSError, PyRuntimeError,
    PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------- errors

/// The Python exception of a library error, with the library's message.
fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match &e {
        Error::Io { error, .. } if error.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(msg)
        }
        Error::Io { .. } => PyOSError::new_err(msg),
        Error::OutputExists { .. } => PyFileExistsError::new_err(msg),
        Error::Cancelled => PyKeyboardInterrupt::new_err(msg),
        _ => PyValueError::new_err(msg),
    }
}

/// A `ValueError` in the library's words: `invalid {name} '{value}': expected {expected}`.
fn param_err(name: &str, value: impl std::fmt::Display, expected: &str) -> PyErr {
    to_py(Error::param(name, value, expected))
}

fn parse<T: std::str::FromStr<Err = Error>>(s: &str) -> PyResult<T> {
    s.parse::<T>().map_err(to_py)
}

// ------------------------------------------------------- blocking calls

/// Runs `f` on a worker thread (on a rayon pool of `threads` threads when
/// given) with the GIL released; polls for signals every 50 ms and, on
/// Ctrl-C, cancels `token`, waits for the worker to stop and raises.
fn blocking<T: Send>(
    py: Python<'_>,
    token: &CancelToken,
    threads: Option<usize>,
    f: impl FnOnce() -> privdiffuse::Result<T> + Send,
) -> PyResult<T> {
    let pool = match threads {
        None => None,
        Some(t) => {
            privdiffuse::limits::check_threads(t).map_err(to_py)?;
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build()
                    .map_err(|e| PyRuntimeError::new_err(e.to_string()))?,
            )
        }
    };
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let rx = std::sync::Mutex::new(rx);
        let handle = s.spawn(move || {
            let r = match &pool {
                Some(p) => p.install(f),
                None => f(),
            };
            drop(tx);
            r
        });
        let mut interrupted: Option<PyErr> = None;
        loop {
            let waited = py.detach(|| match rx.lock() {
                Ok(rx) => rx.recv_timeout(Duration::from_millis(50)),
                Err(_) => Err(std::sync::mpsc::RecvTimeoutError::Disconnected),
            });
            if !matches!(waited, Err(std::sync::mpsc::RecvTimeoutError::Timeout)) {
                break;
            }
            if let Err(e) = py.check_signals() {
                token.cancel();
                interrupted = Some(e);
                break;
            }
        }
        let joined = py.detach(|| handle.join());
        if let Some(e) = interrupted {
            return Err(e);
        }
        match joined {
            Ok(r) => r.map_err(to_py),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Err(PyRuntimeError::new_err(format!(
                    "internal error (a bug in privdiffuse, please report it): {what}"
                )))
            }
        }
    })
}

// ------------------------------------------------------------------ Graph

/// A static graph (compressed sparse rows) with the original node ids.
#[pyclass(module = "privdiffuse._privdiffuse", name = "Graph", frozen)]
#[derive(Clone)]
struct PyGraph {
    g: Arc<Graph>,
}

impl PyGraph {
    fn new(g: Graph) -> Self {
        PyGraph { g: Arc::new(g) }
    }

    /// Node indices of the given original ids (ints or strings).
    fn indices(&self, ids: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<u32>> {
        let mut out = Vec::new();
        for item in ids.try_iter()? {
            let item = item?;
            let id: String = if let Ok(i) = item.extract::<u64>() {
                i.to_string()
            } else if let Ok(s) = item.extract::<String>() {
                s
            } else {
                return Err(PyTypeError::new_err(format!(
                    "{name}: expected node ids (int or str), found {}",
                    item.get_type().name()?
                )));
            };
            match self.g.ids().index_of(&id) {
                Some(i) => out.push(i),
                None => {
                    return Err(param_err(name, &id, "a node id of the graph"));
                }
            }
        }
        Ok(out)
    }
}

/// Ascending unique integer ids of `u`, `v` and `nodes`, and each endpoint's index.
fn compact_int_ids(
    u: &[i64],
    v: &[i64],
    nodes: &[i64],
) -> privdiffuse::Result<(Vec<u64>, Vec<(u32, u32)>)> {
    if u.len() != v.len() {
        return Err(Error::param(
            "v",
            format!("{} ids", v.len()),
            format!("as many ids as `u` ({})", u.len()),
        ));
    }
    let all = || u.iter().chain(v).chain(nodes);
    if let Some(x) = all().find(|&&x| x < 0) {
        return Err(Error::param("node id", x, "integers ≥ 0"));
    }
    let max = all().copied().max().unwrap_or(-1);
    let total = u.len() * 2 + nodes.len();
    let ids: Vec<u64>;
    let edges: Vec<(u32, u32)>;
    if max < 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    if (max as u64) < (1u64 << 21).max(16 * total as u64) {
        // Dense table: mark, then number in ascending order.
        let mut index = vec![u32::MAX; max as usize + 1];
        for &x in all() {
            index[x as usize] = 0;
        }
        let mut next = 0u32;
        let mut out = Vec::new();
        for (id, slot) in index.iter_mut().enumerate() {
            if *slot == 0 {
                *slot = next;
                next += 1;
                out.push(id as u64);
            }
        }
        ids = out;
        edges = u
            .par_iter()
            .zip(v.par_iter())
            .map(|(&a, &b)| (index[a as usize], index[b as usize]))
            .collect();
    } else {
        let mut sorted: Vec<i64> = all().copied().collect();
        sorted.par_sort_unstable();
        sorted.dedup();
        let find = |x: i64| sorted.binary_search(&x).unwrap_or(0) as u32;
        edges = u
            .par_iter()
            .zip(v.par_iter())
            .map(|(&a, &b)| (find(a), find(b)))
            .collect();
        ids = sorted.iter().map(|&x| x as u64).collect();
    }
    if ids.len() > u32::MAX as usize {
        return Err(Error::param(
            "node count",
            ids.len(),
            "at most 2^32 - 1 nodes",
        ));
    }
    Ok((ids, edges))
}

#[pymethods]
impl PyGraph {
    /// Graph.load(path, directed=False, nodes=None) -> Graph
    ///
    /// Reads an edge list exactly as the command line's `--graph` does
    /// (whitespace or comma separated, optional weights, `.gz`, any ids;
    /// `nodes` names a file of extra node ids). Raises FileNotFoundError
    /// or ValueError naming the file and line.
    #[staticmethod]
    #[pyo3(signature = (path, directed=false, nodes=None))]
    fn load(
        py: Python<'_>,
        path: PathBuf,
        directed: bool,
        nodes: Option<PathBuf>,
    ) -> PyResult<Self> {
        let opts = privdiffuse::LoadOptions {
            directed,
            nodes_file: nodes,
            ..Default::default()
        };
        let g = blocking(py, &CancelToken::new(), None, || {
            Graph::load_with(&path, &opts)
        })?;
        Ok(PyGraph::new(g))
    }

    /// Internal: a graph from integer id arrays (see `Graph.from_edges`).
    #[staticmethod]
    #[pyo3(signature = (u, v, weights=None, directed=false, nodes=None))]
    fn _from_int_edges(
        py: Python<'_>,
        u: PyReadonlyArray1<'_, i64>,
        v: PyReadonlyArray1<'_, i64>,
        weights: Option<PyReadonlyArray1<'_, f64>>,
        directed: bool,
        nodes: Option<PyReadonlyArray1<'_, i64>>,
    ) -> PyResult<Self> {
        let u = u.as_slice()?;
        let v = v.as_slice()?;
        let w = match &weights {
            Some(w) => Some(w.as_slice()?),
            None => None,
        };
        let nodes = match &nodes {
            Some(n) => n.as_slice()?,
            None => &[],
        };
        let g = blocking(py, &CancelToken::new(), None, || {
            let (ids, edges) = compact_int_ids(u, v, nodes)?;
            Graph::from_edges(NodeIds::integers(ids), &edges, w, directed)
        })?;
        Ok(PyGraph::new(g))
    }

    /// Internal: a graph from string ids (see `Graph.from_edges`); ids are
    /// numbered in order of first appearance (`nodes` first), as the loader does.
    #[staticmethod]
    #[pyo3(signature = (u, v, weights=None, directed=false, nodes=None))]
    fn _from_str_edges(
        py: Python<'_>,
        u: Vec<String>,
        v: Vec<String>,
        weights: Option<PyReadonlyArray1<'_, f64>>,
        directed: bool,
        nodes: Option<Vec<String>>,
    ) -> PyResult<Self> {
        let w = match &weights {
            Some(w) => Some(w.as_slice()?),
            None => None,
        };
        let g = blocking(py, &CancelToken::new(), None, || {
            if u.len() != v.len() {
                return Err(Error::param(
                    "v",
                    format!("{} ids", v.len()),
                    format!("as many ids as `u` ({})", u.len()),
                ));
            }
            fn get<'a>(
                index: &mut HashMap<&'a str, u32>,
                ids: &mut Vec<String>,
                s: &'a str,
            ) -> u32 {
                let next = ids.len() as u32;
                *index.entry(s).or_insert_with(|| {
                    ids.push(s.to_string());
                    next
                })
            }
            let mut index = HashMap::<&str, u32>::new();
            let mut ids = Vec::new();
            for s in nodes.iter().flatten() {
                get(&mut index, &mut ids, s);
            }
            let edges: Vec<(u32, u32)> = u
                .iter()
                .zip(&v)
                .map(|(a, b)| (get(&mut index, &mut ids, a), get(&mut index, &mut ids, b)))
                .collect();
            if let Some(bad) = ids
                .iter()
                .find(|s| s.trim().is_empty() || s.trim() != s.as_str())
            {
                return Err(Error::param(
                    "node id",
                    format!("{bad:?}"),
                    "ids without surrounding blanks",
                ));
            }
            Graph::from_edges(NodeIds::tokens(ids), &edges, w, directed)
        })?;
        Ok(PyGraph::new(g))
    }

    /// Number of nodes.
    #[getter]
    fn n_nodes(&self) -> usize {
        self.g.n()
    }

    /// Number of edges (an undirected edge counted once).
    #[getter]
    fn n_edges(&self) -> u64 {
        self.g.m()
    }

    /// Whether arcs are one-way.
    #[getter]
    fn directed(&self) -> bool {
        self.g.is_directed()
    }

    /// Whether edges carry lengths.
    #[getter]
    fn weighted(&self) -> bool {
        self.g.is_weighted()
    }

    /// The original node ids in index order: a uint64 numpy array for
    /// integer ids, else a list of str.
    #[getter]
    fn ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let n = self.g.n() as u32;
        let ids = self.g.ids();
        if ids.is_integer() {
            let v: Vec<u64> = (0..n).map(|i| ids.integer(i).unwrap_or(0)).collect();
            Ok(v.into_pyarray(py).into_any())
        } else {
            let v: Vec<String> = (0..n).map(|i| ids.label(i).to_string()).collect();
            Ok(PyList::new(py, v)?.into_any())
        }
    }

    /// edges() -> (u, v, weight): each edge once as node indices (u < v when
    /// undirected) and its length (1.0 unweighted).
    fn edges<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Bound<'py, PyArray1<u32>>,
        Bound<'py, PyArray1<u32>>,
        Bound<'py, PyArray1<f64>>,
    ) {
        let mut u = Vec::new();
        let mut v = Vec::new();
        let mut w = Vec::new();
        for (a, b, x) in self.g.edges() {
            u.push(a);
            v.push(b);
            w.push(x);
        }
        (u.into_pyarray(py), v.into_pyarray(py), w.into_pyarray(py))
    }

    /// save(path, force=False): writes the graph as an edge list (`u v` or
    /// `u v length` per line, original ids; the loader reads it back
    /// identically), atomically. FileExistsError when `path` exists, unless
    /// `force`.
    #[pyo3(signature = (path, force=false))]
    fn save(&self, py: Python<'_>, path: PathBuf, force: bool) -> PyResult<()> {
        if !force && path.exists() {
            return Err(PyFileExistsError::new_err(format!(
                "{} already exists (add `force` to replace it)",
                path.display()
            )));
        }
        let comment = format!("{} nodes, {} edges (privdiffuse)", self.g.n(), self.g.m());
        blocking(py, &CancelToken::new(), None, || {
            privdiffuse::io::write_edge_list(&self.g, &path, &comment)
        })
    }

    /// index_of(ids) -> numpy uint32 array: node indices of original ids.
    fn index_of<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        Ok(self.indices(ids, "nodes")?.into_pyarray(py))
    }

    /// subgraph(nodes) -> Graph: the graph induced by these node ids (in
    /// the original index order), original ids and edge lengths kept.
    fn subgraph(&self, py: Python<'_>, nodes: &Bound<'_, PyAny>) -> PyResult<Self> {
        let keep = self.indices(nodes, "nodes")?;
        let g = blocking(py, &CancelToken::new(), None, || Ok(self.g.induced(&keep)))?;
        Ok(PyGraph::new(g))
    }

    /// ego(node, radius=1) -> Graph: the subgraph induced by every node
    /// within `radius` hops of `node` (the node included), original ids kept
    /// — the command line's `--ego ID:R`, node for node.
    #[pyo3(signature = (node, radius=1))]
    fn ego(&self, py: Python<'_>, node: &Bound<'_, PyAny>, radius: u32) -> PyResult<Self> {
        let list = PyList::new(py, [node])?;
        let centre = self.indices(list.as_any(), "node")?[0];
        if radius == 0 {
            return Err(param_err("radius", 0, "a number of hops ≥ 1"));
        }
        let g = blocking(py, &CancelToken::new(), None, || {
            Ok(self.g.ego_of(centre, radius))
        })?;
        Ok(PyGraph::new(g))
    }

    /// Internal: distances from node indices `owners` (see `Graph.distances`).
    #[pyo3(signature = (owners, kind, resistance_cap, approx_k, approx_tol, seed, threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn _distances<'py>(
        &self,
        py: Python<'py>,
        owners: PyReadonlyArray1<'py, u32>,
        kind: &str,
        resistance_cap: usize,
        approx_k: usize,
        approx_tol: f64,
        seed: u64,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let kind: DistanceKind = parse(kind)?;
        let owners = owners.as_slice()?.to_vec();
        let n = self.g.n();
        if let Some(&o) = owners.iter().find(|&&o| o as usize >= n) {
            return Err(param_err("owners", o, &format!("node indices below {n}")));
        }
        let rows = owners.len();
        privdiffuse::limits::check_memory(
            "owners",
            rows,
            privdiffuse::limits::bytes_of(&[rows as u64, n as u64, 8]),
        )
        .map_err(to_py)?;
        let opts = DistanceOptions {
            resistance_cap,
            approx_k,
            approx_tol,
            seed,
        };
        let token = CancelToken::new();
        let g = self.g.clone();
        let flat = blocking(py, &token, threads, || {
            let dist = Distances::new(&g, kind, &opts)?;
            let mut out = vec![0.0f64; rows * n];
            let chunk = 64 * n.max(1);
            let parts: Vec<(usize, &mut [f64])> = out.chunks_mut(chunk).enumerate().collect();
            parts.into_par_iter().try_for_each(|(c, block)| {
                if token.is_cancelled() {
                    return Err(Error::Cancelled);
                }
                let mut ws = dist.workspace();
                let lo = c * 64;
                let hi = (lo + 64).min(rows);
                dist.batch(&owners[lo..hi], &mut ws, |k, row| {
                    block[k * n..(k + 1) * n].copy_from_slice(row);
                });
                Ok(())
            })?;
            Ok(out)
        })?;
        Ok(flat.into_pyarray(py).reshape([rows, n])?)
    }

    fn __repr__(&self) -> String {
        format!(
            "Graph(n_nodes={}, n_edges={}{}{})",
            self.g.n(),
            self.g.m(),
            if self.g.is_directed() {
                ", directed"
            } else {
                ""
            },
            if self.g.is_weighted() {
                ", weighted"
            } else {
                ""
            }
        )
    }
}

// ------------------------------------------------------------- EpsilonMap

/// A privacy map ε(d), non-increasing in the distance d.
#[pyclass(module = "privdiffuse._privdiffuse", name = "EpsilonMap", frozen)]
#[derive(Clone)]
struct PyEpsilonMap {
    map: EpsilonMap,
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
fn as_f64_array(
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

/// A privacy map from an EpsilonMap or a spec string.
fn eps_of(x: &Bound<'_, PyAny>) -> PyResult<EpsilonMap> {
    if let Ok(m) = x.cast::<PyEpsilonMap>() {
        return Ok(m.get().map.clone());
    }
    if let Ok(s) = x.extract::<String>() {
        return parse(&s);
    }
    Err(PyTypeError::new_err(format!(
        "eps: expected an EpsilonMap or a spec string, found {}",
        x.get_type().name()?
    )))
}

// -------------------------------------------------------------- NoisePath

/// One sample path of the lazy Laplace process: piecewise constant in ε,
/// `values[i]` holds for levels in [levels[i], levels[i+1]).
#[pyclass(module = "privdiffuse._privdiffuse", name = "NoisePath", frozen)]
struct PyNoisePath {
    path: NoisePath,
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

/// sample_paths(k, dim, norm, eps_lo, eps_hi, seed, first=0) -> list[NoisePath]
///
/// Path i is drawn from `rng_for(seed, first + i, 0, Purpose::Path)`, the
/// generator of owner `first + i` in a simulation.
#[pyfunction]
#[pyo3(signature = (k, dim, norm, eps_lo, eps_hi, seed, first=0, threads=None))]
#[allow(clippy::too_many_arguments)]
fn _sample_paths(
    py: Python<'_>,
    k: usize,
    dim: usize,
    norm: &str,
    eps_lo: f64,
    eps_hi: f64,
    seed: u64,
    first: u64,
    threads: Option<usize>,
) -> PyResult<Vec<Py<PyNoisePath>>> {
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
                let mut rng = rng_for(seed, first + i, 0, Purpose::Path);
                Ok(sampler.sample(&mut rng))
            })
            .collect::<privdiffuse::Result<Vec<NoisePath>>>()
    })?;
    paths
        .into_iter()
        .map(|path| Py::new(py, PyNoisePath { path }))
        .collect()
}

/// Writes rows of one CSV type with its header (no vector columns).
fn write_rows<T: privdiffuse::util::table::CsvRow>(
    w: &mut dyn Write,
    rows: &[T],
) -> std::io::Result<()> {
    use privdiffuse::util::table::{Writer, columns};
    let mut out = Writer::with_header(w, columns::<T>(0, &[]))?;
    for r in rows {
        out.row(r)?;
    }
    out.into_inner().map(|_| ())
}

// ------------------------------------------------------------- simulation

/// Options shared by `simulate` and `collude`, as typed values.
struct SimArgs {
    eps: EpsilonMap,
    eps_min: Option<f64>,
    eps_max: Option<f64>,
    distance: DistanceKind,
    options: DistanceOptions,
    bins: usize,
    dim: usize,
    norm: Norm,
    mechanism: MechanismChoice,
    delta: f64,
    values: Option<ValueSpec>,
    sensitivity: f64,
    post: Post,
    owners: Owners,
    unreachable: privdiffuse::Unreachable,
    seed: u64,
}

/// Owners from None (all), an int (a sample), "all"/"N"/"a,b" or a list of ids.
fn owners_of(x: Option<&Bound<'_, PyAny>>) -> PyResult<Owners> {
    let Some(x) = x else { return Ok(Owners::All) };
    if x.is_none() {
        return Ok(Owners::All);
    }
    if let Ok(s) = x.extract::<String>() {
        return parse(&s);
    }
    if let Ok(n) = x.extract::<usize>() {
        let o = Owners::Count(n);
        o.check().map_err(to_py)?;
        return Ok(o);
    }
    if x.extract::<i64>().is_ok() {
        return Err(param_err(
            "owners",
            x.str()?,
            "all, a count N ≥ 1, or a list of node ids",
        ));
    }
    let mut ids = Vec::new();
    for item in x.try_iter()? {
        let item = item?;
        if let Ok(i) = item.extract::<u64>() {
            ids.push(i.to_string());
        } else if let Ok(s) = item.extract::<String>() {
            ids.push(s);
        } else {
            return Err(PyTypeError::new_err(format!(
                "owners: expected node ids (int or str), found {}",
                item.get_type().name()?
            )));
        }
    }
    let o = Owners::Ids(ids);
    o.check().map_err(to_py)?;
    Ok(o)
}

fn values_of(x: Option<&Bound<'_, PyAny>>) -> PyResult<Option<ValueSpec>> {
    match x {
        None => Ok(None),
        Some(x) if x.is_none() => Ok(None),
        Some(x) => {
            if let Ok(s) = x.extract::<String>() {
                return Ok(Some(parse(&s)?));
            }
            if let Ok(p) = x.extract::<PathBuf>() {
                return Ok(Some(ValueSpec::File(p)));
            }
            Err(PyTypeError::new_err(
                "values: expected a spec string (e.g. 'bits:p=0.5') or a path",
            ))
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn sim_args(
    eps: &Bound<'_, PyAny>,
    eps_min: Option<f64>,
    eps_max: Option<f64>,
    distance: &str,
    resistance_cap: usize,
    approx_k: usize,
    approx_tol: f64,
    distance_seed: u64,
    bins: usize,
    dim: usize,
    norm: &str,
    mechanism: &str,
    delta: f64,
    values: Option<&Bound<'_, PyAny>>,
    sensitivity: f64,
    post: &str,
    owners: Option<&Bound<'_, PyAny>>,
    unreachable: &str,
    seed: u64,
) -> PyResult<SimArgs> {
    Ok(SimArgs {
        eps: eps_of(eps)?,
        eps_min,
        eps_max,
        distance: parse(distance)?,
        options: DistanceOptions {
            resistance_cap,
            approx_k,
            approx_tol,
            seed: distance_seed,
        },
        bins,
        dim,
        norm: parse(norm)?,
        mechanism: parse(mechanism)?,
        delta,
        values: values_of(values)?,
        sensitivity,
        post: parse(post)?,
        owners: owners_of(owners)?,
        unreachable: parse(unreachable)?,
        seed,
    })
}

/// Applies the options through the builders' setters.
macro_rules! apply {
    ($b:expr, $a:expr) => {{
        let a = $a;
        let mut b = $b
            .eps(a.eps.clone())
            .distance(a.distance)
            .distance_options(a.options.clone())
            .bins(a.bins)
            .dim(a.dim)
            .norm(a.norm)
            .mechanism(a.mechanism)
            .delta(a.delta)
            .sensitivity(a.sensitivity)
            .post(a.post.clone())
            .owners(a.owners.clone())
            .unreachable(a.unreachable)
            .seed(a.seed);
        if a.eps_min.is_some() || a.eps_max.is_some() {
            b = b.eps_clamp(a.eps_min.or(a.eps.eps_min()), a.eps_max.or(a.eps.eps_max()));
        }
        if let Some(v) = &a.values {
            b = b.values(v.clone());
        }
        b
    }};
}

/// What `simulate` returned: the in-memory output and the graph it ran on.
#[pyclass(module = "privdiffuse._privdiffuse", name = "SimOutput", frozen)]
struct PySimOutput {
    out: SimOutput,
    graph: Arc<Graph>,
    seconds: f64,
    threads: usize,
}

/// Columns of a CSV text: name → numpy int64 / float64 array or list of str
/// (the types `pandas.read_csv` would infer: an all-integer column is int64,
/// an all-numeric one float64 with `inf`/`NaN`, anything else text).
fn csv_columns<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyDict>> {
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

impl PySimOutput {
    fn by_distance_csv(&self) -> PyResult<String> {
        let mut buf = Vec::new();
        privdiffuse::io::write_by_distance(&mut buf, self.out.by_distance())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }

    fn summary_value(&self) -> SimSummary {
        privdiffuse::sim::summarize_output(&self.out, &self.graph)
    }
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

    /// Internal: the columns of one of the CSV files `simulate` writes
    /// (`by_distance`, `jumps`, `owners`, `paths`, `ego`, `responses`), or
    /// None when that output was not kept.
    fn _table<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Option<Bound<'py, PyDict>>> {
        if name == "by_distance" {
            return Ok(Some(csv_columns(py, &self.by_distance_csv()?)?));
        }
        let kind = Rows::ALL
            .into_iter()
            .find(|r| r.file_name().strip_suffix(".csv") == Some(name))
            .ok_or_else(|| {
                param_err(
                    "table",
                    name,
                    "by_distance, jumps, owners, paths, ego or responses",
                )
            })?;
        match self.out.csv(kind) {
            Some(text) => Ok(Some(csv_columns(py, text)?)),
            None => Ok(None),
        }
    }

    /// Internal: the answers as (owner, member, distance, eps, u, raw) columns
    /// in numpy form (`responses=True` only).
    fn _csv(&self, name: &str) -> PyResult<Option<String>> {
        if name == "by_distance" {
            return Ok(Some(self.by_distance_csv()?));
        }
        Ok(Rows::ALL
            .into_iter()
            .find(|r| r.file_name().strip_suffix(".csv") == Some(name))
            .and_then(|r| self.out.csv(r))
            .map(String::from))
    }

    /// Internal: summary.json as text.
    fn _summary_json(&self) -> PyResult<String> {
        serde_json::to_string_pretty(&self.summary_value())
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Seconds the run took (distances, plan and simulation).
    #[getter]
    fn seconds(&self) -> f64 {
        self.seconds
    }

    /// Internal: writes the CLI's files into `dir` atomically (see
    /// `SimulationResult.save`).
    #[pyo3(signature = (dir, force=false, plots=true))]
    fn _save(&self, py: Python<'_>, dir: PathBuf, force: bool, plots: bool) -> PyResult<()> {
        let token = CancelToken::new();
        blocking(py, &token, None, || {
            if plots {
                privdiffuse::io::check_plots_available()?;
            }
            let summary = self.summary_value();
            privdiffuse::io::simulate::check_totals(&summary.mse)?;
            let atomic = AtomicDir::create_with(&dir, Existing::for_out(true, force))?;
            let put = |name: &str, bytes: &[u8]| -> privdiffuse::Result<()> {
                let shown = dir.join(name);
                let mut f =
                    std::fs::File::create(atomic.join(name)).map_err(|e| Error::io(&shown, e))?;
                f.write_all(bytes).map_err(|e| Error::io(&shown, e))?;
                f.sync_all().map_err(|e| Error::io(&shown, e))
            };
            for r in Rows::ALL {
                if let Some(text) = self.out.csv(r) {
                    put(r.file_name(), text.as_bytes())?;
                }
            }
            let mut bd = Vec::new();
            privdiffuse::io::write_by_distance(&mut bd, self.out.by_distance()).map_err(|e| {
                Error::Numerical(format!("{}: {e}", dir.join("by_distance.csv").display()))
            })?;
            put("by_distance.csv", &bd)?;
            let json = |v: &dyn erased::Json| -> Vec<u8> { v.pretty() };
            put("summary.json", &json(&summary))?;
            let mut plots_s = 0.0;
            if plots {
                let t = Instant::now();
                let laplace = summary
                    .config
                    .mechanism
                    .mechanisms()
                    .contains(&privdiffuse::Mechanism::Correlated);
                privdiffuse::io::draw_run_figures(
                    atomic.staging(),
                    privdiffuse::io::RunFigures::Simulation { laplace },
                )?;
                plots_s = t.elapsed().as_secs_f64();
            }
            let timings = privdiffuse::io::SimTimings {
                threads: self.threads,
                simulate_s: self.seconds,
                plots_s,
                total_s: self.seconds + plots_s,
                ..Default::default()
            };
            put("timings.json", &json(&timings))?;
            atomic.commit()?;
            Ok(())
        })
    }

    /// Internal: overall MSE per mechanism as (mechanism, responses, mse, mse_theory) tuples.
    fn _totals(&self) -> Vec<(String, u64, f64, f64)> {
        self.out
            .totals()
            .iter()
            .map(|t: &MechanismTotal| (t.mechanism.to_string(), t.responses, t.mse, t.mse_theory))
            .collect()
    }
}

mod erased {
    /// Pretty JSON of any serialisable value, newline-terminated (as the CLI writes it).
    pub trait Json {
        fn pretty(&self) -> Vec<u8>;
    }
    impl<T: serde::Serialize> Json for T {
        fn pretty(&self) -> Vec<u8> {
            let mut v = serde_json::to_vec_pretty(self).unwrap_or_default();
            v.push(b'\n');
            v
        }
    }
}

/// Internal: runs a simulation (see `privdiffuse.simulate`).
#[pyfunction]
#[pyo3(signature = (graph, eps, eps_min, eps_max, distance, resistance_cap, approx_k, approx_tol,
    distance_seed, bins, dim, norm, mechanism, delta, values, sensitivity, post, owners,
    unreachable, seed, responses, path_owners, threads))]
#[allow(clippy::too_many_arguments)]
fn _simulate(
    py: Python<'_>,
    graph: &PyGraph,
    eps: &Bound<'_, PyAny>,
    eps_min: Option<f64>,
    eps_max: Option<f64>,
    distance: &str,
    resistance_cap: usize,
    approx_k: usize,
    approx_tol: f64,
    distance_seed: u64,
    bins: usize,
    dim: usize,
    norm: &str,
    mechanism: &str,
    delta: f64,
    values: Option<&Bound<'_, PyAny>>,
    sensitivity: f64,
    post: &str,
    owners: Option<&Bound<'_, PyAny>>,
    unreachable: &str,
    seed: u64,
    responses: bool,
    path_owners: usize,
    threads: Option<usize>,
) -> PyResult<PySimOutput> {
    let a = sim_args(
        eps,
        eps_min,
        eps_max,
        distance,
        resistance_cap,
        approx_k,
        approx_tol,
        distance_seed,
        bins,
        dim,
        norm,
        mechanism,
        delta,
        values,
        sensitivity,
        post,
        owners,
        unreachable,
        seed,
    )?;
    let token = CancelToken::new();
    let g = graph.g.clone();
    let mut keep = vec![Rows::Jumps, Rows::Owners, Rows::Paths, Rows::Ego];
    if responses {
        keep.push(Rows::Responses);
    }
    let t = Instant::now();
    let (out, n_threads) = blocking(py, &token, threads, || {
        let sim = apply!(privdiffuse::Simulation::new(&g), &a)
            .path_owners(path_owners)
            .keep(keep)
            .control(Control::new().with_cancel(token.clone()));
        Ok((sim.run()?, rayon::current_num_threads()))
    })?;
    Ok(PySimOutput {
        out,
        graph: g,
        seconds: t.elapsed().as_secs_f64(),
        threads: n_threads,
    })
}

// -------------------------------------------------------------- collusion

/// What `collude` returned.
#[pyclass(module = "privdiffuse._privdiffuse", name = "CollusionOutput", frozen)]
struct PyCollusionOutput {
    coalition_csv: String,
    audit_csv: String,
    /// `summary.json` as the command line writes it (pretty, newline-ended).
    summary_json: Vec<u8>,
}

#[pymethods]
impl PyCollusionOutput {
    /// Internal: the columns of `coalition` or `audit`.
    fn _table<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
        match name {
            "coalition" => csv_columns(py, &self.coalition_csv),
            "audit" => csv_columns(py, &self.audit_csv),
            _ => Err(param_err("table", name, "coalition or audit")),
        }
    }

    /// Internal: the CSV text of `coalition` or `audit`.
    fn _csv(&self, name: &str) -> PyResult<String> {
        match name {
            "coalition" => Ok(self.coalition_csv.clone()),
            "audit" => Ok(self.audit_csv.clone()),
            _ => Err(param_err("table", name, "coalition or audit")),
        }
    }

    /// Internal: summary.json as text.
    fn _summary_json(&self) -> String {
        String::from_utf8_lossy(&self.summary_json).into_owned()
    }

    /// Internal: writes coalition.csv, audit.csv and summary.json into the
    /// new directory `dir`, all or nothing (see `CollusionResult.save`).
    #[pyo3(signature = (dir, force=false))]
    fn _save(&self, py: Python<'_>, dir: PathBuf, force: bool) -> PyResult<()> {
        blocking(py, &CancelToken::new(), None, || {
            let atomic = AtomicDir::create_with(&dir, Existing::for_out(true, force))?;
            for (name, bytes) in [
                ("coalition.csv", self.coalition_csv.as_bytes()),
                ("audit.csv", self.audit_csv.as_bytes()),
                ("summary.json", &self.summary_json[..]),
            ] {
                let shown = dir.join(name);
                let mut f =
                    std::fs::File::create(atomic.join(name)).map_err(|e| Error::io(&shown, e))?;
                f.write_all(bytes).map_err(|e| Error::io(&shown, e))?;
                f.sync_all().map_err(|e| Error::io(&shown, e))?;
            }
            atomic.commit()?;
            Ok(())
        })
    }
}

/// Internal: runs a collusion study (see `privdiffuse.collude`).
#[pyfunction]
#[pyo3(signature = (graph, coalitions, estimators, trials, composition_delta, eps, eps_min, eps_max,
    distance, resistance_cap, approx_k, approx_tol, distance_seed, bins, dim, norm, mechanism,
    delta, values, sensitivity, post, owners, unreachable, seed, threads))]
#[allow(clippy::too_many_arguments)]
fn _collude(
    py: Python<'_>,
    graph: &PyGraph,
    coalitions: Vec<String>,
    estimators: Option<Vec<String>>,
    trials: usize,
    composition_delta: f64,
    eps: &Bound<'_, PyAny>,
    eps_min: Option<f64>,
    eps_max: Option<f64>,
    distance: &str,
    resistance_cap: usize,
    approx_k: usize,
    approx_tol: f64,
    distance_seed: u64,
    bins: usize,
    dim: usize,
    norm: &str,
    mechanism: &str,
    delta: f64,
    values: Option<&Bound<'_, PyAny>>,
    sensitivity: f64,
    post: &str,
    owners: Option<&Bound<'_, PyAny>>,
    unreachable: &str,
    seed: u64,
    threads: Option<usize>,
) -> PyResult<PyCollusionOutput> {
    let a = sim_args(
        eps,
        eps_min,
        eps_max,
        distance,
        resistance_cap,
        approx_k,
        approx_tol,
        distance_seed,
        bins,
        dim,
        norm,
        mechanism,
        delta,
        values,
        sensitivity,
        post,
        owners,
        unreachable,
        seed,
    )?;
    let coalitions: Vec<Coalition> = coalitions
        .iter()
        .map(|s| parse(s))
        .collect::<PyResult<_>>()?;
    let estimators: Option<Vec<Estimator>> = match estimators {
        None => None,
        Some(v) => Some(v.iter().map(|s| parse(s)).collect::<PyResult<_>>()?),
    };
    let token = CancelToken::new();
    let g = graph.g.clone();
    let owners_given = a.owners != Owners::All;
    let out = blocking(py, &token, threads, || {
        let mut c = privdiffuse::Collusion::new(&g);
        let default_owners = c.config().sim.owners.clone();
        c = apply!(c, &a);
        if !owners_given {
            c = c.owners(default_owners);
        }
        if !coalitions.is_empty() {
            c = c.coalitions(coalitions.clone());
        }
        if let Some(e) = &estimators {
            c = c.estimators(e.clone());
        }
        let c = c
            .trials(trials)
            .composition_delta(composition_delta)
            .control(Control::new().with_cancel(token.clone()));
        let out = c.run()?;
        let mut coal = Vec::new();
        privdiffuse::io::collude::write_coalition_csv(&mut coal, out.coalition_rows())
            .map_err(|e| Error::Numerical(format!("coalition.csv: {e}")))?;
        let mut audit = Vec::new();
        write_rows(&mut audit, out.audit_rows())
            .map_err(|e| Error::Numerical(format!("audit.csv: {e}")))?;
        let json = |v: &dyn erased::Json| -> Vec<u8> { v.pretty() };
        Ok(PyCollusionOutput {
            coalition_csv: String::from_utf8_lossy(&coal).into_owned(),
            audit_csv: String::from_utf8_lossy(&audit).into_owned(),
            summary_json: json(out.summary()),
        })
    })?;
    Ok(out)
}

// -------------------------------------------------------- gradual release

/// One secret released at privacy levels in any order: each answer is the
/// value plus the noise path read at that level (`privdiffuse relax`).
#[pyclass(module = "privdiffuse._privdiffuse", name = "GradualRelease")]
struct PyGradualRelease {
    r: GradualRelease,
}

#[pymethods]
impl PyGradualRelease {
    /// GradualRelease(value, mechanism="laplace-l1", sensitivity=1.0, seed=0, delta=None)
    ///
    /// `mechanism` is `laplace-l1`, `laplace-l2` or `gaussian` (needs `delta`).
    #[new]
    #[pyo3(signature = (value, mechanism="laplace-l1", sensitivity=1.0, seed=0, delta=None))]
    fn new(
        value: Vec<f64>,
        mechanism: &str,
        sensitivity: f64,
        seed: u64,
        delta: Option<f64>,
    ) -> PyResult<Self> {
        let noise = match (mechanism.trim().to_ascii_lowercase().as_str(), delta) {
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
                    "laplace-l1, laplace-l2 or gaussian",
                ));
            }
        };
        Ok(PyGradualRelease {
            r: GradualRelease::new(value, noise, sensitivity, seed).map_err(to_py)?,
        })
    }

    /// release(eps) -> numpy array (dim,): the answer at level `eps`.
    fn release<'py>(&mut self, py: Python<'py>, eps: f64) -> PyResult<Bound<'py, PyArray1<f64>>> {
        Ok(self.r.release(eps).map_err(to_py)?.into_pyarray(py))
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

    /// GradualRelease.load(path) -> GradualRelease: a state written by `save` or `relax`.
    #[staticmethod]
    fn load(path: PathBuf) -> PyResult<Self> {
        Ok(PyGradualRelease {
            r: GradualRelease::load(&path).map_err(to_py)?,
        })
    }

    /// to_json() -> str: the state as JSON text.
    fn to_json(&self) -> PyResult<String> {
        self.r.to_json().map_err(to_py)
    }

    fn __repr__(&self) -> String {
        format!(
            "GradualRelease(dim={}, releases={}, privacy_level={:?})",
            self.r.dim(),
            self.r.history().len(),
            self.r.privacy_level()
        )
    }
}

// ------------------------------------------------------------------ plots

/// Internal: draws figure `kind` from a run directory or file into `out`
/// (see `privdiffuse.plot`).
#[pyfunction]
#[pyo3(signature = (input, kind, out, width=1200, height=800, owner=None, edges=false))]
#[allow(clippy::too_many_arguments)]
fn _plot(
    py: Python<'_>,
    input: PathBuf,
    kind: &str,
    out: PathBuf,
    width: u32,
    height: u32,
    owner: Option<String>,
    edges: bool,
) -> PyResult<()> {
    let kind: Kind = parse(kind)?;
    let opts = PlotOptions {
        width,
        height,
        owner,
        edges,
    };
    blocking(py, &CancelToken::new(), None, || {
        privdiffuse::io::plot::draw(kind, Path::new(&input), &out, &opts)
    })
}

/// Internal: the library's default sketch size and tolerance (`approx_k`, `approx_tol`).
#[pyfunction]
fn _distance_defaults() -> (usize, f64) {
    let d = DistanceOptions::default();
    (d.approx_k, d.approx_tol)
}

#[pymodule]
fn _privdiffuse(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGraph>()?;
    m.add_class::<PyEpsilonMap>()?;
    m.add_class::<PyNoisePath>()?;
    m.add_class::<PySimOutput>()?;
    m.add_class::<PyCollusionOutput>()?;
    m.add_class::<PyGradualRelease>()?;
    m.add_function(wrap_pyfunction!(_sample_paths, m)?)?;
    m.add_function(wrap_pyfunction!(_simulate, m)?)?;
    m.add_function(wrap_pyfunction!(_collude, m)?)?;
    m.add_function(wrap_pyfunction!(_plot, m)?)?;
    m.add_function(wrap_pyfunction!(_distance_defaults, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

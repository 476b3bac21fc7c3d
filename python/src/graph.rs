//! `Graph`: the compressed-sparse-rows graph with its original ids, built by
//! the command line's loader or from id arrays (the conversions from
//! networkx and scipy, and the id checks, are in the Python package).

use crate::errors::{blocking, param_err, parse, to_py};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use privdiffuse::graph::NodeIds;
use privdiffuse::util::{AtomicFile, Existing};
use privdiffuse::{CancelToken, DistanceKind, DistanceOptions, Distances, Error, Graph};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// A static graph (compressed sparse rows) with the original node ids.
#[pyclass(module = "privdiffuse._privdiffuse", name = "Graph", frozen)]
#[derive(Clone)]
pub struct PyGraph {
    pub g: Arc<Graph>,
}

impl PyGraph {
    pub fn new(g: Graph) -> Self {
        PyGraph { g: Arc::new(g) }
    }

    /// Node indices of the given original ids (ints or strings).
    pub fn indices(&self, ids: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<u32>> {
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
    /// Graph.load(path, directed=False, nodes=None, header="auto") -> Graph
    ///
    /// Reads an edge list exactly as the command line's `--graph` does
    /// (whitespace or comma separated, optional weights, `.gz`, any ids;
    /// `nodes` names a file of extra node ids; `header` "yes", "no" or
    /// "auto" as `--header`: a skipped header line is a UserWarning). Raises
    /// FileNotFoundError or ValueError naming the file and line.
    #[staticmethod]
    #[pyo3(signature = (path, directed=false, nodes=None, header="auto"))]
    fn load(
        py: Python<'_>,
        path: PathBuf,
        directed: bool,
        nodes: Option<PathBuf>,
        header: &str,
    ) -> PyResult<Self> {
        let header: privdiffuse::graph::HeaderMode = header.parse().map_err(to_py)?;
        let opts = privdiffuse::LoadOptions {
            directed,
            nodes_file: nodes,
            header,
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
        let comment = format!("{} nodes, {} edges (privdiffuse)", self.g.n(), self.g.m());
        blocking(py, &CancelToken::new(), None, || {
            // Claimed as every output is: a new path at once, so that of
            // two concurrent saves one fails (a check of `exists()` first
            // let both write); replaced only with `force`.
            let mut f = AtomicFile::create_with(&path, Existing::for_out(true, force))?;
            privdiffuse::io::edge_list_to(&self.g, &mut f, &comment)
                .map_err(|e| Error::io(&path, e))?;
            Ok(f.commit()?)
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

    /// Internal: distances from node indices `owners` (see `Graph.distances`);
    /// `options` = (resistance_cap, approx_k, approx_tol, seed).
    #[pyo3(signature = (owners, kind, options, threads=None))]
    fn _distances<'py>(
        &self,
        py: Python<'py>,
        owners: PyReadonlyArray1<'py, u32>,
        kind: &str,
        options: (usize, usize, f64, u64),
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (resistance_cap, approx_k, approx_tol, seed) = options;
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

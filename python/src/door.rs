//! The one door: Python options become a JSON object and serde turns it into
//! the typed configuration that `--config summary.json` fills (each key
//! overlaid on the command's defaults; an unknown key is serde's error, which
//! lists the valid ones). Nothing here names an option, except `values` (an
//! array or a dict stays in memory, as `ValueSpec::Given`) and utility's
//! `sim` nesting, so an option added to a configuration reaches Python
//! unchanged.

use crate::epsilon::PyEpsilonMap;
use crate::errors::{param_err, to_py};
use numpy::PyReadonlyArray1;
use privdiffuse::graph::GraphView;
use privdiffuse::sim::config::resolve_noise_keys;
use privdiffuse::util::table::fields;
use privdiffuse::utility::UtilityConfig;
use privdiffuse::values::GivenValues;
use privdiffuse::{Error, Graph, LoadOptions, SimConfig, ValueSpec};
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// A Python value as JSON: None, bools, ints (64-bit), finite floats,
/// strings, lists, tuples, dicts with string keys, an `EpsilonMap` (its
/// canonical spec), an `os.PathLike` (its path) and numpy arrays or scalars
/// (their `tolist()`). `at` names the option in errors.
pub fn to_json(obj: &Bound<'_, PyAny>, at: &str) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(x) = obj.extract::<i64>() {
            return Ok(x.into());
        }
        if let Ok(x) = obj.extract::<u64>() {
            return Ok(x.into());
        }
        return Err(PyOverflowError::new_err(format!(
            "{at}: {} does not fit in 64 bits",
            obj.str()?
        )));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let x = f.value();
        return serde_json::Number::from_f64(x)
            .map(Value::Number)
            .ok_or_else(|| param_err(at, x, "a finite number"));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_owned()));
    }
    if let Ok(m) = obj.cast::<PyEpsilonMap>() {
        return Ok(Value::String(m.get().map.spec()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = Map::new();
        for (k, v) in d.iter() {
            let Ok(key) = k.extract::<String>() else {
                return Err(PyTypeError::new_err(format!(
                    "{at}: expected string keys, found {}",
                    k.repr()?
                )));
            };
            let inner = format!("{at}.{key}");
            map.insert(key, to_json(&v, &inner)?);
        }
        return Ok(Value::Object(map));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        return obj
            .try_iter()?
            .map(|x| to_json(&x?, at))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::Array);
    }
    if obj.hasattr("__fspath__")? {
        let path = obj.py().import("os")?.call_method1("fspath", (obj,))?;
        return to_json(&path, at);
    }
    if obj.hasattr("tolist")? {
        return to_json(&obj.call_method0("tolist")?, at);
    }
    Err(PyTypeError::new_err(format!(
        "{at}: expected a number, string, list or dict, found {}",
        obj.get_type().name()?
    )))
}

/// Private values given in memory (`values=` an array or a dict).
pub enum MemoryValues {
    /// Rows in the order of the graph's nodes (`cols` numbers each).
    Rows { data: Vec<f64>, cols: usize },
    /// Id (as text) → the node's numbers.
    ById(Vec<(String, Vec<f64>)>),
}

/// The options of one call: JSON for serde, and values kept in memory.
pub struct Options {
    /// Every option but in-memory values, as JSON.
    pub given: Map<String, Value>,
    /// `values=` as an array or a dict.
    pub values: Option<MemoryValues>,
}

/// The options dict of a call, as JSON (see [`to_json`]); `values` given as
/// a numpy array, a list or a dict is kept aside (a string stays a spec, an
/// `os.PathLike` becomes `file:PATH`).
pub fn options(dict: &Bound<'_, PyDict>) -> PyResult<Options> {
    let mut given = Map::new();
    let mut values = None;
    for (k, v) in dict.iter() {
        let key: String = k.extract()?;
        if key == "values" && !v.is_none() && !v.is_instance_of::<PyString>() {
            if v.hasattr("__fspath__")? {
                let path: String = v
                    .py()
                    .import("os")?
                    .call_method1("fspath", (&v,))?
                    .extract()?;
                given.insert(key, Value::String(format!("file:{path}")));
            } else {
                values = Some(memory_values(&v)?);
            }
            continue;
        }
        let json = to_json(&v, &key)?;
        given.insert(key, json);
    }
    Ok(Options { given, values })
}

/// The numbers of one node in a values dict: a number or a sequence.
fn numbers(x: &Bound<'_, PyAny>, id: &str) -> PyResult<Vec<f64>> {
    if let Ok(v) = x.extract::<f64>() {
        return Ok(vec![v]);
    }
    x.extract::<Vec<f64>>().map_err(|_| {
        PyTypeError::new_err(format!(
            "values[{id}]: expected a number or a sequence of numbers"
        ))
    })
}

fn memory_values(v: &Bound<'_, PyAny>) -> PyResult<MemoryValues> {
    if let Ok(d) = v.cast::<PyDict>() {
        let mut rows = Vec::with_capacity(d.len());
        for (k, x) in d.iter() {
            let id = if k.is_instance_of::<PyInt>() && !k.is_instance_of::<PyBool>() {
                k.str()?.to_string()
            } else if let Ok(s) = k.cast::<PyString>() {
                s.to_str()?.to_owned()
            } else if !k.is_instance_of::<PyBool>() && k.hasattr("__index__")? {
                // NumPy integers (the elements of `Graph.nodes` arrays).
                k.call_method0("__index__")?.str()?.to_string()
            } else {
                // The key's type, not the key: swapped, it is a secret.
                return Err(PyTypeError::new_err(format!(
                    "values: expected node ids (int or str) as keys, found a key of type {} \
                     (not shown)",
                    k.get_type().name()?
                )));
            };
            let x = numbers(&x, &id)?;
            rows.push((id, x));
        }
        return Ok(MemoryValues::ById(rows));
    }
    let np = v.py().import("numpy")?;
    let arr = np
        .call_method1("asarray", (v, "float64"))
        .map_err(|e| PyTypeError::new_err(format!("values: expected a spec string, a numpy array (one row per node) or a dict id → value ({e})")))?;
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    let cols = match shape.as_slice() {
        [_] => 1,
        [_, d] => *d,
        _ => {
            return Err(param_err(
                "values",
                format!("an array of shape {shape:?}"),
                "a 1-D array (dim 1) or an (N, dim) array, one row per node",
            ));
        }
    };
    let flat = np.call_method1("ascontiguousarray", (arr.call_method1("reshape", (-1,))?,))?;
    let flat: PyReadonlyArray1<'_, f64> = flat.extract()?;
    Ok(MemoryValues::Rows {
        data: flat.as_slice()?.to_vec(),
        cols,
    })
}

/// `base` with `given` laid over it: objects merged key by key (so
/// `distance_options={"approx_k": 50}` keeps the other sub-keys), `None`
/// (null) keeping the default, anything else replaced.
fn merge(base: &mut Map<String, Value>, given: Map<String, Value>) {
    for (k, v) in given {
        match (base.get_mut(&k), v) {
            (Some(_), Value::Null) => {}
            (Some(Value::Object(b)), Value::Object(v)) => merge(b, v),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// The configuration `T` of `command`: `defaults` with `given` overlaid, read by serde.
/// An unknown key is a `TypeError` (serde's message lists the valid keys),
/// any other refusal a `ValueError` naming the key.
pub fn config<T: Serialize + DeserializeOwned>(
    command: &str,
    defaults: &T,
    given: &Map<String, Value>,
) -> PyResult<T> {
    // `noise` and `mechanism` read together, at the top or in relay's and
    // utility's nested `sim`, as on every face.
    let mut given = given.clone();
    if let Ok(Value::Object(base)) = serde_json::to_value(defaults) {
        resolve_noise_keys(&base, &mut given, command).map_err(to_py)?;
        if let (Some(Value::Object(b)), Some(Value::Object(g))) =
            (base.get("sim"), given.get_mut("sim"))
        {
            resolve_noise_keys(b, g, command).map_err(to_py)?;
        }
    }
    let given = &given;
    let build = |given: Map<String, Value>| -> Result<T, serde_json::Error> {
        let mut base = match serde_json::to_value(defaults)? {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        merge(&mut base, given);
        serde_json::from_value(Value::Object(base))
    };
    match build(given.clone()) {
        Ok(c) => Ok(c),
        Err(e) => {
            let msg = e.to_string();
            if msg.starts_with("unknown field") {
                return Err(PyTypeError::new_err(msg));
            }
            // Name the key: the first one refused on its own. A nested
            // `sim` object (relay's and utility's simulation options, which
            // the caller wrote flat) is searched key by key: the user's key
            // is named, not `sim`.
            let mut singles: Vec<(String, Map<String, Value>)> = Vec::new();
            for (k, v) in given {
                match v {
                    Value::Object(inner) if k == "sim" => {
                        for (ik, iv) in inner {
                            let one = [(ik.clone(), iv.clone())].into_iter().collect();
                            let nested = [(k.clone(), Value::Object(one))].into_iter().collect();
                            singles.push((ik.clone(), nested));
                        }
                    }
                    _ => singles.push((k.clone(), [(k.clone(), v.clone())].into_iter().collect())),
                }
            }
            for (k, one) in singles {
                if let Err(e) = build(one) {
                    let m = e.to_string();
                    let m = if m.contains(k.as_str()) {
                        m
                    } else {
                        format!("{k}: {m}")
                    };
                    return Err(PyValueError::new_err(m));
                }
            }
            Err(PyValueError::new_err(msg))
        }
    }
}

/// Every key of a utility configuration for Python: the simulation's, then
/// the utility's own (`sim` apart).
pub fn utility_keys() -> &'static [&'static str] {
    static KEYS: OnceLock<Vec<&'static str>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut keys = fields::<SimConfig>().to_vec();
        keys.extend(fields::<UtilityConfig>().iter().filter(|k| **k != "sim"));
        keys
    })
}

/// Utility options as the nested object `summary.json` records: its own
/// keys at the top, a `sim` object merged, every other key under `sim` (so
/// `eps=…` and `sim={"eps": …}` are the same option).
pub fn utility_given(given: Map<String, Value>) -> PyResult<Map<String, Value>> {
    let own = fields::<UtilityConfig>();
    let sim_keys = fields::<SimConfig>();
    let mut top = Map::new();
    let mut sim = Map::new();
    for (k, v) in given {
        if k == "sim" {
            match v {
                Value::Object(m) => sim.extend(m),
                _ => return Err(param_err("sim", v, "a dict of simulation options")),
            }
        } else if own.contains(&k.as_str()) {
            top.insert(k, v);
        } else if sim_keys.contains(&k.as_str()) {
            sim.insert(k, v);
        } else {
            let e = <serde_json::Error as serde::de::Error>::unknown_field(&k, utility_keys());
            return Err(PyTypeError::new_err(e.to_string()));
        }
    }
    if !sim.is_empty() {
        top.insert("sim".into(), Value::Object(sim));
    }
    Ok(top)
}

/// The graph a run uses and the configuration's graph fields made to
/// describe it. With a `Graph` given, it is the graph (`graph` only records
/// its source, for `values = auto`; `nodes` must be absent and `directed`
/// agree); otherwise the configuration's `graph`, `nodes` and `directed` are
/// read by the command line's loader. The `view` is applied either way.
/// Returns the graph before the view (the order of in-memory values) and
/// the graph run on.
pub fn run_graph(
    given: Option<Arc<Graph>>,
    sim: &mut SimConfig,
    keys: &Map<String, Value>,
) -> privdiffuse::Result<(Arc<Graph>, Arc<Graph>)> {
    let base = match given {
        Some(g) => {
            if sim.nodes.is_some() {
                return Err(Error::param(
                    "nodes",
                    sim.nodes
                        .as_ref()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default(),
                    "no `nodes` file with a Graph given (it has its nodes)",
                ));
            }
            if keys.contains_key("header") {
                return Err(Error::param(
                    "header",
                    sim.header,
                    "no `header` with a Graph given (it is loaded already)",
                ));
            }
            if keys.contains_key("directed") && sim.directed != g.is_directed() {
                return Err(Error::param(
                    "directed",
                    sim.directed,
                    format!("{} (the Graph given)", g.is_directed()),
                ));
            }
            sim.directed = g.is_directed();
            if !keys.contains_key("graph") {
                sim.graph = g.source().map(|p| p.to_path_buf()).unwrap_or_default();
            }
            g
        }
        None => Arc::new(Graph::load_with(
            &sim.graph,
            &LoadOptions {
                directed: sim.directed,
                nodes_file: sim.nodes.clone(),
                header: sim.header,
                ..LoadOptions::default()
            },
        )?),
    };
    let run = match &sim.view {
        Some(v) => Arc::new(GraphView::apply(v, &base)?),
        None => base.clone(),
    };
    Ok((base, run))
}

/// In-memory values as the `values` of `sim`, one row per node of `run`:
/// rows follow the nodes of `base` (a view keeps its nodes' rows); a dict
/// must name every node of `run` once and no id outside `base`.
pub fn set_values(
    values: MemoryValues,
    base: &Graph,
    run: &Graph,
    sim: &mut SimConfig,
) -> privdiffuse::Result<()> {
    let (table, cols) = match values {
        MemoryValues::Rows { data, cols } => {
            let rows = data.len() / cols.max(1);
            if rows != base.n() {
                return Err(Error::param(
                    "values",
                    format!("{rows} rows"),
                    format!(
                        "one row per node of the graph ({}), in the order of `Graph.nodes`",
                        base.n()
                    ),
                ));
            }
            let table = if std::ptr::eq(base, run) {
                data
            } else {
                let mut t = Vec::with_capacity(run.n() * cols);
                for j in 0..run.n() as u32 {
                    let label = run.ids().label(j).to_string();
                    let i = base.ids().index_of(&label).ok_or_else(|| {
                        Error::param("values", &label, "a node of the graph given")
                    })? as usize;
                    t.extend_from_slice(&data[i * cols..(i + 1) * cols]);
                }
                t
            };
            (table, cols)
        }
        MemoryValues::ById(rows) => {
            let cols = rows.first().map_or(sim.dim, |(_, x)| x.len());
            let mut by_id: HashMap<&str, &[f64]> = HashMap::with_capacity(rows.len());
            let mut unknown = Vec::new();
            for (id, x) in &rows {
                if x.len() != cols {
                    return Err(Error::param(
                        "values",
                        format!("{id}: {} numbers", x.len()),
                        format!("{cols} numbers per node, as the first"),
                    ));
                }
                if base.ids().index_of(id).is_none() {
                    unknown.push(id.as_str());
                }
                by_id.insert(id, x);
            }
            if !unknown.is_empty() {
                // How many, never which: swapped, the keys are the secrets.
                return Err(Error::param(
                    "values",
                    "(not shown)",
                    format!(
                        "ids of the graph's nodes as keys ({} unknown)",
                        unknown.len()
                    ),
                ));
            }
            let mut table = Vec::with_capacity(run.n() * cols);
            let mut missing = Vec::new();
            for j in 0..run.n() as u32 {
                let label = run.ids().label(j).to_string();
                match by_id.get(label.as_str()) {
                    Some(x) => table.extend_from_slice(x),
                    None => missing.push(label),
                }
            }
            if !missing.is_empty() {
                return Err(Error::param(
                    "values",
                    format!(
                        "{} node(s) without a value, e.g. {}",
                        missing.len(),
                        missing[..missing.len().min(5)].join(", ")
                    ),
                    "a value for every node",
                ));
            }
            (table, cols)
        }
    };
    sim.values = ValueSpec::Given(GivenValues::new(table, cols)?);
    Ok(())
}

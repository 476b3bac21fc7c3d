//! `privdiffuse._privdiffuse`: the native half of the Python package.
//!
//! Thin PyO3 wrappers over the typed Rust API of the `privdiffuse` crate.
//! The runs (`simulate`, `collude`, `utility`, `gossip`, `sweep`) take their options
//! through one door ([`door`]): a dict of the configuration's serde keys —
//! the keys of `summary.json`'s `config` (or of a sweep file's `[base]` and
//! `[grid]`) — read by serde into the same typed configuration the command
//! line's `--config` fills, so no option is listed here. The pure-Python
//! package `privdiffuse` (beside this crate) adds the conversions from
//! networkx/scipy, the id checks and the pandas frames.
//!
//! Every heavy call runs on a worker thread with the GIL released while the
//! calling thread polls `Python::check_signals` every 50 ms: Ctrl-C cancels
//! the run through its `CancelToken` and raises `KeyboardInterrupt`. Library
//! errors map to `ValueError` (parameters, input), `FileNotFoundError`,
//! `FileExistsError`, `OSError`; an unknown option to `TypeError`; a panic
//! (a bug) to `RuntimeError`.

mod collude;
mod door;
mod epsilon;
mod errors;
mod evolve;
mod gossip;
mod graph;
mod noise;
mod relay;
mod simulate;
mod sweep;
mod tables;
mod utility;

use errors::{param_err, parse, quick};
use privdiffuse::DistanceOptions;
use privdiffuse::io::PlotSpec;
use privdiffuse::io::plot::{Kind, PlotOptions};
use pyo3::prelude::*;
use std::path::{Path, PathBuf};

/// The drawing options `privdiffuse.plot` passes to [`_plot`] as a dict,
/// its keyword arguments checked and converted there: the fields of
/// [`PlotOptions`], the sweep's ([`PlotSpec`]) among them.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct PlotArgs {
    size: (u32, u32),
    owner: Option<String>,
    edges: bool,
    x: Option<String>,
    metrics: Vec<String>,
    only: Vec<(String, String)>,
    at: Vec<f64>,
    log_x: bool,
    per_seed: bool,
}

impl From<PlotArgs> for PlotOptions {
    fn from(a: PlotArgs) -> PlotOptions {
        let (width, height) = a.size;
        PlotOptions {
            width,
            height,
            owner: a.owner,
            edges: a.edges,
            sweep: PlotSpec {
                x: a.x.unwrap_or_default(),
                metrics: a.metrics,
                at: a.at,
                only: a.only,
                log_x: a.log_x,
                per_seed: a.per_seed,
            },
        }
    }
}

/// Internal: draws figure `kind` from a run directory or file into `out`
/// (see `privdiffuse.plot`) with the options `options`.
#[pyfunction]
fn _plot(
    py: Python<'_>,
    input: PathBuf,
    kind: &str,
    out: PathBuf,
    options: PlotArgs,
) -> PyResult<()> {
    let kind: Kind = parse(kind)?;
    let opts = PlotOptions::from(options);
    quick(py, || {
        privdiffuse::io::plot::draw(kind, Path::new(&input), &out, &opts)
    })
}

/// Internal: the library's default sketch size and tolerance (`approx_k`, `approx_tol`).
#[pyfunction]
fn _distance_defaults() -> (usize, f64) {
    let d = DistanceOptions::default();
    (d.approx_k, d.approx_tol)
}

/// Internal: the option names of `command` (`simulate`, `collude`,
/// `utility`, `relay`): the serde keys of its configuration.
#[pyfunction]
fn _option_names(command: &str) -> PyResult<Vec<&'static str>> {
    match command {
        "simulate" => Ok(privdiffuse::util::table::fields::<privdiffuse::SimConfig>().to_vec()),
        "collude" => Ok(privdiffuse::collusion::config::collusion_keys().to_vec()),
        "utility" => Ok(door::utility_keys().to_vec()),
        "relay" => Ok(relay::relay_keys().to_vec()),
        "gossip" => {
            Ok(privdiffuse::util::table::fields::<privdiffuse::gossip::GossipConfig>().to_vec())
        }
        "evolve" => {
            Ok(privdiffuse::util::table::fields::<privdiffuse::evolve::EvolveConfig>().to_vec())
        }
        _ => Err(param_err(
            "command",
            command,
            "simulate, collude, utility, relay, gossip or evolve",
        )),
    }
}

#[pymodule]
fn _privdiffuse(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::collect_warnings();
    m.add_class::<graph::PyGraph>()?;
    m.add_class::<epsilon::PyEpsilonMap>()?;
    m.add_class::<noise::PyNoisePath>()?;
    m.add_class::<noise::PyGradualRelease>()?;
    m.add_class::<simulate::PySimOutput>()?;
    m.add_class::<collude::PyCollusionOutput>()?;
    m.add_class::<utility::PyUtilityOutput>()?;
    m.add_class::<relay::PyRelayOutput>()?;
    m.add_class::<sweep::PySweepOutput>()?;
    m.add_class::<evolve::PyStore>()?;
    m.add_function(wrap_pyfunction!(noise::_sample_paths, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::_simulate, m)?)?;
    m.add_function(wrap_pyfunction!(collude::_collude, m)?)?;
    m.add_function(wrap_pyfunction!(utility::_utility, m)?)?;
    m.add_function(wrap_pyfunction!(gossip::_gossip, m)?)?;
    m.add_function(wrap_pyfunction!(relay::_relay, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::_sweep, m)?)?;
    m.add_function(wrap_pyfunction!(evolve::_evolve, m)?)?;
    m.add_function(wrap_pyfunction!(_plot, m)?)?;
    m.add_function(wrap_pyfunction!(_distance_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(_option_names, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

//! `gossip`: the options through the door into a `GossipConfig`, the run in
//! memory, and its files (held, shown and saved as `utility`'s are: the
//! same `utility.csv` rows draw its figure).

use crate::door;
use crate::errors::blocking;
use crate::graph::PyGraph;
use crate::utility::PyUtilityOutput;
use privdiffuse::gossip::{GossipConfig, run_gossip};
use privdiffuse::io::gossip_files;
use privdiffuse::{CancelToken, Control, Error, SimConfig};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::time::Instant;

/// Internal: private gossip averaging beside diffusion (see
/// `privdiffuse.gossip`): `options` are the keys of `summary.json`'s
/// `config`.
#[pyfunction]
#[pyo3(signature = (graph, options, threads=None))]
pub fn _gossip(
    py: Python<'_>,
    graph: Option<PyRef<'_, PyGraph>>,
    options: &Bound<'_, PyDict>,
    threads: Option<usize>,
) -> PyResult<PyUtilityOutput> {
    let door::Options { given, values } = door::options(options)?;
    if !given.contains_key("sigma") {
        let e = GossipConfig::sigma_missing();
        return Err(pyo3::exceptions::PyTypeError::new_err(e.to_string()));
    }
    let mut config: GossipConfig = door::config("gossip", &GossipConfig::default(), &given)?;
    let g = graph.map(|p| p.g.clone());
    let token = CancelToken::new();
    let t = Instant::now();
    let (files, rows, threads) = blocking(py, &token, threads, || {
        config.check()?;
        // The graph and in-memory values as every run reads them.
        let mut sim = SimConfig {
            graph: config.graph.clone(),
            nodes: config.nodes.clone(),
            view: config.view.clone(),
            dim: 1,
            ..SimConfig::default()
        };
        let (base, run) = door::run_graph(g, &mut sim, &given)?;
        if let Some(v) = values {
            door::set_values(v, &base, &run, &mut sim)?;
            config.values = sim.values.clone();
        }
        config.graph = sim.graph.clone();
        let out = run_gossip(&run, &config, &Control::new().with_cancel(token.clone()))?;
        let files = gossip_files(&out)?;
        Ok::<_, Error>((files, out.utility, rayon::current_num_threads()))
    })?;
    Ok(PyUtilityOutput {
        files,
        rows,
        seconds: t.elapsed().as_secs_f64(),
        threads,
    })
}

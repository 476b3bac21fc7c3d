//! `relay --out DIR` (issue 26): `relay.csv`, `relay_by_distance.csv`,
//! `summary.json`, `timings.json` and the figure, in a staging directory
//! that replaces DIR only when complete (the rules of `simulate`). The
//! engine (`crate::relay`) hands over typed rows; this module writes them.

use super::csv::CsvSink;
#[cfg(feature = "plots")]
use super::run_dir::at_destination;
use super::run_dir::{claim_out_dir, write_error, write_json};
use super::run_dir::{create, finish};
use super::simulate::OutputOptions;
use super::{check_plots_available, simulate::sim_default_out_dir};
use crate::control::Control;
use crate::distance::Distances;
use crate::error::{Error, Result};
use crate::exec::{Local, RoundExecutor};
use crate::relay::stats::{RunStats, bucket_rows, owner_rows};
use crate::relay::{RelayByDistanceRow, RelayConfig, RelayEngine, RelayPlan};
use crate::relay::{RelaySummary, summarize};
use crate::sim::{ResponseRow, SimConfig};
use crate::util::table::{self, CsvRow};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `timings.json` of a relay run (kept apart: every other file is a pure
/// function of the configuration).
#[derive(Clone, Debug, Default, Serialize)]
pub struct RelayTimings {
    /// Worker threads.
    pub threads: usize,
    /// Loading the graph.
    pub load_s: f64,
    /// Resolving owners, values and the map.
    pub plan_s: f64,
    /// Every owner's diffusion.
    pub relay_s: f64,
    /// `responses.csv` (with `responses`; absent otherwise).
    #[serde(skip_serializing_if = "is_zero")]
    pub responses_s: f64,
    /// Figures.
    pub plots_s: f64,
    /// Everything.
    pub total_s: f64,
}

const WHAT: &str = "a row of the relay's output";

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// Loads the graph, runs the relay in this process and writes every output
/// into `opts.out` atomically.
pub fn relay_to_dir(
    config: &RelayConfig,
    opts: &OutputOptions,
) -> Result<(RelaySummary, RelayTimings)> {
    let done = relay_to_dir_on(config, opts, &Local)?;
    done.ok_or_else(|| Error::Unsupported("a local run merges and writes".into()))
}

/// [`relay_to_dir`] on an executor. In one process the owners run in
/// chunks on its threads; over a cluster the protocol runs as the round
/// exchange ([`RelayPlan::run_on`]): peer 0 writes the outputs, byte for
/// byte those of a local run (`timings.json` apart), the other peers compute
/// their parts, write nothing and return `None`.
pub fn relay_to_dir_on(
    config: &RelayConfig,
    opts: &OutputOptions,
    exec: &impl RoundExecutor,
) -> Result<Option<(RelaySummary, RelayTimings)>> {
    config.check()?;
    if !exec.merges_here() {
        let graph = config.sim.load_graph()?;
        let distances = Distances::new(&graph, config.sim.distance, &config.sim.distance_options)?;
        let plan = RelayPlan::new(config, &graph, &distances)?;
        plan.run_on(exec, RelayEngine::Auto, &opts.control)?;
        return Ok(None);
    }
    if opts.plots {
        check_plots_available()?;
    }
    let dir = claim_out_dir(&opts.out, opts.explicit_out, opts.force)?;
    let t0 = Instant::now();
    let mut timings = RelayTimings {
        threads: rayon::current_num_threads(),
        ..Default::default()
    };
    let sim = &config.sim;
    if sim.graph == Path::new(crate::sim::DEFAULT_GRAPH) && !sim.graph.exists() {
        return Err(Error::Unsupported(format!(
            "the default graph {} is not here: run from the privdiffuse repository root, or pass `graph` = PATH",
            sim.graph.display()
        )));
    }
    let control = &opts.control;
    control.phase("loading the graph");
    let graph = sim.load_graph()?;
    timings.load_s = t0.elapsed().as_secs_f64();
    let t = Instant::now();
    control.phase("preparing distances");
    let distances = Distances::new(&graph, sim.distance, &sim.distance_options)?;
    control.phase("planning");
    let plan = RelayPlan::new(config, &graph, &distances)?;
    timings.plan_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    control.phase("relaying");
    let stats = plan
        .run_on(exec, RelayEngine::Auto, &opts.control)?
        .ok_or_else(|| Error::Unsupported("peer 0 merges the relay's counts".into()))?;
    timings.relay_s = t.elapsed().as_secs_f64();
    if config.sim.responses {
        // Every recipient's read-out, in simulate's rows and writer (issue
        // 33 item 13): computed here, where the outputs are written.
        let t = Instant::now();
        let n = config.sim.dim;
        let mut rows = CsvSink::<ResponseRow>::create(&dir, "responses.csv", WHAT, n, &[])?;
        plan.responses_into(&mut rows, &opts.control)?;
        rows.finish()?;
        timings.responses_s = t.elapsed().as_secs_f64();
    }
    control.phase("writing outputs");
    let (files, by_distance) = relay_files(&plan, &stats)?;
    for (name, bytes) in &files {
        let mut w = create(&dir, name)?;
        w.write_all(bytes).map_err(|e| write_error(&dir, name, e))?;
        finish(&dir, w, name)?;
    }
    let summary = summarize(&plan, &stats);
    #[cfg(not(feature = "plots"))]
    let _ = &by_distance; // drawn only with the figures
    if opts.plots {
        control.phase("drawing figures");
        let t = Instant::now();
        #[cfg(feature = "plots")]
        super::plot::relay::draw(dir.staging(), &by_distance)
            .map_err(|e| at_destination(&dir, e))?;
        timings.plots_s = t.elapsed().as_secs_f64();
    }
    timings.total_s = t0.elapsed().as_secs_f64();
    write_json(&dir, "timings.json", &timings)?;
    dir.commit()?;
    Ok(Some((summary, timings)))
}

/// A file of a run directory in memory: its name and its bytes.
pub type NamedFile = (&'static str, Vec<u8>);

/// The files of a finished run, formatted in memory as `relay --out`
/// writes them: `relay.csv`, `relay_by_distance.csv` and `summary.json`
/// (the Python package returns these bytes); also the by-distance rows, for
/// the figure.
pub fn relay_files(
    plan: &RelayPlan<'_>,
    stats: &RunStats,
) -> Result<(Vec<NamedFile>, Vec<RelayByDistanceRow>)> {
    let labels: Vec<String> = plan
        .owners()
        .iter()
        .map(|&o| plan.graph().ids().label(o).to_string())
        .collect();
    let rows = owner_rows(stats, &labels, plan.fractions());
    let by_distance = bucket_rows(stats, plan.buckets(), plan.fractions());
    let mut summary = serde_json::to_vec_pretty(&summarize(plan, stats))
        .map_err(|e| Error::Numerical(format!("summary.json: {e}")))?;
    summary.push(b'\n');
    let files = vec![
        ("relay.csv", csv_bytes("relay.csv", 0, &rows)?),
        (
            "relay_by_distance.csv",
            csv_bytes("relay_by_distance.csv", 0, &by_distance)?,
        ),
        ("summary.json", summary),
    ];
    Ok((files, by_distance))
}

/// `responses.csv` of a relay run in memory (the Python package's
/// `responses=True`): the rows of [`RelayPlan::responses_into`], formatted
/// as `relay --responses` and `simulate --responses` write them.
pub fn relay_responses_csv(plan: &RelayPlan<'_>, control: &Control) -> Result<NamedFile> {
    let mut rows: Vec<ResponseRow> = Vec::new();
    plan.responses_into(&mut rows, control)?;
    let n = plan.config().sim.dim;
    Ok(("responses.csv", csv_bytes("responses.csv", n, &rows)?))
}

/// The header of `R` (vectors of `n` columns) and its rows, as the run's
/// CSV writers format them.
fn csv_bytes<R: CsvRow>(name: &str, n: usize, rows: &[R]) -> Result<Vec<u8>> {
    let fail = |e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::InvalidData {
            Error::Numerical(format!("{name}: {e} ({WHAT} is not a finite number)"))
        } else {
            Error::Numerical(format!("{name}: {e}"))
        }
    };
    let mut w =
        table::Writer::with_header(Vec::new(), table::columns::<R>(n, &[])).map_err(fail)?;
    for r in rows {
        w.row(r).map_err(fail)?;
    }
    w.into_inner().map_err(fail)
}

/// Reads the `config` object of a relay `summary.json` (or, without a `sim`
/// member, a `simulate` summary's configuration with the default fractions).
pub fn relay_config_from_summary(path: &Path) -> Result<RelayConfig> {
    let text = crate::util::lines::read_text(path, super::summary::MAX_SUMMARY_BYTES)?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::input(path, e.line(), format!("not valid JSON: {e}")))?;
    let cfg = v
        .get("config")
        .cloned()
        .ok_or_else(|| Error::input(path, 1, "expected a summary.json with a \"config\" object"))?;
    if cfg.get("sim").is_some() {
        serde_json::from_value(cfg)
            .map_err(|e| Error::input(path, 1, format!("invalid \"config\": {e}")))
    } else {
        let sim: SimConfig = serde_json::from_value(cfg)
            .map_err(|e| Error::input(path, 1, format!("invalid \"config\": {e}")))?;
        Ok(RelayConfig {
            sim,
            ..RelayConfig::default()
        })
    }
}

/// The default output directory: `runs/<graph stem>-relay` (the view
/// appended as for `simulate`, before `-relay`).
pub fn relay_default_out_dir(config: &RelayConfig) -> PathBuf {
    let sim = sim_default_out_dir(&config.sim);
    let mut name = sim
        .file_name()
        .map(|s| s.to_os_string())
        .unwrap_or_else(|| "run".into());
    name.push("-relay");
    sim.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_out_dir_is_the_graph_stem_and_relay() {
        let c = RelayConfig::default();
        assert_eq!(
            relay_default_out_dir(&c),
            PathBuf::from("runs/geometric150-relay")
        );
    }
}

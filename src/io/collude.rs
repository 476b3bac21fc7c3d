//! `collude --out DIR`: configuration, output files and the run as a library
//! call ([`collude_to_dir`]). Written into a staging directory that replaces
//! DIR only when complete, like `simulate`.
//!
//! Files: `coalition.csv` (one row per owner × coalition × mechanism ×
//! estimator), `audit.csv` (one row per owner × coalition × mechanism),
//! `summary.json` (configuration, ε map, graph, pooled results) and
//! `timings.json` (the only file that depends on the machine), plus the
//! gain figure `coalition.png`/`.svg` unless plots are off.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use crate::collusion::estimator_list;
use crate::collusion::{
    AuditRow, CoalitionResult, CoalitionRow, CollusionConfig, CollusionSummary, PhaseTimes,
    audit_rows, coalition_rows, collude_on, summarize_collusion,
};
use crate::distance::Distances;
use crate::error::{Error, Result};
use crate::io::run_dir::{at_destination, claim_out_dir, write_error, write_json};
use crate::io::run_dir::{create, finish};
use crate::io::simulate::OutputOptions;
use crate::io::{RunFigures, check_plots_available, draw_run_figures};
use crate::sim::Plan;
use crate::util::table::{self, columns};

/// `timings.json` of `collude`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CollusionTimings {
    /// Worker threads.
    pub threads: usize,
    /// Seconds loading the graph.
    pub load_s: f64,
    /// Seconds setting up the distance route before any owner: the exact
    /// resistance factorisation or the sketch (≈0 for hop and weighted, whose
    /// per-owner searches are part of the owners' time).
    pub distance_setup_s: f64,
    /// Seconds resolving owners, values and the map.
    pub plan_s: f64,
    /// Wall seconds of the trials.
    pub collude_s: f64,
    /// CPU seconds per phase of the trials (summed over workers).
    pub phases: PhaseTimes,
    /// Seconds writing the CSV and summary files.
    pub write_s: f64,
    /// Seconds drawing figures.
    pub plots_s: f64,
    /// Total seconds.
    pub total_s: f64,
}

/// Writes `coalition.csv` (rows from [`coalition_rows`]).
pub fn write_coalition_csv(w: &mut dyn Write, rows: &[CoalitionRow]) -> std::io::Result<()> {
    let mut out = table::Writer::with_header(w, columns::<CoalitionRow>(0, &[]))?;
    for row in rows {
        out.row(row)?;
    }
    out.into_inner().map(|_| ())
}

/// Writes `audit.csv`.
pub fn write_audit_csv(
    w: &mut dyn Write,
    plan: &Plan<'_>,
    results: &[CoalitionResult],
) -> std::io::Result<()> {
    let mut out = table::Writer::with_header(w, columns::<AuditRow>(0, &[]))?;
    for row in audit_rows(plan, results) {
        out.row(&row)?;
    }
    out.into_inner().map(|_| ())
}

/// Loads the graph, runs every trial and writes every output into `run.out`
/// atomically. Returns the summary and timings. On any error nothing is left
/// behind (the staging directory is removed).
pub fn collude_to_dir(
    config: &CollusionConfig,
    run: &OutputOptions,
) -> Result<(CollusionSummary, CollusionTimings)> {
    let done = collude_to_dir_on(config, run, &crate::exec::Local)?;
    Ok(done.expect("a local run merges and writes"))
}

/// [`collude_to_dir`] on an executor. Where the executor merges (locally,
/// or process 0 of a cluster) the outputs are written and the summary and
/// timings returned, byte for byte those of a local run (`timings.json`
/// apart); elsewhere (a cluster's other processes) the graph is loaded,
/// this process's owner chunks computed and sent, nothing is written, and
/// the result is `None`.
pub fn collude_to_dir_on(
    config: &CollusionConfig,
    run: &OutputOptions,
    exec: &impl crate::exec::Executor,
) -> Result<Option<(CollusionSummary, CollusionTimings)>> {
    if !exec.merges_here() {
        config.sim.check()?;
        let opts = config.options()?;
        let graph = config.sim.load_graph()?;
        for spec in &opts.coalitions {
            spec.check(graph.ids())?;
        }
        let mut config = config.clone();
        config.fit_default_owners(graph.n());
        let distances = Distances::new(&graph, config.sim.distance, &config.sim.distance_options)?;
        let plan = Plan::new(&config.sim, &graph, &distances)?;
        collude_on(&plan, &opts, &run.control, exec)?;
        return Ok(None);
    }
    if run.plots {
        check_plots_available()?;
    }
    // Everything that needs no graph, before the graph is read.
    config.sim.check()?;
    let dir = claim_out_dir(&run.out, run.explicit_out, run.force)?;
    let opts = config.options()?;
    let t0 = Instant::now();
    let mut timings = CollusionTimings {
        threads: rayon::current_num_threads(),
        ..Default::default()
    };
    let control = &run.control;
    control.phase("loading the graph");
    let graph = config.sim.load_graph()?;
    timings.load_s = t0.elapsed().as_secs_f64();
    for spec in &opts.coalitions {
        spec.check(graph.ids())?;
    }
    let mut config = config.clone();
    config.fit_default_owners(graph.n());
    let t = Instant::now();
    control.phase("preparing distances");
    let distances = Distances::new(&graph, config.sim.distance, &config.sim.distance_options)?;
    timings.distance_setup_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    control.phase("planning");
    let plan = Plan::new(&config.sim, &graph, &distances)?;
    timings.plan_s = t.elapsed().as_secs_f64();

    let t = Instant::now();
    control.phase("colluding");
    let result =
        collude_on(&plan, &opts, &run.control, exec)?.expect("process 0 and local runs merge");
    timings.collude_s = t.elapsed().as_secs_f64();
    timings.phases = result.phases;

    let t = Instant::now();
    control.phase("writing outputs");
    let rows = coalition_rows(&plan, &result.results)?;
    let mut w = create(&dir, "coalition.csv")?;
    write_coalition_csv(&mut w, &rows).map_err(|e| write_error(&dir, "coalition.csv", e))?;
    finish(&dir, w, "coalition.csv")?;
    let mut w = create(&dir, "audit.csv")?;
    write_audit_csv(&mut w, &plan, &result.results)
        .map_err(|e| write_error(&dir, "audit.csv", e))?;
    finish(&dir, w, "audit.csv")?;
    let summary = summarize_collusion(&config, &plan, &opts, &result);
    write_json(&dir, "summary.json", &summary)?;
    timings.write_s = t.elapsed().as_secs_f64();
    if run.plots {
        control.phase("drawing figures");
        let t = Instant::now();
        // coalition.png / coalition.svg: gain per coalition × estimator.
        draw_run_figures(dir.staging(), RunFigures::Collusion)
            .map_err(|e| at_destination(&dir, e))?;
        timings.plots_s = t.elapsed().as_secs_f64();
    }
    timings.total_s = t0.elapsed().as_secs_f64();
    write_json(&dir, "timings.json", &timings)?;
    dir.commit()?;
    Ok(Some((summary, timings)))
}

/// Reads the `config` object of a `summary.json` written by `collude` or by
/// `simulate` (whose config lacks the collusion keys: they keep their
/// defaults; its `owners` is kept).
pub fn collude_config_from_summary(path: &Path) -> Result<CollusionConfig> {
    let text = crate::util::lines::read_text(path, super::summary::MAX_SUMMARY_BYTES)?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::input(path, e.line(), format!("not valid JSON: {e}")))?;
    let Some(serde_json::Value::Object(mut obj)) = v.get("config").cloned() else {
        return Err(Error::input(
            path,
            1,
            "expected a summary.json with a \"config\" object",
        ));
    };
    let mut c = CollusionConfig::default();
    let bad = |key: &str, e: serde_json::Error| {
        Error::input(path, 1, format!("invalid \"config\".{key}: {e}"))
    };
    let mut own: Vec<(&str, serde_json::Value)> = Vec::new();
    for key in crate::collusion::config::OWN_KEYS {
        if let Some(v) = obj.remove(key) {
            own.push((key, v));
        }
    }
    c.sim = serde_json::from_value(serde_json::Value::Object(obj))
        .map_err(|e| Error::input(path, 1, format!("invalid \"config\": {e}")))?;
    for (key, v) in own {
        match key {
            "coalitions" => c.coalitions = serde_json::from_value(v).map_err(|e| bad(key, e))?,
            "estimators" => {
                c.estimators = estimator_list::deserialize(v).map_err(|e| bad(key, e))?
            }
            "trials" => c.trials = serde_json::from_value(v).map_err(|e| bad(key, e))?,
            _ => c.composition_delta = serde_json::from_value(v).map_err(|e| bad(key, e))?,
        }
    }
    Ok(c)
}

/// The default output directory: `runs/<graph stem>-collude`.
pub fn collude_default_out_dir(config: &CollusionConfig) -> PathBuf {
    let base = super::simulate::sim_default_out_dir(&config.sim);
    let name = base
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "run".into());
    base.with_file_name(format!("{name}-collude"))
}

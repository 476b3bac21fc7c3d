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

use serde::Serialize;

use crate::collusion::estimator_list;
use crate::collusion::{
    AuditRow, CoalitionResult, CoalitionRow, CollusionConfig, CollusionOptions, CollusionResult,
    CollusionSummary, PhaseTimes, audit_rows, coalition_rows, collude_on, summarize_collusion,
};
use crate::distance::Distances;
use crate::error::{Error, Result};
use crate::exec::Executor;
use crate::graph::Graph;
use crate::io::driver::OutputOptions;
use crate::io::driver::{At, Job, Phases, RunFile, load_sim_graph, run_here, run_to_dir};
use crate::io::summary::{config_as, config_object, no_config};
use crate::io::{RunFigures, draw_run_figures};
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
    run_here(Collude::new(config), run)
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
    exec: &impl Executor,
) -> Result<Option<(CollusionSummary, CollusionTimings)>> {
    run_to_dir(Collude::new(config), run, exec)
}

/// `collude` as a [`Job`]: the configuration is fitted to the graph (the
/// default owner count on a small graph), the options resolved before it.
struct Collude {
    config: CollusionConfig,
    opts: Option<CollusionOptions>,
}

impl Collude {
    fn new(config: &CollusionConfig) -> Self {
        Collude {
            config: config.clone(),
            opts: None,
        }
    }

    fn opts(&self) -> Result<&CollusionOptions> {
        self.opts
            .as_ref()
            .ok_or_else(|| Error::Unsupported("collude's options are resolved first".into()))
    }
}

impl<E: Executor> Job<E> for Collude {
    type Summary = CollusionSummary;
    type Timings = CollusionTimings;
    type Ground<'g> = Distances<'g>;
    type Plan<'g> = Plan<'g>;
    type Ran = CollusionResult;
    const RUNNING: &'static str = "colluding";

    fn prepare(&mut self) -> Result<()> {
        self.config.sim.check()?;
        self.opts = Some(self.config.options()?);
        Ok(())
    }

    fn load(&mut self) -> Result<Graph> {
        let graph = load_sim_graph(&self.config.sim)?;
        for spec in &self.opts()?.coalitions {
            spec.check(graph.ids())?;
        }
        self.config.fit_default_owners(graph.n());
        Ok(graph)
    }

    fn ground<'g>(&self, graph: &'g Graph) -> Result<Distances<'g>> {
        let sim = &self.config.sim;
        Distances::new(graph, sim.distance, &sim.distance_options)
    }

    fn plan<'p, 'g: 'p>(&'p self, graph: &'g Graph, ground: &'p Distances<'g>) -> Result<Plan<'p>> {
        Plan::new(&self.config.sim, graph, ground)
    }

    fn run(&self, plan: &mut Plan<'_>, at: At<'_, E>) -> Result<Option<CollusionResult>> {
        collude_on(plan, self.opts()?, at.control, at.exec)
    }

    fn files<'a>(
        &'a self,
        plan: &'a Plan<'_>,
        ran: &'a CollusionResult,
    ) -> Result<Vec<RunFile<'a>>> {
        let rows = coalition_rows(plan, &ran.results)?;
        Ok(vec![
            RunFile::new("coalition.csv", move |w| write_coalition_csv(w, &rows)),
            RunFile::new("audit.csv", |w| write_audit_csv(w, plan, &ran.results)),
        ])
    }

    fn summary(&self, plan: &Plan<'_>, ran: &CollusionResult) -> Result<CollusionSummary> {
        Ok(summarize_collusion(&self.config, plan, self.opts()?, ran))
    }

    fn draw(&self, _: &Plan<'_>, _: &CollusionResult, dir: &Path) -> Result<()> {
        // coalition.png / coalition.svg: gain per coalition × estimator.
        draw_run_figures(dir, RunFigures::Collusion)
    }

    fn timings(&self, t: Phases, _: &Plan<'_>, ran: &CollusionResult) -> CollusionTimings {
        CollusionTimings {
            threads: t.threads,
            load_s: t.load_s,
            distance_setup_s: t.distances_s,
            plan_s: t.plan_s,
            collude_s: t.run_s,
            phases: ran.phases,
            write_s: t.write_s,
            plots_s: t.plots_s,
            total_s: t.total_s,
        }
    }
}

/// Reads the `config` object of a `summary.json` written by `collude` or by
/// `simulate` (whose config lacks the collusion keys: they keep their
/// defaults; its `owners` is kept).
pub fn collude_config_from_summary(path: &Path) -> Result<CollusionConfig> {
    let serde_json::Value::Object(mut obj) = config_object(path)? else {
        return Err(no_config(path));
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
    c.sim = config_as(path, serde_json::Value::Object(obj))?;
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
    super::simulate::sim_default_out_dir_of(&config.sim, "collude")
}

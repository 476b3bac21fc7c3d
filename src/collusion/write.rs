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

use super::coalition::Coalition;
use super::estimators::{Estimator, estimator_list};
use super::rows::{AuditRow, CoalitionRow};
use super::run::{CoalitionResult, ColludeOptions, ColludeResult, PhaseTimes, collude_on};
use crate::control::Control;
use crate::distance::Distances;
use crate::error::{Error, Result};
use crate::graph::GraphStats;
use crate::output::{RunFigures, check_plots_available, draw_run_figures};
use crate::sim::write::{
    MapSummary, at_destination, claim_out_dir, create, finish, write_error, write_json,
};
use crate::sim::{Owners, Plan, SimConfig};
use crate::util::table::{self, columns};

/// Default `--trials`.
pub const DEFAULT_TRIALS: usize = 1000;
/// Default `--owners` of `collude`: a seeded sample of this many owners (all
/// nodes on smaller graphs).
pub const DEFAULT_OWNERS: usize = 20;
/// Default `--composition-delta`.
pub const DEFAULT_COMPOSITION_DELTA: f64 = 1e-6;

/// Every option of `collude` that changes the numbers: the simulation's, plus
/// coalitions, estimators, trials and δ'. Echoed in `summary.json` (flattened,
/// so `--config` accepts a `simulate` summary too).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ColludeConfig {
    /// Graph, distances, ε map, values, mechanisms, owners, seed.
    #[serde(flatten)]
    pub sim: SimConfig,
    /// Coalitions, in order (each recorded as its spec).
    pub coalitions: Vec<Coalition>,
    /// Estimators, in order (recorded as `best,mean,...`).
    #[serde(with = "estimator_list")]
    pub estimators: Vec<Estimator>,
    /// Trials per owner, coalition and mechanism.
    pub trials: usize,
    /// δ' of the advanced-composition bound.
    pub composition_delta: f64,
}

impl Default for ColludeConfig {
    /// Simulate's defaults with [`DEFAULT_OWNERS`] sampled owners, every
    /// estimator, [`DEFAULT_TRIALS`] trials and no coalition.
    fn default() -> Self {
        ColludeConfig {
            sim: SimConfig {
                owners: Owners::Count(DEFAULT_OWNERS),
                ..SimConfig::default()
            },
            coalitions: Vec::new(),
            estimators: Estimator::ALL.to_vec(),
            trials: DEFAULT_TRIALS,
            composition_delta: DEFAULT_COMPOSITION_DELTA,
        }
    }
}

const OWN_KEYS: [&str; 4] = ["coalitions", "estimators", "trials", "composition_delta"];

impl ColludeConfig {
    /// Reads the `config` object of a `summary.json` written by `collude` or by
    /// `simulate` (whose config lacks the collusion keys: they keep their
    /// defaults; its `owners` is kept).
    pub fn from_summary(path: &Path) -> Result<ColludeConfig> {
        let text = crate::util::lines::read_text(path, crate::sim::summary::MAX_SUMMARY_BYTES)?;
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| Error::input(path, e.line(), format!("not valid JSON: {e}")))?;
        let Some(serde_json::Value::Object(mut obj)) = v.get("config").cloned() else {
            return Err(Error::input(
                path,
                1,
                "expected a summary.json with a \"config\" object",
            ));
        };
        let mut c = ColludeConfig::default();
        let bad = |key: &str, e: serde_json::Error| {
            Error::input(path, 1, format!("invalid \"config\".{key}: {e}"))
        };
        let mut own: Vec<(&str, serde_json::Value)> = Vec::new();
        for key in OWN_KEYS {
            if let Some(v) = obj.remove(key) {
                own.push((key, v));
            }
        }
        c.sim = serde_json::from_value(serde_json::Value::Object(obj))
            .map_err(|e| Error::input(path, 1, format!("invalid \"config\": {e}")))?;
        for (key, v) in own {
            match key {
                "coalitions" => {
                    c.coalitions = serde_json::from_value(v).map_err(|e| bad(key, e))?
                }
                "estimators" => {
                    c.estimators = estimator_list::deserialize(v).map_err(|e| bad(key, e))?
                }
                "trials" => c.trials = serde_json::from_value(v).map_err(|e| bad(key, e))?,
                _ => c.composition_delta = serde_json::from_value(v).map_err(|e| bad(key, e))?,
            }
        }
        Ok(c)
    }

    /// The default output directory: `results/<graph stem>-collude`.
    pub fn default_out_dir(&self) -> PathBuf {
        let base = self.sim.default_out_dir();
        let name = base
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "run".into());
        base.with_file_name(format!("{name}-collude"))
    }

    /// The runner's options (validated).
    pub fn options(&self) -> Result<ColludeOptions> {
        let opts = ColludeOptions {
            coalitions: self.coalitions.clone(),
            estimators: self.estimators.clone(),
            trials: self.trials,
            composition_delta: self.composition_delta,
        };
        opts.validate()?;
        Ok(opts)
    }

    /// The default owner sample ([`DEFAULT_OWNERS`]) becomes every node on a
    /// graph smaller than it; any other choice is kept.
    pub fn fit_default_owners(&mut self, nodes: usize) {
        if self.sim.owners == Owners::Count(DEFAULT_OWNERS) && nodes < DEFAULT_OWNERS {
            self.sim.owners = Owners::All;
        }
    }
}

/// Where and how a run is written (options that do not change the numbers).
#[derive(Clone, Debug)]
pub struct ColludeRunOptions {
    /// Output directory.
    pub out: PathBuf,
    /// The directory was given explicitly: it must not exist yet (unless
    /// `force`); a new one is claimed at once. A default one is replaced.
    pub explicit_out: bool,
    /// Replace an existing output directory.
    pub force: bool,
    /// Draw the figures.
    pub plots: bool,
    /// Cancellation and progress reports.
    pub control: Control,
}

/// Pooled over owners: one coalition × mechanism × estimator.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PooledEstimator {
    /// Coalition spec.
    pub coalition: String,
    /// Mechanism.
    pub mechanism: String,
    /// Estimator.
    pub estimator: String,
    /// Owners whose coalition was non-empty (the rest are not pooled).
    pub owners: usize,
    /// Mean coalition size over those owners.
    pub mean_size: f64,
    /// Mean gain MSE(best)/MSE(estimator) over owners.
    pub mean_gain: f64,
    /// Smallest and largest per-owner gain.
    pub min_gain: f64,
    /// Largest per-owner gain.
    pub max_gain: f64,
    /// Owners whose 95% gain interval lies entirely above 1.
    pub owners_gain_above_1: usize,
    /// Mean per-owner MSE of the estimator.
    pub mean_mse: f64,
    /// Mean per-owner win rate.
    pub mean_win_rate: f64,
}

/// Pooled over owners: one coalition × mechanism audit.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PooledAudit {
    /// Coalition spec.
    pub coalition: String,
    /// Mechanism.
    pub mechanism: String,
    /// Owners whose coalition was non-empty.
    pub owners: usize,
    /// Mean accounted ε (see `audit.csv`'s `eps_bound`).
    pub mean_eps_bound: f64,
    /// Independent mechanism: mean advanced-composition ε at `composition_delta`.
    pub mean_eps_advanced: Option<f64>,
    /// Mean of the per-owner mean losses.
    pub mean_loss: f64,
    /// Largest loss over all views.
    pub max_loss: f64,
    /// Largest per-owner `loss_max / eps_bound`.
    pub max_loss_over_bound: f64,
    /// Views whose loss exceeded the accounted ε (see `AuditResult::bound_exceeded`).
    pub bound_exceeded: u64,
    /// Mean and largest distinguishing-attack lower bound on ε.
    pub mean_eps_lower_bound: f64,
    /// Largest per-owner lower bound.
    pub max_eps_lower_bound: f64,
    /// Correlated, n = 1 or ℓ1: largest disagreement of the two loss computations.
    pub chain_disagreement: Option<f64>,
}

/// `summary.json` of `collude`.
#[derive(Clone, Debug, Serialize)]
pub struct ColludeSummary {
    /// Always "privdiffuse".
    pub tool: &'static str,
    /// Always "collude".
    pub command: &'static str,
    /// Crate version.
    pub version: &'static str,
    /// Everything needed to re-run (`--config summary.json`).
    pub config: ColludeConfig,
    /// The privacy map used.
    pub eps_map: MapSummary,
    /// The private values used (`auto` resolved).
    pub values: String,
    /// Graph statistics.
    pub graph: GraphStats,
    /// Owners evaluated.
    pub owners: usize,
    /// Owner × coalition pairs with no member.
    pub empty_coalitions: usize,
    /// Largest |ε*-formula − full-chain| privacy loss over every correlated
    /// view (n = 1 or ℓ1; null otherwise). Must be ≤ 1e-9.
    pub max_chain_disagreement: Option<f64>,
    /// Laplace-mechanism views with |L| above the accounted ε (must be 0).
    pub laplace_bound_violations: u64,
    /// Pooled estimator results, coalition × mechanism × estimator.
    pub pooled: Vec<PooledEstimator>,
    /// Pooled audits, coalition × mechanism.
    pub audit: Vec<PooledAudit>,
}

/// `timings.json` of `collude`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ColludeTimings {
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

/// The rows of `coalition.csv`: owner × coalition × mechanism × estimator,
/// in the order of `results`. Refuses an undefined gain (0/0: every answer
/// equal to u because the noise vanished against the values).
pub fn coalition_rows(plan: &Plan<'_>, results: &[CoalitionResult]) -> Result<Vec<CoalitionRow>> {
    let mut rows = Vec::new();
    for r in results {
        let owner = plan.graph().ids().label(r.owner).to_string();
        let empty = r.size == 0;
        for m in &r.mechanisms {
            for (e, g) in &m.estimators {
                if !empty && g.mse == 0.0 && g.mse_best == 0.0 {
                    // 0/0: the noise vanished against the values.
                    return Err(Error::Numerical(format!(
                        "owner {owner}, coalition '{}', {} noise: every answer equals u \
                         exactly (the noise is below the precision of the values), so the \
                         gain is undefined",
                        r.label, m.mechanism
                    )));
                }
                rows.push(CoalitionRow {
                    owner: owner.clone(),
                    coalition: r.label.clone(),
                    size: r.size as u64,
                    eps_max: if empty {
                        f64::NAN
                    } else {
                        r.accounting.eps_max
                    },
                    eps_sum: if empty {
                        f64::NAN
                    } else {
                        r.accounting.eps_sum
                    },
                    mechanism: m.mechanism.name().into(),
                    estimator: e.name().into(),
                    mse: g.mse,
                    gain: g.gain,
                    gain_lo: g.gain_lo,
                    gain_hi: g.gain_hi,
                    win_rate: g.win_rate,
                });
            }
        }
    }
    Ok(rows)
}

/// Writes `coalition.csv` (rows from [`coalition_rows`]).
pub fn write_coalition_csv(w: &mut dyn Write, rows: &[CoalitionRow]) -> std::io::Result<()> {
    let mut out = table::Writer::with_header(w, columns::<CoalitionRow>(0, &[]))?;
    for row in rows {
        out.row(row)?;
    }
    out.into_inner().map(|_| ())
}

/// The rows of `audit.csv`: owner × coalition × mechanism, in the order of
/// `results` (NaN where a mechanism has no audit).
pub fn audit_rows(plan: &Plan<'_>, results: &[CoalitionResult]) -> Vec<AuditRow> {
    let mut rows = Vec::new();
    for r in results {
        let owner = plan.graph().ids().label(r.owner).to_string();
        for m in &r.mechanisms {
            let [eps_bound, loss_mean, loss_q99, loss_max, eps_lower_bound] = match &m.audit {
                Some(a) => [
                    a.eps_bound,
                    a.loss.mean,
                    a.loss.q99,
                    a.loss.max,
                    a.distinguishing.eps_lower_bound,
                ],
                None => [f64::NAN; 5],
            };
            rows.push(AuditRow {
                owner: owner.clone(),
                coalition: r.label.clone(),
                mechanism: m.mechanism.name().into(),
                eps_bound,
                loss_mean,
                loss_q99,
                loss_max,
                eps_lower_bound,
            });
        }
    }
    rows
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

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (mut s, mut k) = (0.0, 0usize);
    for x in xs {
        s += x;
        k += 1;
    }
    if k == 0 { f64::NAN } else { s / k as f64 }
}

/// Pools the per-owner results (owners with an empty coalition are left out).
pub fn pool(
    plan: &Plan<'_>,
    opts: &ColludeOptions,
    results: &[CoalitionResult],
) -> (Vec<PooledEstimator>, Vec<PooledAudit>) {
    let mut pooled = Vec::new();
    let mut audits = Vec::new();
    for (c, spec) in opts.coalitions.iter().enumerate() {
        let rows: Vec<&CoalitionResult> = results
            .iter()
            .filter(|r| r.coalition == c && r.size > 0)
            .collect();
        let mean_size = mean(rows.iter().map(|r| r.size as f64));
        for (mi, &mech) in plan.mechanisms().iter().enumerate() {
            for (ei, &est) in opts.estimators.iter().enumerate() {
                let g = || rows.iter().map(move |r| r.mechanisms[mi].estimators[ei].1);
                pooled.push(PooledEstimator {
                    coalition: spec.label().to_string(),
                    mechanism: mech.name().into(),
                    estimator: est.name().into(),
                    owners: rows.len(),
                    mean_size,
                    mean_gain: mean(g().map(|s| s.gain)),
                    min_gain: g().map(|s| s.gain).fold(f64::NAN, f64::min),
                    max_gain: g().map(|s| s.gain).fold(f64::NAN, f64::max),
                    owners_gain_above_1: g().filter(|s| s.gain_lo > 1.0).count(),
                    mean_mse: mean(g().map(|s| s.mse)),
                    mean_win_rate: mean(g().map(|s| s.win_rate)),
                });
            }
            let a: Vec<_> = rows.iter().filter_map(|r| r.mechanisms[mi].audit).collect();
            let chain = a
                .iter()
                .filter_map(|x| x.chain_disagreement)
                .reduce(f64::max);
            audits.push(PooledAudit {
                coalition: spec.label().to_string(),
                mechanism: mech.name().into(),
                owners: rows.len(),
                mean_eps_bound: mean(a.iter().map(|x| x.eps_bound)),
                mean_eps_advanced: a
                    .first()
                    .and_then(|x| x.eps_advanced)
                    .map(|_| mean(a.iter().filter_map(|x| x.eps_advanced))),
                mean_loss: mean(a.iter().map(|x| x.loss.mean)),
                max_loss: a.iter().map(|x| x.loss.max).fold(f64::NAN, f64::max),
                max_loss_over_bound: a
                    .iter()
                    .map(|x| x.loss.max / x.eps_bound)
                    .fold(f64::NAN, f64::max),
                bound_exceeded: a.iter().map(|x| x.bound_exceeded).sum(),
                mean_eps_lower_bound: mean(a.iter().map(|x| x.distinguishing.eps_lower_bound)),
                max_eps_lower_bound: a
                    .iter()
                    .map(|x| x.distinguishing.eps_lower_bound)
                    .fold(f64::NAN, f64::max),
                chain_disagreement: chain,
            });
        }
    }
    (pooled, audits)
}

/// Builds `summary.json`.
pub fn summarize_collude(
    config: &ColludeConfig,
    plan: &Plan<'_>,
    opts: &ColludeOptions,
    result: &ColludeResult,
) -> ColludeSummary {
    let (pooled, audit) = pool(plan, opts, &result.results);
    let max_chain = audit
        .iter()
        .filter_map(|a| a.chain_disagreement)
        .reduce(f64::max);
    let laplace_bound_violations = audit
        .iter()
        .filter(|a| a.mechanism != "gaussian")
        .map(|a| a.bound_exceeded)
        .sum();
    ColludeSummary {
        tool: "privdiffuse",
        command: "collude",
        version: env!("CARGO_PKG_VERSION"),
        config: config.clone(),
        eps_map: MapSummary::of(plan),
        values: plan.values().spec().to_string(),
        graph: plan.graph().stats(),
        owners: plan.owners().len(),
        empty_coalitions: result.results.iter().filter(|r| r.size == 0).count(),
        max_chain_disagreement: max_chain,
        laplace_bound_violations,
        pooled,
        audit,
    }
}

/// Loads the graph, runs every trial and writes every output into `run.out`
/// atomically. Returns the summary and timings. On any error nothing is left
/// behind (the staging directory is removed).
pub fn collude_to_dir(
    config: &ColludeConfig,
    run: &ColludeRunOptions,
) -> Result<(ColludeSummary, ColludeTimings)> {
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
    config: &ColludeConfig,
    run: &ColludeRunOptions,
    exec: &impl crate::exec::Executor,
) -> Result<Option<(ColludeSummary, ColludeTimings)>> {
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
    let mut timings = ColludeTimings {
        threads: rayon::current_num_threads(),
        ..Default::default()
    };
    let graph = config.sim.load_graph()?;
    timings.load_s = t0.elapsed().as_secs_f64();
    for spec in &opts.coalitions {
        spec.check(graph.ids())?;
    }
    let mut config = config.clone();
    config.fit_default_owners(graph.n());
    let t = Instant::now();
    let distances = Distances::new(&graph, config.sim.distance, &config.sim.distance_options)?;
    timings.distance_setup_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let plan = Plan::new(&config.sim, &graph, &distances)?;
    timings.plan_s = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let result =
        collude_on(&plan, &opts, &run.control, exec)?.expect("process 0 and local runs merge");
    timings.collude_s = t.elapsed().as_secs_f64();
    timings.phases = result.phases;

    let t = Instant::now();
    let rows = coalition_rows(&plan, &result.results)?;
    let mut w = create(&dir, "coalition.csv")?;
    write_coalition_csv(&mut w, &rows).map_err(|e| write_error(&dir, "coalition.csv", e))?;
    finish(&dir, w, "coalition.csv")?;
    let mut w = create(&dir, "audit.csv")?;
    write_audit_csv(&mut w, &plan, &result.results)
        .map_err(|e| write_error(&dir, "audit.csv", e))?;
    finish(&dir, w, "audit.csv")?;
    let summary = summarize_collude(&config, &plan, &opts, &result);
    write_json(&dir, "summary.json", &summary)?;
    timings.write_s = t.elapsed().as_secs_f64();
    if run.plots {
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

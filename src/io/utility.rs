//! `utility --out DIR`: `utility.csv`, optional `recipients.csv`,
//! `summary.json`, `timings.json` and the figure, in a staging directory
//! that replaces DIR only when complete (same rules as `simulate`).

use crate::distance::Distances;
use crate::error::{Error, Result};
use crate::exec::{Executor, Local};
use crate::graph::Graph;
use crate::io::run_dir::{claim_out_dir, write_error, write_json};
use crate::io::run_dir::{create, finish};
use crate::io::simulate::OutputOptions;
use crate::util::fmt_f64;
use crate::utility::{
    RangeGuess, UtilityConfig, UtilityPlan, UtilityResult, UtilityRow, UtilitySummary,
};
use serde::Serialize;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// `timings.json` of a utility run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct UtilityTimings {
    /// Worker threads.
    pub threads: usize,
    /// Loading the graph.
    pub load_s: f64,
    /// Validating and resolving (values, fixed-point scale).
    pub plan_s: f64,
    /// All replicates' chunks.
    pub utility_s: f64,
    /// Figures.
    pub plots_s: f64,
    /// Everything.
    pub total_s: f64,
    /// The guessed maximum hop of a `range:` map (`null`: none guessed);
    /// when it did not hold, `utility_s` includes a replicate run twice.
    pub range_guess: Option<RangeGuess>,
}

/// The header of `utility.csv`.
pub const UTILITY_HEADER: &str = "scheme,degree_lo,degree_hi,recipients,mse,mse_se,mse_theory";

fn opt_u(x: Option<u64>) -> String {
    x.map(|v| v.to_string()).unwrap_or_default()
}

fn num(x: f64) -> std::io::Result<String> {
    if x.is_finite() {
        Ok(fmt_f64(x))
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a non-finite number ({x})"),
        ))
    }
}

/// Writes `utility.csv`.
pub fn write_utility_csv(w: &mut impl Write, rows: &[UtilityRow]) -> std::io::Result<()> {
    writeln!(w, "{UTILITY_HEADER}")?;
    for r in rows {
        writeln!(
            w,
            "{},{},{},{},{},{},{}",
            r.scheme,
            opt_u(r.degree_lo),
            opt_u(r.degree_hi),
            r.recipients,
            num(r.mse)?,
            r.mse_se.map(num).transpose()?.unwrap_or_default(),
            r.mse_theory.map(num).transpose()?.unwrap_or_default(),
        )?;
    }
    Ok(())
}

/// Writes `recipients.csv` (first replicate): id, degree, n_values, mean,
/// then one estimate per scheme (`_k` suffixes per coordinate when dim > 1).
pub fn write_recipients_csv(
    w: &mut impl Write,
    plan: &UtilityPlan<'_>,
    res: &UtilityResult,
) -> std::io::Result<()> {
    let dim = plan.dim();
    let g = plan.graph();
    let col = |name: &str| -> Vec<String> {
        if dim == 1 {
            vec![name.to_string()]
        } else {
            (1..=dim).map(|k| format!("{name}_{k}")).collect()
        }
    };
    let mut head = vec!["id".to_string(), "degree".into(), "n_values".into()];
    head.extend(col("mean"));
    for s in plan.schemes() {
        head.extend(col(s.name()));
    }
    writeln!(w, "{}", head.join(","))?;
    let e = &res.first;
    let mut line = String::new();
    for j in 0..g.n() {
        line.clear();
        crate::util::table::push_field(&mut line, &g.ids().label(j as u32).to_string());
        line.push_str(&format!(",{},{}", g.degree(j as u32), e.n_values[j]));
        for d in 0..dim {
            line.push(',');
            line.push_str(&num(e.mean[j * dim + d])?);
        }
        for est in &e.estimates {
            for d in 0..dim {
                line.push(',');
                line.push_str(&num(est[j * dim + d])?);
            }
        }
        writeln!(w, "{line}")?;
    }
    Ok(())
}

/// Loads the graph, runs the utility and writes every output into
/// `opts.out` atomically.
pub fn utility_to_dir(
    config: &UtilityConfig,
    recipients: bool,
    opts: &OutputOptions,
) -> Result<(UtilitySummary, UtilityTimings)> {
    let done = utility_to_dir_on(config, recipients, opts, &Local)?;
    Ok(done.expect("a local run merges and writes"))
}

/// The graph of a utility run: the one loader of a run's configuration
/// (edge list, header, nodes, then the view).
fn load(config: &UtilityConfig) -> Result<Graph> {
    config.sim.load_graph()
}

/// [`utility_to_dir`] on an executor. Where the executor merges (locally,
/// or process 0 of a cluster) the outputs are written and the summary and
/// timings returned, byte for byte those of a local run (`timings.json`
/// apart); elsewhere (a cluster's other processes) the graph is loaded,
/// this process's share computed and sent, nothing is written, and the
/// result is `None`.
pub fn utility_to_dir_on(
    config: &UtilityConfig,
    recipients: bool,
    opts: &OutputOptions,
    exec: &impl Executor,
) -> Result<Option<(UtilitySummary, UtilityTimings)>> {
    config.check()?;
    if !exec.merges_here() {
        let graph = load(config)?;
        let distances = Distances::new(&graph, config.sim.distance, &config.sim.distance_options)?;
        let mut plan = UtilityPlan::new(config, &graph, &distances)?;
        plan.run_on(exec, &opts.control)?;
        return Ok(None);
    }
    if opts.plots {
        crate::io::check_plots_available()?;
    }
    let dir = claim_out_dir(&opts.out, opts.explicit_out, opts.force)?;
    let t0 = Instant::now();
    let mut timings = UtilityTimings {
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
    let graph = load(config)?;
    timings.load_s = t0.elapsed().as_secs_f64();
    let t = Instant::now();
    control.phase("preparing distances");
    let distances = Distances::new(&graph, sim.distance, &sim.distance_options)?;
    control.phase("planning");
    let mut plan = UtilityPlan::new(config, &graph, &distances)?;
    timings.plan_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    control.phase("estimating");
    let res = plan
        .run_on(exec, &opts.control)?
        .expect("process 0 and local runs merge");
    timings.utility_s = t.elapsed().as_secs_f64();
    timings.range_guess = plan
        .range_guess()
        .map(|(guessed, held)| RangeGuess { guessed, held });
    control.phase("writing outputs");
    let mut w = create(&dir, "utility.csv")?;
    write_utility_csv(&mut w, &res.rows).map_err(|e| write_error(&dir, "utility.csv", e))?;
    finish(&dir, w, "utility.csv")?;
    if recipients {
        let mut w = create(&dir, "recipients.csv")?;
        write_recipients_csv(&mut w, &plan, &res)
            .map_err(|e| write_error(&dir, "recipients.csv", e))?;
        finish(&dir, w, "recipients.csv")?;
    }
    let summary = UtilitySummary::of(&plan, &res);
    write_json(&dir, "summary.json", &summary)?;
    if opts.plots {
        control.phase("drawing figures");
        let t = Instant::now();
        #[cfg(feature = "plots")]
        crate::io::plot::utility::draw(dir.staging(), &res.rows)
            .map_err(|e| crate::io::run_dir::at_destination(&dir, e))?;
        timings.plots_s = t.elapsed().as_secs_f64();
    }
    timings.total_s = t0.elapsed().as_secs_f64();
    write_json(&dir, "timings.json", &timings)?;
    dir.commit()?;
    Ok(Some((summary, timings)))
}

/// Reads the `config` object of a `summary.json` written by `utility`
/// (or the simulation options of one written by `simulate`).
pub fn utility_config_from_summary(path: &std::path::Path) -> Result<UtilityConfig> {
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
        Ok(UtilityConfig {
            sim: super::simulate::sim_config_from_summary(path)?,
            ..UtilityConfig::default()
        })
    }
}

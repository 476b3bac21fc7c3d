//! `utility --out DIR`: `utility.csv`, optional `recipients.csv`,
//! `summary.json`, `timings.json` and the figure, in a staging directory
//! that replaces DIR only when complete (same rules as `simulate`).

use crate::distance::Distances;
use crate::error::Result;
use crate::exec::Executor;
use crate::graph::Graph;
use crate::io::driver::OutputOptions;
use crate::io::driver::{At, Job, Phases, RunFile, load_sim_graph, run_here, run_to_dir};
use crate::io::summary::{config_as, config_object};
use crate::util::fmt_f64;
use crate::utility::{
    RangeGuess, UtilityConfig, UtilityPlan, UtilityResult, UtilityRow, UtilitySummary,
};
use serde::Serialize;
use std::io::Write;
use std::path::Path;

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

/// `x` as a CSV cell; a number the format does not allow (not finite) is
/// `InvalidData` (see [`crate::io::run_dir::write_error`]).
pub(crate) fn num(x: f64) -> std::io::Result<String> {
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

/// The table files of a utility run, in the order they are written:
/// `utility.csv`, and `recipients.csv` when `recipients`.
pub(crate) fn utility_tables<'a>(
    plan: &'a UtilityPlan<'_>,
    res: &'a UtilityResult,
    recipients: bool,
) -> Vec<RunFile<'a>> {
    let mut files = vec![RunFile::new("utility.csv", |mut w| {
        write_utility_csv(&mut w, &res.rows)
    })];
    if recipients {
        files.push(RunFile::new("recipients.csv", |mut w| {
            write_recipients_csv(&mut w, plan, res)
        }));
    }
    files
}

/// Loads the graph, runs the utility and writes every output into
/// `opts.out` atomically.
pub fn utility_to_dir(
    config: &UtilityConfig,
    recipients: bool,
    opts: &OutputOptions,
) -> Result<(UtilitySummary, UtilityTimings)> {
    run_here(Utility { config, recipients }, opts)
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
    run_to_dir(Utility { config, recipients }, opts, exec)
}

/// `utility` as a [`Job`] (`recipients`: also `recipients.csv`).
struct Utility<'c> {
    config: &'c UtilityConfig,
    recipients: bool,
}

impl<E: Executor> Job<E> for Utility<'_> {
    type Summary = UtilitySummary;
    type Timings = UtilityTimings;
    type Ground<'g> = Distances<'g>;
    type Plan<'g>
        = UtilityPlan<'g>
    where
        Self: 'g;
    type Ran = UtilityResult;
    const RUNNING: &'static str = "estimating";

    fn prepare(&mut self) -> Result<()> {
        self.config.check()
    }

    fn load(&mut self) -> Result<Graph> {
        load_sim_graph(&self.config.sim)
    }

    fn ground<'g>(&self, graph: &'g Graph) -> Result<Distances<'g>> {
        let sim = &self.config.sim;
        Distances::new(graph, sim.distance, &sim.distance_options)
    }

    fn plan<'p, 'g: 'p>(
        &'p self,
        graph: &'g Graph,
        ground: &'p Distances<'g>,
    ) -> Result<UtilityPlan<'p>> {
        UtilityPlan::new(self.config, graph, ground)
    }

    fn run(&self, plan: &mut UtilityPlan<'_>, at: At<'_, E>) -> Result<Option<UtilityResult>> {
        plan.run_on(at.exec, at.control)
    }

    fn files<'a>(
        &'a self,
        plan: &'a UtilityPlan<'_>,
        ran: &'a UtilityResult,
    ) -> Result<Vec<RunFile<'a>>> {
        Ok(utility_tables(plan, ran, self.recipients))
    }

    fn summary(&self, plan: &UtilityPlan<'_>, ran: &UtilityResult) -> Result<UtilitySummary> {
        Ok(UtilitySummary::of(plan, ran))
    }

    fn draw(&self, _: &UtilityPlan<'_>, ran: &UtilityResult, dir: &Path) -> Result<()> {
        #[cfg(feature = "plots")]
        crate::io::plot::utility::draw(dir, &ran.rows)?;
        #[cfg(not(feature = "plots"))]
        let _ = (ran, dir);
        Ok(())
    }

    fn timings(&self, t: Phases, plan: &UtilityPlan<'_>, _: &UtilityResult) -> UtilityTimings {
        UtilityTimings {
            threads: t.threads,
            load_s: t.load_s,
            plan_s: t.distances_s + t.plan_s,
            utility_s: t.run_s,
            plots_s: t.plots_s,
            total_s: t.total_s,
            range_guess: plan
                .range_guess()
                .map(|(guessed, held)| RangeGuess { guessed, held }),
        }
    }
}

/// Reads the `config` object of a `summary.json` written by `utility`
/// (or the simulation options of one written by `simulate`).
pub fn utility_config_from_summary(path: &Path) -> Result<UtilityConfig> {
    let config = config_object(path)?;
    if config.get("sim").is_some() {
        return config_as(path, config);
    }
    Ok(UtilityConfig {
        sim: config_as(path, config)?,
        ..UtilityConfig::default()
    })
}

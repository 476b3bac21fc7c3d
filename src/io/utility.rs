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
use crate::util::table::{CsvRow, Writer, columns, fill};
use crate::utility::{
    RangeGuess, UtilityConfig, UtilityPlan, UtilityResult, UtilityRow, UtilitySummary,
};
use serde::{Deserialize, Serialize};
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

/// One row of `recipients.csv`: a recipient's id, degree and number of
/// values, then its mean and each scheme's estimate (`dim` cells each).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct RecipientRow {
    id: String,
    degree: u64,
    n_values: u64,
    cells: Vec<f64>,
}

impl CsvRow for RecipientRow {
    const VECTOR: Option<&'static str> = Some("cells");
}

/// The header and rows of `recipients.csv` (first replicate): id, degree,
/// n_values, mean, then one estimate per scheme (`_k` suffixes per
/// coordinate when dim > 1).
pub(crate) fn recipient_rows(
    plan: &UtilityPlan<'_>,
    res: &UtilityResult,
) -> (Vec<String>, Vec<RecipientRow>) {
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
    let e = &res.first;
    let rows = (0..g.n())
        .map(|j| {
            let mut cells = e.mean[j * dim..(j + 1) * dim].to_vec();
            for est in &e.estimates {
                cells.extend_from_slice(&est[j * dim..(j + 1) * dim]);
            }
            RecipientRow {
                id: g.ids().label(j as u32).to_string(),
                degree: g.degree(j as u32) as u64,
                n_values: e.n_values[j],
                cells,
            }
        })
        .collect();
    (head, rows)
}

/// The table files of a utility run, in the order they are written:
/// `utility.csv`, and `recipients.csv` when `recipients`.
pub(crate) fn utility_tables<'a>(
    plan: &'a UtilityPlan<'_>,
    res: &'a UtilityResult,
    recipients: bool,
) -> Vec<RunFile<'a>> {
    let mut files = vec![RunFile::new("utility.csv", move |w| {
        let header = columns::<UtilityRow>(0, &[]);
        fill(Writer::with_header(w, header)?, &res.rows)?.into_inner()?;
        Ok(())
    })];
    if recipients {
        files.push(RunFile::new("recipients.csv", move |w| {
            let (header, rows) = recipient_rows(plan, res);
            fill(Writer::with_header(w, header)?, &rows)?.into_inner()?;
            Ok(())
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

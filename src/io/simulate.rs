//! `simulate --out DIR`: the whole run written into a staging directory that
//! replaces DIR only when complete (an interrupted or failing run leaves no
//! partial DIR).

use super::csv::CsvSink;
use super::driver::{At, Job, Phases, RunFile, load_sim_graph, run_here, run_to_dir};
use super::summary::{config_as, config_object};
use crate::distance::Distances;
use crate::error::{Error, Result};
use crate::exec::Executor;
use crate::graph::Graph;
use crate::io::{RunFigures, draw_run_figures};
use crate::mechanism::Mechanism;
use crate::post::Post;
use crate::sim::{ByDistanceRow, MechanismTotal, Plan, SimConfig, SimSummary, Sinks, summarize};
use crate::sim::{EgoRow, JumpRow, OwnerRow, PathRow, ResponseRow, SimResult};
use crate::sink::Discard;
use crate::util::Existing;
use crate::util::table::{self, columns};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// How and where a run is written (its home is [`super::driver`]).
pub use super::driver::OutputOptions;

/// `timings.json` (kept apart so that every other file is a pure function of
/// the configuration).
#[derive(Clone, Debug, Default, Serialize)]
pub struct SimTimings {
    /// Worker threads.
    pub threads: usize,
    /// Seconds loading the graph.
    pub load_s: f64,
    /// Seconds setting up the distance route before any owner: the exact
    /// resistance factorisation or the sketch (≈0 for hop and weighted, whose
    /// per-owner searches are part of the owners' time).
    pub distance_setup_s: f64,
    /// Seconds resolving owners, values and the map (incl. a distance pre-pass).
    pub plan_s: f64,
    /// Seconds simulating.
    pub simulate_s: f64,
    /// Seconds drawing figures.
    pub plots_s: f64,
    /// Total seconds.
    pub total_s: f64,
}

/// Writes `by_distance.csv` rows (the `post_*` and `correct_*` columns when
/// the rows have them: all rows or none).
pub fn write_by_distance(w: &mut dyn Write, rows: &[ByDistanceRow]) -> std::io::Result<()> {
    let post = rows.first().is_some_and(|r| r.post_exact.is_some());
    let bits = rows.first().is_some_and(|r| r.correct_rate.is_some());
    let leave_out: &[&str] = match (post, bits) {
        (true, true) => &[],
        (true, false) => &["correct_rate", "correct_theory"],
        _ => &["post_exact", "post_mse", "correct_rate", "correct_theory"],
    };
    let mut out = table::Writer::with_header(w, columns::<ByDistanceRow>(0, leave_out))?;
    for r in rows {
        out.row(r)?;
    }
    out.into_inner().map(|_| ())
}

/// The optional columns `ego.csv` leaves out: `correct` unless the answers
/// are projected bits.
pub(crate) fn ego_leave_out(post: &Post) -> &'static [&'static str] {
    if *post == Post::Bit {
        &[]
    } else {
        &["correct"]
    }
}

/// Refuses totals that are not numbers (summary.json would print `null`):
/// the same promise as the rows', checked before anything is committed.
pub fn check_totals(totals: &[MechanismTotal]) -> Result<()> {
    for t in totals.iter().filter(|t| t.responses > 0) {
        for (name, x) in [("mse", t.mse), ("mse_theory", t.mse_theory)] {
            if !x.is_finite() {
                return Err(Error::Numerical(format!(
                    "summary.json: {name} of {} is {x}, expected a finite number (the values, \
                     the noise or their sums overflow f64)",
                    t.mechanism
                )));
            }
        }
    }
    Ok(())
}

/// Checks that an output directory may be written: one given explicitly
/// must not exist yet, unless `force` (see
/// [`crate::util::Existing`]). A check to fail early; the
/// writer's claim is what makes the directory exclusive.
pub fn check_out_dir(out: &Path, explicit: bool, force: bool) -> Result<()> {
    Ok(crate::util::atomic::check_new(
        out,
        Existing::for_out(explicit, force),
    )?)
}

/// Loads the graph, runs the simulation and writes every output into
/// `opts.out` atomically. Returns the summary and timings.
pub fn simulate_to_dir(
    config: &SimConfig,
    opts: &OutputOptions,
) -> Result<(SimSummary, SimTimings)> {
    run_here(Simulate(config), opts)
}

/// [`simulate_to_dir`] on an executor. Where the executor merges (locally,
/// or process 0 of a cluster) the outputs are written and the summary and
/// timings returned, byte for byte those of a local run; elsewhere (a
/// cluster's other processes) the graph is loaded, this process's chunks
/// computed and sent, nothing is written, and the result is `None`.
pub fn simulate_to_dir_on(
    config: &SimConfig,
    opts: &OutputOptions,
    exec: &impl Executor,
) -> Result<Option<(SimSummary, SimTimings)>> {
    run_to_dir(Simulate(config), opts, exec)
}

/// `simulate` as a [`Job`]: the row files stream while the owners run.
struct Simulate<'c>(&'c SimConfig);

impl<E: Executor> Job<E> for Simulate<'_> {
    type Summary = SimSummary;
    type Timings = SimTimings;
    type Ground<'g> = Distances<'g>;
    type Plan<'g>
        = Plan<'g>
    where
        Self: 'g;
    type Ran = SimResult;
    const RUNNING: &'static str = "simulating";

    fn prepare(&mut self) -> Result<()> {
        self.0.check()
    }

    fn load(&mut self) -> Result<Graph> {
        // The view too: every process must cut the same graph.
        load_sim_graph(self.0)
    }

    fn ground<'g>(&self, graph: &'g Graph) -> Result<Distances<'g>> {
        crate::sim::distances_for(self.0, graph)
    }

    fn plan<'p, 'g: 'p>(&'p self, graph: &'g Graph, ground: &'p Distances<'g>) -> Result<Plan<'p>> {
        Plan::new(self.0, graph, ground)
    }

    fn run(&self, plan: &mut Plan<'_>, at: At<'_, E>) -> Result<Option<SimResult>> {
        let At {
            exec, dir, control, ..
        } = at;
        let Some(dir) = dir else {
            // The sinks are discarded here, but present exactly where
            // process 0 has files, so every chunk formats the same rows.
            let (mut jumps, mut owners, mut paths, mut ego, mut responses) =
                (Discard, Discard, Discard, Discard, Discard);
            let mut sinks = Sinks {
                jumps: Some(&mut jumps),
                owners: Some(&mut owners),
                paths: Some(&mut paths),
                ego: Some(&mut ego),
                responses: self.0.responses.then_some(&mut responses as _),
            };
            plan.run_on(exec, &mut sinks, control)?;
            return Ok(None);
        };
        const WHAT: &str = "a row of the simulation's output";
        let n = self.0.dim;
        let mut jumps = CsvSink::<JumpRow>::create(dir, "jumps.csv", WHAT, n, &[])?;
        let mut owners = CsvSink::<OwnerRow>::create(dir, "owners.csv", WHAT, n, &[])?;
        let mut paths = CsvSink::<PathRow>::create(dir, "paths.csv", WHAT, n, &[])?;
        let leave_out = ego_leave_out(&self.0.post);
        let mut ego = CsvSink::<EgoRow>::create(dir, "ego.csv", WHAT, n, leave_out)?;
        let mut responses = match self.0.responses {
            true => Some(CsvSink::<ResponseRow>::create(
                dir,
                "responses.csv",
                WHAT,
                n,
                &[],
            )?),
            false => None,
        };
        let result = plan.run_on(
            exec,
            &mut Sinks {
                jumps: Some(&mut jumps),
                owners: Some(&mut owners),
                paths: Some(&mut paths),
                ego: Some(&mut ego),
                responses: responses.as_mut().map(|w| w as _),
            },
            control,
        )?;
        check_totals(&result.totals)?;
        jumps.finish()?;
        owners.finish()?;
        paths.finish()?;
        ego.finish()?;
        responses.map(CsvSink::finish).transpose()?;
        Ok(Some(result))
    }

    fn files<'a>(&'a self, _: &'a Plan<'_>, ran: &'a SimResult) -> Result<Vec<RunFile<'a>>> {
        let by_distance = |w: &mut dyn Write| write_by_distance(w, &ran.rows);
        Ok(vec![RunFile::new("by_distance.csv", by_distance)])
    }

    fn summary(&self, plan: &Plan<'_>, ran: &SimResult) -> Result<SimSummary> {
        Ok(summarize(plan, ran))
    }

    fn draw(&self, plan: &Plan<'_>, _: &SimResult, dir: &Path) -> Result<()> {
        let laplace = plan.mechanisms().contains(&Mechanism::Correlated);
        draw_run_figures(dir, RunFigures::Simulation { laplace })
    }

    fn timings(&self, t: Phases, _: &Plan<'_>, _: &SimResult) -> SimTimings {
        SimTimings {
            threads: t.threads,
            load_s: t.load_s,
            distance_setup_s: t.distances_s,
            plan_s: t.plan_s,
            simulate_s: t.run_s,
            plots_s: t.plots_s,
            total_s: t.total_s,
        }
    }
}

/// Reads the `config` object of a `summary.json` written by `simulate`.
pub fn sim_config_from_summary(path: &Path) -> Result<SimConfig> {
    config_as(path, config_object(path)?)
}

/// The default output directory: `runs/<graph file stem>` (an ignored folder:
/// `results/` is written only by `results/regenerate.sh`), with the
/// view appended (`-ego0`, `-ego0-r2`, `-sub-<list file stem>`) so that a
/// view never replaces the whole graph's results.
pub fn sim_default_out_dir(config: &SimConfig) -> PathBuf {
    let stem = config
        .graph
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "run".into());
    // `foo.edges.gz` → `foo`
    let stem = stem
        .strip_suffix(".edges")
        .or_else(|| stem.strip_suffix(".txt"))
        .map(String::from)
        .unwrap_or(stem);
    let stem = match &config.view {
        None => stem,
        Some(crate::graph::GraphView::Ego { id, radius: 1 }) => format!("{stem}-ego{id}"),
        Some(crate::graph::GraphView::Ego { id, radius }) => format!("{stem}-ego{id}-r{radius}"),
        Some(crate::graph::GraphView::Subgraph(f)) => format!(
            "{stem}-sub-{}",
            f.file_stem()
                .map_or_else(|| "list".into(), |s| s.to_string_lossy())
        ),
    };
    PathBuf::from("runs").join(stem)
}

/// The default output directory of `command` on `config`'s graph:
/// [`sim_default_out_dir`] with `-command` appended.
pub(crate) fn sim_default_out_dir_of(config: &SimConfig, command: &str) -> PathBuf {
    let mut dir = sim_default_out_dir(config);
    dir.as_mut_os_string().push(format!("-{command}"));
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_out_dir_is_the_graph_stem() {
        let c = SimConfig::default();
        assert_eq!(sim_default_out_dir(&c), PathBuf::from("runs/geometric150"));
    }
}

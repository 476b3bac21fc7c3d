//! `simulate --out DIR`: the whole run written into a staging directory that
//! replaces DIR only when complete (an interrupted or failing run leaves no
//! partial DIR).

use super::csv::CsvSink;
use super::run_dir::{create, finish, shown};
use crate::control::Control;
use crate::error::{Error, Result};
use crate::exec::{Executor, Local};
use crate::io::{RunFigures, check_plots_available, draw_run_figures};
use crate::mechanism::Mechanism;
use crate::post::Post;
use crate::sim::{ByDistanceRow, MechanismTotal, Plan, SimConfig, SimSummary, Sinks, summarize};
use crate::sim::{EgoRow, JumpRow, OwnerRow, PathRow, ResponseRow};
use crate::sink::Discard;
use crate::util::table::{self, columns};
use crate::util::{AtomicDir, Existing};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How and where a run is written (options that do not change the numbers).
#[derive(Clone, Debug)]
pub struct OutputOptions {
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

/// `e` with a path inside the staging directory shown at the destination
/// (errors of writers that were handed the staging directory).
pub(crate) fn at_destination(dir: &AtomicDir, e: Error) -> Error {
    let moved = |p: std::path::PathBuf| match p.strip_prefix(dir.staging()) {
        Ok(rest) => dir.path().join(rest),
        Err(_) => p,
    };
    match e {
        Error::Io { path, error } => Error::Io {
            path: moved(path),
            error,
        },
        Error::Input {
            file,
            line,
            message,
        } => Error::Input {
            file: moved(file),
            line,
            message,
        },
        Error::NothingToDraw { file, reason } => Error::NothingToDraw {
            file: moved(file),
            reason,
        },
        other => other,
    }
}

/// The error of writing row file `name` into `dir`: a number the format does
/// not allow (the writer's `InvalidData`) is a numerical failure naming the
/// final file; anything else an I/O error on it.
pub(crate) fn write_error(dir: &AtomicDir, name: &str, e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::InvalidData {
        return Error::Numerical(format!(
            "{}: {e} (a number outside f64's range: the values, the noise or their sums \
             overflow, or the noise vanishes against the values)",
            shown(dir, name).display()
        ));
    }
    Error::io(shown(dir, name), e)
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

/// Writes `value` as pretty JSON into `name`.
pub(crate) fn write_json<T: Serialize>(dir: &AtomicDir, name: &str, value: &T) -> Result<()> {
    let mut w = create(dir, name)?;
    serde_json::to_writer_pretty(&mut w, value).map_err(|e| {
        // serde_json wraps the writer's I/O errors (a full disk).
        let io = match e.io_error_kind() {
            Some(kind) => std::io::Error::new(kind, e.to_string()),
            None => std::io::Error::other(e),
        };
        Error::io(shown(dir, name), io)
    })?;
    w.write_all(b"\n")
        .map_err(|e| Error::io(shown(dir, name), e))?;
    finish(dir, w, name)
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

/// The output directory's writer, created (and a new explicit directory
/// claimed) before any work, so that a second run into the same new
/// directory fails at once.
pub(crate) fn claim_out_dir(out: &Path, explicit: bool, force: bool) -> Result<AtomicDir> {
    Ok(AtomicDir::create_with(
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
    let done = simulate_to_dir_on(config, opts, &Local)?;
    Ok(done.expect("a local run merges and writes"))
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
    // Everything that needs no graph, before the graph is read.
    config.check()?;
    if !exec.merges_here() {
        compute_elsewhere(config, opts, exec)?;
        return Ok(None);
    }
    if opts.plots {
        check_plots_available()?;
    }
    let dir = claim_out_dir(&opts.out, opts.explicit_out, opts.force)?;
    let t0 = Instant::now();
    let mut timings = SimTimings {
        threads: rayon::current_num_threads(),
        ..Default::default()
    };
    if config.graph == Path::new(crate::sim::config::DEFAULT_GRAPH) && !config.graph.exists() {
        return Err(Error::Unsupported(format!(
            "the default graph {} is not here: run from the privdiffuse repository root, or pass `graph` = PATH",
            config.graph.display()
        )));
    }
    let control = &opts.control;
    control.phase("loading the graph");
    let graph = config.load_graph()?;
    timings.load_s = t0.elapsed().as_secs_f64();
    let t = Instant::now();
    control.phase("preparing distances");
    let distances = crate::sim::distances_for(config, &graph)?;
    timings.distance_setup_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    control.phase("planning");
    let plan = Plan::new(config, &graph, &distances)?;
    timings.plan_s = t.elapsed().as_secs_f64();

    let t = Instant::now();
    control.phase("simulating");
    const WHAT: &str = "a row of the simulation's output";
    let n = config.dim;
    let mut jumps = CsvSink::<JumpRow>::create(&dir, "jumps.csv", WHAT, n, &[])?;
    let mut owners = CsvSink::<OwnerRow>::create(&dir, "owners.csv", WHAT, n, &[])?;
    let mut paths = CsvSink::<PathRow>::create(&dir, "paths.csv", WHAT, n, &[])?;
    let mut ego = CsvSink::<EgoRow>::create(&dir, "ego.csv", WHAT, n, ego_leave_out(&config.post))?;
    let mut responses = if config.responses {
        Some(CsvSink::<ResponseRow>::create(
            &dir,
            "responses.csv",
            WHAT,
            n,
            &[],
        )?)
    } else {
        None
    };
    let result = {
        let mut sinks = Sinks {
            jumps: Some(&mut jumps),
            owners: Some(&mut owners),
            paths: Some(&mut paths),
            ego: Some(&mut ego),
            responses: responses.as_mut().map(|w| w as _),
        };
        plan.run_on(exec, &mut sinks, &opts.control)?
    };
    timings.simulate_s = t.elapsed().as_secs_f64();
    control.phase("writing outputs");
    check_totals(&result.totals)?;
    jumps.finish()?;
    owners.finish()?;
    paths.finish()?;
    ego.finish()?;
    if let Some(r) = responses {
        r.finish()?;
    }
    let mut bd = create(&dir, "by_distance.csv")?;
    write_by_distance(&mut bd, &result.rows)
        .map_err(|e| write_error(&dir, "by_distance.csv", e))?;
    finish(&dir, bd, "by_distance.csv")?;
    let summary = summarize(&plan, &result);
    write_json(&dir, "summary.json", &summary)?;
    if opts.plots {
        control.phase("drawing figures");
        let t = Instant::now();
        let laplace = plan.mechanisms().contains(&Mechanism::Correlated);
        draw_run_figures(dir.staging(), RunFigures::Simulation { laplace })
            .map_err(|e| at_destination(&dir, e))?;
        timings.plots_s = t.elapsed().as_secs_f64();
    }
    timings.total_s = t0.elapsed().as_secs_f64();
    write_json(&dir, "timings.json", &timings)?;
    dir.commit()?;
    Ok(Some((summary, timings)))
}

/// A cluster process other than 0: the same graph, distances and plan
/// (deterministic, so the same chunks), its chunks computed and sent to
/// process 0. The sinks are discarded here, but present exactly where
/// process 0 has files, so every chunk formats the same rows.
fn compute_elsewhere(config: &SimConfig, opts: &OutputOptions, exec: &impl Executor) -> Result<()> {
    // The view too: every process must cut the same graph.
    let graph = config.load_graph()?;
    let distances = crate::sim::distances_for(config, &graph)?;
    let plan = Plan::new(config, &graph, &distances)?;
    let (mut jumps, mut owners, mut paths, mut ego, mut responses) =
        (Discard, Discard, Discard, Discard, Discard);
    let mut sinks = Sinks {
        jumps: Some(&mut jumps),
        owners: Some(&mut owners),
        paths: Some(&mut paths),
        ego: Some(&mut ego),
        responses: if config.responses {
            Some(&mut responses)
        } else {
            None
        },
    };
    plan.run_on(exec, &mut sinks, &opts.control)?;
    Ok(())
}

/// Reads the `config` object of a `summary.json` written by `simulate`.
pub fn sim_config_from_summary(path: &Path) -> Result<SimConfig> {
    let text = crate::util::lines::read_text(path, super::summary::MAX_SUMMARY_BYTES)?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::input(path, e.line(), format!("not valid JSON: {e}")))?;
    let cfg = v
        .get("config")
        .cloned()
        .ok_or_else(|| Error::input(path, 1, "expected a summary.json with a \"config\" object"))?;
    serde_json::from_value(cfg)
        .map_err(|e| Error::input(path, 1, format!("invalid \"config\": {e}")))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_out_dir_is_the_graph_stem() {
        let c = SimConfig::default();
        assert_eq!(sim_default_out_dir(&c), PathBuf::from("runs/geometric150"));
    }
}

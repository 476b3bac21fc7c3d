//! `simulate --out DIR`: the whole run written into a staging directory that
//! replaces DIR only when complete (an interrupted or failing run leaves no
//! partial DIR).

use super::config::SimConfig;
use super::rows::ByDistanceRow;
use super::run::{Counts, MechanismTotal, Plan, SimResult, Sinks};
use crate::control::Control;
use crate::distance::Distances;
use crate::exec::{Executor, Local};
use crate::error::{Error, Result};
use crate::graph::{Graph, GraphStats};
use crate::mechanism::Mechanism;
use crate::output::{RunFigures, check_plots_available, draw_run_figures};
use crate::util::table::{self, columns};
use crate::util::{AtomicDir, Existing};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How and where a run is written (options that do not change the numbers).
#[derive(Clone, Debug)]
pub struct RunOptions {
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

/// The resolved privacy map, as recorded in `summary.json` (and read back
/// by [`SummaryFile`](super::SummaryFile)).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MapSummary {
    /// The `--eps` spec as given (empty when a hand-written summary has none).
    #[serde(default)]
    pub requested: String,
    /// Canonical spec of the map used (a `range:` map as its `exp:` form).
    pub spec: String,
    /// `a` of the equivalent `exp:a,b` map, when there is one.
    pub a: Option<f64>,
    /// `b` of the equivalent `exp:a,b` map, when there is one.
    pub b: Option<f64>,
    /// Smallest observed owner-to-member distance (when it was needed).
    pub observed_distance_min: Option<f64>,
    /// Largest observed owner-to-member distance (when it was needed).
    pub observed_distance_max: Option<f64>,
}

/// `summary.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Always "privdiffuse".
    pub tool: &'static str,
    /// Crate version.
    pub version: &'static str,
    /// Everything needed to re-run (`--config summary.json`).
    pub config: SimConfig,
    /// The privacy map used.
    pub eps_map: MapSummary,
    /// The private values used (`auto` resolved).
    pub values: String,
    /// Graph statistics.
    pub graph: GraphStats,
    /// Replicates run (each owner's mechanism realised this many times on
    /// the same distances; see `config.first_replicate` for the first).
    pub replicates: u32,
    /// Counts of owners, responses, jumps (responses and jumps summed over
    /// the replicates).
    pub counts: Counts,
    /// Mean jumps per correlated path, empirical.
    pub jumps_per_path: f64,
    /// Mean jumps per correlated path, theory (rate · ln(ε_hi/ε_lo) averaged).
    pub jumps_per_path_expected: f64,
    /// Overall empirical vs theoretical MSE per mechanism.
    pub mse: Vec<MechanismTotal>,
}

/// `timings.json` (kept apart so that every other file is a pure function of
/// the configuration).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Timings {
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

impl MapSummary {
    /// The map of a resolved plan.
    pub fn of(plan: &Plan<'_>) -> MapSummary {
        let (a, b) = plan.map().exp_params().unzip();
        let observed = plan.observed();
        let known = observed.0.is_finite();
        MapSummary {
            requested: plan.config().eps.to_string(),
            spec: plan.map().spec(),
            a,
            b,
            observed_distance_min: known.then_some(observed.0),
            observed_distance_max: known.then_some(observed.1),
        }
    }
}

/// Builds the summary of a finished run.
pub fn summarize(plan: &Plan<'_>, result: &SimResult) -> Summary {
    summary_of(
        plan.config(),
        MapSummary::of(plan),
        plan.values().spec().to_string(),
        plan.graph(),
        result,
    )
}

/// The summary (`summary.json`) of an in-memory run ([`Simulation::run`]) on
/// `graph`, the graph it ran on: the same value [`simulate_to_dir`] writes
/// for the same options. Bindings use it to save a [`SimOutput`] as the
/// command line's files.
///
/// [`Simulation::run`]: super::Simulation::run
/// [`SimOutput`]: super::SimOutput
pub fn summarize_output(out: &super::SimOutput, graph: &Graph) -> Summary {
    let (a, b) = out.map().exp_params().unzip();
    let observed = out.observed_distances();
    let eps_map = MapSummary {
        requested: out.config().eps.to_string(),
        spec: out.map().spec(),
        a,
        b,
        observed_distance_min: observed.map(|o| o.0),
        observed_distance_max: observed.map(|o| o.1),
    };
    let result = SimResult {
        rows: Vec::new(),
        totals: out.totals().to_vec(),
        counts: out.counts().clone(),
    };
    summary_of(
        out.config(),
        eps_map,
        out.values().to_string(),
        graph,
        &result,
    )
}

fn summary_of(
    config: &SimConfig,
    eps_map: MapSummary,
    values: String,
    graph: &Graph,
    result: &SimResult,
) -> Summary {
    // One path per owner with recipients and replicate.
    let paths = ((result.counts.owners - result.counts.owners_without_recipients)
        * u64::from(config.replicates))
    .max(1) as f64;
    let has_paths = config
        .mechanism
        .mechanisms()
        .contains(&crate::mechanism::Mechanism::Correlated);
    Summary {
        tool: "privdiffuse",
        version: env!("CARGO_PKG_VERSION"),
        config: config.clone(),
        eps_map,
        values,
        graph: graph.stats(),
        replicates: config.replicates,
        counts: result.counts.clone(),
        jumps_per_path: if has_paths {
            result.counts.jumps as f64 / paths
        } else {
            0.0
        },
        jumps_per_path_expected: if has_paths {
            result.counts.jumps_expected / paths
        } else {
            0.0
        },
        mse: result.totals.clone(),
    }
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

/// The path errors about output `name` give: the file in the final
/// directory (the staging directory is gone by the time a user reads it).
pub(crate) fn shown(dir: &AtomicDir, name: &str) -> std::path::PathBuf {
    dir.path().join(name)
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

/// Creates `name` inside the staging directory (buffered).
pub(crate) fn create(dir: &AtomicDir, name: &str) -> Result<BufWriter<File>> {
    let f = File::create(dir.join(name)).map_err(|e| Error::io(shown(dir, name), e))?;
    Ok(BufWriter::with_capacity(1 << 16, f))
}

/// Flushes and syncs a file made by [`create`].
pub(crate) fn finish(dir: &AtomicDir, w: BufWriter<File>, name: &str) -> Result<()> {
    w.into_inner()
        .map_err(|e| Error::io(shown(dir, name), e.into_error()))?
        .sync_all()
        .map_err(|e| Error::io(shown(dir, name), e))
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
pub fn simulate_to_dir(config: &SimConfig, opts: &RunOptions) -> Result<(Summary, Timings)> {
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
    opts: &RunOptions,
    exec: &impl Executor,
) -> Result<Option<(Summary, Timings)>> {
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
    let mut timings = Timings {
        threads: rayon::current_num_threads(),
        ..Default::default()
    };
    if config.graph == Path::new(super::config::DEFAULT_GRAPH) && !config.graph.exists() {
        return Err(Error::Unsupported(format!(
            "the default graph {} is not here: run from the privdiffuse repository root, or pass `graph` = PATH",
            config.graph.display()
        )));
    }
    let graph = config.load_graph()?;
    timings.load_s = t0.elapsed().as_secs_f64();
    let t = Instant::now();
    let distances = Distances::new(&graph, config.distance, &config.distance_options)?;
    timings.distance_setup_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let plan = Plan::new(config, &graph, &distances)?;
    timings.plan_s = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let mut jumps = create(&dir, "jumps.csv")?;
    let mut owners = create(&dir, "owners.csv")?;
    let mut paths = create(&dir, "paths.csv")?;
    let mut ego = create(&dir, "ego.csv")?;
    let mut responses = if config.responses {
        Some(create(&dir, "responses.csv")?)
    } else {
        None
    };
    let result = {
        let mut sinks = Sinks {
            jumps: Some(&mut jumps),
            owners: Some(&mut owners),
            paths: Some(&mut paths),
            ego: Some(&mut ego),
            responses: responses.as_mut().map(|w| w as &mut dyn Write),
            dir: Some(dir.path()),
        };
        plan.run_on(exec, &mut sinks, &opts.control)?
    };
    timings.simulate_s = t.elapsed().as_secs_f64();
    check_totals(&result.totals)?;
    finish(&dir, jumps, "jumps.csv")?;
    finish(&dir, owners, "owners.csv")?;
    finish(&dir, paths, "paths.csv")?;
    finish(&dir, ego, "ego.csv")?;
    if let Some(r) = responses {
        finish(&dir, r, "responses.csv")?;
    }
    let mut bd = create(&dir, "by_distance.csv")?;
    write_by_distance(&mut bd, &result.rows)
        .map_err(|e| write_error(&dir, "by_distance.csv", e))?;
    finish(&dir, bd, "by_distance.csv")?;
    let summary = summarize(&plan, &result);
    write_json(&dir, "summary.json", &summary)?;
    if opts.plots {
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
fn compute_elsewhere(config: &SimConfig, opts: &RunOptions, exec: &impl Executor) -> Result<()> {
    // The view too: every process must cut the same graph.
    let graph = config.load_graph()?;
    let distances = Distances::new(&graph, config.distance, &config.distance_options)?;
    let plan = Plan::new(config, &graph, &distances)?;
    let (mut jumps, mut owners, mut paths, mut ego, mut responses) = (
        std::io::sink(),
        std::io::sink(),
        std::io::sink(),
        std::io::sink(),
        std::io::sink(),
    );
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
        dir: None,
    };
    plan.run_on(exec, &mut sinks, &opts.control)?;
    Ok(())
}

//! Parameter sweeps (`privdiffuse sweep`): a grid of simulations (and
//! collusion evaluations) run in parallel into one long-format CSV.
//!
//! * [`Grid`] — `--set KEY=V1,V2,...` axes or a TOML file with `[base]` and
//!   `[grid]`; the sweep is the cartesian product, **first axis outermost**
//!   (point index = row-major index, the last axis varies fastest).
//! * [`run_sweep`] — validates every point, loads each graph once, prepares
//!   each (graph, distance kind, options) once and shares it across points,
//!   and runs the points in parallel. `FILE` (the CSV) appears only when every
//!   point is done, in grid order, through an [`AtomicFile`]: a sweep that is
//!   interrupted or fails never leaves a `FILE` that looks complete.
//! * Progress and resume: each finished point's rows are appended at once
//!   (flushed) to the side file `STEM.progress` (STEM = `FILE` without its
//!   extension, as for `STEM.timings.csv`), followed by a line
//!   `# done,INDEX,ROWS,SECONDS`; its first line is a fingerprint of the grid,
//!   its second the CSV header (so `grep -v '^#'` gives a CSV of the points
//!   so far). `--resume` keeps a point only if its rows are followed by its
//!   entry (ROWS lines with its key values); a point cut off mid-write is
//!   dropped and recomputed. When every point is done `FILE` is written, the
//!   timings go to `STEM.timings.csv` and the progress file is removed — so
//!   the final CSV is a pure function of the grid and seeds, byte for byte,
//!   whatever the thread count or the interruptions. The progress file is
//!   what an interrupted (or failed) sweep leaves, and all it leaves.
//! * Existing outputs: an explicitly named `FILE` ([`SweepOptions::explicit_out`])
//!   that exists, or its timings, figures or progress file, is refused unless
//!   `force` (or `resume`, which continues from the progress file); a new
//!   `FILE` is claimed at once, so that two sweeps into it cannot both run.
//!   The default [`DEFAULT_OUT`] is replaced.
//!
//! CSV columns: the grid keys (in axis order; a key that is also an output
//! column is written `<key>_spec`, e.g. `mechanism_spec`), then a [`SweepRow`]:
//! `mechanism,estimator,coalition,metric,distance_lo,distance_hi,value`.
//! Metrics: see [`metrics`].

pub mod figure;
pub mod grid;
pub mod metrics;
pub mod rows;
pub mod summary;

#[cfg(feature = "plots")]
pub use crate::output::plot::sweep::{draw_sweep_figure, draw_sweep_to};
pub use figure::PlotSpec;

/// Draws the sweep's figure (PNG and SVG beside the CSV).
#[cfg(feature = "plots")]
fn draw_figure(out: &Path, spec: &PlotSpec) -> Result<Vec<PathBuf>> {
    draw_sweep_figure(out, spec)
}

/// Without the `plots` feature a sweep cannot draw its figure.
#[cfg(not(feature = "plots"))]
fn draw_figure(_out: &Path, _spec: &PlotSpec) -> Result<Vec<PathBuf>> {
    crate::output::check_plots_available()?;
    Ok(Vec::new())
}
pub use grid::{Axis, ColludePoint, Grid, Point};
pub use metrics::point_rows;
pub use rows::SweepRow;

use crate::collusion::write::DEFAULT_OWNERS;
use crate::control::Control;
use crate::distance::{DistanceKind, DistanceOptions, Distances};
use crate::error::{Error, Result};
use crate::graph::{Graph, GraphView, LoadOptions, load_graph};
use crate::sim::{Plan, SimConfig};
use crate::util::table::{self, push_field};
use crate::util::{AtomicFile, Existing};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Default output file.
pub const DEFAULT_OUT: &str = "results/sweep.csv";

/// The metric columns after the grid keys.
pub const TAIL_COLUMNS: [&str; 7] = grid::OUTPUT_COLUMNS;

/// How a sweep is run and written (nothing here changes the numbers).
#[derive(Clone, Debug)]
pub struct SweepOptions {
    /// The CSV (its directory is created).
    pub out: PathBuf,
    /// `out` was named explicitly: it must not exist yet (nor its side
    /// files), unless `force` or `resume`. A default `out` is replaced.
    pub explicit_out: bool,
    /// Replace existing outputs (and start afresh over a progress file).
    pub force: bool,
    /// Keep complete points of an interrupted run of the same grid.
    pub resume: bool,
    /// Cancellation and progress reports (per point).
    pub control: Control,
    /// Draw a figure when the sweep is complete.
    pub plot: Option<PlotSpec>,
    /// Stop after this many points were computed (simulates an interruption;
    /// the sweep returns with `complete == false`).
    pub stop_after: Option<usize>,
    /// Validate, load the graphs, time a short calibration and report the
    /// points and the estimated time ([`SweepReport::estimate`]) without
    /// running the sweep or writing anything.
    pub dry_run: bool,
}

impl SweepOptions {
    /// Writes `out`, replacing it (as a default output); no resume, no
    /// progress reports, no plot.
    pub fn new(out: impl Into<PathBuf>) -> SweepOptions {
        SweepOptions {
            out: out.into(),
            explicit_out: false,
            force: false,
            resume: false,
            control: Control::default(),
            plot: None,
            stop_after: None,
            dry_run: false,
        }
    }
}

/// What one point will compute (`dry_run`).
#[derive(Clone, Debug, PartialEq)]
pub struct PointEstimate {
    /// Index in grid order.
    pub index: usize,
    /// Its key values (as [`Grid::columns`]).
    pub values: Vec<String>,
    /// Data owners simulated.
    pub owners: usize,
    /// Answers drawn: owners × other nodes × mechanisms (at most: only the
    /// reachable nodes get one).
    pub answers: u64,
    /// Collusion trials: owners × coalitions × mechanisms × trials.
    pub trials: u64,
    /// Estimated seconds on one thread.
    pub seconds: f64,
}

/// The estimate of a dry run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Estimate {
    /// Every point.
    pub points: Vec<PointEstimate>,
    /// Threads the sweep would run on.
    pub threads: usize,
    /// Seconds to load the graphs and prepare the distances (measured).
    pub prepare_seconds: f64,
    /// Seconds the calibration took.
    pub calibration_seconds: f64,
    /// Estimated wall seconds of the sweep: preparation + Σ point seconds /
    /// threads.
    pub seconds: f64,
}

/// What a sweep did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SweepReport {
    /// Points in the grid.
    pub points: usize,
    /// Points computed by this call.
    pub computed: usize,
    /// Points kept from an interrupted run (`--resume`).
    pub reused: usize,
    /// Graphs loaded.
    pub graphs_loaded: usize,
    /// Distance preparations, per kind (each (graph, kind, options) once).
    pub distances_prepared: Vec<(DistanceKind, usize)>,
    /// Every point is in the CSV (it was rewritten in grid order).
    pub complete: bool,
    /// Figures drawn.
    pub figures: Vec<PathBuf>,
    /// Wall seconds of this call.
    pub seconds: f64,
    /// The dry run's estimate (`dry_run`; nothing was run or written).
    pub estimate: Option<Estimate>,
}

impl SweepReport {
    /// Preparations of `kind`.
    pub fn prepared(&self, kind: DistanceKind) -> usize {
        self.distances_prepared
            .iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, n)| n)
            .sum()
    }
}

/// `FILE.csv` → `FILE.<suffix>` beside it.
pub fn side_file(out: &Path, suffix: &str) -> PathBuf {
    let stem = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "sweep".into());
    out.with_file_name(format!("{stem}.{suffix}"))
}

fn header_line(grid: &Grid) -> String {
    let mut s = String::new();
    for (i, c) in grid
        .columns()
        .iter()
        .map(String::as_str)
        .chain(TAIL_COLUMNS)
        .enumerate()
    {
        if i > 0 {
            s.push(',');
        }
        push_field(&mut s, c);
    }
    s
}

/// FNV-1a of the header, the fixed options and every point's values: a
/// progress file of another grid is refused on `--resume`.
fn fingerprint(grid: &Grid) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |s: &str| {
        for b in s.bytes().chain([0u8]) {
            h ^= b as u64;
            h = h.wrapping_mul(0x100_0000_01b3);
        }
    };
    eat(&header_line(grid));
    for (k, v) in &grid.base {
        eat(k);
        eat(v);
    }
    for a in &grid.axes {
        eat(&a.key);
        for v in &a.values {
            eat(v);
        }
    }
    format!(
        "# privdiffuse sweep progress v2 points={} grid={h:016x}",
        grid.len()
    )
}

/// The CSV lines of one point: its key values, then each row.
fn point_lines(out: &Path, values: &[String], rows: &[SweepRow]) -> Result<Vec<String>> {
    rows.iter()
        .map(|r| {
            // Numbers finite except where the format documents inf (the
            // unreachable bucket) or NaN (an undefined metric).
            table::Records::new().push_row(r).map_err(|e| {
                Error::Numerical(format!(
                    "{}: point {}, metric {}: {e}",
                    out.display(),
                    values.join(","),
                    r.metric
                ))
            })?;
            table::line(&(values, r)).map_err(|e| Error::io(out, e))
        })
        .collect()
}

/// Complete points of an interrupted run: index → (lines, seconds).
type Done = HashMap<usize, (Vec<String>, f64)>;

/// A progress file's entry line: `# done,INDEX,ROWS,SECONDS`.
fn done_line(index: usize, rows: usize, seconds: f64) -> String {
    format!("# done,{index},{rows},{seconds}")
}

/// Parses a [`done_line`] (exactly four fields: a row of the CSV has more).
fn parse_done(line: &str) -> Option<(usize, usize, f64)> {
    let rest = line.strip_prefix("# done,")?;
    let f: Vec<&str> = rest.split(',').collect();
    match f.as_slice() {
        [i, n, s] => Some((i.parse().ok()?, n.parse().ok()?, s.parse().ok()?)),
        _ => None,
    }
}

/// The complete points recorded in the progress file of an interrupted run
/// (none when there is no progress file).
fn read_resume(grid: &Grid, points: &[Point], progress: &Path) -> Result<Done> {
    let mut done = Done::new();
    // Bounded read (`--out /dev/zero`, a FIFO); a file that cannot be read
    // is not resumed from, one that is too large or not text is an error.
    let cap = (crate::limits::memory_budget().bytes / 4).min(4 << 30);
    let prog = match crate::util::lines::read_text(progress, cap) {
        Ok(text) => text,
        Err(crate::util::TableError::Io(e)) if e.error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(done);
        }
        Err(e) => return Err(Error::from(e)),
    };
    // Only newline-terminated lines count: a trailing fragment is a row cut off.
    let complete = match prog.rfind('\n') {
        Some(i) => &prog[..i],
        None => "",
    };
    let mut lines = complete.split('\n');
    if lines.next() != Some(fingerprint(grid).as_str()) {
        return Err(Error::param(
            "resume",
            progress.display(),
            "the progress file of this same grid (delete it, or choose another `out`)",
        ));
    }
    let header = header_line(grid);
    match lines.next() {
        Some(h) if h == header => {}
        Some(h) => {
            return Err(Error::input(
                progress,
                2,
                format!("columns '{h}' differ from this sweep's '{header}'"),
            ));
        }
        None => return Ok(done),
    }
    let ncols = grid.columns().len() + TAIL_COLUMNS.len();
    let mut block: Vec<String> = Vec::new();
    for line in lines {
        let Some((i, n, secs)) = parse_done(line) else {
            block.push(line.to_string());
            continue;
        };
        let rows = std::mem::take(&mut block);
        let fits = |l: &String| {
            let f = table::cells(l);
            let nk = points[i].values.len();
            f.len() == ncols && f[..nk] == points[i].values[..]
        };
        if i < points.len() && rows.len() == n && rows.iter().all(fits) {
            done.insert(i, (rows, secs));
        }
    }
    Ok(done)
}

/// The graph a point loads: (graph, nodes, directed, view).
type GraphKey = (PathBuf, Option<PathBuf>, bool, Option<GraphView>);

fn graph_key(c: &SimConfig) -> GraphKey {
    (c.graph.clone(), c.nodes.clone(), c.directed, c.view.clone())
}

/// The distinct graphs (with their views) of `points`, each loaded once, and
/// their keys in first-seen order.
fn load_graphs<'a>(points: impl Iterator<Item = &'a Point>) -> Result<(Vec<GraphKey>, Vec<Graph>)> {
    let mut gkeys: Vec<GraphKey> = Vec::new();
    for p in points {
        let k = graph_key(&p.config);
        if !gkeys.contains(&k) {
            gkeys.push(k);
        }
    }
    let graphs = gkeys
        .iter()
        .map(|(path, nodes, directed, view)| {
            let g = load_graph(
                path,
                &LoadOptions {
                    directed: *directed,
                    nodes_file: nodes.clone(),
                    ..LoadOptions::default()
                },
            )?;
            match view {
                Some(v) => v.apply(&g),
                None => Ok(g),
            }
        })
        .collect::<Result<_>>()?;
    Ok((gkeys, graphs))
}

/// The options that matter for `kind` (hop and weighted need none).
fn distance_key(kind: DistanceKind, o: &DistanceOptions) -> String {
    match kind {
        DistanceKind::Hop | DistanceKind::Weighted => String::new(),
        _ => serde_json::to_string(o).unwrap_or_default(),
    }
}

/// The progress file, appended to as points finish.
struct Sink {
    progress: BufWriter<File>,
    progress_path: PathBuf,
}

impl Sink {
    fn append(&mut self, index: usize, lines: &[String], seconds: f64) -> Result<()> {
        let mut text = String::new();
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
        text.push_str(&done_line(index, lines.len(), seconds));
        text.push('\n');
        let io = |e| Error::io(&self.progress_path, e);
        self.progress.write_all(text.as_bytes()).map_err(io)?;
        self.progress.flush().map_err(io)
    }
}

/// Writes `text` to `path` atomically.
fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(text.as_bytes())
        .map_err(|e| Error::io(path, e))?;
    Ok(f.commit()?)
}

/// The outputs of a sweep into `out` besides the CSV: timings, figures.
fn side_outputs(out: &Path, plot: bool) -> Vec<PathBuf> {
    let mut v = vec![side_file(out, "timings.csv"), side_file(out, "summary.csv")];
    if plot {
        v.push(side_file(out, "png"));
        v.push(side_file(out, "svg"));
    }
    v
}

/// Runs a sweep (see the module doc). Parallel over points on the current
/// rayon pool; each point's simulation is itself parallel over owners.
///
/// ```
/// use privdiffuse::util::table::{CsvRow, Reader};
/// use privdiffuse::{Grid, SweepOptions, run_sweep};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // Fixed options, then the axes: 2 dimensions × 2 seeds = 4 points.
/// let mut grid = Grid::new();
/// grid.add_base("graph", "data/karate.edges")?;
/// grid.add_base("owners", "10")?;
/// grid.add_base("norm", "l2")?;
/// grid.add_set("dim=1,2")?;
/// grid.add_set("seed=1..2")?;
/// let dir = tempfile::tempdir()?;
/// let csv = dir.path().join("sweep.csv");
/// let report = run_sweep(&grid, &SweepOptions::new(&csv))?;
/// assert!(report.complete);
/// assert_eq!((report.points, report.graphs_loaded), (4, 1));
///
/// // Long format: the grid keys, then mechanism,…,metric,…,value. Read the
/// // columns you need with a row type of your own.
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Row { dim: usize, seed: u64, metric: String, value: f64 }
/// impl CsvRow for Row {}
/// let rows: Vec<Row> = Reader::open(&csv)?.collect()?;
/// let value = |dim, seed, metric: &str| {
///     rows.iter()
///         .find(|r| (r.dim, r.seed) == (dim, seed) && r.metric == metric)
///         .map(|r| r.value)
///         .unwrap()
/// };
/// for seed in 1..=2 {
///     // ℓ2 paths jump at rate n + 1: dimension 2 jumps 3/2 times as often.
///     let theory = |dim| value(dim, seed, "jumps_per_path_theory");
///     assert!((theory(2) / theory(1) - 1.5).abs() < 1e-12);
///     for dim in [1, 2] {
///         // Mean jumps of 10 Poisson paths: within 6 standard errors.
///         let se = (theory(dim) / 10.0).sqrt();
///         assert!((value(dim, seed, "jumps_per_path") - theory(dim)).abs() < 6.0 * se);
///     }
/// }
/// # Ok(()) }
/// ```
pub fn run_sweep(grid: &Grid, opts: &SweepOptions) -> Result<SweepReport> {
    let t0 = Instant::now();
    let points = grid.points()?;
    if let Some(spec) = &opts.plot {
        crate::output::check_plots_available()?;
        spec.check(grid)?;
        const COLLUSION: [&str; 6] = [
            "gain_mean",
            "gain_median",
            "coalition_mse",
            "eps_max",
            "eps_sum",
            "coalition_size",
        ];
        let collusion = spec
            .metrics
            .iter()
            .find(|m| COLLUSION.contains(&metrics::canonical_metric(m)));
        if let Some(m) = collusion.filter(|_| points.iter().all(|p| p.collude.is_none())) {
            return Err(Error::param(
                "metrics",
                m,
                "a metric this grid writes: collusion metrics need a coalition (a `coalition` key in the grid)",
            ));
        }
    }
    if opts.dry_run {
        return dry_run(&points, t0);
    }
    let out = &opts.out;
    let existing = if opts.resume {
        Existing::Replace
    } else {
        Existing::for_out(opts.explicit_out, opts.force)
    };
    let progress_path = side_file(out, "progress");
    if existing == Existing::Refuse {
        crate::util::atomic::check_new(out, existing)?;
        for p in side_outputs(out, opts.plot.is_some()) {
            crate::util::atomic::check_new(&p, existing)?;
        }
        if progress_path.exists() {
            return Err(Error::param(
                "out",
                out.display(),
                format!(
                    "an output without the progress file of an interrupted sweep ({}): add `resume` to continue it, or `force` to start afresh",
                    progress_path.display()
                ),
            ));
        }
    }
    // Claimed (or staged) now, written when every point is done.
    let mut csv = AtomicFile::create_with(out, existing)?;
    let done = if opts.resume {
        read_resume(grid, &points, &progress_path)?
    } else {
        Done::new()
    };
    let pending: Vec<&Point> = points
        .iter()
        .filter(|p| !done.contains_key(&p.index))
        .collect();

    // Graphs and distances of the pending points, each prepared once.
    let (gkeys, graphs) = load_graphs(pending.iter().copied())?;
    let mut dkeys: Vec<(usize, DistanceKind, String, DistanceOptions)> = Vec::new();
    let mut point_dist: Vec<usize> = Vec::with_capacity(pending.len());
    for p in &pending {
        let g = gkeys
            .iter()
            .position(|k| *k == graph_key(&p.config))
            .unwrap_or(0);
        let kind = p.config.distance;
        let dk = distance_key(kind, &p.config.distance_options);
        let i = match dkeys
            .iter()
            .position(|(gg, kk, s, _)| *gg == g && *kk == kind && *s == dk)
        {
            Some(i) => i,
            None => {
                dkeys.push((g, kind, dk, p.config.distance_options.clone()));
                dkeys.len() - 1
            }
        };
        point_dist.push(i);
    }
    let distances: Vec<Distances<'_>> = dkeys
        .iter()
        .map(|(g, kind, _, o)| Distances::new(&graphs[*g], *kind, o))
        .collect::<Result<_>>()?;
    let mut prepared: Vec<(DistanceKind, usize)> = Vec::new();
    for (_, kind, _, _) in &dkeys {
        match prepared.iter_mut().find(|(k, _)| k == kind) {
            Some(e) => e.1 += 1,
            None => prepared.push((*kind, 1)),
        }
    }

    // Every pending point's plan, before any simulation runs; `collude`'s
    // default owner sample becomes every node on a smaller graph, as there.
    let configs: Vec<SimConfig> = pending
        .iter()
        .zip(&point_dist)
        .map(|(p, &d)| {
            let mut c = p.config.clone();
            if p.owners_default && distances[d].graph().n() < DEFAULT_OWNERS {
                c.owners = crate::sim::Owners::All;
            }
            c
        })
        .collect();
    let plans: Vec<Plan<'_>> = pending
        .par_iter()
        .zip(point_dist.par_iter())
        .zip(configs.par_iter())
        .map(|((p, &d), c)| {
            let dist = &distances[d];
            Plan::new(c, dist.graph(), dist).map_err(|e| at_point(grid, p, e))
        })
        .collect::<Result<_>>()?;

    // A fresh progress file (resume: only the complete points, so a cut-off
    // row goes).
    let header = header_line(grid);
    let mut prog_text = format!("{}\n{header}\n", fingerprint(grid));
    let mut kept: Vec<(&usize, &(Vec<String>, f64))> = done.iter().collect();
    kept.sort_by_key(|(i, _)| **i);
    for (i, (lines, s)) in &kept {
        for l in lines {
            prog_text.push_str(l);
            prog_text.push('\n');
        }
        prog_text.push_str(&done_line(**i, lines.len(), *s));
        prog_text.push('\n');
    }
    let reused = kept.len();
    write_atomic(&progress_path, &prog_text)?;
    let finished = AtomicUsize::new(0);
    let results = run_points(
        grid,
        opts,
        &pending,
        &plans,
        &progress_path,
        done,
        &finished,
    );
    let results = match results {
        Ok(r) => r,
        Err(e) => {
            // Nothing to resume from: leave nothing.
            if reused == 0 && finished.load(Ordering::SeqCst) == 0 {
                let _ = std::fs::remove_file(&progress_path);
            }
            return Err(e);
        }
    };
    let computed = finished.load(Ordering::SeqCst);
    let mut report = SweepReport {
        points: points.len(),
        computed,
        reused: points.len() - pending.len(),
        graphs_loaded: graphs.len(),
        distances_prepared: prepared,
        complete: results.len() == points.len(),
        figures: Vec::new(),
        seconds: 0.0,
        estimate: None,
    };
    if report.complete {
        let mut text = format!("{header}\n");
        let mut timings = String::new();
        for c in grid.columns() {
            push_field(&mut timings, &c);
            timings.push(',');
        }
        timings.push_str("seconds\n");
        for p in &points {
            let (lines, secs) = &results[&p.index];
            for l in lines {
                text.push_str(l);
                text.push('\n');
            }
            for v in &p.values {
                push_field(&mut timings, v);
                timings.push(',');
            }
            timings.push_str(&format!("{secs}\n"));
        }
        csv.write_all(text.as_bytes())
            .map_err(|e| Error::io(out, e))?;
        csv.commit()?;
        write_atomic(&side_file(out, "timings.csv"), &timings)?;
        write_atomic(&side_file(out, "summary.csv"), &summary::summary_text(out)?)?;
        let _ = std::fs::remove_file(&progress_path);
        if let Some(spec) = &opts.plot {
            // The CSV is committed: a figure that cannot be drawn (e.g. no
            // bucket holds an `at` distance) says what the sweep left.
            report.figures = draw_figure(out, spec).map_err(|e| {
                Error::Unsupported(format!(
                    "{e} (the sweep itself is complete: {} and its timings were written, \
                     no figure)",
                    out.display()
                ))
            })?;
        }
    }
    report.seconds = t0.elapsed().as_secs_f64();
    Ok(report)
}

/// Owners a configuration simulates on a graph of `nodes` nodes.
fn owner_count(c: &SimConfig, nodes: usize) -> usize {
    match &c.owners {
        crate::sim::Owners::All => nodes,
        crate::sim::Owners::Count(k) => (*k).min(nodes),
        crate::sim::Owners::Ids(ids) => ids.len(),
    }
}

/// The dry run: loads the graphs and prepares the distances (as the sweep
/// would), then calibrates. Points that differ only in their seed cost the
/// same, so one point per class is timed, on one and on three owners (the
/// per-owner slope and the fixed cost); a point's estimate is fixed + slope
/// × owners, and the sweep's is the preparation plus the sum over points
/// divided by the threads. Nothing is written.
fn dry_run(points: &[Point], t0: Instant) -> Result<SweepReport> {
    let (gkeys, graphs) = load_graphs(points.iter())?;
    let mut dkeys: Vec<(usize, DistanceKind, String, DistanceOptions)> = Vec::new();
    let mut point_dist = Vec::with_capacity(points.len());
    for p in points {
        let g = gkeys
            .iter()
            .position(|k| *k == graph_key(&p.config))
            .unwrap_or(0);
        let kind = p.config.distance;
        let dk = distance_key(kind, &p.config.distance_options);
        let i = match dkeys
            .iter()
            .position(|(gg, kk, s, _)| *gg == g && *kk == kind && *s == dk)
        {
            Some(i) => i,
            None => {
                dkeys.push((g, kind, dk, p.config.distance_options.clone()));
                dkeys.len() - 1
            }
        };
        point_dist.push(i);
    }
    let distances: Vec<Distances<'_>> = dkeys
        .iter()
        .map(|(g, kind, _, o)| Distances::new(&graphs[*g], *kind, o))
        .collect::<Result<_>>()?;
    let prepare_seconds = t0.elapsed().as_secs_f64();
    let t_cal = Instant::now();
    // Cost classes: the configuration with its seed set to 0.
    let class_of = |p: &Point| -> String {
        let mut c = p.config.clone();
        c.seed = 0;
        c.owners = crate::sim::Owners::All;
        let co = p.collude.as_ref().map(|cp| {
            let o = &cp.options;
            let specs: Vec<String> = o.coalitions.iter().map(|c| c.label().to_string()).collect();
            format!("{specs:?}{:?}{}", o.estimators, o.trials)
        });
        format!("{}|{:?}", serde_json::to_string(&c).unwrap_or_default(), co)
    };
    let mut classes: Vec<(String, f64, f64)> = Vec::new();
    let mut estimates = Vec::with_capacity(points.len());
    for (p, &d) in points.iter().zip(&point_dist) {
        let dist = &distances[d];
        let nodes = dist.graph().n();
        let mut owners = owner_count(&p.config, nodes);
        if p.owners_default && nodes < DEFAULT_OWNERS {
            owners = nodes;
        }
        let class = class_of(p);
        let (fixed, slope) = match classes.iter().find(|c| c.0 == class) {
            Some(c) => (c.1, c.2),
            None => {
                let time = |k: usize| -> Result<f64> {
                    let mut c = p.config.clone();
                    c.owners = crate::sim::Owners::Count(k.min(nodes).max(1));
                    let plan = Plan::new(&c, dist.graph(), dist)?;
                    let t = Instant::now();
                    point_rows(&plan, p.collude.as_ref())?;
                    Ok(t.elapsed().as_secs_f64())
                };
                let t1 = time(1)?;
                let t3 = time(3)?;
                let slope = ((t3 - t1) / 2.0).max(t3 / 3.0 * 0.5);
                let fixed = (t1 - slope).max(0.0);
                classes.push((class, fixed, slope));
                (fixed, slope)
            }
        };
        let mechanisms = p.config.mechanism.mechanisms().len() as u64;
        let trials = p.collude.as_ref().map_or(0, |cp| {
            owners as u64
                * cp.options.coalitions.len() as u64
                * mechanisms
                * cp.options.trials as u64
        });
        estimates.push(PointEstimate {
            index: p.index,
            values: p.values.clone(),
            owners,
            answers: owners as u64 * nodes.saturating_sub(1) as u64 * mechanisms,
            trials,
            seconds: fixed + slope * owners as f64,
        });
    }
    let threads = rayon::current_num_threads().max(1);
    let total: f64 = estimates.iter().map(|e| e.seconds).sum();
    let estimate = Estimate {
        points: estimates,
        threads,
        prepare_seconds,
        calibration_seconds: t_cal.elapsed().as_secs_f64(),
        seconds: prepare_seconds + total / threads as f64,
    };
    Ok(SweepReport {
        points: points.len(),
        graphs_loaded: graphs.len(),
        seconds: t0.elapsed().as_secs_f64(),
        estimate: Some(estimate),
        ..SweepReport::default()
    })
}

/// Runs the pending points in parallel, appending each one's rows to the
/// progress file as it finishes. Returns every complete point (`done` and
/// those computed); `finished` counts the computed ones, also on error.
fn run_points(
    grid: &Grid,
    opts: &SweepOptions,
    pending: &[&Point],
    plans: &[Plan<'_>],
    progress_path: &Path,
    done: Done,
    finished: &AtomicUsize,
) -> Result<Done> {
    let progress = OpenOptions::new()
        .append(true)
        .open(progress_path)
        .map(BufWriter::new)
        .map_err(|e| Error::io(progress_path, e))?;
    let sink = Mutex::new(Sink {
        progress,
        progress_path: progress_path.to_path_buf(),
    });
    let results: Mutex<Done> = Mutex::new(done);
    let total_points = plans.len() as u64;
    let started = AtomicUsize::new(0);
    let limit = opts.stop_after.unwrap_or(usize::MAX);
    let poisoned = || Error::Numerical("a sweep worker panicked".into());
    pending
        .par_iter()
        .zip(plans.par_iter())
        .try_for_each(|(p, plan)| -> Result<()> {
            if started.fetch_add(1, Ordering::SeqCst) >= limit {
                return Ok(());
            }
            opts.control.check()?;
            let t = Instant::now();
            let rows = point_rows(plan, p.collude.as_ref()).map_err(|e| at_point(grid, p, e))?;
            let lines = point_lines(&opts.out, &p.values, &rows)?;
            let secs = t.elapsed().as_secs_f64();
            sink.lock()
                .map_err(|_| poisoned())?
                .append(p.index, &lines, secs)?;
            results
                .lock()
                .map_err(|_| poisoned())?
                .insert(p.index, (lines, secs));
            let done = finished.fetch_add(1, Ordering::SeqCst) as u64 + 1;
            opts.control.report("points", done, total_points);
            Ok(())
        })?;
    results.into_inner().map_err(|_| poisoned())
}

/// Names the point in a run-time error (plan or simulation).
fn at_point(grid: &Grid, p: &Point, e: Error) -> Error {
    let here: Vec<String> = grid
        .axes
        .iter()
        .zip(&p.values)
        .map(|(a, v)| format!("{}={v}", a.key))
        .collect();
    match e {
        Error::Parameter {
            name,
            value,
            expected,
        } => Error::param(
            name,
            value,
            format!("{expected} [sweep point {}: {}]", p.index, here.join(" ")),
        ),
        Error::Unsupported(m) => {
            Error::Unsupported(format!("{m} [sweep point {}: {}]", p.index, here.join(" ")))
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_files_sit_beside_the_csv() {
        let p = Path::new("results/sweep.csv");
        assert_eq!(
            side_file(p, "progress"),
            Path::new("results/sweep.progress")
        );
        assert_eq!(
            side_file(p, "timings.csv"),
            Path::new("results/sweep.timings.csv")
        );
    }
}

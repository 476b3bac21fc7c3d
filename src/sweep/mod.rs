//! Parameter sweeps (`privdiffuse sweep`): a grid of simulations (and
//! collusion evaluations) run in parallel into one long-format CSV.
//!
//! * [`Grid`] — `--set KEY=V1,V2,...` axes or a TOML file with `[base]` and
//!   `[grid]`; the sweep is the cartesian product, **first axis outermost**
//!   (point index = row-major index, the last axis varies fastest).
//! * [`run_sweep`] — validates every point, loads each graph once, prepares
//!   each (graph, distance kind, options) once and shares it across points,
//!   runs the points in parallel and appends each finished point's rows to the
//!   CSV at once (flushed), so an interrupted sweep keeps them.
//! * Resume: after a point's rows are flushed, a line `done,INDEX,ROWS,SECONDS`
//!   is appended to the side file `FILE.progress` (first line: a fingerprint of
//!   the grid). `--resume` keeps a point only if its entry is there *and* the
//!   CSV holds exactly ROWS lines with its key values; everything else (a point
//!   cut off mid-write, rows without an entry) is dropped and recomputed. When
//!   every point is done the CSV is rewritten in grid order through an
//!   [`AtomicFile`], the timings go to `FILE.timings.csv` and the progress file
//!   is removed — so the final CSV is a pure function of the grid and seeds,
//!   byte for byte, whatever the thread count or the interruptions.
//!
//! CSV columns: the grid keys (in axis order; a key that is also an output
//! column is written `<key>_spec`, e.g. `mechanism_spec`), then a [`SweepRow`]:
//! `mechanism,estimator,coalition,metric,distance_lo,distance_hi,value`.
//! Metrics: see [`metrics`].

pub mod figure;
pub mod grid;
pub mod metrics;
pub mod rows;

#[cfg(feature = "plots")]
pub use crate::output::plot::sweep::draw_sweep_figure;
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

use crate::control::Control;
use crate::distance::{DistanceKind, DistanceOptions, Distances};
use crate::graph::{Graph, LoadOptions, load_graph};
use crate::sim::{Plan, SimConfig};
use crate::util::AtomicFile;
use crate::util::table::{self, push_field};
use crate::{Error, Result};
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
    /// Keep complete points of an interrupted run of the same grid.
    pub resume: bool,
    /// Cancellation and progress reports (per point).
    pub control: Control,
    /// Draw a figure when the sweep is complete.
    pub plot: Option<PlotSpec>,
    /// Stop after this many points were computed (simulates an interruption;
    /// the sweep returns with `complete == false`).
    pub stop_after: Option<usize>,
}

impl SweepOptions {
    /// Defaults: [`DEFAULT_OUT`], no resume, no progress, no plot.
    pub fn new(out: impl Into<PathBuf>) -> SweepOptions {
        SweepOptions {
            out: out.into(),
            resume: false,
            control: Control::default(),
            plot: None,
            stop_after: None,
        }
    }
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
        "# privdiffuse sweep progress v1 points={} grid={h:016x}",
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

fn read_resume(grid: &Grid, points: &[Point], out: &Path, progress: &Path) -> Result<Done> {
    let mut done = Done::new();
    let (Ok(csv), Ok(prog)) = (
        std::fs::read_to_string(out),
        std::fs::read_to_string(progress),
    ) else {
        return Ok(done);
    };
    let mut plines = prog.lines();
    if plines.next() != Some(fingerprint(grid).as_str()) {
        return Err(Error::param(
            "resume",
            progress.display(),
            "the progress file of this same grid (delete it, or choose another `out`)",
        ));
    }
    let header = header_line(grid);
    // Only newline-terminated lines count: a trailing fragment is a row cut off.
    let complete = match csv.rfind('\n') {
        Some(i) => &csv[..i],
        None => "",
    };
    let mut lines = complete.split('\n');
    match lines.next() {
        Some(h) if h == header => {}
        Some(h) if !h.is_empty() => {
            return Err(Error::input(
                out,
                1,
                format!("columns '{h}' differ from this sweep's '{header}'"),
            ));
        }
        _ => return Ok(done),
    }
    let nkeys = grid.axes.len();
    let ncols = nkeys + TAIL_COLUMNS.len();
    let by_values: HashMap<&[String], usize> = points
        .iter()
        .map(|p| (p.values.as_slice(), p.index))
        .collect();
    let mut rows: HashMap<usize, Vec<String>> = HashMap::new();
    for line in lines {
        let f = table::cells(line);
        if f.len() != ncols {
            continue;
        }
        if let Some(&i) = by_values.get(&f[..nkeys]) {
            rows.entry(i).or_default().push(line.to_string());
        }
    }
    for l in plines {
        let f: Vec<&str> = l.split(',').collect();
        let (Some(&"done"), Some(i), Some(n), Some(s)) = (
            f.first(),
            f.get(1).and_then(|x| x.parse::<usize>().ok()),
            f.get(2).and_then(|x| x.parse::<usize>().ok()),
            f.get(3).and_then(|x| x.parse::<f64>().ok()),
        ) else {
            continue;
        };
        if let Some(r) = rows.get(&i)
            && r.len() == n
            && i < points.len()
        {
            done.insert(i, (r.clone(), s));
        }
    }
    Ok(done)
}

/// The (graph, nodes, directed) a point loads.
fn graph_key(c: &SimConfig) -> (PathBuf, Option<PathBuf>, bool) {
    (c.graph.clone(), c.nodes.clone(), c.directed)
}

/// The options that matter for `kind` (hop and weighted need none).
fn distance_key(kind: DistanceKind, o: &DistanceOptions) -> String {
    match kind {
        DistanceKind::Hop | DistanceKind::Weighted => String::new(),
        _ => serde_json::to_string(o).unwrap_or_default(),
    }
}

struct Sink {
    csv: BufWriter<File>,
    progress: BufWriter<File>,
    out: PathBuf,
    progress_path: PathBuf,
}

impl Sink {
    fn append(&mut self, index: usize, lines: &[String], seconds: f64) -> Result<()> {
        let io = |p: &Path| {
            let p = p.to_path_buf();
            move |e| Error::io(p, e)
        };
        let mut text = String::new();
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
        self.csv.write_all(text.as_bytes()).map_err(io(&self.out))?;
        self.csv.flush().map_err(io(&self.out))?;
        writeln!(self.progress, "done,{index},{},{seconds}", lines.len())
            .map_err(io(&self.progress_path))?;
        self.progress.flush().map_err(io(&self.progress_path))
    }
}

/// Writes `text` to `path` atomically.
fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(text.as_bytes())
        .map_err(|e| Error::io(path, e))?;
    Ok(f.commit()?)
}

/// Runs a sweep (see the module doc). Parallel over points on the current
/// rayon pool; each point's simulation is itself parallel over owners.
pub fn run_sweep(grid: &Grid, opts: &SweepOptions) -> Result<SweepReport> {
    let t0 = Instant::now();
    let points = grid.points()?;
    if let Some(spec) = &opts.plot {
        crate::output::check_plots_available()?;
        spec.check(grid)?;
        const COLLUSION: [&str; 5] = [
            "gain",
            "coalition_mse",
            "eps_max",
            "eps_sum",
            "coalition_size",
        ];
        let collusion = spec
            .metrics
            .iter()
            .find(|m| COLLUSION.contains(&m.as_str()));
        if let Some(m) = collusion.filter(|_| points.iter().all(|p| p.collude.is_none())) {
            return Err(Error::param(
                "metrics",
                m,
                "a metric this grid writes: collusion metrics need a coalition (a `coalition` key in the grid)",
            ));
        }
    }
    let out = &opts.out;
    if let Some(dir) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let progress_path = side_file(out, "progress");
    let done = if opts.resume {
        read_resume(grid, &points, out, &progress_path)?
    } else {
        Done::new()
    };
    let pending: Vec<&Point> = points
        .iter()
        .filter(|p| !done.contains_key(&p.index))
        .collect();

    // Graphs and distances of the pending points, each prepared once.
    let mut gkeys: Vec<(PathBuf, Option<PathBuf>, bool)> = Vec::new();
    for p in &pending {
        let k = graph_key(&p.config);
        if !gkeys.contains(&k) {
            gkeys.push(k);
        }
    }
    let graphs: Vec<Graph> = gkeys
        .iter()
        .map(|(path, nodes, directed)| {
            load_graph(
                path,
                &LoadOptions {
                    directed: *directed,
                    nodes_file: nodes.clone(),
                    ..LoadOptions::default()
                },
            )
        })
        .collect::<Result<_>>()?;
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

    // Every pending point's plan, before any simulation runs.
    let plans: Vec<Plan<'_>> = pending
        .par_iter()
        .zip(point_dist.par_iter())
        .map(|(p, &d)| {
            let dist = &distances[d];
            Plan::new(&p.config, dist.graph(), dist).map_err(|e| at_point(grid, p, e))
        })
        .collect::<Result<_>>()?;

    // Fresh files (resume: only the complete points, so a cut-off row goes).
    let header = header_line(grid);
    let mut csv_text = format!("{header}\n");
    let mut prog_text = format!("{}\n", fingerprint(grid));
    let mut kept: Vec<(&usize, &(Vec<String>, f64))> = done.iter().collect();
    kept.sort_by_key(|(i, _)| **i);
    for (i, (lines, s)) in &kept {
        for l in lines {
            csv_text.push_str(l);
            csv_text.push('\n');
        }
        prog_text.push_str(&format!("done,{i},{},{s}\n", lines.len()));
    }
    write_atomic(out, &csv_text)?;
    write_atomic(&progress_path, &prog_text)?;
    let open = |p: &Path| -> Result<BufWriter<File>> {
        OpenOptions::new()
            .append(true)
            .open(p)
            .map(BufWriter::new)
            .map_err(|e| Error::io(p, e))
    };
    let sink = Mutex::new(Sink {
        csv: open(out)?,
        progress: open(&progress_path)?,
        out: out.clone(),
        progress_path: progress_path.clone(),
    });
    let results: Mutex<Done> = Mutex::new(done);
    let total_points = plans.len() as u64;
    let started = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let limit = opts.stop_after.unwrap_or(usize::MAX);
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
            let lines = point_lines(out, &p.values, &rows)?;
            let secs = t.elapsed().as_secs_f64();
            sink.lock()
                .map_err(|_| Error::Numerical("a sweep worker panicked".into()))?
                .append(p.index, &lines, secs)?;
            results
                .lock()
                .map_err(|_| Error::Numerical("a sweep worker panicked".into()))?
                .insert(p.index, (lines, secs));
            let done = finished.fetch_add(1, Ordering::SeqCst) as u64 + 1;
            opts.control.report("points", done, total_points);
            Ok(())
        })?;
    drop(sink);
    let results = results
        .into_inner()
        .map_err(|_| Error::Numerical("a sweep worker panicked".into()))?;
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
        write_atomic(out, &text)?;
        write_atomic(&side_file(out, "timings.csv"), &timings)?;
        let _ = std::fs::remove_file(&progress_path);
        if let Some(spec) = &opts.plot {
            report.figures = draw_figure(out, spec)?;
        }
    }
    report.seconds = t0.elapsed().as_secs_f64();
    Ok(report)
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

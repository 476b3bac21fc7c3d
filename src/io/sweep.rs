//! `sweep --out FILE`: the files of a sweep — the long-format CSV, the
//! progress file that `--resume` continues from, `STEM.timings.csv`,
//! `STEM.summary.csv` and the figure — around the engine of
//! [`crate::sweep`], which runs the points and hands each one's rows over.

use crate::control::Control;
use crate::distance::DistanceKind;
use crate::error::{Error, Result};
use crate::io::memory::HeldFile;
use crate::io::sweep_figure::{PlotSpec, side_file};
use crate::sweep::{Estimate, Grid, Point, PointSink, SweepRow, TAIL_COLUMNS, run_points};
use crate::util::table::{self, Keyed, push_field};
use crate::util::{AtomicFile, Existing};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Draws the sweep's figure (PNG and SVG beside the CSV).
#[cfg(feature = "plots")]
fn draw_figure(out: &Path, spec: &PlotSpec) -> Result<Vec<PathBuf>> {
    super::plot::sweep::draw_sweep_figure(out, spec)
}

/// Without the `plots` feature a sweep cannot draw its figure.
#[cfg(not(feature = "plots"))]
fn draw_figure(_out: &Path, _spec: &PlotSpec) -> Result<Vec<PathBuf>> {
    super::check_plots_available()?;
    Ok(Vec::new())
}

/// Default output file.
pub const DEFAULT_OUT: &str = "runs/sweep.csv";

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

/// The CSV lines of one point (its key values, then each row), each
/// ending in `\n`: numbers finite except where the format documents inf
/// (the unreachable bucket) or NaN (an undefined metric).
fn point_lines(out: &Path, values: &[String], rows: &[SweepRow]) -> Result<String> {
    let mut text = table::Records::new();
    for r in rows {
        let keyed = Keyed {
            keys: values.to_vec(),
            row: r.clone(),
        };
        text.push_row(&keyed).map_err(|e| {
            Error::Numerical(format!(
                "{}: point {}, metric {}: {e}",
                out.display(),
                values.join(","),
                r.metric
            ))
        })?;
    }
    Ok(text.into_string())
}

/// Complete points: index → (rows, seconds).
type Done = HashMap<usize, (Vec<SweepRow>, f64)>;

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
    let tail: Vec<String> = TAIL_COLUMNS.map(String::from).to_vec();
    let mut block: Vec<(usize, &str)> = Vec::new();
    for (at, line) in lines.enumerate() {
        let Some((i, n, secs)) = parse_done(line) else {
            // Line numbers of the file: the fingerprint and header come first.
            block.push((at + 3, line));
            continue;
        };
        let lines = std::mem::take(&mut block);
        let Some(p) = points.get(i).filter(|_| lines.len() == n) else {
            continue;
        };
        let rows: Option<Vec<SweepRow>> = lines
            .iter()
            .map(|&(at, l)| point_row(progress, at, l, &p.values, &tail))
            .collect();
        if let Some(rows) = rows {
            done.insert(i, (rows, secs));
        }
    }
    Ok(done)
}

/// The row of line `l` (line `at` of `progress`) of the point of key
/// `values`, or `None` when it is not one: other keys, other columns, a
/// cell that does not read or a number its column does not allow.
fn point_row(
    progress: &Path,
    at: usize,
    l: &str,
    values: &[String],
    tail: &[String],
) -> Option<SweepRow> {
    let cells = table::cells(l);
    let nk = values.len();
    if cells.len() != nk + tail.len() || cells[..nk] != values[..] {
        return None;
    }
    let record: csv::StringRecord = cells[nk..].iter().collect();
    let row: SweepRow = table::decode(progress, at, tail, &record).ok()?;
    table::check_row(progress, at, &row, f64::INFINITY).ok()?;
    Some(row)
}

fn poisoned() -> Error {
    Error::Numerical("a sweep worker panicked".into())
}

/// The sweep's [`PointSink`]: a fresh progress file once every plan is
/// built (resume: only the complete points, so a cut-off row goes), each
/// finished point's lines appended to it (flushed) and kept for the CSV.
struct ProgressSink<'a> {
    out: &'a Path,
    grid: &'a Grid,
    points: &'a [Point],
    progress_path: &'a Path,
    progress: Mutex<Option<Progress>>,
    results: Mutex<Done>,
    finished: AtomicUsize,
}

impl PointSink for ProgressSink<'_> {
    fn ready(&self) -> Result<()> {
        let mut text = format!("{}\n{}\n", fingerprint(self.grid), header_line(self.grid));
        let done = self.results.lock().map_err(|_| poisoned())?;
        let mut kept: Vec<(&usize, &(Vec<SweepRow>, f64))> = done.iter().collect();
        kept.sort_by_key(|(i, _)| **i);
        for (&i, (rows, s)) in kept {
            text.push_str(&point_lines(self.out, &self.points[i].values, rows)?);
            text.push_str(&done_line(i, rows.len(), *s));
            text.push('\n');
        }
        write_atomic(self.progress_path, text.as_bytes())?;
        let file = OpenOptions::new()
            .append(true)
            .open(self.progress_path)
            .map(BufWriter::new)
            .map_err(|e| Error::io(self.progress_path, e))?;
        *self.progress.lock().map_err(|_| poisoned())? = Some(Progress {
            progress: file,
            progress_path: self.progress_path.to_path_buf(),
        });
        Ok(())
    }

    fn point(&self, p: &Point, rows: Vec<SweepRow>, secs: f64) -> Result<()> {
        let lines = point_lines(self.out, &p.values, &rows)?;
        if let Some(prog) = self.progress.lock().map_err(|_| poisoned())?.as_mut() {
            prog.append(p.index, &lines, rows.len(), secs)?;
        }
        self.results
            .lock()
            .map_err(|_| poisoned())?
            .insert(p.index, (rows, secs));
        self.finished.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
}

/// The progress file, appended to as points finish.
struct Progress {
    progress: BufWriter<File>,
    progress_path: PathBuf,
}

impl Progress {
    fn append(&mut self, index: usize, lines: &str, rows: usize, seconds: f64) -> Result<()> {
        let mut text = lines.to_string();
        text.push_str(&done_line(index, rows, seconds));
        text.push('\n');
        let io = |e| Error::io(&self.progress_path, e);
        self.progress.write_all(text.as_bytes()).map_err(io)?;
        self.progress.flush().map_err(io)
    }
}

/// Writes `text` to `path` atomically.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes).map_err(|e| Error::io(path, e))?;
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
/// use privdiffuse::io::SweepOptions;
/// use privdiffuse::{Grid, run_sweep};
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
    run_sweep_held(grid, opts).map(|(report, _)| report)
}

/// As [`run_sweep`], also giving the files it wrote, held in memory with
/// their typed rows ([`SWEEP_FILES`], in that order; none unless the sweep
/// is complete, nor for a dry run).
pub fn run_sweep_held(grid: &Grid, opts: &SweepOptions) -> Result<(SweepReport, Vec<HeldFile>)> {
    let t0 = Instant::now();
    let points = grid.points()?;
    if let Some(spec) = &opts.plot {
        check_figure(grid, &points, spec)?;
    }
    if opts.dry_run {
        let (estimate, graphs_loaded) = crate::sweep::estimate(&points)?;
        let report = SweepReport {
            points: points.len(),
            graphs_loaded,
            seconds: t0.elapsed().as_secs_f64(),
            estimate: Some(estimate),
            ..SweepReport::default()
        };
        return Ok((report, Vec::new()));
    }
    let out = &opts.out;
    let existing = if opts.resume {
        Existing::Replace
    } else {
        Existing::for_out(opts.explicit_out, opts.force)
    };
    let progress_path = side_file(out, "progress");
    check_outputs(out, opts.plot.is_some(), existing, &progress_path)?;
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
    let reused = done.len();
    let sink = ProgressSink {
        out,
        grid,
        points: &points,
        progress_path: &progress_path,
        progress: Mutex::new(None),
        results: Mutex::new(done),
        finished: AtomicUsize::new(0),
    };
    let stats = run_points(grid, &pending, &opts.control, opts.stop_after, &sink);
    let computed = sink.finished.load(Ordering::SeqCst);
    let stats = match stats {
        Ok(s) => s,
        Err(e) => {
            // Nothing to resume from: leave nothing.
            if reused == 0 && computed == 0 {
                let _ = std::fs::remove_file(&progress_path);
            }
            return Err(e);
        }
    };
    let results = sink.results.into_inner().map_err(|_| poisoned())?;
    let mut report = SweepReport {
        points: points.len(),
        computed,
        reused: points.len() - pending.len(),
        graphs_loaded: stats.graphs_loaded,
        distances_prepared: stats.distances_prepared,
        complete: results.len() == points.len(),
        figures: Vec::new(),
        seconds: 0.0,
        estimate: None,
    };
    let mut files = Vec::new();
    if report.complete {
        opts.control.phase("writing outputs");
        files = sweep_files(grid, &points, results)?;
        let [table, summary, timings] = &files[..] else {
            unreachable!("a sweep's three files")
        };
        csv.write_all(&table.bytes).map_err(|e| Error::io(out, e))?;
        csv.commit()?;
        write_atomic(&side_file(out, "timings.csv"), &timings.bytes)?;
        write_atomic(&side_file(out, "summary.csv"), &summary.bytes)?;
        let _ = std::fs::remove_file(&progress_path);
        if let Some(spec) = &opts.plot {
            opts.control.phase("drawing figures");
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
    Ok((report, files))
}

/// The names of a sweep's files held in memory ([`run_sweep_held`]): the
/// CSV, `STEM.summary.csv`, `STEM.timings.csv` of `--out sweep.csv`.
pub const SWEEP_FILES: [&str; 3] = ["sweep.csv", "sweep.summary.csv", "sweep.timings.csv"];

/// `STEM.timings.csv`'s row after the key columns.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct TimingRow {
    /// Seconds the point took (in the run that computed it).
    seconds: f64,
}

impl table::CsvRow for TimingRow {}

/// The sweep's files ([`SWEEP_FILES`]) from every point's rows and seconds
/// (`done`, complete), points in grid order.
fn sweep_files(grid: &Grid, points: &[Point], mut done: Done) -> Result<Vec<HeldFile>> {
    let keys = grid.columns();
    let mut rows = Vec::new();
    let mut timings = Vec::new();
    for p in points {
        let (point_rows, seconds) = done.remove(&p.index).ok_or_else(poisoned)?;
        rows.extend(point_rows.into_iter().map(|row| Keyed {
            keys: p.values.clone(),
            row,
        }));
        timings.push(Keyed {
            keys: p.values.clone(),
            row: TimingRow { seconds },
        });
    }
    let fail = |name: &'static str| move |e| Error::Numerical(format!("{name}: {e}"));
    let (summary_header, summary) = super::sweep_summary::summary_rows(&keys, &rows);
    let header = |tail: &[&str]| -> Vec<String> {
        keys.iter()
            .cloned()
            .chain(tail.iter().map(|c| c.to_string()))
            .collect()
    };
    let [csv, summary_csv, timings_csv] = SWEEP_FILES;
    Ok(vec![
        HeldFile::table(csv, header(&TAIL_COLUMNS), rows, fail(csv))?,
        HeldFile::table(summary_csv, summary_header, summary, fail(summary_csv))?,
        HeldFile::table(
            timings_csv,
            header(&["seconds"]),
            timings,
            fail(timings_csv),
        )?,
    ])
}

/// Refuses, before any point runs, a figure the sweep cannot draw: plots not
/// built in, a spec that does not fit the grid, a collusion metric from a
/// grid without a coalition.
fn check_figure(grid: &Grid, points: &[Point], spec: &PlotSpec) -> Result<()> {
    super::check_plots_available()?;
    spec.check(grid)?;
    use crate::sweep::metrics::{COLLUSION_METRICS, canonical_metric};
    let collusion = spec
        .metrics
        .iter()
        .find(|m| COLLUSION_METRICS.contains(&canonical_metric(m)));
    if let Some(m) = collusion.filter(|_| points.iter().all(|p| p.collude.is_none())) {
        return Err(Error::param(
            "metrics",
            m,
            "a metric this grid writes: collusion metrics need a coalition (a `coalition` key in the grid)",
        ));
    }
    Ok(())
}

/// Refuses an `out` that would be one of its own side files, and, unless
/// replacing, an output or side file that exists or the progress file of an
/// interrupted sweep (add `resume` or `force`).
fn check_outputs(out: &Path, figure: bool, existing: Existing, progress_path: &Path) -> Result<()> {
    // `--out s.progress` would be its own progress file (and `s.timings.csv`
    // its own timings): refused before anything is claimed.
    if let Some(clash) = std::iter::once(progress_path.to_path_buf())
        .chain(side_outputs(out, figure))
        .find(|p| p == out)
    {
        return Err(Error::param(
            "out",
            out.display(),
            format!(
                "a CSV file other than its own side files ({} is where the sweep keeps \
                 {}): name it STEM.csv",
                clash.display(),
                if clash == *progress_path {
                    "its progress"
                } else {
                    "another of its outputs"
                }
            ),
        ));
    }
    if existing == Existing::Refuse {
        crate::util::atomic::check_new(out, existing)?;
        for p in side_outputs(out, figure) {
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
    Ok(())
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

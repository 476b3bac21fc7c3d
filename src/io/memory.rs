//! Runs held in memory (a binding's results: [`SimOutput`],
//! [`CollusionOutput`], a utility plan and its result) as the command line's
//! files: each file's bytes formatted from the typed rows on demand, the
//! same bytes [`simulate_to_dir`](super::simulate_to_dir),
//! [`collude_to_dir`](super::collude_to_dir) and
//! [`utility_to_dir`](super::utility_to_dir) write for the same
//! configuration, and [`save_files`] to write them into a new directory all
//! or nothing (with the figures and `timings.json`). A table of typed rows
//! is also handed over as [`Columns`], filled from the same rows and header
//! as its bytes ([`simulation_columns`], [`collusion_columns`],
//! [`HeldFile::columns`]).

use super::driver::OutputOptions;
use super::run_dir::{claim_out_dir, json_bytes, write_with};
use super::simulate::{check_totals, ego_leave_out};
use super::{RunFigures, check_plots_available, draw_run_figures};
use crate::collusion::{AuditRow, CoalitionRow, CollusionOutput};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::sim::{EgoRow, JumpRow, KeptRow, OwnerRow, PathRow, ResponseRow, SimOutput};
use crate::util::table::{self, Columns, CsvRow, RowSink, columns, fill};
use crate::utility::{UtilityPlan, UtilityResult, UtilityRow, UtilitySummary};
use serde::Serialize;

/// The files of a `simulate` run directory this output can give: the CSV
/// files of the rows it kept, `by_distance.csv` and `summary.json`, in the
/// order `simulate` writes them.
pub fn simulation_file_names(out: &SimOutput) -> Vec<&'static str> {
    let kept = out.kept();
    let mut names = Vec::new();
    for (name, is_kept) in [
        ("jumps.csv", kept.jumps.is_some()),
        ("owners.csv", kept.owners.is_some()),
        ("paths.csv", kept.paths.is_some()),
        ("ego.csv", kept.ego.is_some()),
        ("responses.csv", kept.responses.is_some()),
    ] {
        if is_kept {
            names.push(name);
        }
    }
    names.extend(["by_distance.csv", "summary.json"]);
    names
}

/// The bytes of file `name` of the run directory of `out`, run on `graph`
/// (see [`simulation_file_names`]; any other name is refused naming them).
pub fn simulation_file(out: &SimOutput, graph: &Graph, name: &str) -> Result<Vec<u8>> {
    let names = simulation_file_names(out);
    if !names.contains(&name) {
        return Err(unknown_name(name, &names));
    }
    if let Some(w) = simulation_table(out, name, &csv_writer)? {
        return w.into_inner().map_err(|e| format_error(name, e));
    }
    let summary = crate::sim::summarize_output(out, graph);
    check_totals(&summary.mse)?;
    json_bytes(name, &summary)
}

/// The columns of CSV file `name` of the run directory of `out` (see
/// [`simulation_file_names`]; `summary.json` and any other name refused).
pub fn simulation_columns(out: &SimOutput, name: &str) -> Result<Columns> {
    let mut names = simulation_file_names(out);
    names.retain(|n| n.ends_with(".csv"));
    if !names.contains(&name) {
        return Err(unknown_name(name, &names));
    }
    let new = |h: Vec<String>| Ok::<_, std::io::Error>(Columns::new(h));
    simulation_table(out, name, &new)?.ok_or_else(|| unknown_name(name, &names))
}

/// The rows of table `name` of `out` in the sink `new` makes of its
/// header, or `None` for a name that is not a table (the one description
/// of each file, for its bytes and its columns).
fn simulation_table<S: RowSink>(
    out: &SimOutput,
    name: &str,
    new: &NewSink<S>,
) -> Result<Option<S>> {
    fn kept<R: KeptRow + CsvRow, S: RowSink>(
        out: &SimOutput,
        name: &str,
        leave_out: &[&str],
        new: &NewSink<S>,
    ) -> Result<S> {
        let header = columns::<R>(out.config().dim, leave_out);
        rows_into(name, new, header, out.rows::<R>()?)
    }
    Ok(Some(match name {
        "jumps.csv" => kept::<JumpRow, S>(out, name, &[], new)?,
        "owners.csv" => kept::<OwnerRow, S>(out, name, &[], new)?,
        "paths.csv" => kept::<PathRow, S>(out, name, &[], new)?,
        "ego.csv" => kept::<EgoRow, S>(out, name, ego_leave_out(&out.config().post), new)?,
        "responses.csv" => kept::<ResponseRow, S>(out, name, &[], new)?,
        "by_distance.csv" => {
            let rows = out.by_distance();
            rows_into(name, new, super::by_distance_header(rows), rows)?
        }
        _ => return Ok(None),
    }))
}

/// The files of a `collude` run directory, in the order it writes them.
pub const COLLUSION_FILES: [&str; 3] = ["coalition.csv", "audit.csv", "summary.json"];

/// The bytes of file `name` (one of [`COLLUSION_FILES`]) of the run
/// directory of `out`.
pub fn collusion_file(out: &CollusionOutput, name: &str) -> Result<Vec<u8>> {
    match collusion_table(out, name, &csv_writer)? {
        Some(w) => w.into_inner().map_err(|e| format_error(name, e)),
        None if name == "summary.json" => json_bytes(name, out.summary()),
        None => Err(unknown_name(name, &COLLUSION_FILES)),
    }
}

/// The columns of table `name` (`coalition.csv` or `audit.csv`) of `out`.
pub fn collusion_columns(out: &CollusionOutput, name: &str) -> Result<Columns> {
    let new = |h: Vec<String>| Ok::<_, std::io::Error>(Columns::new(h));
    collusion_table(out, name, &new)?.ok_or_else(|| unknown_name(name, &COLLUSION_FILES[..2]))
}

/// The rows of table `name` of `out` in the sink `new` makes of its header
/// (`None`: not a table).
fn collusion_table<S: RowSink>(
    out: &CollusionOutput,
    name: &str,
    new: &NewSink<S>,
) -> Result<Option<S>> {
    Ok(Some(match name {
        "coalition.csv" => rows_into(
            name,
            new,
            columns::<CoalitionRow>(0, &[]),
            out.coalition_rows(),
        )?,
        "audit.csv" => rows_into(name, new, columns::<AuditRow>(0, &[]), out.audit_rows())?,
        _ => return Ok(None),
    }))
}

/// Every file of a `utility` run directory (`utility.csv`, `recipients.csv`
/// when `recipients`, `summary.json`), in the order it writes them.
pub fn utility_files(
    plan: &UtilityPlan<'_>,
    res: &UtilityResult,
    recipients: bool,
) -> Result<Vec<HeldFile>> {
    let fail = |name: &'static str| move |e| format_error(name, e);
    let header = columns::<UtilityRow>(0, &[]);
    let rows = res.rows.clone();
    let mut files = vec![HeldFile::table(
        "utility.csv",
        header,
        rows,
        fail("utility.csv"),
    )?];
    if recipients {
        let (header, rows) = super::utility::recipient_rows(plan, res);
        files.push(HeldFile::table(
            "recipients.csv",
            header,
            rows,
            fail("recipients.csv"),
        )?);
    }
    let summary = json_bytes("summary.json", &UtilitySummary::of(plan, res))?;
    files.push(HeldFile::bytes("summary.json", summary));
    Ok(files)
}

/// The figures [`save_files`] draws from the saved files.
#[derive(Clone, Copy, Debug)]
pub enum SavedFigures<'a> {
    /// Those of a `simulate` or `collude` run directory.
    Run(RunFigures),
    /// The utility figure, from these rows.
    Utility(&'a [UtilityRow]),
    /// The relay figure, from these `relay_by_distance.csv` rows.
    Relay(&'a [crate::relay::RelayByDistanceRow]),
}

/// Writes `files`, the figures (when `opts.plots`) and `timings` as
/// `timings.json` into the directory `opts.out`, through a staging directory
/// that replaces it only when complete (same rules as the runs: an explicit
/// directory must be new unless `force`).
pub fn save_files(
    files: &[(&str, &[u8])],
    figures: SavedFigures<'_>,
    timings: &impl Serialize,
    opts: &OutputOptions,
) -> Result<()> {
    if opts.plots {
        check_plots_available()?;
    }
    let dir = claim_out_dir(&opts.out, opts.explicit_out, opts.force)?;
    let put = |name: &str, bytes: &[u8]| write_with(&dir, name, |w| w.write_all(bytes));
    for (name, bytes) in files {
        opts.control.check()?;
        put(name, bytes)?;
    }
    if opts.plots {
        match figures {
            SavedFigures::Run(which) => draw_run_figures(dir.staging(), which),
            #[cfg(feature = "plots")]
            SavedFigures::Utility(rows) => super::plot::utility::draw(dir.staging(), rows),
            #[cfg(feature = "plots")]
            SavedFigures::Relay(rows) => super::plot::relay::draw(dir.staging(), rows),
            #[cfg(not(feature = "plots"))]
            SavedFigures::Utility(_) | SavedFigures::Relay(_) => Ok(()),
        }
        .map_err(|e| super::run_dir::at_destination(&dir, e))?;
    }
    put("timings.json", &json_bytes("timings.json", timings)?)?;
    dir.commit()?;
    Ok(())
}

fn unknown_name(name: &str, names: &[&str]) -> Error {
    Error::param("file", name, format!("one of {}", names.join(", ")))
}

/// A formatting error of file `name`: a number the format does not allow
/// is a numerical failure (as when a run writes it).
fn format_error(name: &str, e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::InvalidData {
        return Error::Numerical(format!(
            "{name}: {e} (a number outside f64's range: the values, the noise or their sums \
             overflow, or the noise vanishes against the values)"
        ));
    }
    Error::Numerical(format!("{name}: {e}"))
}

/// Makes a table's sink from its header: CSV text ([`csv_writer`]) or
/// [`Columns`].
type NewSink<S> = dyn Fn(Vec<String>) -> std::io::Result<S>;

/// A CSV writer into memory, the header written.
fn csv_writer(header: Vec<String>) -> std::io::Result<table::Writer<Vec<u8>>> {
    table::Writer::with_header(Vec::new(), header)
}

/// The rows, under `header`, in a new sink (an error names file `name`).
fn rows_into<S: RowSink, R: CsvRow>(
    name: &str,
    new: &NewSink<S>,
    header: Vec<String>,
    rows: &[R],
) -> Result<S> {
    new(header)
        .and_then(|s| fill(s, rows))
        .map_err(|e| format_error(name, e))
}

/// A file held in memory (a relay's, a utility's): its bytes and, for a
/// table of typed rows, the rows, from which [`HeldFile::columns`] fills
/// its columns.
pub struct HeldFile {
    /// The file's name in the run directory.
    pub name: &'static str,
    /// Its bytes.
    pub bytes: Vec<u8>,
    rows: Option<Box<dyn HeldRows>>,
}

impl std::fmt::Debug for HeldFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeldFile")
            .field("name", &self.name)
            .field("bytes", &self.bytes.len())
            .field("rows", &self.rows.is_some())
            .finish()
    }
}

/// Typed rows under their header, as a table's columns.
trait HeldRows: Send + Sync {
    fn columns(&self) -> std::io::Result<Columns>;
}

/// The rows of a held table and its header.
struct RowsOf<R> {
    header: Vec<String>,
    rows: Vec<R>,
}

impl<R: CsvRow + Send + Sync> HeldRows for RowsOf<R> {
    fn columns(&self) -> std::io::Result<Columns> {
        fill(Columns::new(self.header.clone()), &self.rows)
    }
}

impl HeldFile {
    /// A file of bytes formatted elsewhere (no typed rows: no columns).
    pub fn bytes(name: &'static str, bytes: Vec<u8>) -> HeldFile {
        HeldFile {
            name,
            bytes,
            rows: None,
        }
    }

    /// The table `name` of `rows` under `header` (see [`columns`]), its
    /// bytes formatted now (a number the format refuses is an error here,
    /// as when a run writes it); `fail` words that error.
    pub fn table<R: CsvRow + Send + Sync + 'static>(
        name: &'static str,
        header: Vec<String>,
        rows: Vec<R>,
        fail: impl FnOnce(std::io::Error) -> Error,
    ) -> Result<HeldFile> {
        let bytes = csv_writer(header.clone())
            .and_then(|w| fill(w, &rows))
            .and_then(|w| w.into_inner())
            .map_err(fail)?;
        Ok(HeldFile {
            name,
            bytes,
            rows: Some(Box::new(RowsOf { header, rows })),
        })
    }

    /// The columns of this table, or `None` when it holds no typed rows.
    pub fn columns(&self) -> Option<Result<Columns>> {
        let rows = self.rows.as_ref()?;
        Some(rows.columns().map_err(|e| format_error(self.name, e)))
    }
}

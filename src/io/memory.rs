//! Runs held in memory (a binding's results: [`SimOutput`],
//! [`CollusionOutput`], a utility plan and its result) as the command line's
//! files: each file's bytes formatted from the typed rows on demand, the
//! same bytes [`simulate_to_dir`](super::simulate_to_dir),
//! [`collude_to_dir`](super::collude_to_dir) and
//! [`utility_to_dir`](super::utility_to_dir) write for the same
//! configuration, and [`save_files`] to write them into a new directory all
//! or nothing (with the figures and `timings.json`).

use super::driver::OutputOptions;
use super::run_dir::{claim_out_dir, json_bytes, write_with};
use super::simulate::{check_totals, ego_leave_out};
use super::{RunFigures, check_plots_available, draw_run_figures};
use crate::collusion::CollusionOutput;
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::sim::{EgoRow, JumpRow, KeptRow, OwnerRow, PathRow, ResponseRow, SimOutput};
use crate::util::table::{self, CsvRow, Records, columns};
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
    let config = out.config();
    let n = config.dim;
    match name {
        "jumps.csv" => rows_file::<JumpRow>(out, name, n, &[]),
        "owners.csv" => rows_file::<OwnerRow>(out, name, n, &[]),
        "paths.csv" => rows_file::<PathRow>(out, name, n, &[]),
        "ego.csv" => rows_file::<EgoRow>(out, name, n, ego_leave_out(&config.post)),
        "responses.csv" => rows_file::<ResponseRow>(out, name, n, &[]),
        "by_distance.csv" => {
            let mut w = Vec::new();
            super::write_by_distance(&mut w, out.by_distance())
                .map_err(|e| format_error(name, e))?;
            Ok(w)
        }
        _ => {
            let summary = crate::sim::summarize_output(out, graph);
            check_totals(&summary.mse)?;
            json_bytes(name, &summary)
        }
    }
}

/// The files of a `collude` run directory, in the order it writes them.
pub const COLLUSION_FILES: [&str; 3] = ["coalition.csv", "audit.csv", "summary.json"];

/// The bytes of file `name` (one of [`COLLUSION_FILES`]) of the run
/// directory of `out`.
pub fn collusion_file(out: &CollusionOutput, name: &str) -> Result<Vec<u8>> {
    match name {
        "coalition.csv" => {
            let mut w = Vec::new();
            super::collude::write_coalition_csv(&mut w, out.coalition_rows())
                .map_err(|e| format_error(name, e))?;
            Ok(w)
        }
        "audit.csv" => csv_file(name, 0, &[], out.audit_rows()),
        "summary.json" => json_bytes(name, out.summary()),
        _ => Err(unknown_name(name, &COLLUSION_FILES)),
    }
}

/// Every file of a `utility` run directory (`utility.csv`, `recipients.csv`
/// when `recipients`, `summary.json`), in the order it writes them.
pub fn utility_files(
    plan: &UtilityPlan<'_>,
    res: &UtilityResult,
    recipients: bool,
) -> Result<Vec<(&'static str, Vec<u8>)>> {
    let mut files = Vec::new();
    for file in super::utility::utility_tables(plan, res, recipients) {
        let name = file.name;
        files.push((name, file.into_bytes().map_err(|e| format_error(name, e))?));
    }
    files.push((
        "summary.json",
        json_bytes("summary.json", &UtilitySummary::of(plan, res))?,
    ));
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

/// A kept row list as its file (as [`super::csv::CsvSink`] writes it).
fn rows_file<R: KeptRow + CsvRow>(
    out: &SimOutput,
    name: &str,
    n: usize,
    leave_out: &[&str],
) -> Result<Vec<u8>> {
    csv_file(name, n, leave_out, out.rows::<R>()?)
}

/// A header of `R` (vectors of `n` columns, without `leave_out`) and the
/// rows, each formatted as the run's writers do.
fn csv_file<R: CsvRow>(name: &str, n: usize, leave_out: &[&str], rows: &[R]) -> Result<Vec<u8>> {
    let mut w = table::Writer::with_header(Vec::new(), columns::<R>(n, leave_out))
        .and_then(|h| h.into_inner())
        .map_err(|e| format_error(name, e))?;
    let mut records = Records::new();
    for r in rows {
        records.push_row(r).map_err(|e| format_error(name, e))?;
        if records.len() >= 1 << 16 {
            w.extend_from_slice(records.as_str().as_bytes());
            records.clear();
        }
    }
    w.extend_from_slice(records.as_str().as_bytes());
    Ok(w)
}

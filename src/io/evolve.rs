//! What `evolve` writes into its output directory: `timeline.csv`
//! (rewritten from the store after every batch), `summary.json` and the
//! figure `timeline.png/.svg` at the end.

use crate::error::{Error, Result};
use crate::evolve::EvolveOutput;
use crate::store::TimelineRow;
use crate::util::table::{Writer, columns};
use crate::util::{AtomicFile, Existing};
use std::io::Write;
use std::path::Path;

/// Claims `evolve`'s output directory for this run: the lock `OUT.lock`
/// beside it (removed when the claim is dropped; one left by a killed run is
/// taken over), so that a second run into the same OUT fails at once with
/// `OUT is in use by another run`. The directory itself is rewritten by
/// every batch and by a resumed run, so it is not required to be new.
pub fn claim_out(out: &Path) -> Result<crate::util::lock::FileLock> {
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        // The first batch would create it; the lock file lives in it.
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    }
    Ok(crate::util::lock::FileLock::acquire(out)?)
}

/// Prepares `evolve`'s output directory for a run on `store`, the one rule
/// of every face (command line and Python): refuses anything but a
/// directory, and a directory that already holds files unless `force` or
/// the store exists (a resumed run continues its own `timeline.csv`; a run
/// into an existing store without `resume` is refused by the store before
/// anything is written, in its own words; a new run replaced another run's
/// files without a word), then claims it ([`claim_out`]) for the whole run
/// and refuses a directory another command's live run has claimed.
pub fn prepare_out(out: &Path, force: bool, store: &Path) -> Result<crate::util::lock::FileLock> {
    if out.exists() && !out.is_dir() {
        let e = std::io::Error::other("not a directory (`out` is evolve's output directory)");
        return Err(Error::io(out, e));
    }
    let claim = claim_out(out)?;
    crate::util::atomic::refuse_another_runs(out)?;
    let holds_files = std::fs::read_dir(out)
        .map(|mut d| d.next().is_some())
        .unwrap_or(false);
    if holds_files && !force && store.symlink_metadata().is_err() {
        return Err(Error::output_exists(out, crate::util::Refusal::Exists));
    }
    Ok(claim)
}

/// The [`Evolve::on_batch`](crate::evolve::Evolve::on_batch) of the command
/// line: rewrites `DIR/timeline.csv` from the committed timeline.
pub fn timeline_writer(
    dir: std::path::PathBuf,
) -> impl FnMut(&[TimelineRow]) -> Result<()> + Send + 'static {
    move |rows| write_timeline(&dir, rows)
}

/// Writes `DIR/timeline.csv` (replacing it) from `rows` — the store's
/// committed timeline, so a resumed run rewrites the very same file.
pub fn write_timeline(dir: &Path, rows: &[TimelineRow]) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let path = dir.join("timeline.csv");
    let mut f = AtomicFile::create_with(&path, Existing::Replace)?;
    write_timeline_to(&mut f, rows).map_err(|e| Error::io(&path, e))?;
    Ok(f.commit()?)
}

/// The text of `timeline.csv` for `rows` (the Python package's tables).
pub fn timeline_csv(rows: &[TimelineRow]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    write_timeline_to(&mut out, rows).map_err(|e| Error::io("timeline.csv", e))?;
    Ok(out)
}

fn write_timeline_to(out: &mut dyn Write, rows: &[TimelineRow]) -> std::io::Result<()> {
    // `pairs_skipped` only once a batch skipped a pair (0 in the rows
    // before it): the timeline of a run that skips none keeps its bytes.
    let skipped = rows.iter().any(|r| r.pairs_skipped.is_some());
    let leave_out: &[&str] = if skipped { &[] } else { &["pairs_skipped"] };
    let mut w = Writer::with_header(out, columns::<TimelineRow>(0, leave_out))?;
    for r in rows {
        if skipped && r.pairs_skipped.is_none() {
            w.row(&TimelineRow {
                pairs_skipped: Some(0),
                ..r.clone()
            })?;
        } else {
            w.row(r)?;
        }
    }
    w.into_inner()?;
    Ok(())
}

/// Replaces `DIR/name` by `value` as pretty JSON, ended by a newline when
/// `newline` (evolve's `timings.json` has always been written without one).
fn replace_json(
    dir: &Path,
    name: &str,
    value: &impl serde::Serialize,
    newline: bool,
) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::Numerical(format!("{name}: {e}")))?;
    if newline {
        text.push('\n');
    }
    let path = dir.join(name);
    let mut f = AtomicFile::create_with(&path, Existing::Replace)?;
    f.write_all(text.as_bytes())
        .map_err(|e| Error::io(&path, e))?;
    Ok(f.commit()?)
}

/// Writes `DIR/summary.json` (configuration, counts, the last batch's three
/// policies, timings) and, with the `plots` feature and `plots` true, the
/// figure.
pub fn write_outputs(dir: &Path, out: &EvolveOutput, plots: bool) -> Result<()> {
    write_timeline(dir, &out.timeline)?;
    let last = out.timeline.last();
    let policy = |mse: Option<f64>, spent: Option<f64>| serde_json::json!({ "mse": mse, "eps_spent": spent });
    let mut summary = serde_json::json!({
        "version": env!("CARGO_PKG_VERSION"),
        "config": out.config,
        "batches": out.batches,
        "committed": out.timeline.len().saturating_sub(1),
        "answers": { "implied_batch0": out.implied, "explicit": out.explicit },
        "pairs": last.map(|r| r.pairs),
        "last_batch": {
            "correlated": last.map(|r| policy(r.mse, r.eps_spent)),
            "mse_theory": last.and_then(|r| r.mse_theory),
            "resample": last.map(|r| policy(r.resample_mse, r.resample_eps_spent)),
            "frozen": last.map(|r| policy(r.frozen_mse, r.frozen_eps_spent)),
        },
        "store_bytes": out.store_bytes,
    });
    // Pairs out of range (issue 33 item 5): recorded only when there are.
    if let Some(n) = last.and_then(|r| r.pairs_skipped)
        && let Some(m) = summary.as_object_mut()
    {
        m.insert("pairs_skipped".into(), n.into());
    }
    // A discrete store's record: γ, m, Δ_Z and the entropy (issue 25).
    if let Ok(crate::store::Family::Discrete { noise, rng, .. }) = out.config.family()
        && let Some(m) = summary.as_object_mut()
    {
        let record = crate::process::discrete::DiscreteSummary::of(&noise, rng);
        m.insert(
            "discrete".into(),
            serde_json::to_value(record)
                .map_err(|e| Error::Numerical(format!("summary.json: {e}")))?,
        );
    }
    replace_json(dir, "summary.json", &summary, true)?;
    replace_json(dir, "timings.json", &out.seconds, false)?;
    #[cfg(feature = "plots")]
    if plots {
        super::plot::timeline::draw(dir, &out.timeline)?;
    }
    #[cfg(not(feature = "plots"))]
    let _ = plots;
    Ok(())
}

//! The files of `privdiffuse path`: the CSV `sample,eps,v1..vn` of a
//! [`PathSamples`] run and, beside a file, its sidecar `FILE.json` (the range,
//! dimension, norm, samples, levels and seed: `plot --kind path` draws every
//! path up to `eps_hi` from it). The two are one output ([`AtomicPair`](crate::util::AtomicPair)):
//! claimed together and put in place together, so concurrent `--force` runs
//! never leave one run's CSV beside another's sidecar (issue 23.A2).
//!
//! Before anything is drawn the projected size of the CSV is checked against
//! the free space where it goes (issue 23.B3): a file's file system, or
//! standard output's when that is a regular file.

use super::stream::{CsvStream, OutFile};
use crate::error::{Error, Result};
use crate::paths::{PathSampleRow, PathSamples};
use crate::util::num::human_bytes;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Bytes of one number in the size estimate: fewer than a random double's
/// shortest form takes (17–20 characters, with its comma), so the estimate
/// stays below the real size and only a run that surely cannot fit is
/// refused.
const NUMBER_BYTES: f64 = 12.0;

/// Writes `run`'s rows as CSV to `out` (standard output when `None` or
/// `-`), with the sidecar beside a file. An existing file (or sidecar) is
/// refused unless `force`. Nothing appears unless the whole run succeeds.
pub fn write_paths(run: &PathSamples, out: Option<&Path>, force: bool) -> Result<()> {
    run.validate()?;
    let mut dest = OutFile::open(out, force, Some(sidecar_path))?;
    check_space(run, &mut dest)?;
    let name = dest.name();
    let dim = run.sampler().dim();
    let mut rows = CsvStream::<_, PathSampleRow>::new(&mut dest, name, "a sample path", dim)?;
    run.run_into(&mut rows)?;
    rows.into_inner()?;
    if let Some(f) = dest.sidecar() {
        let (lo, hi) = run.sampler().range();
        let mut meta = serde_json::json!({
            "tool": "privdiffuse path",
            "version": env!("CARGO_PKG_VERSION"),
            "eps_lo": lo,
            "eps_hi": hi,
            "dim": dim,
            "norm": run.sampler().norm().to_string(),
            "samples": run.sample_count(),
            "at": run.levels(),
            "seed": run.seed_value(),
        });
        let json = f.path().to_path_buf();
        // `noise` = discrete only (laplace sidecars stay byte-identical).
        if let Some(d) = run.discrete_summary() {
            meta["discrete"] = serde_json::to_value(d).map_err(|e| Error::io(&json, e.into()))?;
        }
        let text = serde_json::to_string_pretty(&meta).map_err(|e| Error::io(&json, e.into()))?;
        writeln!(f, "{text}").map_err(|e| Error::io(&json, e))?;
    }
    dest.finish()
}

/// The sidecar of a `privdiffuse path` CSV: `FILE.json` beside `FILE.csv`.
pub fn sidecar_path(csv: &Path) -> PathBuf {
    csv.with_extension("json")
}

/// A lower estimate of the CSV's size: expected rows times (the sample
/// index, the level and `n` values at `NUMBER_BYTES` each).
pub fn projected_bytes(run: &PathSamples) -> f64 {
    let fields = run.sampler().dim() as f64 + 1.0;
    let digits = (run.sample_count() as f64).log10().max(0.0) / 2.0 + 1.0;
    run.sample_count() as f64 * run.expected_rows_per_sample() * (fields * NUMBER_BYTES + digits)
}

/// Refuses `samples` when [`projected_bytes`] exceeds the free space where
/// the CSV goes.
fn check_space(run: &PathSamples, dest: &mut OutFile) -> Result<()> {
    let Some((place, free)) = dest.free_bytes() else {
        return Ok(());
    };
    let need = projected_bytes(run);
    if need <= free as f64 {
        return Ok(());
    }
    let fits = (free as f64 / (need / run.sample_count() as f64)).floor() as u64;
    Err(Error::param(
        "samples",
        run.sample_count(),
        format!(
            "at most about {fits} here: the output needs at least {}, and {} has {} free",
            human_bytes(need.min(u64::MAX as f64) as u64),
            place.display(),
            human_bytes(free)
        ),
    ))
}

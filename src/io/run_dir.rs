//! A run directory: claimed once, its files created in the staging
//! directory, flushed and synced, and named in errors where the user will
//! look for them (the final directory).

use crate::error::{Error, Result};
use crate::util::{AtomicDir, Existing};
use serde::Serialize;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// The path errors about output `name` give: the file in the final
/// directory (the staging directory is gone by the time a user reads it).
pub(crate) fn shown(dir: &AtomicDir, name: &str) -> std::path::PathBuf {
    dir.path().join(name)
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

/// Writes file `name` into the staging directory with `write`, flushed and
/// synced (a number the format does not allow: see [`write_error`]).
pub(crate) fn write_with(
    dir: &AtomicDir,
    name: &str,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let mut w = create(dir, name)?;
    write(&mut w).map_err(|e| write_error(dir, name, e))?;
    finish(dir, w, name)
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

/// `value` as file `name` holds it: pretty JSON ended by a newline, as
/// every run writes `summary.json` and `timings.json`.
pub(crate) fn json_bytes(name: &str, value: &impl Serialize) -> Result<Vec<u8>> {
    let mut v =
        serde_json::to_vec_pretty(value).map_err(|e| Error::Numerical(format!("{name}: {e}")))?;
    v.push(b'\n');
    Ok(v)
}

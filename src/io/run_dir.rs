//! A run directory: claimed once, its files created in the staging
//! directory, flushed and synced, and named in errors where the user will
//! look for them (the final directory).

use crate::error::{Error, Result};
use crate::util::lock::FileLock;
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

/// The claim every run into an output directory holds while it runs,
/// whatever the command: the lock `OUT.lock` beside `--out`. Staged runs
/// share it (each replaces OUT atomically, and of two into one new OUT the
/// `mkdir` claim lets one in); a live run (`evolve`, which writes into OUT
/// itself) holds it alone. So a live run and any other run into one OUT
/// exclude each other: the second fails at once with `OUT is in use by
/// another run`. Removed when dropped, and by an interrupt's clean-up.
pub(crate) struct OutClaim {
    // Withdrawn before the lock is released (fields drop in order): an
    // interrupt never removes a lock file another run has made since.
    _on_interrupt: crate::util::atomic::OnInterrupt,
    _lock: FileLock,
}

/// Claims `out` for a run ([`OutClaim`]); `live` for one that writes into
/// `out` itself, which also refuses an `out` another running process has
/// claimed by a staged `mkdir` (an older binary without the lock).
pub(crate) fn claim_out(out: &Path, live: bool) -> Result<OutClaim> {
    // One lock name however OUT is spelt: `d/` locks `d.lock`, not `d/.lock`.
    let named = match (out.parent(), out.file_name()) {
        (Some(p), Some(n)) => p.join(n),
        _ => out.to_path_buf(),
    };
    let lock = if live {
        FileLock::acquire(&named)?
    } else {
        FileLock::acquire_shared(&named)?
    };
    let claim = OutClaim {
        _on_interrupt: crate::util::atomic::remove_on_interrupt(lock.lock_file()),
        _lock: lock,
    };
    if live {
        crate::util::atomic::refuse_another_runs(out)?;
    }
    Ok(claim)
}

/// A staged run directory and its [`OutClaim`].
pub(crate) struct StagedDir {
    // Released before the directory is dropped (fields drop in order): the
    // lock file leaves the folders an uncommitted writer created empty.
    claim: OutClaim,
    dir: AtomicDir,
}

impl StagedDir {
    /// Puts the directory in place, then releases the claim.
    pub(crate) fn commit(self) -> Result<()> {
        let StagedDir { claim, dir } = self;
        let done = dir.commit();
        drop(claim);
        Ok(done?)
    }
}

impl std::ops::Deref for StagedDir {
    type Target = AtomicDir;
    fn deref(&self) -> &AtomicDir {
        &self.dir
    }
}

/// The output directory's writer, created and claimed ([`claim_out`]; a new
/// explicit directory also by `mkdir`) before any work, so that a second
/// run into the same new directory, or a live run into it, fails at once.
pub(crate) fn claim_out_dir(out: &Path, explicit: bool, force: bool) -> Result<StagedDir> {
    // The directory first: it creates (and on failure removes) the folders
    // the lock file goes into.
    let dir = AtomicDir::create_with(out, Existing::for_out(explicit, force))?;
    let claim = claim_out(out, false)?;
    Ok(StagedDir { claim, dir })
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

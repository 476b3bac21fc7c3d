//! One file of a run directory: created in the staging directory, flushed
//! and synced, and named in errors where the user will look for it.

use crate::error::{Error, Result};
use crate::util::AtomicDir;
use std::fs::File;
use std::io::BufWriter;

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

//! The state file of a gradual release: [`GradualRelease::to_json`] plus a
//! final newline, written atomically. [`GradualRelease::load`] reads it back.

use crate::error::{Error, Result};
use crate::process::GradualRelease;
use crate::util::Existing;
use std::io::Write;
use std::path::Path;

/// Saves `release`'s state to `path` atomically (the file appears only when
/// complete, replacing an older state).
pub fn save_release(release: &GradualRelease, path: &Path) -> Result<()> {
    save_release_with(release, path, Existing::Replace)
}

/// As [`save_release`], with the policy `existing` for a file that exists
/// ([`Existing::Refuse`] for a new state file, so that two runs creating
/// one do not silently overwrite each other).
pub fn save_release_with(release: &GradualRelease, path: &Path, existing: Existing) -> Result<()> {
    // A state holds the secret: private (issue 33 item 7).
    let mut f = crate::util::AtomicFile::create_private(path, existing)?;
    let text = release.to_json()?;
    f.write_all(text.as_bytes())
        .and_then(|_| f.write_all(b"\n"))
        .map_err(|e| Error::io(path, e))?;
    Ok(f.commit()?)
}

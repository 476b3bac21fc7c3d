//! No half-written outputs, and no output written over another's: files and
//! directories are written under a temporary name beside their destination and
//! renamed into place only when complete. If the writer is dropped without
//! `commit` (an error, a panic), the temporary is removed and the destination
//! is left as it was.
//!
//! Staging names are `.NAME.tmp-PID-XXXXXX`, created exclusively by `tempfile`
//! (a random suffix, `O_EXCL`): two writers to one destination never share a
//! temporary, and a name planted in advance (a symbolic link) is never opened.
//! The PID lets a later run remove the staging of a killed one.
//!
//! **Existing destinations** ([`Existing`]). With [`Existing::Refuse`] the
//! destination is *claimed* when the writer is created: a directory with
//! `mkdir`, a file with an exclusive create (`O_EXCL`), both atomic on local
//! and network file systems alike. Of two writers to one new destination
//! exactly one gets it; the other fails at once with "was created by another
//! run" ([`Refusal::AnotherRun`]), and one that existed before fails with
//! "already exists" ([`Refusal::Exists`]). The staging is renamed over the
//! (still empty) claim on commit; a writer dropped uncommitted removes its
//! claim again. With [`Existing::Replace`] an existing destination is
//! replaced: a file by `rename`, a directory by an atomic exchange
//! (`renameat2(RENAME_EXCHANGE)` on Linux; elsewhere moved aside first), so
//! concurrent replacing writers never fail spuriously (the last one wins).
//!
//! A destination that is a symbolic link is followed (the link stays, its
//! target is replaced, whatever the mode), and one that exists but is not a
//! regular file or a directory (`/dev/null`, a FIFO, a terminal) is written in
//! place: renaming over such a file would replace the device, not write to it.
//!
//! **Pairs.** A file and its sidecar are one output ([`AtomicPair`]): claimed
//! together, and renamed into place together under a folder lock, so that
//! concurrent replacing writers leave one writer's two files.
//!
//! **Interrupts.** Staging files and directories, claims and the folders a
//! writer created are registered until committed or dropped;
//! [`remove_staged`] (a Ctrl-C / SIGTERM handler, which then exits) removes
//! them, since destructors do not run on a signal.

use super::file_error::PathIoError as Error;

type Result<T> = std::result::Result<T, Error>;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use tempfile::{NamedTempFile, TempDir};

mod claim;
mod dir;
mod file;
mod pair;
mod path;
mod paths;
mod registry;

use claim::*;
pub use dir::*;
pub use file::*;
pub use pair::*;
pub use path::*;
pub use paths::*;
pub use registry::*;

/// What a writer does with a destination that exists already.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Existing {
    /// Refuse it; a new destination is claimed exclusively at once (see the
    /// module documentation), so that of two concurrent writers one fails.
    Refuse,
    /// Replace it (`force`, or an output whose default location is meant to
    /// be overwritten).
    #[default]
    Replace,
}

impl Existing {
    /// The policy of an output: [`Existing::Refuse`] for one named
    /// explicitly without `force`, else [`Existing::Replace`].
    pub fn for_out(explicit: bool, force: bool) -> Existing {
        if explicit && !force {
            Existing::Refuse
        } else {
            Existing::Replace
        }
    }
}

/// Why [`Existing::Refuse`] refused a destination. It travels as the inner
/// error of the [`std::io::Error`] (kind `AlreadyExists`) of a
/// [`PathIoError`](super::PathIoError); see [`refusal`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The destination existed before this writer started.
    Exists,
    /// Another writer claimed (or replaced) it while this one ran.
    AnotherRun,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Refusal::Exists => "already exists",
            Refusal::AnotherRun => "was created by another run",
        })
    }
}

impl std::error::Error for Refusal {}

fn refused(dest: &Path, why: Refusal) -> Error {
    Error::io(
        dest,
        std::io::Error::new(std::io::ErrorKind::AlreadyExists, why),
    )
}

/// Refuses `dest` when another running writer has claimed it (the empty
/// destination a live run made, its staging beside it: what a run into a
/// new `--out` leaves on disk while it runs). For writers that do not
/// claim through [`Existing::Refuse`] — `evolve`'s output directory,
/// rewritten batch after batch and continued by a resumed run — so that two
/// runs into one new `--out` never mix their files, whatever the commands.
pub fn refuse_another_runs(dest: &Path) -> Result<()> {
    match claimed_by(dest) {
        Claimant::Live => Err(refused(dest, Refusal::AnotherRun)),
        _ => Ok(()),
    }
}

/// The [`Refusal`] behind `e`, if it is one.
pub fn refusal(e: &Error) -> Option<Refusal> {
    e.error
        .get_ref()
        .and_then(|r| r.downcast_ref::<Refusal>())
        .copied()
}

// ---------------------------------------------------------------------------
// The registry of what an interrupt must remove.

static STAGED: Mutex<Registry> = Mutex::new(Registry {
    next: 0,
    entries: Vec::new(),
});

// ---------------------------------------------------------------------------
// Paths.

// ---------------------------------------------------------------------------
// Files.

// ---------------------------------------------------------------------------
// Directories.

#[cfg(test)]
mod tests;

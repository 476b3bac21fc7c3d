//! The tests' scratch folders: one rule, written once. [`scratch`] makes a
//! fresh, uniquely named folder in the temporary directory and removes it,
//! with everything in it, when the guard is dropped — at the end of the test,
//! or while a failing test unwinds. Keep the guard alive for as long as the
//! path is used: `let d = scratch("x");`, never
//! `let p = scratch("x").to_path_buf();` (the folder would be gone at once).
//!
//! The folder's name says which test made it: `privdiffuse-` + the test's
//! path (libtest names each test's thread after it, `::` written `.`) + the
//! caller's label + tempfile's random part. With `PRIVDIFFUSE_KEEP_SCRATCH=1`
//! in the environment the folder of a test that fails is kept and its path
//! printed on stderr (a passing test's folder is removed all the same).
//!
//! Mounted by `tests/tests.rs` and, with `#[path]`, by `tests/cluster/`.

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::Path;
use tempfile::TempDir;

/// The environment variable that keeps a failed test's folder.
const KEEP: &str = "PRIVDIFFUSE_KEEP_SCRATCH";

/// A scratch folder, removed when this is dropped; derefs to its `&Path`.
pub struct Scratch {
    dir: Option<TempDir>,
}

/// A fresh, empty folder in the temporary directory, labelled `label`.
pub fn scratch(label: &str) -> Scratch {
    scratch_in(&std::env::temp_dir(), label)
}

/// [`scratch`] on tmpfs (`/dev/shm`) when there is one, else in the
/// temporary directory: for tests that commit (fsync) thousands of times.
pub fn scratch_in_memory(label: &str) -> Scratch {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        scratch_in(shm, label)
    } else {
        scratch(label)
    }
}

fn scratch_in(base: &Path, label: &str) -> Scratch {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("test").replace("::", ".");
    let dir = tempfile::Builder::new()
        .prefix(&format!("privdiffuse-{test}-{label}-"))
        .tempdir_in(base)
        .unwrap_or_else(|e| panic!("cannot create a scratch folder in {}: {e}", base.display()));
    Scratch { dir: Some(dir) }
}

impl Scratch {
    /// The folder's path.
    pub fn path(&self) -> &Path {
        self.dir.as_ref().map_or(Path::new(""), TempDir::path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let Some(dir) = self.dir.take() else { return };
        if std::thread::panicking() && std::env::var_os(KEEP).is_some_and(|v| v == "1") {
            eprintln!("{KEEP}: kept {}", dir.keep().display());
        }
        // Otherwise the TempDir, dropped here, removes the whole tree.
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.path()
    }
}

impl AsRef<OsStr> for Scratch {
    fn as_ref(&self) -> &OsStr {
        self.path().as_os_str()
    }
}

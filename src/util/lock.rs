//! An advisory OS lock on a separate file `FILE.lock` beside the file it
//! guards: one writer at a time for files that are updated in place or
//! replaced by rename (the release store, a `relax --state` file).
//!
//! The lock sits on its own file because a lock on the guarded file itself is
//! lost when that file is replaced by a rename. The writer takes it when it
//! opens the guarded file and holds it until it is dropped (or the process
//! dies: the kernel releases `flock` locks with the last descriptor, so a
//! SIGKILL never leaves a stale lock behind). A second writer fails at once —
//! no waiting — with [`LockError::InUse`], whose message is
//! `FILE is in use by another run` with FILE as the caller wrote it.
//! Readers do not take the lock. The `.lock` file is left in place (removing
//! it would race with a writer that has just opened it).
//!
//! Linux: `flock(LOCK_EX | LOCK_NB)`. Elsewhere a fallback that compiles
//! everywhere: the lock file is created exclusively (`O_EXCL`) and removed on
//! drop — a killed process leaves it behind, and the message says so.

use std::fs::File;
use std::path::{Path, PathBuf};

/// Why a lock could not be taken.
#[derive(Debug)]
pub enum LockError {
    /// Another writer holds it: `{path} is in use by another run`.
    InUse {
        /// The guarded file, as the caller wrote it.
        path: PathBuf,
    },
    /// The lock file could not be opened or locked.
    Io(super::PathIoError),
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockError::InUse { path } => write!(f, "{} is in use by another run", path.display()),
            LockError::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for LockError {}

/// The lock file guarding `path`: `path` with `.lock` appended.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(".lock");
    PathBuf::from(s)
}

/// An exclusive lock on `FILE.lock`, held while this value lives.
#[derive(Debug)]
pub struct FileLock {
    /// Kept open: closing the last descriptor releases a `flock`.
    _file: File,
    lock: PathBuf,
}

impl FileLock {
    /// Takes the writer's lock of `path` (the guarded file; it need not
    /// exist yet), failing at once if another writer holds it.
    pub fn acquire(path: &Path) -> Result<FileLock, LockError> {
        let lock = lock_path(path);
        let file = open_locked(&lock, path)?;
        Ok(FileLock { _file: file, lock })
    }

    /// The lock file.
    pub fn lock_file(&self) -> &Path {
        &self.lock
    }
}

#[cfg(target_os = "linux")]
fn open_locked(lock: &Path, guarded: &Path) -> Result<File, LockError> {
    use std::os::fd::AsRawFd;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(lock)
        .map_err(|e| LockError::Io(super::PathIoError::io(lock, e)))?;
    // SAFETY: flock on a descriptor we own; no memory is shared.
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r == 0 {
        return Ok(file);
    }
    let e = std::io::Error::last_os_error();
    if e.kind() == std::io::ErrorKind::WouldBlock {
        Err(LockError::InUse {
            path: guarded.to_path_buf(),
        })
    } else {
        Err(LockError::Io(super::PathIoError::io(lock, e)))
    }
}

#[cfg(not(target_os = "linux"))]
fn open_locked(lock: &Path, guarded: &Path) -> Result<File, LockError> {
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(lock)
    {
        Ok(f) => Ok(f),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(LockError::InUse {
            path: guarded.to_path_buf(),
        }),
        Err(e) => Err(LockError::Io(super::PathIoError::io(lock, e))),
    }
}

#[cfg(not(target_os = "linux"))]
impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.lock);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_writer_fails_at_once_and_the_lock_is_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.db");
        let first = FileLock::acquire(&db).unwrap();
        assert_eq!(first.lock_file(), dir.path().join("x.db.lock"));
        let t = std::time::Instant::now();
        let e = FileLock::acquire(&db).unwrap_err();
        assert!(t.elapsed() < std::time::Duration::from_secs(1));
        assert_eq!(
            e.to_string(),
            format!("{} is in use by another run", db.display())
        );
        drop(first);
        let again = FileLock::acquire(&db).unwrap();
        drop(again);
    }

    #[test]
    fn the_message_names_the_file_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("rel.db");
        let _held = FileLock::acquire(&db).unwrap();
        let e = FileLock::acquire(&db).unwrap_err();
        assert!(matches!(&e, LockError::InUse { path } if path == &db));
    }
}

//! One writer at a time, leaving nothing behind (issue 33 item 11): an
//! advisory OS lock that a second writer finds taken at once.
//!
//! Two forms, one rule:
//! * [`FileLock::on_file`] locks the guarded file itself — for files that
//!   are updated in place and never replaced by a rename (the release store:
//!   SQLite's own locks are POSIX record locks, which `flock` does not touch
//!   on Linux). Nothing is created beside the file.
//! * [`FileLock::acquire`] locks a lock file `FILE.lock` beside the guarded
//!   file — for files replaced by a rename (a `relax --state` file, the
//!   outputs of `generate events`), where a lock on the file itself would be
//!   lost with the old inode. The lock file is removed when the lock is
//!   released. [`FileLock::acquire_shared`] takes the same lock file shared:
//!   shared holders exclude an exclusive one, not each other (the staged
//!   runs into one `--out`, which replace it atomically, against a live
//!   one); the last shared holder to release removes the file.
//!
//! Both are race-free against a writer that unlinks: after `flock` the
//! holder checks that the descriptor it locked is still the file at the
//! path (`fstat(fd)` equals `stat(path)`), and retries otherwise; a lock file
//! is unlinked while its lock is still held. So two writers never both
//! believe they hold the lock, and a lock file left by a killed process (the
//! kernel releases `flock` locks with the last descriptor: a SIGKILL never
//! leaves a lock *held*) is taken over and removed by the next writer.
//!
//! A second writer fails at once — after a grace of a quarter second (see
//! `GRACE`), no waiting for the holder — with [`LockError::InUse`],
//! whose message is `FILE is in use by another run` with FILE as the caller
//! wrote it. Readers do not take the lock.
//!
//! Linux: `flock(LOCK_EX | LOCK_NB)`. Elsewhere a fallback that compiles
//! everywhere: the lock file is created exclusively (`O_EXCL`) and removed on
//! drop — a killed process leaves it behind, and the message says so; a
//! lock on the file itself is then a lock file too.

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

/// An exclusive lock, held while this value lives.
#[derive(Debug)]
pub struct FileLock {
    /// Kept open: closing the last descriptor releases a `flock`.
    file: File,
    /// The file locked (the guarded file itself, or its lock file).
    lock: PathBuf,
    /// Whether `lock` is a lock file of ours, removed on release.
    remove: bool,
    /// Held shared ([`FileLock::acquire_shared`]).
    shared: bool,
}

/// How long a writer retries a lock held by another open file before it
/// reports the file in use. A lock outlives its holder's `close` while a
/// child process forked by any thread of the holder's process still has the
/// descriptor (between `fork` and `exec`, which closes it): without the
/// grace, a run that starts right after the previous one in the same
/// process (a resume, a test) could fail on a lock nobody holds.
#[cfg(target_os = "linux")]
const GRACE: std::time::Duration = std::time::Duration::from_millis(250);

/// How many times a writer re-opens a file another writer unlinked or
/// replaced between its `open` and its `flock` before giving up.
#[cfg(target_os = "linux")]
const RETRIES: usize = 64;

impl FileLock {
    /// Takes the writer's lock of `path` (the guarded file; it need not
    /// exist yet) on the lock file `FILE.lock`, failing at once if another
    /// writer holds it. The lock file is removed when the lock is dropped.
    pub fn acquire(path: &Path) -> Result<FileLock, LockError> {
        Self::lock_file_of(path, false)
    }

    /// As [`FileLock::acquire`], shared: other shared holders are let in,
    /// an exclusive one is refused (and refuses this one) at once. The last
    /// shared holder to release removes the lock file. Without `flock`
    /// (not Linux) it is exclusive.
    pub fn acquire_shared(path: &Path) -> Result<FileLock, LockError> {
        Self::lock_file_of(path, true)
    }

    fn lock_file_of(path: &Path, shared: bool) -> Result<FileLock, LockError> {
        let lock = lock_path(path);
        let file = open_locked(&lock, path, None, shared)?;
        Ok(FileLock {
            file,
            lock,
            remove: true,
            shared,
        })
    }

    /// Takes the writer's lock on `path` itself, creating the file (empty,
    /// with permissions `mode` less the umask) when `create` and it does not
    /// exist; fails at once if another writer holds it. Nothing is created
    /// beside `path`, nothing removed on drop.
    pub fn on_file(path: &Path, create: Option<u32>) -> Result<FileLock, LockError> {
        let file = open_locked(path, path, Some(create), false)?;
        #[cfg(not(target_os = "linux"))]
        {
            // Without flock: the exclusive lock file stands for the lock.
            let lock = lock_path(path);
            open_locked(&lock, path, None, false)?;
            return Ok(FileLock {
                file,
                lock,
                remove: true,
                shared: false,
            });
        }
        #[cfg(target_os = "linux")]
        Ok(FileLock {
            file,
            lock: path.to_path_buf(),
            remove: false,
            shared: false,
        })
    }

    /// The file locked: `FILE.lock`, or the guarded file itself.
    pub fn lock_file(&self) -> &Path {
        &self.lock
    }

    /// The locked file, open for reading and writing.
    pub fn file(&self) -> &File {
        &self.file
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Unlinked while still held: a writer that opened this lock file
        // before the unlink finds, once it gets the lock, that the path no
        // longer names it, and starts again (see `open_locked`). A shared
        // holder unlinks only once it holds the lock alone (the conversion
        // fails while another holder is in; the last one to try succeeds).
        if self.remove && (!self.shared || alone(&self.file)) {
            let _ = std::fs::remove_file(&self.lock);
        }
    }
}

/// Whether the holder of a shared lock on `file` can make it exclusive
/// (nobody else holds it); it then holds it exclusively.
#[cfg(target_os = "linux")]
fn alone(file: &File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor we own; no memory is shared.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

#[cfg(not(target_os = "linux"))]
fn alone(_file: &File) -> bool {
    true
}

/// Opens `lock` (a lock file, created; or with `own` the guarded file
/// itself, created only when `own` holds `Some(mode)`) and locks it
/// (`shared` or exclusively), retrying while the path stops naming the
/// file locked.
#[cfg(target_os = "linux")]
fn open_locked(
    lock: &Path,
    guarded: &Path,
    own: Option<Option<u32>>,
    shared: bool,
) -> Result<File, LockError> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let io = |e: std::io::Error| LockError::Io(super::PathIoError::io(lock, e));
    for _ in 0..RETRIES {
        let mut o = std::fs::OpenOptions::new();
        o.read(true).write(true);
        match own {
            None => {
                o.create(true).truncate(false).mode(0o600);
            }
            Some(Some(mode)) => {
                o.create(true).truncate(false).mode(mode);
            }
            Some(None) => {}
        }
        let file = o.open(lock).map_err(io)?;
        let t0 = std::time::Instant::now();
        loop {
            // SAFETY: flock on a descriptor we own; no memory is shared.
            let op = if shared { libc::LOCK_SH } else { libc::LOCK_EX };
            let r = unsafe { libc::flock(file.as_raw_fd(), op | libc::LOCK_NB) };
            if r == 0 {
                break;
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::WouldBlock {
                return Err(io(e));
            }
            if t0.elapsed() >= GRACE {
                return Err(LockError::InUse {
                    path: guarded.to_path_buf(),
                });
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let held = file.metadata().map_err(io)?;
        match std::fs::metadata(lock) {
            Ok(now) if (now.dev(), now.ino()) == (held.dev(), held.ino()) => return Ok(file),
            // Unlinked (or replaced) by the writer we waited for: again.
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io(e)),
        }
    }
    Err(io(std::io::Error::other(
        "the file kept being replaced while this run tried to lock it",
    )))
}

#[cfg(not(target_os = "linux"))]
fn open_locked(
    lock: &Path,
    guarded: &Path,
    own: Option<Option<u32>>,
    _shared: bool,
) -> Result<File, LockError> {
    let io = |e: std::io::Error| LockError::Io(super::PathIoError::io(lock, e));
    if let Some(create) = own {
        // The guarded file itself, opened (created if asked); its lock is
        // the lock file `FileLock::on_file` takes next.
        let mut o = std::fs::OpenOptions::new();
        o.read(true).write(true);
        if create.is_some() {
            o.create(true).truncate(false);
        }
        return o.open(lock).map_err(io);
    }
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(lock)
    {
        Ok(f) => Ok(f),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(LockError::InUse {
            path: guarded.to_path_buf(),
        }),
        Err(e) => Err(io(e)),
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

    /// Shared holders let each other in and exclude an exclusive one (both
    /// ways); the last one out removes the lock file.
    #[cfg(target_os = "linux")]
    #[test]
    fn shared_holders_exclude_only_an_exclusive_one() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("o");
        let a = FileLock::acquire_shared(&out).unwrap();
        let b = FileLock::acquire_shared(&out).unwrap();
        let e = FileLock::acquire(&out).unwrap_err();
        assert!(matches!(&e, LockError::InUse { path } if path == &out));
        drop(a);
        assert!(lock_path(&out).exists(), "b still holds it");
        assert!(FileLock::acquire(&out).is_err());
        drop(b);
        assert!(!lock_path(&out).exists(), "the last one out removes it");
        let x = FileLock::acquire(&out).unwrap();
        let e = FileLock::acquire_shared(&out).unwrap_err();
        assert!(matches!(&e, LockError::InUse { path } if path == &out));
        drop(x);
        assert!(!lock_path(&out).exists());
    }

    /// A lock released a moment after the next writer asks (as when a
    /// child process forked by another thread still holds the descriptor
    /// until its `exec`) is taken, not reported in use.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_lock_released_within_the_grace_is_taken() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("g.db");
        let held = FileLock::on_file(&db, Some(0o600)).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let t = std::thread::spawn(move || {
            rx.recv().unwrap();
            std::thread::sleep(std::time::Duration::from_millis(10));
            drop(held);
        });
        tx.send(()).unwrap();
        let again = FileLock::on_file(&db, None).unwrap();
        t.join().unwrap();
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

    #[test]
    fn a_lock_file_is_gone_once_released_and_a_stale_one_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("o.edges");
        let held = FileLock::acquire(&out).unwrap();
        assert!(dir.path().join("o.edges.lock").exists());
        drop(held);
        assert!(!dir.path().join("o.edges.lock").exists());
        // A lock file left by a killed writer holds no lock.
        std::fs::write(dir.path().join("o.edges.lock"), b"").unwrap();
        let held = FileLock::acquire(&out).unwrap();
        drop(held);
        assert!(!dir.path().join("o.edges.lock").exists());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_lock_on_the_file_itself_leaves_nothing_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("s.db");
        let held = FileLock::on_file(&db, Some(0o600)).unwrap();
        assert_eq!(held.lock_file(), db);
        let e = FileLock::on_file(&db, None).unwrap_err();
        assert!(matches!(&e, LockError::InUse { path } if path == &db));
        drop(held);
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "only the file itself");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&db).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode & 0o077, 0, "created private: {mode:o}");
        // Not created when asked not to.
        let missing = dir.path().join("missing.db");
        assert!(matches!(
            FileLock::on_file(&missing, None),
            Err(LockError::Io(_))
        ));
    }

    /// The race the unlink must not open: a writer that opened the lock
    /// file just before its holder released (and removed) it must not
    /// believe it holds a lock on the removed file.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_writer_that_opened_a_removed_lock_file_starts_again() {
        use std::os::fd::AsRawFd;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("st.json");
        let first = FileLock::acquire(&out).unwrap();
        // The second writer's open, before the first one's release.
        let early = std::fs::File::open(lock_path(&out)).unwrap();
        drop(first);
        // It gets the flock on the unlinked inode …
        let r = unsafe { libc::flock(early.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        assert_eq!(r, 0);
        // … while a third writer creates and locks the path anew: both
        // cannot hold "the" lock, and the path names the third one's.
        let third = FileLock::acquire(&out).unwrap();
        let at_path = std::fs::metadata(lock_path(&out)).unwrap();
        use std::os::unix::fs::MetadataExt;
        assert_ne!(at_path.ino(), early.metadata().unwrap().ino());
        drop(third);
    }
}

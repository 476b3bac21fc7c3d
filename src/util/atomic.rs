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

/// The [`Refusal`] behind `e`, if it is one.
pub fn refusal(e: &Error) -> Option<Refusal> {
    e.error
        .get_ref()
        .and_then(|r| r.downcast_ref::<Refusal>())
        .copied()
}

// ---------------------------------------------------------------------------
// The registry of what an interrupt must remove.

/// An identity of a file (device and inode), to remove a claim only while it
/// is still the one this process created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileId(u64, u64);

impl FileId {
    #[cfg(unix)]
    fn of(p: &Path) -> Option<FileId> {
        use std::os::unix::fs::MetadataExt;
        fs::symlink_metadata(p)
            .ok()
            .map(|m| FileId(m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    fn of(_p: &Path) -> Option<FileId> {
        None
    }
}

#[derive(Debug)]
enum Entry {
    /// A staging file or directory: removed whole.
    Temp(PathBuf),
    /// A claimed destination, created empty: removed while it is still the
    /// one created and empty.
    Claim(PathBuf, Option<FileId>),
    /// A folder created to hold an output: removed when empty.
    Folder(PathBuf),
}

struct Registry {
    next: u64,
    entries: Vec<(u64, Entry)>,
}

static STAGED: Mutex<Registry> = Mutex::new(Registry {
    next: 0,
    entries: Vec::new(),
});

fn registry() -> MutexGuard<'static, Registry> {
    STAGED.lock().unwrap_or_else(|e| e.into_inner())
}

impl Registry {
    fn add(&mut self, e: Entry) -> u64 {
        self.next += 1;
        self.entries.push((self.next, e));
        self.next
    }
    fn remove(&mut self, ids: &[u64]) {
        self.entries.retain(|(i, _)| !ids.contains(i));
    }
}

fn register(e: Entry) -> u64 {
    registry().add(e)
}

/// Removes every staging file and directory, claim and created folder of
/// this process that was neither committed nor dropped, newest first. Meant
/// for a Ctrl-C / SIGTERM handler, which then exits: destructors do not run
/// on a signal, so without it an interrupted run would leave `.NAME.tmp-PID`
/// and its claimed destination behind.
///
/// The registry stays locked afterwards, so that no writer of another thread
/// commits, or stages anew, between this call and the exit (such a writer
/// blocks): call it only right before exiting.
pub fn remove_staged() {
    let mut reg = registry();
    for (_, e) in reg.entries.drain(..).rev() {
        remove_entry(&e);
    }
    // Keep the lock until the process exits (see above).
    std::mem::forget(reg);
}

fn remove_entry(e: &Entry) {
    match e {
        Entry::Temp(p) => {
            // Another thread may still be creating files in a staging
            // directory: try again until it is gone.
            for _ in 0..10 {
                let r = match fs::symlink_metadata(p) {
                    Ok(m) if m.is_dir() => fs::remove_dir_all(p),
                    Ok(_) => fs::remove_file(p),
                    Err(_) => break,
                };
                if r.is_ok() {
                    break;
                }
            }
        }
        Entry::Claim(p, id) => release_claim(p, *id),
        Entry::Folder(p) => {
            let _ = fs::remove_dir(p);
        }
    }
}

/// Removes a claimed destination if it is still the one created (same
/// device and inode; without them, when it is still empty).
fn release_claim(p: &Path, id: Option<FileId>) {
    let Ok(m) = fs::symlink_metadata(p) else {
        return;
    };
    let ours = match id {
        Some(id) => FileId::of(p) == Some(id),
        None => true,
    };
    if !ours {
        return;
    }
    let _ = if m.is_dir() {
        fs::remove_dir(p) // only when empty
    } else if m.len() == 0 {
        fs::remove_file(p)
    } else {
        Ok(())
    };
}

/// What one writer registered: its staging, its claim, the folders it
/// created. Released (removed) when the writer is dropped uncommitted.
#[derive(Default)]
struct Reservation {
    ids: Vec<u64>,
    claim: Option<(PathBuf, Option<FileId>)>,
    /// Folders created, deepest first.
    folders: Vec<PathBuf>,
}

impl Reservation {
    /// Creates the missing folders of `dir` (registering them for removal
    /// if the run fails or is interrupted).
    fn create_folders(&mut self, dir: &Path) -> Result<()> {
        let mut missing = Vec::new();
        let mut a = Some(dir);
        while let Some(d) = a.filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
            missing.push(d.to_path_buf());
            a = d.parent();
        }
        // Outermost first, each registered as soon as it exists, so that the
        // registry (walked newest first) removes the deepest first.
        for d in missing.iter().rev() {
            match fs::create_dir(d) {
                Ok(()) => {
                    self.ids.push(register(Entry::Folder(d.clone())));
                    self.folders.insert(0, d.clone());
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && d.is_dir() => {}
                Err(e) => return Err(Error::io(dir, e)),
            }
        }
        Ok(())
    }

    /// Claims `target` (a new directory or an empty file) exclusively.
    fn claim(&mut self, target: &Path, shown: &Path, dir: bool) -> Result<()> {
        for attempt in 0..2 {
            let made = if dir {
                fs::create_dir(target)
            } else {
                fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(target)
                    .map(drop)
            };
            match made {
                Ok(()) => {
                    let id = FileId::of(target);
                    self.ids
                        .push(register(Entry::Claim(target.to_path_buf(), id)));
                    self.claim = Some((target.to_path_buf(), id));
                    return Ok(());
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    match claimed_by(target) {
                        Claimant::Live => return Err(refused(shown, Refusal::AnotherRun)),
                        // The empty claim of a killed run: take it over (if
                        // two runs do so at once, one of them wins above).
                        Claimant::Dead if attempt == 0 => release_claim(target, None),
                        _ => return Err(refused(shown, Refusal::Exists)),
                    }
                }
                Err(e) => return Err(Error::io(shown, without_staging_path(e))),
            }
        }
        Err(refused(shown, Refusal::Exists))
    }

    /// Whether `target` is still this writer's claim.
    fn holds(&self, target: &Path) -> bool {
        match &self.claim {
            Some((p, Some(id))) => p == target && FileId::of(target) == Some(*id),
            Some((p, None)) => p == target,
            None => false,
        }
    }

    /// Forgets everything (committed), with the registry already locked.
    fn keep(&mut self, reg: &mut Registry) {
        reg.remove(&self.ids);
        self.ids.clear();
        self.claim = None;
        self.folders.clear();
    }

    /// Removes the claim and the folders (the staging is removed by its
    /// `tempfile` owner, dropped before this).
    fn release(&mut self) {
        if let Some((p, id)) = self.claim.take() {
            release_claim(&p, id);
        }
        for d in self.folders.drain(..) {
            let _ = fs::remove_dir(d);
        }
        if !self.ids.is_empty() {
            registry().remove(&self.ids);
            self.ids.clear();
        }
    }
}

impl Drop for Reservation {
    /// An early return between registering and handing over releases too.
    fn drop(&mut self) {
        self.release();
    }
}

/// Who holds an existing, empty destination.
enum Claimant {
    /// A running process (a staging sibling of a live PID other than ours).
    Live,
    /// Only killed runs (staging siblings of dead PIDs, as a SIGKILL leaves).
    Dead,
    /// Nobody: the destination is not empty, or was made by hand.
    None,
}

fn is_empty(p: &Path) -> bool {
    match fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => fs::read_dir(p).is_ok_and(|mut d| d.next().is_none()),
        Ok(m) if m.is_file() => m.len() == 0,
        _ => false,
    }
}

fn claimed_by(target: &Path) -> Claimant {
    if !is_empty(target) {
        return Claimant::None;
    }
    let (mut live, mut dead) = (false, false);
    let me = std::process::id().to_string();
    for pid in staging_pids(target) {
        if pid == me {
            continue;
        }
        if !Path::new("/proc/self").exists() || Path::new("/proc").join(&pid).exists() {
            live = true;
        } else {
            dead = true;
        }
    }
    if live {
        Claimant::Live
    } else if dead {
        Claimant::Dead
    } else {
        Claimant::None
    }
}

/// The PIDs in the names of `dest`'s staging siblings (`.NAME.tmp-PID-…`).
fn staging_pids(dest: &Path) -> Vec<String> {
    let Some(name) = dest.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Vec::new();
    };
    let prefix = format!(".{name}.tmp-");
    let Ok(entries) = fs::read_dir(parent_dir(dest)) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let file_name = e.file_name().to_string_lossy().into_owned();
            let rest = file_name.strip_prefix(&prefix)?;
            // `PID-XXXXXX`, or `PID` alone as earlier versions named it.
            let pid = rest.split_once('-').map_or(rest, |(pid, _)| pid);
            pid.parse::<u32>().is_ok().then(|| pid.to_string())
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Paths.

/// `path` with every symbolic link along its last component followed (at most
/// 40, as the kernel does); a dangling link resolves to where it points.
pub fn follow_links(path: &Path) -> PathBuf {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => match fs::read_link(&p) {
                Ok(t) if t.is_absolute() => p = t,
                Ok(t) => {
                    p = match p.parent() {
                        Some(d) => d.join(t),
                        None => t,
                    }
                }
                Err(_) => break,
            },
            _ => break,
        }
    }
    p
}

fn is_symlink(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Whether `path` exists and is neither a regular file nor a directory
/// (a device, FIFO or socket), so it must be written in place.
pub fn is_special(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Whether writing `dest` under `existing` would be refused because it
/// exists: a check a caller makes before long work, to fail early (the
/// writer's claim is what makes it exclusive). Links and special files are
/// never refused.
pub fn check_new(dest: &Path, existing: Existing) -> Result<()> {
    if existing == Existing::Refuse
        && !is_symlink(dest)
        && fs::symlink_metadata(dest).is_ok()
        && !is_special(dest)
    {
        let why = match claimed_by(dest) {
            Claimant::Live => Refusal::AnotherRun,
            // A killed run's empty claim: the writer's claim takes it over.
            Claimant::Dead => return Ok(()),
            Claimant::None => Refusal::Exists,
        };
        return Err(refused(dest, why));
    }
    Ok(())
}

/// The directory that holds `dest` (`.` for a bare file name).
fn parent_dir(dest: &Path) -> &Path {
    match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The `tempfile` prefix of the staging names of `dest`: `.NAME.tmp-PID-`
/// (followed by six random characters).
fn staging_name(dest: &Path) -> String {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    format!(".{name}.tmp-{}-", std::process::id())
}

/// `tempfile` reports a failure as "ERROR at path \"TEMPORARY\"". The
/// caller names the destination, so keep the operating system's message
/// alone (and its kind): the random staging name means nothing to a user.
fn without_staging_path(e: std::io::Error) -> std::io::Error {
    let text = e.to_string();
    match text.split_once(" at path ") {
        Some((msg, _)) if e.get_ref().is_some() => std::io::Error::new(e.kind(), msg.to_string()),
        _ => e,
    }
}

/// Removes staging files and directories of `dest` left by runs that were killed
/// (Ctrl-C, SIGKILL: no destructor ran). Only entries named like ours whose
/// process no longer exists are touched; without `/proc` nothing is removed.
fn remove_stale_siblings(dest: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Some(name) = dest.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return;
    };
    let prefix = format!(".{name}.tmp-");
    let Ok(entries) = fs::read_dir(parent_dir(dest)) else {
        return;
    };
    for e in entries.flatten() {
        let file_name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = file_name.strip_prefix(&prefix) else {
            continue;
        };
        let pid = rest.split_once('-').map_or(rest, |(pid, _)| pid);
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let p = e.path();
            let _ = if p.is_dir() {
                fs::remove_dir_all(p)
            } else {
                fs::remove_file(p)
            };
        }
    }
}

/// Where a writer with policy `existing` puts `dest`: the link-followed
/// target, and the policy that applies (a link is always written through).
fn resolve(dest: &Path, existing: Existing) -> (PathBuf, Existing) {
    if is_symlink(dest) {
        (follow_links(dest), Existing::Replace)
    } else {
        (dest.to_path_buf(), existing)
    }
}

// ---------------------------------------------------------------------------
// Files.

/// A buffered file that appears at its destination only on [`AtomicFile::commit`].
pub struct AtomicFile {
    /// The path as the user gave it (for messages).
    dest: PathBuf,
    /// The file renamed into place on commit (`dest` with links followed).
    target: PathBuf,
    writer: Option<BufWriter<Sink>>,
    held: Reservation,
}

/// Where an [`AtomicFile`]'s bytes go.
enum Sink {
    /// A temporary sibling of the target, removed when dropped.
    Staged(NamedTempFile),
    /// A special file (device, FIFO), written in place.
    InPlace(fs::File),
}

impl Sink {
    fn file(&mut self) -> &mut fs::File {
        match self {
            Sink::Staged(t) => t.as_file_mut(),
            Sink::InPlace(f) => f,
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file().write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.file().write_all(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file().flush()
    }
}

/// A staging file beside `target` named for it, registered for interrupts.
fn staging_file(
    target: &Path,
    dest: &Path,
    suffix: &str,
    folder: &Path,
    held: &mut Reservation,
) -> Result<NamedTempFile> {
    let prefix = staging_name(target);
    let mut b = tempfile::Builder::new();
    b.prefix(&prefix).suffix(suffix);
    // What `File::create` would give (0666 less the umask), not
    // tempfile's private 0600: the file is the output, not a secret.
    #[cfg(unix)]
    b.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let t = b
        .tempfile_in(folder)
        .map_err(|e| Error::io(dest, without_staging_path(e)))?;
    held.ids.push(register(Entry::Temp(t.path().to_path_buf())));
    Ok(t)
}

impl AtomicFile {
    /// Creates the temporary file beside `dest` (the parent directory must
    /// exist), replacing `dest` on commit. Symbolic links are followed; a
    /// special file such as `/dev/null` is opened and written in place.
    pub fn create(dest: impl AsRef<Path>) -> Result<Self> {
        Self::open(dest.as_ref(), Existing::Replace, false)
    }

    /// As [`AtomicFile::create`], with the policy `existing` for a
    /// destination that exists (claiming a new one with
    /// [`Existing::Refuse`]), and creating missing parent folders (removed
    /// again if the writer is dropped uncommitted).
    pub fn create_with(dest: impl AsRef<Path>, existing: Existing) -> Result<Self> {
        Self::open(dest.as_ref(), existing, true)
    }

    fn open(dest: &Path, existing: Existing, folders: bool) -> Result<Self> {
        let (target, existing) = resolve(dest, existing);
        if target.is_dir() {
            return Err(Error::io(
                dest,
                std::io::Error::other("is a directory: expected a file name"),
            ));
        }
        let mut held = Reservation::default();
        let sink = if is_special(&target) {
            let f = fs::OpenOptions::new()
                .write(true)
                .open(&target)
                .map_err(|e| Error::io(dest, e))?;
            Sink::InPlace(f)
        } else {
            check_new(&target, existing).map_err(|e| Error::io(dest, e.error))?;
            if folders {
                held.create_folders(parent_dir(&target))?;
            }
            // Staged first, then claimed: whoever sees the claim also sees
            // the staging that tells it another run is under way.
            let t = staging_file(&target, dest, "", parent_dir(&target), &mut held);
            let t = match t {
                Ok(t) => t,
                Err(e) => {
                    held.release();
                    return Err(e);
                }
            };
            if existing == Existing::Refuse
                && let Err(e) = held.claim(&target, dest, false)
            {
                drop(t);
                held.release();
                return Err(e);
            }
            remove_stale_siblings(&target);
            Sink::Staged(t)
        };
        Ok(AtomicFile {
            dest: dest.to_path_buf(),
            target,
            writer: Some(BufWriter::with_capacity(1 << 16, sink)),
            held,
        })
    }

    /// The final destination.
    pub fn path(&self) -> &Path {
        &self.dest
    }

    /// Flushes, syncs and renames the file into place (flushes only, when
    /// writing in place to a special file).
    pub fn commit(mut self) -> Result<()> {
        let w = self.writer.take().expect("writer present until commit");
        let sink = match w.into_inner() {
            Ok(sink) => sink,
            Err(e) => {
                let (e, w) = e.into_parts();
                drop(w); // removes the temporary
                self.held.release();
                return Err(Error::io(&self.dest, e));
            }
        };
        let Sink::Staged(tmp) = sink else {
            return Ok(());
        };
        if let Err(e) = tmp.as_file().sync_all() {
            drop(tmp);
            self.held.release();
            return Err(Error::io(&self.dest, e));
        }
        let mut reg = registry();
        if self.held.claim.is_some() && !self.held.holds(&self.target) {
            drop(reg);
            drop(tmp);
            self.held.release();
            return Err(refused(&self.dest, Refusal::AnotherRun));
        }
        match tmp.persist(&self.target) {
            Ok(_) => {
                self.held.keep(&mut reg);
                Ok(())
            }
            Err(e) => {
                drop(reg);
                drop(e.file); // removes the temporary
                self.held.release();
                Err(Error::io(&self.dest, e.error))
            }
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer.as_mut().expect("not committed").write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.writer.as_mut().expect("not committed").write_all(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.as_mut().expect("not committed").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(w) = self.writer.take() {
            drop(w); // removes the temporary
            self.held.release();
        }
    }
}

/// A staged file for writers that take a path rather than a [`Write`] (an
/// image encoder that picks its format from the extension): write the file
/// at [`AtomicPath::staging`], then [`AtomicPath::commit`] moves it into
/// place. Dropped uncommitted, the staging file is removed. For a special
/// destination (`/dev/null`) the staging file is in the system's temporary
/// folder and its bytes are copied into the destination on commit.
pub struct AtomicPath {
    dest: PathBuf,
    target: PathBuf,
    special: bool,
    /// Removes the staging file when dropped; `None` once committed.
    staged: Option<tempfile::TempPath>,
    held: Reservation,
}

impl AtomicPath {
    /// Creates an empty staging file for `dest` ending in `suffix` (e.g.
    /// `".png"`), exclusively, beside the destination (links followed),
    /// replacing `dest` on commit.
    pub fn create(dest: impl AsRef<Path>, suffix: &str) -> Result<Self> {
        Self::create_with(dest, suffix, Existing::Replace)
    }

    /// As [`AtomicPath::create`], with the policy `existing` for a
    /// destination that exists (see [`AtomicFile::create_with`]; the parent
    /// folder must exist).
    pub fn create_with(dest: impl AsRef<Path>, suffix: &str, existing: Existing) -> Result<Self> {
        let dest = dest.as_ref().to_path_buf();
        let (target, existing) = resolve(&dest, existing);
        if target.is_dir() {
            return Err(Error::io(
                &dest,
                std::io::Error::other("is a directory: expected a file name"),
            ));
        }
        let special = is_special(&target);
        let mut held = Reservation::default();
        let folder = if special {
            // Never stage beside a device (e.g. in /dev).
            std::env::temp_dir()
        } else {
            check_new(&target, existing).map_err(|e| Error::io(&dest, e.error))?;
            parent_dir(&target).to_path_buf()
        };
        let t = staging_file(&target, &dest, suffix, &folder, &mut held)?;
        if !special {
            if existing == Existing::Refuse
                && let Err(e) = held.claim(&target, &dest, false)
            {
                drop(t);
                held.release();
                return Err(e);
            }
            remove_stale_siblings(&target);
        }
        Ok(AtomicPath {
            dest,
            target,
            special,
            staged: Some(t.into_temp_path()),
            held,
        })
    }

    /// The file to write.
    pub fn staging(&self) -> &Path {
        self.staged.as_deref().expect("staged until commit")
    }

    /// Renames the staging file into place (copies its bytes into a special
    /// destination).
    pub fn commit(mut self) -> Result<()> {
        let t = self.staged.take().expect("staged until commit");
        let mut reg = registry();
        let done = if self.special {
            // Dropping `t` removes the staging file.
            fs::copy(&t, &self.target).map(drop)
        } else if self.held.claim.is_some() && !self.held.holds(&self.target) {
            drop(reg);
            drop(t);
            self.held.release();
            return Err(refused(&self.dest, Refusal::AnotherRun));
        } else {
            // A failed rename drops (so removes) the staging file.
            t.persist(&self.target).map_err(|e| e.error)
        };
        match done {
            Ok(()) => {
                self.held.keep(&mut reg);
                Ok(())
            }
            Err(e) => {
                drop(reg);
                self.held.release();
                Err(Error::io(&self.dest, e))
            }
        }
    }
}

impl Drop for AtomicPath {
    fn drop(&mut self) {
        if let Some(t) = self.staged.take() {
            drop(t); // removes the staging file
            self.held.release();
        }
    }
}

// ---------------------------------------------------------------------------
// Directories.

/// A directory whose contents appear at the destination only on
/// [`AtomicDir::commit`].
pub struct AtomicDir {
    dest: PathBuf,
    /// The staging directory's path (also registered for [`remove_staged`]).
    tmp: PathBuf,
    /// Removes the staging directory when dropped; `None` once committed.
    staged: Option<TempDir>,
    held: Reservation,
}

impl AtomicDir {
    /// Creates an empty temporary directory beside `dest` (creating `dest`'s
    /// parent directories if needed); on commit it replaces whatever is at
    /// `dest`.
    pub fn create(dest: impl AsRef<Path>) -> Result<Self> {
        Self::create_with(dest, Existing::Replace)
    }

    /// As [`AtomicDir::create`], with the policy `existing` for a destination
    /// that exists: with [`Existing::Refuse`] a new `dest` is claimed at once
    /// (`mkdir`), and an existing one (even empty) is refused.
    pub fn create_with(dest: impl AsRef<Path>, existing: Existing) -> Result<Self> {
        // A link to a directory stays a link; its target is replaced.
        let (dest, existing) = resolve(dest.as_ref(), existing);
        if dest.exists() && !dest.is_dir() {
            return Err(Error::io(
                &dest,
                std::io::Error::other("exists and is not a directory: expected a directory name"),
            ));
        }
        check_new(&dest, existing)?;
        let mut held = Reservation::default();
        if let Some(p) = dest.parent().filter(|p| !p.as_os_str().is_empty()) {
            held.create_folders(p)?;
        }
        let staged = tempfile::Builder::new()
            .prefix(&staging_name(&dest))
            .tempdir_in(parent_dir(&dest))
            .map_err(|e| Error::io(&dest, without_staging_path(e)));
        let staged = match staged {
            Ok(t) => t,
            Err(e) => {
                held.release();
                return Err(e);
            }
        };
        let tmp = staged.path().to_path_buf();
        held.ids.push(register(Entry::Temp(tmp.clone())));
        if existing == Existing::Refuse
            && let Err(e) = held.claim(&dest, &dest, true)
        {
            drop(staged);
            held.release();
            return Err(e);
        }
        remove_stale_siblings(&dest);
        Ok(AtomicDir {
            dest,
            tmp,
            staged: Some(staged),
            held,
        })
    }

    /// Where files are written until commit.
    pub fn staging(&self) -> &Path {
        &self.tmp
    }

    /// Path of `name` inside the staging directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.tmp.join(name)
    }

    /// The final destination.
    pub fn path(&self) -> &Path {
        &self.dest
    }

    /// Puts the staged directory at `dest`: renamed over the empty claim, or
    /// exchanged with the directory there (which is then removed).
    pub fn commit(mut self) -> Result<()> {
        let mut reg = registry();
        let done = if self.held.claim.is_some() {
            // Renaming over an empty directory replaces it; over one that
            // another run filled meanwhile, it fails.
            match fs::rename(&self.tmp, &self.dest) {
                Ok(()) => Ok(false),
                Err(e) if is_not_empty(&e) => Err(refused(&self.dest, Refusal::AnotherRun)),
                Err(e) => Err(Error::io(&self.dest, e)),
            }
        } else {
            replace_dir(&self.tmp, &self.dest).map_err(|e| Error::io(&self.dest, e))
        };
        match done {
            Ok(exchanged) => {
                let staged = self.staged.take();
                self.held.keep(&mut reg);
                drop(reg);
                match staged {
                    // The staging path now holds the old directory: removed.
                    Some(t) if exchanged => drop(t),
                    Some(t) => {
                        let _ = t.keep();
                    }
                    None => {}
                }
                Ok(())
            }
            Err(e) => {
                drop(reg);
                Err(e) // dropping `self` removes staging, claim and folders
            }
        }
    }
}

impl Drop for AtomicDir {
    fn drop(&mut self) {
        if let Some(t) = self.staged.take() {
            drop(t); // removes the staging directory
            self.held.release();
        }
    }
}

fn is_not_empty(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::DirectoryNotEmpty
        || e.kind() == std::io::ErrorKind::AlreadyExists
}

/// Moves `tmp` to `dest`, replacing a directory there. Returns whether the
/// two were exchanged (then `tmp` holds the old directory, to be removed).
/// Concurrent replacements of one destination all succeed: every step
/// either completes atomically or finds the destination changed and tries
/// again.
fn replace_dir(tmp: &Path, dest: &Path) -> std::io::Result<bool> {
    let mut last = None;
    for _ in 0..16 {
        // Absent or empty: a plain rename.
        match fs::rename(tmp, dest) {
            Ok(()) => return Ok(false),
            Err(e) if is_not_empty(&e) => last = Some(e),
            Err(e) => return Err(e),
        }
        match exchange(tmp, dest) {
            Ok(()) => return Ok(true),
            // Gone meanwhile (another run moved it): try again.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) if !exchange_unsupported(&e) => return Err(e),
            Err(_) => {}
        }
        // Without an atomic exchange: move the old directory aside.
        let aside = dest.with_file_name(format!("{}old", staging_name(dest)));
        match fs::rename(dest, &aside) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        }
        let placed = fs::rename(tmp, dest);
        let _ = fs::remove_dir_all(&aside);
        match placed {
            Ok(()) => return Ok(false),
            Err(e) if is_not_empty(&e) => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("replaced by other runs too often")))
}

#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let ca = CString::new(a.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
    let cb = CString::new(b.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
    // SAFETY: two valid NUL-terminated paths; renameat2 only reads them.
    let r = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// The kernel or file system has no `RENAME_EXCHANGE`.
fn exchange_unsupported(e: &std::io::Error) -> bool {
    #[cfg(target_os = "linux")]
    if let Some(code) = e.raw_os_error() {
        return matches!(code, libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP);
    }
    e.kind() == std::io::ErrorKind::Unsupported
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("privdiffuse-atomic-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn file_appears_only_on_commit() {
        let d = scratch("file");
        let dest = d.join("a.csv");
        let mut f = AtomicFile::create(&dest).unwrap();
        f.write_all(b"x\n").unwrap();
        assert!(!dest.exists());
        f.commit().unwrap();
        assert_eq!(fs::read_to_string(&dest).unwrap(), "x\n");
        {
            let mut f = AtomicFile::create(&dest).unwrap();
            f.write_all(b"partial").unwrap();
        } // dropped: old content stays, no temp left behind
        assert_eq!(fs::read_to_string(&dest).unwrap(), "x\n");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_and_special_files_written_in_place() {
        let d = scratch("links");
        let real = d.join("real.csv");
        let link = d.join("link.csv");
        std::os::unix::fs::symlink("real.csv", &link).unwrap();
        let mut f = AtomicFile::create(&link).unwrap();
        f.write_all(b"via link\n").unwrap();
        f.commit().unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "via link\n");
        // /dev/null stays a device, and nothing is staged beside it.
        let mut f = AtomicFile::create("/dev/null").unwrap();
        f.write_all(b"discarded").unwrap();
        f.commit().unwrap();
        let m = fs::metadata("/dev/null").unwrap();
        assert!(!m.is_file() && !m.is_dir());
        // A directory is not a file name.
        assert!(AtomicFile::create(&d).is_err());
        // A link to a directory stays a link; the directory is replaced.
        let target = d.join("outdir");
        fs::create_dir(&target).unwrap();
        let dlink = d.join("outlink");
        std::os::unix::fs::symlink("outdir", &dlink).unwrap();
        let a = AtomicDir::create(&dlink).unwrap();
        fs::write(a.join("new.txt"), "new").unwrap();
        a.commit().unwrap();
        assert!(
            fs::symlink_metadata(&dlink)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(target.join("new.txt").exists());
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn stale_staging_of_a_dead_process_is_removed() {
        let d = scratch("stale");
        let dest = d.join("out");
        // PIDs are below 2^22 on Linux: this one cannot be alive.
        let stale = d.join(".out.tmp-4294967290-a1B2c3");
        fs::create_dir(&stale).unwrap();
        fs::write(stale.join("half.csv"), "x").unwrap();
        // As earlier versions named it (no random suffix).
        let older = d.join(".out.tmp-4294967291");
        fs::write(&older, "x").unwrap();
        // Ours (a live process) and another destination's stay.
        let live = d.join(format!(".out.tmp-{}-zzzzzz", std::process::id()));
        let other = d.join(".outer.tmp-4294967290-a1B2c3");
        fs::write(&live, "x").unwrap();
        fs::write(&other, "x").unwrap();
        let a = AtomicDir::create(&dest).unwrap();
        if Path::new("/proc/self").exists() {
            assert!(!stale.exists() && !older.exists());
        }
        assert!(live.exists() && other.exists());
        a.commit().unwrap();
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn staging_is_exclusive_and_named_for_its_destination() {
        let d = scratch("exclusive");
        let dest = d.join("a.csv");
        // Two writers to one destination at once: two temporaries.
        let mut f = AtomicFile::create(&dest).unwrap();
        let mut g = AtomicFile::create(&dest).unwrap();
        let names: Vec<String> = fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        let prefix = format!(".a.csv.tmp-{}-", std::process::id());
        assert!(names.iter().all(|n| n.starts_with(&prefix)), "{names:?}");
        f.write_all(b"first\n").unwrap();
        g.write_all(b"second\n").unwrap();
        f.commit().unwrap();
        g.commit().unwrap();
        assert_eq!(fs::read_to_string(&dest).unwrap(), "second\n");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        // A missing folder is reported for the destination, not the temporary.
        let err = AtomicFile::create(d.join("no/such/b.csv")).err().unwrap();
        let msg = err.to_string();
        assert!(
            msg.contains("no/such/b.csv") && !msg.contains(".tmp-"),
            "{msg}"
        );
        fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn committed_files_and_dirs_get_the_usual_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let d = scratch("mode");
        // What plain File::create / create_dir give under the current umask.
        let (plain_file, plain_dir) = (d.join("plain.csv"), d.join("plain"));
        fs::File::create(&plain_file).unwrap();
        fs::create_dir(&plain_dir).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let f = AtomicFile::create(d.join("a.csv")).unwrap();
        f.commit().unwrap();
        assert_eq!(mode(&d.join("a.csv")), mode(&plain_file));
        AtomicDir::create(d.join("run")).unwrap().commit().unwrap();
        assert_eq!(mode(&d.join("run")), mode(&plain_dir));
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_failed_dir_removes_the_parents_it_created() {
        let d = scratch("parents");
        let dest = d.join("a").join("b").join("out");
        {
            let _a = AtomicDir::create(&dest).unwrap();
            assert!(d.join("a").join("b").is_dir());
        } // dropped: the run failed
        assert!(!d.join("a").exists());
        let a = AtomicDir::create(&dest).unwrap();
        a.commit().unwrap();
        assert!(dest.is_dir());
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn refuse_claims_a_new_directory_and_releases_it_when_dropped() {
        let d = scratch("claim-dir");
        let dest = d.join("a").join("run");
        let a = AtomicDir::create_with(&dest, Existing::Refuse).unwrap();
        // Claimed at once: the empty directory is there during the run.
        assert!(dest.is_dir() && is_empty(&dest));
        let b = AtomicDir::create_with(&dest, Existing::Refuse)
            .err()
            .unwrap();
        assert!(refusal(&b).is_some(), "{b}");
        fs::write(a.join("x.csv"), "x").unwrap();
        a.commit().unwrap();
        assert!(dest.join("x.csv").exists());
        // Refused when it exists, even with the claim long gone.
        let e = AtomicDir::create_with(&dest, Existing::Refuse)
            .err()
            .unwrap();
        assert_eq!(refusal(&e), Some(Refusal::Exists));
        assert_eq!(e.to_string(), format!("{}: already exists", dest.display()));
        // Dropped uncommitted: claim and created folders go again.
        let other = d.join("b").join("run");
        drop(AtomicDir::create_with(&other, Existing::Refuse).unwrap());
        assert!(!d.join("b").exists());
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn refuse_claims_a_new_file_and_links_are_written_through() {
        let d = scratch("claim-file");
        let dest = d.join("sub").join("a.csv");
        let mut f = AtomicFile::create_with(&dest, Existing::Refuse).unwrap();
        assert_eq!(fs::metadata(&dest).unwrap().len(), 0, "claimed empty");
        assert!(AtomicFile::create_with(&dest, Existing::Refuse).is_err());
        f.write_all(b"x\n").unwrap();
        f.commit().unwrap();
        assert_eq!(fs::read_to_string(&dest).unwrap(), "x\n");
        let e = AtomicPath::create_with(&dest, ".csv", Existing::Refuse)
            .err()
            .unwrap();
        assert_eq!(refusal(&e), Some(Refusal::Exists));
        // Replace overwrites; a dropped claim leaves nothing (folders included).
        let mut f = AtomicFile::create_with(&dest, Existing::Replace).unwrap();
        f.write_all(b"y\n").unwrap();
        f.commit().unwrap();
        assert_eq!(fs::read_to_string(&dest).unwrap(), "y\n");
        drop(AtomicFile::create_with(d.join("new/b.csv"), Existing::Refuse).unwrap());
        assert!(!d.join("new").exists());
        #[cfg(unix)]
        {
            let link = d.join("link.csv");
            std::os::unix::fs::symlink(&dest, &link).unwrap();
            let mut f = AtomicFile::create_with(&link, Existing::Refuse).unwrap();
            f.write_all(b"z\n").unwrap();
            f.commit().unwrap();
            assert_eq!(fs::read_to_string(&dest).unwrap(), "z\n");
        }
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn the_empty_claim_of_a_killed_run_is_taken_over() {
        if !Path::new("/proc/self").exists() {
            return;
        }
        let d = scratch("dead-claim");
        let dest = d.join("run");
        fs::create_dir(&dest).unwrap();
        // PIDs are below 2^22 on Linux: this one cannot be alive.
        fs::create_dir(d.join(".run.tmp-4294967290-a1B2c3")).unwrap();
        let a = AtomicDir::create_with(&dest, Existing::Refuse).unwrap();
        a.commit().unwrap();
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        // An empty directory made by hand is refused.
        let hand = d.join("hand");
        fs::create_dir(&hand).unwrap();
        assert!(AtomicDir::create_with(&hand, Existing::Refuse).is_err());
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn replacing_a_directory_exchanges_it() {
        let d = scratch("exchange");
        let dest = d.join("out");
        for round in 0..3 {
            let a = AtomicDir::create_with(&dest, Existing::Replace).unwrap();
            fs::write(a.join(&format!("f{round}")), "x").unwrap();
            a.commit().unwrap();
            let names: Vec<_> = fs::read_dir(&dest).unwrap().flatten().collect();
            assert_eq!(names.len(), 1, "round {round}");
            assert!(dest.join(format!("f{round}")).exists());
            assert_eq!(fs::read_dir(&d).unwrap().count(), 1, "nothing aside");
        }
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn dir_replaces_or_vanishes() {
        let d = scratch("dir");
        let dest = d.join("out");
        fs::create_dir(&dest).unwrap();
        fs::write(dest.join("old.txt"), "old").unwrap();
        {
            let a = AtomicDir::create(&dest).unwrap();
            fs::write(a.join("new.txt"), "new").unwrap();
        } // dropped: nothing changes
        assert!(dest.join("old.txt").exists());
        let a = AtomicDir::create(&dest).unwrap();
        fs::write(a.join("new.txt"), "new").unwrap();
        a.commit().unwrap();
        assert!(!dest.join("old.txt").exists());
        assert!(dest.join("new.txt").exists());
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        fs::remove_dir_all(&d).unwrap();
    }
}

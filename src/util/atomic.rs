//! No half-written outputs: files and directories are written under a temporary
//! name beside their destination and renamed into place only when complete. If
//! the writer is dropped without `commit` (an error, a panic), the temporary is
//! removed and the destination is left as it was.
//!
//! Staging names are `.NAME.tmp-PID-XXXXXX`, created exclusively by `tempfile`
//! (a random suffix, `O_EXCL`): two writers to one destination never share a
//! temporary, and a name planted in advance (a symbolic link) is never opened.
//! The PID lets a later run remove the staging of a killed one.
//!
//! A destination that is a symbolic link is followed (the link stays, its
//! target is replaced), and one that exists but is not a regular file or a
//! directory (`/dev/null`, a FIFO, a terminal) is written in place: renaming
//! over such a file would replace the device, not write to it.

use super::PathIoError as Error;

type Result<T> = std::result::Result<T, Error>;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use tempfile::{NamedTempFile, TempDir};

/// Staging files and directories not yet committed or dropped, so that an
/// interrupt handler can remove them ([`remove_staged`]).
static STAGED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn stage(p: &Path) {
    if let Ok(mut v) = STAGED.lock() {
        v.push(p.to_path_buf());
    }
}

fn unstage(p: &Path) {
    if let Ok(mut v) = STAGED.lock()
        && let Some(i) = v.iter().rposition(|q| q == p)
    {
        v.swap_remove(i);
    }
}

/// Removes every staging file and directory of this process that was neither
/// committed nor dropped. Meant for a Ctrl-C / SIGTERM handler, which then
/// exits: destructors do not run on a signal, so without it an interrupted
/// run would leave `.NAME.tmp-PID` behind (until the next run into NAME).
pub fn remove_staged() {
    let paths = match STAGED.lock() {
        Ok(mut v) => std::mem::take(&mut *v),
        Err(_) => return,
    };
    for p in paths {
        let _ = if p.is_dir() {
            fs::remove_dir_all(&p)
        } else {
            fs::remove_file(&p)
        };
    }
}

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

/// Whether `path` exists and is neither a regular file nor a directory
/// (a device, FIFO or socket), so it must be written in place.
pub fn is_special(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// The directory that holds `dest` (`.` for a bare file name).
fn parent_dir(dest: &Path) -> &Path {
    match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A `tempfile` builder for the staging names of `dest`: `.NAME.tmp-PID-`
/// followed by six random characters.
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
    let proc_fs = Path::new("/proc/self");
    if !proc_fs.exists() {
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
        // `PID-XXXXXX`, or `PID` alone as earlier versions named it.
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

/// A buffered file that appears at its destination only on [`AtomicFile::commit`].
pub struct AtomicFile {
    /// The path as the user gave it (for messages).
    dest: PathBuf,
    /// The file renamed into place on commit (`dest` with links followed).
    target: PathBuf,
    writer: Option<BufWriter<Sink>>,
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

impl AtomicFile {
    /// Creates the temporary file beside `dest` (the parent directory must
    /// exist). Symbolic links are followed; a special file such as
    /// `/dev/null` is opened and written in place.
    pub fn create(dest: impl AsRef<Path>) -> Result<Self> {
        let dest = dest.as_ref().to_path_buf();
        let target = follow_links(&dest);
        if target.is_dir() {
            return Err(Error::io(
                &dest,
                std::io::Error::other("is a directory: expected a file name"),
            ));
        }
        let sink = if is_special(&target) {
            let f = fs::OpenOptions::new()
                .write(true)
                .open(&target)
                .map_err(|e| Error::io(&dest, e))?;
            Sink::InPlace(f)
        } else {
            remove_stale_siblings(&target);
            let prefix = staging_name(&target);
            let mut b = tempfile::Builder::new();
            b.prefix(&prefix);
            // What `File::create` would give (0666 less the umask), not
            // tempfile's private 0600: the file is the output, not a secret.
            #[cfg(unix)]
            b.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
            let t = b
                .tempfile_in(parent_dir(&target))
                .map_err(|e| Error::io(&dest, without_staging_path(e)))?;
            stage(t.path());
            Sink::Staged(t)
        };
        Ok(AtomicFile {
            dest,
            target,
            writer: Some(BufWriter::with_capacity(1 << 16, sink)),
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
                let staged = staged_path(w.get_ref());
                drop(w); // removes the temporary
                staged.inspect(|p| unstage(p));
                return Err(Error::io(&self.dest, e));
            }
        };
        let Sink::Staged(tmp) = sink else {
            return Ok(());
        };
        let staged = tmp.path().to_path_buf();
        let done = match tmp.as_file().sync_all() {
            // A failed rename drops (so removes) the temporary.
            Ok(()) => tmp.persist(&self.target).map(drop).map_err(|e| e.error),
            Err(e) => Err(e),
        };
        unstage(&staged);
        done.map_err(|e| Error::io(&self.dest, e))
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
            let staged = staged_path(w.get_ref());
            drop(w); // removes the temporary
            staged.inspect(|p| unstage(p));
        }
    }
}

fn staged_path(sink: &Sink) -> Option<PathBuf> {
    match sink {
        Sink::Staged(t) => Some(t.path().to_path_buf()),
        Sink::InPlace(_) => None,
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
}

impl AtomicPath {
    /// Creates an empty staging file for `dest` ending in `suffix` (e.g.
    /// `".png"`), exclusively, beside the destination (links followed).
    pub fn create(dest: impl AsRef<Path>, suffix: &str) -> Result<Self> {
        let dest = dest.as_ref().to_path_buf();
        let target = follow_links(&dest);
        if target.is_dir() {
            return Err(Error::io(
                &dest,
                std::io::Error::other("is a directory: expected a file name"),
            ));
        }
        let special = is_special(&target);
        let folder = if special {
            // Never stage beside a device (e.g. in /dev).
            std::env::temp_dir()
        } else {
            remove_stale_siblings(&target);
            parent_dir(&target).to_path_buf()
        };
        let mut b = tempfile::Builder::new();
        let prefix = staging_name(&target);
        b.prefix(&prefix).suffix(suffix);
        #[cfg(unix)]
        b.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let t = b
            .tempfile_in(folder)
            .map_err(|e| Error::io(&dest, without_staging_path(e)))?
            .into_temp_path();
        stage(&t);
        Ok(AtomicPath {
            dest,
            target,
            special,
            staged: Some(t),
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
        let staged = t.to_path_buf();
        let done = if self.special {
            // Dropping `t` removes the staging file.
            fs::copy(&t, &self.target).map(drop)
        } else {
            // A failed rename drops (so removes) the staging file.
            t.persist(&self.target).map_err(|e| e.error)
        };
        unstage(&staged);
        done.map_err(|e| Error::io(&self.dest, e))
    }
}

impl Drop for AtomicPath {
    fn drop(&mut self) {
        if let Some(t) = self.staged.take() {
            let staged = t.to_path_buf();
            drop(t); // removes the staging file
            unstage(&staged);
        }
    }
}

/// A directory whose contents appear at the destination only on
/// [`AtomicDir::commit`], replacing whatever was there.
pub struct AtomicDir {
    dest: PathBuf,
    /// The staging directory's path (also registered for [`remove_staged`]).
    tmp: PathBuf,
    /// Removes the staging directory when dropped; `None` once committed.
    staged: Option<TempDir>,
    /// Parent folders this writer created, deepest first: removed again (when
    /// still empty) if the run fails, so a failure leaves nothing behind.
    created: Vec<PathBuf>,
}

impl AtomicDir {
    /// Creates an empty temporary directory beside `dest` (creating `dest`'s
    /// parent directories if needed).
    pub fn create(dest: impl AsRef<Path>) -> Result<Self> {
        // A link to a directory stays a link; its target is replaced.
        let dest = follow_links(dest.as_ref());
        if dest.exists() && !dest.is_dir() {
            return Err(Error::io(
                &dest,
                std::io::Error::other("exists and is not a directory: expected a directory name"),
            ));
        }
        let mut created = Vec::new();
        if let Some(p) = dest.parent().filter(|p| !p.as_os_str().is_empty()) {
            let mut a = Some(p);
            while let Some(d) = a.filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
                created.push(d.to_path_buf());
                a = d.parent();
            }
            fs::create_dir_all(p).map_err(|e| Error::io(p, e))?;
        }
        remove_stale_siblings(&dest);
        let staged = tempfile::Builder::new()
            .prefix(&staging_name(&dest))
            .tempdir_in(parent_dir(&dest))
            .map_err(|e| Error::io(&dest, without_staging_path(e)));
        let staged = match staged {
            Ok(t) => t,
            Err(e) => {
                remove_empty(&created);
                return Err(e);
            }
        };
        let tmp = staged.path().to_path_buf();
        stage(&tmp);
        Ok(AtomicDir {
            dest,
            tmp,
            staged: Some(staged),
            created,
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

    /// Replaces `dest` with the staged directory. The old directory is moved
    /// aside first and removed only after the new one is in place.
    pub fn commit(mut self) -> Result<()> {
        let old = self
            .dest
            .with_extension(format!("old-{}", std::process::id()));
        let had_old = self.dest.exists();
        if had_old {
            fs::rename(&self.dest, &old).map_err(|e| Error::io(&self.dest, e))?;
        }
        if let Err(e) = fs::rename(&self.tmp, &self.dest) {
            if had_old {
                let _ = fs::rename(&old, &self.dest);
            }
            return Err(Error::io(&self.dest, e));
        }
        // In place: nothing left to remove.
        let _ = self.staged.take().map(TempDir::keep);
        unstage(&self.tmp);
        if had_old {
            let _ = fs::remove_dir_all(&old);
        }
        Ok(())
    }
}

impl Drop for AtomicDir {
    fn drop(&mut self) {
        if let Some(t) = self.staged.take() {
            drop(t); // removes the staging directory
            unstage(&self.tmp);
            remove_empty(&self.created);
        }
    }
}

/// Removes the folders a writer created (deepest first) when still empty;
/// anything else written there stays.
fn remove_empty(created: &[PathBuf]) {
    for d in created {
        let _ = fs::remove_dir(d);
    }
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

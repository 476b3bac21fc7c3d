//! No half-written outputs: files and directories are written under a temporary
//! name beside their destination and renamed into place only when complete. If
//! the writer is dropped without `commit` (an error, a panic), the temporary is
//! removed and the destination is left as it was.
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

fn temp_sibling(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = format!(".{name}.tmp-{}", std::process::id());
    match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.join(tmp),
        _ => PathBuf::from(tmp),
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
    let parent = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Ok(entries) = fs::read_dir(&parent) else {
        return;
    };
    for e in entries.flatten() {
        let file_name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = file_name.strip_prefix(&prefix) else {
            continue;
        };
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
    /// The temporary sibling; `None` when writing in place to a special file.
    tmp: Option<PathBuf>,
    writer: Option<BufWriter<fs::File>>,
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
        let (tmp, file) = if is_special(&target) {
            let f = fs::OpenOptions::new()
                .write(true)
                .open(&target)
                .map_err(|e| Error::io(&dest, e))?;
            (None, f)
        } else {
            let tmp = temp_sibling(&target);
            remove_stale_siblings(&target);
            let f = fs::File::create(&tmp).map_err(|e| Error::io(&dest, e))?;
            stage(&tmp);
            (Some(tmp), f)
        };
        Ok(AtomicFile {
            dest,
            target,
            tmp,
            writer: Some(BufWriter::with_capacity(1 << 16, file)),
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
        let file = w.into_inner().map_err(|e| {
            if let Some(t) = &self.tmp {
                let _ = fs::remove_file(t);
                unstage(t);
            }
            Error::io(&self.dest, e.into_error())
        })?;
        let Some(tmp) = self.tmp.take() else {
            return Ok(());
        };
        let done = file.sync_all().and_then(|_| fs::rename(&tmp, &self.target));
        unstage(&tmp);
        done.map_err(|e| {
            let _ = fs::remove_file(&tmp);
            Error::io(&self.dest, e)
        })
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
        if self.writer.take().is_some()
            && let Some(t) = &self.tmp
        {
            let _ = fs::remove_file(t);
            unstage(t);
        }
    }
}

/// A directory whose contents appear at the destination only on
/// [`AtomicDir::commit`], replacing whatever was there.
pub struct AtomicDir {
    dest: PathBuf,
    tmp: PathBuf,
    committed: bool,
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
        let tmp = temp_sibling(&dest);
        remove_stale_siblings(&dest);
        if tmp.exists() {
            fs::remove_dir_all(&tmp).map_err(|e| Error::io(&tmp, e))?;
        }
        fs::create_dir(&tmp).map_err(|e| Error::io(&tmp, e))?;
        stage(&tmp);
        Ok(AtomicDir {
            dest,
            tmp,
            committed: false,
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
        unstage(&self.tmp);
        if had_old {
            let _ = fs::remove_dir_all(&old);
        }
        self.committed = true;
        Ok(())
    }
}

impl Drop for AtomicDir {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_dir_all(&self.tmp);
            unstage(&self.tmp);
            for d in &self.created {
                // Only empty folders go; anything else written there stays.
                let _ = fs::remove_dir(d);
            }
        }
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
        let stale = d.join(".out.tmp-4294967290");
        fs::create_dir(&stale).unwrap();
        fs::write(stale.join("half.csv"), "x").unwrap();
        let a = AtomicDir::create(&dest).unwrap();
        if Path::new("/proc/self").exists() {
            assert!(!stale.exists());
        }
        a.commit().unwrap();
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

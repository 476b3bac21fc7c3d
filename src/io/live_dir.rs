//! A live run directory ([`Place::Live`](super::driver::Place::Live)):
//! `--out` itself, written while the run goes on, so that a killed run
//! leaves readable files and a resumed run continues into its own
//! directory. It is claimed for the whole run by the lock `OUT.lock` beside
//! it (removed when the claim is dropped; one left by a killed run is taken
//! over): a second run into the same OUT fails at once with `OUT is in use
//! by another run`. Each file is replaced atomically, never seen half
//! written.

use crate::error::{Error, Result};
use crate::util::{AtomicFile, Existing, Refusal};
use std::io::Write;
use std::path::{Path, PathBuf};

/// `--out` claimed for a run that writes into it in place.
pub struct LiveDir {
    sink: LiveSink,
    _claim: super::run_dir::OutClaim,
}

impl LiveDir {
    /// Claims `out`: anything but a directory is refused; the lock is taken
    /// (its parent created: the lock file lives in it; `out` itself is made
    /// by the first file written); then a directory that already holds
    /// files is refused unless `force` or the run `continues` the one that
    /// wrote them. A directory another run is writing is refused at once.
    pub(crate) fn claim(out: &Path, force: bool, continues: bool) -> Result<LiveDir> {
        if out.exists() && !out.is_dir() {
            let e = std::io::Error::other("not a directory (`out` is the run's output directory)");
            return Err(Error::io(out, e));
        }
        if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        // Held alone: any other run into OUT, whatever the command, is
        // refused at once, and this one is if another holds it.
        let claim = super::run_dir::claim_out(out, true)?;
        let holds_files = std::fs::read_dir(out)
            .map(|mut d| d.next().is_some())
            .unwrap_or(false);
        if holds_files && !force && !continues {
            return Err(Error::output_exists(out, Refusal::Exists));
        }
        Ok(LiveDir {
            sink: LiveSink(out.to_path_buf()),
            _claim: claim,
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.sink.0
    }

    /// A writer of files into the directory while the run goes on (owned:
    /// it may live in a callback on another thread).
    pub fn sink(&self) -> LiveSink {
        self.sink.clone()
    }
}

/// Writes files into a [`LiveDir`] (the claim held by its owner).
#[derive(Clone, Debug)]
pub struct LiveSink(PathBuf);

impl LiveSink {
    /// Replaces file `name` atomically by what `write` writes (the
    /// directory created first when it is not there yet).
    pub fn replace(
        &self,
        name: &str,
        write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<()> {
        std::fs::create_dir_all(&self.0).map_err(|e| Error::io(&self.0, e))?;
        let path = self.0.join(name);
        let mut f = AtomicFile::create_with(&path, Existing::Replace)?;
        write(&mut f).map_err(|e| Error::io(&path, e))?;
        Ok(f.commit()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_claim_at_a_time_files_refused_unless_force_or_continued() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("a/out");
        let live = LiveDir::claim(&out, false, false).unwrap();
        // The lock beside OUT; OUT itself only once a file is written.
        assert!(tmp.path().join("a/out.lock").exists());
        assert!(!out.exists());
        let e = LiveDir::claim(&out, true, true).err().unwrap();
        assert!(e.to_string().contains("in use by another run"), "{e}");
        live.sink()
            .replace("t.csv", |w| w.write_all(b"x\n"))
            .unwrap();
        live.sink()
            .replace("t.csv", |w| w.write_all(b"y\n"))
            .unwrap();
        assert_eq!(std::fs::read(out.join("t.csv")).unwrap(), b"y\n");
        assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1);
        drop(live);
        assert!(!tmp.path().join("a/out.lock").exists());
        // OUT holds files: refused unless forced or continued.
        let e = LiveDir::claim(&out, false, false).err().unwrap();
        assert!(matches!(e, Error::OutputExists { .. }), "{e}");
        assert!(LiveDir::claim(&out, true, false).is_ok());
        assert!(LiveDir::claim(&out, false, true).is_ok());
        // Anything but a directory.
        let e = LiveDir::claim(&out.join("t.csv"), true, true)
            .err()
            .unwrap();
        assert!(e.to_string().contains("not a directory"), "{e}");
    }
}

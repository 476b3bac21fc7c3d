use super::*;

/// Two files that are one output — a CSV and its JSON sidecar, an edge list
/// and its coordinates — claimed together and put in place together.
///
/// Each file is an [`AtomicFile`] (staged beside its destination, claimed
/// with [`Existing::Refuse`]: the first, then the second). [`AtomicPair::commit`]
/// renames both while holding an exclusive `flock` on the folder(s) that hold
/// them, and every pair commit takes the same lock, so concurrent runs into
/// one pair (`--force`) never interleave their renames: the pair left behind
/// is always one run's two files. (Between the two renames only a crash of
/// the machine, or `SIGKILL`, can separate them; an interrupt handler
/// calling [`remove_staged`] waits for the commit to finish.)
pub struct AtomicPair {
    first: AtomicFile,
    second: AtomicFile,
}

impl AtomicPair {
    /// Stages (and, with [`Existing::Refuse`], claims) `first`, then
    /// `second`, creating missing parent folders as
    /// [`AtomicFile::create_with`] does. If the second is refused, the
    /// first's claim is released again.
    pub fn create_with(
        first: impl AsRef<Path>,
        second: impl AsRef<Path>,
        existing: Existing,
    ) -> Result<Self> {
        let first = AtomicFile::create_with(first, existing)?;
        let second = AtomicFile::create_with(second, existing)?;
        Ok(AtomicPair { first, second })
    }

    /// The first file, to write.
    pub fn first(&mut self) -> &mut AtomicFile {
        &mut self.first
    }

    /// The second file, to write.
    pub fn second(&mut self) -> &mut AtomicFile {
        &mut self.second
    }

    /// Flushes and syncs both files, then renames both into place under the
    /// folder lock (see the type's documentation). If either claim was
    /// taken over by another run, neither file is placed.
    pub fn commit(mut self) -> Result<()> {
        let a = self.first.prepare()?;
        let b = self.second.prepare()?;
        let _folders = FolderLocks::take(&[&self.first, &self.second])?;
        let mut reg = registry();
        // Both claims checked before either rename.
        for f in [&self.first, &self.second] {
            if f.held.claim.is_some() && !f.held.holds(&f.target) {
                drop(reg);
                return Err(refused(&f.dest, Refusal::AnotherRun));
            }
        }
        let placed = match a {
            Some(a) => self.first.place(a),
            None => Ok(()),
        };
        if let Err(e) = placed {
            drop(reg);
            return Err(e); // dropping `self` releases both reservations
        }
        self.first.held.keep(&mut reg);
        let placed = match b {
            Some(b) => self.second.place(b),
            None => Ok(()),
        };
        if let Err(e) = placed {
            drop(reg);
            return Err(e);
        }
        self.second.held.keep(&mut reg);
        Ok(())
    }
}

/// Exclusive `flock`s on the folders holding a pair's targets, in path
/// order (so two committers never wait on each other crosswise), released
/// when dropped. Without `flock` (not Linux) there is no lock.
struct FolderLocks {
    _held: Vec<fs::File>,
}

impl FolderLocks {
    fn take(files: &[&AtomicFile]) -> Result<FolderLocks> {
        let mut folders: Vec<PathBuf> = files
            .iter()
            .map(|f| parent_dir(&f.target).to_path_buf())
            .collect();
        folders.sort();
        folders.dedup();
        let mut held = Vec::new();
        for d in folders {
            let f = fs::File::open(&d).map_err(|e| Error::io(&d, e))?;
            lock_exclusive(&f).map_err(|e| Error::io(&d, e))?;
            held.push(f);
        }
        Ok(FolderLocks { _held: held })
    }
}

#[cfg(target_os = "linux")]
fn lock_exclusive(f: &fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    loop {
        // SAFETY: flock on a descriptor we own; no memory is shared.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn lock_exclusive(_f: &fs::File) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &mut AtomicPair, text: &str) {
        p.first().write_all(text.as_bytes()).unwrap();
        p.second().write_all(text.as_bytes()).unwrap();
    }

    #[test]
    fn both_appear_on_commit_and_neither_when_dropped() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().to_path_buf();
        let (a, b) = (d.join("p.csv"), d.join("p.json"));
        let mut p = AtomicPair::create_with(&a, &b, Existing::Refuse).unwrap();
        write(&mut p, "one");
        p.commit().unwrap();
        assert_eq!(fs::read_to_string(&a).unwrap(), "one");
        assert_eq!(fs::read_to_string(&b).unwrap(), "one");
        // Refused when either exists; the first's claim is released again.
        fs::remove_file(&a).unwrap();
        let e = AtomicPair::create_with(&a, &b, Existing::Refuse)
            .err()
            .unwrap();
        assert_eq!(refusal(&e), Some(Refusal::Exists));
        assert!(!a.exists());
        // Dropped uncommitted: the old pair stays, nothing staged is left.
        fs::write(&a, "one").unwrap();
        let mut p = AtomicPair::create_with(&a, &b, Existing::Replace).unwrap();
        write(&mut p, "two");
        drop(p);
        assert_eq!(fs::read_to_string(&a).unwrap(), "one");
        assert_eq!(fs::read_to_string(&b).unwrap(), "one");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 2);
        fs::remove_dir_all(&d).unwrap();
    }

    /// Replacing writers on many threads: the files left are always one
    /// writer's two. In one process the registry's lock, held over both
    /// renames, already keeps pairs whole; between processes it is the
    /// folder lock, which `tests/cli/path.rs` checks with concurrent runs.
    #[test]
    fn concurrent_replacements_leave_one_writers_pair() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().to_path_buf();
        let (a, b) = (d.join("g.edges"), d.join("g.coords.csv"));
        for round in 0..20 {
            std::thread::scope(|s| {
                for w in 0..6 {
                    let (a, b) = (&a, &b);
                    s.spawn(move || {
                        let mut p = AtomicPair::create_with(a, b, Existing::Replace).unwrap();
                        // Different sizes, so that the renames take a varying time.
                        write(&mut p, &format!("{round}-{w}").repeat(1 + 500 * w));
                        p.commit().unwrap();
                    });
                }
            });
            let (x, y) = (
                fs::read_to_string(&a).unwrap(),
                fs::read_to_string(&b).unwrap(),
            );
            assert_eq!(x.len(), y.len(), "round {round}: mismatched pair");
            assert_eq!(x, y, "round {round}");
        }
        assert_eq!(fs::read_dir(&d).unwrap().count(), 2, "no staging left");
        fs::remove_dir_all(&d).unwrap();
    }
}

use super::*;

/// A buffered file that appears at its destination only on [`AtomicFile::commit`].
pub struct AtomicFile {
    /// The path as the user gave it (for messages).
    pub(super) dest: PathBuf,
    /// The file renamed into place on commit (`dest` with links followed).
    pub(super) target: PathBuf,
    pub(super) writer: Option<BufWriter<Sink>>,
    pub(super) held: Reservation,
}

/// Where an [`AtomicFile`]'s bytes go.
pub(super) enum Sink {
    /// A temporary sibling of the target, removed when dropped.
    Staged(NamedTempFile),
    /// A special file (device, FIFO), written in place.
    InPlace(fs::File),
}

impl Sink {
    pub(super) fn file(&mut self) -> &mut fs::File {
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
pub(super) fn staging_file(
    target: &Path,
    dest: &Path,
    suffix: &str,
    folder: &Path,
    held: &mut Reservation,
) -> Result<NamedTempFile> {
    staging_file_with(target, dest, suffix, folder, held, false)
}

/// [`staging_file`], `private` (0600) for a file that holds a secret.
fn staging_file_with(
    target: &Path,
    dest: &Path,
    suffix: &str,
    folder: &Path,
    held: &mut Reservation,
    private: bool,
) -> Result<NamedTempFile> {
    let prefix = staging_name(target);
    let mut b = tempfile::Builder::new();
    b.prefix(&prefix).suffix(suffix);
    // What `File::create` would give (0666 less the umask), not
    // tempfile's private 0600: the file is the output, not a secret —
    // unless it is one (a release state: issue 33 item 7).
    #[cfg(unix)]
    b.permissions(std::os::unix::fs::PermissionsExt::from_mode(if private {
        0o600
    } else {
        0o666
    }));
    #[cfg(not(unix))]
    let _ = private;
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
        Self::open(dest.as_ref(), Existing::Replace, false, false)
    }

    /// As [`AtomicFile::create`], with the policy `existing` for a
    /// destination that exists (claiming a new one with
    /// [`Existing::Refuse`]), and creating missing parent folders (removed
    /// again if the writer is dropped uncommitted).
    pub fn create_with(dest: impl AsRef<Path>, existing: Existing) -> Result<Self> {
        Self::open(dest.as_ref(), existing, true, false)
    }

    /// As [`AtomicFile::create_with`] for a file that holds a secret (a
    /// release state): created private, 0600, whatever the umask allows —
    /// a file it replaces is replaced by a private one.
    pub fn create_private(dest: impl AsRef<Path>, existing: Existing) -> Result<Self> {
        Self::open(dest.as_ref(), existing, true, true)
    }

    pub(super) fn open(
        dest: &Path,
        existing: Existing,
        folders: bool,
        private: bool,
    ) -> Result<Self> {
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
            let t = staging_file_with(&target, dest, "", parent_dir(&target), &mut held, private);
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
        let Some(tmp) = self.prepare()? else {
            return Ok(());
        };
        let reg = registry();
        let placed = self.place(tmp);
        self.held.settle(reg, placed)
    }

    /// The first half of a commit: flushes and syncs the staged bytes.
    /// Returns the staging file to put in place, or `None` when the bytes
    /// went in place to a special file (nothing left to do). On failure
    /// the staging and the reservation are gone.
    pub(super) fn prepare(&mut self) -> Result<Option<NamedTempFile>> {
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
            return Ok(None);
        };
        if let Err(e) = tmp.as_file().sync_all() {
            drop(tmp);
            self.held.release();
            return Err(Error::io(&self.dest, e));
        }
        Ok(Some(tmp))
    }

    /// The second half, with the registry locked by the caller: renames
    /// `tmp` over the target, unless another run took over a claimed one.
    /// On failure the staging file is removed; the caller unlocks the
    /// registry and then releases the reservation.
    pub(super) fn place(&self, tmp: NamedTempFile) -> Result<()> {
        if self.held.claim.is_some() && !self.held.holds(&self.target) {
            return Err(refused(&self.dest, Refusal::AnotherRun));
        }
        // A failed rename drops (so removes) the temporary.
        tmp.persist(&self.target)
            .map(drop)
            .map_err(|e| Error::io(&self.dest, e.error))
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

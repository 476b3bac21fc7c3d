use super::*;

/// A directory whose contents appear at the destination only on
/// [`AtomicDir::commit`].
pub struct AtomicDir {
    pub(super) dest: PathBuf,
    /// The staging directory's path (also registered for [`remove_staged`]).
    pub(super) tmp: PathBuf,
    /// Removes the staging directory when dropped; `None` once committed.
    pub(super) staged: Option<TempDir>,
    pub(super) held: Reservation,
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

pub(super) fn is_not_empty(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::DirectoryNotEmpty
        || e.kind() == std::io::ErrorKind::AlreadyExists
}

/// Moves `tmp` to `dest`, replacing a directory there. Returns whether the
/// two were exchanged (then `tmp` holds the old directory, to be removed).
/// Concurrent replacements of one destination all succeed: every step
/// either completes atomically or finds the destination changed and tries
/// again.
pub(super) fn replace_dir(tmp: &Path, dest: &Path) -> std::io::Result<bool> {
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
pub(super) fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
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
pub(super) fn exchange(_a: &Path, _b: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// The kernel or file system has no `RENAME_EXCHANGE`.
pub(super) fn exchange_unsupported(e: &std::io::Error) -> bool {
    #[cfg(target_os = "linux")]
    if let Some(code) = e.raw_os_error() {
        return matches!(code, libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP);
    }
    e.kind() == std::io::ErrorKind::Unsupported
}

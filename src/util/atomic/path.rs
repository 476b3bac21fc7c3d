use super::*;

/// A staged file for writers that take a path rather than a [`Write`] (an
/// image encoder that picks its format from the extension): write the file
/// at [`AtomicPath::staging`], then [`AtomicPath::commit`] moves it into
/// place. Dropped uncommitted, the staging file is removed. For a special
/// destination (`/dev/null`) the staging file is in the system's temporary
/// folder and its bytes are copied into the destination on commit.
pub struct AtomicPath {
    pub(super) dest: PathBuf,
    pub(super) target: PathBuf,
    pub(super) special: bool,
    /// Removes the staging file when dropped; `None` once committed.
    pub(super) staged: Option<tempfile::TempPath>,
    pub(super) held: Reservation,
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
        let reg = registry();
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
        self.held
            .settle(reg, done.map_err(|e| Error::io(&self.dest, e)))
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

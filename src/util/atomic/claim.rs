use super::*;

/// What one writer registered: its staging, its claim, the folders it
/// created. Released (removed) when the writer is dropped uncommitted.
#[derive(Default)]
pub(super) struct Reservation {
    pub(super) ids: Vec<u64>,
    pub(super) claim: Option<(PathBuf, Option<FileId>)>,
    /// Folders created, deepest first.
    pub(super) folders: Vec<PathBuf>,
}

impl Reservation {
    /// Creates the missing folders of `dir` (registering them for removal
    /// if the run fails or is interrupted).
    pub(super) fn create_folders(&mut self, dir: &Path) -> Result<()> {
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
    pub(super) fn claim(&mut self, target: &Path, shown: &Path, dir: bool) -> Result<()> {
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
    pub(super) fn holds(&self, target: &Path) -> bool {
        match &self.claim {
            Some((p, Some(id))) => p == target && FileId::of(target) == Some(*id),
            Some((p, None)) => p == target,
            None => false,
        }
    }

    /// Forgets everything (committed), with the registry already locked.
    pub(super) fn keep(&mut self, reg: &mut Registry) {
        reg.remove(&self.ids);
        self.ids.clear();
        self.claim = None;
        self.folders.clear();
    }

    /// Ends a commit whose placing gave `placed`, with the registry `reg`
    /// locked since before it: kept when placed, else released (after
    /// unlocking, as [`release`](Self::release) locks it again).
    pub(super) fn settle(
        &mut self,
        mut reg: MutexGuard<'_, Registry>,
        placed: Result<()>,
    ) -> Result<()> {
        match placed {
            Ok(()) => {
                self.keep(&mut reg);
                Ok(())
            }
            Err(e) => {
                drop(reg);
                self.release();
                Err(e)
            }
        }
    }

    /// Removes the claim and the folders (the staging is removed by its
    /// `tempfile` owner, dropped before this).
    pub(super) fn release(&mut self) {
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
pub(super) enum Claimant {
    /// A running process (a staging sibling of a live PID other than ours).
    Live,
    /// Only killed runs (staging siblings of dead PIDs, as a SIGKILL leaves).
    Dead,
    /// Nobody: the destination is not empty, or was made by hand.
    None,
}

pub(super) fn is_empty(p: &Path) -> bool {
    match fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => fs::read_dir(p).is_ok_and(|mut d| d.next().is_none()),
        Ok(m) if m.is_file() => m.len() == 0,
        _ => false,
    }
}

pub(super) fn claimed_by(target: &Path) -> Claimant {
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
pub(super) fn staging_pids(dest: &Path) -> Vec<String> {
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

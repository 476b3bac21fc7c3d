use super::*;

/// An identity of a file (device and inode), to remove a claim only while it
/// is still the one this process created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FileId(u64, u64);

impl FileId {
    #[cfg(unix)]
    pub(super) fn of(p: &Path) -> Option<FileId> {
        use std::os::unix::fs::MetadataExt;
        fs::symlink_metadata(p)
            .ok()
            .map(|m| FileId(m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    pub(super) fn of(_p: &Path) -> Option<FileId> {
        None
    }
}

#[derive(Debug)]
pub(super) enum Entry {
    /// A staging file or directory: removed whole.
    Temp(PathBuf),
    /// A claimed destination, created empty: removed while it is still the
    /// one created and empty.
    Claim(PathBuf, Option<FileId>),
    /// A folder created to hold an output: removed when empty.
    Folder(PathBuf),
}

pub(super) struct Registry {
    pub(super) next: u64,
    pub(super) entries: Vec<(u64, Entry)>,
}

pub(super) fn registry() -> MutexGuard<'static, Registry> {
    STAGED.lock().unwrap_or_else(|e| e.into_inner())
}

impl Registry {
    pub(super) fn add(&mut self, e: Entry) -> u64 {
        self.next += 1;
        self.entries.push((self.next, e));
        self.next
    }
    pub(super) fn remove(&mut self, ids: &[u64]) {
        self.entries.retain(|(i, _)| !ids.contains(i));
    }
}

pub(super) fn register(e: Entry) -> u64 {
    registry().add(e)
}

/// Registers file `path` (a lock file this process holds) for removal by
/// [`remove_staged`], until the returned guard is dropped.
pub fn remove_on_interrupt(path: &Path) -> OnInterrupt {
    OnInterrupt(register(Entry::Temp(path.to_path_buf())))
}

/// The registration made by [`remove_on_interrupt`], withdrawn on drop.
#[derive(Debug)]
pub struct OnInterrupt(u64);

impl Drop for OnInterrupt {
    fn drop(&mut self) {
        registry().remove(&[self.0]);
    }
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

pub(super) fn remove_entry(e: &Entry) {
    match e {
        Entry::Temp(p) => {
            // Another thread may still be creating files in a staging
            // directory (a signal right at a run's start): try again until
            // it is gone, pausing a millisecond between tries (at most
            // about half a second in all).
            for attempt in 0..500 {
                let r = match fs::symlink_metadata(p) {
                    Ok(m) if m.is_dir() => fs::remove_dir_all(p),
                    Ok(_) => fs::remove_file(p),
                    Err(_) => break,
                };
                if r.is_ok() {
                    break;
                }
                if attempt >= 10 {
                    std::thread::sleep(std::time::Duration::from_millis(1));
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
pub(super) fn release_claim(p: &Path, id: Option<FileId>) {
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

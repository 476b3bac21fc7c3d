use super::*;

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

pub(super) fn is_symlink(path: &Path) -> bool {
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
pub(super) fn parent_dir(dest: &Path) -> &Path {
    match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The `tempfile` prefix of the staging names of `dest`: `.NAME.tmp-PID-`
/// (followed by six random characters).
pub(super) fn staging_name(dest: &Path) -> String {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    format!(".{name}.tmp-{}-", std::process::id())
}

/// `tempfile` reports a failure as "ERROR at path \"TEMPORARY\"". The
/// caller names the destination, so keep the operating system's message
/// alone (and its kind): the random staging name means nothing to a user.
pub(super) fn without_staging_path(e: std::io::Error) -> std::io::Error {
    let text = e.to_string();
    match text.split_once(" at path ") {
        Some((msg, _)) if e.get_ref().is_some() => std::io::Error::new(e.kind(), msg.to_string()),
        _ => e,
    }
}

/// The process id in a staging name of ours, `.NAME.tmp-PID-XXXXXX[.ext]`
/// ([`staging_name`], tempfile's random part, the writer's suffix).
pub(super) fn stale_staging_pid(file_name: &str) -> Option<u32> {
    let rest = file_name.strip_prefix('.')?;
    let at = rest.rfind(".tmp-")?;
    if at == 0 {
        return None;
    }
    // tempfile's random part (six characters), then maybe a suffix (`.csv`);
    // earlier versions had no random part.
    let (pid, ours) = match rest[at + 5..].split_once('-') {
        Some((pid, random)) => (
            pid,
            random.bytes().take_while(u8::is_ascii_alphanumeric).count() >= 6,
        ),
        None => (&rest[at + 5..], true),
    };
    if !ours || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Removes staging files and directories left in `dest`'s directory by runs
/// that were killed (Ctrl-C, SIGKILL, an allocation abort: no destructor
/// ran) — of any output written there, not only `dest`. Only entries named
/// like ours whose process no longer exists are touched; without `/proc`
/// nothing is removed.
pub(super) fn remove_stale_siblings(dest: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Some(name) = dest.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return;
    };
    let _ = name;
    let Ok(entries) = fs::read_dir(parent_dir(dest)) else {
        return;
    };
    for e in entries.flatten() {
        let file_name = e.file_name().to_string_lossy().into_owned();
        // Any output's staging in this place, not only `dest`'s: a run that
        // was killed (SIGKILL, an allocation abort) left it behind.
        let Some(pid) = stale_staging_pid(&file_name) else {
            continue;
        };
        if !Path::new("/proc").join(pid.to_string()).exists() {
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
pub(super) fn resolve(dest: &Path, existing: Existing) -> (PathBuf, Existing) {
    if is_symlink(dest) && is_special(dest) {
        // A link to a device, FIFO or pipe, written in place through the
        // link: `/dev/stdout` when standard output is a pipe ends at
        // `/proc/self/fd/1 -> pipe:[N]`, a name only the kernel resolves.
        (dest.to_path_buf(), Existing::Replace)
    } else if is_symlink(dest) {
        (follow_links(dest), Existing::Replace)
    } else {
        (dest.to_path_buf(), existing)
    }
}

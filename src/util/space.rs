//! Free space of a file system: what a writer checks its projected output
//! against before streaming (`statvfs`: the blocks available to an
//! unprivileged user). `None` where it cannot be told (not Linux, a failed
//! call, standard output that is a terminal or a pipe): no check then.

use std::path::Path;

/// Bytes available on the file system holding `dir` (an existing folder).
#[cfg(target_os = "linux")]
pub fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: a NUL-terminated path and a buffer of the right type; statvfs
    // only writes the buffer, which is read only when it reports success.
    let r = unsafe { libc::statvfs(c.as_ptr(), st.as_mut_ptr()) };
    if r != 0 {
        return None;
    }
    // SAFETY: initialised by the successful call above.
    let st = unsafe { st.assume_init() };
    Some(available(&st))
}

/// Bytes available on the file system of standard output, when it is a
/// regular file (`> FILE`); `None` for a terminal, a pipe or a device.
#[cfg(target_os = "linux")]
pub fn stdout_free_bytes() -> Option<u64> {
    let mut m = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstat on descriptor 1 only writes the buffer.
    if unsafe { libc::fstat(1, m.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: initialised by the successful call above.
    let m = unsafe { m.assume_init() };
    if m.st_mode & libc::S_IFMT != libc::S_IFREG {
        return None;
    }
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: as in `free_bytes`, on a descriptor.
    if unsafe { libc::fstatvfs(1, st.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: initialised by the successful call above.
    let st = unsafe { st.assume_init() };
    Some(available(&st))
}

/// Blocks available to an unprivileged user times the fragment size.
#[cfg(target_os = "linux")]
#[allow(clippy::unnecessary_cast)] // u64 on 64-bit targets, not on all
fn available(st: &libc::statvfs) -> u64 {
    (st.f_bavail as u64).saturating_mul(st.f_frsize as u64)
}

/// Not Linux: unknown.
#[cfg(not(target_os = "linux"))]
pub fn free_bytes(_dir: &Path) -> Option<u64> {
    None
}

/// Not Linux: unknown.
#[cfg(not(target_os = "linux"))]
pub fn stdout_free_bytes() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_space_of_a_real_folder_is_known_and_of_a_missing_one_not() {
        if !cfg!(target_os = "linux") {
            return;
        }
        let tmp = std::env::temp_dir();
        let free = free_bytes(&tmp).unwrap();
        // Within the file system's size (f_blocks), which df reports too.
        assert!(free > 0);
        assert_eq!(free_bytes(&tmp.join("no/such/folder/here")), None);
    }
}

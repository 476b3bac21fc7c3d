//! Shared by the targets: a scratch directory per process (in /dev/shm when
//! it exists, so writing a file per input stays cheap) and a helper that
//! writes the input there, because the library's readers take paths.
#![allow(dead_code)]
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = if Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        let d = base.join(format!("privdiffuse-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    })
}

/// Writes `data` to `name` in the scratch directory (a sub-directory when
/// `name` has one) and returns its path.
pub fn file(name: &str, data: &[u8]) -> PathBuf {
    let p = scratch().join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&p, data).unwrap();
    p
}

/// A fresh empty run directory `name` in the scratch directory.
pub fn dir(name: &str) -> PathBuf {
    let p = scratch().join(name);
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    p
}

/// Splits `data` at the first `sep` line: (before, after).
pub fn split<'a>(data: &'a [u8], sep: &[u8]) -> (&'a [u8], &'a [u8]) {
    match data.windows(sep.len()).position(|w| w == sep) {
        Some(i) => (&data[..i], &data[i + sep.len()..]),
        None => (data, &[]),
    }
}

/// Formats an error the way the CLI does (it must not panic).
pub fn show(e: &privdiffuse::Error) {
    let _ = privdiffuse::util::lines::one_line(&format!("{e:#}")).len();
}

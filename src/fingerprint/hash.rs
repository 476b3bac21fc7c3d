//! The content of an input file as one string: its SHA-256 in lowercase
//! hex, exactly what `sha256sum FILE` prints, so a user can find which copy
//! differs. SHA-256 (RustCrypto's `sha2`) because a fingerprint must not be
//! fooled by two different files: a weak hash could let two peers merge
//! runs on different data.

use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::io::{ErrorKind, Read};
use std::path::Path;

/// The value of a missing file: peers that all lack it agree (and then all
/// fail reading it, each naming it); a peer that has it differs.
pub(super) const ABSENT: &str = "absent";

/// The SHA-256 of the file at `path` (parameter `param`), `absent` when it
/// does not exist, `unreadable (why)` when it cannot be opened. A path that
/// is not a regular file (a FIFO, a device) is refused: its content cannot
/// be read twice, once here and once by the run, so it cannot be compared.
pub(super) fn file_digest(param: &str, path: &Path) -> Result<String> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(ABSENT.into()),
        Err(e) => return Ok(unreadable(&e)),
    };
    if !meta.is_file() {
        return Err(Error::Unsupported(format!(
            "`{param}` {} is not a regular file: the processes of a cluster compare their \
             input files by content (SHA-256), which needs a file that can be read twice",
            path.display()
        )));
    }
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return Ok(unreadable(&e)),
    };
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    Ok(hex(&hasher.finalize()))
}

/// The SHA-256 of the running executable, computed once per process.
/// Linux: `/proc/self/exe`, the file this process runs even if its path was
/// replaced since it started.
pub(super) fn executable_digest() -> Result<String> {
    static DIGEST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    if let Some(d) = DIGEST.get() {
        return Ok(d.clone());
    }
    let exe = if cfg!(target_os = "linux") {
        std::path::PathBuf::from("/proc/self/exe")
    } else {
        std::env::current_exe().map_err(|e| Error::io("<the running executable>", e))?
    };
    let d = file_digest("binary", &exe)?;
    Ok(DIGEST.get_or_init(|| d).clone())
}

fn unreadable(e: &std::io::Error) -> String {
    format!("unreadable ({})", e.kind())
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_sha256sum_of_the_content() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("a.edges");
        std::fs::write(&f, "abc").unwrap();
        // FIPS 180-2, appendix B.1.
        assert_eq!(
            file_digest("graph", &f).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        std::fs::write(&f, "").unwrap();
        assert_eq!(
            file_digest("graph", &f).unwrap(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(file_digest("graph", &d.path().join("no")).unwrap(), ABSENT);
    }

    #[test]
    fn a_directory_is_refused_naming_the_parameter() {
        let d = tempfile::tempdir().unwrap();
        let e = file_digest("nodes", d.path()).unwrap_err().to_string();
        assert!(
            e.starts_with("`nodes` ") && e.contains("not a regular file"),
            "{e}"
        );
    }
}

//! Visible notices for tests that could not exercise their case (data absent,
//! a timing race lost), so they never pass silently.
//!
//! libtest captures `print!`/`eprint!` of a passing test, so a notice printed
//! that way is never seen. [`skipped`] writes straight to the process's stderr
//! (`std::io::stderr().write_all`, which the capture does not intercept): the
//! line shows in a plain `cargo test`.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Prints `SKIPPED: <test> (<why>)` where `cargo test` shows it. `<test>` is
/// the running test's path: libtest names each test's thread after it.
pub fn skipped(why: &str) {
    let thread = std::thread::current();
    let line = format!("SKIPPED: {} ({why})\n", thread.name().unwrap_or("?"));
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// `file` in the repository's `data/` folder, where the README says to put
/// downloads such as SNAP's `facebook_combined.txt` (ignored by git), or
/// `None` after printing `SKIPPED: <test> (<path> absent)`: a fresh clone
/// does not have it.
pub fn shared_data(file: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(file);
    if p.exists() {
        Some(p)
    } else {
        skipped(&format!("{} absent", p.display()));
        None
    }
}

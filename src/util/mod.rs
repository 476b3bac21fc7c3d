//! Leaf utilities that know nothing of privdiffuse: number formatting, CSV
//! tables with one serde row type per file, bounded line and file reading,
//! and files that appear only when complete. Nothing here imports the rest of the
//! crate, so every layer may use it.

pub mod atomic;
pub mod lines;
pub mod num;
pub(crate) mod spec;
pub mod table;

pub use atomic::{AtomicDir, AtomicFile, AtomicPath};
pub use num::{fmt_f64, write_f64};
pub use table::{CsvRow, TableError};

use std::path::{Path, PathBuf};

/// An I/O error on a named path (the leaf's error type; the crate's
/// [`Error::Io`](crate::Error::Io) converts from it).
#[derive(Debug)]
pub struct PathIoError {
    /// The file or directory concerned.
    pub path: PathBuf,
    /// What went wrong.
    pub error: std::io::Error,
}

impl PathIoError {
    /// An error on `path`.
    pub fn io(path: impl AsRef<Path>, error: std::io::Error) -> Self {
        PathIoError {
            path: path.as_ref().to_path_buf(),
            error,
        }
    }
}

impl std::fmt::Display for PathIoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.error)
    }
}

impl std::error::Error for PathIoError {}

//! The leaf's errors: an I/O error on a named path and a malformed table or
//! text file (file, line, what was expected). The crate's
//! [`Error`](crate::error::Error) converts from both.

use std::path::{Path, PathBuf};

/// An I/O error on a named path (the leaf's error type; the crate's
/// [`Error::Io`](crate::error::Error::Io) converts from it).
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

/// What can go wrong reading a table.
#[derive(Debug)]
pub enum TableError {
    /// The file could not be read.
    Io(PathIoError),
    /// Malformed content: the file, the 1-based line, what was expected.
    Input {
        /// The file.
        file: PathBuf,
        /// 1-based line (1 = the header).
        line: usize,
        /// What is wrong, naming the column.
        message: String,
    },
}

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TableError::Io(e) => e.fmt(f),
            TableError::Input {
                file,
                line,
                message,
            } => write!(f, "{}:{line}: {message}", file.display()),
        }
    }
}

impl std::error::Error for TableError {}

pub(crate) fn input(file: &Path, line: usize, message: impl Into<String>) -> TableError {
    TableError::Input {
        file: file.to_path_buf(),
        line,
        message: message.into(),
    }
}

//! Errors are values: every failure a user can cause is one of these variants,
//! carrying enough context (file, line, offending text, expectation) to act on.

use std::path::PathBuf;

/// The library's error type.
///
/// Messages speak the library's words: a parameter is named as in the API, in
/// snake_case (`eps`, `eps_min`, `owners`), and other parameters a message
/// refers to are written in backticks (`` clamp with `eps_max` ``). The
/// command line rewrites those names into its flags (`--eps-max`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be opened, read or written.
    // The I/O error is part of the message and deliberately not a `#[source]`:
    // `{:#}` chains would print it twice.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the operating system reported.
        error: std::io::Error,
    },
    /// An output that exists already, refused without `force`, or that a
    /// concurrent run created first (see `Existing`).
    #[error("{} {message}", path.display())]
    OutputExists {
        /// The output file or directory.
        path: PathBuf,
        /// `already exists (add `force` to replace it)` or `was created by
        /// another run`.
        message: String,
        /// Created by a run under way (a runtime error, exit code 1), not
        /// there before (a usage error, exit code 2).
        another_run: bool,
    },
    /// Malformed content in an input file: names the file, the 1-based line,
    /// the offending text and what was expected there. A problem tied to no
    /// line (`line` 0) names the file alone: `FILE: message`, never `FILE:0:`.
    #[error("{}{}: {message}", file.display(), at_line(*line))]
    Input {
        /// The input file.
        file: PathBuf,
        /// 1-based line (0 when the problem is not tied to a line).
        line: usize,
        /// What is wrong: the offending text and what was expected.
        message: String,
    },
    /// An invalid parameter value: `name` is the parameter (snake_case, as in
    /// the API), `value` what was given, `expected` what would do.
    #[error("invalid {name} '{value}': expected {expected}")]
    Parameter {
        /// The parameter, in snake_case.
        name: String,
        /// The value given, as text.
        value: String,
        /// What would be accepted.
        expected: String,
    },
    /// A size the caller controls needs more memory than the budget
    /// (`limits`): names the parameter, its value, the
    /// estimate and the budget with where it comes from.
    #[error(
        "{name} = {value} needs about {} of memory, over the budget of {} ({origin}); {hint}",
        crate::util::num::human_bytes(*need),
        crate::util::num::human_bytes(*budget)
    )]
    Budget {
        /// The parameter whose value drives the size.
        name: String,
        /// Its value, as text.
        value: String,
        /// Estimated bytes the call would need.
        need: u64,
        /// Bytes the budget allows.
        budget: u64,
        /// Where the budget comes from (physical memory, `ulimit -v`, cgroup, override).
        origin: String,
        /// What to change instead.
        hint: String,
    },
    /// A request that is well formed but cannot be served (e.g. a graph too
    /// large for the dense resistance route), with what to do instead.
    #[error("{0}")]
    Unsupported(String),
    /// A figure's input holds no drawable data (e.g. every coalition empty):
    /// an error for `privdiffuse plot`, a skipped figure for the figures
    /// `simulate` and `collude` draw by default.
    #[error("{}: nothing to draw: {reason}", file.display())]
    NothingToDraw {
        /// The figure's input file.
        file: PathBuf,
        /// Why nothing can be drawn.
        reason: String,
    },
    /// The call was cancelled through its [`CancelToken`](crate::control::CancelToken).
    #[error("interrupted")]
    Cancelled,
    /// A numerical routine failed (e.g. a factorisation of a singular matrix).
    #[error("numerical failure: {0}")]
    Numerical(String),
    /// A file another writer holds (`util::lock`):
    /// `FILE is in use by another run`, FILE as the caller wrote it.
    #[error("{} is in use by another run", path.display())]
    InUse {
        /// The guarded file.
        path: PathBuf,
    },
}

impl From<crate::util::lock::LockError> for Error {
    fn from(e: crate::util::lock::LockError) -> Self {
        match e {
            crate::util::lock::LockError::InUse { path } => Error::InUse { path },
            crate::util::lock::LockError::Io(e) => e.into(),
        }
    }
}

impl From<crate::util::PathIoError> for Error {
    fn from(e: crate::util::PathIoError) -> Self {
        if let Some(why) = crate::util::atomic::refusal(&e) {
            return Error::output_exists(e.path, why);
        }
        Error::Io {
            path: e.path,
            error: e.error,
        }
    }
}

impl From<crate::util::TableError> for Error {
    fn from(e: crate::util::TableError) -> Self {
        match e {
            crate::util::TableError::Io(e) => e.into(),
            crate::util::TableError::Input {
                file,
                line,
                message,
            } => Error::Input {
                file,
                line,
                message,
            },
        }
    }
}

/// `:LINE` of an [`Error::Input`], empty for line 0 (no line).
fn at_line(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(":{line}")
    }
}

/// `text` with control characters escaped (see [`util::lines::one_line`](crate::util::lines::one_line)).
fn one_line(text: String) -> String {
    match crate::util::lines::one_line(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(s) => s,
    }
}

/// `text` with long decimal expansions of numbers in exponent form
/// ([`util::num::shorten_numbers`](crate::util::num::shorten_numbers)).
fn short(text: String) -> String {
    match crate::util::num::shorten_numbers(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(s) => s,
    }
}

/// Shorthand for results carrying [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Builds a [`Error::Parameter`].
    /// Control characters in the value (a newline inside an option) are
    /// escaped, so the message stays on one line; a number's long decimal
    /// expansion is printed in exponent form, as a user types it (`1e308`,
    /// not its 309 digits).
    pub fn param(
        name: impl Into<String>,
        value: impl std::fmt::Display,
        expected: impl Into<String>,
    ) -> Self {
        let name = name.into();
        let mut value = value.to_string();
        // `const:X` gives every owner the value X: a secret, never shown
        // (as a release's `value` is not), whatever the face or the fault.
        if name == "values" && value.trim_start().starts_with("const:") {
            value = "const:(not shown)".into();
        }
        Error::Parameter {
            name,
            value: short(one_line(value)),
            expected: short(one_line(expected.into())),
        }
    }

    /// Builds an [`Error::Input`] for `file` at 1-based `line`. Control
    /// characters in the message (quoted file content) are escaped, so the
    /// message stays on one line.
    pub fn input(file: impl Into<PathBuf>, line: usize, message: impl Into<String>) -> Self {
        Error::Input {
            file: file.into(),
            line,
            message: one_line(message.into()),
        }
    }

    /// Builds an [`Error::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            error: source,
        }
    }

    /// Builds an [`Error::OutputExists`] for `path`.
    pub fn output_exists(path: impl Into<PathBuf>, why: crate::util::Refusal) -> Self {
        let another_run = why == crate::util::Refusal::AnotherRun;
        Error::OutputExists {
            path: path.into(),
            message: if another_run {
                why.to_string()
            } else {
                format!("{why} (add `force` to replace it)")
            },
            another_run,
        }
    }

    /// True for errors caused by how the program was called (exit code 2).
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Error::Parameter { .. }
                | Error::Budget { .. }
                | Error::OutputExists {
                    another_run: false,
                    ..
                }
        )
    }
}

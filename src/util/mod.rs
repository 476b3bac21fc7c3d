//! Leaf utilities that know nothing of privdiffuse. Nothing here imports the
//! rest of the crate, so every layer may use it without pulling in a layer
//! above.
//!
//! * [`num`] — numbers as text in Rust's shortest round-trip form (`15`,
//!   `0.0000001`, `inf`): what every CSV and JSON file writes, so that a
//!   number read back is the number written, bit for bit.
//! * [`table`] — CSV files with one serde row type each ([`CsvRow`]): the
//!   writers serialise the row type, the figures and
//!   [`SimOutput::rows`](crate::sim::SimOutput::rows) read the same type back, so
//!   each file's format exists once; errors say `file:line: column …`.
//! * [`lines`] — reading text with bounds: lines of at most 1 MiB, whole
//!   files up to a size, so no input can make a reader allocate without limit.
//! * [`atomic`] — files and directories that appear only when complete
//!   (written under a temporary name, renamed into place; removed if the
//!   call fails or is interrupted).
//! * [`lock`] — one writer at a time: an OS lock on the guarded file, or on
//!   `FILE.lock` beside it, removed on release (`FILE is in use by another
//!   run`).
//! * [`notes`] — warnings beside a result (standard error, or a face's sink).
//! * [`average`] — mean and median of a sample.
//! * [`space`] — free space of a file system (`statvfs`), for writers that
//!   check a projected output size before streaming.

pub mod atomic;
pub mod average;
mod file_error;
pub mod lines;
pub mod lock;
pub mod notes;
pub mod num;
pub mod space;
pub(crate) mod spec;
pub mod suggest;
pub mod table;

pub use atomic::{AtomicDir, AtomicFile, AtomicPair, AtomicPath, Existing, Refusal};
pub use file_error::{PathIoError, TableError};
pub use num::{fmt_f64, write_f64};
pub use table::CsvRow;

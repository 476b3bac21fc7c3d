//! The CSV writer as a [`RecordSink`]: an engine's typed rows become the
//! lines of one file of a run directory, in the format of
//! [`crate::util::table`] (the same row type reads them back). A large batch
//! (one chunk of owners) is formatted on every thread, then written in order.

use super::run_dir::{create, finish, shown};
use super::stream::CsvStream;
use crate::error::Result;
use crate::sink::RecordSink;
use crate::util::AtomicDir;
use crate::util::table::{self, CsvRow};
use std::fs::File;
use std::io::BufWriter;

/// One CSV file of a run directory, taking rows of type `R`.
pub struct CsvSink<'d, R> {
    dir: &'d AtomicDir,
    name: &'static str,
    rows: CsvStream<BufWriter<File>, R>,
}

impl<'d, R: CsvRow> CsvSink<'d, R> {
    /// Creates `name` in `dir` with the header of `R` (vectors of `n`
    /// columns; `leave_out`: optional columns this file does not have);
    /// `what` says what the rows are, for the message when a number cannot
    /// be written (e.g. "a row of the simulation's output").
    pub fn create(
        dir: &'d AtomicDir,
        name: &'static str,
        what: &'static str,
        n: usize,
        leave_out: &[&str],
    ) -> Result<Self> {
        let header = table::columns::<R>(n, leave_out);
        let rows = CsvStream::with_header(create(dir, name)?, shown(dir, name), what, header)?
            .noting(" (the values, the noise or their sums overflow f64)");
        Ok(CsvSink { dir, name, rows })
    }

    /// Writes what is buffered, flushes and syncs the file.
    pub fn finish(self) -> Result<()> {
        finish(self.dir, self.rows.into_inner()?, self.name)
    }
}

impl<R: CsvRow + Send + Sync> RecordSink<R> for CsvSink<'_, R> {
    fn record(&mut self, row: R) -> Result<()> {
        self.rows.record(row)
    }

    fn record_all(&mut self, rows: Vec<R>) -> Result<()> {
        self.rows.record_all(rows)
    }
}

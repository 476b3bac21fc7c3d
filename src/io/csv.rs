//! The CSV writer as a [`RecordSink`]: an engine's typed rows become the
//! lines of one file of a run directory, in the format of
//! [`crate::util::table`] (the same row type reads them back). A large batch
//! (one chunk of owners) is formatted on every thread, then written in order.

use super::run_dir::{create, finish, shown};
use crate::error::{Error, Result};
use crate::sink::RecordSink;
use crate::util::AtomicDir;
use crate::util::table::{self, CsvRow, Records};
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::marker::PhantomData;

/// Rows per piece when a batch is formatted in parallel.
const PIECE: usize = 2048;

/// One CSV file of a run directory, taking rows of type `R`.
pub struct CsvSink<'d, R> {
    dir: &'d AtomicDir,
    name: &'static str,
    /// What the rows are, for the message when a number cannot be written
    /// (e.g. "a row of the simulation's output").
    what: &'static str,
    out: BufWriter<File>,
    buf: Records,
    _rows: PhantomData<fn(R)>,
}

impl<'d, R: CsvRow> CsvSink<'d, R> {
    /// Creates `name` in `dir` with the header of `R` (vectors of `n`
    /// columns; `leave_out`: optional columns this file does not have).
    pub fn create(
        dir: &'d AtomicDir,
        name: &'static str,
        what: &'static str,
        n: usize,
        leave_out: &[&str],
    ) -> Result<Self> {
        let mut out = create(dir, name)?;
        let header = table::Writer::with_header(Vec::new(), table::columns::<R>(n, leave_out))
            .and_then(|h| h.into_inner())
            .map_err(|e| Error::io(shown(dir, name), e))?;
        out.write_all(&header)
            .map_err(|e| Error::io(shown(dir, name), e))?;
        Ok(CsvSink {
            dir,
            name,
            what,
            out,
            buf: Records::new(),
            _rows: PhantomData,
        })
    }

    /// Writes what is buffered, flushes and syncs the file.
    pub fn finish(mut self) -> Result<()> {
        self.drain()?;
        finish(self.dir, self.out, self.name)
    }

    fn row_error(&self, e: std::io::Error) -> Error {
        if e.kind() == std::io::ErrorKind::InvalidData {
            // A non-finite number where the format promises one: refused
            // before any file is committed.
            return Error::Numerical(format!(
                "{}: {e} (the values, the noise or their sums overflow f64)",
                self.what
            ));
        }
        Error::io(shown(self.dir, self.name), e)
    }

    fn drain(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            let r = self.out.write_all(self.buf.as_str().as_bytes());
            r.map_err(|e| Error::io(shown(self.dir, self.name), e))?;
            self.buf.clear();
        }
        Ok(())
    }
}

impl<R: CsvRow + Send + Sync> RecordSink<R> for CsvSink<'_, R> {
    fn record(&mut self, row: R) -> Result<()> {
        if let Err(e) = self.buf.push_row(&row) {
            return Err(self.row_error(e));
        }
        if self.buf.len() >= 1 << 16 {
            self.drain()?;
        }
        Ok(())
    }

    fn record_all(&mut self, rows: Vec<R>) -> Result<()> {
        if rows.len() < 2 * PIECE {
            return rows.into_iter().try_for_each(|r| self.record(r));
        }
        self.drain()?;
        let pieces: Vec<std::io::Result<Records>> = rows
            .par_chunks(PIECE)
            .map(|piece| {
                let mut text = Records::new();
                for (i, r) in piece.iter().enumerate() {
                    text.push_row(r)?;
                    if i == 0 {
                        // Rows of one file are about as long as the first.
                        text.reserve(text.len() * (piece.len() + piece.len() / 8));
                    }
                }
                Ok(text)
            })
            .collect();
        for piece in pieces {
            let text = piece.map_err(|e| self.row_error(e))?;
            let r = self.out.write_all(text.as_str().as_bytes());
            r.map_err(|e| Error::io(shown(self.dir, self.name), e))?;
        }
        Ok(())
    }
}

//! One CSV as a command's whole output: [`OutFile`] (standard output, a file
//! that appears only when complete, or a file with its sidecar as one
//! [`AtomicPair`]) and [`CsvStream`], the [`RecordSink`] that writes an
//! engine's rows to it in the format of [`crate::util::table`] (the header
//! from the row type; a large batch formatted on every thread, then written
//! in order). The run directories' files use [`super::csv::CsvSink`].

use crate::error::{Error, Result};
use crate::sink::RecordSink;
use crate::util::table::{self, CsvRow, Records};
use crate::util::{AtomicFile, AtomicPair, Existing};
use rayon::prelude::*;
use std::io::{self, BufWriter, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

/// Rows per piece when a batch is formatted in parallel.
const PIECE: usize = 2048;

/// Where a command's CSV goes.
pub(crate) enum OutFile {
    /// Standard output (no `out`, or `-`).
    Stdout(BufWriter<io::Stdout>),
    /// A file, renamed into place on [`OutFile::finish`].
    File(AtomicFile),
    /// A file and its sidecar (second), claimed and placed together.
    Pair(Box<AtomicPair>),
}

impl OutFile {
    /// `path` = `None` or `-` is standard output. An existing file is
    /// refused unless `force` (a new one is claimed at once); missing
    /// folders are created. With `sidecar`, a regular file (not a device
    /// such as `/dev/null`, nor a FIFO) gets the sidecar `sidecar(path)`,
    /// claimed with it.
    pub(crate) fn open(
        path: Option<&Path>,
        force: bool,
        sidecar: Option<fn(&Path) -> PathBuf>,
    ) -> Result<OutFile> {
        let Some(p) = path.filter(|p| p.as_os_str() != "-") else {
            return Ok(OutFile::Stdout(BufWriter::with_capacity(
                1 << 16,
                io::stdout(),
            )));
        };
        let existing = Existing::for_out(true, force);
        let regular = std::fs::metadata(p).map_or(true, |m| m.is_file());
        Ok(match sidecar.filter(|_| regular) {
            Some(side) => OutFile::Pair(Box::new(AtomicPair::create_with(p, side(p), existing)?)),
            None => OutFile::File(AtomicFile::create_with(p, existing)?),
        })
    }

    /// The output as messages name it.
    pub(crate) fn name(&mut self) -> PathBuf {
        match self {
            OutFile::Stdout(_) => PathBuf::from("<stdout>"),
            OutFile::File(f) => f.path().to_path_buf(),
            OutFile::Pair(p) => p.first().path().to_path_buf(),
        }
    }

    /// The sidecar, if any.
    pub(crate) fn sidecar(&mut self) -> Option<&mut AtomicFile> {
        match self {
            OutFile::Pair(p) => Some(p.second()),
            _ => None,
        }
    }

    /// Free bytes where the output goes: the file system of a file's
    /// folder, or of standard output when it is a regular file; `None`
    /// when unknown (a terminal, a pipe, a device).
    pub(crate) fn free_bytes(&mut self) -> Option<(PathBuf, u64)> {
        let dest = match self {
            OutFile::Stdout(_) => {
                return crate::util::space::stdout_free_bytes()
                    .map(|b| (PathBuf::from("<stdout>"), b));
            }
            OutFile::File(f) => f.path().to_path_buf(),
            OutFile::Pair(p) => p.first().path().to_path_buf(),
        };
        if crate::util::atomic::is_special(&dest) {
            return None;
        }
        let folder = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        crate::util::space::free_bytes(&folder).map(|b| (folder, b))
    }

    /// Flushes; a file (or pair) is renamed into place.
    pub(crate) fn finish(self) -> Result<()> {
        match self {
            OutFile::Stdout(mut w) => w.flush().map_err(|e| Error::io("<stdout>", e)),
            OutFile::File(f) => Ok(f.commit()?),
            OutFile::Pair(p) => Ok(p.commit()?),
        }
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            OutFile::Stdout(w) => w.write(buf),
            OutFile::File(f) => f.write(buf),
            OutFile::Pair(p) => p.first().write(buf),
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            OutFile::Stdout(w) => w.write_all(buf),
            OutFile::File(f) => f.write_all(buf),
            OutFile::Pair(p) => p.first().write_all(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            OutFile::Stdout(w) => w.flush(),
            OutFile::File(f) => f.flush(),
            OutFile::Pair(p) => p.first().flush(),
        }
    }
}

/// Rows of type `R` written as CSV to `W`, header first.
pub(crate) struct CsvStream<W, R> {
    out: W,
    name: PathBuf,
    /// What the rows are, for the message when a number cannot be written.
    what: &'static str,
    /// Said after that message (why a number may not be finite).
    note: &'static str,
    buf: Records,
    _rows: PhantomData<fn(R)>,
}

impl<W: Write + Send, R: CsvRow> CsvStream<W, R> {
    /// Writes the header of `R` (vectors of `n` columns) to `out`; `name`
    /// names the output in messages.
    pub(crate) fn new(out: W, name: PathBuf, what: &'static str, n: usize) -> Result<Self> {
        Self::with_header(out, name, what, table::columns::<R>(n, &[]))
    }

    /// Writes `header` to `out` (see [`CsvStream::new`]).
    pub(crate) fn with_header(
        mut out: W,
        name: PathBuf,
        what: &'static str,
        header: Vec<String>,
    ) -> Result<Self> {
        let header = table::Writer::with_header(Vec::new(), header)
            .and_then(|h| h.into_inner())
            .map_err(|e| Error::io(&name, e))?;
        out.write_all(&header).map_err(|e| Error::io(&name, e))?;
        Ok(CsvStream {
            out,
            name,
            what,
            note: "",
            buf: Records::new(),
            _rows: PhantomData,
        })
    }

    /// Says `note` after the message of a number that cannot be written.
    pub(crate) fn noting(self, note: &'static str) -> Self {
        CsvStream { note, ..self }
    }

    /// Writes what is buffered and returns the destination.
    pub(crate) fn into_inner(mut self) -> Result<W> {
        self.drain()?;
        Ok(self.out)
    }

    fn row_error(&self, e: io::Error) -> Error {
        if e.kind() == io::ErrorKind::InvalidData {
            // A non-finite number where the format promises one: refused
            // before any file is committed.
            return Error::Numerical(format!("{}: {e}{}", self.what, self.note));
        }
        Error::io(&self.name, e)
    }

    fn drain(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            let r = self.out.write_all(self.buf.as_str().as_bytes());
            r.map_err(|e| Error::io(&self.name, e))?;
            self.buf.clear();
        }
        Ok(())
    }
}

impl<W: Write + Send, R: CsvRow + Send + Sync> RecordSink<R> for CsvStream<W, R> {
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
        let pieces: Vec<io::Result<Records>> = rows
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
            r.map_err(|e| Error::io(&self.name, e))?;
        }
        Ok(())
    }
}

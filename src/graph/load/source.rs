use super::*;

/// Decoded bytes read past a malformed line of a gzip file to tell a
/// corrupt stream (whose garbage produced the bad line) from bad content.
pub(super) const GZIP_CHECK_BYTES: u64 = 16 << 20;

/// Counts the bytes read from the file (the offset of a gzip error, the
/// share of the file read so far).
pub(super) struct Counting<R> {
    pub(super) inner: R,
    pub(super) read: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(out)?;
        self.read += n as u64;
        Ok(n)
    }
}

pub(super) type Raw = BufReader<Counting<File>>;

pub(super) enum Reader {
    Plain(Raw),
    Gzip(BufReader<flate2::bufread::MultiGzDecoder<Raw>>),
}

/// An input file opened for line reading, gzip-decoded if needed.
pub(super) struct Source<'p> {
    pub(super) reader: Reader,
    pub(super) path: &'p Path,
    /// Length of a regular file.
    pub(super) size: Option<u64>,
    /// Lines read so far (the 1-based number of the last one).
    pub(super) line: usize,
    /// The gzip stream failed (its error is already reported).
    pub(super) broken: bool,
}

pub(super) fn open(path: &Path) -> Result<Source<'_>> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let size = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    let mut raw = BufReader::with_capacity(
        1 << 18,
        Counting {
            inner: file,
            read: 0,
        },
    );
    let head = raw.fill_buf().map_err(|e| Error::io(path, e))?;
    let magic = head.len() >= 2 && head[0] == 0x1f && head[1] == 0x8b;
    let by_name = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    let reader = if magic || by_name {
        let dec = flate2::bufread::MultiGzDecoder::new(raw);
        Reader::Gzip(BufReader::with_capacity(1 << 18, dec))
    } else {
        Reader::Plain(raw)
    };
    Ok(Source {
        reader,
        path,
        size,
        line: 0,
        broken: false,
    })
}

impl Source<'_> {
    pub(super) fn is_gzip(&self) -> bool {
        matches!(self.reader, Reader::Gzip(_))
    }

    pub(super) fn raw(&self) -> &Raw {
        match &self.reader {
            Reader::Plain(r) => r,
            Reader::Gzip(r) => r.get_ref().get_ref(),
        }
    }

    /// Bytes of the file consumed so far (compressed bytes for gzip).
    pub(super) fn consumed(&self) -> u64 {
        let raw = self.raw();
        raw.get_ref().read - raw.buffer().len() as u64
    }

    /// The share of a regular file consumed so far.
    pub(super) fn fraction(&self) -> Option<f64> {
        let size = self.size.filter(|&s| s > 0)?;
        Some((self.consumed() as f64 / size as f64).clamp(0.0, 1.0))
    }

    /// Next line (without its `\n`) into `buf`; `false` at end of input.
    #[inline]
    pub(super) fn next_line(&mut self, buf: &mut Vec<u8>) -> Result<bool> {
        let r = match &mut self.reader {
            Reader::Plain(r) => lines::read_line(r, buf, MAX_LINE),
            Reader::Gzip(r) => lines::read_line(r, buf, MAX_LINE),
        };
        let line = self.line + 1;
        match r {
            Ok(LineRead::Eof) => Ok(false),
            Ok(LineRead::Line) => {
                if line > MAX_LINES {
                    return Err(Error::input(
                        self.path,
                        line,
                        format!(
                            "more than {MAX_LINES} lines: expected a file of at most that many lines (an endless stream?)"
                        ),
                    ));
                }
                self.line = line;
                // A UTF-8 byte-order mark (spreadsheet CSV exports) is not part of the first id.
                if line == 1 && buf.starts_with(b"\xEF\xBB\xBF") {
                    buf.drain(..3);
                }
                Ok(true)
            }
            Ok(LineRead::TooLong) => Err(Error::input(
                self.path,
                line,
                lines::too_long_message(MAX_LINE, Some(&buf[..buf.len().min(4096)])),
            )),
            Err(e) if self.is_gzip() => {
                self.broken = true;
                Err(self.gzip_error(line, &e))
            }
            Err(e) => Err(Error::io(self.path, e)),
        }
    }

    pub(super) fn gzip_error(&self, line: usize, e: &std::io::Error) -> Error {
        let at = match self.size {
            Some(size) => format!(
                ", detected at compressed byte {} of {size}",
                self.consumed()
            ),
            None => format!(", detected at compressed byte {}", self.consumed()),
        };
        Error::input(
            self.path,
            line,
            format!(
                "gzip data is truncated or corrupt ({e}){at}: expected a complete gzip file (re-download or re-compress it)"
            ),
        )
    }

    /// The error to report for `e`, met while reading this source: when the
    /// content of a gzip file was malformed, the stream is decoded a little
    /// further, and a corrupt stream is reported instead (garbage decoded
    /// from a damaged file is not the file's content).
    pub(super) fn explain(&mut self, e: Error) -> Error {
        if !self.is_gzip() || self.broken || !matches!(e, Error::Input { .. }) {
            return e;
        }
        let line = self.line;
        let Reader::Gzip(r) = &mut self.reader else {
            return e;
        };
        let mut left = GZIP_CHECK_BYTES;
        while left > 0 {
            match r.fill_buf() {
                Ok([]) => return e,
                Ok(b) => {
                    let n = b.len().min(left as usize);
                    r.consume(n);
                    left -= n as u64;
                }
                Err(io) => return self.gzip_error(line, &io),
            }
        }
        e
    }
}

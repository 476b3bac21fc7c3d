//! Reading text with bounds: a line is at most [`MAX_LINE`] bytes, a whole
//! file read into memory at most the size its caller allows. Input that breaks
//! a bound (`/dev/zero`, a gzip bomb holding one huge line, an endless FIFO)
//! ends with an error naming the file and the line, after reading no more
//! than the bound — never with memory growing until the allocator aborts.
//!
//! Leaf module: it knows `std` and `memchr`, nothing of privdiffuse.

use super::file_error::PathIoError;
use super::file_error::TableError;
use std::io::{self, BufRead, Read};
use std::path::Path;

/// The longest line any reader accepts, in bytes (1 MiB): far above any
/// edge list, id list or CSV row the tool reads or writes.
pub const MAX_LINE: usize = 1 << 20;

/// The most lines a file may have: an endless FIFO of valid lines ends here.
pub const MAX_LINES: usize = u32::MAX as usize;

/// What [`read_line`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineRead {
    /// End of input; nothing was read.
    Eof,
    /// A line (its `\n` removed) is in the buffer.
    Line,
    /// The line is longer than the maximum: the buffer holds its first
    /// `max` bytes, the rest is unread.
    TooLong,
}

/// Reads the next line of `r` into `buf` (cleared first; the `\n` is
/// removed, a `\r` before it kept), reading at most `max` bytes of it.
pub fn read_line<R: BufRead + ?Sized>(
    r: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<LineRead> {
    buf.clear();
    let mut any = false;
    loop {
        let avail = match r.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok(if any { LineRead::Line } else { LineRead::Eof });
        }
        any = true;
        let room = max - buf.len();
        let window = &avail[..avail.len().min(room + 1)];
        match memchr::memchr(b'\n', window) {
            Some(i) => {
                buf.extend_from_slice(&window[..i]);
                r.consume(i + 1);
                return Ok(LineRead::Line);
            }
            None if window.len() > room => {
                buf.extend_from_slice(&window[..room]);
                r.consume(room);
                return Ok(LineRead::TooLong);
            }
            None => {
                let n = window.len();
                buf.extend_from_slice(window);
                r.consume(n);
            }
        }
    }
}

/// The lines of a text file, each at most [`MAX_LINE`] bytes, at most
/// [`MAX_LINES`] of them, each valid UTF-8 (a `\r` before the `\n` removed,
/// as [`str::lines`] does).
pub struct TextLines {
    reader: io::BufReader<std::fs::File>,
    file: std::path::PathBuf,
    buf: Vec<u8>,
    line: usize,
}

impl TextLines {
    /// Opens `file`.
    pub fn open(file: &Path) -> Result<TextLines, TableError> {
        let f = std::fs::File::open(file).map_err(|e| TableError::Io(PathIoError::io(file, e)))?;
        Ok(TextLines {
            reader: io::BufReader::with_capacity(1 << 16, f),
            file: file.to_path_buf(),
            buf: Vec::new(),
            line: 0,
        })
    }

    /// The next line and its 1-based number; `None` at the end.
    pub fn next_line(&mut self) -> Result<Option<(usize, &str)>, TableError> {
        let r = read_line(&mut self.reader, &mut self.buf, MAX_LINE)
            .map_err(|e| TableError::Io(PathIoError::io(&self.file, e)))?;
        let line = self.line + 1;
        let input = |message: String| TableError::Input {
            file: self.file.clone(),
            line,
            message,
        };
        match r {
            LineRead::Eof => return Ok(None),
            LineRead::TooLong => {
                return Err(input(too_long_message(MAX_LINE, Some(&self.buf[..4096]))));
            }
            LineRead::Line if line > MAX_LINES => {
                return Err(input(format!(
                    "more than {MAX_LINES} lines: expected a file of at most that many lines (an endless stream?)"
                )));
            }
            LineRead::Line => {}
        }
        self.line = line;
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        match std::str::from_utf8(&self.buf) {
            Ok(s) => Ok(Some((line, s))),
            Err(e) => Err(input(format!(
                "bytes that are not UTF-8 at column {}: expected a text file",
                e.valid_up_to() + 1
            ))),
        }
    }
}

/// A line longer than the bound, as an I/O error's payload (see
/// [`LineLimit`]); [`line_error`] turns it into a message with the line.
#[derive(Debug)]
pub struct LineTooLong {
    /// 1-based line number.
    pub line: usize,
    /// The bound in bytes.
    pub max: usize,
}

impl std::fmt::Display for LineTooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {} is longer than {}", self.line, human(self.max))
    }
}

impl std::error::Error for LineTooLong {}

/// A reader that fails with [`LineTooLong`] once a line exceeds `max` bytes,
/// and with [`FileTooLarge`] past `max_total` bytes: the bounds for readers
/// that do their own line splitting (the csv crate).
pub struct LineLimit<R> {
    inner: R,
    max: usize,
    max_total: u64,
    /// Bytes since the last `\n`.
    run: usize,
    total: u64,
    line: usize,
}

impl<R: Read> LineLimit<R> {
    /// Lines of at most `max` bytes, at most `max_total` bytes in all.
    pub fn new(inner: R, max: usize, max_total: u64) -> Self {
        LineLimit {
            inner,
            max,
            max_total,
            run: 0,
            total: 0,
            line: 1,
        }
    }
}

impl<R: Read> Read for LineLimit<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(out)?;
        let chunk = &out[..n];
        self.total += n as u64;
        if self.total > self.max_total {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                FileTooLarge {
                    line: self.line,
                    max: self.max_total,
                },
            ));
        }
        let mut start = 0;
        for i in memchr::memchr_iter(b'\n', chunk) {
            if self.run + (i - start) > self.max {
                break;
            }
            self.run = 0;
            self.line += 1;
            start = i + 1;
        }
        self.run += n - start;
        if self.run > self.max {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                LineTooLong {
                    line: self.line,
                    max: self.max,
                },
            ));
        }
        Ok(n)
    }
}

/// A file larger than its reader allows, as an I/O error's payload.
#[derive(Debug)]
pub struct FileTooLarge {
    /// 1-based line reached at the bound.
    pub line: usize,
    /// The bound in bytes.
    pub max: u64,
}

impl std::fmt::Display for FileTooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the file is larger than {}", human(self.max as usize))
    }
}

impl std::error::Error for FileTooLarge {}

/// The error for an I/O failure on `file`: a [`LineTooLong`] or
/// [`FileTooLarge`] payload becomes a message naming the line, anything
/// else stays an I/O error.
pub fn line_error(file: &Path, e: io::Error) -> TableError {
    if let Some(t) = e.get_ref().and_then(|x| x.downcast_ref::<LineTooLong>()) {
        return TableError::Input {
            file: file.to_path_buf(),
            line: t.line,
            message: too_long_message(t.max, None),
        };
    }
    if let Some(t) = e.get_ref().and_then(|x| x.downcast_ref::<FileTooLarge>()) {
        return TableError::Input {
            file: file.to_path_buf(),
            line: t.line,
            message: format!("{t}: expected a smaller file (is it the right one?)"),
        };
    }
    TableError::Io(PathIoError::io(file, e))
}

/// The message for a line over `max` bytes; `start` is its beginning, to
/// say whether it looks binary.
pub fn too_long_message(max: usize, start: Option<&[u8]>) -> String {
    let binary = start.is_some_and(|s| s.contains(&0) || std::str::from_utf8(s).is_err());
    format!(
        "line longer than {}{}: expected a text file with lines of at most that length",
        human(max),
        if binary {
            " holding binary data (NUL bytes or bytes that are not UTF-8)"
        } else {
            ""
        }
    )
}

/// Reads all of `file` as UTF-8 text, refusing a file larger than `max`
/// bytes after reading no more than `max + 1` (a FIFO or `/dev/zero` too).
pub fn read_text(file: &Path, max: u64) -> Result<String, TableError> {
    let f = std::fs::File::open(file).map_err(|e| TableError::Io(PathIoError::io(file, e)))?;
    let mut bytes = Vec::new();
    f.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| TableError::Io(PathIoError::io(file, e)))?;
    let line_at = |end: usize| 1 + memchr::memchr_iter(b'\n', &bytes[..end]).count();
    if bytes.len() as u64 > max {
        return Err(TableError::Input {
            file: file.to_path_buf(),
            line: line_at(bytes.len()),
            message: format!(
                "the file is larger than {}: expected a smaller file (is it the right one?)",
                human(max as usize)
            ),
        });
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        TableError::Input {
            file: file.to_path_buf(),
            line: 1 + memchr::memchr_iter(b'\n', &bytes[..at]).count(),
            message: format!("bytes that are not UTF-8 at byte {at}: expected a text file"),
        }
    })
}

/// The 1-based line of byte offset `at` in `text`.
pub fn line_of_offset(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..at]).count()
}

/// Escapes control characters (`\n`, `\r`, `\t`, `\u{1b}`, …) and Unicode
/// line separators so that `text` prints on one line.
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    let special = |c: char| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}');
    if !text.chars().any(special) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if special(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Bytes as `1 MiB`, `16 MiB`, `512 B` (powers of 1024).
fn human(bytes: usize) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut x = bytes as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if x.fract() == 0.0 {
        format!("{x} {}", UNITS[u])
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[u8], max: usize) -> Vec<(LineRead, Vec<u8>)> {
        let mut r = io::BufReader::with_capacity(3, text);
        let mut out = Vec::new();
        let mut buf = Vec::new();
        loop {
            let k = read_line(&mut r, &mut buf, max).unwrap();
            if k == LineRead::Eof {
                return out;
            }
            out.push((k, buf.clone()));
            if k == LineRead::TooLong {
                return out;
            }
        }
    }

    #[test]
    fn lines_are_split_and_bounded() {
        let l = lines(b"ab\r\n\ncdef\ngh", 4);
        let texts: Vec<&[u8]> = l.iter().map(|(_, b)| b.as_slice()).collect();
        assert_eq!(texts, [&b"ab\r"[..], b"", b"cdef", b"gh"]);
        assert!(l.iter().all(|(k, _)| *k == LineRead::Line));
        let l = lines(b"ab\nabcdefgh\n", 4);
        assert_eq!(l[1], (LineRead::TooLong, b"abcd".to_vec()));
        // A line of exactly `max` bytes is fine, with or without its newline.
        assert_eq!(lines(b"abcd", 4), [(LineRead::Line, b"abcd".to_vec())]);
    }

    #[test]
    fn line_limit_counts_lines_and_bytes() {
        let mut s = String::new();
        let r = LineLimit::new(&b"a\nbb\nccccc\nd\n"[..], 4, 100).read_to_string(&mut s);
        let e = line_error(Path::new("f"), r.unwrap_err()).to_string();
        assert_eq!(
            e,
            "f:3: line longer than 4 B: expected a text file with lines of at most that length"
        );
        let mut s = String::new();
        assert!(
            LineLimit::new(&b"a\nbb\ncccc\n"[..], 4, 100)
                .read_to_string(&mut s)
                .is_ok()
        );
        let r = LineLimit::new(&b"a\nbb\ncccc\n"[..], 4, 5).read_to_string(&mut s);
        let e = line_error(Path::new("f"), r.unwrap_err()).to_string();
        assert!(e.contains("larger than 5 B"), "{e}");
    }

    #[test]
    fn text_lines_strip_line_ends_and_check_text() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let p = dir.join("a.txt");
        std::fs::write(&p, b"a\r\nb\n\nc\xff\n").unwrap();
        let mut t = TextLines::open(&p).unwrap();
        assert_eq!(t.next_line().unwrap(), Some((1, "a")));
        assert_eq!(t.next_line().unwrap(), Some((2, "b")));
        assert_eq!(t.next_line().unwrap(), Some((3, "")));
        let e = t.next_line().unwrap_err().to_string();
        assert!(
            e.ends_with("a.txt:4: bytes that are not UTF-8 at column 2: expected a text file"),
            "{e}"
        );
        let z = TextLines::open(Path::new("/dev/zero"));
        if let Ok(mut z) = z {
            let e = z.next_line().unwrap_err().to_string();
            assert!(
                e.starts_with("/dev/zero:1: line longer than 1 MiB holding binary data"),
                "{e}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn one_line_escapes_control_characters() {
        assert_eq!(one_line("a\nb\rc\td\u{1b}"), "a\\nb\\rc\\td\\u{1b}");
        assert!(matches!(one_line("plain é"), std::borrow::Cow::Borrowed(_)));
    }
}

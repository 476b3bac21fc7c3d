use super::*;

/// Why a row could not be written.
#[derive(Debug)]
pub(super) struct RowError(pub(super) String);

impl std::fmt::Display for RowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl ser::Error for RowError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        RowError(msg.to_string())
    }
}

/// Whether a row allows a non-finite value in a field ([`CsvRow::allows`]).
pub(super) type Allow<'a> = dyn Fn(&str, f64) -> bool + 'a;

/// The serializer of one record: appends cells to `text`; with `allow`,
/// refuses non-finite numbers it does not allow in the current `field`.
pub(super) struct Cells<'a> {
    pub(super) text: &'a mut String,
    /// The numbers this text's rows wrote last (none when checking a row).
    pub(super) memo: Option<&'a mut NumMemo>,
    pub(super) count: usize,
    pub(super) allow: Option<&'a Allow<'a>>,
    pub(super) field: &'static str,
    /// 1-based element of the vector `field` being written (0: not a vector).
    pub(super) elem: usize,
    /// [`CsvRow::VECTOR_PARTS`] of the row (names of the vector's parts).
    pub(super) parts: &'static [&'static str],
    /// Length of the vector being written.
    pub(super) seq_len: usize,
    /// Largest magnitude of a finite number (checking readers only).
    pub(super) bound: f64,
}

impl Cells<'_> {
    #[inline]
    pub(super) fn start(&mut self) {
        if self.count > 0 {
            self.text.push(',');
        }
        self.count += 1;
    }

    /// An integer cell (`itoa`: `Display`'s digits without the formatter).
    #[inline]
    pub(super) fn integer(&mut self, x: impl itoa::Integer) -> Result<(), RowError> {
        self.start();
        self.text.push_str(itoa::Buffer::new().format(x));
        Ok(())
    }

    #[inline]
    pub(super) fn display(&mut self, x: impl std::fmt::Display) -> Result<(), RowError> {
        self.start();
        write!(self.text, "{x}").map_err(|e| RowError(e.to_string()))
    }
}

/// The column of element `elem` (1-based; 0: not a vector) of `field`, a
/// vector of `seq_len` numbers split into `parts` when there are several.
pub(super) fn column_name(field: &str, elem: usize, parts: &[&str], seq_len: usize) -> String {
    if elem > 0 && !parts.is_empty() && seq_len >= parts.len() {
        let n = seq_len / parts.len();
        let k = ((elem - 1) / n).min(parts.len() - 1);
        format!("{}{}", parts[k], elem - k * n)
    } else if elem > 0 {
        format!("{field}{elem}")
    } else {
        field.to_string()
    }
}

/// Appends `s` as one CSV field, quoted if it holds a comma, a quote or a
/// line break (quotes doubled) — the one quoting rule of every file.
pub fn push_field(out: &mut String, s: &str) {
    if s.bytes().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r')) {
        out.push('"');
        for (i, part) in s.split('"').enumerate() {
            if i > 0 {
                out.push_str("\"\"");
            }
            out.push_str(part);
        }
        out.push('"');
    } else {
        out.push_str(s);
    }
}

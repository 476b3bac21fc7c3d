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

impl From<RowError> for io::Error {
    /// `InvalidData` for a non-finite number a row does not allow, else `Other`.
    fn from(e: RowError) -> io::Error {
        let kind = if e.0.contains("expected a finite number") {
            io::ErrorKind::InvalidData
        } else {
            io::ErrorKind::Other
        };
        io::Error::new(kind, e)
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

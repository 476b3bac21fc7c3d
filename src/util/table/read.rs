use super::flatten::{Check, Flatten};
use super::*;

/// The cells of one line of CSV text (quotes removed, `""` → `"`).
pub fn cells(line: &str) -> Vec<String> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(line.as_bytes());
    let mut rec = csv::StringRecord::new();
    match r.read_record(&mut rec) {
        Ok(true) => rec.iter().map(String::from).collect(),
        _ => Vec::new(),
    }
}

pub(super) fn csv_error(file: &Path, e: csv::Error) -> TableError {
    let line = e.position().map_or(0, |p| p.line() as usize);
    match e.into_kind() {
        csv::ErrorKind::Io(io) => crate::util::lines::line_error(file, io),
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => input(
            file,
            line,
            format!("expected {expected_len} fields (as in the header), found {len}"),
        ),
        csv::ErrorKind::Utf8 { err, .. } => input(file, line, format!("invalid UTF-8: {err}")),
        other => input(file, line, format!("malformed CSV: {other:?}")),
    }
}

/// Deserialises `record` (its cells in the order of `T`'s fields, the
/// vector last) as a `T`; `names` are the columns of those cells, for
/// messages about `file` at `line`.
pub fn decode<T: DeserializeOwned>(
    file: &Path,
    line: usize,
    names: &[String],
    record: &csv::StringRecord,
) -> Result<T, TableError> {
    record.deserialize(None).map_err(|e| {
        let csv::ErrorKind::Deserialize { err, .. } = e.kind() else {
            return input(file, line, format!("{e}"));
        };
        let k = err.field().unwrap_or(0) as usize;
        let name = names.get(k).map_or("?", String::as_str);
        let found = record.get(k).unwrap_or("");
        let message = match err.kind() {
            // A number column may hold a secret (an owner's value, an
            // answer): its cell is never shown.
            csv::DeserializeErrorKind::ParseFloat(_) => {
                format!("column '{name}': expected a number (the cell is not shown)")
            }
            csv::DeserializeErrorKind::ParseInt(_) => {
                format!("column '{name}': expected a non-negative integer, found '{found}'")
            }
            other => format!("column '{name}': {other}"),
        };
        input(file, line, message)
    })
}

/// A CSV table with a header, open for reading: a file ([`Reader::open`],
/// fields trimmed, as people edit files) or text in memory
/// ([`Reader::from_text`], fields exactly as written).
pub struct Reader<R = LineLimit<std::fs::File>> {
    file: PathBuf,
    rdr: csv::Reader<R>,
    header: csv::StringRecord,
    /// Largest magnitude of a finite number [`Reader::rows`] accepts.
    bound: f64,
    /// Most data rows read, and why ([`Reader::at_most`]).
    max_rows: Option<(usize, String)>,
}

impl Reader {
    /// Opens `file` and reads its header. Lines are at most
    /// [`MAX_LINE`](crate::util::lines::MAX_LINE) bytes.
    pub fn open(file: &Path) -> Result<Reader, TableError> {
        Reader::open_limited(file, u64::MAX)
    }

    /// As [`Reader::open`], refusing a file of more than `max_bytes`.
    pub fn open_limited(file: &Path, max_bytes: u64) -> Result<Reader, TableError> {
        let f = std::fs::File::open(file).map_err(|e| TableError::Io(PathIoError::io(file, e)))?;
        let rdr = csv::ReaderBuilder::new()
            .has_headers(true)
            .trim(csv::Trim::All)
            .from_reader(LineLimit::new(f, crate::util::lines::MAX_LINE, max_bytes));
        Reader::with(file.to_path_buf(), rdr)
    }
}

impl<'a> Reader<&'a [u8]> {
    /// Reads CSV `text` (header first) without trimming its fields, so that
    /// text this module wrote reads back exactly; `name` stands for the file
    /// in messages.
    pub fn from_text(name: impl Into<PathBuf>, text: &'a str) -> Result<Self, TableError> {
        let rdr = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(text.as_bytes());
        Reader::with(name.into(), rdr)
    }
}

impl<R: io::Read> Reader<R> {
    pub(super) fn with(file: PathBuf, mut rdr: csv::Reader<R>) -> Result<Self, TableError> {
        let header = rdr.headers().map_err(|e| csv_error(&file, e))?.clone();
        Ok(Reader {
            file,
            rdr,
            header,
            bound: f64::INFINITY,
            max_rows: None,
        })
    }

    /// Every row as a `T` (see [`Reader::rows`]).
    pub fn collect<T: CsvRow>(self) -> Result<Vec<T>, TableError> {
        let mut out = Vec::new();
        self.rows(&[], |_, row| {
            out.push(row);
            Ok::<_, TableError>(())
        })?;
        Ok(out)
    }

    /// Refuses finite numbers of magnitude above `bound` as well (e.g. what a
    /// figure cannot place on an axis).
    pub fn within(mut self, bound: f64) -> Self {
        self.bound = bound;
        self
    }

    /// Refuses a file of more than `rows` data rows: reading stops at the
    /// first row beyond, with an error naming its line, the cap and `why`
    /// (e.g. what the cap protects).
    pub fn at_most(mut self, rows: usize, why: impl Into<String>) -> Self {
        self.max_rows = Some((rows, why.into()));
        self
    }

    /// The header's column names.
    pub fn header(&self) -> &csv::StringRecord {
        &self.header
    }

    /// Whether the header has `column`.
    pub fn has(&self, column: &str) -> bool {
        self.header.iter().any(|h| h == column)
    }

    /// How many columns `{name}1, {name}2, …` the header has.
    pub fn vector_width(&self, name: &str) -> usize {
        let mut n = 0;
        while self.has(&format!("{name}{}", n + 1)) {
            n += 1;
        }
        n
    }

    /// Calls `each(line, record)` per data row.
    pub fn records<E: From<TableError>>(
        mut self,
        mut each: impl FnMut(usize, &csv::StringRecord) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut rec = csv::StringRecord::new();
        let mut count = 0usize;
        loop {
            match self.rdr.read_record(&mut rec) {
                Ok(false) => return Ok(()),
                Ok(true) => {
                    let line = rec.position().map_or(0, |p| p.line() as usize);
                    count += 1;
                    if let Some((max, why)) = &self.max_rows
                        && count > *max
                    {
                        return Err(input(
                            &self.file,
                            line,
                            format!("more than {max} rows: {why}"),
                        )
                        .into());
                    }
                    each(line, &rec)?;
                }
                Err(e) => return Err(csv_error(&self.file, e).into()),
            }
        }
    }

    /// Reads every row as a `T`, calling `each(line, row)`. `rename` maps a
    /// field to the column that holds it in this file (`owner` ← `sample`).
    pub fn rows<T: CsvRow, E: From<TableError>>(
        self,
        rename: &[(&str, &str)],
        mut each: impl FnMut(usize, T) -> Result<(), E>,
    ) -> Result<(), E> {
        let width = T::VECTOR.map_or(0, |v| {
            self.vector_width(T::VECTOR_PARTS.first().copied().unwrap_or(v))
        });
        let mut names = Vec::new();
        let mut idx = Vec::new();
        let mut required = Vec::new();
        for &f in fields::<T>() {
            let col = rename
                .iter()
                .find(|(field, _)| *field == f)
                .map_or(f, |(_, c)| c);
            if T::VECTOR == Some(f) {
                if width == 0 && T::OPTIONAL.contains(&f) {
                    continue;
                }
                if T::VECTOR_PARTS.is_empty() {
                    names.extend((1..=width.max(1)).map(|i| format!("{col}{i}")));
                    required.push(format!("{col}1..{col}n"));
                } else {
                    for p in T::VECTOR_PARTS {
                        names.extend((1..=width.max(1)).map(|i| format!("{p}{i}")));
                        required.push(format!("{p}1..{p}n"));
                    }
                }
            } else {
                names.push(col.to_string());
                if !T::OPTIONAL.contains(&f) {
                    required.push(col.to_string());
                }
            }
        }
        for name in &names {
            let at = self.header.iter().position(|h| h == name);
            let optional = T::OPTIONAL.iter().any(|&f| f == name);
            if at.is_none() && !optional {
                let found: Vec<&str> = self.header.iter().collect();
                return Err(input(
                    &self.file,
                    1,
                    format!(
                        "missing column '{name}': expected a header with {}, found '{}'",
                        required.join(","),
                        found.join(",")
                    ),
                )
                .into());
            }
            idx.push(at);
        }
        let file = self.file.clone();
        let bound = self.bound;
        let mut cells = csv::StringRecord::new();
        self.records(|line, rec| {
            cells.clear();
            for i in &idx {
                cells.push_field(i.and_then(|i| rec.get(i)).unwrap_or(""));
            }
            let row: T = decode(&file, line, &names, &cells)?;
            check_row(&file, line, &row, bound)?;
            each(line, row)
        })
    }
}

/// Checks a row read from `file` at `line` with the writers' promise:
/// non-finite numbers only where the format documents them
/// ([`CsvRow::allows`]), finite ones within ±`bound`.
pub fn check_row<T: CsvRow>(
    file: &Path,
    line: usize,
    row: &T,
    bound: f64,
) -> Result<(), TableError> {
    let allow = |f: &str, v: f64| row.allows(f, v);
    let mut check = Flatten::new(Check, Some(&allow), T::VECTOR_PARTS, bound);
    row.serialize(&mut check)
        .map_err(|e| input(file, line, e.0))
}

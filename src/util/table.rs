//! CSV files with one serde row type each: the type's field names are the
//! file's columns, in order, and the same type is what the writer serialises
//! and the reader deserialises, so a format exists once.
//!
//! * A trailing vector field (`v: Vec<f64>`) is written as columns
//!   `v1..vn` ([`CsvRow::VECTOR`]): records flatten sequences, but serde
//!   cannot name a sequence's elements, so headers come from [`columns`]
//!   (the field names, the vector expanded) and are never derived from a row.
//! * An optional column (`#[serde(skip_serializing_if = "Option::is_none")]`,
//!   listed in [`CsvRow::OPTIONAL`]) is left out of a file whose rows all
//!   lack it; a reader then reads it as `None`.
//! * Readers find columns by name (any order, extra columns ignored, so the
//!   writers may grow), accept any `n` of a vector, and report
//!   `file:line: column 'x': expected …, found '…'`.
//! * Writing goes through this module's own serde serializer ([`Records`]):
//!   floats in shortest round-trip form (the csv crate's serializer would
//!   write `15.0` and `1e-7`), [`push_field`]'s quoting, and the speed of
//!   hand-formatted text (`responses.csv` can have tens of millions of rows).
//!   Reading goes through the csv crate (`str::parse` for numbers).
//!
//! Leaf module: it knows serde and csv, nothing of privdiffuse.

use super::file_error::{PathIoError, TableError, input};
use super::lines::LineLimit;
use super::num::write_f64;
use serde::de::{self, DeserializeOwned, Visitor};
use serde::{Serialize, ser};
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

/// A row type of one CSV file.
pub trait CsvRow: Serialize + DeserializeOwned {
    /// The name of a last field holding a vector, written as the columns
    /// `{name}1..{name}n`.
    const VECTOR: Option<&'static str> = None;
    /// When not empty, the [`CsvRow::VECTOR`] field holds several vectors of
    /// one width `n`, concatenated: written as `{part}1..{part}n` for each
    /// part in turn (`u1..un,raw1..rawn,y1..yn`). A vector field listed in
    /// [`CsvRow::OPTIONAL`] reads as empty from a file without its columns.
    const VECTOR_PARTS: &'static [&'static str] = &[];
    /// Fields a file may lack (read as empty cells, i.e. `None`).
    const OPTIONAL: &'static [&'static str] = &[];
    /// Fields documented to hold `inf` (e.g. the distance of unreachable
    /// members). Every other number must be finite.
    const INFINITE: &'static [&'static str] = &[];
    /// Fields documented to hold `NaN` (e.g. a standard error from one
    /// owner). Every other number must be a number.
    const UNDEFINED: &'static [&'static str] = &[];

    /// Whether this row may hold the non-finite `value` in `field`: `+inf`
    /// in an [`CsvRow::INFINITE`] field, `NaN` in an [`CsvRow::UNDEFINED`]
    /// one. Row types whose rule depends on other fields (an empty
    /// coalition's statistics are all `NaN`) override it. Writers refuse
    /// other non-finite numbers ([`Records::push_row`]) and readers too
    /// ([`Reader::rows`]).
    fn allows(&self, field: &str, value: f64) -> bool {
        (value == f64::INFINITY && Self::INFINITE.contains(&field))
            || (value.is_nan() && Self::UNDEFINED.contains(&field))
    }
}

/// The message of a non-finite number in a field that promises one.
pub fn not_finite(field: &str, value: f64) -> String {
    format!("column '{field}': expected a finite number, found '{value}'")
}

/// The field names of a struct, as serde sees them (renames applied).
pub fn fields<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut names = FieldNames(&[]);
    let _ = T::deserialize(&mut names);
    names.0
}

/// A deserializer that only records the field list a struct asks for.
struct FieldNames(&'static [&'static str]);

impl<'de> de::Deserializer<'de> for &mut FieldNames {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        self.0 = fields;
        Err(de::Error::custom("field names recorded"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

/// The header of a file of `T` rows: its fields, the vector as `n` columns,
/// without the fields in `leave_out` (optional ones this file does not have).
pub fn columns<T: CsvRow>(n: usize, leave_out: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for &f in fields::<T>() {
        if leave_out.contains(&f) {
            continue;
        }
        if T::VECTOR == Some(f) {
            if T::VECTOR_PARTS.is_empty() {
                out.extend((1..=n).map(|i| format!("{f}{i}")));
            } else {
                for p in T::VECTOR_PARTS {
                    out.extend((1..=n).map(|i| format!("{p}{i}")));
                }
            }
        } else {
            out.push(f.to_string());
        }
    }
    out
}

/// Why a row could not be written.
#[derive(Debug)]
struct RowError(String);

impl std::fmt::Display for RowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RowError {}

impl ser::Error for RowError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        RowError(msg.to_string())
    }
}

/// CSV records as text in memory, each ending in `\n`. A row is anything
/// serde can flatten to a sequence of cells: a row struct, a tuple of cells
/// and rows, a slice of strings. Cells are quoted only when they hold a
/// comma, a quote or a line break (RFC 4180, quotes doubled), numbers are
/// written with `Display` (floats in shortest round-trip form: `15`,
/// `0.0000001`, `inf`, `NaN`), `None` and `()` as empty cells, unit enum
/// variants by name. Every record must have as many cells as the first.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(from = "String", into = "String")]
pub struct Records {
    text: String,
    width: Option<usize>,
}

impl From<String> for Records {
    fn from(text: String) -> Records {
        Records::from_text(text)
    }
}

impl From<Records> for String {
    fn from(r: Records) -> String {
        r.text
    }
}

impl Records {
    /// No records yet.
    pub fn new() -> Records {
        Records::default()
    }

    /// Records already formatted (each line a record ending in `\n`), e.g.
    /// received from another process.
    pub fn from_text(text: String) -> Records {
        Records { text, width: None }
    }

    /// Appends one record.
    #[inline]
    pub fn push<T: Serialize + ?Sized>(&mut self, row: &T) -> io::Result<()> {
        self.push_with(row, None, &[])
    }

    /// Appends one row of a file, refusing a non-finite number in a field
    /// that promises one ([`CsvRow::allows`]): an error of kind
    /// `InvalidData` naming the column, and nothing appended.
    #[inline]
    pub fn push_row<T: CsvRow>(&mut self, row: &T) -> io::Result<()> {
        self.push_with(row, Some(&|f, v| row.allows(f, v)), T::VECTOR_PARTS)
    }

    #[inline]
    fn push_with<T: Serialize + ?Sized>(
        &mut self,
        row: &T,
        allow: Option<&Allow<'_>>,
        parts: &'static [&'static str],
    ) -> io::Result<()> {
        let start = self.text.len();
        let mut cells = Cells {
            text: &mut self.text,
            count: 0,
            allow,
            field: "",
            elem: 0,
            bound: f64::INFINITY,
            parts,
            seq_len: 0,
        };
        let r = row.serialize(&mut cells);
        let count = cells.count;
        if let Err(e) = r {
            self.text.truncate(start);
            let kind = if e.0.contains("expected a finite number") {
                io::ErrorKind::InvalidData
            } else {
                io::ErrorKind::Other
            };
            return Err(io::Error::new(kind, e));
        }
        if *self.width.get_or_insert(count) != count {
            self.text.truncate(start);
            return Err(io::Error::other(format!(
                "a record of {count} fields after records of {}",
                self.width.unwrap_or(0)
            )));
        }
        if count == 1 && self.text.len() == start {
            // A lone empty cell would read as an empty line.
            self.text.push_str("\"\"");
        }
        self.text.push('\n');
        Ok(())
    }

    /// The text so far.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Bytes of text so far.
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// No text yet.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Forgets the text (the record width stays).
    pub fn clear(&mut self) {
        self.text.clear();
    }

    /// The text.
    pub fn into_string(self) -> String {
        self.text
    }
}

/// Writes records to `W` in blocks.
pub struct Writer<W: io::Write> {
    out: W,
    records: Records,
}

impl<W: io::Write> Writer<W> {
    /// A writer without header.
    pub fn new(out: W) -> Self {
        Writer {
            out,
            records: Records::new(),
        }
    }

    /// A writer that first writes `header`.
    pub fn with_header<I, S>(out: W, header: I) -> io::Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut w = Writer::new(out);
        let names: Vec<S> = header.into_iter().collect();
        let names: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
        w.records.push(&names)?;
        Ok(w)
    }

    /// Writes one row (see [`Records`]; non-finite numbers only where
    /// [`CsvRow::allows`] them).
    #[inline]
    pub fn row<T: CsvRow>(&mut self, row: &T) -> io::Result<()> {
        self.records.push_row(row)?;
        if self.records.len() >= 1 << 16 {
            self.out.write_all(self.records.as_str().as_bytes())?;
            self.records.clear();
        }
        Ok(())
    }

    /// Writes what is buffered and returns the destination.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.write_all(self.records.as_str().as_bytes())?;
        Ok(self.out)
    }
}

/// One record as CSV text without its line break (for files kept as lines).
pub fn line<T: Serialize + ?Sized>(record: &T) -> io::Result<String> {
    let mut r = Records::new();
    r.push(record)?;
    let mut text = r.into_string();
    text.pop();
    Ok(text)
}

/// Whether a row allows a non-finite value in a field ([`CsvRow::allows`]).
type Allow<'a> = dyn Fn(&str, f64) -> bool + 'a;

/// The serializer of one record: appends cells to `text`; with `allow`,
/// refuses non-finite numbers it does not allow in the current `field`.
struct Cells<'a> {
    text: &'a mut String,
    count: usize,
    allow: Option<&'a Allow<'a>>,
    field: &'static str,
    /// 1-based element of the vector `field` being written (0: not a vector).
    elem: usize,
    /// [`CsvRow::VECTOR_PARTS`] of the row (names of the vector's parts).
    parts: &'static [&'static str],
    /// Length of the vector being written.
    seq_len: usize,
    /// Largest magnitude of a finite number (checking readers only).
    bound: f64,
}

impl Cells<'_> {
    #[inline]
    fn start(&mut self) {
        if self.count > 0 {
            self.text.push(',');
        }
        self.count += 1;
    }

    #[inline]
    fn display(&mut self, x: impl std::fmt::Display) -> Result<(), RowError> {
        self.start();
        write!(self.text, "{x}").map_err(|e| RowError(e.to_string()))
    }
}

/// Appends `s` as one CSV field, quoted if it holds a comma, a quote or a
/// line break (quotes doubled) — the one quoting rule of every file.
pub fn push_field(out: &mut String, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
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

impl ser::Serializer for &mut Cells<'_> {
    type Ok = ();
    type Error = RowError;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = ser::Impossible<(), RowError>;
    type SerializeMap = ser::Impossible<(), RowError>;
    type SerializeStruct = Self;
    type SerializeStructVariant = ser::Impossible<(), RowError>;

    fn serialize_bool(self, v: bool) -> Result<(), RowError> {
        self.display(v)
    }
    fn serialize_i8(self, v: i8) -> Result<(), RowError> {
        self.display(v)
    }
    fn serialize_i16(self, v: i16) -> Result<(), RowError> {
        self.display(v)
    }
    fn serialize_i32(self, v: i32) -> Result<(), RowError> {
        self.display(v)
    }
    fn serialize_i64(self, v: i64) -> Result<(), RowError> {
        self.display(v)
    }
    fn serialize_i128(self, v: i128) -> Result<(), RowError> {
        self.display(v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), RowError> {
        self.display(v)
    }
    fn serialize_u16(self, v: u16) -> Result<(), RowError> {
        self.display(v)
    }
    fn serialize_u32(self, v: u32) -> Result<(), RowError> {
        self.display(v)
    }
    fn serialize_u64(self, v: u64) -> Result<(), RowError> {
        self.display(v)
    }
    fn serialize_u128(self, v: u128) -> Result<(), RowError> {
        self.display(v)
    }
    fn serialize_f32(self, v: f32) -> Result<(), RowError> {
        self.display(v)
    }
    #[inline]
    fn serialize_f64(self, v: f64) -> Result<(), RowError> {
        let column = || {
            if self.elem > 0 && !self.parts.is_empty() && self.seq_len >= self.parts.len() {
                let n = self.seq_len / self.parts.len();
                let k = ((self.elem - 1) / n).min(self.parts.len() - 1);
                format!("{}{}", self.parts[k], self.elem - k * n)
            } else if self.elem > 0 {
                format!("{}{}", self.field, self.elem)
            } else {
                self.field.to_string()
            }
        };
        if !v.is_finite()
            && let Some(allow) = self.allow
            && !allow(self.field, v)
        {
            return Err(RowError(not_finite(&column(), v)));
        }
        if v.is_finite() && v.abs() > self.bound {
            return Err(RowError(format!(
                "column '{}': expected a number within ±{:e}, found '{v:e}'",
                column(),
                self.bound
            )));
        }
        self.start();
        write_f64(self.text, v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), RowError> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    #[inline]
    fn serialize_str(self, v: &str) -> Result<(), RowError> {
        self.start();
        push_field(self.text, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), RowError> {
        let s = std::str::from_utf8(v).map_err(|e| RowError(e.to_string()))?;
        self.serialize_str(s)
    }
    fn serialize_none(self) -> Result<(), RowError> {
        self.start();
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), RowError> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), RowError> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), RowError> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), RowError> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), RowError> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        v: &T,
    ) -> Result<(), RowError> {
        v.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self, RowError> {
        self.seq_len = len.unwrap_or(0);
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, RowError> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, RowError> {
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, RowError> {
        Err(RowError(
            "a CSV cell cannot hold an enum tuple variant".into(),
        ))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, RowError> {
        Err(RowError("a CSV record cannot hold a map".into()))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, RowError> {
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, RowError> {
        Err(RowError(
            "a CSV cell cannot hold an enum struct variant".into(),
        ))
    }
}

impl ser::SerializeSeq for &mut Cells<'_> {
    type Ok = ();
    type Error = RowError;
    #[inline]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), RowError> {
        self.elem += 1;
        v.serialize(&mut **self)
    }
    fn end(self) -> Result<(), RowError> {
        Ok(())
    }
}

impl ser::SerializeTuple for &mut Cells<'_> {
    type Ok = ();
    type Error = RowError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), RowError> {
        v.serialize(&mut **self)
    }
    fn end(self) -> Result<(), RowError> {
        Ok(())
    }
}

impl ser::SerializeTupleStruct for &mut Cells<'_> {
    type Ok = ();
    type Error = RowError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), RowError> {
        v.serialize(&mut **self)
    }
    fn end(self) -> Result<(), RowError> {
        Ok(())
    }
}

impl ser::SerializeStruct for &mut Cells<'_> {
    type Ok = ();
    type Error = RowError;
    #[inline]
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        v: &T,
    ) -> Result<(), RowError> {
        self.field = name;
        self.elem = 0;
        v.serialize(&mut **self)
    }
    fn end(self) -> Result<(), RowError> {
        Ok(())
    }
}

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

fn csv_error(file: &Path, e: csv::Error) -> TableError {
    let line = e.position().map_or(0, |p| p.line() as usize);
    match e.into_kind() {
        csv::ErrorKind::Io(io) => super::lines::line_error(file, io),
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
            csv::DeserializeErrorKind::ParseFloat(_) => {
                format!("column '{name}': expected a number, found '{found}'")
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
    /// [`MAX_LINE`](super::lines::MAX_LINE) bytes.
    pub fn open(file: &Path) -> Result<Reader, TableError> {
        Reader::open_limited(file, u64::MAX)
    }

    /// As [`Reader::open`], refusing a file of more than `max_bytes`.
    pub fn open_limited(file: &Path, max_bytes: u64) -> Result<Reader, TableError> {
        let f = std::fs::File::open(file).map_err(|e| TableError::Io(PathIoError::io(file, e)))?;
        let rdr = csv::ReaderBuilder::new()
            .has_headers(true)
            .trim(csv::Trim::All)
            .from_reader(LineLimit::new(f, super::lines::MAX_LINE, max_bytes));
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
    fn with(file: PathBuf, mut rdr: csv::Reader<R>) -> Result<Self, TableError> {
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
        let mut scratch = String::new();
        self.records(|line, rec| {
            cells.clear();
            for i in &idx {
                cells.push_field(i.and_then(|i| rec.get(i)).unwrap_or(""));
            }
            let row: T = decode(&file, line, &names, &cells)?;
            check_row(&file, line, &row, bound, &mut scratch)?;
            each(line, row)
        })
    }
}

/// Checks a row read from `file` at `line` with the writers' promise:
/// non-finite numbers only where the format documents them
/// ([`CsvRow::allows`]), finite ones within ±`bound`. `scratch` is reused
/// text space.
pub fn check_row<T: CsvRow>(
    file: &Path,
    line: usize,
    row: &T,
    bound: f64,
    scratch: &mut String,
) -> Result<(), TableError> {
    scratch.clear();
    let mut check = Cells {
        text: scratch,
        count: 0,
        allow: Some(&|f, v| row.allows(f, v)),
        field: "",
        elem: 0,
        bound,
        parts: T::VECTOR_PARTS,
        seq_len: 0,
    };
    row.serialize(&mut check)
        .map_err(|e| input(file, line, e.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::fmt_f64;
    use proptest::prelude::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Demo {
        id: String,
        count: u64,
        x: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<f64>,
        v: Vec<f64>,
    }

    impl CsvRow for Demo {
        const VECTOR: Option<&'static str> = Some("v");
        const OPTIONAL: &'static [&'static str] = &["note"];
        const INFINITE: &'static [&'static str] = &["v"];
        const UNDEFINED: &'static [&'static str] = &["v"];
    }

    #[test]
    fn non_finite_numbers_only_where_documented() {
        let row = |x: f64, v: f64| Demo {
            id: "a".into(),
            count: 1,
            x,
            note: None,
            v: vec![v],
        };
        let mut w = Writer::with_header(Vec::new(), columns::<Demo>(1, &["note"])).unwrap();
        // `v` documents inf and NaN; `x` documents neither; -inf is never allowed.
        w.row(&row(1.0, f64::INFINITY)).unwrap();
        w.row(&row(1.0, f64::NAN)).unwrap();
        for (x, v) in [
            (f64::NAN, 0.0),
            (f64::INFINITY, 0.0),
            (1.0, f64::NEG_INFINITY),
        ] {
            let e = w.row(&row(x, v)).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidData);
            assert!(e.to_string().contains("expected a finite number"), "{e}");
        }
        let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(text, "id,count,x,v1\na,1,1,inf\na,1,1,NaN\n");
        // Readers keep the same promise, naming file, line and column.
        let p = scratch("nonfinite", "id,count,x,v1\na,1,1,inf\nb,2,-inf,0\n");
        let m = read(&p).unwrap_err().to_string();
        assert!(
            m.ends_with(":3: column 'x': expected a finite number, found '-inf'"),
            "{m}"
        );
    }

    fn scratch(name: &str, text: &str) -> PathBuf {
        let p =
            std::env::temp_dir().join(format!("privdiffuse-table-{}-{name}", std::process::id()));
        std::fs::write(&p, text).unwrap();
        p
    }

    fn read(p: &Path) -> Result<Vec<(usize, Demo)>, TableError> {
        let mut out = Vec::new();
        Reader::open(p)?.rows(&[], |line, r| {
            out.push((line, r));
            Ok::<_, TableError>(())
        })?;
        Ok(out)
    }

    #[test]
    fn field_names_and_headers() {
        assert_eq!(fields::<Demo>(), ["id", "count", "x", "note", "v"]);
        assert_eq!(
            columns::<Demo>(2, &["note"]),
            ["id", "count", "x", "v1", "v2"]
        );
    }

    #[test]
    fn writes_shortest_floats_and_reads_them_back() {
        let rows = [
            Demo {
                id: "a,b".into(),
                count: 3,
                x: 15.0,
                note: None,
                v: vec![1e-7, f64::INFINITY, f64::NAN],
            },
            Demo {
                id: "q\"".into(),
                count: 0,
                x: -0.5,
                note: None,
                v: vec![0.1, 2.0, -3.0],
            },
        ];
        let mut w = Writer::with_header(Vec::new(), columns::<Demo>(3, &["note"])).unwrap();
        for r in &rows {
            w.row(r).unwrap();
        }
        let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(
            text,
            "id,count,x,v1,v2,v3\n\"a,b\",3,15,0.0000001,inf,NaN\n\"q\"\"\",0,-0.5,0.1,2,-3\n"
        );
        // Reordered columns, an extra one, the optional one present.
        let p = scratch("back", &text);
        let back = read(&p).unwrap();
        assert_eq!(back[0].0, 2);
        assert_eq!(back[1].1, rows[1]);
        assert!(back[0].1.v[2].is_nan());
        let p2 = scratch("order", "v1,extra,x,note,count,id\n4,zz,1,2.5,7,k\n");
        let r = read(&p2).unwrap();
        assert_eq!(
            r[0].1,
            Demo {
                id: "k".into(),
                count: 7,
                x: 1.0,
                note: Some(2.5),
                v: vec![4.0]
            }
        );
        std::fs::remove_file(p).unwrap();
        std::fs::remove_file(p2).unwrap();
    }

    #[test]
    fn text_reads_back_exactly_and_files_are_trimmed() {
        let text = "id,count,x,v1\n a ,1,2,3\n\" b\",4,5,6\n";
        let rows: Vec<Demo> = Reader::from_text("kept", text).unwrap().collect().unwrap();
        assert_eq!(rows[0].id, " a ");
        assert_eq!(rows[1].id, " b");
        assert_eq!(rows[1].v, [6.0]);
        let p = scratch("trim", text);
        assert_eq!(read(&p).unwrap()[0].1.id, "a");
        std::fs::remove_file(p).unwrap();
        let m = Reader::from_text("kept.csv", "id,count,x,v1\na,1,y,3\n")
            .unwrap()
            .collect::<Demo>()
            .unwrap_err()
            .to_string();
        assert_eq!(m, "kept.csv:2: column 'x': expected a number, found 'y'");
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let msg = |text: &str| {
            let p = scratch("err", text);
            let m = read(&p).unwrap_err().to_string();
            std::fs::remove_file(p).unwrap();
            m
        };
        let m = msg("id,count,x,v1\na,1,2,3\nb,1,abc,3\n");
        assert!(
            m.ends_with(":3: column 'x': expected a number, found 'abc'"),
            "{m}"
        );
        let m = msg("id,count,x,v1,v2\na,-1,2,3,4\n");
        assert!(
            m.ends_with(":2: column 'count': expected a non-negative integer, found '-1'"),
            "{m}"
        );
        let m = msg("id,count,x,v1,v2\na,1,2,3,x\n");
        assert!(
            m.contains("column 'v2': expected a number, found 'x'"),
            "{m}"
        );
        let m = msg("id,cnt,x,v1\n");
        assert!(
            m.ends_with(":1: missing column 'count': expected a header with id,count,x,v1..vn, found 'id,cnt,x,v1'"),
            "{m}"
        );
        let m = msg("id,count,x\n");
        assert!(m.contains("missing column 'v1'"), "{m}");
        let m = msg("id,count,x,v1\na,1,2\n");
        assert!(
            m.contains(":2: expected 4 fields (as in the header), found 3"),
            "{m}"
        );
    }

    proptest! {
        #[test]
        fn floats_are_written_as_display(bits in any::<u64>(), label in "[a-z,\"]{0,4}") {
            let x = f64::from_bits(bits);
            let mut want = String::new();
            push_field(&mut want, &label);
            want.push(',');
            want.push_str(&fmt_f64(x));
            prop_assert_eq!(line(&(&label, x)).unwrap(), want);
        }
    }

    #[test]
    fn records_keep_their_width() {
        let mut r = Records::new();
        r.push(&("a", 1u64, None::<f64>)).unwrap();
        assert!(r.push(&("a", 1u64)).is_err());
        r.push(&((), "x\ny", Some(1e-7))).unwrap();
        assert_eq!(r.as_str(), "a,1,\n,\"x\ny\",0.0000001\n");
        let mut one = Records::new();
        one.push(&[""]).unwrap();
        assert_eq!(one.as_str(), "\"\"\n");
        assert!(line(&std::collections::HashMap::from([(1, 2)])).is_err());
    }

    #[test]
    fn lines_and_cells_round_trip() {
        let fields = ["exp:a=4,b=1", "plain", "say \"hi\"", "", "d∈[1, 2]"];
        let l = line(&fields).unwrap();
        assert_eq!(l, "\"exp:a=4,b=1\",plain,\"say \"\"hi\"\"\",,\"d∈[1, 2]\"");
        assert_eq!(cells(&l), fields);
    }
}

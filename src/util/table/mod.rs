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
use super::num::{NumMemo, write_f64};
use serde::de::{self, DeserializeOwned, Visitor};
use serde::{Serialize, ser};
use std::io;
use std::path::{Path, PathBuf};

/// The words of a finite number refused as beyond a reader's bound
/// ([`Reader::within`]), followed by the bound: a figure's default drawing
/// recognises them and skips the figure.
pub(crate) const BEYOND_BOUND: &str = "expected a number within ±";

mod cells;
mod columns;
mod flatten;
mod read;

pub use cells::*;
pub use columns::*;
use flatten::{CellSink, Flatten};
pub use read::*;

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

/// A row behind key cells (a sweep's grid keys, known only at run time):
/// the keys as text cells, then the cells of `row`, with `row`'s rules. A
/// written form only: readers split the keys off by the header
/// (`SweepTable::read`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Keyed<R> {
    /// The key cells.
    pub keys: Vec<String>,
    /// The row after them.
    pub row: R,
}

impl<R: CsvRow> CsvRow for Keyed<R> {
    const VECTOR_PARTS: &'static [&'static str] = R::VECTOR_PARTS;

    fn allows(&self, field: &str, value: f64) -> bool {
        self.row.allows(field, value)
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

impl std::error::Error for RowError {}

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
    memo: NumMemo,
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
        Records {
            text,
            width: None,
            memo: NumMemo::default(),
        }
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
        let sink = CsvText {
            text: &mut self.text,
            memo: Some(&mut self.memo),
        };
        let mut cells = Flatten::new(sink, allow, parts, f64::INFINITY);
        let r = row.serialize(&mut cells);
        let count = cells.count;
        if let Err(e) = r {
            self.text.truncate(start);
            return Err(e.into());
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

    /// Room for `bytes` more bytes of text.
    pub fn reserve(&mut self, bytes: usize) {
        self.text.reserve(bytes);
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

/// Cells as CSV text appended to `text`, comma-separated, quoted by
/// [`push_field`], numbers by `itoa` and [`write_f64`] (or `memo`).
struct CsvText<'a> {
    text: &'a mut String,
    /// The numbers this text's rows wrote last.
    memo: Option<&'a mut NumMemo>,
}

impl CsvText<'_> {
    #[inline]
    fn start(&mut self, i: usize) {
        if i > 0 {
            self.text.push(',');
        }
    }
}

impl CellSink for CsvText<'_> {
    #[inline]
    fn int<I: itoa::Integer + TryInto<i64> + Copy>(
        &mut self,
        i: usize,
        x: I,
    ) -> Result<(), RowError> {
        self.start(i);
        self.text.push_str(itoa::Buffer::new().format(x));
        Ok(())
    }
    #[inline]
    fn float(&mut self, i: usize, x: f64) -> Result<(), RowError> {
        self.start(i);
        match self.memo.as_deref_mut() {
            Some(memo) => memo.write(self.text, x),
            None => write_f64(self.text, x),
        }
        Ok(())
    }
    #[inline]
    fn text(&mut self, i: usize, s: &str) -> Result<(), RowError> {
        self.start(i);
        push_field(self.text, s);
        Ok(())
    }
    #[inline]
    fn empty(&mut self, i: usize) -> Result<(), RowError> {
        self.start(i);
        Ok(())
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

#[cfg(test)]
mod tests;

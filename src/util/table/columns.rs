//! A table as typed columns instead of CSV text (the Python package's
//! tables): the same header ([`columns`](super::columns)), the same cells
//! and the same refusals as the CSV writer
//! ([`Records::push_row`](super::Records::push_row)), each column typed as
//! a reader that infers types from the text types it (`pandas.read_csv`):
//! every cell an integer → [`Column::Int`]; numbers and empty cells →
//! [`Column::Float`] (empty as NaN); anything else → [`Column::Text`], each
//! cell's text as written. No text is formatted except to decide those
//! types; no text is parsed except a text cell's own.

use super::cells::{Allow, RowError, column_name};
use super::{CsvRow, not_finite};
use crate::util::num::write_f64;
use serde::{Serialize, ser};
use std::io;

/// One column's values.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    /// Every cell an integer (`i64`).
    Int(Vec<i64>),
    /// Every cell a number or empty (NaN).
    Float(Vec<f64>),
    /// Any other column: each cell's text.
    Text(Vec<String>),
}

/// Where the rows of one table go: CSV text ([`super::Writer`]) or typed
/// columns ([`Columns`]), so a file's rows are listed once for both.
pub trait RowSink {
    /// Appends one row (non-finite numbers only where [`CsvRow::allows`]
    /// them: else an `InvalidData` error naming the column).
    fn row<R: CsvRow>(&mut self, row: &R) -> io::Result<()>;
}

impl<W: io::Write> RowSink for super::Writer<W> {
    fn row<R: CsvRow>(&mut self, row: &R) -> io::Result<()> {
        super::Writer::row(self, row)
    }
}

/// `rows` appended to `sink`, which is returned.
pub fn fill<S: RowSink, R: CsvRow>(mut sink: S, rows: &[R]) -> io::Result<S> {
    for r in rows {
        sink.row(r)?;
    }
    Ok(sink)
}

/// A table's columns, in the header's order.
#[derive(Clone, Debug)]
pub struct Columns {
    names: Vec<String>,
    cols: Vec<Builder>,
    rows: usize,
}

impl RowSink for Columns {
    fn row<R: CsvRow>(&mut self, row: &R) -> io::Result<()> {
        self.push_row(row)
    }
}

impl Columns {
    /// No rows yet under the header `names` (see [`columns`](super::columns)).
    pub fn new(names: Vec<String>) -> Columns {
        let cols = vec![Builder::default(); names.len()];
        Columns {
            names,
            cols,
            rows: 0,
        }
    }

    /// Appends one row as [`Records::push_row`](super::Records::push_row)
    /// writes it. After an error the table is incomplete and must be dropped.
    pub fn push_row<R: CsvRow>(&mut self, row: &R) -> io::Result<()> {
        let allow = |f: &str, v: f64| row.allows(f, v);
        let mut cells = ColumnCells {
            cols: &mut self.cols,
            count: 0,
            allow: &allow,
            field: "",
            elem: 0,
            parts: R::VECTOR_PARTS,
            seq_len: 0,
        };
        let r = row.serialize(&mut cells);
        let count = cells.count;
        if let Err(e) = r {
            let kind = if e.0.contains("expected a finite number") {
                io::ErrorKind::InvalidData
            } else {
                io::ErrorKind::Other
            };
            return Err(io::Error::new(kind, e));
        }
        if count != self.names.len() {
            return Err(io::Error::other(format!(
                "a record of {count} fields after records of {}",
                self.names.len()
            )));
        }
        self.rows += 1;
        Ok(())
    }

    /// Rows so far.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// No rows yet.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The columns: name and values, in order.
    pub fn into_vec(self) -> Vec<(String, Column)> {
        self.names
            .into_iter()
            .zip(self.cols.into_iter().map(Builder::finish))
            .collect()
    }
}

/// 2^53: integers of larger magnitude may not survive as `f64`.
const EXACT: u64 = 1 << 53;

/// One column being built: its values so far, typed as narrowly as its
/// cells allow, and the text of each cell those values do not give back
/// (an empty cell held as NaN, `"1.50"` held as 1.5, an integer beyond
/// 2^53 held as a float) for when the column turns out to be text.
#[derive(Clone, Debug)]
struct Builder {
    data: Column,
    exact: Vec<(usize, String)>,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder {
            data: Column::Int(Vec::new()),
            exact: Vec::new(),
        }
    }
}

/// A cell as its CSV text reads.
enum Cell<'s> {
    Int(i64),
    Float(f64),
    Empty,
    Text(&'s str),
}

impl Builder {
    fn len(&self) -> usize {
        match &self.data {
            Column::Int(v) => v.len(),
            Column::Float(v) => v.len(),
            Column::Text(v) => v.len(),
        }
    }

    /// Appends `cell`, whose CSV text is `text` when it is not the
    /// canonical text of its value (`itoa`, [`write_f64`], empty).
    fn push(&mut self, cell: Cell<'_>, text: Option<&str>) {
        let at = self.len();
        match (&mut self.data, cell) {
            (Column::Int(v), Cell::Int(x)) => {
                v.push(x);
                if let Some(t) = text {
                    self.exact.push((at, t.to_string()));
                }
            }
            (Column::Int(_), cell @ (Cell::Float(_) | Cell::Empty)) => {
                self.widen_to_float();
                self.push(cell, text);
            }
            (Column::Float(v), cell @ (Cell::Int(_) | Cell::Float(_) | Cell::Empty)) => {
                let (x, canonical) = match cell {
                    Cell::Int(x) => (x as f64, x.unsigned_abs() <= EXACT),
                    Cell::Float(x) => (x, true),
                    _ => (f64::NAN, false),
                };
                match text {
                    Some(t) => {
                        v.push(t.parse().unwrap_or(x));
                        self.exact.push((at, t.to_string()));
                    }
                    None => {
                        v.push(x);
                        if !canonical {
                            self.exact.push((at, canonical_text(&cell)));
                        }
                    }
                }
            }
            (Column::Text(v), cell) => {
                v.push(text.map_or_else(|| canonical_text(&cell), String::from))
            }
            (_, cell @ Cell::Text(_)) => {
                self.widen_to_text();
                self.push(cell, text);
            }
        }
    }

    /// Integers to floats (the texts kept give the exact values).
    fn widen_to_float(&mut self) {
        if let Column::Int(v) = &self.data {
            let mut f: Vec<f64> = v.iter().map(|&x| x as f64).collect();
            for (i, t) in &self.exact {
                f[*i] = t.parse().unwrap_or(f[*i]);
            }
            for (i, &x) in v.iter().enumerate() {
                if x.unsigned_abs() > EXACT && !self.exact.iter().any(|(j, _)| *j == i) {
                    self.exact.push((i, x.to_string()));
                }
            }
            self.data = Column::Float(f);
        }
    }

    /// Values to the texts of their cells.
    fn widen_to_text(&mut self) {
        let mut texts: Vec<String> = match &self.data {
            Column::Int(v) => v.iter().map(|x| x.to_string()).collect(),
            Column::Float(v) => v.iter().map(|&x| canonical_text(&Cell::Float(x))).collect(),
            Column::Text(_) => return,
        };
        for (i, t) in self.exact.drain(..) {
            texts[i] = t;
        }
        self.data = Column::Text(texts);
    }

    fn finish(self) -> Column {
        self.data
    }
}

/// The text the CSV writer gives a cell's value.
fn canonical_text(cell: &Cell<'_>) -> String {
    match cell {
        Cell::Int(x) => x.to_string(),
        Cell::Float(x) => {
            let mut s = String::new();
            write_f64(&mut s, *x);
            s
        }
        Cell::Empty => String::new(),
        Cell::Text(t) => t.to_string(),
    }
}

/// A text cell as a reader types it: an integer, a number, empty, or text.
/// Returns whether the text is not the canonical text of that value.
fn classify(t: &str) -> (Cell<'_>, bool) {
    if t.is_empty() {
        (Cell::Empty, false)
    } else if let Ok(x) = t.parse::<i64>() {
        (Cell::Int(x), itoa::Buffer::new().format(x) != t)
    } else if let Ok(x) = t.parse::<f64>() {
        (Cell::Float(x), true)
    } else {
        (Cell::Text(t), false)
    }
}

/// The serializer of one row into the columns (see [`super::Records`]'s).
struct ColumnCells<'a> {
    cols: &'a mut [Builder],
    count: usize,
    allow: &'a Allow<'a>,
    field: &'static str,
    elem: usize,
    parts: &'static [&'static str],
    seq_len: usize,
}

impl ColumnCells<'_> {
    /// The next column, or an error when the row has more cells than the header.
    fn next(&mut self) -> Result<&mut Builder, RowError> {
        let n = self.cols.len();
        self.count += 1;
        self.cols
            .get_mut(self.count - 1)
            .ok_or_else(|| RowError(format!("a record of more than {n} fields")))
    }

    fn text(&mut self, t: &str) -> Result<(), RowError> {
        let (cell, odd) = classify(t);
        self.next()?.push(cell, odd.then_some(t));
        Ok(())
    }

    fn integer(&mut self, x: impl TryInto<i64> + itoa::Integer + Copy) -> Result<(), RowError> {
        let mut buf = itoa::Buffer::new();
        let t = buf.format(x);
        match x.try_into() {
            Ok(i) => {
                self.next()?.push(Cell::Int(i), None);
                Ok(())
            }
            Err(_) => self.text(t),
        }
    }
}

impl ser::Serializer for &mut ColumnCells<'_> {
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
        self.text(&v.to_string())
    }
    fn serialize_i8(self, v: i8) -> Result<(), RowError> {
        self.integer(v)
    }
    fn serialize_i16(self, v: i16) -> Result<(), RowError> {
        self.integer(v)
    }
    fn serialize_i32(self, v: i32) -> Result<(), RowError> {
        self.integer(v)
    }
    fn serialize_i64(self, v: i64) -> Result<(), RowError> {
        self.integer(v)
    }
    fn serialize_i128(self, v: i128) -> Result<(), RowError> {
        self.integer(v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), RowError> {
        self.integer(v)
    }
    fn serialize_u16(self, v: u16) -> Result<(), RowError> {
        self.integer(v)
    }
    fn serialize_u32(self, v: u32) -> Result<(), RowError> {
        self.integer(v)
    }
    fn serialize_u64(self, v: u64) -> Result<(), RowError> {
        self.integer(v)
    }
    fn serialize_u128(self, v: u128) -> Result<(), RowError> {
        self.integer(v)
    }
    fn serialize_f32(self, v: f32) -> Result<(), RowError> {
        self.text(&v.to_string())
    }
    fn serialize_f64(self, v: f64) -> Result<(), RowError> {
        if !v.is_finite() && !(self.allow)(self.field, v) {
            let column = column_name(self.field, self.elem, self.parts, self.seq_len);
            return Err(RowError(not_finite(&column, v)));
        }
        if v.fract() == 0.0 {
            // An integral number is an integer when its text reads as one
            // (`-0` reads as 0: its text is kept for a float column).
            let mut t = String::new();
            write_f64(&mut t, v);
            return self.text(&t);
        }
        self.next()?.push(Cell::Float(v), None);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), RowError> {
        self.text(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), RowError> {
        self.text(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), RowError> {
        let s = std::str::from_utf8(v).map_err(|e| RowError(e.to_string()))?;
        self.text(s)
    }
    fn serialize_none(self) -> Result<(), RowError> {
        self.next()?.push(Cell::Empty, None);
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
        self.text(variant)
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

impl ser::SerializeSeq for &mut ColumnCells<'_> {
    type Ok = ();
    type Error = RowError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), RowError> {
        self.elem += 1;
        v.serialize(&mut **self)
    }
    fn end(self) -> Result<(), RowError> {
        Ok(())
    }
}

impl ser::SerializeTuple for &mut ColumnCells<'_> {
    type Ok = ();
    type Error = RowError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), RowError> {
        v.serialize(&mut **self)
    }
    fn end(self) -> Result<(), RowError> {
        Ok(())
    }
}

impl ser::SerializeTupleStruct for &mut ColumnCells<'_> {
    type Ok = ();
    type Error = RowError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), RowError> {
        v.serialize(&mut **self)
    }
    fn end(self) -> Result<(), RowError> {
        Ok(())
    }
}

impl ser::SerializeStruct for &mut ColumnCells<'_> {
    type Ok = ();
    type Error = RowError;
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

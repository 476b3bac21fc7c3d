//! A table as typed columns instead of CSV text (the Python package's
//! tables): the same header ([`columns`](super::columns)), the same cells
//! and the same refusals as the CSV writer
//! ([`Records::push_row`](super::Records::push_row)), each column typed as
//! a reader that infers types from the text types it (`pandas.read_csv`):
//! every cell an integer → [`Column::Int`]; numbers and empty cells →
//! [`Column::Float`] (empty as NaN); anything else → [`Column::Text`], each
//! cell's text as written. No text is formatted except to decide those
//! types; no text is parsed except a text cell's own.

use super::CsvRow;
use super::cells::RowError;
use super::flatten::{CellSink, Flatten};
use crate::util::num::write_f64;
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
        let sink = ColumnSink {
            cols: &mut self.cols,
        };
        let mut cells = Flatten::new(sink, Some(&allow), R::VECTOR_PARTS, f64::INFINITY);
        row.serialize(&mut cells)?;
        let count = cells.count;
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

/// The cells of one row into the columns (a [`CellSink`]).
struct ColumnSink<'a> {
    cols: &'a mut [Builder],
}

impl ColumnSink<'_> {
    /// Column `i`, or an error when the row has more cells than the header.
    fn col(&mut self, i: usize) -> Result<&mut Builder, RowError> {
        let n = self.cols.len();
        self.cols
            .get_mut(i)
            .ok_or_else(|| RowError(format!("a record of more than {n} fields")))
    }
}

impl CellSink for ColumnSink<'_> {
    fn int<I: itoa::Integer + TryInto<i64> + Copy>(
        &mut self,
        i: usize,
        x: I,
    ) -> Result<(), RowError> {
        match x.try_into() {
            Ok(v) => {
                self.col(i)?.push(Cell::Int(v), None);
                Ok(())
            }
            Err(_) => self.text(i, itoa::Buffer::new().format(x)),
        }
    }
    fn float(&mut self, i: usize, x: f64) -> Result<(), RowError> {
        if x.fract() == 0.0 {
            // An integral number is an integer when its text reads as one
            // (`-0` reads as 0: its text is kept for a float column).
            let mut t = String::new();
            write_f64(&mut t, x);
            return self.text(i, &t);
        }
        self.col(i)?.push(Cell::Float(x), None);
        Ok(())
    }
    fn text(&mut self, i: usize, s: &str) -> Result<(), RowError> {
        let (cell, odd) = classify(s);
        self.col(i)?.push(cell, odd.then_some(s));
        Ok(())
    }
    fn empty(&mut self, i: usize) -> Result<(), RowError> {
        self.col(i)?.push(Cell::Empty, None);
        Ok(())
    }
}

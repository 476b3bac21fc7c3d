//! The one serde serializer of a row: it flattens a row struct (a tuple of
//! cells and rows, a slice of strings) into cells, applies the writers'
//! refusals (non-finite numbers a row does not allow, finite numbers beyond
//! a reader's bound), and hands each cell to a [`CellSink`]: CSV text
//! ([`super::Records`]), typed columns ([`super::Columns`]) or nothing (a
//! reader's check of a row it read, [`super::check_row`]).

use super::cells::{Allow, RowError, column_name};
use super::{BEYOND_BOUND, not_finite};
use serde::{Serialize, ser};

/// Where the cells of one row go, cell `i` (0-based) in turn.
pub(super) trait CellSink {
    /// An integer cell.
    fn int<I: itoa::Integer + TryInto<i64> + Copy>(
        &mut self,
        i: usize,
        x: I,
    ) -> Result<(), RowError>;
    /// A number cell (already checked: allowed if not finite, within bound).
    fn float(&mut self, i: usize, x: f64) -> Result<(), RowError>;
    /// A text cell (a string, a unit variant's name, a bool).
    fn text(&mut self, i: usize, s: &str) -> Result<(), RowError>;
    /// An empty cell (`None`, `()`).
    fn empty(&mut self, i: usize) -> Result<(), RowError>;
}

/// Cells checked and dropped: a row read back, held to the writers' rules.
pub(super) struct Check;

impl CellSink for Check {
    fn int<I: itoa::Integer + TryInto<i64> + Copy>(
        &mut self,
        _: usize,
        _: I,
    ) -> Result<(), RowError> {
        Ok(())
    }
    fn float(&mut self, _: usize, _: f64) -> Result<(), RowError> {
        Ok(())
    }
    fn text(&mut self, _: usize, _: &str) -> Result<(), RowError> {
        Ok(())
    }
    fn empty(&mut self, _: usize) -> Result<(), RowError> {
        Ok(())
    }
}

/// The serializer of one row into `sink`; with `allow`, refuses non-finite
/// numbers it does not allow in the current field, and finite numbers
/// beyond `bound`.
pub(super) struct Flatten<'a, S> {
    pub(super) sink: S,
    /// Cells so far.
    pub(super) count: usize,
    allow: Option<&'a Allow<'a>>,
    /// Largest magnitude of a finite number (checking readers only).
    bound: f64,
    /// [`CsvRow::VECTOR_PARTS`](super::CsvRow::VECTOR_PARTS) of the row.
    parts: &'static [&'static str],
    field: &'static str,
    /// 1-based element of the vector `field` being written (0: not a vector).
    elem: usize,
    /// Length of the vector being written.
    seq_len: usize,
}

impl<'a, S: CellSink> Flatten<'a, S> {
    /// A row's serializer into `sink` (see [`Flatten`]).
    #[inline]
    pub(super) fn new(
        sink: S,
        allow: Option<&'a Allow<'a>>,
        parts: &'static [&'static str],
        bound: f64,
    ) -> Self {
        Flatten {
            sink,
            count: 0,
            allow,
            bound,
            parts,
            field: "",
            elem: 0,
            seq_len: 0,
        }
    }

    /// The index of the next cell.
    #[inline]
    fn next(&mut self) -> usize {
        self.count += 1;
        self.count - 1
    }

    #[inline]
    fn text(&mut self, s: &str) -> Result<(), RowError> {
        let i = self.next();
        self.sink.text(i, s)
    }

    #[inline]
    fn int<I: itoa::Integer + TryInto<i64> + Copy>(&mut self, x: I) -> Result<(), RowError> {
        let i = self.next();
        self.sink.int(i, x)
    }
}

impl<S: CellSink> ser::Serializer for &mut Flatten<'_, S> {
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
        self.text(if v { "true" } else { "false" })
    }
    fn serialize_i8(self, v: i8) -> Result<(), RowError> {
        self.int(v)
    }
    fn serialize_i16(self, v: i16) -> Result<(), RowError> {
        self.int(v)
    }
    fn serialize_i32(self, v: i32) -> Result<(), RowError> {
        self.int(v)
    }
    fn serialize_i64(self, v: i64) -> Result<(), RowError> {
        self.int(v)
    }
    fn serialize_i128(self, v: i128) -> Result<(), RowError> {
        self.int(v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), RowError> {
        self.int(v)
    }
    fn serialize_u16(self, v: u16) -> Result<(), RowError> {
        self.int(v)
    }
    fn serialize_u32(self, v: u32) -> Result<(), RowError> {
        self.int(v)
    }
    fn serialize_u64(self, v: u64) -> Result<(), RowError> {
        self.int(v)
    }
    fn serialize_u128(self, v: u128) -> Result<(), RowError> {
        self.int(v)
    }
    fn serialize_f32(self, v: f32) -> Result<(), RowError> {
        self.text(&v.to_string())
    }
    #[inline]
    fn serialize_f64(self, v: f64) -> Result<(), RowError> {
        let column = |s: &Flatten<'_, S>| column_name(s.field, s.elem, s.parts, s.seq_len);
        if !v.is_finite()
            && let Some(allow) = self.allow
            && !allow(self.field, v)
        {
            return Err(RowError(not_finite(&column(self), v)));
        }
        if v.is_finite() && v.abs() > self.bound {
            // Never the number: an owner's value or an answer is a secret.
            return Err(RowError(format!(
                "column '{}': {BEYOND_BOUND}{:e} (the cell is not shown)",
                column(self),
                self.bound
            )));
        }
        let i = self.next();
        self.sink.float(i, v)
    }
    fn serialize_char(self, v: char) -> Result<(), RowError> {
        self.text(v.encode_utf8(&mut [0; 4]))
    }
    #[inline]
    fn serialize_str(self, v: &str) -> Result<(), RowError> {
        self.text(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), RowError> {
        let s = std::str::from_utf8(v).map_err(|e| RowError(e.to_string()))?;
        self.text(s)
    }
    fn serialize_none(self) -> Result<(), RowError> {
        let i = self.next();
        self.sink.empty(i)
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

impl<S: CellSink> ser::SerializeSeq for &mut Flatten<'_, S> {
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

impl<S: CellSink> ser::SerializeTuple for &mut Flatten<'_, S> {
    type Ok = ();
    type Error = RowError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), RowError> {
        v.serialize(&mut **self)
    }
    fn end(self) -> Result<(), RowError> {
        Ok(())
    }
}

impl<S: CellSink> ser::SerializeTupleStruct for &mut Flatten<'_, S> {
    type Ok = ();
    type Error = RowError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), RowError> {
        v.serialize(&mut **self)
    }
    fn end(self) -> Result<(), RowError> {
        Ok(())
    }
}

impl<S: CellSink> ser::SerializeStruct for &mut Flatten<'_, S> {
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

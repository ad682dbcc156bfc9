//! `Record` for the standard types: numbers, `bool`, the other `NdlType`
//! scalars, `String`, `Box<str>`, `Vec`, `Box<[T]>`, `Option`, `[T; N]`.

use std::marker::PhantomData;

use super::column::{Bitmap, Bits, Column, ColumnView, Number, Offsets};
use super::{ColumnReader, Columns, PlainVisitor, Record, RecordError};
use crate::records::{Packer, RecordBuf};
use crate::time::{DateTime64, TimeDelta64, TimeUnit};
use crate::{Datatype, FixedStr, NdlType};

/// A plain value stored as an integer: a derived enum (its discriminant)
/// or a time value (its count). `#[derive(NdlType)]` implements it for
/// enums.
pub trait IntRepr: NdlType {
    /// The integer.
    type Int: Number + std::fmt::Display;

    /// The value's integer.
    fn to_int(&self) -> Self::Int;

    /// The value of an integer, if it has one.
    fn from_int(int: Self::Int) -> Option<Self>;
}

/// `view` itself, or its values if it is a [`ColumnView::Nullable`]
/// without a null: what a reader of a type that is not an `Option` reads.
pub(crate) fn required<'b, 'a>(
    view: &'b ColumnView<'a>,
) -> Result<&'b ColumnView<'a>, RecordError> {
    match view {
        ColumnView::Nullable { validity, values } => match validity.first_unset() {
            Some(i) => Err(RecordError::new(
                "a null where the field is not an `Option`; make the field an `Option` to read nulls",
            )
            .at(i)),
            None => required(values),
        },
        other => Ok(other),
    }
}

pub(crate) fn wrong_kind(expected: &str, found: &ColumnView<'_>) -> RecordError {
    let found = match found {
        ColumnView::Values(v) => format!("{} numbers", v.type_name()),
        ColumnView::Bool(_) => "booleans".into(),
        ColumnView::Plain(_) => "fixed-size values".into(),
        ColumnView::Strings { .. } => "strings".into(),
        ColumnView::List { .. } => "lists".into(),
        ColumnView::FixedList { size, .. } => format!("lists of {size} items"),
        ColumnView::Struct { .. } => "structs".into(),
        ColumnView::Nullable { .. } => "nullable values".into(),
    };
    RecordError::new(format!("expected {expected}, found a column of {found}"))
}

pub(crate) fn past_end(index: usize, len: usize) -> RecordError {
    RecordError::new(format!(
        "record {index} is past the end of the {len} records"
    ))
    .at(index)
}

// ---- numbers -------------------------------------------------------------

/// The columns of a number type: a `Vec` of the numbers.
#[derive(Debug)]
pub struct NumberColumns<T>(Vec<T>);

/// Reads numbers of `T` from a slice.
#[derive(Debug)]
pub struct NumberReader<'a, T>(&'a [T]);

impl<T: Number> Columns<T> for NumberColumns<T> {
    fn with_capacity(records: usize) -> Self {
        NumberColumns(Vec::with_capacity(records))
    }

    #[inline]
    fn push(&mut self, value: &T) {
        self.0.push(*value);
    }

    fn push_null(&mut self) {
        self.0.push(Default::default());
    }

    fn extend(&mut self, values: &[T]) {
        self.0.extend_from_slice(values);
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn finish(self) -> Column {
        Column::Values {
            datatype: T::datatype(),
            values: T::wrap(self.0),
        }
    }
}

impl<T: Number> ColumnReader<T> for NumberReader<'_, T> {
    fn len(&self) -> usize {
        self.0.len()
    }

    #[inline]
    fn get(&self, index: usize) -> Result<T, RecordError> {
        self.0
            .get(index)
            .copied()
            .ok_or_else(|| past_end(index, self.0.len()))
    }

    fn extend_from_range(
        &self,
        range: std::ops::Range<usize>,
        out: &mut Vec<T>,
    ) -> Result<(), RecordError> {
        let end = range.end;
        let items = self
            .0
            .get(range)
            .ok_or_else(|| past_end(end, self.0.len()))?;
        out.extend_from_slice(items);
        Ok(())
    }
}

fn number_reader<'a, T: Number>(view: &ColumnView<'a>) -> Result<NumberReader<'a, T>, RecordError> {
    let wanted = || format!("{} numbers", crate::schema::describe(&T::datatype()));
    match required(view)? {
        ColumnView::Values(v) => T::unwrap(v)
            .map(NumberReader)
            .ok_or_else(|| wrong_kind(&wanted(), view)),
        other => Err(wrong_kind(&wanted(), other)),
    }
}

macro_rules! number_record {
    ($($t:ty),*) => {$(
        impl Record for $t {
            type Columns = NumberColumns<$t>;
            type Reader<'a> = NumberReader<'a, $t>;

            fn datatype() -> Datatype {
                <$t as NdlType>::datatype()
            }

            fn reader<'a>(column: &ColumnView<'a>) -> Result<Self::Reader<'a>, RecordError> {
                number_reader(column)
            }

            fn visit_plain<V: PlainVisitor>(visitor: V) -> Option<V::Output> {
                Some(visitor.visit::<Self>())
            }
        }
    )*};
}

number_record!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

// ---- bool ----------------------------------------------------------------

/// The columns of `bool`: a bitmap.
#[derive(Debug)]
pub struct BoolColumns(Bitmap);

/// Reads `bool`s from a bitmap.
#[derive(Debug)]
pub struct BoolReader<'a>(Bits<'a>);

impl Columns<bool> for BoolColumns {
    fn with_capacity(records: usize) -> Self {
        BoolColumns(Bitmap::with_capacity(records))
    }

    #[inline]
    fn push(&mut self, value: &bool) {
        self.0.push(*value);
    }

    fn push_null(&mut self) {
        self.0.push(false);
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn finish(self) -> Column {
        Column::Bool(self.0)
    }
}

impl ColumnReader<bool> for BoolReader<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn get(&self, index: usize) -> Result<bool, RecordError> {
        if index >= self.0.len() {
            return Err(past_end(index, self.0.len()));
        }
        Ok(self.0.get(index))
    }
}

impl Record for bool {
    type Columns = BoolColumns;
    type Reader<'a> = BoolReader<'a>;

    fn datatype() -> Datatype {
        Datatype::Bool
    }

    fn reader<'a>(column: &ColumnView<'a>) -> Result<Self::Reader<'a>, RecordError> {
        match required(column)? {
            ColumnView::Bool(bits) => Ok(BoolReader(*bits)),
            other => Err(wrong_kind("booleans", other)),
        }
    }

    fn visit_plain<V: PlainVisitor>(visitor: V) -> Option<V::Output> {
        Some(visitor.visit::<Self>())
    }
}

// ---- integers that stand for values: enums, time -------------------------

/// The columns of an [`IntRepr`] type: its integers.
#[derive(Debug)]
pub struct ReprColumns<T: IntRepr>(Vec<T::Int>);

/// Reads an [`IntRepr`] type from its integers, refusing integers that
/// stand for no value.
#[derive(Debug)]
pub struct ReprReader<'a, T: IntRepr>(&'a [T::Int], PhantomData<fn() -> T>);

impl<T: IntRepr> Columns<T> for ReprColumns<T> {
    fn with_capacity(records: usize) -> Self {
        ReprColumns(Vec::with_capacity(records))
    }

    #[inline]
    fn push(&mut self, value: &T) {
        self.0.push(value.to_int());
    }

    fn push_null(&mut self) {
        self.0.push(Default::default());
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn finish(self) -> Column {
        Column::Values {
            datatype: T::datatype(),
            values: T::Int::wrap(self.0),
        }
    }
}

impl<T: IntRepr> ColumnReader<T> for ReprReader<'_, T> {
    fn len(&self) -> usize {
        self.0.len()
    }

    #[inline]
    fn get(&self, index: usize) -> Result<T, RecordError> {
        let int = *self
            .0
            .get(index)
            .ok_or_else(|| past_end(index, self.0.len()))?;
        T::from_int(int).ok_or_else(|| {
            RecordError::new(format!(
                "{int} stands for no value of `{}`",
                std::any::type_name::<T>()
            ))
            .at(index)
        })
    }
}

/// The reader of an [`IntRepr`] type; for `#[derive(NdlType)]` enums.
pub fn repr_reader<'a, T: IntRepr>(
    view: &ColumnView<'a>,
) -> Result<ReprReader<'a, T>, RecordError> {
    number_reader::<T::Int>(view).map(|r| ReprReader(r.0, PhantomData))
}

macro_rules! time_record {
    ($($name:ident),*) => {$(
        impl<U: TimeUnit> IntRepr for $name<U> {
            type Int = i64;

            fn to_int(&self) -> i64 {
                self.count()
            }

            fn from_int(int: i64) -> Option<Self> {
                Some($name::new(int))
            }
        }

        impl<U: TimeUnit> Record for $name<U> {
            type Columns = ReprColumns<Self>;
            type Reader<'a> = ReprReader<'a, Self>;

            fn datatype() -> Datatype {
                <Self as NdlType>::datatype()
            }

            fn reader<'a>(column: &ColumnView<'a>) -> Result<Self::Reader<'a>, RecordError> {
                repr_reader(column)
            }

            fn visit_plain<V: PlainVisitor>(visitor: V) -> Option<V::Output> {
                Some(visitor.visit::<Self>())
            }
        }
    )*};
}

time_record!(DateTime64, TimeDelta64);

// ---- other plain values: packed bytes ------------------------------------

/// The columns of any other [`NdlType`] (fixed strings, `float16`,
/// complex numbers, `#[ndl(string)]` and `#[ndl(opaque)]` fields, derived
/// `NdlType` structs): the values packed without padding as they come.
pub struct PlainColumns<T: NdlType> {
    datatype: Datatype,
    bytes: Vec<u8>,
    size: usize,
    packer: Packer<T>,
    len: usize,
}

/// Reads packed values of `T`: checked and unpacked all at once, or, if
/// some value is invalid (a `None`'s zero placeholder of a type whose zero
/// is no value, say), one by one as they are read, so only a value read
/// is refused.
pub struct PlainReader<'a, T> {
    all: Option<Vec<T>>,
    bytes: &'a [u8],
    len: usize,
}

impl<T: NdlType> PlainColumns<T> {
    /// Columns whose bytes `datatype` describes instead of `T`'s own
    /// datatype (`[u8; N]` as a fixed string); same size, no padding.
    pub fn with_datatype(records: usize, datatype: Datatype) -> Self {
        let packer = packer::<T>();
        PlainColumns {
            datatype,
            bytes: Vec::with_capacity(records.saturating_mul(packer.layout().size())),
            size: packer.layout().size(),
            packer,
            len: 0,
        }
    }
}

/// `T`'s packer, which exists for any `NdlType` whose unsafe promise holds.
fn packer<T: NdlType>() -> Packer<T> {
    Packer::new().expect("an `NdlType`'s datatype describes its layout, as its impl promises")
}

impl<T: NdlType> Columns<T> for PlainColumns<T> {
    fn with_capacity(records: usize) -> Self {
        Self::with_datatype(records, T::datatype())
    }

    #[inline]
    fn push(&mut self, value: &T) {
        self.extend(std::slice::from_ref(value));
    }

    /// Zero bytes: read back only if the slot is read, and then checked.
    fn push_null(&mut self) {
        self.bytes.resize(self.bytes.len() + self.size, 0);
        self.len += 1;
    }

    fn extend(&mut self, values: &[T]) {
        let start = self.bytes.len();
        self.bytes.resize(start + values.len() * self.size, 0);
        self.packer.pack(values, &mut self.bytes[start..]);
        self.len += values.len();
    }

    fn len(&self) -> usize {
        self.len
    }

    fn finish(self) -> Column {
        let datatype = if self.datatype == T::datatype() {
            self.packer.layout().datatype().clone()
        } else {
            self.datatype
        };
        Column::Plain {
            datatype,
            bytes: self.bytes,
        }
    }
}

/// Checks and unpacks packed values of `T`.
fn unpack<T: NdlType>(packer: &Packer<T>, bytes: &[u8]) -> Result<Vec<T>, RecordError> {
    let n = bytes.len() / packer.layout().size().max(1);
    let mut buf = RecordBuf::<T>::zeroed(n)
        .map_err(|e| RecordError::new(format!("no memory for {n} values: {e}")))?;
    for mut part in buf.parts_mut(n.max(1)) {
        packer
            .unpack(bytes, &mut part)
            .map_err(|e| RecordError::new(e.message).at(e.record))?;
    }
    buf.into_vec()
        .ok_or_else(|| RecordError::new("values left unread"))
}

impl<T: NdlType> ColumnReader<T> for PlainReader<'_, T> {
    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, index: usize) -> Result<T, RecordError> {
        if index >= self.len {
            return Err(past_end(index, self.len));
        }
        if let Some(all) = &self.all {
            return all
                .get(index)
                .copied()
                .ok_or_else(|| past_end(index, self.len));
        }
        let size = self.bytes.len() / self.len;
        let one = &self.bytes[index * size..(index + 1) * size];
        unpack(&packer::<T>(), one)
            .map_err(|e| e.at(index))?
            .first()
            .copied()
            .ok_or_else(|| past_end(index, self.len))
    }
}

/// The reader of packed values of `T`: checks every value (a `bool` 0 or
/// 1, an enum value a member's) before it is read.
pub fn plain_reader<'a, T: NdlType>(
    view: &ColumnView<'a>,
) -> Result<PlainReader<'a, T>, RecordError> {
    let ColumnView::Plain(bytes) = required(view)? else {
        return Err(wrong_kind("packed fixed-size values", view));
    };
    let packer = packer::<T>();
    let size = packer.layout().size();
    if size == 0 || bytes.len() % size != 0 {
        return Err(RecordError::new(format!(
            "{} bytes are not a whole number of {size}-byte values",
            bytes.len()
        )));
    }
    Ok(PlainReader {
        all: unpack(&packer, bytes).ok(),
        bytes,
        len: bytes.len() / size,
    })
}

macro_rules! plain_record {
    ($(#[$cfg:meta])* impl$(<$(const $n:ident: usize),*>)? for $t:ty) => {
        $(#[$cfg])*
        impl$(<$(const $n: usize),*>)? Record for $t {
            type Columns = PlainColumns<Self>;
            type Reader<'a> = PlainReader<'a, Self>;

            fn datatype() -> Datatype {
                <Self as NdlType>::datatype()
            }

            fn reader<'a>(column: &ColumnView<'a>) -> Result<Self::Reader<'a>, RecordError> {
                plain_reader(column)
            }

            fn visit_plain<V: PlainVisitor>(visitor: V) -> Option<V::Output> {
                Some(visitor.visit::<Self>())
            }
        }
    };
}

plain_record!(impl<const N: usize> for FixedStr<N>);
plain_record!(#[cfg(feature = "half")] impl for half::f16);
plain_record!(#[cfg(feature = "num-complex")] impl for num_complex::Complex<f32>);
plain_record!(#[cfg(feature = "num-complex")] impl for num_complex::Complex<f64>);

// ---- strings -------------------------------------------------------------

/// The columns of `String` and `Box<str>`: offsets and UTF-8 bytes.
#[derive(Debug)]
pub struct StringColumns {
    offsets: Vec<i64>,
    data: Vec<u8>,
}

/// Reads strings, checking that each is UTF-8.
#[derive(Debug)]
pub struct StringReader<'a> {
    offsets: Offsets<'a>,
    data: &'a [u8],
    len: usize,
    /// Whether the column's bytes were found UTF-8 as a whole, with every
    /// offset on a character boundary: then every string is.
    all_utf8: bool,
}

impl StringColumns {
    fn new(records: usize) -> Self {
        let mut offsets = Vec::with_capacity(records + 1);
        offsets.push(0);
        StringColumns {
            offsets,
            data: Vec::new(),
        }
    }

    #[inline]
    fn push_str(&mut self, s: &str) {
        self.data.extend_from_slice(s.as_bytes());
        // A `Vec`'s length fits an `i64` on every platform Rust supports.
        self.offsets.push(self.data.len() as i64);
    }

    fn done(self) -> Column {
        Column::Strings {
            offsets: self.offsets,
            data: self.data,
        }
    }
}

impl<'a> StringReader<'a> {
    fn new(view: &ColumnView<'a>) -> Result<Self, RecordError> {
        match required(view)? {
            ColumnView::Strings { offsets, data } => {
                let len = offsets.check(data.len())?;
                Ok(StringReader {
                    len,
                    offsets: *offsets,
                    data,
                    all_utf8: all_utf8(offsets, data, len),
                })
            }
            other => Err(wrong_kind("strings", other)),
        }
    }

    #[inline]
    fn str(&self, index: usize) -> Result<&'a str, RecordError> {
        if index >= self.len {
            return Err(past_end(index, self.len));
        }
        let range = self.offsets.get(index).zip(self.offsets.get(index + 1));
        let bytes = range
            .and_then(|(a, b)| self.data.get(a..b))
            .ok_or_else(|| RecordError::new("string offsets out of bounds").at(index))?;
        if self.all_utf8 {
            // SAFETY: `bytes` lies between two checked offsets, each on a
            // character boundary of the column's bytes, which are UTF-8
            // as a whole (`all_utf8`).
            return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
        }
        std::str::from_utf8(bytes).map_err(|e| {
            RecordError::new(format!(
                "the string is not UTF-8: {e}, at byte {} of the column",
                range.map_or(0, |(a, _)| a) + e.valid_up_to()
            ))
            .at(index)
        })
    }
}

/// Whether the strings `0..len` of a column whose offsets were checked
/// are UTF-8, tested once for the whole column (one pass, rather than a
/// call a string); when not, each string is tested as it is read, so the
/// error names its record.
fn all_utf8(offsets: &Offsets<'_>, data: &[u8], len: usize) -> bool {
    let (Some(first), Some(last)) = (offsets.get(0), offsets.get(len)) else {
        return false;
    };
    let Some(Ok(text)) = data.get(first..last).map(std::str::from_utf8) else {
        return false;
    };
    (0..=len).all(|k| {
        offsets
            .get(k)
            .is_some_and(|o| text.is_char_boundary(o - first))
    })
}

macro_rules! string_record {
    ($($t:ty),*) => {$(
        impl Columns<$t> for StringColumns {
            fn with_capacity(records: usize) -> Self {
                Self::new(records)
            }

            #[inline]
            fn push(&mut self, value: &$t) {
                self.push_str(value);
            }

            fn push_null(&mut self) {
                self.push_str("");
            }

            fn len(&self) -> usize {
                self.offsets.len() - 1
            }

            fn finish(self) -> Column {
                self.done()
            }
        }

        impl ColumnReader<$t> for StringReader<'_> {
            fn len(&self) -> usize {
                self.len
            }

            fn get(&self, index: usize) -> Result<$t, RecordError> {
                self.str(index).map(<$t>::from)
            }
        }

        impl Record for $t {
            type Columns = StringColumns;
            type Reader<'a> = StringReader<'a>;

            fn datatype() -> Datatype {
                Datatype::String
            }

            fn reader<'a>(column: &ColumnView<'a>) -> Result<Self::Reader<'a>, RecordError> {
                StringReader::new(column)
            }
        }
    )*};
}

string_record!(String, Box<str>);

// ---- lists ---------------------------------------------------------------

/// The columns of `Vec<T>` and `Box<[T]>`: offsets and the items' columns.
pub struct ListColumns<T: Record> {
    offsets: Vec<i64>,
    items: T::Columns,
}

/// Reads lists of `T`.
pub struct ListReader<'a, T: Record> {
    offsets: Offsets<'a>,
    items: T::Reader<'a>,
    len: usize,
}

impl<T: Record> ListColumns<T> {
    fn new(records: usize) -> Self {
        let mut offsets = Vec::with_capacity(records + 1);
        offsets.push(0);
        ListColumns {
            offsets,
            items: T::Columns::with_capacity(records),
        }
    }

    #[inline]
    fn push_items(&mut self, items: &[T]) {
        self.items.extend(items);
        self.offsets.push(self.items.len() as i64);
    }

    fn done(self) -> Column {
        Column::List {
            offsets: self.offsets,
            values: Box::new(self.items.finish()),
        }
    }
}

impl<'a, T: Record> ListReader<'a, T> {
    fn new(view: &ColumnView<'a>) -> Result<Self, RecordError> {
        match required(view)? {
            ColumnView::List { offsets, values } => {
                let items = T::reader(values)?;
                Ok(ListReader {
                    len: offsets.check(items.len())?,
                    offsets: *offsets,
                    items,
                })
            }
            other => Err(wrong_kind("lists", other)),
        }
    }

    fn items(&self, index: usize) -> Result<Vec<T>, RecordError> {
        if index >= self.len {
            return Err(past_end(index, self.len));
        }
        let (start, end) = self
            .offsets
            .get(index)
            .zip(self.offsets.get(index + 1))
            .ok_or_else(|| RecordError::new("list offsets out of bounds"))?;
        let mut items = Vec::new();
        self.items
            .extend_from_range(start..end, &mut items)
            .map_err(|e| e.at(index))?;
        Ok(items)
    }
}

macro_rules! list_record {
    ($($t:ty => $from:expr),*) => {$(
        impl<T: Record> Columns<$t> for ListColumns<T> {
            fn with_capacity(records: usize) -> Self {
                Self::new(records)
            }

            #[inline]
            fn push(&mut self, value: &$t) {
                self.push_items(value);
            }

            fn push_null(&mut self) {
                self.push_items(&[]);
            }

            fn len(&self) -> usize {
                self.offsets.len() - 1
            }

            fn finish(self) -> Column {
                self.done()
            }
        }

        impl<T: Record> ColumnReader<$t> for ListReader<'_, T> {
            fn len(&self) -> usize {
                self.len
            }

            fn get(&self, index: usize) -> Result<$t, RecordError> {
                self.items(index).map($from)
            }
        }

        impl<T: Record> Record for $t {
            type Columns = ListColumns<T>;
            type Reader<'a> = ListReader<'a, T>;

            fn datatype() -> Datatype {
                Datatype::Vlen(Box::new(T::datatype()))
            }

            fn reader<'a>(column: &ColumnView<'a>) -> Result<Self::Reader<'a>, RecordError> {
                ListReader::new(column)
            }
        }
    )*};
}

list_record!(Vec<T> => std::convert::identity, Box<[T]> => Vec::into_boxed_slice);

// ---- fixed-size arrays ---------------------------------------------------

/// The columns of `[T; N]`: a fixed-size list of `T`'s columns.
pub struct ArrayColumns<T: Record, const N: usize> {
    items: T::Columns,
    len: usize,
}

/// Reads `[T; N]` from fixed-size lists of `N` items.
pub struct ArrayReader<'a, T: Record, const N: usize> {
    items: T::Reader<'a>,
    len: usize,
}

impl<T: Record, const N: usize> Columns<[T; N]> for ArrayColumns<T, N> {
    fn with_capacity(records: usize) -> Self {
        ArrayColumns {
            items: T::Columns::with_capacity(records.saturating_mul(N)),
            len: 0,
        }
    }

    #[inline]
    fn push(&mut self, value: &[T; N]) {
        self.items.extend(value);
        self.len += 1;
    }

    fn push_null(&mut self) {
        for _ in 0..N {
            self.items.push_null();
        }
        self.len += 1;
    }

    fn len(&self) -> usize {
        self.len
    }

    fn finish(self) -> Column {
        Column::FixedList {
            size: N,
            values: Box::new(self.items.finish()),
        }
    }
}

impl<T: Record, const N: usize> ColumnReader<[T; N]> for ArrayReader<'_, T, N> {
    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, index: usize) -> Result<[T; N], RecordError> {
        if index >= self.len {
            return Err(past_end(index, self.len));
        }
        let items = (index * N..(index + 1) * N)
            .map(|i| self.items.get(i))
            .collect::<Result<Vec<T>, RecordError>>()
            .map_err(|e| e.at(index))?;
        items
            .try_into()
            .map_err(|_| RecordError::new(format!("expected {N} items")).at(index))
    }
}

/// Hands the visitor `[T; N]` when `T` is plain.
struct ArrayVisitor<V, const N: usize>(V);

impl<V: PlainVisitor, const N: usize> PlainVisitor for ArrayVisitor<V, N> {
    type Output = V::Output;

    fn visit<T: NdlType>(self) -> V::Output {
        self.0.visit::<[T; N]>()
    }
}

impl<T: Record, const N: usize> Record for [T; N] {
    type Columns = ArrayColumns<T, N>;
    type Reader<'a> = ArrayReader<'a, T, N>;

    fn datatype() -> Datatype {
        T::datatype().array_of(&[N])
    }

    fn reader<'a>(column: &ColumnView<'a>) -> Result<Self::Reader<'a>, RecordError> {
        let (size, values) = match required(column)? {
            ColumnView::FixedList { size, values } => (*size, values),
            other => return Err(wrong_kind(&format!("lists of {N} items"), other)),
        };
        if size != N {
            return Err(RecordError::new(format!(
                "lists of {size} items do not fit `[_; {N}]`"
            )));
        }
        let items = T::reader(values)?;
        let len = items.len().checked_div(N).unwrap_or(0);
        if len * N != items.len() {
            return Err(RecordError::new(format!(
                "{} items are not a whole number of lists of {N}",
                items.len()
            )));
        }
        Ok(ArrayReader { items, len })
    }

    fn visit_plain<V: PlainVisitor>(visitor: V) -> Option<V::Output> {
        T::visit_plain(ArrayVisitor::<V, N>(visitor))
    }
}

// ---- options -------------------------------------------------------------

/// The columns of `Option<T>`: a validity bitmap beside `T`'s columns,
/// whose slot for a `None` holds the fill, if any, or a placeholder.
pub struct OptionColumns<T: Record> {
    validity: Bitmap,
    values: T::Columns,
    fill: Option<T>,
}

/// Reads `Option<T>`: `None` where the validity bit is unset (or where
/// the column has no validity, never).
pub struct OptionReader<'a, T: Record> {
    validity: Option<Bits<'a>>,
    values: T::Reader<'a>,
}

impl<T: Record> OptionColumns<T> {
    /// Columns whose `None`s hold `fill` (`#[ndl(fill = ...)]`).
    pub fn with_fill(records: usize, fill: T) -> Self {
        OptionColumns {
            fill: Some(fill),
            ..Self::with_capacity(records)
        }
    }
}

impl<T: Record> Columns<Option<T>> for OptionColumns<T> {
    fn with_capacity(records: usize) -> Self {
        OptionColumns {
            validity: Bitmap::with_capacity(records),
            values: T::Columns::with_capacity(records),
            fill: None,
        }
    }

    #[inline]
    fn push(&mut self, value: &Option<T>) {
        self.validity.push(value.is_some());
        match (value, &self.fill) {
            (Some(v), _) | (None, Some(v)) => self.values.push(v),
            (None, None) => self.values.push_null(),
        }
    }

    fn push_null(&mut self) {
        self.push(&None);
    }

    fn len(&self) -> usize {
        self.validity.len()
    }

    fn finish(self) -> Column {
        let fill = self.fill.map(|f| {
            let mut c = T::Columns::with_capacity(1);
            c.push(&f);
            Box::new(c.finish())
        });
        Column::Nullable {
            validity: self.validity,
            values: Box::new(self.values.finish()),
            fill,
        }
    }
}

impl<T: Record> ColumnReader<Option<T>> for OptionReader<'_, T> {
    fn len(&self) -> usize {
        self.values.len()
    }

    #[inline]
    fn get(&self, index: usize) -> Result<Option<T>, RecordError> {
        if self.validity.is_some_and(|v| !v.get(index)) {
            if index >= self.values.len() {
                return Err(past_end(index, self.values.len()));
            }
            return Ok(None);
        }
        self.values.get(index).map(Some)
    }
}

impl<T: Record> Record for Option<T> {
    type Columns = OptionColumns<T>;
    type Reader<'a> = OptionReader<'a, T>;

    fn datatype() -> Datatype {
        Datatype::Optional(Box::new(T::datatype()))
    }

    fn reader<'a>(column: &ColumnView<'a>) -> Result<Self::Reader<'a>, RecordError> {
        let ColumnView::Nullable { validity, values } = column else {
            return Ok(OptionReader {
                validity: None,
                values: T::reader(column)?,
            });
        };
        let values = T::reader(values)?;
        if validity.len() != values.len() {
            return Err(RecordError::new(format!(
                "{} validity bits for {} values",
                validity.len(),
                values.len()
            )));
        }
        Ok(OptionReader {
            validity: Some(*validity),
            values,
        })
    }
}

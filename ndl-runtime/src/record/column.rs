//! The neutral, owned columns a [`Columns`](super::Columns) builds, and the
//! borrowed views a reader takes. Both have Arrow's layout: typed value
//! buffers, offsets, LSB-first validity bitmaps.

use crate::{Datatype, NdlType};

use super::RecordError;

/// A Rust number type with a [`Values`] variant of its own; its default
/// (zero) is the placeholder of a `None`.
pub trait Number: NdlType + Default {
    /// The values as their [`Values`] variant.
    fn wrap(values: Vec<Self>) -> Values;

    /// The slice, if `view` holds this type.
    fn unwrap<'a>(view: &ValuesView<'a>) -> Option<&'a [Self]>;
}

/// A column of values, owned: what [`Columns::finish`](super::Columns::finish)
/// gives. Every buffer is a plain `Vec` of the element type, so a format
/// crate can hand it to its own buffers without copying (Arrow's
/// `Buffer::from_vec`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Column {
    /// Numbers, one per record. `datatype` says what they mean: the number
    /// itself, an enum's integer (`Datatype::Enum`), a time count
    /// (`Datatype::Time`).
    Values {
        /// What the values stand for.
        datatype: Datatype,
        /// The values.
        values: Values,
    },
    /// `bool`s, one bit per record.
    Bool(Bitmap),
    /// Any other fixed-size value (fixed strings, opaque bytes, `float16`,
    /// complex numbers): each record's bytes packed back to back without
    /// padding, in native byte order, as `datatype` lays them out.
    Plain {
        /// The datatype of one record's bytes (a compound is packed:
        /// offsets ascend without gaps).
        datatype: Datatype,
        /// `len * datatype.size()` bytes.
        bytes: Vec<u8>,
    },
    /// UTF-8 strings: record `i` is `data[offsets[i]..offsets[i + 1]]`.
    /// `offsets` has one more entry than there are records and starts at 0;
    /// 64-bit, so no column overflows them (Arrow's `LargeUtf8`).
    Strings {
        /// Where each string starts, and where the last one ends.
        offsets: Vec<i64>,
        /// The strings' bytes, back to back.
        data: Vec<u8>,
    },
    /// Variable-length lists: record `i` is items
    /// `offsets[i]..offsets[i + 1]` of `values` (Arrow's `LargeList`).
    List {
        /// Where each list starts, and where the last one ends.
        offsets: Vec<i64>,
        /// The items of every list, back to back.
        values: Box<Column>,
    },
    /// Fixed-length lists (`[T; N]`): record `i` is items
    /// `i * size..(i + 1) * size` of `values`.
    FixedList {
        /// Items per record.
        size: usize,
        /// The items of every record, back to back.
        values: Box<Column>,
    },
    /// A record of named fields, one column each, every one `len` long.
    Struct {
        /// The number of records.
        len: usize,
        /// The fields in declared order, by their (renamed) names.
        fields: Vec<(String, Column)>,
    },
    /// An `Option`: where `validity` is unset the record is `None`, and its
    /// slot in `values` holds `fill` if the field has one
    /// (`#[ndl(fill = ...)]`), else a placeholder (zeros, an empty string,
    /// an empty list).
    Nullable {
        /// One bit per record, set where the value is present.
        validity: Bitmap,
        /// The values, placeholders included.
        values: Box<Column>,
        /// The field's fill value as a one-record column, if it has one:
        /// what a format without nulls stores for `None`.
        fill: Option<Box<Column>>,
    },
}

/// Typed number buffers.
#[derive(Clone, Debug, PartialEq)]
#[allow(missing_docs)] // one variant per Rust number type, named after it
#[non_exhaustive]
pub enum Values {
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// A borrowed [`Values`]: what a reader takes, from a [`Column`] or
/// straight from another library's buffers.
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)]
#[non_exhaustive]
pub enum ValuesView<'a> {
    I8(&'a [i8]),
    I16(&'a [i16]),
    I32(&'a [i32]),
    I64(&'a [i64]),
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
}

/// A growable bitmap, least significant bit first (Arrow's validity and
/// boolean layout).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bitmap {
    bytes: Vec<u8>,
    len: usize,
}

/// A borrowed bitmap: `len` bits from bit `offset` of `bytes`, least
/// significant bit first (an Arrow buffer of a sliced array).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bits<'a> {
    bytes: &'a [u8],
    offset: usize,
    len: usize,
}

/// Borrowed list or string offsets, 32-bit (Arrow `Utf8`, `List`) or
/// 64-bit (`LargeUtf8`, `LargeList`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Offsets<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
}

/// A borrowed column: what [`Record::reader`](super::Record::reader)
/// reads. Build it from a [`Column`] ([`Column::view`]) or from another
/// library's buffers; readers check its shape (offsets in bounds and
/// ascending, lengths agreeing) before reading any value.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ColumnView<'a> {
    /// Numbers (see [`Column::Values`]).
    Values(ValuesView<'a>),
    /// `bool`s.
    Bool(Bits<'a>),
    /// Packed fixed-size values (see [`Column::Plain`]).
    Plain(&'a [u8]),
    /// UTF-8 strings.
    Strings {
        /// `len + 1` ascending offsets into `data`.
        offsets: Offsets<'a>,
        /// The bytes.
        data: &'a [u8],
    },
    /// Variable-length lists.
    List {
        /// `len + 1` ascending offsets into `values`.
        offsets: Offsets<'a>,
        /// The items.
        values: Box<ColumnView<'a>>,
    },
    /// Fixed-length lists.
    FixedList {
        /// Items per record.
        size: usize,
        /// The items.
        values: Box<ColumnView<'a>>,
    },
    /// Named fields, found by name in any order.
    Struct {
        /// The number of records.
        len: usize,
        /// The fields.
        fields: Vec<(&'a str, ColumnView<'a>)>,
    },
    /// Values with a validity bitmap (unset: null).
    Nullable {
        /// One bit per record.
        validity: Bits<'a>,
        /// The values, nulls' slots included.
        values: Box<ColumnView<'a>>,
    },
}

impl Column {
    /// The number of records.
    pub fn len(&self) -> usize {
        match self {
            Column::Values { values, .. } => values.len(),
            Column::Bool(bits) => bits.len(),
            Column::Plain { datatype, bytes } => bytes.len() / datatype.size().unwrap_or(1).max(1),
            Column::Strings { offsets, .. } | Column::List { offsets, .. } => {
                offsets.len().saturating_sub(1)
            }
            Column::FixedList { size, values } => values.len().checked_div(*size).unwrap_or(0),
            Column::Struct { len, .. } => *len,
            Column::Nullable { validity, .. } => validity.len(),
        }
    }

    /// Whether there are no records.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The column borrowed, for reading.
    pub fn view(&self) -> ColumnView<'_> {
        match self {
            Column::Values { values, .. } => ColumnView::Values(values.view()),
            Column::Bool(bits) => ColumnView::Bool(bits.bits()),
            Column::Plain { bytes, .. } => ColumnView::Plain(bytes),
            Column::Strings { offsets, data } => ColumnView::Strings {
                offsets: Offsets::I64(offsets),
                data,
            },
            Column::List { offsets, values } => ColumnView::List {
                offsets: Offsets::I64(offsets),
                values: Box::new(values.view()),
            },
            Column::FixedList { size, values } => ColumnView::FixedList {
                size: *size,
                values: Box::new(values.view()),
            },
            Column::Struct { len, fields } => ColumnView::Struct {
                len: *len,
                fields: fields.iter().map(|(n, c)| (n.as_str(), c.view())).collect(),
            },
            Column::Nullable {
                validity, values, ..
            } => ColumnView::Nullable {
                validity: validity.bits(),
                values: Box::new(values.view()),
            },
        }
    }

    /// The column of the member at dotted `path` (`venue.code`) of a struct
    /// column, through optional structs and the items of lists too (a
    /// list of records' `legs.price` is the `price` of its items); `None`
    /// when there is none.
    ///
    /// ```
    /// use ndl_runtime::record::{Bitmap, Column};
    ///
    /// let code = Column::Strings { offsets: vec![0], data: vec![] };
    /// let venue = Column::Struct { len: 0, fields: vec![("code".into(), code.clone())] };
    /// let mut record = Column::Struct {
    ///     len: 0,
    ///     fields: vec![(
    ///         "venue".into(),
    ///         Column::Nullable { validity: Bitmap::default(), values: Box::new(venue), fill: None },
    ///     )],
    /// };
    /// assert_eq!(record.member_mut("venue.code"), Some(&mut code.clone()));
    /// assert_eq!(record.member_mut("venue.name"), None);
    /// ```
    pub fn member_mut(&mut self, path: &str) -> Option<&mut Column> {
        path.split('.').try_fold(self, |column, name| {
            let Column::Struct { fields, .. } = column.items_mut() else {
                return None;
            };
            fields.iter_mut().find(|(n, _)| n == name).map(|(_, c)| c)
        })
    }

    /// The column below every option and list around this one: what the
    /// items hold.
    fn items_mut(&mut self) -> &mut Column {
        match self {
            Column::Nullable { values, .. }
            | Column::List { values, .. }
            | Column::FixedList { values, .. } => values.items_mut(),
            other => other,
        }
    }

    /// For a [`Column::Nullable`] with a fill: the first record that holds
    /// a value equal to the fill (bit for bit), which a format without
    /// nulls would read back as `None`. Formats that store the fill refuse
    /// such a column, naming this record.
    pub fn fill_clash(&self) -> Option<usize> {
        let Column::Nullable {
            validity,
            values,
            fill: Some(fill),
        } = self
        else {
            return None;
        };
        (0..validity.len()).find(|&i| validity.get(i) && values.same_value(i, fill, 0))
    }

    /// Whether record `i` of `self` and record `j` of `other` hold the
    /// same bits.
    fn same_value(&self, i: usize, other: &Column, j: usize) -> bool {
        match (self, other) {
            (Column::Values { values: a, .. }, Column::Values { values: b, .. }) => {
                a.same_value(i, b, j)
            }
            (Column::Bool(a), Column::Bool(b)) => a.get(i) == b.get(j),
            (Column::Plain { datatype, bytes: a }, Column::Plain { bytes: b, .. }) => {
                let n = datatype.size().unwrap_or(0);
                a.get(i * n..(i + 1) * n) == b.get(j * n..(j + 1) * n)
            }
            (
                Column::Strings {
                    offsets: oa,
                    data: a,
                },
                Column::Strings {
                    offsets: ob,
                    data: b,
                },
            ) => slice_at(oa, a, i) == slice_at(ob, b, j),
            (
                Column::List {
                    offsets: oa,
                    values: a,
                },
                Column::List {
                    offsets: ob,
                    values: b,
                },
            ) => {
                let (ra, rb) = (range_at(oa, i), range_at(ob, j));
                ra.len() == rb.len() && ra.zip(rb).all(|(x, y)| a.same_value(x, b, y))
            }
            (Column::FixedList { size, values: a }, Column::FixedList { values: b, .. }) => {
                (0..*size).all(|k| a.same_value(i * size + k, b, j * size + k))
            }
            (Column::Struct { fields: a, .. }, Column::Struct { fields: b, .. }) => a
                .iter()
                .zip(b)
                .all(|((_, x), (_, y))| x.same_value(i, y, j)),
            (
                Column::Nullable {
                    validity: va,
                    values: a,
                    ..
                },
                Column::Nullable {
                    validity: vb,
                    values: b,
                    ..
                },
            ) => va.get(i) == vb.get(j) && (!va.get(i) || a.same_value(i, b, j)),
            _ => false,
        }
    }
}

fn range_at(offsets: &[i64], i: usize) -> std::ops::Range<usize> {
    let at = |k: usize| offsets.get(k).map_or(0, |&o| o as usize);
    at(i)..at(i + 1)
}

fn slice_at<'a>(offsets: &[i64], data: &'a [u8], i: usize) -> Option<&'a [u8]> {
    data.get(range_at(offsets, i))
}

macro_rules! values {
    ($($variant:ident($t:ty)),* $(,)?) => {
        impl Values {
            /// The number of values.
            pub fn len(&self) -> usize {
                match self { $(Values::$variant(v) => v.len(),)* }
            }

            /// Whether there are none.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }

            /// The values borrowed.
            pub fn view(&self) -> ValuesView<'_> {
                match self { $(Values::$variant(v) => ValuesView::$variant(v),)* }
            }

            /// The values' bytes, numbers in native order.
            pub fn as_bytes(&self) -> &[u8] {
                match self { $(Values::$variant(v) => bytemuck::cast_slice(v),)* }
            }

            /// The size of one value in bytes.
            pub fn value_size(&self) -> usize {
                match self { $(Values::$variant(_) => std::mem::size_of::<$t>(),)* }
            }

            /// Values of the type of `like` from `bytes`, numbers in native
            /// order (trailing bytes short of a whole value are left out).
            ///
            /// ```
            /// use ndl_runtime::record::Values;
            ///
            /// let like = Values::I16(Vec::new());
            /// let back = Values::from_ne_bytes(&like, Values::I16(vec![1, -2]).as_bytes());
            /// assert_eq!(back, Values::I16(vec![1, -2]));
            /// ```
            pub fn from_ne_bytes(like: &Values, bytes: &[u8]) -> Values {
                match like {
                    $(Values::$variant(_) => {
                        let whole = bytes.len() / std::mem::size_of::<$t>() * std::mem::size_of::<$t>();
                        Values::$variant(bytemuck::pod_collect_to_vec(&bytes[..whole]))
                    })*
                }
            }

            /// Puts value `j` of `other`, of the same type, in slot `i`
            /// (nothing when either is out of bounds or the types differ).
            pub(crate) fn set_from(&mut self, i: usize, other: &Values, j: usize) {
                match (self, other) {
                    $((Values::$variant(a), Values::$variant(b)) => {
                        if let (Some(slot), Some(&v)) = (a.get_mut(i), b.get(j)) {
                            *slot = v;
                        }
                    })*
                    _ => {}
                }
            }

            /// Bitwise: a NaN fill matches the same NaN.
            fn same_value(&self, i: usize, other: &Values, j: usize) -> bool {
                match (self, other) {
                    $((Values::$variant(a), Values::$variant(b)) => {
                        a.get(i).map(|x| x.to_ne_bytes()) == b.get(j).map(|y| y.to_ne_bytes())
                    })*
                    _ => false,
                }
            }
        }

        impl ValuesView<'_> {
            /// The number of values.
            pub fn len(&self) -> usize {
                match self { $(ValuesView::$variant(v) => v.len(),)* }
            }

            /// Whether there are none.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }

            /// The Rust type of the values, for error messages.
            pub fn type_name(&self) -> &'static str {
                match self { $(ValuesView::$variant(_) => stringify!($t),)* }
            }
        }

        $(
            impl Number for $t {
                fn wrap(values: Vec<$t>) -> Values {
                    Values::$variant(values)
                }

                fn unwrap<'a>(view: &ValuesView<'a>) -> Option<&'a [$t]> {
                    match *view {
                        ValuesView::$variant(v) => Some(v),
                        _ => None,
                    }
                }
            }
        )*
    };
}

values! {
    I8(i8), I16(i16), I32(i32), I64(i64),
    U8(u8), U16(u16), U32(u32), U64(u64),
    F32(f32), F64(f64),
}

impl Bitmap {
    /// An empty bitmap with room for `bits` bits.
    pub fn with_capacity(bits: usize) -> Bitmap {
        Bitmap {
            bytes: Vec::with_capacity(bits.div_ceil(8)),
            len: 0,
        }
    }

    /// Appends one bit.
    #[inline]
    pub fn push(&mut self, bit: bool) {
        if self.len.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if bit {
            // The push above guarantees a last byte.
            if let Some(last) = self.bytes.last_mut() {
                *last |= 1 << (self.len % 8);
            }
        }
        self.len += 1;
    }

    /// Bit `i` (false past the end).
    pub fn get(&self, i: usize) -> bool {
        self.bits().get(i)
    }

    /// The number of bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes, `len.div_ceil(8)` of them, unused high bits zero.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes, for a format crate to hand over without copying.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The bitmap borrowed.
    pub fn bits(&self) -> Bits<'_> {
        Bits {
            bytes: &self.bytes,
            offset: 0,
            len: self.len,
        }
    }
}

impl<'a> Bits<'a> {
    /// `len` bits from bit `offset` of `bytes`, or an error if `bytes` is
    /// too short.
    pub fn new(bytes: &'a [u8], offset: usize, len: usize) -> Result<Bits<'a>, RecordError> {
        let end = offset
            .checked_add(len)
            .ok_or_else(|| RecordError::new("a bitmap's length overflows"))?;
        if end.div_ceil(8) > bytes.len() {
            return Err(RecordError::new(format!(
                "a bitmap of {len} bits from bit {offset} needs {} bytes, but has {}",
                end.div_ceil(8),
                bytes.len()
            )));
        }
        Ok(Bits { bytes, offset, len })
    }

    /// The number of bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bit `i` (false past the end).
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        if i >= self.len {
            return false;
        }
        let bit = self.offset + i;
        self.bytes
            .get(bit / 8)
            .is_some_and(|b| b & (1 << (bit % 8)) != 0)
    }

    /// The first unset bit, if any.
    pub fn first_unset(&self) -> Option<usize> {
        (0..self.len).find(|&i| !self.get(i))
    }
}

impl Offsets<'_> {
    /// The number of entries (one more than the number of records).
    pub fn len(&self) -> usize {
        match self {
            Offsets::I32(o) => o.len(),
            Offsets::I64(o) => o.len(),
        }
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entry `k`, or `None` past the end or if negative.
    #[inline]
    pub fn get(&self, k: usize) -> Option<usize> {
        match self {
            Offsets::I32(o) => o.get(k).and_then(|&v| usize::try_from(v).ok()),
            Offsets::I64(o) => o.get(k).and_then(|&v| usize::try_from(v).ok()),
        }
    }

    /// Checks that the offsets ascend from a non-negative start and end
    /// within `items`; gives the number of records.
    pub(crate) fn check(&self, items: usize) -> Result<usize, RecordError> {
        let n = self.len();
        if n == 0 {
            return Err(RecordError::new(
                "offsets are empty; they need one more entry than there are records",
            ));
        }
        let mut previous = 0;
        for k in 0..n {
            let v = self.get(k).ok_or_else(|| {
                RecordError::new(format!("offset {k} is negative")).at(k.min(n.saturating_sub(2)))
            })?;
            if v < previous {
                return Err(
                    RecordError::new(format!("offsets descend: {v} after {previous}")).at(k - 1),
                );
            }
            previous = v;
        }
        if previous > items {
            return Err(RecordError::new(format!(
                "the last offset is {previous}, past the {items} items"
            ))
            .at(n.saturating_sub(2)));
        }
        Ok(n - 1)
    }
}

//! Arrow arrays into columns a record reader takes, borrowing their
//! buffers: numbers, string bytes and offsets (32- or 64-bit), list
//! offsets and bitmaps as they are. Strings in other forms (views,
//! dictionaries) are laid out as `LargeUtf8` first; enums, time and other
//! fixed-size values go through the plain records' conversions.
//!
//! The shape expected is `T::Columns` of no records (the template): it
//! says, at every level, which kind of column `T`'s reader takes.

use std::collections::HashMap;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray, UInt64Array};
use arrow_buffer::{
    BooleanBuffer, BooleanBufferBuilder, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer,
};
use arrow_schema::{DataType, Field, Schema};
use ndl_runtime::record::{Bits, Column, ColumnView, Offsets, RecordError, Values, ValuesView};
use ndl_runtime::{ByteOrder, Datatype, Enum};

use super::rows::Place;
use super::schema::data_type;
use crate::error::Error;
use crate::options::ReadOptions;
use crate::raw_batch::from_record_batch_raw;
use crate::schema::{VALUE_COLUMN, primitive};
use crate::strings::Strings;

/// Values read from Arrow arrays, owning (sharing) their buffers.
pub(crate) enum Decoded {
    /// A primitive array whose values are the numbers.
    Numbers(ArrayRef),
    /// Numbers converted (an enum's values, time counts).
    Values(Values),
    Bool(BooleanBuffer),
    Plain(Vec<u8>),
    Strings {
        offsets: Offs,
        data: Buffer,
    },
    List {
        offsets: Offs,
        values: Box<Decoded>,
    },
    FixedList {
        size: usize,
        values: Box<Decoded>,
    },
    Struct {
        len: usize,
        fields: Vec<(String, Decoded)>,
    },
    Nullable {
        validity: NullBuffer,
        values: Box<Decoded>,
    },
}

/// Offsets of either width.
pub(crate) enum Offs {
    Small(ScalarBuffer<i32>),
    Large(ScalarBuffer<i64>),
}

impl Offs {
    fn view(&self) -> Offsets<'_> {
        match self {
            Offs::Small(o) => Offsets::I32(o),
            Offs::Large(o) => Offsets::I64(o),
        }
    }
}

fn bits(b: &BooleanBuffer) -> Result<Bits<'_>, RecordError> {
    Bits::new(b.values(), b.offset(), b.len())
}

impl Decoded {
    /// The values as a column view.
    pub fn view(&self) -> Result<ColumnView<'_>, RecordError> {
        Ok(match self {
            Decoded::Numbers(array) => ColumnView::Values(number_view(array)?),
            Decoded::Values(v) => ColumnView::Values(v.view()),
            Decoded::Bool(b) => ColumnView::Bool(bits(b)?),
            Decoded::Plain(bytes) => ColumnView::Plain(bytes),
            Decoded::Strings { offsets, data } => ColumnView::Strings {
                offsets: offsets.view(),
                data,
            },
            Decoded::List { offsets, values } => ColumnView::List {
                offsets: offsets.view(),
                values: Box::new(values.view()?),
            },
            Decoded::FixedList { size, values } => ColumnView::FixedList {
                size: *size,
                values: Box::new(values.view()?),
            },
            Decoded::Struct { len, fields } => ColumnView::Struct {
                len: *len,
                fields: fields
                    .iter()
                    .map(|(n, d)| Ok((n.as_str(), d.view()?)))
                    .collect::<Result<_, RecordError>>()?,
            },
            Decoded::Nullable { validity, values } => ColumnView::Nullable {
                validity: bits(validity.inner())?,
                values: Box::new(values.view()?),
            },
        })
    }
}

/// The numbers of a primitive array, borrowed.
fn number_view(array: &ArrayRef) -> Result<ValuesView<'_>, RecordError> {
    macro_rules! views {
        ($($arrow_type:ident => $variant:ident($arrow:ty)),*) => {
            match array.data_type() {
                $(DataType::$arrow_type => ValuesView::$variant(array.as_primitive::<$arrow>().values()),)*
                other => return Err(RecordError::new(format!("{other} is no column of numbers"))),
            }
        };
    }
    Ok(views!(
        Int8 => I8(Int8Type), Int16 => I16(Int16Type), Int32 => I32(Int32Type),
        Int64 => I64(Int64Type), UInt8 => U8(UInt8Type), UInt16 => U16(UInt16Type),
        UInt32 => U32(UInt32Type), UInt64 => U64(UInt64Type), Float32 => F32(Float32Type),
        Float64 => F64(Float64Type)
    ))
}

/// How values are read at one place.
#[derive(Clone)]
pub(crate) struct Cx<'o> {
    pub at: Place,
    /// Values that no one reads (under a null of an enclosing `Option`):
    /// unset bits. A null there is no error.
    pub mask: Option<NullBuffer>,
    pub options: &'o ReadOptions,
}

impl Cx<'_> {
    fn wrong(&self, t: &Column, found: &DataType, also: &str) -> Error {
        let expected = data_type(t, None, &self.at.path)
            .map(|t| t.to_string())
            .unwrap_or_else(|_| "another type".into());
        Error::schema(
            &self.at.path,
            format!("expected {expected}{also}, found {found}"),
        )
    }
}

/// The top-level columns of `batch` as the struct `template` is, or as
/// its one `value` column.
pub(crate) fn batch(
    template: &Column,
    batch: &RecordBatch,
    options: &ReadOptions,
) -> Result<Decoded, Error> {
    let columns = super::schema::top_columns(template);
    if !options.ignore_extra_columns {
        let schema = batch.schema();
        if let Some(extra) = schema
            .fields()
            .iter()
            .find(|f| !columns.iter().any(|(name, _)| f.name() == name))
        {
            return Err(extra_column(extra.name()));
        }
    }
    let mut fields = Vec::with_capacity(columns.len());
    for (name, t) in columns {
        let array = batch
            .column_by_name(name)
            .ok_or_else(|| Error::schema(name, "missing"))?;
        let cx = Cx {
            at: Place::column(name),
            mask: None,
            options,
        };
        fields.push((name.to_owned(), decode(t, array, &cx)?));
    }
    if !matches!(template, Column::Struct { .. }) {
        return Ok(fields.pop().map(|(_, d)| d).expect("one value column"));
    }
    Ok(Decoded::Struct {
        len: batch.num_rows(),
        fields,
    })
}

fn extra_column(path: &str) -> Error {
    Error::schema(
        path,
        "the records have no such member (ReadOptions::ignore_extra_columns skips it)",
    )
}

/// The values of `array` as `t` takes them.
fn decode(t: &Column, array: &ArrayRef, cx: &Cx<'_>) -> Result<Decoded, Error> {
    let array = &crate::dictionary::unpacked(array, &cx.at.path)?;
    if let Column::Nullable { values, .. } = t {
        if let Column::Nullable { .. } = values.as_ref() {
            return Err(Error::Unsupported {
                column: cx.at.path.clone(),
                datatype: "an `Option` of an `Option` (Arrow has one null per value)".into(),
            });
        }
        let nulls = array.logical_nulls().filter(|n| n.null_count() > 0);
        let mask = NullBuffer::union(cx.mask.as_ref(), nulls.as_ref());
        let inner = decode_value(values, array, &Cx { mask, ..cx.clone() })?;
        return Ok(match nulls {
            Some(validity) => Decoded::Nullable {
                validity,
                values: Box::new(inner),
            },
            None => inner,
        });
    }
    // A null time is NaT, as in plain records.
    let time = matches!(
        t,
        Column::Values {
            datatype: Datatype::Time(_),
            ..
        }
    );
    if !time {
        no_nulls(array, cx)?;
    }
    decode_value(t, array, cx)
}

/// An error naming the first null of `array` that is not under a null of
/// an enclosing `Option`.
fn no_nulls(array: &ArrayRef, cx: &Cx<'_>) -> Result<(), Error> {
    let Some(nulls) = array.logical_nulls().filter(|n| n.null_count() > 0) else {
        return Ok(());
    };
    let read = |i: usize| cx.mask.as_ref().is_none_or(|m| m.is_valid(i));
    match nulls
        .inner()
        .iter()
        .enumerate()
        .position(|(i, valid)| !valid && read(i))
    {
        Some(i) => Err(cx.at.invalid(
            i,
            "a null, where the field is not an `Option`; make it an `Option` to read nulls",
        )),
        None => Ok(()),
    }
}

/// The values of `array` as `t` (not an `Option`) takes them, nulls aside.
fn decode_value(t: &Column, array: &ArrayRef, cx: &Cx<'_>) -> Result<Decoded, Error> {
    let found = array.data_type();
    Ok(match t {
        Column::Values { datatype, values } => {
            if let Some(p) = primitive(datatype) {
                if &p != found {
                    return Err(cx.wrong(t, found, ""));
                }
                return Ok(Decoded::Numbers(array.clone()));
            }
            match datatype {
                Datatype::Enum(e) => Decoded::Values(enum_values(e, values, array, t, cx)?),
                _ => {
                    let bytes = plain_bytes(datatype, array, cx)?;
                    Decoded::Values(Values::from_ne_bytes(values, &bytes))
                }
            }
        }
        Column::Bool(_) => match array.as_boolean_opt() {
            Some(b) => Decoded::Bool(b.values().clone()),
            None => return Err(cx.wrong(t, found, "")),
        },
        Column::Plain { datatype, .. } => Decoded::Plain(plain_bytes(datatype, array, cx)?),
        Column::Strings { .. } => strings(array).ok_or_else(|| {
            cx.wrong(
                t,
                found,
                " (or LargeUtf8, Utf8View, a dictionary of strings)",
            )
        })?,
        Column::List { values, .. } => list(values, array, cx)?.ok_or_else(|| {
            cx.wrong(
                t,
                found,
                " (or LargeList, FixedSizeList, Map, Binary, LargeBinary)",
            )
        })?,
        Column::FixedList { size, values } => fixed_list(*size, values, array, cx)?
            .ok_or_else(|| cx.wrong(t, found, " (or a List of lists that long)"))?,
        Column::Struct { fields, .. } => {
            let Some(s) = array.as_struct_opt() else {
                return Err(cx.wrong(t, found, ""));
            };
            struct_fields(fields, s, cx)?
        }
        _ => {
            return Err(Error::Unsupported {
                column: cx.at.path.clone(),
                datatype: "a kind of column this version of ndl-arrow does not know".into(),
            });
        }
    })
}

fn struct_fields(
    fields: &[(String, Column)],
    s: &StructArray,
    cx: &Cx<'_>,
) -> Result<Decoded, Error> {
    if !cx.options.ignore_extra_columns
        && let Some(extra) = s
            .fields()
            .iter()
            .find(|f| !fields.iter().any(|(name, _)| f.name() == name))
    {
        return Err(extra_column(&format!("{}.{}", cx.at.path, extra.name())));
    }
    let mask = NullBuffer::union(cx.mask.as_ref(), s.nulls());
    let mut out = Vec::with_capacity(fields.len());
    for (name, t) in fields {
        let at = cx.at.field(name);
        let child = s
            .column_by_name(name)
            .ok_or_else(|| Error::schema(&at.path, "missing"))?;
        let cx = Cx {
            at,
            mask: mask.clone(),
            options: cx.options,
        };
        out.push((name.clone(), decode(t, child, &cx)?));
    }
    Ok(Decoded::Struct {
        len: s.len(),
        fields: out,
    })
}

/// Strings of any Arrow form; `None` if `array` holds none.
fn strings(array: &ArrayRef) -> Option<Decoded> {
    match array.data_type() {
        DataType::Utf8 => {
            let s = array.as_string::<i32>();
            Some(Decoded::Strings {
                offsets: Offs::Small(s.offsets().inner().clone()),
                data: s.values().clone(),
            })
        }
        DataType::LargeUtf8 => {
            let s = array.as_string::<i64>();
            Some(Decoded::Strings {
                offsets: Offs::Large(s.offsets().inner().clone()),
                data: s.values().clone(),
            })
        }
        _ => {
            // Views and dictionaries: laid out as `LargeUtf8`, a null as "".
            let strings = Strings::of(array)?;
            let mut offsets = Vec::with_capacity(strings.len() + 1);
            offsets.push(0i64);
            let mut data = Vec::new();
            for i in 0..strings.len() {
                if array.is_valid(i) {
                    data.extend_from_slice(strings.get(i).as_bytes());
                }
                offsets.push(data.len() as i64);
            }
            Some(Decoded::Strings {
                offsets: Offs::Large(ScalarBuffer::from(offsets)),
                data: Buffer::from_vec(data),
            })
        }
    }
}

/// Lists of `items`; `Ok(None)` if `array` holds no lists.
fn list(items: &Column, array: &ArrayRef, cx: &Cx<'_>) -> Result<Option<Decoded>, Error> {
    let decoded = match array.data_type() {
        DataType::List(_) => {
            let l = array.as_list::<i32>();
            let (offsets, values) = rebased(l.offsets(), l.values());
            let at = cx.at.items(cx.at.rows.small(&offsets));
            let cx = items_cx(cx, at, lengths(&offsets));
            Decoded::List {
                values: Box::new(decode(items, &values, &cx)?),
                offsets: Offs::Small(offsets.into_inner()),
            }
        }
        DataType::LargeList(_) => {
            let l = array.as_list::<i64>();
            let (offsets, values) = rebased(l.offsets(), l.values());
            let at = cx.at.items(cx.at.rows.large(&offsets));
            let cx = items_cx(cx, at, lengths(&offsets));
            Decoded::List {
                values: Box::new(decode(items, &values, &cx)?),
                offsets: Offs::Large(offsets.into_inner()),
            }
        }
        // A map is a list of its key-value records.
        DataType::Map(..) => {
            let m = array.as_map();
            let entries: ArrayRef = std::sync::Arc::new(m.entries().clone());
            let (offsets, values) = rebased(m.offsets(), &entries);
            let at = cx.at.items(cx.at.rows.small(&offsets));
            let cx = items_cx(cx, at, lengths(&offsets));
            Decoded::List {
                values: Box::new(decode(items, &values, &cx)?),
                offsets: Offs::Small(offsets.into_inner()),
            }
        }
        // Bytes are lists of `u8`, their buffer the items.
        DataType::Binary => {
            let b = array.as_binary::<i32>();
            let (offsets, values) = rebased(b.offsets(), &bytes(b.values()));
            let at = cx.at.items(cx.at.rows.small(&offsets));
            let cx = items_cx(cx, at, lengths(&offsets));
            Decoded::List {
                values: Box::new(decode(items, &values, &cx)?),
                offsets: Offs::Small(offsets.into_inner()),
            }
        }
        DataType::LargeBinary => {
            let b = array.as_binary::<i64>();
            let (offsets, values) = rebased(b.offsets(), &bytes(b.values()));
            let at = cx.at.items(cx.at.rows.large(&offsets));
            let cx = items_cx(cx, at, lengths(&offsets));
            Decoded::List {
                values: Box::new(decode(items, &values, &cx)?),
                offsets: Offs::Large(offsets.into_inner()),
            }
        }
        DataType::FixedSizeList(_, n) => {
            let l = array.as_fixed_size_list();
            let size = usize::try_from(*n).unwrap_or(0);
            let offsets: Vec<i64> = (0..=l.len()).map(|i| (i * size) as i64).collect();
            let at = cx.at.items(cx.at.rows.fixed(size));
            let cx = items_cx(cx, at, std::iter::repeat_n(size, l.len()));
            Decoded::List {
                values: Box::new(decode(items, l.values(), &cx)?),
                offsets: Offs::Large(ScalarBuffer::from(offsets)),
            }
        }
        _ => return Ok(None),
    };
    Ok(Some(decoded))
}

/// The bytes of a binary array as an array of `u8`, sharing the buffer.
fn bytes(values: &Buffer) -> ArrayRef {
    let len = values.len();
    std::sync::Arc::new(arrow_array::UInt8Array::new(
        ScalarBuffer::new(values.clone(), 0, len),
        None,
    ))
}

/// How the items of lists of `lengths` are read: those of a list no one
/// reads (under a null) are not read either.
fn items_cx<'o>(cx: &Cx<'o>, at: Place, lengths: impl Iterator<Item = usize>) -> Cx<'o> {
    let mask = cx.mask.as_ref().map(|lists| {
        let mut bits = BooleanBufferBuilder::new(0);
        for (read, len) in lists.iter().zip(lengths) {
            bits.append_n(len, read);
        }
        NullBuffer::new(bits.finish())
    });
    Cx {
        at,
        mask,
        options: cx.options,
    }
}

/// The lengths of lists with `offsets`.
fn lengths<O: arrow_array::OffsetSizeTrait>(
    offsets: &OffsetBuffer<O>,
) -> impl Iterator<Item = usize> + '_ {
    offsets.windows(2).map(|w| (w[1] - w[0]).as_usize())
}

/// A list array's offsets and items, the items cut to those the offsets
/// reach (a sliced array's are not) and the offsets then starting at 0.
fn rebased<O: arrow_array::OffsetSizeTrait>(
    offsets: &OffsetBuffer<O>,
    values: &ArrayRef,
) -> (OffsetBuffer<O>, ArrayRef) {
    // An `OffsetBuffer` is never empty.
    let (start, first, last) = (
        offsets.first(),
        offsets.first().as_usize(),
        offsets.last().as_usize(),
    );
    if first == 0 && last == values.len() {
        return (offsets.clone(), values.clone());
    }
    let shifted: Vec<O> = offsets.iter().map(|&o| o - start).collect();
    // Shifting ascending offsets by their first keeps them ascending from 0.
    (
        OffsetBuffer::new(ScalarBuffer::from(shifted)),
        values.slice(first, last - first),
    )
}

/// Lists of `size` items each; `Ok(None)` if `array` holds no lists.
fn fixed_list(
    size: usize,
    items: &Column,
    array: &ArrayRef,
    cx: &Cx<'_>,
) -> Result<Option<Decoded>, Error> {
    let values = match array.data_type() {
        DataType::FixedSizeList(_, n) => {
            if usize::try_from(*n) != Ok(size) {
                return Err(Error::schema(
                    &cx.at.path,
                    format!("lists of {n} items, where the field `[_; {size}]` holds {size}"),
                ));
            }
            array.as_fixed_size_list().values().clone()
        }
        DataType::List(_) => same_lengths(array.as_list::<i32>(), size, cx)?,
        DataType::LargeList(_) => same_lengths(array.as_list::<i64>(), size, cx)?,
        _ => return Ok(None),
    };
    let at = cx.at.items(cx.at.rows.fixed(size));
    let cx = items_cx(cx, at, std::iter::repeat_n(size, array.len()));
    Ok(Some(Decoded::FixedList {
        size,
        values: Box::new(decode(items, &values, &cx)?),
    }))
}

/// The items of lists that all hold `size` of them (DuckDB and polars
/// write arrays as lists), back to back. A list no one reads (under a
/// null) may hold any number: its slots are `size` nulls.
fn same_lengths<O: arrow_array::OffsetSizeTrait>(
    l: &arrow_array::GenericListArray<O>,
    size: usize,
    cx: &Cx<'_>,
) -> Result<ArrayRef, Error> {
    let read = |i: usize| cx.mask.as_ref().is_none_or(|m| m.is_valid(i));
    let fits = |i: usize| l.value_length(i).as_usize() == size;
    if let Some(i) = (0..l.len()).find(|&i| read(i) && !fits(i)) {
        return Err(cx.at.invalid(
            i,
            format!(
                "a list of {} items, where the field `[_; {size}]` holds {size}",
                l.value_length(i).as_usize()
            ),
        ));
    }
    if (0..l.len()).all(fits) {
        let start = l.value_offsets().first().map_or(0, |o| o.as_usize());
        return Ok(l.values().slice(start, l.len() * size));
    }
    let indices: UInt64Array = (0..l.len())
        .flat_map(|i| {
            let start = l.value_offsets()[i].as_usize() as u64;
            (0..size as u64).map(move |k| read(i).then_some(start + k))
        })
        .collect();
    arrow_select::take::take(l.values(), &indices, None)
        .map_err(Error::arrow(format!("column `{}`", cx.at.path)))
}

/// The records-as-bytes reading of values of a plain `datatype` (time,
/// fixed strings, `float16`, complex numbers, plain structs), laid out as
/// it says; nulls under an `Option` read as what their slots hold.
fn plain_bytes(datatype: &Datatype, array: &ArrayRef, cx: &Cx<'_>) -> Result<Vec<u8>, Error> {
    let compound = matches!(datatype, Datatype::Compound(_));
    let moved = |e| cx.at.moved(e, compound);
    let array = match datatype {
        Datatype::Time(_) => array.clone(),
        _ => without_nulls(array).map_err(Error::arrow(format!("column `{}`", cx.at.path)))?,
    };
    let batch = if compound {
        let Some(s) = array.as_struct_opt() else {
            return Err(Error::schema(
                &cx.at.path,
                format!("expected a struct, found {}", array.data_type()),
            ));
        };
        RecordBatch::from(s.clone())
    } else {
        let field = Field::new(VALUE_COLUMN, array.data_type().clone(), true);
        RecordBatch::try_new(std::sync::Arc::new(Schema::new(vec![field])), vec![array])
            .map_err(Error::arrow(format!("column `{}`", cx.at.path)))?
    };
    let options = ReadOptions {
        byte_order: ByteOrder::NATIVE,
        ..*cx.options
    };
    from_record_batch_raw(datatype, &batch, &options).map_err(moved)
}

/// `array` without its null bitmap (its children keep theirs).
fn without_nulls(array: &ArrayRef) -> Result<ArrayRef, arrow_schema::ArrowError> {
    if array.null_count() == 0 {
        return Ok(array.clone());
    }
    let data = array.to_data().into_builder().nulls(None).build()?;
    Ok(arrow_array::make_array(data))
}

/// An enum's values, from the member names a column holds (a dictionary
/// or plain strings); a null reads as 0, which no one reads.
fn enum_values(
    e: &Enum,
    like: &Values,
    array: &ArrayRef,
    t: &Column,
    cx: &Cx<'_>,
) -> Result<Values, Error> {
    let Some(names) = Strings::of(array) else {
        return Err(cx.wrong(t, array.data_type(), " (or strings)"));
    };
    let by_name: HashMap<&str, i128> = e
        .members
        .iter()
        .map(|m| (m.name.as_str(), m.value))
        .collect();
    let lookup = |i: usize, name: &str| {
        by_name.get(name).copied().ok_or_else(|| {
            cx.at
                .invalid(i, format!("`{name}` is no member of the enum"))
        })
    };
    let mut ints = Vec::with_capacity(names.len());
    match &names {
        // Each dictionary entry is looked up once, when first used.
        Strings::Dictionary { keys, values } => {
            let mut resolved: Vec<Option<i128>> = vec![None; values.len()];
            for (i, &k) in keys.iter().enumerate() {
                if array.is_null(i) {
                    ints.push(0);
                    continue;
                }
                let value = match resolved[k] {
                    Some(v) => v,
                    None => *resolved[k].insert(lookup(i, values.get(k))?),
                };
                ints.push(value);
            }
        }
        _ => {
            for i in 0..names.len() {
                ints.push(match array.is_null(i) {
                    true => 0,
                    false => lookup(i, names.get(i))?,
                });
            }
        }
    }
    macro_rules! values {
        ($($variant:ident => $t:ty),*) => {
            match like {
                $(Values::$variant(_) => Values::$variant(ints.iter().map(|&v| v as $t).collect()),)*
                _ => return Err(Error::schema(&cx.at.path, "an enum of an unknown base")),
            }
        };
    }
    Ok(
        values!(I8 => i8, I16 => i16, I32 => i32, I64 => i64, U8 => u8, U16 => u16, U32 => u32, U64 => u64),
    )
}

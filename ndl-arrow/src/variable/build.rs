//! Columns of variable records into Arrow arrays, their buffers handed
//! over rather than copied: numbers, string bytes, bitmaps and list items
//! become Arrow buffers as they are. Only 64-bit offsets are narrowed to
//! Arrow's 32-bit ones (a pass over the offsets, not the data); the values
//! of enums, time and other fixed-size values go through the plain
//! records' conversions.

use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::{
    Array, ArrayRef, BooleanArray, FixedSizeListArray, ListArray, PrimitiveArray, StringArray,
    StructArray, make_array,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, FieldRef};
use ndl_runtime::record::{Column, Values};
use ndl_runtime::{ByteOrder, Datatype, Enum};

use super::rows::Place;
use crate::error::Error;
use crate::raw_batch::raw_batch;
use crate::schema::schema_of;

/// The array of `column`, of Arrow type `t` (what the schema says), `len`
/// values long, with `nulls`.
pub(crate) fn array(
    column: Column,
    t: &DataType,
    len: usize,
    nulls: Option<NullBuffer>,
    at: &Place,
) -> Result<ArrayRef, Error> {
    let arrow = || Error::arrow(format!("column `{}`", at.path));
    Ok(match column {
        Column::Values { datatype, values } => {
            match (crate::schema::primitive(&datatype), &datatype) {
                (Some(_), _) => numbers(values, nulls, at)?,
                (None, Datatype::Enum(e)) => {
                    let bytes = member_under_nulls(e, values.as_bytes(), nulls.as_ref());
                    plain(&datatype, &bytes, nulls, at)?
                }
                (None, _) => plain(&datatype, values.as_bytes(), nulls, at)?,
            }
        }
        Column::Bool(bits) => {
            same_len(bits.len(), len, at)?;
            let values = BooleanBuffer::new(Buffer::from_vec(bits.into_bytes()), 0, len);
            Arc::new(BooleanArray::new(values, nulls))
        }
        Column::Plain { datatype, bytes } => plain(&datatype, &bytes, nulls, at)?,
        Column::Strings { offsets, data } => {
            let offsets = narrow(offsets, at)?;
            Arc::new(StringArray::try_new(offsets, Buffer::from_vec(data), nulls).map_err(arrow())?)
        }
        Column::List { offsets, values } => {
            let item = child_field(t, at)?;
            let offsets = narrow(offsets, at)?;
            // Checked not negative by `narrow`.
            let items = offsets.last() as usize;
            let at = at.items(at.rows.small(&offsets));
            let values = array(*values, item.data_type(), items, None, &at)?;
            Arc::new(ListArray::try_new(item, offsets, values, nulls).map_err(arrow())?)
        }
        Column::FixedList { size, values } => {
            let item = child_field(t, at)?;
            let at = at.items(at.rows.fixed(size));
            let values = array(*values, item.data_type(), len * size, None, &at)?;
            let size = i32::try_from(size).map_err(|_| Error::TooLarge {
                column: at.path.clone(),
            })?;
            Arc::new(
                FixedSizeListArray::try_new_with_length(item, size, values, nulls, len)
                    .map_err(arrow())?,
            )
        }
        Column::Struct { fields, .. } => {
            let DataType::Struct(types) = t else {
                return Err(Error::schema(&at.path, format!("a struct, where {t} is")));
            };
            let children = fields
                .into_iter()
                .zip(types.iter())
                .map(|((name, c), f)| array(c, f.data_type(), len, None, &at.field(&name)))
                .collect::<Result<Vec<_>, _>>()?;
            Arc::new(
                StructArray::try_new_with_length(types.clone(), children, nulls, len)
                    .map_err(arrow())?,
            )
        }
        Column::Nullable {
            validity, values, ..
        } => {
            same_len(validity.len(), len, at)?;
            let bits = BooleanBuffer::new(Buffer::from_vec(validity.into_bytes()), 0, len);
            let nulls = Some(NullBuffer::new(bits)).filter(|n| n.null_count() > 0);
            array(*values, t, len, nulls, at)?
        }
        _ => {
            return Err(Error::Unsupported {
                column: at.path.clone(),
                datatype: "a kind of column this version of ndl-arrow does not know".to_owned(),
            });
        }
    })
}

/// Checks that a bitmap has a bit for each of the `len` values: a
/// `Record` impl by hand could break that.
fn same_len(bits: usize, len: usize, at: &Place) -> Result<(), Error> {
    if bits == len {
        return Ok(());
    }
    Err(Error::schema(
        &at.path,
        format!("{bits} bits for {len} values: the record type's columns disagree"),
    ))
}

/// The one child field of a list type.
fn child_field(t: &DataType, at: &Place) -> Result<FieldRef, Error> {
    match t {
        DataType::List(f) | DataType::FixedSizeList(f, _) => Ok(f.clone()),
        other => Err(Error::schema(&at.path, format!("a list, where {other} is"))),
    }
}

/// Numbers as the primitive array owning their `Vec`.
fn numbers(values: Values, nulls: Option<NullBuffer>, at: &Place) -> Result<ArrayRef, Error> {
    macro_rules! arrays {
        ($($variant:ident => $arrow:ty),*) => {
            match values {
                $(Values::$variant(v) => Arc::new(
                    PrimitiveArray::<$arrow>::try_new(ScalarBuffer::from(v), nulls)
                        .map_err(Error::arrow(format!("column `{}`", at.path)))?,
                ) as ArrayRef,)*
                _ => return Err(unknown_values(at)),
            }
        };
    }
    Ok(arrays!(
        I8 => Int8Type, I16 => Int16Type, I32 => Int32Type, I64 => Int64Type,
        U8 => UInt8Type, U16 => UInt16Type, U32 => UInt32Type, U64 => UInt64Type,
        F32 => Float32Type, F64 => Float64Type
    ))
}

fn unknown_values(at: &Place) -> Error {
    Error::Unsupported {
        column: at.path.clone(),
        datatype: "numbers of a type this version of ndl-arrow does not know".to_owned(),
    }
}

/// An enum's values, a member's under each null: a `None`'s placeholder
/// (zero) may be no member, which the conversion to names refuses.
fn member_under_nulls(e: &Enum, values: &[u8], nulls: Option<&NullBuffer>) -> Vec<u8> {
    let mut out = values.to_vec();
    let (Some(nulls), Some(first)) = (nulls, e.members.first()) else {
        return out;
    };
    let width = e.base.size();
    let wide = first.value.to_ne_bytes();
    let member = if cfg!(target_endian = "little") {
        &wide[..width]
    } else {
        &wide[16 - width..]
    };
    for i in (0..nulls.len()).filter(|&i| nulls.is_null(i)) {
        if let Some(slot) = out.get_mut(i * width..(i + 1) * width) {
            slot.copy_from_slice(member);
        }
    }
    out
}

/// Packed values of `datatype` (enums, time, fixed strings, `float16`,
/// complex numbers, plain structs) as plain records make them.
fn plain(
    datatype: &Datatype,
    bytes: &[u8],
    nulls: Option<NullBuffer>,
    at: &Place,
) -> Result<ArrayRef, Error> {
    let compound = matches!(datatype, Datatype::Compound(_));
    let batch = schema_of(datatype)
        .and_then(|schema| raw_batch(datatype, ByteOrder::NATIVE, bytes, Arc::new(schema)))
        .map_err(|e| at.moved(e, compound))?;
    let array: ArrayRef = if compound {
        Arc::new(StructArray::from(batch))
    } else {
        batch.column(0).clone()
    };
    with_nulls(array, nulls, at)
}

/// `array` with `nulls` added to its own (a time's NaT).
fn with_nulls(array: ArrayRef, nulls: Option<NullBuffer>, at: &Place) -> Result<ArrayRef, Error> {
    let Some(nulls) = nulls else {
        return Ok(array);
    };
    let nulls = NullBuffer::union(Some(&nulls), array.nulls());
    let data = array
        .into_data()
        .into_builder()
        .nulls(nulls)
        .build()
        .map_err(Error::arrow(format!("column `{}`", at.path)))?;
    Ok(make_array(data))
}

/// 64-bit offsets as Arrow's 32-bit ones, narrowed in their own memory:
/// no second buffer of offsets to allocate and fault in. More than 2 GiB
/// of data in one batch is an error naming the column.
fn narrow(mut offsets: Vec<i64>, at: &Place) -> Result<OffsetBuffer<i32>, Error> {
    let too_large = || Error::TooLarge {
        column: at.path.clone(),
    };
    let len = offsets.len();
    if len == 0 {
        return Err(Error::schema(&at.path, "no offsets"));
    }
    let words: &mut [i32] = bytemuck::cast_slice_mut(&mut offsets[..]);
    let mut previous = 0;
    for i in 0..len {
        let wide: i64 = bytemuck::cast([words[2 * i], words[2 * i + 1]]);
        let o = i32::try_from(wide).map_err(|_| too_large())?;
        if o < previous {
            return Err(Error::schema(&at.path, "list or string offsets descend"));
        }
        // Word `i` lies in the 64-bit offsets at or before `i`: read already.
        words[i] = o;
        previous = o;
    }
    let narrowed = ScalarBuffer::new(Buffer::from_vec(offsets), 0, len);
    // SAFETY: the loop checked that the offsets are not negative and
    // ascend, and there is at least one.
    Ok(unsafe { OffsetBuffer::new_unchecked(narrowed) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_past_2_gib_are_too_large_for_utf8() {
        let at = Place::column("note");
        let column = Column::Strings {
            offsets: vec![0, 1 << 31],
            data: Vec::new(),
        };
        let err = array(column, &DataType::Utf8, 1, None, &at).unwrap_err();
        assert!(matches!(err, Error::TooLarge { column } if column == "note"));
        let descending = narrow(vec![0, 5, 3], &at).unwrap_err();
        assert_eq!(
            descending.to_string(),
            "column `note`: list or string offsets descend"
        );
        assert_eq!(narrow(vec![0, 2, 2], &at).unwrap().as_ref(), [0, 2, 2]);
    }
}

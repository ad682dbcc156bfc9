//! Rows to columns: records (raw bytes of a datatype, or Rust values) into
//! one Arrow record batch.
//!
//! Two stages. First every leaf's bytes are copied out of the records,
//! block by block so that a block stays in the cache while each field is
//! copied in its own loop (the runtime's `gather`, which reads field
//! bytes only, never padding); numbers land in the very buffers the Arrow
//! arrays then own. Then the leaves that are not plain numbers (bools,
//! enums, strings) are checked and converted, and the arrays assembled
//! into structs and fixed-size lists.

use std::ops::Range;
use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::{
    ArrayRef, BooleanArray, DictionaryArray, FixedSizeBinaryArray, FixedSizeListArray,
    PrimitiveArray, RecordBatch, RecordBatchOptions, StringArray, StructArray,
};
use arrow_buffer::{BooleanBuffer, Buffer, MutableBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Schema};
use ndl_runtime::records::{Packer, advise_huge_pages};
use ndl_runtime::{ByteOrder, Charset, Datatype, Enum, NdlType};

use crate::error::Error;
use crate::plan::{Kind, Leaf, Plan, swap};
use crate::schema;

/// Records whose field bytes can be copied out, column by column.
pub(crate) trait Records {
    /// The number of records.
    fn len(&self) -> usize;

    /// Copies byte ranges `fields` of every record into `outs`, back to back.
    fn gather(&self, fields: &[Range<usize>], outs: &mut [&mut [u8]]);
}

/// Records as bytes laid out as their datatype says.
pub(crate) struct RawRecords<'a> {
    pub bytes: &'a [u8],
    pub record: usize,
}

impl Records for RawRecords<'_> {
    fn len(&self) -> usize {
        self.bytes.len().checked_div(self.record).unwrap_or(0)
    }

    fn gather(&self, fields: &[Range<usize>], outs: &mut [&mut [u8]]) {
        ndl_runtime::records::gather(self.bytes, self.record, fields, outs);
    }
}

/// Rust records, read through their [`Packer`], which knows where their
/// field bytes are.
pub(crate) struct TypedRecords<'a, T> {
    pub records: &'a [T],
    pub packer: Packer<T>,
}

impl<T: NdlType> Records for TypedRecords<'_, T> {
    fn len(&self) -> usize {
        self.records.len()
    }

    fn gather(&self, fields: &[Range<usize>], outs: &mut [&mut [u8]]) {
        self.packer.gather(self.records, fields, outs);
    }
}

/// The record batch of `records` of `dt`, their numbers in `order`, with
/// `schema` (which [`schema::schema_of`] made of `dt`).
pub(crate) fn to_batch(
    dt: &Datatype,
    order: ByteOrder,
    records: &dyn Records,
    schema: Arc<Schema>,
) -> Result<RecordBatch, Error> {
    let plan = Plan::new(dt).expect("the schema was made of the datatype, so it has a plan");
    let n = records.len();
    let mut buffers = copy_leaves(&plan, records)?;
    if order != ByteOrder::NATIVE {
        for (leaf, buffer) in plan.leaves.iter().zip(&mut buffers) {
            swap(buffer.as_slice_mut(), leaf.kind.swap_unit(leaf.width));
        }
    }
    let mut leaves = plan.leaves.iter().zip(buffers);
    let columns = schema::columns(dt)
        .into_iter()
        .map(|(name, dt, _)| assemble(dt, name, n, &mut leaves))
        .collect::<Result<Vec<_>, _>>()?;
    let options = RecordBatchOptions::new().with_row_count(Some(n));
    RecordBatch::try_new_with_options(schema, columns, &options)
        .map_err(Error::arrow("assembling the record batch"))
}

/// Each leaf's values of every record, back to back, in one buffer each.
fn copy_leaves(plan: &Plan<'_>, records: &dyn Records) -> Result<Vec<MutableBuffer>, Error> {
    let n = records.len();
    let mut buffers = plan
        .leaves
        .iter()
        .map(|leaf| zeroed(n * leaf.per_record * leaf.width))
        .collect::<Result<Vec<_>, _>>()?;
    // Leaves in one run each go straight to their buffers, in one pass.
    let mut fields = Vec::new();
    let mut outs = Vec::new();
    let mut strided = Vec::new();
    for (leaf, buffer) in plan.leaves.iter().zip(&mut buffers) {
        match leaf.runs.as_slice() {
            [] => {}
            [run] => {
                fields.push(run.clone());
                outs.push(buffer.as_slice_mut());
            }
            _ => strided.push((leaf, buffer.as_slice_mut())),
        }
    }
    records.gather(&fields, &mut outs);
    // The values of an array of compounds are strided: each run apart,
    // then interleaved.
    for (leaf, out) in strided {
        let mut parts: Vec<Vec<u8>> = leaf.runs.iter().map(|r| vec![0; n * r.len()]).collect();
        let mut part_outs: Vec<&mut [u8]> = parts.iter_mut().map(Vec::as_mut_slice).collect();
        records.gather(&leaf.runs, &mut part_outs);
        let per_record = leaf.per_record * leaf.width;
        let mut at = 0;
        for (run, part) in leaf.runs.iter().zip(&parts) {
            for (record, bytes) in part.chunks_exact(run.len()).enumerate() {
                let start = record * per_record + at;
                out[start..start + run.len()].copy_from_slice(bytes);
            }
            at += run.len();
        }
    }
    Ok(buffers)
}

/// A buffer of `len` zero bytes; an error rather than an abort when the
/// memory is not there.
///
/// Fresh memory costs more than the copies into it (a page fault and a
/// cleared page per 4 KiB), so it is taken zeroed from the allocator,
/// which gets large blocks from the kernel untouched (`calloc`), and
/// backed by 2 MiB pages. Arrow's own zeroed buffers are 128-byte
/// aligned, beyond what `calloc` promises, so the system allocator
/// writes their zeros itself, touching every page before the copies do.
/// Eight bytes of alignment serve every number an array holds here.
pub(crate) fn zeroed(len: usize) -> Result<MutableBuffer, Error> {
    let words: Vec<u64> = bytemuck::allocation::try_zeroed_vec(len.div_ceil(8))
        .map_err(|()| Error::OutOfMemory(len))?;
    let mut buffer = MutableBuffer::from(words);
    buffer.truncate(len);
    advise_huge_pages(buffer.as_slice_mut());
    Ok(buffer)
}

/// The array of `len` values of `dt` at `path`, from the next leaves.
fn assemble<'p, 'a: 'p>(
    dt: &Datatype,
    path: &str,
    len: usize,
    leaves: &mut impl Iterator<Item = (&'p Leaf<'a>, MutableBuffer)>,
) -> Result<ArrayRef, Error> {
    Ok(match dt {
        Datatype::Compound(c) => {
            let DataType::Struct(fields) = schema::data_type_of(dt, path)? else {
                unreachable!("a compound is a struct")
            };
            let children = c
                .members
                .iter()
                .map(|m| assemble(&m.datatype, &format!("{path}.{}", m.name), len, leaves))
                .collect::<Result<Vec<_>, _>>()?;
            Arc::new(
                StructArray::try_new_with_length(fields, children, None, len)
                    .map_err(Error::arrow(format!("column `{path}`")))?,
            )
        }
        Datatype::Array(a) => {
            let count = a.element_count().unwrap_or(0);
            let mut array = assemble(&a.base, path, len * count, leaves)?;
            for (i, &d) in a.shape.iter().enumerate().rev() {
                // The lists of this dimension: one per element of the outer ones.
                let lists = len * a.shape[..i].iter().product::<usize>();
                let item = schema::item(array.data_type().clone());
                let size = i32::try_from(d).expect("checked by the schema");
                array = Arc::new(
                    FixedSizeListArray::try_new_with_length(item, size, array, None, lists)
                        .map_err(Error::arrow(format!("column `{path}`")))?,
                );
            }
            array
        }
        Datatype::Complex64 | Datatype::Complex128 => {
            let DataType::Struct(fields) = schema::data_type_of(dt, path)? else {
                unreachable!("a complex number is a struct")
            };
            let mut part = || {
                let (leaf, buffer) = leaves.next().expect("a leaf for each part");
                leaf_array(leaf, buffer, len)
            };
            let re = part()?;
            let im = part()?;
            Arc::new(StructArray::new(fields, vec![re, im], None))
        }
        _ => {
            let (leaf, buffer) = leaves.next().expect("a leaf for each plain value");
            leaf_array(leaf, buffer, len)?
        }
    })
}

/// The array of a leaf's `len` values, from their bytes.
fn leaf_array(leaf: &Leaf<'_>, bytes: MutableBuffer, len: usize) -> Result<ArrayRef, Error> {
    Ok(match &leaf.kind {
        Kind::Number(t) => number_array(t, bytes.into(), len),
        Kind::Bool => {
            let bytes = bytes.as_slice();
            if let Some(i) = bytes.iter().position(|&b| b > 1) {
                return Err(leaf_error(
                    leaf,
                    i,
                    format!("the bool byte is {}, not 0 or 1", bytes[i]),
                ));
            }
            Arc::new(BooleanArray::new(
                BooleanBuffer::collect_bool(len, |i| bytes[i] != 0),
                None,
            ))
        }
        Kind::Enum(e) => enum_array(leaf, e, bytes, len)?,
        Kind::Text(s) => text_array(leaf, s.charset, bytes, leaf.width)?,
        Kind::Opaque => Arc::new(
            FixedSizeBinaryArray::try_new_with_len(
                i32::try_from(leaf.width).expect("checked by the schema"),
                bytes.into(),
                None,
                len,
            )
            .map_err(Error::arrow(format!("column `{}`", leaf.path_of(0))))?,
        ),
        Kind::Time(t) => crate::time::to_arrow(leaf, *t, bytes, len)?,
    })
}

fn leaf_error(leaf: &Leaf<'_>, index: usize, message: String) -> Error {
    Error::InvalidValue {
        record: leaf.record_of(index),
        column: leaf.path_of(index),
        message,
    }
}

/// The primitive array of type `t` owning `buffer`.
fn number_array(t: &DataType, buffer: Buffer, len: usize) -> ArrayRef {
    macro_rules! array {
        ($($variant:ident => $arrow:ty),*) => {
            match t {
                $(DataType::$variant => Arc::new(PrimitiveArray::<$arrow>::new(ScalarBuffer::new(buffer, 0, len), None)),)*
                other => unreachable!("{other} is no number leaf"),
            }
        };
    }
    array!(
        Int8 => Int8Type, UInt8 => UInt8Type, Int16 => Int16Type, UInt16 => UInt16Type,
        Int32 => Int32Type, UInt32 => UInt32Type, Int64 => Int64Type, UInt64 => UInt64Type,
        Float16 => Float16Type, Float32 => Float32Type, Float64 => Float64Type
    )
}

/// An enum's values (native integers of its base) as dictionary keys into
/// its member names. Keys as wide as the values take their place.
fn enum_array(
    leaf: &Leaf<'_>,
    e: &Enum,
    mut values: MutableBuffer,
    len: usize,
) -> Result<ArrayRef, Error> {
    let width = e.base.size();
    let signed = e.base.is_signed();
    // Members sorted by value, for a binary search; a table for one byte.
    let mut by_value: Vec<(i128, usize)> = e
        .members
        .iter()
        .enumerate()
        .map(|(i, m)| (m.value, i))
        .collect();
    by_value.sort_unstable();
    let mut table = [None; 256];
    if width == 1 {
        for &(v, i) in &by_value {
            table[(v as u8) as usize] = Some(i);
        }
    }
    let index = |i: usize, raw: &[u8]| -> Result<usize, Error> {
        let found = match width {
            1 => table[raw[0] as usize],
            _ => by_value
                .binary_search_by_key(&widen(raw, signed), |&(v, _)| v)
                .ok()
                .map(|at| by_value[at].1),
        };
        found.ok_or_else(|| {
            let value = widen(raw, signed);
            leaf_error(leaf, i, format!("{value} is no member of the enum"))
        })
    };
    let names = Arc::new(StringArray::from_iter_values(
        e.members.iter().map(|m| m.name.as_str()),
    ));
    macro_rules! keys {
        ($key:ty, $native:ty) => {{
            let key_width = std::mem::size_of::<$native>();
            let keys = if key_width == width {
                for (i, raw) in values.as_slice_mut().chunks_exact_mut(width).enumerate() {
                    let key = index(i, raw)? as $native;
                    raw.copy_from_slice(&key.to_ne_bytes());
                }
                values
            } else {
                let mut keys = zeroed(len * key_width)?;
                let pairs = values
                    .as_slice()
                    .chunks_exact(width)
                    .zip(keys.as_slice_mut().chunks_exact_mut(key_width));
                for (i, (raw, key)) in pairs.enumerate() {
                    key.copy_from_slice(&(index(i, raw)? as $native).to_ne_bytes());
                }
                keys
            };
            let keys = PrimitiveArray::<$key>::new(ScalarBuffer::new(keys.into(), 0, len), None);
            Arc::new(
                DictionaryArray::<$key>::try_new(keys, names)
                    .map_err(Error::arrow(format!("column `{}`", leaf.path_of(0))))?,
            )
        }};
    }
    Ok(match schema::dictionary_key(e) {
        DataType::UInt8 => keys!(UInt8Type, u8),
        DataType::UInt16 => keys!(UInt16Type, u16),
        _ => keys!(UInt32Type, u32),
    })
}

/// A native integer of `raw.len()` bytes, widened.
pub(crate) fn widen(raw: &[u8], signed: bool) -> i128 {
    let mut wide = [0u8; 16];
    wide[..raw.len()].copy_from_slice(raw);
    if cfg!(target_endian = "big") {
        wide[..raw.len()].reverse();
    }
    let unsigned = u128::from_le_bytes(wide);
    let bits = 8 * raw.len() as u32;
    if signed && bits < 128 && unsigned >> (bits - 1) & 1 == 1 {
        (unsigned | (u128::MAX << bits)) as i128
    } else {
        unsigned as i128
    }
}

/// Fixed strings (`width` bytes each, native byte order) as UTF-8 with
/// trailing NULs trimmed. Text of one byte a character is trimmed in
/// place, each string moved down to where the previous one ends.
fn text_array(
    leaf: &Leaf<'_>,
    charset: Charset,
    mut bytes: MutableBuffer,
    width: usize,
) -> Result<ArrayRef, Error> {
    let values = bytes.len().checked_div(width).unwrap_or(0);
    let too_large = || Error::TooLarge {
        column: leaf.path_of(0),
    };
    let mut offsets = zeroed((values + 1) * 4)?;
    let ends = &mut offsets.typed_data_mut::<i32>()[1..];
    let text = match charset {
        Charset::Ascii => {
            let check = !bytes.is_ascii();
            let buf = bytes.as_slice_mut();
            // Widths known here make each move a load and a store.
            let end = match width {
                4 => trim_in_place(buf, 4, ends, check),
                8 => trim_in_place(buf, 8, ends, check),
                16 => trim_in_place(buf, 16, ends, check),
                _ => trim_in_place(buf, width, ends, check),
            }
            .map_err(|bad| match bad {
                Untrimmed::TooLarge => too_large(),
                Untrimmed::NotUtf8(i, e) => {
                    let value = &bytes[i * width..(i + 1) * width];
                    let len = value.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
                    let text = value[..len].escape_ascii();
                    leaf_error(leaf, i, format!("the string is not UTF-8 ({e}): {text}"))
                }
            })?;
            bytes.truncate(end);
            bytes.into()
        }
        Charset::Utf32 => {
            let mut text: Vec<u8> = Vec::with_capacity(bytes.len().min(i32::MAX as usize));
            for (i, at) in ends.iter_mut().enumerate() {
                let value = &bytes[i * width..(i + 1) * width];
                for c in ndl_runtime::utf32::chars(value, ByteOrder::NATIVE) {
                    let c = c.map_err(|(_, unit)| {
                        leaf_error(
                            leaf,
                            i,
                            format!("the string holds {unit:#x}, which is no Unicode character"),
                        )
                    })?;
                    let mut utf8 = [0; 4];
                    text.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
                }
                *at = i32::try_from(text.len()).map_err(|_| too_large())?;
            }
            Buffer::from_vec(text)
        }
    };
    let offsets = OffsetBuffer::new(ScalarBuffer::new(offsets.into(), 0, values + 1));
    let array = StringArray::try_new(offsets, text, None)
        .map_err(Error::arrow(format!("column `{}`", leaf.path_of(0))))?;
    Ok(Arc::new(array))
}

/// Why strings could not be trimmed.
enum Untrimmed {
    /// The text would pass the 2 GiB an `i32` offset reaches.
    TooLarge,
    /// String `.0`, which is not UTF-8.
    NotUtf8(usize, std::str::Utf8Error),
}

/// Moves each string of `width` bytes in `buf` down to where the one
/// before ends (never past its own place, so none is overwritten before it
/// moves), trailing NULs trimmed, and sets `ends` to where each ends; the
/// end of the text. With `check`, each string must be UTF-8; on an error
/// the strings before the bad one have been moved.
#[inline(always)]
fn trim_in_place(
    buf: &mut [u8],
    width: usize,
    ends: &mut [i32],
    check: bool,
) -> Result<usize, Untrimmed> {
    let mut end = 0;
    for (i, at) in ends.iter_mut().enumerate() {
        let start = i * width;
        let value = &buf[start..start + width];
        let len = width - value.iter().rev().take_while(|&&b| b == 0).count();
        if check {
            std::str::from_utf8(&value[..len]).map_err(|e| Untrimmed::NotUtf8(i, e))?;
        }
        // The whole width moves: what lands past the string's end is
        // overwritten by the next or cut off.
        buf.copy_within(start..start + width, end);
        end += len;
        *at = i32::try_from(end).map_err(|_| Untrimmed::TooLarge)?;
    }
    Ok(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_trimmed_in_place() {
        let mut buf = *b"ab\0\0cdef\0\0\0\0g\0\0\0";
        let mut ends = [0; 4];
        let end = trim_in_place(&mut buf, 4, &mut ends, true).ok().unwrap();
        assert_eq!((&buf[..end], ends), (&b"abcdefg"[..], [2, 6, 6, 7]));
        let mut bad = *b"ab\0\0\xC3(\0\0";
        let err = trim_in_place(&mut bad, 4, &mut [0; 2], true).err().unwrap();
        assert!(matches!(err, Untrimmed::NotUtf8(1, _)));
        assert_eq!(&bad[4..6], b"\xC3(", "the bad string is where it was");
    }

    #[test]
    fn integers_widen_with_their_sign() {
        assert_eq!(widen(&(-5i16).to_ne_bytes(), true), -5);
        assert_eq!(widen(&u64::MAX.to_ne_bytes(), false), u64::MAX as i128);
        assert_eq!(widen(&i64::MIN.to_ne_bytes(), true), i64::MIN as i128);
        assert_eq!(widen(&[0xFF], false), 255);
    }
}

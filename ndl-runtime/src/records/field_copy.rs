//! The copies between records in memory and their packed form: planned
//! once per datatype, then run block by block over many records.

use std::ops::Range;

use crate::Datatype;

/// One copy between a record in memory and its packed form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FieldCopy {
    /// Where the bytes are in a record in memory.
    pub memory: usize,
    /// Where they are in a packed record.
    pub packed: usize,
    pub len: usize,
}

/// Copies byte ranges `fields` of every record of `records` (records of
/// `record` bytes) into `outs`, one column each, back to back: the columns
/// of records held as bytes, such as packed records.
///
/// # Panics
/// If a range reaches past the record, or the lengths do not fit.
///
/// ```
/// let packed = [1, 2, 0, 3, 4, 0];
/// let (mut a, mut b) = ([0; 2], [0; 4]);
/// ndl_runtime::records::gather(&packed, 3, &[0..1, 1..3], &mut [&mut a, &mut b]);
/// assert_eq!((a, b), ([1, 3], [2, 0, 4, 0]));
/// ```
pub fn gather(records: &[u8], record: usize, fields: &[Range<usize>], outs: &mut [&mut [u8]]) {
    for field in fields {
        assert!(
            field.end <= record,
            "bytes {field:?} are not within a {record}-byte record"
        );
    }
    gather_columns((records, record), fields, outs, |b| b);
}

/// Copies each column of `columns` (values of `fields[i].len()` bytes,
/// back to back) into byte range `fields[i]` of every record of `records`
/// (records of `record` bytes): the inverse of [`gather`], as readers of
/// one array per field put records back together.
///
/// # Panics
/// If a range reaches past the record, or a column holds another number
/// of values than there are records.
///
/// ```
/// let (a, b) = ([1u8, 3], [2u8, 0, 4, 0]);
/// let mut packed = [9; 6];
/// ndl_runtime::records::scatter(&[&a, &b], &[0..1, 1..3], &mut packed, 3);
/// assert_eq!(packed, [1, 2, 0, 3, 4, 0]);
/// ```
pub fn scatter(columns: &[&[u8]], fields: &[Range<usize>], records: &mut [u8], record: usize) {
    assert_eq!(columns.len(), fields.len(), "a field for each column");
    let n = records.len().checked_div(record).unwrap_or(0);
    for (column, field) in columns.iter().zip(fields) {
        assert!(
            field.end <= record,
            "bytes {field:?} are not within a {record}-byte record"
        );
        assert_eq!(column.len(), n * field.len(), "column length");
        if field.is_empty() {
            continue;
        }
        let copy = FieldCopy {
            memory: field.start,
            packed: 0,
            len: field.len(),
        };
        let from = (*column, field.len());
        copy_fields(
            &[copy],
            Direction::Unpack,
            from,
            (&mut *records, record),
            |b| b,
        );
    }
}

/// [`gather`] over any record bytes that `bytes` turns into `u8`s: block
/// by block, each column of the block in its own loop.
pub(super) fn gather_columns<S: Copy>(
    (records, record): (&[S], usize),
    fields: &[Range<usize>],
    outs: &mut [&mut [u8]],
    bytes: impl Fn(&[S]) -> &[u8] + Copy,
) {
    let n = records.len().checked_div(record).unwrap_or(0);
    assert_eq!(fields.len(), outs.len(), "a column for each field");
    for (field, out) in fields.iter().zip(outs.iter()) {
        assert_eq!(out.len(), n * field.len(), "column buffer length");
    }
    if n == 0 {
        return;
    }
    for (b, block) in records.chunks(BLOCK * record).enumerate() {
        let in_block = block.len() / record;
        for (field, out) in fields.iter().zip(outs.iter_mut()) {
            let width = field.len();
            if width == 0 {
                continue;
            }
            let at = b * BLOCK * width;
            let copy = FieldCopy {
                memory: field.start,
                packed: 0,
                len: width,
            };
            copy_fields(
                &[copy],
                Direction::Pack,
                (block, record),
                (&mut out[at..at + in_block * width], width),
                bytes,
            );
        }
    }
}

/// Records copied per pass over the field copies: a block's source stays
/// in the cache while each field is copied in its own loop.
pub(super) const BLOCK: usize = 256;

/// Which end of a [`FieldCopy`] is read and which written.
#[derive(Clone, Copy)]
pub(crate) enum Direction {
    /// From records in memory to packed records.
    Pack,
    /// From packed records to records in memory.
    Unpack,
}

/// Copies the fields `copies` of every record of `from` (records of
/// `from_step` bytes) into the records of `to` (of `to_step` bytes), which
/// hold as many. `bytes` turns source bytes that are field bytes into
/// `u8`s.
///
/// The hot loop of packing: field by field over a block of records, so that
/// each field's copy has a length known to the compiler (up to 16 bytes, 20,
/// 24 or 32: what most fields are) and runs as plain loads and stores.
#[inline(always)]
pub(crate) fn copy_fields<S: Copy>(
    copies: &[FieldCopy],
    direction: Direction,
    (from, from_step): (&[S], usize),
    (to, to_step): (&mut [u8], usize),
    bytes: impl Fn(&[S]) -> &[u8] + Copy,
) {
    for (from, to) in from
        .chunks(BLOCK * from_step)
        .zip(to.chunks_mut(BLOCK * to_step))
    {
        for c in copies {
            let (src, dst) = match direction {
                Direction::Pack => (c.memory, c.packed),
                Direction::Unpack => (c.packed, c.memory),
            };
            let from = (from, from_step, src);
            let to = (&mut *to, to_step, dst);
            // A copy of a length known at compile time is a load and a
            // store; one of a length known only at run time is a call to
            // `memcpy`. Fields, and runs of neighbouring fields, are short.
            macro_rules! by_length {
                ($($n:literal)*) => {
                    match c.len {
                        $($n => copy_strided::<$n, S>(from, to, bytes),)*
                        len => copy_strided_any(from, to, len, bytes),
                    }
                };
            }
            by_length!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 20 24 32)
        }
    }
}

/// Copies `N` bytes at `src` of each record of `from` to `dst` of each
/// record of `to`.
#[inline(always)]
fn copy_strided<const N: usize, S: Copy>(
    (from, from_step, src): (&[S], usize, usize),
    (to, to_step, dst): (&mut [u8], usize, usize),
    bytes: impl Fn(&[S]) -> &[u8],
) {
    for (from, to) in from
        .chunks_exact(from_step)
        .zip(to.chunks_exact_mut(to_step))
    {
        let field: [u8; N] = bytes(&from[src..src + N]).try_into().expect("N bytes");
        to[dst..dst + N].copy_from_slice(&field);
    }
}

/// [`copy_strided`] for any length.
fn copy_strided_any<S: Copy>(
    (from, from_step, src): (&[S], usize, usize),
    (to, to_step, dst): (&mut [u8], usize, usize),
    len: usize,
    bytes: impl Fn(&[S]) -> &[u8],
) {
    for (from, to) in from
        .chunks_exact(from_step)
        .zip(to.chunks_exact_mut(to_step))
    {
        to[dst..dst + len].copy_from_slice(bytes(&from[src..src + len]));
    }
}

/// The copies between a record of `memory` (at `at_memory`) and its packed
/// form `packed` (at `at_packed`), leaf by leaf, merged when contiguous.
pub(super) fn plan_copies(
    memory: &Datatype,
    packed: &Datatype,
    at_memory: usize,
    at_packed: usize,
    out: &mut Vec<FieldCopy>,
) {
    match (memory, packed) {
        (Datatype::Compound(m), Datatype::Compound(p)) => {
            for (mm, pm) in m.members.iter().zip(&p.members) {
                plan_copies(
                    &mm.datatype,
                    &pm.datatype,
                    at_memory + mm.offset,
                    at_packed + pm.offset,
                    out,
                );
            }
        }
        (Datatype::Array(m), Datatype::Array(p)) if m.base.size() != p.base.size() => {
            let (step_m, step_p) = (m.base.size().unwrap_or(0), p.base.size().unwrap_or(0));
            for i in 0..m.element_count().unwrap_or(0) {
                plan_copies(
                    &m.base,
                    &p.base,
                    at_memory + i * step_m,
                    at_packed + i * step_p,
                    out,
                );
            }
        }
        _ => {
            let len = memory.size().unwrap_or(0);
            match out.last_mut() {
                Some(last)
                    if last.memory + last.len == at_memory
                        && last.packed + last.len == at_packed =>
                {
                    last.len += len;
                }
                _ if len == 0 => {}
                _ => out.push(FieldCopy {
                    memory: at_memory,
                    packed: at_packed,
                    len,
                }),
            }
        }
    }
}

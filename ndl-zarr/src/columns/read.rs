//! Reading the columns layout back into records: each part of the records
//! takes its values from every column, which are checked, then
//! interleaved.

use std::ops::Range;

use ndl_runtime::records::{PackedLayout, RecordBuf};
use ndl_runtime::schema::first_difference;
use ndl_runtime::{Charset, Datatype, NdlType};
use rayon::prelude::*;

use super::{plan, Column, Style};
use crate::chunks::{parallel, records_range, shape_error, Chunks};
use crate::error::{Error, Result};
use crate::metadata::ArrayMeta;
use crate::records::packer;
use crate::store::Store;

/// Checks that the array `meta` holds the values of column `c`.
pub(crate) fn check_column(store: &Store, meta: &ArrayMeta, c: &Column) -> Result<()> {
    let mismatch = |message: String| Error::TypeMismatch {
        store: store.name.clone(),
        field: c.name.clone(),
        message,
    };
    if meta.shape.get(1..) != Some(c.inner.as_slice()) {
        return Err(mismatch(format!(
            "the array has shape {:?}, the field needs [n] followed by {:?}",
            meta.shape, c.inner
        )));
    }
    let stored = &meta.stored;
    let chars = Datatype::FixedString(ndl_runtime::FixedString {
        length: 1,
        charset: Charset::Ascii,
    });
    let accepted = match (&c.leaf, &c.element) {
        // Characters either way, bools as xarray writes them too.
        (Datatype::FixedString(_), Datatype::FixedString(_) | Datatype::UInt8) => {
            *stored == chars || *stored == Datatype::UInt8
        }
        (Datatype::Bool, _) => *stored == Datatype::UInt8 || *stored == Datatype::Bool,
        _ => first_difference(stored, &c.element).is_none(),
    };
    if !accepted {
        return Err(mismatch(format!(
            "the array holds {}, the field needs {}",
            ndl_runtime::schema::describe(stored),
            ndl_runtime::schema::describe(&c.element)
        )));
    }
    Ok(())
}

/// A column opened for reading.
struct Opened {
    column: Column,
    chunks: Chunks,
    /// The field's own checks (bools, enums).
    layout: PackedLayout,
}

impl Opened {
    /// The values of records `range`, in native byte order, checked.
    fn read(&self, range: Range<u64>) -> Result<Vec<u8>> {
        let size = self.column.size;
        let mut out = Vec::with_capacity((range.end - range.start) as usize * size);
        let chunk_len = self.chunks.chunk_len;
        let mut at = range.start;
        while at < range.end {
            let chunk = at / chunk_len;
            let decoded = self.chunks.read(chunk)?;
            let from = (at - chunk * chunk_len) as usize;
            let to = ((range.end - chunk * chunk_len).min(chunk_len)) as usize;
            out.extend_from_slice(&decoded[from * size..to * size]);
            at = chunk * chunk_len + to as u64;
        }
        self.layout.check(&out).map_err(|bad| {
            let field = match bad.field.as_str() {
                "" => self.column.name.clone(),
                f if f.starts_with('[') => format!("{}{f}", self.column.name),
                f => format!("{}.{f}", self.column.name),
            };
            Error::InvalidValue {
                store: self.chunks.store.name.clone(),
                chunk: (range.start + bad.record as u64) / chunk_len,
                record: range.start + bad.record as u64,
                field,
                offset: bad.offset,
                message: bad.message,
            }
        })?;
        Ok(out)
    }
}

/// The columns of `plan` in `store`, opened and checked, and the number of
/// records they all hold.
fn open_columns(store: &Store, plan: Vec<Column>) -> Result<(Vec<Opened>, u64)> {
    let mut opened = Vec::new();
    let mut len = u64::MAX;
    for column in plan {
        let child = store.child(&column.name);
        let meta = ArrayMeta::read(&child)?;
        check_column(&child, &meta, &column)?;
        let layout = PackedLayout::new(&column.leaf).map_err(|e| Error::TypeMismatch {
            store: store.name.clone(),
            field: column.name.clone(),
            message: e.to_string(),
        })?;
        // Columns of different lengths are what a crash between two
        // columns' appends leaves: the records are those all columns hold.
        len = len.min(meta.len());
        let chunks = Chunks::new(&child, &meta)?;
        opened.push(Opened {
            column,
            chunks,
            layout,
        });
    }
    let len = if opened.is_empty() { 0 } else { len };
    Ok((opened, len))
}

/// The parts of records `range`: chunk-aligned to the first column.
fn part_len(opened: &[Opened]) -> u64 {
    opened.first().map_or(1, |o| o.chunks.chunk_len)
}

/// Copies each column's values into `records` (of `record` bytes each,
/// the columns at their offsets).
fn interleave(opened: &[Opened], values: &[Vec<u8>], records: &mut [u8], record: usize) {
    for (o, values) in opened.iter().zip(values) {
        let (at, size) = (o.column.offset, o.column.size);
        for (r, v) in records
            .chunks_exact_mut(record)
            .zip(values.chunks_exact(size))
        {
            r[at..at + size].copy_from_slice(v);
        }
    }
}

/// Reads records `range` (all when `None`) of the columns store `store`
/// into `T`s: only the columns of `T`'s fields are read.
pub(crate) fn read_columns<T: NdlType + Send + Sync>(
    store: &Store,
    range: Option<Range<u64>>,
) -> Result<Vec<T>> {
    let packer = packer::<T>(&store.name)?;
    let (opened, len) = open_columns(store, plan(&T::datatype(), READING)?)?;
    let (range, n) = records_range(store, range, len)?;
    let mut records = RecordBuf::<T>::zeroed(n).map_err(|e| shape_error(store, e.to_string()))?;
    let part_len = part_len(&opened);
    let record = std::mem::size_of::<T>();
    let parts = records.parts_mut_aligned((range.start % part_len) as usize, part_len as usize);
    parallel(store, || {
        parts.into_par_iter().try_for_each(|mut part| {
            let first = range.start + part.start() as u64;
            let values = opened
                .iter()
                .map(|o| o.read(first..first + part.len() as u64))
                .collect::<Result<Vec<_>>>()?;
            packer
                .fill(&mut part, |bytes| {
                    interleave(&opened, &values, bytes, record)
                })
                .map_err(|bad| Error::InvalidValue {
                    store: store.name.clone(),
                    chunk: (first + bad.record as u64) / part_len,
                    record: first + bad.record as u64,
                    field: bad.field,
                    offset: bad.offset,
                    message: bad.message,
                })
        })
    })?;
    records
        .into_vec()
        .ok_or_else(|| shape_error(store, "not every record was read".into()))
}

/// Reads records `range` (all when `None`) of the columns store `store` as
/// packed records of `datatype`'s packed form, in native byte order.
pub(crate) fn read_columns_packed(
    store: &Store,
    datatype: &Datatype,
    range: Option<Range<u64>>,
) -> Result<Vec<u8>> {
    let packed = PackedLayout::new(datatype).map_err(|e| shape_error(store, e.to_string()))?;
    let (opened, len) = open_columns(store, plan(packed.datatype(), READING)?)?;
    let (range, n) = records_range(store, range, len)?;
    let size = packed.size();
    let mut out =
        bytemuck::allocation::try_zeroed_vec::<u8>(n.saturating_mul(size)).map_err(|()| {
            shape_error(
                store,
                format!("cannot allocate {n} records of {size} bytes"),
            )
        })?;
    let part_len = part_len(&opened);
    let first_len = ((part_len - range.start % part_len) as usize).min(n) * size;
    let (head, rest) = out.split_at_mut(first_len);
    let mut parts = vec![(range.start, head)];
    let mut at = range.start + (first_len / size.max(1)) as u64;
    for chunk in rest.chunks_mut(part_len as usize * size) {
        let count = (chunk.len() / size.max(1)) as u64;
        parts.push((at, chunk));
        at += count;
    }
    parallel(store, || {
        parts.into_par_iter().try_for_each(|(first, bytes)| {
            let count = (bytes.len() / size.max(1)) as u64;
            let values = opened
                .iter()
                .map(|o| o.read(first..first + count))
                .collect::<Result<Vec<_>>>()?;
            interleave(&opened, &values, bytes, size);
            Ok(())
        })
    })?;
    Ok(out)
}

/// Columns are read whatever their characters' element type.
const READING: Style = Style {
    chars_as_u1: false,
    order: ndl_runtime::ByteOrder::Little,
};

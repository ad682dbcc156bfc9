//! Reading one array of records: into `Vec<T>`, checked against `T`, or as
//! packed bytes of the stored datatype.

use std::ops::Range;

use ndl_runtime::field_map::{FieldMap, FieldMapError};
use ndl_runtime::records::{InvalidValue, PackedLayout, RecordBuf};
use ndl_runtime::{ByteOrder, NdlType};

use super::{check_type, packer};
use crate::chunks::{records_range, shape_error, Chunks};
use crate::error::{Error, Result};
use crate::metadata::ArrayMeta;
use crate::store::Store;

/// Reads records `range` (all when `None`) of the array of records in
/// `store` into `T`s: records of exactly `T`'s packed datatype, or, `by_name`,
/// any records that hold `T`'s fields.
pub(crate) fn read_records<T: NdlType + Send + Sync>(
    store: &Store,
    range: Option<Range<u64>>,
    by_name: bool,
) -> Result<Vec<T>> {
    let (meta, range, n) = open(store, range)?;
    let packer = packer::<T>(&store.name)?;
    // By name, `T`'s fields are copied out of the stored records (which
    // chunks decode to native byte order); else the records are `T`'s.
    let map = if by_name {
        let stored =
            PackedLayout::new(&meta.stored).map_err(|e| shape_error(store, e.to_string()))?;
        let map = FieldMap::new(stored.datatype(), ByteOrder::NATIVE, &T::datatype())
            .map_err(|e| by_name_error(store, e))?;
        Some(map)
    } else {
        check_type(store, &meta, &packer)?;
        None
    };
    // Zeroed memory is mapped lazily: only what the chunks fill is touched,
    // and a length no memory can hold is an error here, not an abort.
    let mut records = RecordBuf::<T>::zeroed(n).map_err(|e| shape_error(store, e.to_string()))?;
    let (skip, chunk_len) = alignment(&meta, &range);
    Chunks::new(store, &meta)?.decode(
        &range,
        records.parts_mut_aligned(skip, chunk_len),
        |part| part.len(),
        |chunk, first, part, bytes| {
            match &map {
                Some(map) => packer.fill(part, |memory| map.apply(bytes, memory)),
                None => packer.unpack(bytes, part),
            }
            .map_err(|bad| invalid(store, chunk, first, bad))
        },
    )?;
    records
        .into_vec()
        .ok_or_else(|| shape_error(store, "not every record was read".into()))
}

/// Reads records `range` (all when `None`) as packed records of the stored
/// datatype in native byte order, bools and enums checked.
pub(crate) fn read_packed(store: &Store, range: Option<Range<u64>>) -> Result<Vec<u8>> {
    let (meta, range, n) = open(store, range)?;
    let layout = PackedLayout::new(&meta.stored).map_err(|e| shape_error(store, e.to_string()))?;
    let size = layout.size();
    let total = n.checked_mul(size).ok_or_else(|| {
        shape_error(
            store,
            format!("{n} records of {size} bytes do not fit in memory"),
        )
    })?;
    let mut out = bytemuck::allocation::try_zeroed_vec::<u8>(total).map_err(|()| {
        shape_error(
            store,
            format!("cannot allocate {n} records of {size} bytes"),
        )
    })?;
    let (skip, chunk_len) = alignment(&meta, &range);
    let first_len = (chunk_len - skip).min(n) * size;
    let (head, rest) = out.split_at_mut(first_len);
    let parts: Vec<&mut [u8]> = std::iter::once(head)
        .filter(|h| !h.is_empty())
        .chain(rest.chunks_mut(chunk_len * size))
        .collect();
    Chunks::new(store, &meta)?.decode(
        &range,
        parts,
        |part| part.len() / size.max(1),
        |chunk, first, part, bytes| {
            part.copy_from_slice(bytes);
            layout
                .check(part)
                .map_err(|bad| invalid(store, chunk, first, bad))
        },
    )?;
    Ok(out)
}

fn by_name_error(store: &Store, e: FieldMapError) -> Error {
    let message = e.to_string();
    match e {
        FieldMapError::MissingField { field, .. } | FieldMapError::FieldType { field, .. } => {
            Error::TypeMismatch {
                store: store.name.clone(),
                field,
                message,
            }
        }
        _ => shape_error(store, message),
    }
}

fn invalid(store: &Store, chunk: u64, first: u64, bad: InvalidValue) -> Error {
    Error::InvalidValue {
        store: store.name.clone(),
        chunk,
        record: first + bad.record as u64,
        field: bad.field,
        offset: bad.offset,
        message: bad.message,
    }
}

/// The array's metadata, the records to read, and how many they are.
fn open(store: &Store, range: Option<Range<u64>>) -> Result<(ArrayMeta, Range<u64>, usize)> {
    let meta = ArrayMeta::read(store)?;
    if meta.shape.len() != 1 {
        return Err(shape_error(
            store,
            format!(
                "the array has shape {:?}; records are read from one-dimensional arrays",
                meta.shape
            ),
        ));
    }
    let (range, n) = records_range(store, range, meta.len())?;
    Ok((meta, range, n))
}

/// Where `range` starts within its first chunk, and the chunk length.
fn alignment(meta: &ArrayMeta, range: &Range<u64>) -> (usize, usize) {
    let chunk_len = meta.chunk_shape[0];
    ((range.start % chunk_len) as usize, chunk_len as usize)
}

//! Reading one array of records into `Vec<T>`.

use std::ops::Range;

use ndl_runtime::records::RecordBuf;
use ndl_runtime::NdlType;
use rayon::prelude::*;
use zarrs::array::{ArrayBytes, CodecOptions};

use super::{check_type, chunk_error, packer};
use crate::error::{Error, Result};
use crate::metadata::ArrayMeta;
use crate::store::Store;

/// Reads records `range` (all when `None`) of the array of records in
/// `store`, decoding only the chunks that hold them, in parallel.
pub(crate) fn read_records<T: NdlType + Send + Sync>(
    store: &Store,
    range: Option<Range<u64>>,
) -> Result<Vec<T>> {
    let meta = ArrayMeta::read(store)?;
    let packer = packer::<T>(store)?;
    check_type(store, &meta, &packer)?;
    let shape_error = |message: String| Error::Shape {
        store: store.name.clone(),
        message,
    };
    if meta.shape.len() != 1 {
        return Err(shape_error(format!(
            "the array has shape {:?}; records are read from one-dimensional arrays",
            meta.shape
        )));
    }
    let len = meta.len();
    let range = range.unwrap_or(0..len);
    if range.start > range.end || range.end > len {
        return Err(shape_error(format!(
            "records {range:?} are not within the array's {len}"
        )));
    }
    let n = usize::try_from(range.end - range.start).map_err(|_| {
        shape_error(format!(
            "{} records do not fit in memory",
            range.end - range.start
        ))
    })?;
    // Zeroed memory is mapped lazily: only what the chunks fill is touched,
    // and a length no memory can hold is an error here, not an abort.
    let mut records = RecordBuf::<T>::zeroed(n).map_err(|e| shape_error(e.to_string()))?;
    if n > 0 {
        let engine = meta.engine(store)?;
        let chunk_len = meta.chunks[0];
        let first_chunk = range.start / chunk_len;
        let skip = (range.start % chunk_len) as usize;
        let size = packer.layout().size();
        // Chunks are decoded in parallel, one per thread.
        let options = CodecOptions::default().with_concurrent_target(1);
        records
            .parts_mut_aligned(skip, chunk_len as usize)
            .into_par_iter()
            .enumerate()
            .try_for_each(|(i, mut part)| {
                let chunk = first_chunk + i as u64;
                let decoded: ArrayBytes = engine
                    .retrieve_chunk_opt(&[chunk], &options)
                    .map_err(|e| chunk_error(store, &engine, chunk, e))?;
                let decoded = decoded
                    .into_fixed()
                    .map_err(|e| chunk_error(store, &engine, chunk, e))?;
                let from = if i == 0 { skip } else { 0 } * size;
                let bytes = decoded
                    .get(from..from + part.len() * size)
                    .ok_or_else(|| chunk_error(store, &engine, chunk, "decoded chunk is short"))?;
                packer
                    .unpack(bytes, &mut part)
                    .map_err(|bad| Error::InvalidValue {
                        store: store.name.clone(),
                        chunk,
                        record: range.start + (part.start() + bad.record) as u64,
                        field: bad.field,
                        offset: bad.offset,
                        message: bad.message,
                    })
            })?;
    }
    records
        .into_vec()
        .ok_or_else(|| shape_error("not every record was read".into()))
}

//! The one reading path of both layouts. The records asked for are cut
//! into parts, one per chunk (the first starting where the range does),
//! which are filled in parallel from a [`PartSource`]: the layout's half of a
//! read, which says where a part's bytes come from.

use std::ops::Range;

use ndl_runtime::NdlType;
use ndl_runtime::records::{InvalidValue, Packer, RecordBuf, RecordsMut};
use rayon::prelude::*;

use crate::chunks::parallel;
use crate::error::{Error, Result};
use crate::store::Store;

/// Where the records of a read come from: one array of records, or
/// columns.
pub(crate) trait PartSource: Sync {
    /// The store read, for messages and for the threads that fit it.
    fn store(&self) -> &Store;

    /// Records per chunk: every part but the first starts on a multiple.
    fn chunk_len(&self) -> u64;

    /// The bytes of a record [`packed`](PartSource::packed) writes.
    fn record_size(&self) -> usize;

    /// Writes records `first..` (as many as `out` holds, all in one chunk)
    /// into `out`, packed in native byte order, checked.
    fn packed(&self, first: u64, out: &mut [u8]) -> Result<()>;

    /// Fills `part`, records `first..` (all in one chunk), checked.
    fn typed<T: NdlType>(
        &self,
        packer: &Packer<T>,
        first: u64,
        part: &mut RecordsMut<'_, T>,
    ) -> Result<()>;
}

/// Reads records `range`, `n` of them, into `T`s.
pub(crate) fn read_typed<T: NdlType + Send + Sync>(
    source: &impl PartSource,
    packer: &Packer<T>,
    range: Range<u64>,
    n: usize,
) -> Result<Vec<T>> {
    let store = source.store();
    // Zeroed memory is mapped lazily: only what the chunks fill is touched,
    // and a length no memory can hold is an error here, not an abort.
    let mut records = RecordBuf::<T>::zeroed(n).map_err(|e| shape_error(store, e.to_string()))?;
    let chunk_len = source.chunk_len();
    let parts = records.parts_mut_aligned((range.start % chunk_len) as usize, chunk_len as usize);
    parallel(store, || {
        parts.into_par_iter().try_for_each(|mut part| {
            source.typed(packer, range.start + part.start() as u64, &mut part)
        })
    })?;
    records
        .into_vec()
        .ok_or_else(|| shape_error(store, "not every record was read".into()))
}

/// Reads records `range`, `n` of them, packed in native byte order.
pub(crate) fn read_packed(
    source: &impl PartSource,
    range: Range<u64>,
    n: usize,
) -> Result<Vec<u8>> {
    let store = source.store();
    let size = source.record_size();
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
    // Fresh zeroed memory is mapped lazily: backing it with 2 MiB pages
    // before the chunks fill it spares a page fault per 4 KiB.
    ndl_runtime::records::advise_huge_pages(&mut out);
    let chunk_len = source.chunk_len();
    let mut parts = Vec::new();
    let (mut rest, mut first, mut left) = (out.as_mut_slice(), range.start, n as u64);
    while left > 0 && size > 0 {
        let count = (chunk_len - first % chunk_len).min(left);
        let (part, after) = rest.split_at_mut(count as usize * size);
        parts.push((first, part));
        (rest, first, left) = (after, first + count, left - count);
    }
    parallel(store, || {
        parts
            .into_par_iter()
            .try_for_each(|(first, part)| source.packed(first, part))
    })?;
    Ok(out)
}

/// The records to read of a store (an array, or columns) of `len` records, and how many they are.
pub(crate) fn records_range(
    store: &Store,
    range: Option<Range<u64>>,
    len: u64,
) -> Result<(Range<u64>, usize)> {
    let range = range.unwrap_or(0..len);
    if range.start > range.end || range.end > len {
        return Err(shape_error(
            store,
            format!("records {range:?} are not within the store's {len}"),
        ));
    }
    let n = usize::try_from(range.end - range.start).map_err(|_| {
        shape_error(
            store,
            format!("{} records do not fit in memory", range.end - range.start),
        )
    })?;
    Ok((range, n))
}

/// A read that does not fit the store, or memory.
pub(crate) fn shape_error(store: &Store, message: String) -> Error {
    Error::Shape {
        store: store.name.clone(),
        message,
    }
}

/// A bool or enum value that the records' type does not admit, found in
/// the part starting at record `first` of a store in chunks of `chunk_len`.
pub(crate) fn invalid(store: &Store, chunk_len: u64, first: u64, bad: InvalidValue) -> Error {
    let record = first + bad.record as u64;
    Error::InvalidValue {
        store: store.name.clone(),
        chunk: record / chunk_len,
        record,
        field: bad.field,
        offset: bad.offset,
        message: bad.message,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// Records of 2 bytes, each its index's low bytes, in chunks of 4; the
    /// parts it is asked for are noted.
    struct Counting {
        store: Store,
        asked: Mutex<Vec<(u64, usize)>>,
    }

    impl PartSource for Counting {
        fn store(&self) -> &Store {
            &self.store
        }

        fn chunk_len(&self) -> u64 {
            4
        }

        fn record_size(&self) -> usize {
            2
        }

        fn packed(&self, first: u64, out: &mut [u8]) -> Result<()> {
            self.asked.lock().unwrap().push((first, out.len() / 2));
            for (i, record) in out.chunks_exact_mut(2).enumerate() {
                record.copy_from_slice(&(first as u16 + i as u16).to_le_bytes());
            }
            Ok(())
        }

        fn typed<T: NdlType>(
            &self,
            _: &Packer<T>,
            _: u64,
            _: &mut RecordsMut<'_, T>,
        ) -> Result<()> {
            unreachable!("packed reads only")
        }
    }

    #[test]
    fn parts_are_whole_chunks_but_the_first_and_last() {
        let source = Counting {
            store: Store::memory("m"),
            asked: Mutex::new(Vec::new()),
        };
        let bytes = read_packed(&source, 3..13, 10).unwrap();
        let values: Vec<u16> = bytes
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(values, (3..13).collect::<Vec<_>>());
        let mut asked = source.asked.into_inner().unwrap();
        asked.sort_unstable();
        assert_eq!(asked, [(3, 1), (4, 4), (8, 4), (12, 1)]);
    }

    #[test]
    fn ranges_outside_the_store_are_refused() {
        let store = Store::memory("m");
        assert_eq!(records_range(&store, None, 5).unwrap(), (0..5, 5));
        assert_eq!(records_range(&store, Some(2..2), 5).unwrap(), (2..2, 0));
        #[allow(clippy::reversed_empty_ranges)]
        let backwards = 3..2;
        for bad in [4..6, backwards] {
            let e = records_range(&store, Some(bad.clone()), 5).unwrap_err();
            assert!(
                e.to_string().contains("not within the store's 5"),
                "{bad:?}: {e}"
            );
        }
    }

    #[test]
    fn an_invalid_value_names_its_chunk_and_record() {
        let bad = InvalidValue {
            record: 3,
            field: "ok".into(),
            offset: 4,
            message: "2 is not a bool".into(),
        };
        let e = invalid(&Store::memory("m"), 4, 6, bad);
        assert!(
            matches!(e, Error::InvalidValue { chunk: 2, record: 9, ref field, .. } if field == "ok"),
            "{e}"
        );
    }
}

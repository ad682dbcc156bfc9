//! Reading one array of records: the records layout as a [`PartSource`], whose
//! parts are slices of decoded chunks.

use std::ops::Range;

use ndl_runtime::field_map::{FieldMap, FieldMapError};
use ndl_runtime::records::{PackedLayout, Packer, RecordsMut};
use ndl_runtime::{ByteOrder, NdlType};

use crate::chunks::ChunkIo;
use crate::error::{Error, Result};
use crate::metadata::ArrayMeta;
use crate::part_reader::{PartSource, invalid, records_range, shape_error};
use crate::store::Store;

/// The array of records of a store, opened for reading.
pub(crate) struct RecordsSource {
    chunks: ChunkIo,
    /// The stored records, packed: their checks.
    stored: PackedLayout,
    /// For reads by name, where `T`'s fields are in a stored record.
    by_name: Option<FieldMap>,
}

impl RecordsSource {
    /// The array at the root of `store`, which must be one-dimensional,
    /// and the records `range` of it to read (all when `None`), and how
    /// many they are.
    pub fn open(
        store: &Store,
        range: Option<Range<u64>>,
    ) -> Result<(RecordsSource, Range<u64>, usize)> {
        let meta = ArrayMeta::read(store)?;
        if meta.shape.len() != 1 {
            return Err(shape_error(
                store,
                format!(
                    "the array has shape {:?}; records are read from one-dimensional arrays (read another rank with read_ndarray or GridReader)",
                    meta.shape
                ),
            ));
        }
        let (range, n) = records_range(store, range, meta.len())?;
        let stored =
            PackedLayout::new(&meta.stored).map_err(|e| shape_error(store, e.to_string()))?;
        let source = RecordsSource {
            chunks: ChunkIo::new(store, &meta)?,
            stored,
            by_name: None,
        };
        Ok((source, range, n))
    }

    /// Readies the source for records of `T`: exactly `T`'s packed
    /// datatype, or, `by_name`, any records that hold `T`'s fields, which
    /// are copied out of the stored records (decoded to native byte order).
    pub fn for_type<T: NdlType>(mut self, packer: &Packer<T>, by_name: bool) -> Result<Self> {
        let store = &self.chunks.store;
        if !by_name {
            super::check_type(store, self.stored.datatype(), packer)?;
            return Ok(self);
        }
        let map = FieldMap::new(self.stored.datatype(), ByteOrder::NATIVE, &T::datatype())
            .map_err(|e| by_name_error(store, e))?;
        self.by_name = Some(map);
        Ok(self)
    }

    fn invalid(&self, first: u64) -> impl Fn(ndl_runtime::records::InvalidValue) -> Error + '_ {
        move |bad| invalid(&self.chunks.store, self.chunks.chunk_len, first, bad)
    }
}

impl PartSource for RecordsSource {
    fn store(&self) -> &Store {
        &self.chunks.store
    }

    fn chunk_len(&self) -> u64 {
        self.chunks.chunk_len
    }

    fn record_size(&self) -> usize {
        self.stored.size()
    }

    fn packed(&self, first: u64, out: &mut [u8]) -> Result<()> {
        self.chunks.read_records_into(first, out)?;
        self.stored.check(out).map_err(self.invalid(first))
    }

    fn typed<T: NdlType>(
        &self,
        packer: &Packer<T>,
        first: u64,
        part: &mut RecordsMut<'_, T>,
    ) -> Result<()> {
        if self.by_name.is_none() && packer.is_dense() {
            // Packed records are `T`'s memory: decoded straight into place.
            let mut read = Ok(());
            let filled = packer.fill(part, |memory| {
                read = self.chunks.read_records_into(first, memory);
            });
            read?;
            return filled.map_err(self.invalid(first));
        }
        self.chunks.with_records(first, part.len(), |bytes| {
            match &self.by_name {
                Some(map) => packer.fill(part, |memory| map.apply(bytes, memory)),
                None => packer.unpack(bytes, part),
            }
            .map_err(self.invalid(first))
        })
    }
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

//! zarrs itself, the baseline of the Zarr comparison: the same packed
//! records as the plain fixed-size data type `r<8 × size>`, written and
//! read with zarrs' own parallelism.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use zarrs::array::codec::ZstdCodec;
use zarrs::array::{Array, ArrayBuilder, ArrayBytes, data_type};
use zarrs::filesystem::FilesystemStore;
use zarrs::storage::byte_range::ByteRangeIterator;
use zarrs::storage::{
    Bytes, MaybeBytesIterator, OffsetBytesIterator, ReadableStorageTraits,
    ReadableWritableStorageTraits, StorageError, StoreKey, StorePrefix, WritableStorageTraits,
};

use super::{CHUNK, LEVEL};

/// zarrs' `FilesystemStore`, except that `set` writes the object with one
/// `std::fs::write`, without the `fsync` (`File::sync_all`) the stock store
/// does after every object: no writer in this benchmark syncs, ndl-zarr
/// included.
struct NoSyncFs(FilesystemStore);

impl ReadableStorageTraits for NoSyncFs {
    fn get_partial_many<'a>(
        &'a self,
        key: &StoreKey,
        byte_ranges: ByteRangeIterator<'a>,
    ) -> Result<MaybeBytesIterator<'a>, StorageError> {
        self.0.get_partial_many(key, byte_ranges)
    }

    fn size_key(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        self.0.size_key(key)
    }

    fn supports_get_partial(&self) -> bool {
        self.0.supports_get_partial()
    }
}

impl WritableStorageTraits for NoSyncFs {
    fn set(&self, key: &StoreKey, value: Bytes) -> Result<(), StorageError> {
        let path = self.0.key_to_fspath(key);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        Ok(fs::write(path, value)?)
    }

    fn set_partial_many(
        &self,
        key: &StoreKey,
        offset_values: OffsetBytesIterator,
    ) -> Result<(), StorageError> {
        self.0.set_partial_many(key, offset_values)
    }

    fn erase(&self, key: &StoreKey) -> Result<(), StorageError> {
        self.0.erase(key)
    }

    fn erase_prefix(&self, prefix: &StorePrefix) -> Result<(), StorageError> {
        self.0.erase_prefix(prefix)
    }

    fn supports_set_partial(&self) -> bool {
        false
    }
}

/// Writes `packed` (`n` records of `size` bytes) as a new zarrs array at
/// `path`: `r<8 × size>`, chunks of `CHUNK`, zstd at `LEVEL`; on zarrs'
/// stock `FilesystemStore` when `sync`, else on [`NoSyncFs`].
pub fn zarrs_write(path: &Path, packed: &[u8], n: u64, size: usize, sync: bool) {
    let fs = FilesystemStore::new(path).expect("a zarrs filesystem store");
    if sync {
        zarrs_write_to(Arc::new(fs), packed, n, size)
    } else {
        zarrs_write_to(Arc::new(NoSyncFs(fs)), packed, n, size)
    }
}

fn zarrs_write_to<S: ReadableWritableStorageTraits + 'static>(
    store: Arc<S>,
    packed: &[u8],
    n: u64,
    size: usize,
) {
    let array = ArrayBuilder::new(
        vec![n],
        vec![CHUNK],
        data_type::raw_bits(size),
        vec![0u8; size],
    )
    .bytes_to_bytes_codecs(vec![Arc::new(ZstdCodec::new(LEVEL, false))])
    .build(store, "/")
    .expect("a zarrs array");
    array.store_metadata().expect("zarrs stores its metadata");
    array
        .store_array_subset(&array.subset_all(), ArrayBytes::new_flen(packed))
        .expect("zarrs stores the records");
}

/// Reads the whole zarrs array at `path` into bytes.
pub fn zarrs_read(path: &Path) -> Vec<u8> {
    let store = Arc::new(FilesystemStore::new(path).expect("a zarrs filesystem store"));
    let array = Array::open(store, "/").expect("zarrs opens the array");
    let bytes: ArrayBytes = array
        .retrieve_array_subset(&array.subset_all())
        .expect("zarrs reads the records");
    bytes
        .into_fixed()
        .expect("fixed-size elements")
        .into_owned()
}

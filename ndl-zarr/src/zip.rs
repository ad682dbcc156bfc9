//! Zip stores (`.zarr.zip`, zarr-python's `ZipStore`): a zip file whose
//! members are a store's keys, read through zarrs' zip storage adapter.
//! An open one is read-only: every write is refused, naming the file. A
//! new one is built as a directory out of sight, then packed into its
//! place whole ([`pack`]).

use std::path::Path;
use std::sync::Arc;

use zarrs::filesystem::FilesystemStore;
use zarrs::storage::byte_range::ByteRangeIterator;
use zarrs::storage::{
    Bytes, ListableStorageTraits, MaybeBytes, MaybeBytesIterator, OffsetBytesIterator,
    ReadableStorageTraits, StorageError, StoreKey, StoreKeys, StoreKeysPrefixes, StorePrefix,
    WritableStorageTraits,
};
use zarrs_zip::ZipStorageAdapter;

use crate::error::{Error, Result};

/// Whether the new store at `place` is a zip store: its name ends in
/// `.zip` (`obs.zarr.zip`).
pub(crate) fn is_zip_place(place: &Path) -> bool {
    place.extension().is_some_and(|e| e == "zip")
}

/// Where in the building directory its zip file is packed: no store key
/// (v2's begin with a dot too, but are `.zarray`, `.zattrs`, ...).
const PACKING: &str = ".ndl-packing.zip";

/// Packs the store built in the directory `building` into a new zip file
/// at `place`, as zarr-python's `ZipStore` writes one: each key a member,
/// stored uncompressed (a chunk is compressed by its codec already), in
/// key order. The file is packed inside `building` (a writer killed
/// meanwhile leaves it in its own leftover, which the next writer
/// removes), then linked into `place`, which must still be free; with
/// `durable`, it reaches the disk first.
pub(crate) fn pack(building: &Path, place: &Path, durable: bool) -> Result<()> {
    let io = |source| Error::Io {
        path: place.to_path_buf(),
        source,
    };
    let keys = keys(building).map_err(io)?;
    let packing = building.join(PACKING);
    let file = std::fs::File::options()
        .write(true)
        .create_new(true)
        .open(&packing)
        .map_err(io)?;
    let mut zip = zip::ZipWriter::new(std::io::BufWriter::with_capacity(1 << 20, file));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(true);
    let zipped = |e: zip::result::ZipError| io(std::io::Error::other(e));
    for (key, file) in keys {
        zip.start_file(key.as_str(), options).map_err(zipped)?;
        let mut member = std::fs::File::open(&file).map_err(io)?;
        std::io::copy(&mut member, &mut zip).map_err(io)?;
    }
    let file = zip
        .finish()
        .map_err(zipped)?
        .into_inner()
        .map_err(|e| io(e.into_error()))?;
    if durable {
        file.sync_all().map_err(io)?;
    }
    let exists = || Error::Exists {
        store: place.display().to_string(),
    };
    match std::fs::hard_link(&packing, place) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Err(exists()),
        // A filesystem without hard links (vfat, some network mounts): a
        // rename, checked first, which another writer could race.
        Err(_) if place.exists() => return Err(exists()),
        Err(_) => std::fs::rename(&packing, place).map_err(io)?,
    }
    if durable {
        ndl_runtime::staging::sync_dir(place.parent().unwrap_or(Path::new("."))).map_err(io)?;
    }
    Ok(())
}

/// Every file below `dir`, as its store key (`temp/c/0/0`), in key order.
fn keys(dir: &Path) -> std::io::Result<Vec<(String, std::path::PathBuf)>> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at)? {
            let entry = entry?;
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                pending.push(path);
                continue;
            }
            let key = path.strip_prefix(dir).map_err(std::io::Error::other)?;
            let key: Vec<String> = key
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            found.push((key.join("/"), path));
        }
    }
    found.sort();
    Ok(found)
}

/// The first bytes of a zip file (a local file header, or the end of an
/// empty archive's central directory).
const MAGIC: [&[u8]; 2] = [b"PK\x03\x04", b"PK\x05\x06"];

/// Whether `path` is a file that starts as a zip file does.
pub(crate) fn is_zip(path: &Path) -> bool {
    use std::io::Read;
    let mut start = Vec::with_capacity(4);
    let read = std::fs::File::open(path).and_then(|f| f.take(4).read_to_end(&mut start));
    path.is_file() && read.is_ok() && MAGIC.contains(&start.as_slice())
}

/// The zip file at `path`, as a store.
pub(crate) fn open(path: &Path) -> Result<ReadOnlyZip> {
    let bad = |message: String| Error::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(message),
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| bad("the zip file's name is not UTF-8".into()))?;
    let fs = FilesystemStore::new(dir).map_err(|e| bad(e.to_string()))?;
    let key = StoreKey::new(name).map_err(|e| bad(e.to_string()))?;
    let zip = ZipStorageAdapter::new(Arc::new(fs), key)
        .map_err(|e| bad(format!("not a readable zip file: {e}")))?;
    Ok(ReadOnlyZip {
        zip,
        name: path.display().to_string(),
    })
}

/// A zip store, whose writes are refused.
pub(crate) struct ReadOnlyZip {
    zip: ZipStorageAdapter<FilesystemStore>,
    name: String,
}

impl ReadOnlyZip {
    fn refuse(&self) -> StorageError {
        StorageError::Other(format!(
            "{} is a zip store, which is read-only: convert it to a directory store to change it",
            self.name
        ))
    }
}

impl ReadableStorageTraits for ReadOnlyZip {
    fn get_partial_many<'a>(
        &'a self,
        key: &StoreKey,
        byte_ranges: ByteRangeIterator<'a>,
    ) -> std::result::Result<MaybeBytesIterator<'a>, StorageError> {
        self.zip.get_partial_many(key, byte_ranges)
    }

    fn get(&self, key: &StoreKey) -> std::result::Result<MaybeBytes, StorageError> {
        self.zip.get(key)
    }

    fn size_key(&self, key: &StoreKey) -> std::result::Result<Option<u64>, StorageError> {
        self.zip.size_key(key)
    }

    fn supports_get_partial(&self) -> bool {
        self.zip.supports_get_partial()
    }
}

impl WritableStorageTraits for ReadOnlyZip {
    fn set(&self, _key: &StoreKey, _value: Bytes) -> std::result::Result<(), StorageError> {
        Err(self.refuse())
    }

    fn set_partial_many(
        &self,
        _key: &StoreKey,
        _offset_values: OffsetBytesIterator,
    ) -> std::result::Result<(), StorageError> {
        Err(self.refuse())
    }

    fn erase(&self, _key: &StoreKey) -> std::result::Result<(), StorageError> {
        Err(self.refuse())
    }

    fn erase_prefix(&self, _prefix: &StorePrefix) -> std::result::Result<(), StorageError> {
        Err(self.refuse())
    }

    fn supports_set_partial(&self) -> bool {
        false
    }
}

impl ListableStorageTraits for ReadOnlyZip {
    fn list(&self) -> std::result::Result<StoreKeys, StorageError> {
        self.zip.list()
    }

    fn list_prefix(&self, prefix: &StorePrefix) -> std::result::Result<StoreKeys, StorageError> {
        self.zip.list_prefix(prefix)
    }

    fn list_dir(
        &self,
        prefix: &StorePrefix,
    ) -> std::result::Result<StoreKeysPrefixes, StorageError> {
        self.zip.list_dir(prefix)
    }

    fn size_prefix(&self, prefix: &StorePrefix) -> std::result::Result<u64, StorageError> {
        self.zip.size_prefix(prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A zip store is a local file: one named on object storage is
    /// refused before any store is contacted.
    #[test]
    fn a_zip_store_on_object_storage_is_refused() {
        let e = crate::store::Store::open(Path::new("s3://data/obs.zarr.zip")).unwrap_err();
        assert!(e.to_string().contains("zip stores are local files"), "{e}");
    }

    #[test]
    fn a_zip_store_reads_its_members_and_refuses_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.zarr.zip");
        let script = "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n    z.writestr('zarr.json', '{}')\n    z.writestr('c/0', b'abc')";
        ndl_testkit::python::run_python(script, &[path.to_str().unwrap()]);
        assert!(is_zip(&path));
        assert!(!is_zip(dir.path()));
        let zip = open(&path).unwrap();
        let key = StoreKey::new("c/0").unwrap();
        assert_eq!(zip.get(&key).unwrap().as_deref(), Some(&b"abc"[..]));
        let e = zip.set(&key, Bytes::from_static(b"x")).unwrap_err();
        assert!(e.to_string().contains("read-only"), "{e}");
        assert!(e.to_string().contains("s.zarr.zip"), "{e}");
        std::fs::write(dir.path().join("bad.zip"), b"PK\x03\x04 nothing").unwrap();
        let e = open(&dir.path().join("bad.zip")).err().unwrap();
        assert!(e.to_string().contains("not a readable zip file"), "{e}");
    }
}

//! Where a store's objects live, and how they are written so that no
//! reader ever sees one half-written.
//!
//! A local directory is zarrs' filesystem store behind [`ReplacingFs`],
//! which writes each object to a temporary file beside it and renames it
//! into place: an object is either the old one or the new one, whatever
//! happens to the writing process.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use zarrs::filesystem::FilesystemStore;
use zarrs::storage::byte_range::ByteRangeIterator;
use zarrs::storage::{
    Bytes, ListableStorageTraits, MaybeBytes, MaybeBytesIterator, OffsetBytesIterator,
    ReadableStorageTraits, ReadableWritableListableStorageTraits, StorageError, StoreKey,
    StoreKeys, StoreKeysPrefixes, StorePrefix, WritableStorageTraits,
};

use crate::error::{Error, Result};

/// A store, or a node (array or group) within one: its objects, a name for
/// messages (its path or URL), and the node's key prefix.
#[derive(Clone)]
pub(crate) struct Store {
    pub storage: Arc<dyn ReadableWritableListableStorageTraits>,
    pub name: String,
    /// `""` at the root, `"a/b/"` for the node `a/b`.
    prefix: String,
    /// Where the store is.
    place: Place,
    /// How a local store's objects are written.
    writes: Writes,
}

/// How a local store's objects are written.
#[derive(Clone, Copy, Debug, Default)]
struct Writes {
    /// Replaced (written beside and renamed), or, in a directory no reader
    /// sees yet, written in place.
    replace: bool,
    /// Flushed to the disk: each file before it is renamed, each directory
    /// after an entry is added to it.
    sync: bool,
}

/// Where a store's objects are.
#[derive(Clone)]
pub(crate) enum Place {
    /// A local directory.
    Local(PathBuf),
    /// Object storage.
    #[cfg(feature = "s3")]
    Remote(crate::s3::Remote),
    /// Memory (tests, fuzzing).
    Memory,
    /// A zip file, read-only.
    Zip,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("name", &self.name).finish()
    }
}

impl Store {
    /// The store `location` names: `s3://bucket/prefix`, `file:///path`,
    /// or a local path.
    pub fn open(location: &Path) -> Result<Store> {
        let text = location.to_string_lossy();
        if let Some(rest) = text.strip_prefix("s3://") {
            if crate::zip::is_zip_place(location) {
                return Err(Error::Unsupported {
                    message: format!(
                        "{text}: zip stores are local files; on object storage, write the \
                         store under a name without `.zip`"
                    ),
                });
            }
            #[cfg(feature = "s3")]
            return crate::s3::open(&text, rest)
                .map(|(storage, remote)| Store::remote(storage, &text, remote));
            #[cfg(not(feature = "s3"))]
            return Err(Error::Unsupported {
                message: format!("{text}: S3 stores need ndl-zarr's `s3` feature ({rest})"),
            });
        }
        let path = text.strip_prefix("file://").map_or(location, Path::new);
        if crate::zip::is_zip(path) {
            return Store::zip(path, &text);
        }
        // A node inside a zipped store: `x.zarr.zip/temp`.
        if !path.exists()
            && let Some(zip) = path.ancestors().skip(1).find(|a| crate::zip::is_zip(a))
            && let Ok(inside) = path.strip_prefix(zip)
        {
            let root = Store::zip(zip, &zip.display().to_string())?;
            return Ok(inside
                .iter()
                .fold(root, |store, part| store.child(&part.to_string_lossy())));
        }
        Store::local(path)
    }

    /// The zipped store at `path`, named `name` in messages.
    fn zip(path: &Path, name: &str) -> Result<Store> {
        Ok(Store {
            storage: Arc::new(crate::zip::open(path)?),
            name: name.to_string(),
            prefix: String::new(),
            place: Place::Zip,
            writes: Writes::default(),
        })
    }

    /// A store on object storage.
    #[cfg(feature = "s3")]
    fn remote(
        storage: Arc<dyn ReadableWritableListableStorageTraits>,
        name: &str,
        remote: crate::s3::Remote,
    ) -> Store {
        Store {
            storage,
            name: name.to_string(),
            prefix: String::new(),
            place: Place::Remote(remote),
            writes: Writes::default(),
        }
    }

    /// Whether the store is a local directory.
    pub fn is_local(&self) -> bool {
        matches!(self.place, Place::Local(_))
    }

    /// Whether the store is in object storage.
    pub fn is_remote(&self) -> bool {
        !matches!(self.place, Place::Local(_) | Place::Memory | Place::Zip)
    }

    /// The node's local directory, for a local store (a `file://` URL's
    /// path, not the URL).
    pub fn local_dir(&self) -> Option<PathBuf> {
        match &self.place {
            Place::Local(root) => Some(match self.prefix.trim_end_matches('/') {
                // `join("")` would add a trailing `/`, which no file matches.
                "" => root.clone(),
                prefix => root.join(prefix),
            }),
            _ => None,
        }
    }

    /// The store in the local directory `dir` (not created here).
    pub fn local(dir: &Path) -> Result<Store> {
        let writes = Writes {
            replace: true,
            sync: false,
        };
        Store::local_with(dir, writes, dir.display().to_string())
    }

    /// A store in the local directory `dir` that no reader sees until it is
    /// renamed into place: objects are written in place, not replaced,
    /// and flushed to the disk if `sync`. Messages name it `name`, its
    /// place.
    pub fn building(dir: &Path, name: &str, sync: bool) -> Result<Store> {
        let writes = Writes {
            replace: false,
            sync,
        };
        Store::local_with(dir, writes, name.to_string())
    }

    /// This store, its objects flushed to the disk as they are written
    /// (see [`WriteOptions::durable`](crate::WriteOptions::durable)). An
    /// object store's are durable once written: it is returned as it is.
    pub fn durable(self) -> Result<Store> {
        let Place::Local(root) = &self.place else {
            return Ok(self);
        };
        let writes = Writes {
            sync: true,
            ..self.writes
        };
        let store = Store::local_with(root, writes, self.name.clone())?;
        Ok(Store {
            prefix: self.prefix,
            ..store
        })
    }

    /// Whether objects are flushed to the disk as they are written.
    pub fn is_durable(&self) -> bool {
        self.writes.sync
    }

    fn local_with(dir: &Path, writes: Writes, name: String) -> Result<Store> {
        let fs = FilesystemStore::new(dir).map_err(|e| Error::Io {
            path: dir.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        })?;
        Ok(Store {
            storage: Arc::new(ReplacingFs {
                fs,
                root: dir.to_path_buf(),
                writes,
            }),
            name,
            prefix: String::new(),
            place: Place::Local(dir.to_path_buf()),
            writes,
        })
    }

    /// A new, empty store in memory, named `name` in messages.
    pub fn memory(name: &str) -> Store {
        Store {
            storage: Arc::new(zarrs::storage::store::MemoryStore::new()),
            name: name.to_string(),
            prefix: String::new(),
            place: Place::Memory,
            writes: Writes::default(),
        }
    }

    /// The node `name` below this one.
    pub fn child(&self, name: &str) -> Store {
        Store {
            storage: self.storage.clone(),
            name: format!("{}/{name}", self.name),
            prefix: format!("{}{name}/", self.prefix),
            place: self.place.clone(),
            writes: self.writes,
        }
    }

    /// Removes the object at `key`, if there is one.
    pub fn erase(&self, key: &str) -> Result<()> {
        self.storage
            .erase(&self.key(key)?)
            .map_err(|e| self.error(key, e.to_string()))
    }

    /// Writes `key` only if there is no object at it: `false` when there
    /// is one. A local file is created exclusively; object storage writes
    /// conditionally (`If-None-Match: *`).
    pub fn create_new(&self, key: &str, value: &[u8]) -> Result<bool> {
        let full = format!("{}{key}", self.prefix);
        match &self.place {
            Place::Local(root) => {
                let path = root.join(&full);
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&path);
                match file {
                    Ok(mut f) => {
                        std::io::Write::write_all(&mut f, value)
                            .map_err(|e| self.error(key, e.to_string()))?;
                        Ok(true)
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
                    Err(e) => Err(self.error(key, e.to_string())),
                }
            }
            #[cfg(feature = "s3")]
            Place::Remote(remote) => remote
                .create_new(&full, value.to_vec())
                .map_err(|e| self.error(key, e)),
            // Refused by the zip store, naming it.
            Place::Zip => self.set(key, value.to_vec()).map(|()| true),
            Place::Memory => {
                if self.get(key)?.is_some() {
                    return Ok(false);
                }
                self.set(key, value.to_vec()).map(|()| true)
            }
        }
    }

    /// The object at `key` and what tells whether it changes later, `None`
    /// when there is none.
    pub fn get_versioned(&self, key: &str) -> Result<Option<Versioned>> {
        #[cfg(feature = "s3")]
        if let Place::Remote(remote) = &self.place {
            let full = format!("{}{key}", self.prefix);
            let found = remote
                .get_versioned(&full)
                .map_err(|e| self.error(key, e))?;
            return Ok(found.map(|(bytes, etag)| Versioned { bytes, etag }));
        }
        Ok(self.get(key)?.map(|bytes| Versioned {
            bytes: bytes.to_vec(),
            etag: None,
        }))
    }

    /// Replaces the object at `key` with `value` only if it is still
    /// `seen`: the new object, `None` when it changed or is gone. Object
    /// storage compares ETags in the request (`If-Match`); elsewhere the
    /// object is compared, then replaced, in two steps.
    pub fn replace_if(
        &self,
        key: &str,
        seen: &Versioned,
        value: &[u8],
    ) -> Result<Option<Versioned>> {
        #[cfg(feature = "s3")]
        if let Place::Remote(remote) = &self.place {
            let full = format!("{}{key}", self.prefix);
            let etag = seen.etag.as_deref().unwrap_or_default();
            let replaced = remote
                .replace_if(&full, value.to_vec(), etag)
                .map_err(|e| self.error(key, e))?;
            return Ok(replaced.map(|etag| Versioned {
                bytes: value.to_vec(),
                etag,
            }));
        }
        if self.get(key)?.as_deref() != Some(&seen.bytes[..]) {
            return Ok(None);
        }
        self.set(key, value.to_vec())?;
        Ok(Some(Versioned {
            bytes: value.to_vec(),
            etag: None,
        }))
    }

    /// The node's path, as zarrs names nodes: `/` at the root, `/a/b`.
    pub fn node_path(&self) -> String {
        format!("/{}", self.prefix.trim_end_matches('/'))
    }

    fn key(&self, key: &str) -> Result<StoreKey> {
        let full = format!("{}{key}", self.prefix);
        StoreKey::new(&full).map_err(|e| self.error(key, e.to_string()))
    }

    pub fn error(&self, key: &str, message: impl Into<String>) -> Error {
        let mut message = message.into();
        // A refusal of the credentials says which variables give them.
        let denied = [
            "403 Forbidden",
            "SignatureDoesNotMatch",
            "InvalidAccessKeyId",
        ]
        .iter()
        .any(|m| message.contains(m));
        if denied && !self.is_local() {
            message.push_str(" (the server refused the credentials: check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)");
        }
        Error::Store {
            store: self.name.clone(),
            key: key.to_string(),
            message,
        }
    }

    /// The object at `key`, `None` when there is none.
    pub fn get(&self, key: &str) -> Result<Option<Bytes>> {
        self.storage
            .get(&self.key(key)?)
            .map_err(|e| self.error(key, e.to_string()))
    }

    /// Writes the object at `key` whole.
    pub fn set(&self, key: &str, value: impl Into<Bytes>) -> Result<()> {
        self.storage
            .set(&self.key(key)?, value.into())
            .map_err(|e| self.error(key, e.to_string()))
    }
}

/// An object as read, and what tells whether it changed since.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Versioned {
    pub bytes: Vec<u8>,
    /// Object storage's ETag; elsewhere the bytes themselves tell.
    pub etag: Option<String>,
}

/// zarrs' filesystem store, but `set` replaces an object in one step.
struct ReplacingFs {
    fs: FilesystemStore,
    root: PathBuf,
    writes: Writes,
}

impl ReplacingFs {
    fn replace(&self, key: &StoreKey, value: &[u8]) -> std::io::Result<()> {
        let Writes { replace, sync } = self.writes;
        let path = self.root.join(key.as_str());
        let dir = path.parent().unwrap_or(&self.root);
        if sync && !dir.exists() {
            std::fs::create_dir_all(dir)?;
            ndl_runtime::staging::sync_dir(dir.parent().unwrap_or(dir))?;
        }
        std::fs::create_dir_all(dir)?;
        if !replace {
            // A directory no reader sees yet: its entries are flushed when
            // it is published.
            return write_file(&path, value, sync);
        }
        // Hidden and never a chunk key: readers that list the store skip it,
        // and a crash leaves at most this file behind.
        ndl_runtime::staging::replace_file(&path, value, sync)
    }
}

/// Writes `value` to the file at `path`, flushed to the disk if `sync`.
fn write_file(path: &Path, value: &[u8], sync: bool) -> std::io::Result<()> {
    if !sync {
        return std::fs::write(path, value);
    }
    let mut file = std::fs::File::create(path)?;
    std::io::Write::write_all(&mut file, value)?;
    file.sync_all()
}

impl ReadableStorageTraits for ReplacingFs {
    fn get_partial_many<'a>(
        &'a self,
        key: &StoreKey,
        byte_ranges: ByteRangeIterator<'a>,
    ) -> Result<MaybeBytesIterator<'a>, StorageError> {
        self.fs.get_partial_many(key, byte_ranges)
    }

    fn get(&self, key: &StoreKey) -> Result<MaybeBytes, StorageError> {
        self.fs.get(key)
    }

    fn size_key(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        self.fs.size_key(key)
    }

    fn supports_get_partial(&self) -> bool {
        self.fs.supports_get_partial()
    }
}

impl WritableStorageTraits for ReplacingFs {
    fn set(&self, key: &StoreKey, value: Bytes) -> Result<(), StorageError> {
        self.replace(key, &value).map_err(StorageError::from)
    }

    fn set_partial_many(
        &self,
        key: &StoreKey,
        offset_values: OffsetBytesIterator,
    ) -> Result<(), StorageError> {
        // Partial writes change an object in place, which a crash could
        // leave half done: read, change and replace the whole object.
        zarrs::storage::store_set_partial_many(self, key, offset_values)
    }

    fn erase(&self, key: &StoreKey) -> Result<(), StorageError> {
        self.fs.erase(key)
    }

    fn erase_prefix(&self, prefix: &StorePrefix) -> Result<(), StorageError> {
        self.fs.erase_prefix(prefix)
    }

    fn supports_set_partial(&self) -> bool {
        false
    }
}

impl ListableStorageTraits for ReplacingFs {
    fn list(&self) -> Result<StoreKeys, StorageError> {
        self.fs.list()
    }

    fn list_prefix(&self, prefix: &StorePrefix) -> Result<StoreKeys, StorageError> {
        self.fs.list_prefix(prefix)
    }

    fn list_dir(&self, prefix: &StorePrefix) -> Result<StoreKeysPrefixes, StorageError> {
        self.fs.list_dir(prefix)
    }

    fn size_prefix(&self, prefix: &StorePrefix) -> Result<u64, StorageError> {
        self.fs.size_prefix(prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_below_a_store_share_its_objects() {
        let root = Store::memory("m");
        let node = root.child("a").child("b");
        assert_eq!(
            (node.name.as_str(), node.node_path()),
            ("m/a/b", "/a/b".to_string())
        );
        assert_eq!(root.node_path(), "/");
        node.set("zarr.json", b"{}".to_vec()).unwrap();
        assert_eq!(
            root.get("a/b/zarr.json").unwrap().as_deref(),
            Some(&b"{}"[..])
        );
        assert!(!node.create_new("zarr.json", b"x").unwrap());
        assert!(node.create_new(".lock", b"x").unwrap());
        node.erase(".lock").unwrap();
        assert_eq!(node.get(".lock").unwrap(), None);
    }

    #[test]
    fn local_stores_replace_objects_and_name_their_directory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.zarr");
        let url = Store::open(Path::new(&format!("file://{}", path.display()))).unwrap();
        assert_eq!(url.local_dir(), Some(path.clone()));
        assert_eq!(url.child("x").local_dir(), Some(path.join("x")));
        assert!(url.is_local() && !url.is_remote());
        url.set("a/zarr.json", b"1".to_vec()).unwrap();
        url.set("a/zarr.json", b"2".to_vec()).unwrap();
        assert_eq!(std::fs::read(path.join("a/zarr.json")).unwrap(), b"2");
        // No temporary file is left beside the object.
        let names: Vec<_> = std::fs::read_dir(path.join("a"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, ["zarr.json"]);
        assert!(Store::memory("m").local_dir().is_none());
    }

    #[test]
    fn only_stores_away_from_this_machine_blame_the_credentials() {
        let dir = tempfile::tempdir().unwrap();
        let local = Store::local(dir.path()).unwrap();
        let e = local.error("k", "403 Forbidden");
        assert_eq!(
            e.to_string(),
            format!("{}: k: 403 Forbidden", dir.path().display())
        );
    }
}

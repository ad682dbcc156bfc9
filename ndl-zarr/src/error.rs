//! The one error type of the crate: every failure says what is wrong and
//! where (the store, the metadata key or chunk, the field, the record).

use std::path::PathBuf;

/// A `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, and where.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The store failed to read, write or list an object.
    #[error("{store}: {key}: {message}")]
    Store {
        /// The store (a path or URL).
        store: String,
        /// The object's key.
        key: String,
        /// The store's error.
        message: String,
    },
    /// Neither `zarr.json` nor `.zarray` is at the store's root.
    #[error("{store}: no Zarr array here (no zarr.json or .zarray)")]
    NotAnArray {
        /// The store.
        store: String,
    },
    /// A metadata document is not valid JSON, or not valid Zarr metadata.
    #[error("{store}: {key}: {message}")]
    Metadata {
        /// The store.
        store: String,
        /// The metadata object's key.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// The array's chunks are encoded with a codec no one here decodes.
    #[error("{store}: {key}: the codec `{codec}` is not supported")]
    UnsupportedCodec {
        /// The store.
        store: String,
        /// The metadata object's key.
        key: String,
        /// The codec's name (v3) or id (v2).
        codec: String,
    },
    /// The stored data type cannot be read.
    #[error("{store}: {key}: data type, field `{field}`: {message}")]
    DataType {
        /// The store.
        store: String,
        /// The metadata object's key.
        key: String,
        /// The dotted path of the field (empty for the whole type).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// The stored records are not records of the type asked for.
    #[error("{store}: the stored datatype does not match the type (field '{field}'): {message}")]
    TypeMismatch {
        /// The store.
        store: String,
        /// The dotted path of the field (empty for the whole record).
        field: String,
        /// What differs.
        message: String,
    },
    /// A chunk could not be read, decoded or written.
    #[error("{store}: chunk {chunk} ({key}): {message}")]
    Chunk {
        /// The store.
        store: String,
        /// The chunk's index along the first dimension.
        chunk: u64,
        /// The chunk's key in the store.
        key: String,
        /// What went wrong.
        message: String,
    },
    /// A bool or enum value in the store that the type does not admit.
    #[error(
        "{store}: chunk {chunk}, record {record}, field `{field}` (byte {offset} of the packed record): {message}"
    )]
    InvalidValue {
        /// The store.
        store: String,
        /// The chunk's index.
        chunk: u64,
        /// The record's index in the array.
        record: u64,
        /// The dotted path of the field.
        field: String,
        /// The byte offset of the value within the packed record.
        offset: usize,
        /// What is wrong.
        message: String,
    },
    /// A value to be written that the store cannot hold: a time count
    /// whose product with its stored unit's factor is beyond an `i64`.
    #[error("{store}: record {record}, field `{field}`: {message}")]
    ValueOutOfRange {
        /// The store.
        store: String,
        /// The record's index in the array once written.
        record: u64,
        /// The dotted path of the field.
        field: String,
        /// What does not fit.
        message: String,
    },
    /// The type or the options cannot be stored as asked.
    #[error("{message}")]
    Unsupported {
        /// What cannot be done, and what to do instead.
        message: String,
    },
    /// The array does not hold what the request needs (a range past its
    /// end, more records than memory holds, a rank the reader does not take).
    #[error("{store}: {message}")]
    Shape {
        /// The store.
        store: String,
        /// What does not fit.
        message: String,
    },
    /// Another writer is appending to the store, or creating it on object
    /// storage (or one that crashed left its lock behind, which is stale
    /// once its lease expires: [`break_stale_lock`](crate::break_stale_lock)).
    #[error(
        "{store}: another writer is appending to or creating this store (lock `{lock}`); writers are one at a time. If no writer is running, one crashed: its lock is stale once its lease expires, and can then be broken"
    )]
    Locked {
        /// The store.
        store: String,
        /// The lock object's key.
        lock: String,
    },
    /// A store is already at the destination.
    #[error("{store}: a store already exists here; remove it or write elsewhere")]
    Exists {
        /// The store.
        store: String,
    },
}

//! Typed records in chunked, compressed Zarr stores (v2 and v3), built on
//! [zarrs](https://docs.rs/zarrs).
//!
//! A slice of any [`NdlType`] is stored as one Zarr array of records and
//! read back with its datatype checked, as `ndl_runtime::npy` does for
//! `.npy` files:
//!
//! ```
//! use ndl_runtime::{NdlType, Record};
//!
//! #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
//! #[repr(C)]
//! struct Reading {
//!     id: u32,
//!     ok: bool,
//!     t: f64,
//! }
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("readings.zarr");
//! let data: Vec<Reading> = (0..1000).map(|i| Reading { id: i, ok: i % 2 == 0, t: f64::from(i) / 8.0 }).collect();
//! ndl_zarr::write(&path, &data)?;
//! assert_eq!(ndl_zarr::read::<Reading>(&path)?, data);
//! assert_eq!(ndl_zarr::read_range::<Reading>(&path, 10..12)?, data[10..12]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What is stored
//!
//! - **Zarr v3** (the default): the `struct` data type of zarr-extensions,
//!   fields packed without gaps, a fill value with an entry per field, and
//!   the `bytes` codec with an explicit `endian`. zarr-python 3.2 and later
//!   read it; [`WriteOptions::legacy_structured`] writes the legacy
//!   `structured` name that zarr-python 3.1 reads. The struct data type has
//!   no array fields: a record with one is refused, naming the field.
//! - **Zarr v2**: `.zarray` with NumPy's field list as `dtype` (array fields
//!   as `[name, dtype, shape]`), `fill_value` null, C order.
//! - **Padding never reaches the store**: records are packed on write and
//!   unpacked into `T` on read, chunk by chunk, inside the parallel encode
//!   and decode.
//! - The attribute `ndl_datatype` holds `T`'s NDL datatype (enum member
//!   names, descriptions, the in-memory layout), which no Zarr data type
//!   can say; enums are stored as their base integer. `dimension_names`
//!   (v3) or `_ARRAY_DIMENSIONS` (v2) name the record dimension, as xarray
//!   needs.
//! - Metadata documents are written by this crate, with standard keys only;
//!   chunks are encoded by zarrs (zstd by default, none for v2 columns;
//!   none, gzip, zlib, bz2, lz4, crc32c, blosc with any compressor and
//!   shuffle; sharding in v3).
//!
//! # Arrays of any rank
//!
//! `write_ndarray` and `read_ndarray` (feature `ndarray`) store and
//! read `ndarray` arrays of any rank, 0-d included, as one array of
//! records chunked in every dimension; [`GridWriter::create_with`] and
//! [`GridReader`] do the same with packed elements, for datatypes known
//! only at run time. A Fortran-order array is stored in Fortran order (v2
//! `order: "F"`, v3 `transpose` reversing the dimensions). The default
//! chunk shape is [`default_chunk_shape`]'s; a writer holds one slab of
//! chunks in memory, a reader one slab of at most about [`SLAB_BYTES`].
//!
//! # Safety against crashes
//!
//! Every object (chunk or metadata) is written to a temporary file and
//! renamed into place. [`write()`] builds a new store in a hidden directory
//! and renames it into place once complete. An [`ArrayWriter`] stores new
//! chunks first, rewrites a partial last chunk, and writes the metadata
//! that sets the new length last: a crash leaves the array readable with
//! its old length.
//!
//! # Reading
//!
//! [`read`] accepts arrays of records this crate writes and those
//! zarr-python writes (v2 structured dtypes, v3 `struct` and `structured`),
//! with every codec zarr-python reads with numcodecs (zarrs' own, and
//! numcodecs' lz4, crc32, delta and quantize registered with zarrs as codec
//! extensions), in a directory, object storage or a zip file (`.zarr.zip`,
//! read-only). A codec no one here decodes is [`Error::UnsupportedCodec`]. The stored datatype must match `T` field
//! by field (names, types, sizes; enums match their base integer), and
//! every bool and enum value is checked. Errors name the store, the chunk,
//! the record and the field.

//!
//! # Records with strings, lists and options
//!
//! [`write()`], [`read`] and [`ArrayWriter`] take any
//! [`Record`]: plain records take the paths above;
//! `#[derive(Record)]` records with `String`, `Vec` and `Option` fields are
//! written in the columns layout only ([`Layout::Columns`]; the records
//! layout is refused naming the field): strings as v3 `string` / v2
//! `vlen-utf8` arrays, a `Vec` as a CF contiguous ragged array (the items
//! `<field>` on the dimension `<field>_sample`, the count `<field>_count`
//! with `sample_dimension`), nested records flattened (`venue.code`), an
//! `Option` as its `#[ndl(fill = ...)]`, the array's `fill_value` and
//! `_FillValue` attribute (an `Option<String>`'s, the string array's
//! `fill_value` alone). See the README for the details and limits.
//!
//! ```
//! use ndl_runtime::Record;
//! use ndl_zarr::{Layout, WriteOptions};
//!
//! #[derive(Debug, PartialEq, Record)]
//! struct Trade {
//!     id: u64,
//!     symbol: String,
//!     levels: Vec<f32>,
//!     #[ndl(fill = -1)]
//!     venue: Option<i32>,
//! }
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("trades.zarr");
//! let trades = vec![
//!     Trade { id: 1, symbol: "ABC".into(), levels: vec![1.5, 2.0], venue: Some(4) },
//!     Trade { id: 2, symbol: "É".into(), levels: vec![], venue: None },
//! ];
//! WriteOptions::new().layout(Layout::Columns).write(&path, &trades)?;
//! assert_eq!(ndl_zarr::read::<Trade>(&path)?, trades);
//! assert!(ndl_zarr::write(dir.path().join("r.zarr"), &trades).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

mod append;
mod chunk_shape;
mod chunks;
mod codecs;
mod documents;
mod error;
mod grid;
mod group_writer;
mod info;
mod layout;
mod lock;
mod metadata;
#[cfg(feature = "ndarray")]
mod ndarray_io;
mod options;
mod part_reader;
mod python_json;
mod reader;
#[cfg(feature = "s3")]
mod s3;
mod staging;
mod store;
mod strings;
mod struct_type;
mod typed;
mod writer;
mod zip;

use std::ops::Range;
use std::path::Path;

use ndl_runtime::{NdlType, Record};

pub use chunk_shape::{CHUNK_BYTES, SLAB_BYTES, default_chunk_shape};
pub use chunks::{DEFAULT_REQUESTS, REQUESTS_VAR};
pub use documents::pretty as document_bytes;
pub use error::{Error, Result};
pub use grid::{GridReader, GridWriter};
pub use group_writer::GroupWriter;
pub use info::{ArrayInfo, GroupInfo, StoreInfo};
pub use layout::columns::variable::{
    VariableRecordsReader, VariableRecordsWriter, fill_metadata, text_fill,
};
pub use lock::{
    DEFAULT_LOCK_LEASE, LOCK_LEASE_VAR, LockBreak, StoreLock, break_lock, break_stale_lock,
    read_lock,
};
#[cfg(feature = "ndarray")]
pub use ndarray_io::{read_ndarray, write_ndarray};
pub use ndl_runtime::ByteOrder;
pub use ndl_runtime::codec::{Blosc, BloscCname, BloscShuffle};
pub use ndl_runtime::lang::zarr::{Codec, ZarrFormat};
pub use options::{Layout, ReadOptions, WriteOptions};
pub use python_json::{
    attribute_float, float_json, float_of_attribute, parse as parse_document, unmarked,
};
pub use strings::{
    VlenKind, VlenReader, VlenValues, VlenWriter, Widest, read_byte_strings, read_strings,
    write_byte_strings, write_strings,
};
#[cfg(feature = "ndarray")]
pub use strings::{
    read_byte_strings_ndarray, read_strings_ndarray, write_byte_strings_ndarray,
    write_strings_ndarray,
};
pub use typed::ArrayWriter;
pub use writer::PackedWriter;

/// Writes `data` as a new store at `dir` holding one array of records:
/// Zarr v3, `struct`, zstd. `dir` must not exist.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// ndl_zarr::write(dir.path().join("x.zarr"), &[1.5f64, 2.5])?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write<T: Record + Send + Sync>(dir: impl AsRef<Path>, data: &[T]) -> Result<()> {
    WriteOptions::new().write(dir, data)
}

/// Reads the array of records at `dir` into a vector, checked against `T`.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("x.zarr");
/// ndl_zarr::write(&path, &[1u16, 2, 3])?;
/// assert_eq!(ndl_zarr::read::<u16>(&path)?, [1, 2, 3]);
/// assert!(ndl_zarr::read::<i16>(&path).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read<T: Record + Send + Sync>(dir: impl AsRef<Path>) -> Result<Vec<T>> {
    ReadOptions::new().read(dir)
}

/// Reads records `range` of the array of records at `dir`, decoding only
/// the chunks that hold them.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("x.zarr");
/// ndl_zarr::WriteOptions::new().chunk_len(4).write(&path, &(0..100u32).collect::<Vec<_>>())?;
/// assert_eq!(ndl_zarr::read_range::<u32>(&path, 50..53)?, [50, 51, 52]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_range<T: NdlType + Send + Sync>(
    dir: impl AsRef<Path>,
    range: Range<u64>,
) -> Result<Vec<T>> {
    ReadOptions::new().read_range(dir, range)
}

/// Reads records `range` of the array of records at `dir` as packed
/// records of the stored datatype ([`ArrayInfo::stored_datatype`]) in
/// native byte order, with bools and enums checked: for readers with no
/// Rust type, such as `ndl convert`.
///
/// For a columns store the records are those of its `ndl_datatype`
/// attribute, packed ([`GroupInfo::datatype`]).
pub fn read_packed(dir: impl AsRef<Path>, range: Range<u64>) -> Result<Vec<u8>> {
    reader::read_packed(&store::Store::open(dir.as_ref())?, Some(range))
}

#[doc(hidden)]
pub mod __fuzz {
    //! Entry points for the fuzz targets in `fuzz/`.

    use crate::store::Store;

    /// Reads an array's metadata from documents held in memory, as
    /// [`ArrayInfo::open`](crate::ArrayInfo::open) reads them from a
    /// directory: each `(key, bytes)` becomes an object of the store.
    pub fn metadata(objects: &[(&str, &[u8])]) -> crate::Result<crate::ArrayInfo> {
        let store = Store::memory("memory");
        for (key, bytes) in objects {
            store.set(key, bytes.to_vec())?;
        }
        crate::ArrayInfo::read(&store)
    }

    /// Reads every record of the array of records whose objects (metadata
    /// and chunks) are held in memory, as [`read_packed`](crate::read_packed)
    /// reads a store.
    pub fn read_packed(objects: &[(&str, &[u8])]) -> crate::Result<Vec<u8>> {
        let store = Store::memory("memory");
        for (key, bytes) in objects {
            store.set(key, bytes.to_vec())?;
        }
        crate::reader::read_records_packed(&store, None)
    }
}

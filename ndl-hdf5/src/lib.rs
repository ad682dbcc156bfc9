//! Typed records in HDF5 files, as h5py reads them.
//!
//! A `#[derive(NdlType)]` record type becomes an HDF5 compound type with
//! exactly its offsets and size, committed to the file under the type's
//! name, so that h5py reads a dataset of them as exactly the NumPy dtype
//! that `np.save` gives the same records. [`write()`] and [`read()`] move a
//! slice; [`DatasetWriter`] streams into a chunked, extendable dataset.
//!
//! A path ending in `.nc` gets netCDF-4's profile, which `ncdump`,
//! netCDF4-python and xarray read: named dimensions as dimension scales,
//! every user type committed, strings inside records as `char` arrays.
//! [`write_columns`] and [`read_columns`] move records as one variable per
//! field, which netCDF4-python reads even where it skips a compound
//! holding an enum or a bool. The whole mapping is in the repository's
//! `docs/hdf5-netcdf.md`.
//!
//! | datatype | HDF5 type (h5py's for the same dtype) |
//! | --- | --- |
//! | integers, floats, f16 | the IEEE / standard types in the record's byte order; f16 with h5py's fields (15, 10, 5, 0, 10), bias 15 |
//! | `bool` | `int8` enum `{FALSE = 0, TRUE = 1}` |
//! | enum | enum of its base type and members |
//! | complex | compound `{r, i}` |
//! | `S<n>` | fixed ASCII string of `n` bytes, null-padded |
//! | opaque | opaque of its size, with its tag |
//! | time (`M8[ns]`, ...) | opaque of 8 bytes tagged `NUMPY:<M8[ns]`, as `h5py.opaque_dtype` |
//! | `[T; N]` | array of `T` |
//! | struct | compound with the struct's offsets and size |
//!
//! | `String`, `Box<str>` (a `Record` field) | variable-length UTF-8 string, h5py's `string_dtype()` |
//! | `Vec<T>`, `Box<[T]>` (a `Record` field) | `H5T_VLEN` of `T`, h5py's `vlen_dtype` |
//! | `Option<T>` with `#[ndl(fill = ...)]` | `T`, `None` stored as the fill |
//! | `#[derive(Record)]` struct | compound of its fields, C's layout in memory, packed in the file |
//!
//! NumPy's `U` (UTF-32) and reference types are errors. Records with
//! `String`, `Vec` or `Option` fields are in the crate's README, with
//! their netCDF-4 columns (strings, CF ragged arrays, `_FillValue`).
//!
//! Chunks compressed with deflate, shuffle, szip (where the library has
//! it), Blosc, Blosc2, LZF, LZ4 or bitshuffle read as h5py (with
//! hdf5plugin) reads them; any other filter is [`Error::Filter`], naming it.
//!
//! The HDF5 C library is Debian's `libhdf5-dev` (1.10), found through
//! pkg-config; `scripts/test-all.sh` installs it. Its error stack is never
//! printed: errors come back as [`Error`], naming the file and dataset.

mod array_io;
mod attribute;
mod cf;
mod columns;
mod dataset_writer;
mod dimension;
mod document;
mod elements;
mod error;
mod extent;
mod file;
mod fill;
mod filters;
mod h5type;
mod inventory;
mod links;
mod lookup;
mod null_fills;
mod object_path;
mod options;
mod raw_io;
mod read;
mod record_columns;
mod record_columns_reader;
mod record_io;
mod record_type;
mod shape_check;
mod staging;
mod stored_type;
mod typed_attribute;
mod typed_columns;
mod user_attributes;
mod utf32_values;
mod variable;
mod vlen_check;
mod vlen_strings;
mod write;

pub use array_io::{ArrayReader, ArrayWriter};
pub use cf::{NDL_DATATYPE, cf_time_type};
pub use columns::{ColumnsReader, ColumnsWriter};
pub use dataset_writer::DatasetWriter;
pub use document::{DocumentWriter, Filter, NewDataset};
pub use elements::Elements;
pub use error::{Error, Result};
pub use extent::MAX_FILL_BYTES;
pub use fill::netcdf_default_fill;
pub use h5type::{TypeError, hdf5_type, netcdf4_python_skips};
pub use inventory::{DatasetInfo, GroupInfo, Inventory, NamedType};
pub use null_fills::{NDL_FILLS, records_with_nulls};
pub use options::{CHUNK_BYTES, Codec, WriteOptions};
pub use read::read;
pub use record_columns::RecordColumnsWriter;
pub use record_columns_reader::RecordColumnsReader;
pub use stored_type::StoredType;
pub use typed_columns::{read_columns, write_columns};
pub use variable::{RecordsReader, RecordsWriter, VALUE_MEMBER};
pub use vlen_strings::{STRING_BATCH, StringReader, Strings};
pub use write::write;

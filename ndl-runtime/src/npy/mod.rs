//! Typed records to and from NumPy `.npy` files.
//!
//! A slice of any [`NdlType`] (a `#[derive(NdlType)]` struct, a primitive,
//! an array of them) is written as a `.npy` file whose header NumPy reads
//! as the record's exact dtype, padding and all, and read back with its
//! datatype checked field by field.
//!
//! ```
//! use ndl_runtime::npy;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("t.npy");
//! npy::write_file(&path, &[1.0f64, 2.0, 3.0])?;
//! assert_eq!(npy::read_file::<f64>(&path)?, [1.0, 2.0, 3.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! - [`WriteOptions`] writes n-d shapes, Fortran order and either byte order;
//!   [`ReadOptions`] reads any shape into an [`NpyArray`].
//! - [`StreamWriter`] appends batches and writes the final count at the end,
//!   to a new file or (with [`StreamWriter::open`]) an existing one.
//! - [`append_file`] and [`AppendOptions`] add records to an existing file
//!   in place, rewriting only the count in its header.
//! - [`ReadOptions::by_name`] reads a type holding some of the file's
//!   fields, matched by name.
//! - [`MmapArray`] maps a file and views its records as `&[T]` without copying
//!   ([`NpzReader::mmap`](crate::npz::NpzReader::mmap) maps an archive's member).
//! - [`npz`](crate::npz) reads and writes `.npz` archives of named arrays.
//!
//! Guarantees: files are written as NumPy writes them, except that padding
//! bytes are zeros (NumPy copies whatever memory holds); padding bytes in
//! memory never reach the file (they are only copied as uninitialised
//! bytes and overwritten with zeros before any write). Files are written to a temporary file that replaces
//! the destination only when complete; appends write in place, past the
//! data, and change the header's count last, so the file reads as before
//! until it reads as after. Reading never trusts the header's
//! size: a file's length is checked before allocating, and a stream is read
//! in bounded chunks. Bools must be 0 or 1 and enums must hold a member's
//! value, else the read fails naming the record, field and byte offset.
//!
//! # Performance
//!
//! Each datatype is analysed once into a record plan (field spans, byte
//! swaps, bool and enum checks); the per-record work then runs as tight
//! loops over cache-sized chunks.
//! - Writing records without padding in native order is one vectored write
//!   of the header and the slice's memory. Records with padding, or in the
//!   other byte order, are staged ~256 KiB at a time: whole records are
//!   copied, their padding zeroed, then numbers are swapped; the writes end
//!   on 64 KiB-aligned file offsets (the kernel then caches the file in
//!   large pages). From 4 MiB on, staging runs on a helper thread while the
//!   calling thread writes (the writer itself never leaves the calling
//!   thread). [`write_file`] reserves the file's space first
//!   (`fallocate`), as NumPy does.
//! - Reading a file allocates the whole `Vec<T>` at once (after checking
//!   the file is long enough) and reads straight into it; swaps and value
//!   checks run chunk by chunk right after the bytes arrive. A reader of
//!   unknown length grows the vector as data arrives.
//! - [`MmapArray::open`] reads only the header for types without bools or
//!   enums; with them it checks every record once (one pass over the file).
//!
//! # Safety
//!
//! The few `unsafe` blocks rest on the [`NdlType`] contract: the datatype
//! describes the type's layout exactly and every byte pattern it admits is
//! a valid value. Writers view records as possibly uninitialised bytes and
//! treat as initialised only field bytes (or whole records without
//! padding), and staged bytes once their padding is zeroed; readers turn bytes into `T` only after converting and
//! checking every record against `T`'s own datatype.
//!
//! [`NdlType`]: crate::NdlType

mod append;
mod compare;
mod descr;
mod error;
mod header;
pub(crate) mod io;
mod literal;
mod mmap;
pub(crate) mod read;
mod record_buffer;
mod record_layout;
mod record_vec;
pub(crate) mod record_writer;
mod repr;
mod shape;
mod sidecar;
mod stream;
mod typestr;
mod variable;
pub(crate) mod write;

pub use crate::ByteOrder;
pub use append::AppendOptions;
pub use error::{Error, Result};
pub use header::{DEFAULT_MAX_HEADER_SIZE, Header, HeaderLimits, MAGIC};
pub use mmap::MmapArray;
pub use read::{NpyArray, ReadOptions, read_header, read_header_file};
pub use record_layout::RecordLayout;
pub use sidecar::{find_sidecar, read_sidecar, sidecar_path, storage_of, write_sidecar};
pub use stream::StreamWriter;
pub use typestr::{parse_scalar_typestr, scalar_typestr};
pub use write::{WriteOptions, write_file_with};

use std::io::{Read, Write};
use std::path::Path;

use crate::NdlType;
use crate::record::{PlainVisitor, Record, same_slice, same_vec};

/// Writes `data` as a 1-D `.npy` array in native byte order to `writer`.
///
/// ```
/// use ndl_runtime::npy;
///
/// let mut bytes = Vec::new();
/// npy::write(&mut bytes, &[1u8, 2, 3])?;
/// assert_eq!(&bytes[..6], b"\x93NUMPY");
/// assert_eq!(bytes.len(), 128 + 3);
/// # Ok::<(), npy::Error>(())
/// ```
pub fn write<T: NdlType, W: Write>(writer: W, data: &[T]) -> Result<()> {
    WriteOptions::new().write(writer, data)
}

/// Writes `data` as a 1-D `.npy` array in native byte order to the file at
/// `path`, replacing it only once the new file is complete.
///
/// ```
/// use ndl_runtime::npy;
///
/// let dir = tempfile::tempdir()?;
/// npy::write_file(dir.path().join("x.npy"), &[[1i32, 2], [3, 4]])?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Records that are not plain ([`Record`]s with `String` or `Option`
/// fields) are stored as NumPy holds such data: a `String` as the
/// narrowest `<U n` that holds every value of `data` (read back with its
/// NUL padding trimmed), an `Option` with `#[ndl(fill = ...)]` as its
/// fill, a nested record as a nested structured dtype. A `Vec` field, an
/// `Option` without a fill, or a `Some` holding the fill (it would read
/// back as `None`) is refused, naming the field, and nothing is written.
///
/// ```
/// use ndl_runtime::{npy, Record};
///
/// #[derive(Debug, PartialEq, Record)]
/// struct Trade {
///     id: u64,
///     symbol: String,
///     #[ndl(fill = -1)]
///     venue: Option<i32>,
/// }
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("trades.npy");
/// let trades = [
///     Trade { id: 1, symbol: "ABC".into(), venue: Some(7) },
///     Trade { id: 2, symbol: "É".into(), venue: None },
/// ];
/// npy::write_file(&path, &trades)?;
/// // NumPy sees `[('id', '<u8'), ('symbol', '<U3'), ('venue', '<i4')]`.
/// assert_eq!(npy::read_header_file(&path)?.descr()?, "[('id', '<u8'), ('symbol', '<U3'), ('venue', '<i4')]");
/// assert_eq!(npy::read_file::<Trade>(&path)?, trades);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_file<T: Record>(path: impl AsRef<Path>, data: &[T]) -> Result<()> {
    let path = path.as_ref();
    T::visit_plain(WritePlain { path, data }).unwrap_or_else(|| variable::write_file(path, data))
}

/// Writes a plain record type's slice through the `NdlType` path.
struct WritePlain<'a, R> {
    path: &'a Path,
    data: &'a [R],
}

impl<R: 'static> PlainVisitor for WritePlain<'_, R> {
    type Output = Result<()>;

    fn visit<T: NdlType>(self) -> Result<()> {
        let data = same_slice::<R, T>(self.data).ok_or_else(not_the_visited_type)?;
        WriteOptions::new().write_file(self.path, data)
    }
}

/// What a [`PlainVisitor`] reports if it were given another type than the
/// one visited, which `Record::visit_plain` promises never happens.
fn not_the_visited_type() -> Error {
    Error::NotWritable {
        field: String::new(),
        reason: "a `Record`'s `visit_plain` visited another type than itself".into(),
    }
}

/// Appends `data` to the `.npy` file at `path` in place, along its first
/// dimension; returns the number of records of `T` in the file after.
/// Fails, leaving the file as it was, if its datatype is not `T`'s or its
/// header has no room for the new count (see [`AppendOptions`]).
///
/// ```
/// use ndl_runtime::npy;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("log.npy");
/// npy::write_file(&path, &[1.0f64, 2.0])?;
/// assert_eq!(npy::append_file(&path, &[3.0f64])?, 3);
/// assert_eq!(npy::read_file::<f64>(&path)?, [1.0, 2.0, 3.0]);
/// assert!(npy::append_file(&path, &[4.0f32]).is_err()); // float32 is not float64
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn append_file<T: NdlType>(path: impl AsRef<Path>, data: &[T]) -> Result<u64> {
    AppendOptions::new().append_file(path, data)
}

/// Reads a 1-D `.npy` array of `T` from `reader`, converting the byte order.
///
/// Fails if the file's datatype is not `T`'s, if it is not 1-D, if the data
/// is short, or if a bool or enum holds an invalid value.
///
/// ```
/// use ndl_runtime::npy;
///
/// let mut bytes = Vec::new();
/// npy::write(&mut bytes, &[true, false])?;
/// assert_eq!(npy::read::<bool, _>(&bytes[..])?, [true, false]);
/// assert!(npy::read::<u8, _>(&bytes[..]).is_err()); // bool is not uint8
/// # Ok::<(), npy::Error>(())
/// ```
pub fn read<T: NdlType, R: Read>(reader: R) -> Result<Vec<T>> {
    read::read_1d(reader)
}

/// Reads a 1-D `.npy` array of `T` from the file at `path`.
///
/// ```
/// use ndl_runtime::npy;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("x.npy");
/// npy::write_file(&path, &[7u64])?;
/// assert_eq!(npy::read_file::<u64>(&path)?, [7]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A [`Record`] that is not plain reads its fields by name, in any order:
/// a `String` from a `U` (or UTF-8 `S`) field, its trailing NULs trimmed;
/// an `Option` with a fill as `None` where the file holds the fill.
pub fn read_file<T: Record>(path: impl AsRef<Path>) -> Result<Vec<T>> {
    let path = path.as_ref();
    T::visit_plain(ReadPlain::<T>(path, std::marker::PhantomData))
        .unwrap_or_else(|| variable::read_file(path))
}

/// Reads a plain record type through the `NdlType` path.
struct ReadPlain<'a, R>(&'a Path, std::marker::PhantomData<fn() -> R>);

impl<R: 'static> PlainVisitor for ReadPlain<'_, R> {
    type Output = Result<Vec<R>>;

    fn visit<T: NdlType>(self) -> Result<Vec<R>> {
        same_vec::<T, R>(read::read_file_1d::<T>(self.0)?).map_err(|_| not_the_visited_type())
    }
}

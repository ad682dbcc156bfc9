//! Typed records to and from the columns layout of a netCDF-4 file (see
//! [`ColumnsWriter`]): the form netCDF4-python and xarray read whole,
//! enums and bools included.

use std::path::Path;

use ndl_runtime::records::{Packer, RecordBuf};
use std::marker::PhantomData;

use ndl_runtime::record::{PlainVisitor, same_slice, same_vec};
use ndl_runtime::{ByteOrder, NdlType, Record};

use crate::columns::{ColumnsReader, ColumnsWriter};
use crate::error::{Error, Result};
use crate::options::WriteOptions;

/// Records gathered and written at a time: memory stays bounded.
const BLOCK_BYTES: usize = 8 << 20;

/// Writes `records` to a new netCDF-4 file at `path`, one variable per
/// leaf field over the dimension `record` (see [`ColumnsWriter`] for the
/// mapping); the file appears only once complete.
///
/// ```
/// use ndl_runtime::NdlType;
///
/// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
/// #[repr(u8)]
/// enum Sky {
///     Clear = 0,
///     Cloudy = 1,
/// }
///
/// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
/// #[repr(C)]
/// struct Reading {
///     station: u16,
///     sky: Sky,
///     value: f64,
/// }
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("readings.nc");
/// let records = [
///     Reading { station: 7, sky: Sky::Cloudy, value: 1.5 },
///     Reading { station: 9, sky: Sky::Clear, value: -2.0 },
/// ];
/// ndl_hdf5::write_columns(&path, &records)?;
/// assert_eq!(ndl_hdf5::read_columns::<Reading>(&path)?, records);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Records with `String`, `Vec` or `Option` fields (`#[derive(Record)]`)
/// are written as netCDF's and CF's conventions hold them: strings as
/// `string` variables, lists as contiguous ragged arrays, options with
/// their fill as `_FillValue` (see the crate's README).
pub fn write_columns<T: Record>(path: impl AsRef<Path>, records: &[T]) -> Result<()> {
    let path = path.as_ref();
    let visitor = PlainWrite { path, records };
    match T::visit_plain(visitor) {
        Some(written) => written,
        None => crate::record_columns::write(path, records),
    }
}

/// Writes plain records as the `NdlType` they are.
struct PlainWrite<'a, T> {
    path: &'a Path,
    records: &'a [T],
}

impl<T: Record> PlainVisitor for PlainWrite<'_, T> {
    type Output = Result<()>;

    fn visit<U: NdlType>(self) -> Result<()> {
        match same_slice::<T, U>(self.records) {
            Some(records) => write_plain(self.path, records),
            None => Err(visited_as_another(self.path)),
        }
    }
}

fn visited_as_another(path: &Path) -> Error {
    Error::TypeMismatch {
        path: path.to_path_buf(),
        dataset: String::new(),
        field: String::new(),
        message: "a plain record visited as another type".into(),
    }
}

fn write_plain<T: NdlType>(path: &Path, records: &[T]) -> Result<()> {
    let packer = packer::<T>(path)?;
    let options = WriteOptions::new().netcdf(true);
    let mut writer = ColumnsWriter::create(
        path,
        &T::datatype(),
        ByteOrder::NATIVE,
        records.len() as u64,
        &options,
    )?;
    let per_block = (BLOCK_BYTES / std::mem::size_of::<T>().max(1)).max(1);
    for block in records.chunks(per_block) {
        writer.write_gathered(block.len(), |field, values| {
            packer.gather(block, &[field], &mut [values]);
        })?;
    }
    writer.finish()
}

/// Reads the records of `T` from the columns of the netCDF-4 file at
/// `path`: each field from the variable named by its dotted path,
/// whoever wrote it, converted by HDF5 to the field's type. A missing
/// variable, one of another shape, or a value that is no member of a
/// field's enum is an error naming the field.
pub fn read_columns<T: Record + Send>(path: impl AsRef<Path>) -> Result<Vec<T>> {
    let path = path.as_ref();
    match T::visit_plain(PlainRead::<T>(path, PhantomData)) {
        Some(records) => records,
        None => crate::record_columns::read(path),
    }
}

/// Reads plain records as the `NdlType` they are.
struct PlainRead<'a, T>(&'a Path, PhantomData<fn() -> T>);

impl<T: Record> PlainVisitor for PlainRead<'_, T> {
    type Output = Result<Vec<T>>;

    fn visit<U: NdlType>(self) -> Result<Vec<T>> {
        same_vec(read_plain::<U>(self.0)?).map_err(|_| visited_as_another(self.0))
    }
}

fn read_plain<T: NdlType>(path: &Path) -> Result<Vec<T>> {
    let packer = packer::<T>(path)?;
    let mut reader = ColumnsReader::open_as(path, &T::datatype())?;
    let n = reader.len() as usize;
    let mut records = RecordBuf::<T>::zeroed(n).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let per_block = (BLOCK_BYTES / std::mem::size_of::<T>().max(1)).max(1);
    for mut part in records.parts_mut(per_block) {
        let first = part.start() as u64;
        let mut read = Ok(0);
        let filled = packer.fill(&mut part, |bytes| read = reader.read_records(bytes));
        // A failed read leaves zeros, which may not be valid records: its
        // error is the one to tell.
        read?;
        filled.map_err(|bad| Error::InvalidValue {
            path: path.to_path_buf(),
            dataset: bad.field.clone(),
            record: first + bad.record as u64,
            field: bad.field,
            offset: bad.offset,
            message: bad.message,
        })?;
    }
    records.into_vec().ok_or_else(|| Error::TypeMismatch {
        path: path.to_path_buf(),
        dataset: String::new(),
        field: String::new(),
        message: "not every record was read".into(),
    })
}

fn packer<T: NdlType>(path: &Path) -> Result<Packer<T>> {
    Packer::<T>::new().map_err(|e| Error::TypeMismatch {
        path: path.to_path_buf(),
        dataset: String::new(),
        field: String::new(),
        message: e.to_string(),
    })
}

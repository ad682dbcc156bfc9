//! Converting between any two formats: the Arrow batches of one file
//! copied to another, one array (or its records) drained into a sink, or
//! a whole file of arrays into a group.

use std::path::Path;

use crate::conversion::{ConvertOptions, Progress};
use crate::convert_one::convert_to;
use crate::error::{Error, Result};
use crate::format::Format;
use crate::registry::batch_files;

/// Converts the array at `src` into a new file or store at `dst`, which
/// appears only once complete; `progress` learns what to know about how
/// the source was read, then the total number of elements, then the number
/// written so far. Returns the number of elements.
pub fn convert(
    src: &Path,
    dst: &Path,
    options: &ConvertOptions,
    progress: &dyn Fn(Progress),
) -> Result<u64> {
    if let Some(files) = batch_files(src, dst, &options.read)? {
        if let Some((column, _)) = options.fills.first() {
            return Err(Error::Unsupported {
                path: dst.to_path_buf(),
                message: format!(
                    "--fill {column} does not apply between Parquet and Arrow IPC files, which both \
                     hold nulls; leave it out"
                ),
            });
        }
        let total = |n| progress(Progress::Total(n));
        let done = |n| progress(Progress::Done(n));
        return crate::batch_copy::copy((src, files.0), (dst, files.1), &total, &done);
    }
    let format = Format::of_destination(dst)?;
    match convert_to(format, (src, &options.read), dst, options, progress) {
        Err(Error::SeveralArrays { .. })
            if options.read.member.is_none() && crate::dataset::takes(format) =>
        {
            crate::dataset::convert(format, src, dst, options, progress)
        }
        converted => converted,
    }
}

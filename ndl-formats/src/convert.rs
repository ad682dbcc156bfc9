//! Converting between any two formats: the Arrow batches of one file
//! copied to another, one array (or its records) drained into a sink, or
//! a whole file of arrays into a group.

use std::path::Path;

use crate::conversion::{ConvertOptions, Progress};
use crate::convert_one::{Opened, convert_opened};
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
    let keeps_attributes = crate::dataset::takes(format);
    // A destination that keeps attributes keeps the CF encodings with the
    // values as stored, unless asked to undo them.
    let mut options = options.clone();
    options.read.decode_cf.get_or_insert(!keeps_attributes);
    let options = &options;
    let whole = options.read.member.is_none() && keeps_attributes;
    let opened = match Opened::open(src, &options.read) {
        Err(Error::SeveralArrays { .. }) if whole => {
            return crate::dataset::convert(format, src, dst, options, progress);
        }
        opened => opened?,
    };
    // A dataset another tool wrote stays one, unless records are asked
    // for; its one variable beside coordinates does not leave them out.
    if whole && !options.write.layout_said && opened.is_part_of_dataset() {
        drop(opened);
        return crate::dataset::convert(format, src, dst, options, progress);
    }
    convert_opened(format, (src, &options.read), opened, dst, options, progress)
}

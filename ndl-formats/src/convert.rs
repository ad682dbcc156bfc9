//! Converting an array between any two formats: a [`Source`] drained into
//! a [`Sink`], in bounded memory.

use std::path::Path;

use crate::error::{Error, Result};
use crate::fill::Filled;
use crate::format::Format;
use crate::one_order::in_one_order;
use crate::options::{ReadOptions, SinkOptions};
use crate::records::RecordSource;
use crate::registry::{
    batch_files, create_as, create_records_as, keeps_mixed_byte_orders, open, open_records,
};

/// How to convert.
///
/// ```
/// use ndl_formats::{ConvertOptions, ReadOptions, SinkOptions};
///
/// let options = ConvertOptions::new()
///     .read(ReadOptions::new().member("t"))
///     .write(SinkOptions::new());
/// # let _ = options;
/// ```
#[derive(Clone, Debug, Default)]
pub struct ConvertOptions {
    pub(crate) read: ReadOptions,
    pub(crate) write: SinkOptions,
    fills: Vec<(String, String)>,
}

impl ConvertOptions {
    /// The defaults of reading and of every format's writing.
    pub fn new() -> ConvertOptions {
        ConvertOptions::default()
    }

    /// How the source is read.
    pub fn read(mut self, read: ReadOptions) -> ConvertOptions {
        self.read = read;
        self
    }

    /// The value that stands for null in `column` (a dotted path:
    /// `venue.code`) of records with optional members, where the
    /// destination has no nulls (`.npy`, HDF5, netCDF-4, Zarr): parsed as
    /// the column's type (a number, `true`/`false`, an enum member's name,
    /// a string).
    pub fn fill(mut self, column: impl Into<String>, value: impl Into<String>) -> ConvertOptions {
        self.fills.push((column.into(), value.into()));
        self
    }

    /// How the destination is written ([`sink_options`](crate::sink_options)
    /// makes them from a command line's settings).
    pub fn write(mut self, write: SinkOptions) -> ConvertOptions {
        self.write = write;
        self
    }
}

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
            crate::dataset::convert(src, dst, options, progress)
        }
        converted => converted,
    }
}

/// Converts what `read` picks at `src` (its array, or its variable
/// records) into a new file or store of `format` at `dst`.
pub(crate) fn convert_to(
    format: Format,
    (src, read): (&Path, &ReadOptions),
    dst: &Path,
    options: &ConvertOptions,
    progress: &dyn Fn(Progress),
) -> Result<u64> {
    if let Some(records) = open_records(src, read)? {
        return convert_records(format, (src, read), dst, records, options, progress);
    }
    let mut source = open(src, read)?;
    if !options.fills.is_empty() {
        progress(Progress::Note(format!(
            "--fill applies to records with optional members, and {} holds none",
            src.display()
        )));
    }
    if !keeps_mixed_byte_orders(format, dst, &options.write) {
        source = in_one_order(source);
    }
    for note in source.notes() {
        progress(Progress::Note(note.clone()));
    }
    let sink = create_as(format, dst, source.as_ref(), &options.write)?;
    if let Some(note) = source
        .narrowed_strings()
        .filter(|_| !sink.variable_strings())
    {
        progress(Progress::Note(note.to_owned()));
    }
    for note in sink.notes() {
        progress(Progress::Note(note));
    }
    progress(Progress::Total(source.spec().len().unwrap_or(0)));
    sink.write_from(source.as_mut(), &|done| progress(Progress::Done(done)))
}

/// Converts the variable records of `source`, read from `src` as `read`
/// says, into `dst`.
fn convert_records(
    format: Format,
    (src, read): (&Path, &ReadOptions),
    dst: &Path,
    source: Box<dyn RecordSource>,
    options: &ConvertOptions,
    progress: &dyn Fn(Progress),
) -> Result<u64> {
    let mut source = Filled::new(source, &options.fills)?;
    for note in source.notes() {
        progress(Progress::Note(note.clone()));
    }
    let sink = create_records_as(format, dst, &source, &options.write)?;
    for note in sink.notes() {
        progress(Progress::Note(note));
    }
    progress(Progress::Total(source.origin().len.unwrap_or(0)));
    let reopen = || -> Result<Box<dyn RecordSource>> {
        let again = open_records(src, read)?.ok_or_else(|| crate::Error::Unsupported {
            path: src.to_path_buf(),
            message: "changed while it was read: it no longer holds variable records".into(),
        })?;
        Ok(Box::new(Filled::new(again, &options.fills)?))
    };
    sink.write_from(&mut source, &reopen, &|done| progress(Progress::Done(done)))
}

/// What a conversion reports as it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Progress {
    /// Something to know about how the source was read (a store holding
    /// both `zarr.json` and `.zarray` read as v3), one sentence.
    Note(String),
    /// The number of elements to convert.
    Total(u64),
    /// The number of elements converted so far.
    Done(u64),
}

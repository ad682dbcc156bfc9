//! How a conversion goes, and what it reports: plain data for
//! [`convert`](crate::convert) and the conversions it chooses between.

use crate::options::{ReadOptions, SinkOptions};

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
    pub(crate) fills: Vec<(String, String)>,
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

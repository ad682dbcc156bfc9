//! What a format is, as plain data: each format module describes itself
//! once in a [`FormatInfo`], which the [registry](crate::FORMATS) lists.
//! Adding a format is one module with its `FORMAT` and one line there.

use std::path::Path;

use ndl_runtime::npy::HeaderLimits;

use crate::column_file::ColumnFile;
use crate::contents::Contents;
use crate::error::Result;
use crate::options::{ReadOptions, Setting, SinkOptions, WriteSettings};
use crate::records::{CreateRecords, OpenRecords};
use crate::sink::Sink;
use crate::source::Source;

/// How a format makes a sink at a path for a source's array.
pub(crate) type CreateSink = fn(&Path, &dyn Source, &SinkOptions) -> Result<Box<dyn Sink>>;

/// One format: how a file or store of it is recognised, read, written and
/// described.
pub struct FormatInfo {
    /// Its short name (`npy`, `zarr`, `hdf5`), as help texts list it.
    pub name: &'static str,
    /// What a file or store of it is called in messages.
    pub noun: &'static str,
    /// The endings of a destination's name that pick it, without the dot
    /// (none: it is read, not written).
    pub endings: &'static [&'static str],
    /// Whether a file of it holds named arrays, one of which
    /// [`ReadOptions::member`] picks.
    pub members: bool,
    /// Whether an NDL sidecar beside the file adds to its description.
    pub sidecar: bool,
    /// Whether it is read through a C library that may crash on a damaged
    /// file, so that a command should read it in a child process.
    pub crash_prone: bool,
    /// The write settings of the command line it takes.
    pub settings: &'static [Setting],
    /// Whether what is at `path`, whose first bytes are `start` (up to 8;
    /// none for a directory or an object-storage prefix), is of it.
    pub(crate) recognises: fn(path: &Path, start: &[u8]) -> Result<bool>,
    /// Sets its part of the sink options from a command line's settings
    /// for a destination at `path` (the ones it takes; no others reach it).
    pub(crate) configure: fn(&WriteSettings, &Path, &mut SinkOptions) -> Result<()>,
    /// Opens a file or store of it as a source.
    pub(crate) open: fn(&Path, &ReadOptions) -> Result<Box<dyn Source>>,
    /// Creates a sink of it for `source`'s array; `None`: read only.
    pub(crate) create: Option<CreateSink>,
    /// Opens a file or store of it as a source of variable records, when
    /// the array asked for holds them; `None`: it holds none.
    pub(crate) open_records: Option<OpenRecords>,
    /// Creates a sink of it for a source's variable records; `None`: it
    /// holds none.
    pub(crate) create_records: Option<CreateRecords>,
    /// Whether a sink at `path` keeps each number of an element in its own
    /// byte order, as a `.npy` record may have them.
    pub(crate) keeps_mixed_byte_orders: fn(&Path, &SinkOptions) -> bool,
    /// What a file or store of it holds, for descriptions.
    pub(crate) contents: fn(&Path, &HeaderLimits) -> Result<Contents>,
    /// Which file of Arrow record batches it is, if one: a conversion
    /// between two such files copies the batches as they are.
    pub(crate) batch_file: Option<ColumnFile>,
}

impl std::fmt::Debug for FormatInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// A format of the [registry](crate::FORMATS): a handle on its
/// [`FormatInfo`], compared by name.
///
/// ```
/// use ndl_formats::Format;
///
/// let format = Format::of_destination("readings.nc".as_ref())?;
/// assert_eq!(format.name(), "hdf5");
/// assert_eq!(format.noun(), "HDF5 or netCDF-4 file");
/// # Ok::<(), ndl_formats::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct Format(pub(crate) &'static FormatInfo);

impl Format {
    /// What the registry says of it.
    pub fn info(self) -> &'static FormatInfo {
        self.0
    }

    /// Its short name.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// What a file or store of it is called in messages.
    pub fn noun(self) -> &'static str {
        self.0.noun
    }

    /// Whether it takes the write setting `setting`.
    pub fn takes(self, setting: Setting) -> bool {
        self.0.settings.contains(&setting)
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        self.0.name == other.0.name
    }
}

impl Eq for Format {}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name)
    }
}

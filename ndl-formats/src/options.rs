//! How sources are read and sinks written, as plain data: the options of
//! the library's callers, and the settings of a command line that each
//! format turns into its own options.

use ndl_runtime::lang::zarr::Codec;
use ndl_runtime::npy::HeaderLimits;

/// How to read a source.
///
/// ```
/// use ndl_formats::ReadOptions;
///
/// let options = ReadOptions::new().member("temperature");
/// assert_eq!(options.member_name(), Some("temperature"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    pub(crate) limits: HeaderLimits,
    pub(crate) member: Option<String>,
    /// Whether CF encodings are undone; `None`: as the use asks (a
    /// conversion keeps them where the destination holds them).
    pub(crate) decode_cf: Option<bool>,
    /// Whether the member is read as one array of a whole file copied, so
    /// that the variables its `coordinates` name come along.
    pub(crate) whole_file: bool,
    /// The member's shape, where a walk of the whole file gave it (a
    /// whole-file copy's): in netCDF-4, longer than the variable along an
    /// unlimited dimension another variable has grown.
    pub(crate) shape: Option<Vec<u64>>,
}

impl ReadOptions {
    /// The defaults: `.npy` headers within NumPy's bounds, an archive's
    /// only member.
    pub fn new() -> ReadOptions {
        ReadOptions::default()
    }

    /// Bounds on a `.npy` header.
    pub fn limits(mut self, limits: HeaderLimits) -> ReadOptions {
        self.limits = limits;
        self
    }

    /// The member of an archive (`.npz`, a Zarr group, an HDF5 file) to
    /// read, when it has more than one.
    pub fn member(mut self, member: impl Into<String>) -> ReadOptions {
        self.member = Some(member.into());
        self
    }

    /// The member to read, if one is named.
    pub fn member_name(&self) -> Option<&str> {
        self.member.as_deref()
    }

    /// Whether a variable's CF encodings are undone as xarray's
    /// `decode_cf` undoes them: packed values (`scale_factor`,
    /// `add_offset`) unpacked, values equal to `_FillValue` or
    /// `missing_value` read as NaN, netCDF-3's `_Unsigned` bytes as
    /// unsigned, counts of time with CF `units` as times. Off, values are
    /// read as stored and the encodings come along as the variable's
    /// attributes, for a destination that holds them. (A table's columns,
    /// read as one array of records, are always decoded: a record has no
    /// attributes of its fields.)
    ///
    /// Unsaid, they are undone, but by a conversion to a destination that
    /// keeps attributes (a Zarr store, an HDF5 or netCDF-4 file), which
    /// copies the stored values and their encodings, as `nccopy` does:
    /// its readers decode them as they decoded the source.
    ///
    /// ```
    /// use ndl_formats::ReadOptions;
    ///
    /// assert!(ReadOptions::new().decodes_cf());
    /// assert!(!ReadOptions::new().decode_cf(false).decodes_cf());
    /// ```
    pub fn decode_cf(mut self, decode: bool) -> ReadOptions {
        self.decode_cf = Some(decode);
        self
    }

    /// Whether CF encodings are undone ([`decode_cf`](Self::decode_cf)).
    pub fn decodes_cf(&self) -> bool {
        self.decode_cf.unwrap_or(true)
    }
}

/// How to write a sink: each format's own options.
#[derive(Clone, Debug, Default)]
pub struct SinkOptions {
    pub(crate) zarr: ZarrSinkOptions,
    pub(crate) hdf5: Hdf5SinkOptions,
    /// Whether the formats' own layouts hold whatever the source: else a
    /// dataset read as a table is written as the dataset it is.
    pub(crate) layout_said: bool,
}

impl SinkOptions {
    /// Every format's defaults. A dataset another tool wrote, read as a
    /// table or as its one data variable
    /// ([`Source::is_part_of_dataset`](crate::Source::is_part_of_dataset)),
    /// is written as the whole dataset where the destination holds one (a
    /// Zarr group, an HDF5 or netCDF-4 file), so that xarray opens it as
    /// it opened the source.
    pub fn new() -> SinkOptions {
        SinkOptions::default()
    }

    /// Writes the layout the formats' own options give (the records
    /// layout, unless they say columns), a dataset read as a table
    /// included: what `--layout` says.
    pub fn layout_of_formats(mut self) -> SinkOptions {
        self.layout_said = true;
        self
    }

    /// How a Zarr store is written.
    pub fn zarr(mut self, zarr: ZarrSinkOptions) -> SinkOptions {
        self.zarr = zarr;
        self
    }

    /// How an HDF5 or netCDF-4 file is written.
    pub fn hdf5(mut self, hdf5: Hdf5SinkOptions) -> SinkOptions {
        self.hdf5 = hdf5;
        self
    }
}

/// How a store is written by a [`ZarrSink`](crate::ZarrSink).
#[derive(Clone, Debug)]
pub struct ZarrSinkOptions {
    pub(crate) zarr: ndl_zarr::WriteOptions,
    pub(crate) keep_byte_order: bool,
    /// `None`: as the source has them (variable-length where it read them
    /// so, [`Source::narrowed_strings`](crate::Source::narrowed_strings)).
    pub(crate) variable_strings: Option<bool>,
    /// Whether the records layout was asked for, not just the default:
    /// variable records, which it cannot hold, are then refused rather
    /// than written as columns.
    pub(crate) records_layout_said: bool,
    /// Whether the codec or chunks are given: else an array copied from
    /// another Zarr store keeps its own.
    pub(crate) storage_said: bool,
}

impl ZarrSinkOptions {
    /// The defaults: see [`Default`](#impl-Default-for-ZarrSinkOptions).
    pub fn new() -> ZarrSinkOptions {
        ZarrSinkOptions::default()
    }

    /// The store's options; the sink adds the expected length and
    /// publishing on finish. Their chunks and codec are used, not those
    /// of a Zarr source.
    pub fn zarr(mut self, zarr: ndl_zarr::WriteOptions) -> ZarrSinkOptions {
        self.zarr = zarr;
        self.storage_said = true;
        self
    }

    /// Whether the store keeps the source's byte order (the records layout
    /// can; columns are little-endian, as netCDF-C reads them).
    pub fn keep_byte_order(mut self, keep: bool) -> ZarrSinkOptions {
        self.keep_byte_order = keep;
        self
    }

    /// Whether fixed strings (NumPy `U`, `S`) are stored as variable-length
    /// ones (v3 `string` / `variable_length_bytes`, v2 `|O`). Unsaid,
    /// strings read variable-length are written so, and fixed ones fixed.
    pub fn variable_strings(mut self, variable: bool) -> ZarrSinkOptions {
        self.variable_strings = Some(variable);
        self
    }
}

impl Default for ZarrSinkOptions {
    /// The store's defaults (v3, the records layout, zstd), keeping the
    /// source's byte order.
    fn default() -> ZarrSinkOptions {
        ZarrSinkOptions {
            zarr: ndl_zarr::WriteOptions::new(),
            keep_byte_order: true,
            variable_strings: None,
            records_layout_said: false,
            storage_said: false,
        }
    }
}

/// How an HDF5 or netCDF-4 file is written by an [`Hdf5Sink`](crate::Hdf5Sink).
#[derive(Clone, Debug, Default)]
pub struct Hdf5SinkOptions {
    pub(crate) options: ndl_hdf5::WriteOptions,
    pub(crate) columns: bool,
    /// Whether the codec, shuffle or chunks are given: else a whole-file
    /// copy keeps each dataset's own.
    pub(crate) storage_said: bool,
}

impl Hdf5SinkOptions {
    /// The defaults: one dataset of records, no codec; in a copy of a
    /// whole file, each dataset chunked, shuffled and deflated as the
    /// source's is, as `nccopy` copies them.
    pub fn new() -> Hdf5SinkOptions {
        Hdf5SinkOptions::default()
    }

    /// The file's codec, shuffle and chunks, in place of the source's;
    /// the sink sets the byte order to the source's.
    pub fn options(mut self, options: ndl_hdf5::WriteOptions) -> Hdf5SinkOptions {
        self.options = options;
        self.storage_said = true;
        self
    }

    /// Records as one variable per field (netCDF4-python and xarray read
    /// those where they skip compounds holding enums or bools), rather
    /// than one dataset of records.
    pub fn columns(mut self, columns: bool) -> Hdf5SinkOptions {
        self.columns = columns;
        self
    }
}

/// A write setting of a command line, which some formats take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Setting {
    /// The Zarr format version of a store.
    ZarrFormat,
    /// Records or columns.
    Layout,
    /// Records per chunk of a one-dimensional array.
    ChunkLen,
    /// The chunk shape.
    Chunks,
    /// The compression of each chunk.
    Codec,
    /// A byte shuffle before the codec.
    Shuffle,
    /// Fixed strings in columns as `u1` arrays rather than `|S1`.
    CharsAsU1,
    /// Fixed or variable-length strings.
    Strings,
}

impl Setting {
    /// How a command line spells it.
    pub fn flag(self) -> &'static str {
        match self {
            Setting::ZarrFormat => "--zarr-format",
            Setting::Layout => "--layout",
            Setting::ChunkLen => "--chunk-len",
            Setting::Chunks => "--chunks",
            Setting::Codec => "--codec",
            Setting::Shuffle => "--shuffle",
            Setting::CharsAsU1 => "--chars-as-u1",
            Setting::Strings => "--strings",
        }
    }
}

/// The layouts of records in a store or file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// One array of records.
    #[default]
    Records,
    /// One array per field.
    Columns,
}

/// The write settings a command line gives, before any format reads them:
/// each format takes those it [says](crate::FormatInfo::settings) it
/// takes, and [`sink_options`](crate::sink_options) refuses the others.
///
/// Plain data, as a command line parses it: start from `default()` and set
/// the fields given (new settings may be added, so it is `non_exhaustive`).
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct WriteSettings {
    /// The Zarr format version, 2 or 3.
    pub zarr_format: Option<u8>,
    /// Records or columns.
    pub layout: Option<Layout>,
    /// Records per chunk of a one-dimensional array.
    pub chunk_len: Option<u64>,
    /// The chunk shape, one extent per dimension.
    pub chunks: Option<Vec<u64>>,
    /// The compression of each chunk.
    pub codec: Option<Codec>,
    /// A byte shuffle before the codec.
    pub shuffle: bool,
    /// Fixed strings in columns as `u1` arrays.
    pub chars_as_u1: bool,
    /// Fixed strings as variable-length ones (`Some(false)`: fixed, said).
    pub variable_strings: Option<bool>,
}

impl WriteSettings {
    /// The settings given.
    pub fn given(&self) -> Vec<Setting> {
        [
            (Setting::ZarrFormat, self.zarr_format.is_some()),
            (Setting::Layout, self.layout.is_some()),
            (Setting::ChunkLen, self.chunk_len.is_some()),
            (Setting::Chunks, self.chunks.is_some()),
            (Setting::Codec, self.codec.is_some()),
            (Setting::Shuffle, self.shuffle),
            (Setting::CharsAsU1, self.chars_as_u1),
            (Setting::Strings, self.variable_strings.is_some()),
        ]
        .into_iter()
        .filter_map(|(setting, given)| given.then_some(setting))
        .collect()
    }

    /// The layout, records unless columns.
    pub fn layout(&self) -> Layout {
        self.layout.unwrap_or_default()
    }
}

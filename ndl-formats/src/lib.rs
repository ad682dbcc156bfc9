//! Every array format of ndl behind one interface.
//!
//! A format plugs in once: one module that describes it in a
//! [`FormatInfo`] (how it is recognised, a [`Source`] that reads its arrays
//! element by element, a [`Sink`] that writes one and publishes it whole,
//! the [`Contents`] that every description language renders, the write
//! settings it takes), and one line in the registry, [`FORMATS`]. [`convert`] between any two formats is a source
//! drained into a sink, in bounded memory; [`describe`] reads the contents
//! once and writes them in the language asked for.
//!
//! The layers, from the bottom: plain data ([`ndl_runtime::ArraySpec`],
//! [`Contents`], [`FormatInfo`], the options), the two traits, one module
//! per format, the registry, then the entry points ([`open`], [`create`],
//! [`convert`], [`describe`]).
//!
//! ```
//! use ndl_formats::{convert, describe, ConvertOptions, Language};
//!
//! let dir = tempfile::tempdir()?;
//! let npy = dir.path().join("t.npy");
//! ndl_runtime::npy::write_file(&npy, &[1.5f64, 2.5, 3.5])?;
//!
//! let zarr = dir.path().join("t.zarr");
//! let n = convert(&npy, &zarr, &ConvertOptions::default(), &|_| {})?;
//! assert_eq!(n, 3);
//! assert_eq!(ndl_zarr::read::<f64>(&zarr)?, [1.5, 2.5, 3.5]);
//!
//! let shape = describe(&zarr, Language::Datashape, &Default::default())?;
//! assert_eq!(shape.text, "3 * float64\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod arrow;
mod arrow_records;
mod attribute_json;
mod batch_copy;
mod carried;
mod cf_decoded;
mod cf_numbers;
mod cf_table;
mod column_file;
mod column_rows;
mod contents;
mod conversion;
mod convert;
mod convert_one;
mod create;
mod dataset;
mod describe;
mod described;
mod error;
mod fill;
mod format;
mod hdf5;
mod hdf5_attributes;
mod hdf5_records;
mod location;
mod netcdf3;
mod netcdf_columns;
mod npy;
mod npy_records;
mod npz;
mod one_order;
mod options;
mod records;
mod registry;
mod sidecar;
mod sink;
mod source;
mod zarr;
mod zarr_records;
mod zarr_strings;

pub use arrow::{ColumnFileSink, ColumnFileSource};
pub use column_file::ColumnFile;
pub use contents::{Arrangement, Contents, Declared, Dimension, Entry, GroupEntry, NamedType};
pub use conversion::{ConvertOptions, Progress};
pub use convert::convert;
pub use create::{CreateOptions, create_from_ndl};
pub use describe::{DescribeOptions, Description, Language, describe, read_contents};
pub use error::{Error, Result};
pub use format::{Format, FormatInfo};
pub use hdf5::{Hdf5ColumnsSource, Hdf5Sink, Hdf5Source, Hdf5StringSource};
pub use location::is_remote;
pub use ndl_runtime::lang::zarr::Codec;
pub use ndl_zarr::{LockBreak, StoreLock, break_stale_lock};
pub use netcdf3::{Netcdf3Source, Netcdf3TableSource};
pub use npy::{NpySink, NpySource};
pub use npz::{NpzSink, NpzSource};
pub use options::{
    Hdf5SinkOptions, Layout, ReadOptions, Setting, SinkOptions, WriteSettings, ZarrSinkOptions,
};
pub use records::{RECORD_BATCH_BYTES, RecordOrigin, RecordSink, RecordSource, Reopen};
pub use registry::{FORMATS, create, create_records, open, open_records, sink_options};
pub use sink::{Progress as SinkProgress, Sink};
pub use source::{BATCH_BYTES, Origin, Source, for_each_batch};
pub use zarr::{ZarrSink, ZarrSource};
pub use zarr_strings::{VlenSink, VlenSource};

//! Which format a path holds, and the one place where each format is
//! plugged in: its source, its sink, its contents.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use ndl_runtime::npy::{self, HeaderLimits};

use crate::arrow::{ColumnFile, ColumnFileSink, ColumnFileSource};
use crate::contents::stem;
use crate::error::{Error, Result};
use crate::npy::{NpySink, NpySource};
use crate::npz::{NpzSink, NpzSource};
use crate::sink::Sink;
use crate::source::Source;
use crate::zarr::{is_remote, ZarrSink, ZarrSinkOptions, ZarrSource};
use crate::zarr_strings::{VlenSink, VlenSource};
use ndl_zarr::VlenReader;

/// The formats of arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// A NumPy `.npy` file: one array.
    Npy,
    /// A NumPy `.npz` archive: named arrays.
    Npz,
    /// A Zarr store (v2 or v3): an array of records, or a group of columns.
    Zarr,
    /// A Parquet file: a table of records.
    Parquet,
    /// An Arrow IPC file (`.arrow`, Feather v2): a table of records.
    Arrow,
}

impl Format {
    /// The format of what is at `path`: a directory or an `s3://` prefix is
    /// a Zarr store, a file is known by its first bytes.
    pub fn of_existing(path: &Path) -> Result<Format> {
        if path.is_dir() || is_remote(path) {
            return Ok(Format::Zarr);
        }
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut start = Vec::with_capacity(6);
        File::open(path)
            .map_err(io)?
            .take(6)
            .read_to_end(&mut start)
            .map_err(io)?;
        if start.as_slice() == npy::MAGIC {
            return Ok(Format::Npy);
        }
        if start.starts_with(b"PAR1") {
            return Ok(Format::Parquet);
        }
        if start.as_slice() == b"ARROW1" {
            return Ok(Format::Arrow);
        }
        if start.starts_with(b"PK\x03\x04") || start.starts_with(b"PK\x05\x06") {
            return Ok(Format::Npz);
        }
        Err(Error::UnknownFormat {
            path: path.to_path_buf(),
            reason: not_an_array_file(&start),
        })
    }

    /// The format a new file or store at `path` is written in, by its
    /// name's ending (`.npy`, `.npz`, `.zarr`) or an `s3://` prefix.
    pub fn of_destination(path: &Path) -> Result<Format> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("npy") => Ok(Format::Npy),
            Some("npz") => Ok(Format::Npz),
            Some("zarr") => Ok(Format::Zarr),
            Some("parquet") => Ok(Format::Parquet),
            Some("arrow" | "feather") => Ok(Format::Arrow),
            _ if is_remote(path) => Ok(Format::Zarr),
            _ => Err(Error::UnknownFormat {
                path: path.to_path_buf(),
                reason: "not a .npy, .npz, .parquet or .arrow file nor a .zarr store \
                         (say which by the name's ending)"
                    .into(),
            }),
        }
    }
}

/// Why a file's first bytes are no array file's.
fn not_an_array_file(start: &[u8]) -> String {
    if start.is_empty() {
        return "the file is empty".into();
    }
    // `np.load` takes anything else for a pickle; say so when it is one.
    let pickle = match start {
        [0x80, 2..=5, ..] => " (a Python pickle, which is not described)",
        _ => "",
    };
    let escaped: String = start
        .iter()
        .flat_map(|b| b.escape_ascii())
        .map(char::from)
        .collect();
    format!(
        "not a .npy file (which starts with \\x93NUMPY), a .npz archive (a zip file), a Parquet or Arrow IPC file nor a .zarr store (a directory); it starts with b\"{escaped}\"{pickle}"
    )
}

/// How to read a source.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// Bounds on a `.npy` header.
    pub limits: HeaderLimits,
    /// The member of an archive to read, when it has more than one.
    pub member: Option<String>,
}

/// How to write a sink.
#[derive(Clone, Debug, Default)]
pub struct SinkOptions {
    /// How a Zarr store is written.
    pub zarr: ZarrSinkOptions,
}

/// Opens the array at `path`, whatever its format.
pub fn open(path: &Path, options: &ReadOptions) -> Result<Box<dyn Source>> {
    Ok(match Format::of_existing(path)? {
        Format::Npy => Box::new(NpySource::open(path, &options.limits)?),
        Format::Npz => Box::new(NpzSource::open(
            path,
            options.member.as_deref(),
            &options.limits,
        )?),
        Format::Zarr if VlenReader::probe(path)?.is_some() => Box::new(VlenSource::open(path)?),
        Format::Zarr => Box::new(ZarrSource::open(path)?),
        Format::Parquet => Box::new(ColumnFileSource::open(path, ColumnFile::Parquet)?),
        Format::Arrow => Box::new(ColumnFileSource::open(path, ColumnFile::Ipc)?),
    })
}

/// Creates a sink at `path`, in the format its name says, for the array of
/// `source`; an `.npz` member is named after the source's file.
pub fn create(path: &Path, source: &dyn Source, options: &SinkOptions) -> Result<Box<dyn Sink>> {
    let spec = source.spec();
    Ok(match Format::of_destination(path)? {
        Format::Npy => Box::new(NpySink::create(path, spec)?),
        Format::Npz => Box::new(NpzSink::create(path, &stem(source.location()), spec)?),
        Format::Zarr if options.zarr.variable_strings => {
            Box::new(VlenSink::create(path, source, &options.zarr.zarr)?)
        }
        Format::Zarr => Box::new(ZarrSink::create(path, source, &options.zarr)?),
        Format::Parquet => Box::new(ColumnFileSink::create(path, spec, ColumnFile::Parquet)?),
        Format::Arrow => Box::new(ColumnFileSink::create(path, spec, ColumnFile::Ipc)?),
    })
}

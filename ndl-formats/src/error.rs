//! The one error of every format: the format's own typed error, or what
//! went wrong between formats, each naming the file, store or member, and
//! where in it.

use std::path::PathBuf;

/// A failure to describe, read, write or convert an array.
///
/// Each format's own error passes through whole ([`Error::Npy`],
/// [`Error::Zarr`]): it names the file or store and the place in it. The
/// others say which path they concern.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A `.npy` or `.npz` file could not be read or written.
    #[error(transparent)]
    Npy(#[from] ndl_runtime::npy::Error),
    /// A Zarr store could not be read or written.
    #[error(transparent)]
    Zarr(#[from] ndl_zarr::Error),
    /// A Parquet or Arrow IPC file could not be read or written.
    #[error("{source}")]
    Arrow {
        /// The file.
        path: PathBuf,
        /// What ndl-arrow found; its message names the file.
        source: Box<ndl_arrow::Error>,
    },
    /// An HDF5 file could not be read or written.
    #[error("{source}")]
    Hdf5 {
        /// The file.
        path: PathBuf,
        /// What ndl-hdf5 found; its message names the file and dataset.
        source: Box<ndl_hdf5::Error>,
    },
    /// A netCDF-3 file's header or data is not what the format says
    /// (truncated, or bytes changed).
    #[error("{}: {message}", path.display())]
    Netcdf3 {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where: the header's byte, or the variable.
        message: String,
    },
    /// An I/O error on `path`.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The path names no format that is known: by its name's ending, nor
    /// by its first bytes.
    #[error("{}: {reason}", path.display())]
    UnknownFormat {
        /// The path.
        path: PathBuf,
        /// What it is not, and what it starts with.
        reason: String,
    },
    /// The destination exists: nothing is written over it.
    #[error("{}: already exists; remove it or write elsewhere", path.display())]
    Exists {
        /// The destination.
        path: PathBuf,
    },
    /// A `--fill COLUMN=VALUE` that does not fit the records read.
    #[error("{}: --fill {column}: {message}", path.display())]
    Fill {
        /// The source.
        path: PathBuf,
        /// The column named.
        column: String,
        /// Why the value does not fill it.
        message: String,
    },
    /// The array, or the request, is one this conversion does not do.
    #[error("{}: {message}", path.display())]
    Unsupported {
        /// The file or store.
        path: PathBuf,
        /// What is not done, and what to do instead.
        message: String,
    },
    /// The file holds several arrays that are no table, and no member
    /// was named: a destination of one array takes one of them
    /// (`--member`); a Zarr store, an HDF5 or netCDF-4 file all of them.
    #[error(
        "{}: {what} ({}); say which with --member, or convert them all to a Zarr store \
         (.zarr) or an HDF5 or netCDF-4 file (.h5, .nc)",
        path.display(),
        names.join(", ")
    )]
    SeveralArrays {
        /// The file or store.
        path: PathBuf,
        /// What it holds: `the file holds 2 datasets`.
        what: String,
        /// Their names, as `--member` takes them.
        names: Vec<String>,
    },
    /// An archive member is missing, or which one is meant is unclear.
    #[error("{}: {message}", path.display())]
    Member {
        /// The archive or group.
        path: PathBuf,
        /// Which members there are.
        message: String,
    },
    /// A value that its datatype forbids (a bool that is not 0 or 1, an
    /// enum value that is no member).
    #[error("{}: record {record}, field `{field}`: {message}", path.display())]
    InvalidValue {
        /// The source.
        path: PathBuf,
        /// The record's index in the array.
        record: u64,
        /// The dotted path of the field.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// The source ended before its shape said.
    #[error("{}: the array data ends early, in record {record} or after", path.display())]
    EndsEarly {
        /// The source.
        path: PathBuf,
        /// The first record not read.
        record: u64,
    },
    /// A datatype has no fixed-size record to convert.
    #[error("{}: {source}", path.display())]
    Pack {
        /// The file or store.
        path: PathBuf,
        /// Why.
        source: ndl_runtime::records::PackError,
    },
    /// An array cannot be described in the language asked for.
    #[error("{}: `{array}`: {source}", path.display())]
    Language {
        /// The file or store.
        path: PathBuf,
        /// The array (its group path and name).
        array: String,
        /// Why.
        source: Box<ndl_runtime::lang::LangError>,
    },
    /// The description has no consistent form (two arrays disagree).
    #[error("{}: {message}", path.display())]
    Description {
        /// The file or store.
        path: PathBuf,
        /// What disagrees.
        message: String,
    },
    /// An NDL document that `ndl create` cannot make a file of.
    #[error("{}: {}", path.display(), located(location, message))]
    Document {
        /// The document.
        path: PathBuf,
        /// Where in it (group path, entity, key), empty for the whole.
        location: String,
        /// What is wrong.
        message: String,
    },
}

fn located(location: &str, message: &str) -> String {
    match location.is_empty() {
        true => message.to_string(),
        false => format!("{location}: {message}"),
    }
}

/// The result of this crate's functions.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A store's error, with the destination `path` named where the store's
/// own message does not name it.
pub(crate) fn in_store(path: &std::path::Path, e: ndl_zarr::Error) -> Error {
    match e {
        ndl_zarr::Error::Unsupported { message } => Error::Unsupported {
            path: path.to_path_buf(),
            message,
        },
        other => Error::Zarr(other),
    }
}

/// ndl-hdf5's error about the file at `path` (which its message names).
pub(crate) fn in_hdf5(path: &std::path::Path) -> impl Fn(ndl_hdf5::Error) -> Error + '_ {
    move |source| Error::Hdf5 {
        path: path.to_path_buf(),
        source: Box::new(source),
    }
}

//! What can go wrong, each case naming the column or the record it is
//! about, and every error of a function given a path wrapped in
//! [`Error::File`], which names the file once.

use std::path::{Path, PathBuf};

/// Why records could not be turned into Arrow data or back, or a file not
/// be written or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A datatype that has no Arrow form here: variable-length data,
    /// references.
    #[error("column `{column}`: the datatype {datatype} has no Arrow form in ndl-arrow")]
    Unsupported {
        /// The dotted path of the column.
        column: String,
        /// The datatype, in NDL YAML.
        datatype: String,
    },
    /// The datatype breaks a rule of its own (overlapping members, a size
    /// that overflows, ...).
    #[error("the datatype is not well formed: {0}")]
    Datatype(#[from] ndl_runtime::DatatypeError),
    /// The Rust type's datatype does not describe it (a wrong `NdlType`
    /// impl), or it has no fixed size.
    #[error("the record type cannot be packed: {0}")]
    Pack(#[from] ndl_runtime::records::PackError),
    /// The bytes handed in are not whole records of the datatype.
    #[error("{len} bytes are not whole records of {record} bytes")]
    PartialRecord {
        /// The number of bytes.
        len: usize,
        /// The record size.
        record: usize,
    },
    /// A value the datatype, or the Arrow column, cannot hold: a bool byte
    /// that is neither 0 nor 1, an enum value or name that is no member, a
    /// string that is not UTF-8 or too long, a null.
    #[error("record {record}, column `{column}`: {message}")]
    InvalidValue {
        /// The index of the record (the row).
        record: usize,
        /// The dotted path of the value, array indices included (`pts[1].x`).
        column: String,
        /// What is wrong.
        message: String,
    },
    /// The Arrow data does not have the columns the datatype needs: one is
    /// missing, of another type, or not asked for.
    #[error("column `{column}`: {message}")]
    TypeMismatch {
        /// The dotted path of the column.
        column: String,
        /// What is wrong.
        message: String,
    },
    /// The NDL datatype kept in a file's schema metadata is unreadable or
    /// does not describe the file's columns.
    #[error("the schema metadata `{key}`: {message}")]
    Metadata {
        /// The metadata key.
        key: &'static str,
        /// What is wrong.
        message: String,
    },
    /// One batch would hold more string bytes than Arrow's 32-bit offsets
    /// reach: write fewer records at a time.
    #[error(
        "column `{column}`: more than 2 GiB of text in one batch; convert fewer records at a time"
    )]
    TooLarge {
        /// The dotted path of the column.
        column: String,
    },
    /// The memory for the records could not be had.
    #[error("cannot allocate {0} bytes")]
    OutOfMemory(usize),
    /// The arrow crates refused the data (a malformed Arrow IPC file, say).
    #[error("{context}: {source}")]
    Arrow {
        /// What was being done, and where.
        context: String,
        /// The error.
        source: arrow_schema::ArrowError,
    },
    /// The parquet crate refused the data (a malformed Parquet file, say).
    #[error("{context}: {source}")]
    Parquet {
        /// What was being done, and where.
        context: String,
        /// The error.
        source: parquet::errors::ParquetError,
    },
    /// A file's own description of itself does not hold (a column chunk
    /// outside the file, say): a corrupted file.
    #[error("a corrupted file: {message}")]
    Corrupt {
        /// What does not hold.
        message: String,
    },
    /// A well-formed file of a kind or variant not read here (Feather v1,
    /// big-endian Arrow IPC); the message says what to re-save it as.
    #[error("{message}")]
    UnsupportedFile {
        /// What it is, and what to do instead.
        message: String,
    },
    /// Reading or writing a file failed.
    #[error("{0}")]
    Io(std::io::Error),
    /// Any of the errors above, met in the file at `path`: what every
    /// function given a path returns, so that the path is named once.
    #[error("{}: {source}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What was wrong in it.
        source: Box<Error>,
    },
}

impl Error {
    pub(crate) fn schema(column: &str, message: impl Into<String>) -> Error {
        Error::TypeMismatch {
            column: column.to_owned(),
            message: message.into(),
        }
    }

    pub(crate) fn arrow(
        context: impl Into<String>,
    ) -> impl FnOnce(arrow_schema::ArrowError) -> Error {
        let context = context.into();
        move |source| Error::Arrow { context, source }
    }

    pub(crate) fn parquet(
        context: impl Into<String>,
    ) -> impl FnOnce(parquet::errors::ParquetError) -> Error {
        let context = context.into();
        move |source| Error::Parquet { context, source }
    }

    /// The file the error is about, if a function given a path raised it.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Error::File { path, .. } => Some(path),
            _ => None,
        }
    }

    /// The error without the file it was met in.
    pub fn without_path(&self) -> &Error {
        match self {
            Error::File { source, .. } => source,
            other => other,
        }
    }

    /// Wraps an error met in the file at `path` in [`Error::File`], unless
    /// it names a file already.
    pub(crate) fn in_file(path: &Path) -> impl FnOnce(Error) -> Error + '_ {
        move |error| match error {
            named @ Error::File { .. } => named,
            other => Error::File {
                path: path.to_owned(),
                source: Box::new(other),
            },
        }
    }
}

/// A result of ndl-arrow.
pub type Result<T, E = Error> = std::result::Result<T, E>;

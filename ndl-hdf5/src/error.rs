//! What can go wrong, and where: every error names the file, and the
//! dataset and field where it has one.

use std::path::{Path, PathBuf};

use crate::h5type::TypeError;

/// An error of ndl-hdf5.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The HDF5 library refused something: the file is not HDF5, is
    /// truncated, or the call failed.
    #[error("{}{}: {message}", path.display(), at(dataset))]
    Hdf5 {
        /// The file.
        path: PathBuf,
        /// The dataset, empty for the file itself.
        dataset: String,
        /// What the library said, or what was being done.
        message: String,
    },
    /// The file holds no dataset of that name.
    #[error("{}: no dataset named `{dataset}` in the file (it has: {})", path.display(), listed(available))]
    NoDataset {
        /// The file.
        path: PathBuf,
        /// The name asked for.
        dataset: String,
        /// The datasets the file holds, by their paths.
        available: Vec<String>,
    },
    /// The dataset holds no array that converts: its type has no NumPy
    /// equivalent, or its dataspace is null.
    #[error("{}{}: {message}", path.display(), at(dataset))]
    NotAnArray {
        /// The file.
        path: PathBuf,
        /// The dataset.
        dataset: String,
        /// What it holds instead.
        message: String,
    },
    /// The records' datatype has no HDF5 type here.
    #[error("{}{}: {source}", path.display(), at(dataset))]
    Type {
        /// The file.
        path: PathBuf,
        /// The dataset.
        dataset: String,
        /// Which field, and why.
        source: TypeError,
    },
    /// The dataset does not hold records of the type asked for.
    #[error("{}{}: field `{field}`: {message}", path.display(), at(dataset))]
    TypeMismatch {
        /// The file.
        path: PathBuf,
        /// The dataset.
        dataset: String,
        /// The field of the type asked for, empty for the whole record.
        field: String,
        /// What differs.
        message: String,
    },
    /// A stored value that the record type does not admit.
    #[error("{}{}: record {record}, field `{field}` (byte {offset} of the record): {message}", path.display(), at(dataset))]
    InvalidValue {
        /// The file.
        path: PathBuf,
        /// The dataset.
        dataset: String,
        /// The record's index.
        record: u64,
        /// The field.
        field: String,
        /// The field's byte offset within the record.
        offset: usize,
        /// Why the value is refused.
        message: String,
    },
    /// A stored string that is not what its type says (not UTF-8 in a
    /// UTF-8 dataset).
    #[error("{}{}: element {element:?}: {message}", path.display(), at(dataset))]
    InvalidString {
        /// The file.
        path: PathBuf,
        /// The dataset.
        dataset: String,
        /// The element's index, one entry per dimension.
        element: Vec<u64>,
        /// Why the value is refused.
        message: String,
    },
    /// The dataset declares more records than the file holds (see
    /// [`read`](crate::read())).
    #[error("{}{}: {message}", path.display(), at(dataset))]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The dataset.
        dataset: String,
        /// The records it declares.
        records: u64,
        /// What the file holds instead, and why the read is refused.
        message: String,
    },
    /// A filter of the dataset's pipeline that ndl has no decoder for, or
    /// that could not decode a chunk (damaged, or not what it declares).
    #[error("{}{}: {filter}: {message}", path.display(), at(dataset))]
    Filter {
        /// The file.
        path: PathBuf,
        /// The dataset.
        dataset: String,
        /// The filter: its name and HDF5 filter id.
        filter: String,
        /// What is wrong.
        message: String,
    },
    /// Reading or writing the file itself.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

fn at(dataset: &str) -> String {
    if dataset.is_empty() {
        String::new()
    } else {
        format!(", dataset `{dataset}`")
    }
}

fn listed(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// A result of ndl-hdf5.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The error of an HDF5 call on `path`'s `dataset`: a filter of ours
/// that failed on this thread during the call is named, with its reason
/// (the library only says that a filter failed).
pub(crate) fn hdf5_error<'a>(
    path: &'a Path,
    dataset: &'a str,
) -> impl Fn(hdf5::Error) -> Error + 'a {
    move |e| match crate::filters::failure::take() {
        Some(failure) => Error::Filter {
            path: path.to_path_buf(),
            dataset: dataset.to_string(),
            filter: failure.filter,
            message: failure.message,
        },
        None => Error::Hdf5 {
            path: path.to_path_buf(),
            dataset: dataset.to_string(),
            message: e.to_string(),
        },
    }
}

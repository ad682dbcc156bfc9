//! Parquet and Arrow IPC files, as both the byte path ([`crate::arrow`])
//! and the records path ([`crate::arrow_records`]) write them: which of
//! the two a file is, its errors named against the right file, and the
//! schema metadata attributes become.

use std::path::Path;

use ndl_arrow::WriteOptions;
use ndl_runtime::ndl::{Attribute, NameMap};

use crate::error::Error;

/// The two files of columns ndl-arrow reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnFile {
    /// A Parquet file.
    Parquet,
    /// An Arrow IPC file (`.arrow`, Feather v2).
    Ipc,
}

/// ndl-arrow's error about the file at `path` (which its message names).
pub(crate) fn in_file(path: &Path) -> impl Fn(ndl_arrow::Error) -> Error + '_ {
    move |source| Error::Arrow {
        path: path.to_path_buf(),
        source: Box::new(source),
    }
}

/// ndl-arrow's error about records being written to `dest`: a value the
/// datatype forbids (a bool byte of 2, an enum value that is no member) is
/// the fault of the source they come from, `from`, and named against it;
/// the record's index in the destination is its index in the source.
pub(crate) fn source_at_fault(from: &Path, dest: &Path, error: ndl_arrow::Error) -> Error {
    match error.without_path() {
        ndl_arrow::Error::InvalidValue {
            record,
            column,
            message,
        } => Error::InvalidValue {
            path: from.to_path_buf(),
            record: *record as u64,
            field: column.clone(),
            message: message.clone(),
        },
        _ => in_file(dest)(error),
    }
}

/// The attributes the schema metadata of the file at `path` gives, as
/// [`metadata_from`] writes them: each key but the bookkeeping of ours,
/// Arrow's and pandas'; a value that is JSON's number or list of numbers
/// as that (our numbers are written so), any other as its text.
///
/// # Errors
/// A file whose schema cannot be read.
pub(crate) fn attributes_of(path: &Path, file: ColumnFile) -> crate::Result<NameMap<Attribute>> {
    let reader = match file {
        ColumnFile::Parquet => ndl_arrow::BatchReader::open_parquet(path),
        ColumnFile::Ipc => ndl_arrow::BatchReader::open_ipc(path),
    }
    .map_err(in_file(path))?;
    let schema = reader.schema();
    Ok(schema
        .metadata()
        .iter()
        .filter(|(key, _)| !is_tools_own(key))
        .map(|(key, text)| (key.clone(), metadata_attribute(text)))
        .collect())
}

/// Whether the schema metadata `key` is a tool's own bookkeeping, not the
/// data's: ours, Arrow's, the dataframe libraries' descriptions of their
/// frames (pandas, GeoParquet, Hugging Face, Spark), and names netCDF
/// keeps for itself (a leading `_`).
fn is_tools_own(key: &str) -> bool {
    const PREFIXES: &[&str] = &["ndl.", "ARROW:", "org.apache.spark.", "_"];
    const KEYS: &[&str] = &["pandas", "geo", "huggingface"];
    PREFIXES.iter().any(|p| key.starts_with(p)) || KEYS.contains(&key)
}

/// The attribute a schema metadata value stands for: a number or a list
/// of numbers as JSON writes them (NaN and the infinities as Python's
/// `json` does), else the text.
fn metadata_attribute(text: &str) -> Attribute {
    let special = match text {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    };
    if let Some(x) = special.and_then(|x| Attribute::new(x).ok()) {
        return x;
    }
    let numbers = |v: &serde_json::Value| match v {
        serde_json::Value::Number(_) => true,
        serde_json::Value::Array(items) => !items.is_empty() && items.iter().all(|i| i.is_number()),
        _ => false,
    };
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .filter(numbers)
        .and_then(|v| serde_yaml::to_value(v).ok())
        .and_then(|v| Attribute::new(v).ok())
        .unwrap_or_else(|| Attribute::from(text))
}

/// The schema metadata of `attributes`: text as it is, other values as
/// their JSON text, as pyarrow keeps strings there (NaN and the
/// infinities as Python's `json` writes them).
pub(crate) fn metadata_from(attributes: Option<&NameMap<Attribute>>) -> WriteOptions {
    let Some(attributes) = attributes else {
        return WriteOptions::new();
    };
    attributes
        .iter()
        .fold(WriteOptions::new(), |options, (name, a)| {
            options.metadata(name, &metadata_text(&a.value))
        })
}

/// An attribute's value as schema metadata text: text as it is, a float
/// JSON has no number for as Python's `json` writes it, anything else as
/// its JSON.
fn metadata_text(value: &serde_yaml::Value) -> String {
    match value {
        serde_yaml::Value::String(text) => text.clone(),
        serde_yaml::Value::Number(n) => match n.as_f64() {
            Some(x) if x.is_nan() => "NaN".into(),
            Some(x) if x == f64::INFINITY => "Infinity".into(),
            Some(x) if x == f64::NEG_INFINITY => "-Infinity".into(),
            _ => n.to_string(),
        },
        other => serde_json::to_value(other).map_or_else(|_| String::new(), |v| v.to_string()),
    }
}

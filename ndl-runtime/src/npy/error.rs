//! Errors of `.npy` reading and writing.
//!
//! Every variant says what is wrong and where: a byte offset from the start
//! of the `.npy` file (or `.npz` member), the header field or descr field
//! concerned, the record index for data errors. [`Error::in_file`] adds the
//! path of the file.

use std::path::PathBuf;

use super::repr::bytes_repr;
use crate::field_map::FieldMapError;

/// The result type of the `npy` module.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong reading or writing a `.npy` file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Another error, in the file at `path`.
    #[error("{}: {source}", path.display())]
    InFile {
        /// The file.
        path: PathBuf,
        /// What went wrong in it.
        source: Box<Error>,
    },

    /// The operating system reported an error.
    #[error("I/O error{}: {source}", at(*offset))]
    Io {
        /// Where in the file, when known.
        offset: Option<u64>,
        /// The error.
        source: std::io::Error,
    },

    /// The file ends before something it announces.
    #[error(
        "unexpected end of file while reading the {what} at byte {offset}: expected {expected} bytes, got {got}"
    )]
    UnexpectedEof {
        /// What was being read: `magic string`, `array header length`, `array header`, `array data`,
        /// or a `.npz` archive's `stored member` (to map it).
        what: &'static str,
        /// Where it starts.
        offset: u64,
        /// How many bytes it needs.
        expected: u64,
        /// How many there were.
        got: u64,
    },

    /// The file does not start with `\x93NUMPY`.
    #[error(
        "not a .npy file: the magic string at byte 0 is {}, expected b'\\x93NUMPY'",
        bytes_repr(found)
    )]
    BadMagic {
        /// The first six bytes.
        found: Vec<u8>,
    },

    /// A format version other than 1.0, 2.0 and 3.0.
    #[error(
        "unsupported .npy format version {major}.{minor} at byte 6: only 1.0, 2.0 and 3.0 exist"
    )]
    UnsupportedVersion {
        /// Major version byte.
        major: u8,
        /// Minor version byte.
        minor: u8,
    },

    /// HEADER_LEN exceeds [`HeaderLimits::max_header_size`](super::HeaderLimits).
    #[error(
        "the array header at byte {offset} is {len} bytes long, more than the limit of {limit} characters (raise HeaderLimits::max_header_size to read it)"
    )]
    HeaderTooLarge {
        /// Where the header text starts.
        offset: u64,
        /// Its length (bytes, or characters for a 3.0 header after decoding).
        len: u64,
        /// The limit.
        limit: usize,
    },

    /// A 3.0 header is not valid UTF-8.
    #[error("the array header is not valid UTF-8 (format 3.0): invalid byte at byte {offset}")]
    HeaderEncoding {
        /// Where the first invalid byte is.
        offset: u64,
    },

    /// The header text is not a Python literal this reader accepts.
    #[error("cannot parse the array header at byte {offset}: {message}")]
    HeaderSyntax {
        /// Where the problem is.
        offset: u64,
        /// What the problem is.
        message: String,
    },

    /// The header is a literal, but not a dict.
    #[error("the array header at byte {offset} is not a dictionary: {found}")]
    NotADict {
        /// Where the literal starts.
        offset: u64,
        /// A short description of what was found.
        found: String,
    },

    /// The header dict lacks `descr`, `fortran_order` or `shape`, or has others.
    #[error("the array header at byte {offset} must have exactly the keys 'descr', 'fortran_order' and 'shape'; it has [{}]", found.join(", "))]
    WrongKeys {
        /// Where the dict starts.
        offset: u64,
        /// The keys present (sorted, as Python reprs).
        found: Vec<String>,
    },

    /// `shape` is not a tuple of non-negative integers.
    #[error("invalid 'shape' at byte {offset}: {message}")]
    InvalidShape {
        /// Where the offending value is.
        offset: u64,
        /// What is wrong.
        message: String,
    },

    /// The number of elements or bytes of the array does not fit in 64 bits.
    #[error(
        "the array of shape {shape:?} with {itemsize}-byte items has more elements or bytes than fit in 64 bits"
    )]
    ShapeOverflow {
        /// The shape.
        shape: Vec<u64>,
        /// The item size in bytes.
        itemsize: u64,
    },

    /// `fortran_order` is not `True` or `False`.
    #[error("invalid 'fortran_order' at byte {offset}: expected True or False, found {found}")]
    InvalidFortranOrder {
        /// Where the value is.
        offset: u64,
        /// What was found.
        found: String,
    },

    /// `descr` is not a valid NumPy type description.
    #[error("invalid 'descr' at byte {offset}{}: {message}", field_suffix(field))]
    InvalidDescr {
        /// Where the offending value is.
        offset: u64,
        /// The dotted path of the field concerned (empty for the top level).
        field: String,
        /// What is wrong.
        message: String,
    },

    /// `descr` is valid NumPy, but has no fixed binary layout this library can read.
    #[error(
        "unsupported 'descr' at byte {offset}{}: {descr}: {reason}",
        field_suffix(field)
    )]
    UnsupportedDescr {
        /// Where the type string is.
        offset: u64,
        /// The dotted path of the field concerned (empty for the top level).
        field: String,
        /// The type string, e.g. `'|O'`.
        descr: String,
        /// Why it is not supported.
        reason: String,
    },

    /// Two fields of one record share a name (or title).
    #[error("duplicate field name {name:?} in 'descr' at byte {offset}")]
    DuplicateField {
        /// Where the second one is.
        offset: u64,
        /// The name.
        name: String,
    },

    /// A datatype cannot be stored in a `.npy` file.
    #[error("cannot write{}: {reason}", field_suffix(field))]
    NotWritable {
        /// The dotted path of the field concerned (empty for the top level).
        field: String,
        /// Why.
        reason: String,
    },

    /// The file's datatype is not the one expected.
    #[error("datatype mismatch: expected descr {expected}, the file has {found}")]
    DatatypeMismatch {
        /// The expected descr.
        expected: String,
        /// The file's descr.
        found: String,
    },

    /// A stored value is not valid for its datatype.
    #[error(
        "invalid value in record {record} at byte {offset}{}: {message}",
        field_suffix(field)
    )]
    InvalidValue {
        /// The record (element) index, in file order.
        record: u64,
        /// Where the value is.
        offset: u64,
        /// The dotted field path (empty for a non-compound element).
        field: String,
        /// What is wrong.
        message: String,
    },

    /// A `.npz` (zip) archive problem.
    #[error("npz archive{}: {source}", member.as_deref().map(|m| format!(" member '{m}'")).unwrap_or_default())]
    Zip {
        /// The archive member concerned, when known.
        member: Option<String>,
        /// The zip error.
        source: zip::result::ZipError,
    },

    /// The file's datatype does not match the Rust type read into.
    #[error(
        "the file's datatype does not match the type{}: {message}",
        field_suffix(field)
    )]
    TypeMismatch {
        /// The dotted path of the field that differs (empty for the whole record).
        field: String,
        /// How it differs, e.g. `file has float32 at offset 4, type expects float64 at offset 8`.
        message: String,
    },

    /// A field of the type is not in the file (reading by field name).
    #[error("the file has no field '{field}' (reading by name; the file's record has fields [{}])", available.join(", "))]
    MissingField {
        /// The dotted path of the field (`pos.x`).
        field: String,
        /// The names the file's compound has at that level.
        available: Vec<String>,
    },

    /// The count of an appended file does not fit its header.
    #[error(
        "no room in the header for a first dimension of {count}: the file was written without NumPy's growth padding (NumPy < 1.24); AppendOptions::rewrite(true) rewrites it"
    )]
    NoGrowthRoom {
        /// The first dimension the file would have after the append.
        count: u64,
    },

    /// The file cannot take appended records.
    #[error("cannot append: {reason}")]
    NotAppendable {
        /// Why (Fortran order, a 0-d array, ...).
        reason: String,
    },

    /// The array has another number of dimensions than the reader wants.
    #[error("expected a {expected}-dimensional array, the file's array has shape {shape:?}")]
    RankMismatch {
        /// The number of dimensions wanted.
        expected: usize,
        /// The shape found.
        shape: Vec<u64>,
    },

    /// The number of records does not fit the shape.
    #[error("the shape {shape:?} holds {expected} elements, but {got} records were given")]
    ShapeMismatch {
        /// The shape.
        shape: Vec<u64>,
        /// The number of elements the shape holds.
        expected: u64,
        /// The number of records given.
        got: u64,
    },

    /// A `.npz` member's bytes do not have the CRC-32 its zip directory
    /// entry records: the archive was changed or damaged after writing.
    #[error(
        "npz archive member '{member}': its CRC-32 is {computed:08x}, the zip directory says {stored:08x}; the member was changed or damaged"
    )]
    Checksum {
        /// The archive member.
        member: String,
        /// The CRC-32 the directory records.
        stored: u32,
        /// The CRC-32 of the member's bytes.
        computed: u32,
    },

    /// The array cannot be memory-mapped as the requested type.
    #[error("cannot memory-map the array: {reason}")]
    NotMappable {
        /// Why (byte order, alignment, ...).
        reason: String,
    },

    /// The NDL sidecar beside a `.npy` file contradicts the Rust type.
    #[error("NDL sidecar {}: {message}", path.display())]
    Sidecar {
        /// The sidecar file.
        path: PathBuf,
        /// What it contradicts.
        message: String,
    },

    /// A `.npz` archive has no member of that name.
    #[error("no array named '{name}' in the npz archive (it has: {})", available.join(", "))]
    NoSuchArray {
        /// The name asked for.
        name: String,
        /// The names it has.
        available: Vec<String>,
    },
}

impl Error {
    /// Adds the path of the file the error happened in.
    ///
    /// ```
    /// use ndl_runtime::npy::{Error, Header, HeaderLimits};
    ///
    /// let err = Header::parse(b"GIF89a", &HeaderLimits::default()).unwrap_err().in_file("a.npy");
    /// assert!(err.to_string().starts_with("a.npy: "));
    /// assert!(matches!(err, Error::InFile { .. }));
    /// ```
    pub fn in_file(self, path: impl Into<PathBuf>) -> Error {
        Error::InFile {
            path: path.into(),
            source: Box::new(self),
        }
    }

    /// The error itself, without the file it happened in.
    ///
    /// ```
    /// use ndl_runtime::npy::{self, Error};
    ///
    /// let err = npy::read_file::<u8>("/no/such/file.npy").unwrap_err();
    /// assert!(matches!(err.kind(), Error::Io { .. }));
    /// ```
    pub fn kind(&self) -> &Error {
        match self {
            Error::InFile { source, .. } => source.kind(),
            other => other,
        }
    }

    /// The byte offset in the file the error is about, when it has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::InFile { source, .. } => source.offset(),
            Error::Io { offset, .. } => *offset,
            Error::BadMagic { .. } => Some(0),
            Error::UnsupportedVersion { .. } => Some(6),
            Error::UnexpectedEof { offset, .. }
            | Error::HeaderTooLarge { offset, .. }
            | Error::HeaderEncoding { offset }
            | Error::HeaderSyntax { offset, .. }
            | Error::NotADict { offset, .. }
            | Error::WrongKeys { offset, .. }
            | Error::InvalidShape { offset, .. }
            | Error::InvalidFortranOrder { offset, .. }
            | Error::InvalidDescr { offset, .. }
            | Error::UnsupportedDescr { offset, .. }
            | Error::DuplicateField { offset, .. }
            | Error::InvalidValue { offset, .. } => Some(*offset),
            Error::ShapeOverflow { .. }
            | Error::NotWritable { .. }
            | Error::DatatypeMismatch { .. }
            | Error::Zip { .. }
            | Error::Checksum { .. }
            | Error::TypeMismatch { .. }
            | Error::RankMismatch { .. }
            | Error::ShapeMismatch { .. }
            | Error::NotMappable { .. }
            | Error::NoSuchArray { .. }
            | Error::MissingField { .. }
            | Error::NoGrowthRoom { .. }
            | Error::NotAppendable { .. }
            | Error::Sidecar { .. } => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(source: std::io::Error) -> Error {
        Error::Io {
            offset: None,
            source,
        }
    }
}

impl From<FieldMapError> for Error {
    fn from(e: FieldMapError) -> Error {
        match e {
            FieldMapError::MissingField { field, available } => {
                Error::MissingField { field, available }
            }
            FieldMapError::FieldType {
                field,
                file,
                target,
            } => Error::TypeMismatch {
                field,
                message: format!("file has {file}, type expects {target} (reading by name)"),
            },
            other => Error::TypeMismatch {
                field: String::new(),
                message: other.to_string(),
            },
        }
    }
}

fn at(offset: Option<u64>) -> String {
    offset.map(|o| format!(" at byte {o}")).unwrap_or_default()
}

fn field_suffix(field: &str) -> String {
    if field.is_empty() {
        String::new()
    } else {
        format!(" (field '{field}')")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_file_keeps_the_offset() {
        let e = Error::UnsupportedVersion { major: 1, minor: 1 }.in_file("x.npy");
        assert_eq!(e.offset(), Some(6));
        assert_eq!(
            e.to_string(),
            "x.npy: unsupported .npy format version 1.1 at byte 6: only 1.0, 2.0 and 3.0 exist"
        );
    }
}

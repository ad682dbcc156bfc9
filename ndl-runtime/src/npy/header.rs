//! The `.npy` header: magic, version, length and the Python dict literal.

use std::io::Read;

use super::{ByteOrder, Error, Result};
use crate::Datatype;

/// The magic string every `.npy` file starts with.
pub const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// NumPy's default for [`HeaderLimits::max_header_size`].
pub const DEFAULT_MAX_HEADER_SIZE: usize = 10_000;

/// Data starts at a multiple of this (NumPy >= 1.14 writers; readers don't require it).
const ARRAY_ALIGN: usize = 64;

/// Digits reserved for the growth axis so rewriting the count never moves the data.
const GROWTH_AXIS_MAX_DIGITS: usize = 21;

/// The description of a `.npy` file's array: what precedes the data.
///
/// `datatype` is the element datatype; `byte_order` applies to every
/// multi-byte number in it, nested fields included. A top-level
/// [`Datatype::Array`] is written the way NumPy stores a subarray dtype: its
/// shape is appended to `shape` (C order only), so it reads back as the base
/// datatype with the longer shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The element datatype.
    pub datatype: Datatype,
    /// The byte order of all multi-byte numbers.
    pub byte_order: ByteOrder,
    /// Whether the data is in Fortran (column-major) order.
    pub fortran_order: bool,
    /// The array shape; empty for a 0-d array (one element).
    pub shape: Vec<u64>,
}

/// Bounds on what a reader accepts, to stay safe with untrusted files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderLimits {
    /// The largest header (HEADER_LEN, in characters) to read, as NumPy's
    /// `max_header_size`. It is checked before the header bytes are read.
    pub max_header_size: usize,
}

impl Default for HeaderLimits {
    fn default() -> HeaderLimits {
        HeaderLimits {
            max_header_size: DEFAULT_MAX_HEADER_SIZE,
        }
    }
}

impl Header {
    /// A C-order header in native byte order.
    pub fn new(datatype: Datatype, shape: Vec<u64>) -> Header {
        Header {
            datatype,
            byte_order: ByteOrder::NATIVE,
            fortran_order: false,
            shape,
        }
    }

    /// The number of elements: the product of `shape` (1 for `()`).
    pub fn element_count(&self) -> Result<u64> {
        self.shape
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d))
            .ok_or_else(|| self.overflow())
    }

    /// The size of the data in bytes: elements times item size.
    pub fn data_len(&self) -> Result<u64> {
        let itemsize = self.itemsize()?;
        self.element_count()?
            .checked_mul(itemsize)
            .ok_or_else(|| self.overflow())
    }

    fn itemsize(&self) -> Result<u64> {
        self.datatype
            .size()
            .map(|s| s as u64)
            .ok_or_else(|| Error::NotWritable {
                field: String::new(),
                reason: "the datatype has no fixed size".into(),
            })
    }

    fn overflow(&self) -> Error {
        Error::ShapeOverflow {
            shape: self.shape.clone(),
            itemsize: self.datatype.size().unwrap_or(0) as u64,
        }
    }

    /// The header exactly as NumPy writes it: magic, version, HEADER_LEN,
    /// the dict and padding to a multiple of 64 bytes ending in `\n`.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let _ = (ARRAY_ALIGN, GROWTH_AXIS_MAX_DIGITS);
        Err(Error::NotWritable {
            field: String::new(),
            reason: "not implemented yet".into(),
        })
    }

    /// Reads a header from `r`, leaving `r` at the first data byte.
    pub fn read<R: Read>(r: &mut R, limits: &HeaderLimits) -> Result<Header> {
        let _ = (r, limits);
        Err(Error::HeaderSyntax {
            offset: 0,
            message: "not implemented yet".into(),
        })
    }

    /// Parses the header at the start of `bytes`; returns it and the offset
    /// of the first data byte.
    pub fn parse(bytes: &[u8], limits: &HeaderLimits) -> Result<(Header, usize)> {
        let mut r = bytes;
        let h = Header::read(&mut r, limits)?;
        Ok((h, bytes.len() - r.len()))
    }
}

//! The `.npy` header: magic, version, length and the Python dict literal.

use std::io::Read;

use super::descr::{write_descr, write_shape};
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
    /// the dict with sorted keys, growth spaces and padding to a multiple of
    /// 64 bytes ending in `\n`. The version is 1.0, or 2.0 when the header
    /// is longer than 65535 bytes, or 3.0 (UTF-8) when a field name has a
    /// character outside Latin-1, as `np.save` chooses.
    ///
    /// The length does not depend on the value of the growth axis
    /// (`shape[0]`, or the last axis in Fortran order) as long as it has at
    /// most 21 digits, which every `u64` has: a streaming writer can write
    /// a header with a count of 0 and overwrite it with the final count.
    ///
    /// A top-level [`Datatype::Array`] has its shape appended to `shape`,
    /// as NumPy does with subarray dtypes; in Fortran order that is an error.
    ///
    /// ```
    /// use ndl_runtime::npy::{ByteOrder, Header};
    /// use ndl_runtime::Datatype;
    ///
    /// let mut h = Header::new(Datatype::Float64, vec![3, 6]);
    /// h.byte_order = ByteOrder::Little;
    /// let bytes = h.to_bytes().unwrap();
    /// assert_eq!(bytes.len(), 128);
    /// assert!(bytes.starts_with(b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (3, 6), }"));
    /// assert!(bytes.ends_with(b" \n"));
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let text = self.dict_text()?;
        Ok(wrap_header(&text))
    }

    /// The dict text before padding: `{'descr': ..., 'shape': (..), }` and growth spaces.
    fn dict_text(&self) -> Result<String> {
        let (datatype, shape) = self.folded()?;
        let mut s = String::from("{'descr': ");
        write_descr(datatype, self.byte_order, "", &mut s)?;
        s.push_str(", 'fortran_order': ");
        s.push_str(if self.fortran_order { "True" } else { "False" });
        s.push_str(", 'shape': ");
        write_shape(shape.iter().copied(), &mut s);
        s.push_str(", }");
        let growth_axis = if self.fortran_order {
            shape.last()
        } else {
            shape.first()
        };
        if let Some(n) = growth_axis {
            let digits = n.to_string().len();
            s.extend(std::iter::repeat(' ').take(GROWTH_AXIS_MAX_DIGITS.saturating_sub(digits)));
        }
        Ok(s)
    }

    /// The datatype and shape as written: a top-level array moves into the shape.
    fn folded(&self) -> Result<(&Datatype, Vec<u64>)> {
        let mut shape = self.shape.clone();
        match &self.datatype {
            Datatype::Array(a) if self.fortran_order => Err(Error::NotWritable {
                field: String::new(),
                reason: format!(
                    "an array datatype (shape {:?}) as the element of a Fortran-order array; \
                     NumPy stores subarray dtypes by appending their shape in C order",
                    a.shape
                ),
            }),
            Datatype::Array(a) => {
                shape.extend(a.shape.iter().map(|&d| d as u64));
                Ok((&a.base, shape))
            }
            dt => Ok((dt, shape)),
        }
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

/// Magic, version and length field, the text, padding and `\n` (`_wrap_header`).
fn wrap_header(text: &str) -> Vec<u8> {
    let latin1: Option<Vec<u8>> = text.chars().map(|c| u8::try_from(c as u32).ok()).collect();
    let (encoded, mut version) = match latin1 {
        Some(bytes) => (bytes, 1u8),
        None => (text.as_bytes().to_vec(), 3u8),
    };
    let mut total = padded_len(encoded.len(), 2);
    if version == 1 && total > usize::from(u16::MAX) {
        version = 2;
    }
    let len_field = if version == 1 { 2 } else { 4 };
    total = padded_len(encoded.len(), len_field);
    let mut out = Vec::with_capacity(MAGIC.len() + 2 + len_field + total);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(total as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(total as u32).to_le_bytes());
    }
    out.extend_from_slice(&encoded);
    out.resize(out.len() + (total - encoded.len() - 1), b' ');
    out.push(b'\n');
    out
}

/// HEADER_LEN for `text_len` bytes of text: text, 1..=64 spaces, `\n`.
fn padded_len(text_len: usize, len_field: usize) -> usize {
    let hlen = text_len + 1;
    let pad = ARRAY_ALIGN - ((MAGIC.len() + 2 + len_field + hlen) % ARRAY_ALIGN);
    hlen + pad
}

//! The `.npy` header: magic, version, length and the Python dict literal.

use std::collections::BTreeSet;
use std::io::Read;
use std::ops::Range;

use super::descr::{write_descr, write_shape, DescrReader};
use super::io;
use super::literal::{self, Lit, Value};
use super::shape::checked_product;
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
        checked_product(&self.shape).ok_or_else(|| self.overflow())
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
        wrap_header(&text)
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
            s.extend(std::iter::repeat_n(
                ' ',
                GROWTH_AXIS_MAX_DIGITS.saturating_sub(digits),
            ));
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
    ///
    /// Follows NumPy's `read_magic` and `_read_array_header`: versions 1.0,
    /// 2.0 and 3.0; Latin-1 text for 1.0/2.0, UTF-8 for 3.0; HEADER_LEN is
    /// compared with `limits` before any header byte is read; neither the
    /// 64-byte alignment nor the final `\n` is required. Short reads are
    /// retried; errors give the byte offset from where `r` started.
    ///
    /// ```
    /// use ndl_runtime::npy::{Header, HeaderLimits};
    /// use ndl_runtime::Datatype;
    ///
    /// let file = b"\x93NUMPY\x01\x00\x32\x00{'descr':'<f8','fortran_order':False,'shape':(2,)}";
    /// let mut r = &file[..];
    /// let h = Header::read(&mut r, &HeaderLimits::default()).unwrap();
    /// assert_eq!((h.datatype, h.shape), (Datatype::Float64, vec![2]));
    /// ```
    pub fn read<R: Read>(r: &mut R, limits: &HeaderLimits) -> Result<Header> {
        let version = read_magic(r)?;
        let len_field = if version == 1 { 2 } else { 4 };
        let mut len_bytes = [0u8; 4];
        read_exact_at(r, &mut len_bytes[..len_field], 8, "array header length")?;
        let header_len = u64::from(u32::from_le_bytes(len_bytes));
        let start = 8 + len_field as u64;
        // A UTF-8 character is at most 4 bytes: bound the bytes before
        // reading, count the characters after decoding.
        let byte_limit = if version == 3 {
            limits.max_header_size.saturating_mul(4)
        } else {
            limits.max_header_size
        };
        if header_len > byte_limit as u64 {
            return Err(Error::HeaderTooLarge {
                offset: start,
                len: header_len,
                limit: limits.max_header_size,
            });
        }
        let bytes = read_up_to(r, header_len, start, "array header")?;
        let text = decode(&bytes, version, start)?;
        let chars = text.chars().count();
        if chars > limits.max_header_size {
            return Err(Error::HeaderTooLarge {
                offset: start,
                len: chars as u64,
                limit: limits.max_header_size,
            });
        }
        let to_offset = |pos: usize| {
            let bytes_before = if version == 3 {
                pos
            } else {
                text[..pos].chars().count()
            };
            start + bytes_before as u64
        };
        header_from_text(&text, version < 3, &to_offset)
    }

    /// Parses the header at the start of `bytes`; returns it and the offset
    /// of the first data byte.
    ///
    /// ```
    /// use ndl_runtime::npy::{Error, Header, HeaderLimits};
    /// use ndl_runtime::Datatype;
    ///
    /// let h = Header::new(Datatype::UInt16, vec![3]);
    /// let bytes = h.to_bytes().unwrap();
    /// assert_eq!(Header::parse(&bytes, &HeaderLimits::default()).unwrap(), (h, 128));
    /// let err = Header::parse(&bytes[..100], &HeaderLimits::default()).unwrap_err();
    /// assert!(matches!(err, Error::UnexpectedEof { what: "array header", offset: 10, expected: 118, got: 90 }));
    /// ```
    pub fn parse(bytes: &[u8], limits: &HeaderLimits) -> Result<(Header, usize)> {
        let mut r = bytes;
        let h = Header::read(&mut r, limits)?;
        Ok((h, bytes.len() - r.len()))
    }

    /// Parses a whole `.npy` file held in memory: the header, and the data
    /// bytes it announces (`data_len` of them; anything after is ignored,
    /// as NumPy ignores it). A file too short for its data is an error.
    ///
    /// ```
    /// use ndl_runtime::npy::{Error, Header, HeaderLimits};
    /// use ndl_runtime::Datatype;
    ///
    /// let mut file = Header::new(Datatype::UInt8, vec![3]).to_bytes().unwrap();
    /// file.extend_from_slice(&[1, 2, 3, 99]);
    /// let (h, data) = Header::split(&file, &HeaderLimits::default()).unwrap();
    /// assert_eq!((h.shape, data), (vec![3], &[1u8, 2, 3][..]));
    /// let err = Header::split(&file[..130], &HeaderLimits::default()).unwrap_err();
    /// assert!(matches!(err, Error::UnexpectedEof { what: "array data", offset: 128, expected: 3, got: 2 }));
    /// ```
    pub fn split<'b>(bytes: &'b [u8], limits: &HeaderLimits) -> Result<(Header, &'b [u8])> {
        let (h, start) = Header::parse(bytes, limits)?;
        let len = h.data_len()?;
        let available = bytes.len() - start;
        if (available as u64) < len {
            return Err(Error::UnexpectedEof {
                what: "array data",
                offset: start as u64,
                expected: len,
                got: available as u64,
            });
        }
        Ok((h, &bytes[start..start + len as usize]))
    }

    /// The descr this header writes, e.g. `'<f8'` (for messages and checks).
    pub fn descr(&self) -> Result<String> {
        let (datatype, _) = self.folded()?;
        datatype.numpy_descr_with_order(self.byte_order)
    }
}

/// Where the count of the first dimension is written in the header bytes
/// `prefix` (a C-order file's bytes up to its data): the digits of `12` in
/// `'shape': (12, 3)`. `None` unless they are plain decimal digits that
/// spell `count`, so that rewriting them cannot change anything else.
pub(crate) fn count_digits(prefix: &[u8], count: u64) -> Option<Range<usize>> {
    let version = *prefix.get(6)?;
    let start = if version == 1 { 10 } else { 12 };
    let text = decode(prefix.get(start..)?, version, start as u64).ok()?;
    let lit = literal::parse(&text, version < 3).ok()?;
    let Value::Dict(entries) = &lit.value else {
        return None;
    };
    let (_, shape) = entries
        .iter()
        .find(|(k, _)| matches!(&k.value, Value::Str(s) if s == "shape"))?;
    let Value::Tuple(items) = &shape.value else {
        return None;
    };
    let pos = items.first()?.pos;
    // Latin-1 text has one character per byte of the file.
    let at = start
        + if version == 3 {
            pos
        } else {
            text[..pos].chars().count()
        };
    let len = prefix[at..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let digits = std::str::from_utf8(&prefix[at..at + len]).ok()?;
    (digits.parse::<u64>().ok()? == count).then_some(at..at + len)
}

/// The header bytes `prefix` with the count at `digits` (see
/// [`count_digits`]) replaced by `count`, and the same length: the
/// spaces that end the header (before its `\n`) give or take the room.
/// `None` when there are too few spaces (no growth padding).
pub(crate) fn with_count(prefix: &[u8], digits: Range<usize>, count: u64) -> Option<Vec<u8>> {
    let new = count.to_string();
    let mut out = Vec::with_capacity(prefix.len() + new.len());
    out.extend_from_slice(&prefix[..digits.start]);
    out.extend_from_slice(new.as_bytes());
    out.extend_from_slice(&prefix[digits.end..]);
    let end = out.len() - usize::from(out.last() == Some(&b'\n'));
    let spaces = out[..end].iter().rev().take_while(|&&b| b == b' ').count();
    if out.len() > prefix.len() {
        let extra = out.len() - prefix.len();
        if spaces < extra {
            return None;
        }
        out.drain(end - extra..end);
    } else {
        let missing = prefix.len() - out.len();
        out.splice(end..end, std::iter::repeat_n(b' ', missing));
    }
    Some(out)
}

/// Reads the magic string and version; returns the major version (1, 2 or 3).
fn read_magic<R: Read>(r: &mut R) -> Result<u8> {
    let mut magic = [0u8; 8];
    let got = read_full(r, &mut magic, 0)?;
    // A short file that already differs from the magic is not a .npy file;
    // one that matches as far as it goes was cut short.
    let seen = got.min(MAGIC.len());
    if magic[..seen] != MAGIC[..seen] {
        return Err(Error::BadMagic {
            found: magic[..seen].to_vec(),
        });
    }
    if got < magic.len() {
        return Err(Error::UnexpectedEof {
            what: "magic string",
            offset: 0,
            expected: 8,
            got: got as u64,
        });
    }
    match (magic[6], magic[7]) {
        (v @ 1..=3, 0) => Ok(v),
        (major, minor) => Err(Error::UnsupportedVersion { major, minor }),
    }
}

/// Fills `buf` as far as the input goes; returns how many bytes it got.
fn read_full<R: Read>(r: &mut R, buf: &mut [u8], offset: u64) -> Result<usize> {
    io::read_full(r, buf).map_err(|source| Error::Io {
        offset: Some(offset),
        source,
    })
}

fn read_exact_at<R: Read>(
    r: &mut R,
    buf: &mut [u8],
    offset: u64,
    what: &'static str,
) -> Result<()> {
    let got = read_full(r, buf, offset)?;
    if got < buf.len() {
        return Err(Error::UnexpectedEof {
            what,
            offset,
            expected: buf.len() as u64,
            got: got as u64,
        });
    }
    Ok(())
}

/// Reads exactly `len` bytes in bounded chunks, so a length claimed by a
/// short file never causes an allocation larger than what the file has.
fn read_up_to<R: Read>(r: &mut R, len: u64, offset: u64, what: &'static str) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut chunk = [0u8; 4096];
    while (out.len() as u64) < len {
        let want = (len - out.len() as u64).min(chunk.len() as u64) as usize;
        let got = read_full(r, &mut chunk[..want], offset + out.len() as u64)?;
        out.extend_from_slice(&chunk[..got]);
        if got < want {
            return Err(Error::UnexpectedEof {
                what,
                offset,
                expected: len,
                got: out.len() as u64,
            });
        }
    }
    Ok(out)
}

/// Latin-1 (1.0, 2.0) or UTF-8 (3.0) header text.
fn decode(bytes: &[u8], version: u8, start: u64) -> Result<String> {
    if version < 3 {
        return Ok(bytes.iter().map(|&b| char::from(b)).collect());
    }
    String::from_utf8(bytes.to_vec()).map_err(|e| Error::HeaderEncoding {
        offset: start + e.utf8_error().valid_up_to() as u64,
    })
}

/// The header dict: exactly the three keys, each value checked.
fn header_from_text(text: &str, python2: bool, to_offset: &dyn Fn(usize) -> u64) -> Result<Header> {
    let lit = literal::parse(text, python2).map_err(|e| Error::HeaderSyntax {
        offset: to_offset(e.pos),
        message: e.message,
    })?;
    let Value::Dict(entries) = &lit.value else {
        return Err(Error::NotADict {
            offset: to_offset(lit.pos),
            found: lit.value.repr(),
        });
    };
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    let mut keys = BTreeSet::new();
    for (k, v) in entries {
        keys.insert(k.value.repr());
        match &k.value {
            Value::Str(s) if s == "descr" => descr = Some(v),
            Value::Str(s) if s == "fortran_order" => fortran = Some(v),
            Value::Str(s) if s == "shape" => shape = Some(v),
            _ => {}
        }
    }
    let (Some(descr), Some(fortran), Some(shape), 3) = (descr, fortran, shape, keys.len()) else {
        return Err(Error::WrongKeys {
            offset: to_offset(lit.pos),
            found: keys.into_iter().collect(),
        });
    };
    let mut shape = read_shape(shape, to_offset)?;
    let fortran_order = match as_bool(fortran) {
        Some(b) => b,
        None => {
            return Err(Error::InvalidFortranOrder {
                offset: to_offset(fortran.pos),
                found: fortran.value.repr(),
            })
        }
    };
    let (mut datatype, byte_order) = DescrReader::new(to_offset).read(descr)?;
    if let Datatype::Array(a) = datatype {
        // NumPy appends a subarray dtype's shape to the array's shape.
        if fortran_order {
            return Err(Error::UnsupportedDescr {
                offset: to_offset(descr.pos),
                field: String::new(),
                descr: descr.value.repr(),
                reason: "a subarray descr with fortran_order True has no single element layout"
                    .into(),
            });
        }
        shape.extend(a.shape.iter().map(|&d| d as u64));
        datatype = *a.base;
    }
    let header = Header {
        datatype,
        byte_order,
        fortran_order,
        shape,
    };
    header.data_len()?;
    Ok(header)
}

fn as_bool(lit: &Lit) -> Option<bool> {
    match lit.value {
        Value::Bool(b) => Some(b),
        _ => None,
    }
}

/// A tuple of non-negative, non-bool integers.
fn read_shape(lit: &Lit, to_offset: &dyn Fn(usize) -> u64) -> Result<Vec<u64>> {
    let Value::Tuple(items) = &lit.value else {
        return Err(Error::InvalidShape {
            offset: to_offset(lit.pos),
            message: format!(
                "expected a tuple of integers, found {} {}",
                lit.value.type_name(),
                lit.value.repr()
            ),
        });
    };
    items
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let bad = |what: String| Error::InvalidShape {
                offset: to_offset(d.pos),
                message: format!("dimension {i} {what}"),
            };
            match &d.value {
                Value::Int(n) => u64::try_from(*n).map_err(|_| {
                    if *n < 0 {
                        bad(format!("is negative ({n})"))
                    } else {
                        bad(format!("{n} is larger than 2**64 - 1"))
                    }
                }),
                Value::BigInt(s) => Err(bad(format!("{s} is out of range"))),
                other => Err(bad(format!(
                    "is not an integer: {} {}",
                    other.type_name(),
                    other.repr()
                ))),
            }
        })
        .collect()
}

/// Magic, version and length field, the text, padding and `\n` (`_wrap_header`).
fn wrap_header(text: &str) -> Result<Vec<u8>> {
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
    let mut out = Vec::with_capacity((MAGIC.len() + 2 + len_field).saturating_add(total));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    match (version, u16::try_from(total), u32::try_from(total)) {
        (1, Ok(len), _) => out.extend_from_slice(&len.to_le_bytes()),
        (2 | 3, _, Ok(len)) => out.extend_from_slice(&len.to_le_bytes()),
        _ => {
            return Err(Error::NotWritable {
                field: String::new(),
                reason: format!(
                    "the header would be {total} bytes long; the .npy format allows at most 4 GiB"
                ),
            })
        }
    }
    out.extend_from_slice(&encoded);
    out.resize(out.len() + (total - encoded.len() - 1), b' ');
    out.push(b'\n');
    Ok(out)
}

/// HEADER_LEN for `text_len` bytes of text: text, 1..=64 spaces, `\n`.
fn padded_len(text_len: usize, len_field: usize) -> usize {
    let hlen = text_len + 1;
    let pad = ARRAY_ALIGN - ((MAGIC.len() + 2 + len_field + hlen) % ARRAY_ALIGN);
    hlen + pad
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Charset, Compound, FixedString, Member, Opaque};
    use proptest::prelude::*;

    fn scalar() -> impl Strategy<Value = Datatype> {
        prop_oneof![
            Just(Datatype::Bool),
            Just(Datatype::Int8),
            Just(Datatype::UInt8),
            Just(Datatype::Int16),
            Just(Datatype::UInt32),
            Just(Datatype::Int64),
            Just(Datatype::UInt64),
            Just(Datatype::Float16),
            Just(Datatype::Float32),
            Just(Datatype::Float64),
            Just(Datatype::Complex64),
            Just(Datatype::Complex128),
            (0usize..5).prop_map(|length| Datatype::FixedString(FixedString {
                length,
                charset: Charset::Ascii
            })),
            (1usize..5).prop_map(|length| Datatype::FixedString(FixedString {
                length,
                charset: Charset::Utf32
            })),
            (1usize..5).prop_map(|size| Datatype::Opaque(Opaque { size, tag: None })),
        ]
    }

    /// Names with quotes, backslashes, control, Latin-1 and wider characters.
    fn name() -> impl Strategy<Value = String> {
        "[a-z'\"\\\\\\n\\x00\\x7f\u{e9}\u{85}\u{2028}\u{6574}\u{1f600} ]{1,6}"
    }

    fn datatype() -> impl Strategy<Value = Datatype> {
        scalar().prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                (inner.clone(), prop::collection::vec(1usize..4, 1..3))
                    .prop_map(|(dt, shape)| dt.array_of(&shape)),
                prop::collection::vec((name(), inner, 0usize..4), 0..5).prop_map(compound),
            ]
        })
    }

    /// Members in order with the given gaps, names made unique, a trailing gap.
    fn compound(members: Vec<(String, Datatype, usize)>) -> Datatype {
        let mut out = Vec::new();
        let mut pos = 0;
        for (i, (name, dt, gap)) in members.into_iter().enumerate() {
            pos += gap;
            let size = dt.size().unwrap();
            out.push(Member::new(format!("{name}#{i}"), pos, dt));
            pos += size;
        }
        Datatype::Compound(Compound {
            size: pos + out.len() % 3,
            members: out,
        })
    }

    #[test]
    fn counts_grow_into_the_padding() {
        let h = Header::new(Datatype::UInt8, vec![9, 1]);
        let bytes = h.to_bytes().unwrap();
        let digits = count_digits(&bytes, 9).unwrap();
        assert_eq!(&bytes[digits.clone()], b"9");
        assert!(count_digits(&bytes, 8).is_none());
        let grown = with_count(&bytes, digits.clone(), u64::MAX).unwrap();
        assert_eq!(grown.len(), bytes.len());
        let (back, _) = Header::parse(&grown, &HeaderLimits::default()).unwrap();
        assert_eq!(back.shape, [u64::MAX, 1]);
        let mut same = h.clone();
        same.shape[0] = u64::MAX;
        assert_eq!(grown, same.to_bytes().unwrap());
        // And back down: spaces fill in again.
        let digits = count_digits(&grown, u64::MAX).unwrap();
        assert_eq!(with_count(&grown, digits, 9).unwrap(), bytes);
    }

    #[test]
    fn a_header_without_padding_has_no_room() {
        let file = |text: &str| {
            let mut f = MAGIC.to_vec();
            f.extend_from_slice(&[1, 0]);
            f.extend_from_slice(&(text.len() as u16).to_le_bytes());
            f.extend_from_slice(text.as_bytes());
            f
        };
        let f = file("{'descr': '<u2', 'fortran_order': False, 'shape': (9,), }\n");
        let digits = count_digits(&f, 9).unwrap();
        assert!(with_count(&f, digits.clone(), 10).is_none());
        let same = with_count(&f, digits, 5).unwrap();
        assert_eq!(
            Header::parse(&same, &HeaderLimits::default())
                .unwrap()
                .0
                .shape,
            [5]
        );
        // A count in another spelling is left alone.
        let hex = file("{'descr': '<u2', 'fortran_order': False, 'shape': (0x9,), }\n");
        assert!(count_digits(&hex, 9).is_none());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
            let _ = Header::parse(&bytes, &HeaderLimits::default());
            let _ = Header::split(&bytes, &HeaderLimits::default());
        }

        #[test]
        fn arbitrary_header_text_never_panics(
            version in 1u8..=3,
            text in "[{}()\\[\\],:'\"#\\\\ \\n0-9a-zA-Z_<>|+\\-.\u{e9}\u{6574}]{0,120}",
        ) {
            let mut f = MAGIC.to_vec();
            f.extend_from_slice(&[version, 0]);
            let len = text.len() as u32;
            if version == 1 {
                f.extend_from_slice(&(len as u16).to_le_bytes());
            } else {
                f.extend_from_slice(&len.to_le_bytes());
            }
            f.extend_from_slice(text.as_bytes());
            let _ = Header::parse(&f, &HeaderLimits::default());
        }

        #[test]
        fn mutated_headers_never_panic(
            dt in datatype(),
            edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        ) {
            let mut f = Header::new(dt, vec![2]).to_bytes().unwrap();
            for (i, b) in edits {
                let i = i.index(f.len());
                f[i] = b;
            }
            let _ = Header::parse(&f, &HeaderLimits { max_header_size: usize::MAX });
        }

        #[test]
        fn compounds_round_trip(
            dt in datatype(),
            big in any::<bool>(),
            fortran_order in any::<bool>(),
            shape in prop::collection::vec(0u64..1000, 0..3),
        ) {
            let dt = match dt {
                Datatype::Compound(c) => Datatype::Compound(c),
                other => compound(vec![("x".into(), other, 1)]),
            };
            let h = Header {
                datatype: dt,
                byte_order: if big { ByteOrder::Big } else { ByteOrder::Little },
                fortran_order,
                shape,
            };
            let bytes = h.to_bytes().unwrap();
            prop_assert_eq!(bytes.len() % 64, 0);
            let (back, offset) = Header::parse(&bytes, &HeaderLimits { max_header_size: usize::MAX }).unwrap();
            prop_assert_eq!(offset, bytes.len());
            prop_assert_eq!(&back.datatype, &h.datatype);
            prop_assert_eq!(&back.shape, &h.shape);
            prop_assert_eq!(back.fortran_order, h.fortran_order);
            prop_assert_eq!(back.to_bytes().unwrap(), bytes);
        }
    }
}

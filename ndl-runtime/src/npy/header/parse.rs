//! Reading a header as NumPy's `read_magic` and `_read_array_header` do:
//! bounded reads, the text decoded, the dict checked key by key.

use crate::Order;
use std::collections::BTreeSet;
use std::io::Read;

use super::{Header, HeaderLimits, MAGIC};
use crate::Datatype;
use crate::npy::descr::{Descr, DescrReader};
use crate::npy::io;
use crate::npy::literal::{self, Lit, Value};
use crate::npy::{Error, Result};

impl Header {
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
pub(super) fn decode(bytes: &[u8], version: u8, start: u64) -> Result<String> {
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
            });
        }
    };
    let Descr {
        mut datatype,
        byte_order,
        mut other_order,
    } = DescrReader::new(to_offset).read(descr)?;
    while let Datatype::Array(a) = datatype {
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
    // The orders of a folded array's first element are every element's.
    let element = datatype.size().unwrap_or(0);
    other_order.retain(|r| r.start < element);
    for r in &mut other_order {
        r.end = r.end.min(element);
    }
    let header = Header {
        datatype,
        byte_order,
        other_order,
        order: Order::from_fortran(fortran_order),
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

//! The header of a netCDF-3 file (CDF-1 classic, CDF-2 64-bit offset,
//! CDF-5 64-bit data), as netCDF-C's file format specification lays it
//! out: dimensions, global attributes, variables with their attributes,
//! types and offsets. Plain data, read with every count and length
//! checked against the file's length before anything is allocated.

use std::io::Read;

use ndl_runtime::{Charset, Datatype, FixedString};

/// The first bytes of each version: `CDF` and the version byte.
pub(crate) const SIGNATURES: [&[u8; 4]; 3] = [b"CDF\x01", b"CDF\x02", b"CDF\x05"];

/// The three versions of the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Version {
    /// CDF-1: 32-bit counts and offsets.
    Classic,
    /// CDF-2: 32-bit counts, 64-bit offsets.
    Offset64,
    /// CDF-5: 64-bit counts and offsets, unsigned and 64-bit types.
    Data64,
}

impl Version {
    /// The bytes of a count (`NON_NEG`).
    fn count_bytes(self) -> u64 {
        if self == Version::Data64 { 8 } else { 4 }
    }

    /// The bytes of a variable's offset (`begin`).
    fn offset_bytes(self) -> u64 {
        if self == Version::Classic { 4 } else { 8 }
    }
}

/// The external types of netCDF-3 (the last five in CDF-5 only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NcType {
    Byte,
    Char,
    Short,
    Int,
    Float,
    Double,
    UByte,
    UShort,
    UInt,
    Int64,
    UInt64,
}

impl NcType {
    /// The type of `code` in a file of `version`.
    fn of(code: u32, version: Version) -> Option<NcType> {
        use NcType::*;
        let t = match code {
            1 => Byte,
            2 => Char,
            3 => Short,
            4 => Int,
            5 => Float,
            6 => Double,
            7 => UByte,
            8 => UShort,
            9 => UInt,
            10 => Int64,
            11 => UInt64,
            _ => return None,
        };
        (code <= 6 || version == Version::Data64).then_some(t)
    }

    /// The bytes of one value.
    pub(crate) fn size(self) -> usize {
        use NcType::*;
        match self {
            Byte | Char | UByte => 1,
            Short | UShort => 2,
            Int | UInt | Float => 4,
            Double | Int64 | UInt64 => 8,
        }
    }

    /// One value as our datatype: a `char` is one ASCII byte, as the
    /// netCDF-4 path reads it.
    pub(crate) fn datatype(self) -> Datatype {
        use NcType::*;
        match self {
            Byte => Datatype::Int8,
            Char => Datatype::FixedString(FixedString {
                length: 1,
                charset: Charset::Ascii,
            }),
            Short => Datatype::Int16,
            Int => Datatype::Int32,
            Float => Datatype::Float32,
            Double => Datatype::Float64,
            UByte => Datatype::UInt8,
            UShort => Datatype::UInt16,
            UInt => Datatype::UInt32,
            Int64 => Datatype::Int64,
            UInt64 => Datatype::UInt64,
        }
    }
}

/// A dimension; the unlimited one's length is the number of records.
#[derive(Clone, Debug)]
pub(crate) struct Dimension {
    pub(crate) name: String,
    pub(crate) length: u64,
    pub(crate) unlimited: bool,
}

/// An attribute: its type and its values as stored (big-endian).
#[derive(Clone, Debug)]
pub(crate) struct Attribute {
    pub(crate) name: String,
    pub(crate) kind: NcType,
    pub(crate) values: Vec<u8>,
}

/// A variable as the header declares it.
#[derive(Clone, Debug)]
pub(crate) struct Variable {
    pub(crate) name: String,
    /// Indices into the header's dimensions.
    pub(crate) dimensions: Vec<usize>,
    pub(crate) attributes: Vec<Attribute>,
    pub(crate) kind: NcType,
    /// Where its data (its first record's, for a record variable) starts.
    pub(crate) begin: u64,
}

/// A whole header.
#[derive(Clone, Debug)]
pub(crate) struct Header {
    pub(crate) dimensions: Vec<Dimension>,
    pub(crate) attributes: Vec<Attribute>,
    pub(crate) variables: Vec<Variable>,
}

/// What is wrong with a header, and at which byte.
#[derive(Debug)]
pub(crate) struct HeaderError {
    pub(crate) at: u64,
    pub(crate) message: String,
}

impl std::fmt::Display for HeaderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "header byte {}: {}", self.at, self.message)
    }
}

const NC_DIMENSION: u32 = 0x0A;
const NC_VARIABLE: u32 = 0x0B;
const NC_ATTRIBUTE: u32 = 0x0C;
/// `numrecs` of a file still being written by a streaming writer.
const STREAMING: u64 = 0xFFFF_FFFF;

/// Reads the header from `reader`, the start of a file of `len` bytes.
pub(crate) fn read(reader: impl Read, len: u64) -> Result<Header, HeaderError> {
    let mut c = Cursor {
        reader,
        at: 0,
        len,
        version: Version::Classic,
    };
    let magic = c.bytes(4, "the signature")?;
    c.version = match magic.as_slice() {
        b"CDF\x01" => Version::Classic,
        b"CDF\x02" => Version::Offset64,
        b"CDF\x05" => Version::Data64,
        other => return Err(c.error(format!("not a netCDF-3 signature: {other:?}"))),
    };
    let numrecs = c.count("the number of records")?;
    let streaming = numrecs == STREAMING || numrecs == u64::MAX;
    if streaming {
        return Err(
            c.error("the number of records is indeterminate (a file still being written)".into())
        );
    }
    let mut dimensions = c.list(NC_DIMENSION, "dimension", |c| {
        let name = c.name()?;
        let length = c.count("a dimension's length")?;
        Ok(Dimension {
            name,
            length,
            unlimited: length == 0,
        })
    })?;
    let unlimited: Vec<&mut Dimension> = dimensions.iter_mut().filter(|d| d.unlimited).collect();
    match unlimited.len() {
        0 => {}
        1 => unlimited.into_iter().for_each(|d| d.length = numrecs),
        _ => return Err(c.error("more than one unlimited dimension".into())),
    }
    let attributes = c.attributes()?;
    let variables = c.list(NC_VARIABLE, "variable", |c| c.variable(dimensions.len()))?;
    Ok(Header {
        dimensions,
        attributes,
        variables,
    })
}

/// The header's bytes, read in order; nothing is allocated beyond what
/// the file still holds.
struct Cursor<R> {
    reader: R,
    at: u64,
    len: u64,
    version: Version,
}

impl<R: Read> Cursor<R> {
    fn error(&self, message: String) -> HeaderError {
        HeaderError {
            at: self.at,
            message,
        }
    }

    /// The next `n` bytes, which must be in the file.
    fn bytes(&mut self, n: u64, what: &str) -> Result<Vec<u8>, HeaderError> {
        if n > self.len.saturating_sub(self.at) {
            return Err(self.error(format!(
                "{what} ({n} bytes) runs past the end of the file ({} bytes)",
                self.len
            )));
        }
        let mut buf = vec![0; n as usize];
        self.reader
            .read_exact(&mut buf)
            .map_err(|e| self.error(format!("reading {what}: {e}")))?;
        self.at += n;
        Ok(buf)
    }

    /// A big-endian unsigned number of `n` (4 or 8) bytes.
    fn number(&mut self, n: u64, what: &str) -> Result<u64, HeaderError> {
        let b = self.bytes(n, what)?;
        Ok(b.iter().fold(0u64, |v, &byte| (v << 8) | u64::from(byte)))
    }

    /// A `NON_NEG` count: 32 bits (64 in CDF-5), not negative, except
    /// the streaming `numrecs`, which is all ones.
    fn count(&mut self, what: &str) -> Result<u64, HeaderError> {
        let bytes = self.version.count_bytes();
        let v = self.number(bytes, what)?;
        let negative = if bytes == 4 {
            v > i32::MAX as u64 && v != STREAMING
        } else {
            v > i64::MAX as u64 && v != u64::MAX
        };
        if negative {
            return Err(self.error(format!("{what} is negative")));
        }
        Ok(v)
    }

    /// A 32-bit tag or type code.
    fn tag(&mut self, what: &str) -> Result<u32, HeaderError> {
        Ok(self.number(4, what)? as u32)
    }

    /// `n` bytes of padding up to a multiple of 4.
    fn padding(&mut self, n: u64) -> Result<(), HeaderError> {
        let pad = (4 - n % 4) % 4;
        self.bytes(pad, "padding")?;
        Ok(())
    }

    /// A name: its length, its UTF-8 bytes, padding.
    fn name(&mut self) -> Result<String, HeaderError> {
        let n = self.count("a name's length")?;
        if n == 0 {
            return Err(self.error("an empty name".into()));
        }
        let bytes = self.bytes(n, "a name")?;
        let name =
            String::from_utf8(bytes).map_err(|_| self.error("a name that is not UTF-8".into()))?;
        self.padding(n)?;
        Ok(name)
    }

    /// `ABSENT`, or `tag`, a count and that many items read by `item`.
    fn list<T>(
        &mut self,
        tag: u32,
        what: &str,
        mut item: impl FnMut(&mut Self) -> Result<T, HeaderError>,
    ) -> Result<Vec<T>, HeaderError> {
        let found = self.tag(&format!("the {what} list's tag"))?;
        let n = self.count(&format!("the number of {what}s"))?;
        if found == 0 && n == 0 {
            return Ok(Vec::new());
        }
        if found != tag {
            return Err(self.error(format!("the {what} list has tag {found:#x}, not {tag:#x}")));
        }
        // Items are pushed as read, so the list grows with the bytes
        // actually there, not with the count the file claims.
        let mut items = Vec::new();
        for _ in 0..n {
            items.push(item(self)?);
        }
        Ok(items)
    }

    fn attributes(&mut self) -> Result<Vec<Attribute>, HeaderError> {
        self.list(NC_ATTRIBUTE, "attribute", |c| {
            let name = c.name()?;
            let kind = c.nc_type()?;
            let n = c.count("an attribute's length")?;
            let bytes = n
                .checked_mul(kind.size() as u64)
                .ok_or_else(|| c.error(format!("attribute `{name}` is too long")))?;
            let values = c.bytes(bytes, &format!("the values of attribute `{name}`"))?;
            c.padding(bytes)?;
            Ok(Attribute { name, kind, values })
        })
    }

    fn nc_type(&mut self) -> Result<NcType, HeaderError> {
        let code = self.tag("a type")?;
        NcType::of(code, self.version).ok_or_else(|| {
            self.error(format!(
                "type code {code} is no netCDF-3 type of this version"
            ))
        })
    }

    fn variable(&mut self, dimensions: usize) -> Result<Variable, HeaderError> {
        let name = self.name()?;
        let rank = self.count("a variable's rank")?;
        let mut ids = Vec::new();
        for _ in 0..rank {
            let id = self.count("a dimension id")?;
            if id >= dimensions as u64 {
                return Err(self.error(format!(
                    "variable `{name}` names dimension {id}; there are {dimensions}"
                )));
            }
            ids.push(id as usize);
        }
        let attributes = self.attributes()?;
        let kind = self.nc_type()?;
        // The stored size per record is recomputed from the dimensions:
        // the file's may be capped for variables of 4 GiB or more.
        let _vsize = self.count("a variable's size")?;
        let begin = self.number(self.version.offset_bytes(), "a variable's offset")?;
        Ok(Variable {
            name,
            dimensions: ids,
            attributes,
            kind,
            begin,
        })
    }
}

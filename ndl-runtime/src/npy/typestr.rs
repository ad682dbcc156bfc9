//! NumPy type strings (`'<u4'`, `'|b1'`, `'<U10'`) of the scalar datatypes.

use crate::{ByteOrder, Charset, Datatype, FixedString, IntType, Opaque};

/// NumPy's type string of a scalar (non-compound, non-array) datatype, as
/// `dtype.str` prints it: `|` for types without byte order. `None` for
/// datatypes NumPy has no fixed-size scalar for (compound, array, string,
/// vlen, references) and for enums, which NumPy stores as their base.
pub fn scalar_typestr(dt: &Datatype, order: ByteOrder) -> Option<String> {
    let o = order.numpy_char();
    Some(match dt {
        Datatype::Bool => "|b1".into(),
        Datatype::Int8 => "|i1".into(),
        Datatype::UInt8 => "|u1".into(),
        Datatype::Int16 => format!("{o}i2"),
        Datatype::UInt16 => format!("{o}u2"),
        Datatype::Int32 => format!("{o}i4"),
        Datatype::UInt32 => format!("{o}u4"),
        Datatype::Int64 => format!("{o}i8"),
        Datatype::UInt64 => format!("{o}u8"),
        Datatype::Float16 => format!("{o}f2"),
        Datatype::Float32 => format!("{o}f4"),
        Datatype::Float64 => format!("{o}f8"),
        Datatype::Complex64 => format!("{o}c8"),
        Datatype::Complex128 => format!("{o}c16"),
        Datatype::FixedString(FixedString {
            length,
            charset: Charset::Ascii,
        }) => format!("|S{length}"),
        Datatype::FixedString(FixedString {
            length,
            charset: Charset::Utf32,
        }) => format!("{o}U{length}"),
        Datatype::Opaque(Opaque { size, .. }) => format!("|V{size}"),
        Datatype::Time(t) => format!("{o}{t}"),
        Datatype::Enum(e) => return scalar_typestr(&Datatype::from(e.base), order),
        _ => return None,
    })
}

/// Parses a canonical NumPy scalar type string: an optional byte-order
/// character (`<`, `>`, `|`, `=`), a kind among `b i u f c S U V` and a size
/// (`?` alone for bool), or a time type (`M8[ns]`, `m8[10ms]`). Returns the datatype and the byte order the string
/// states (`None` for `|`, `=` or none, which mean native or not applicable).
pub fn parse_scalar_typestr(s: &str) -> Option<(Datatype, Option<ByteOrder>)> {
    if s == "?" {
        return Some((Datatype::Bool, None));
    }
    let (order, rest) = match s.chars().next()? {
        '<' => (Some(ByteOrder::Little), &s[1..]),
        '>' => (Some(ByteOrder::Big), &s[1..]),
        '|' | '=' => (None, &s[1..]),
        _ => (None, s),
    };
    if rest.starts_with("M8") || rest.starts_with("m8") {
        return Some((Datatype::Time(rest.parse().ok()?), order));
    }
    let kind = rest.chars().next()?;
    let digits = &rest[kind.len_utf8()..];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: usize = digits.parse().ok()?;
    let int = |t: IntType| Some(Datatype::from(t));
    let dt = match (kind, n) {
        ('b', 1) => Some(Datatype::Bool),
        ('i', 1) => int(IntType::Int8),
        ('i', 2) => int(IntType::Int16),
        ('i', 4) => int(IntType::Int32),
        ('i', 8) => int(IntType::Int64),
        ('u', 1) => int(IntType::UInt8),
        ('u', 2) => int(IntType::UInt16),
        ('u', 4) => int(IntType::UInt32),
        ('u', 8) => int(IntType::UInt64),
        ('f', 2) => Some(Datatype::Float16),
        ('f', 4) => Some(Datatype::Float32),
        ('f', 8) => Some(Datatype::Float64),
        ('c', 8) => Some(Datatype::Complex64),
        ('c', 16) => Some(Datatype::Complex128),
        ('S', n) => Some(Datatype::FixedString(FixedString {
            length: n,
            charset: Charset::Ascii,
        })),
        ('U', n) => Some(Datatype::FixedString(FixedString {
            length: n,
            charset: Charset::Utf32,
        })),
        ('V', n) => Some(Datatype::Opaque(Opaque { size: n, tag: None })),
        _ => None,
    }?;
    Some((dt, order))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typestrs_round_trip() {
        for s in [
            "|b1",
            "|i1",
            "<i2",
            ">u8",
            "<f2",
            ">c16",
            "|S10",
            "<U3",
            "|V8",
            "<f8",
            "<M8[ns]",
            ">m8[s]",
            "<M8[D]",
            "<M8[10ms]",
            ">M8[2147483647as]",
        ] {
            let (dt, order) = parse_scalar_typestr(s).unwrap();
            let order = order.unwrap_or(ByteOrder::Little);
            assert_eq!(scalar_typestr(&dt, order).unwrap(), s);
        }
        for bad in [
            "<f3",
            "x",
            "i0",
            "<i16",
            "f8[ns]",
            "",
            "<",
            "O",
            "|O8",
            "<M8[fortnight]",
            "<M8[0s]",
            "<M8",
            "<M16[s]",
            "ñf4",
            "<ñ4",
            "é",
        ] {
            assert_eq!(parse_scalar_typestr(bad), None, "{bad}");
        }
    }
}

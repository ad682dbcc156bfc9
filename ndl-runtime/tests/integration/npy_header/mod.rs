//! Headers and header files built by hand, for the `npy_header_*` tests:
//! datatypes in a few letters, headers of either byte order, and the bytes
//! of a `.npy` file whose header is a given text.
#![allow(dead_code)]

use ndl_runtime::Order;
use ndl_runtime::npy::{ByteOrder, Error, Header, HeaderLimits};
use ndl_runtime::{Array, Charset, Compound, Datatype, FixedString, Member, Opaque};

pub fn little(datatype: Datatype, shape: &[u64]) -> Header {
    Header {
        datatype,
        byte_order: ByteOrder::Little,
        other_order: Vec::new(),
        order: Order::C,
        shape: shape.to_vec(),
    }
}

pub fn big(datatype: Datatype, shape: &[u64]) -> Header {
    Header {
        byte_order: ByteOrder::Big,
        ..little(datatype, shape)
    }
}

pub fn fortran(mut h: Header) -> Header {
    h.order = Order::Fortran;
    h
}

pub fn c(members: &[(&str, Datatype)]) -> Datatype {
    Datatype::Compound(Compound::c_layout(members.iter().cloned()).unwrap())
}

/// An array of `base`, kept apart from an array `base` (no folding).
pub fn nested(base: Datatype, shape: &[usize]) -> Datatype {
    Datatype::Array(Array {
        base: Box::new(base),
        shape: shape.to_vec(),
    })
}

pub fn at(size: usize, members: &[(&str, usize, Datatype)]) -> Datatype {
    Datatype::Compound(Compound {
        size,
        members: members
            .iter()
            .map(|(n, o, d)| Member::new(*n, *o, d.clone()))
            .collect(),
    })
}

/// `c_layout` of `names` all of one datatype.
pub fn same(names: impl IntoIterator<Item = String>, dt: Datatype) -> Datatype {
    Datatype::Compound(Compound::c_layout(names.into_iter().map(|n| (n, dt.clone()))).unwrap())
}

pub fn s(n: usize) -> Datatype {
    Datatype::FixedString(FixedString {
        length: n,
        charset: Charset::Ascii,
    })
}

pub fn u(n: usize) -> Datatype {
    Datatype::FixedString(FixedString {
        length: n,
        charset: Charset::Utf32,
    })
}

pub fn v(n: usize) -> Datatype {
    Datatype::Opaque(Opaque { size: n, tag: None })
}

// ---- header files ---------------------------------------------------------

/// A 1.0 file with header `text` (Latin-1), no data.
pub fn v1(text: &str) -> Vec<u8> {
    ndl_testkit::npy_file(1, &text.chars().map(|c| c as u8).collect::<Vec<_>>())
}

/// The header of `bytes`, under the default limits.
pub fn parse(bytes: &[u8]) -> Result<Header, Error> {
    Header::parse(bytes, &HeaderLimits::default()).map(|(h, _)| h)
}

/// The error `bytes` are refused with, and its message.
pub fn fails(bytes: &[u8]) -> (Error, String) {
    let e = parse(bytes).expect_err(&String::from_utf8_lossy(bytes));
    let msg = e.to_string();
    (e, msg)
}

/// The header of a `(2,)` float64 array.
pub const GOOD: &str = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }";

/// A 1.0 file of a `(2,)` array of `d`.
pub fn with_descr(d: &str) -> Vec<u8> {
    v1(&format!(
        "{{'descr': {d}, 'fortran_order': False, 'shape': (2,)}}"
    ))
}

/// A 1.0 header of exactly `len` characters (padding and `\n` included).
pub fn sized(len: usize) -> Vec<u8> {
    let mut text = GOOD.to_string();
    text.push_str(&" ".repeat(len - GOOD.len() - 1));
    text.push('\n');
    v1(&text)
}

//! Support for the code `#[derive(NdlType)]` generates. Not public API.

pub use crate::ndl_type::EnumBase;
use crate::{Charset, Compound, Datatype, FixedString, Member, Opaque};
pub use core::mem::{offset_of, size_of};
pub use core::option::Option;
pub use std::string::String;
pub use std::vec::Vec;

/// Field storage that `#[ndl(string)]` accepts: `[u8; N]` (NumPy `S<N>`)
/// or `[u32; N]` (UTF-32, NumPy `U<N>`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold an `#[ndl(string)]` field",
    label = "not `[u8; N]` or `[u32; N]`",
    note = "`#[ndl(string)]` takes `[u8; N]` (NumPy `S<N>`) or `[u32; N]` (UTF-32, NumPy `U<N>`)"
)]
pub trait StringStorage: sealed::Sealed {
    /// The datatype of the field as a fixed-length string.
    const DATATYPE: FixedString;
}

impl<const N: usize> StringStorage for [u8; N] {
    const DATATYPE: FixedString = FixedString {
        length: N,
        charset: Charset::Ascii,
    };
}

impl<const N: usize> StringStorage for [u32; N] {
    const DATATYPE: FixedString = FixedString {
        length: N,
        charset: Charset::Utf32,
    };
}

/// Field storage that `#[ndl(opaque)]` accepts: `[u8; N]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold an `#[ndl(opaque)]` field",
    label = "not `[u8; N]`",
    note = "`#[ndl(opaque)]` takes `[u8; N]`"
)]
pub trait OpaqueStorage: sealed::Sealed {
    /// The size in bytes.
    const SIZE: usize;
}

impl<const N: usize> OpaqueStorage for [u8; N] {
    const SIZE: usize = N;
}

/// The fixed-string datatype of a field's storage type.
pub fn fixed_string<T: StringStorage>() -> Datatype {
    Datatype::FixedString(T::DATATYPE)
}

/// The opaque datatype of a field's storage type.
pub fn opaque<T: OpaqueStorage>(tag: Option<&str>) -> Datatype {
    Datatype::Opaque(Opaque {
        size: T::SIZE,
        tag: tag.map(String::from),
    })
}

/// A compound member.
pub fn member(
    name: &str,
    offset: usize,
    datatype: Datatype,
    description: Option<&str>,
    units: Option<&str>,
    dims: &[&str],
) -> Member {
    Member {
        name: name.into(),
        offset,
        datatype,
        description: description.map(String::from),
        units: units.map(String::from),
        dims: dims.iter().map(|d| String::from(*d)).collect(),
    }
}

/// A compound datatype of `size` bytes.
pub fn compound(size: usize, members: Vec<Member>) -> Datatype {
    Datatype::Compound(Compound { size, members })
}

/// An enum datatype.
pub fn enumeration<B: EnumBase>(members: &[(&str, B)]) -> Datatype {
    crate::ndl_type::enum_datatype(members)
}

/// Fails to compile unless `T` implements `NdlType`; names the field in errors.
pub const fn assert_ndl_type<T: crate::NdlType>() {}

/// Only this crate implements the storage traits: a field described by one
/// of them is read back as its own type, so any bytes must be valid for it.
mod sealed {
    pub trait Sealed {}
    impl<const N: usize> Sealed for [u8; N] {}
    impl<const N: usize> Sealed for [u32; N] {}
}

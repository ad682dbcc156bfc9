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

/// Fails to compile unless `T` implements `Record`; names the field in errors.
pub const fn assert_record<T: crate::Record>() {}

/// Only this crate implements the storage traits: a field described by one
/// of them is read back as its own type, so any bytes must be valid for it.
mod sealed {
    pub trait Sealed {}
    impl<const N: usize> Sealed for [u8; N] {}
    impl<const N: usize> Sealed for [u32; N] {}
}

pub use crate::record::impls::{plain_reader, repr_reader};
pub use core::marker::PhantomData;
pub use core::result::Result;

use crate::record::{ColumnView, OptionColumns, Record, RecordError};

/// A `#[derive(Record)]` struct's compound: variable (no layout) if a
/// member is, else laid out as `#[repr(C)]` would lay out the members in
/// declared order, which is how a format storing the records whole packs
/// them.
pub fn record_compound(members: Vec<Member>) -> Datatype {
    let compound = if members.iter().any(|m| m.datatype.size().is_none()) {
        Compound::variable(members)
    } else {
        c_layout_members(members)
    };
    // The derive checked the names, and each member's datatype comes from
    // its type's own `Record` impl.
    Datatype::Compound(compound.expect("a derived record's members are valid"))
}

/// [`Compound::c_layout`], keeping each member's description, units and
/// dimension names.
fn c_layout_members(members: Vec<Member>) -> Result<Compound, crate::DatatypeError> {
    let laid = Compound::c_layout(members.iter().map(|m| (m.name.clone(), m.datatype.clone())))?;
    Ok(Compound {
        size: laid.size,
        members: laid
            .members
            .into_iter()
            .zip(members)
            .map(|(l, m)| Member {
                offset: l.offset,
                ..m
            })
            .collect(),
    })
}

/// A value convertible to an `Option` field's fill: the type itself, or
/// `&str` for a string field (`#[ndl(fill = "")]`).
pub trait FillFrom<F> {
    /// The fill.
    fn fill_from(fill: F) -> Self;
}

impl<T> FillFrom<T> for T {
    fn fill_from(fill: T) -> T {
        fill
    }
}

impl FillFrom<&str> for String {
    fn fill_from(fill: &str) -> String {
        fill.into()
    }
}

impl FillFrom<&str> for Box<str> {
    fn fill_from(fill: &str) -> Box<str> {
        fill.into()
    }
}

/// The columns of an `Option<T>` field with `#[ndl(fill = ...)]`.
pub fn option_with_fill<T: Record + FillFrom<F>, F>(records: usize, fill: F) -> OptionColumns<T> {
    OptionColumns::with_fill(records, T::fill_from(fill))
}

/// The named columns of a struct column.
pub type Fields<'b, 'a> = &'b [(&'a str, ColumnView<'a>)];

/// The records and fields of a struct column.
pub fn struct_fields<'b, 'a>(
    column: &'b ColumnView<'a>,
) -> Result<(usize, Fields<'b, 'a>), RecordError> {
    match crate::record::impls::required(column)? {
        ColumnView::Struct { len, fields } => Ok((*len, fields)),
        other => Err(crate::record::impls::wrong_kind("structs", other)),
    }
}

/// The column of the field `name`, in any position.
pub fn field<'b, 'a>(
    fields: &'b [(&'a str, ColumnView<'a>)],
    name: &str,
) -> Result<&'b ColumnView<'a>, RecordError> {
    fields
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, c)| c)
        .ok_or_else(|| {
            let names: Vec<&str> = fields.iter().map(|(n, _)| *n).collect();
            RecordError::new(format!(
                "no column of this name; the columns are: {}",
                names.join(", ")
            ))
        })
}

/// Checks that a field's column has as many records as its struct.
pub fn same_len(len: usize, expected: usize, name: &str) -> Result<(), RecordError> {
    if len == expected {
        return Ok(());
    }
    Err(RecordError::new(format!(
        "the column has {len} records, but its struct has {expected}"
    ))
    .in_field(name))
}

/// The error of a record index past the end.
pub fn past_end(index: usize, len: usize) -> RecordError {
    crate::record::impls::past_end(index, len)
}

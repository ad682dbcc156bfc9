//! Exact, portable descriptions of Rust record types, and typed records in
//! and out of NumPy `.npy`/`.npz` files.
//!
//! `#[derive(NdlType)]` on a `#[repr(C)]` struct or an integer-`repr` enum
//! gives the type's exact layout as a [`Datatype`]: every member's name,
//! datatype and byte offset, the record size, an enum's base and values.
//!
//! ```
//! use ndl_runtime::{Datatype, NdlType};
//!
//! #[derive(Clone, Copy, NdlType)]
//! #[repr(C)]
//! struct Reading {
//!     id: u32,
//!     t: f64,
//! }
//!
//! let Datatype::Compound(c) = Reading::datatype() else { unreachable!() };
//! assert_eq!(c.size, 16);
//! assert_eq!(c.members[1].name, "t");
//! assert_eq!(c.members[1].offset, 8);
//! ```

#![deny(missing_docs)]

// `columns`, `field_map`, `records`, `schema` and `staging` are the format
// crates' shared plumbing, public for them and hidden from users, as
// serde's `__private` is.

extern crate self as ndl_runtime;

mod array_spec;
mod byte_order;
mod byte_shuffle;
pub mod codec;
#[doc(hidden)]
pub mod columns;
mod datatype;
#[doc(hidden)]
pub mod field_map;
mod fixed_str;
pub mod lang;
mod mixed_order;
#[cfg(feature = "ndarray")]
pub mod ndarray_ext;
pub mod ndl;
mod ndl_type;
pub mod npy;
pub mod npz;
mod order;
pub mod record;
mod record_plan;
#[doc(hidden)]
pub mod records;
#[doc(hidden)]
pub mod schema;
#[doc(hidden)]
pub mod staging;
pub mod time;
pub mod utf32;

pub use array_spec::ArraySpec;
pub use byte_order::ByteOrder;
pub use datatype::{
    Array, Charset, Compound, Datatype, DatatypeError, Enum, EnumMember, FixedString, IntType,
    Member, NamedType, Opaque, Selection, TimeType,
};
pub use fixed_str::{FixedStr, TooLong};
pub use mixed_order::MixedOrder;
pub use ndl_type::NdlType;
pub use order::Order;
pub use record::Record;

/// Derives [`NdlType`] for a `#[repr(C)]` struct or a fieldless enum with an
/// integer `repr`. The attributes it takes are in
/// [ndl-derive's documentation](https://docs.rs/ndl-derive).
#[cfg(feature = "derive")]
pub use ndl_derive::NdlType;

/// Derives [`Record`] for a struct with named fields, each a `Record`
/// (`String`, `Vec`, `Option` and every `NdlType` included). The
/// attributes it takes are in [ndl-derive's documentation](https://docs.rs/ndl-derive).
#[cfg(feature = "derive")]
pub use ndl_derive::Record;

#[doc(hidden)]
pub mod __private;

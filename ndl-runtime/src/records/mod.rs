//! Records packed without padding, for formats that store fields back to
//! back (the Zarr `struct` data type, Zarr v2 structured dtypes).
//!
//! A [`Packer`] copies the field bytes of `T` records into packed records
//! and back. Padding in memory is never read: packing copies fields only.
//! Unpacking writes into a [`RecordBuf`], which hands out disjoint
//! [`RecordsMut`] parts (one per chunk, so chunks can be unpacked on many
//! threads) and becomes a `Vec<T>` only once every record has been checked
//! against `T`'s datatype.
//!
//! ```
//! use ndl_runtime::records::{Packer, RecordBuf};
//! use ndl_runtime::NdlType;
//!
//! #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
//! #[repr(C)]
//! struct Reading {
//!     ok: bool, // 7 bytes of padding follow in memory
//!     t: f64,
//! }
//!
//! let packer = Packer::<Reading>::new()?;
//! assert_eq!(packer.layout().size(), 9);
//! let data = [Reading { ok: true, t: 1.5 }, Reading { ok: false, t: -2.0 }];
//! let mut packed = vec![0; 2 * 9];
//! packer.pack(&data, &mut packed);
//! assert_eq!(packed[0], 1);
//! assert_eq!(&packed[1..9], &1.5f64.to_ne_bytes());
//!
//! let mut buf = RecordBuf::<Reading>::zeroed(2)?;
//! for mut part in buf.parts_mut(2) {
//!     packer.unpack(&packed, &mut part)?;
//! }
//! assert_eq!(buf.into_vec().unwrap(), data);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod field_copy;
mod memory;
mod packed;
mod packer;
mod record_buf;
mod repacker;
#[cfg(test)]
mod tests;

pub(crate) use field_copy::{Direction, FieldCopy, copy_fields};
pub use field_copy::{gather, scatter};
pub use memory::advise_huge_pages;
pub(crate) use memory::{assume_init, record_bytes};
pub use packed::{InvalidValue, PackError, PackedLayout};
pub use packer::Packer;
pub use record_buf::{RecordBuf, RecordsMut};
pub use repacker::Repacker;

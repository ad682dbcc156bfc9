//! Typed records to and from NumPy `.npy` files.

mod typestr;

pub use typestr::{parse_scalar_typestr, scalar_typestr, ByteOrder};

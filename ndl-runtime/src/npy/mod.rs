//! Typed records to and from NumPy `.npy` files.

mod descr;
mod error;
mod header;
mod layout;
mod literal;
mod typestr;

pub use error::{Error, Result};
pub use header::{Header, HeaderLimits, DEFAULT_MAX_HEADER_SIZE, MAGIC};
pub use typestr::{parse_scalar_typestr, scalar_typestr, ByteOrder};

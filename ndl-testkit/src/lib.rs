//! What the workspace's tests share, so that each crate can test itself
//! without a copy of another's helpers: the real Python peers
//! ([`python`](mod@python)), a moto S3 server ([`moto`]), the netCDF
//! tools that check CDL ([`netcdf`]), the record types of the
//! `.npy`/`.npz` tests ([`records`]) and a test binary re-run as a child
//! process ([`child`]).

pub mod child;
pub mod h5py_files;
pub mod moto;
pub mod netcdf;
pub mod python;
pub mod records;

pub use python::*;

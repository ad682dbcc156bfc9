//! The root tests' helpers: the workspace's shared ones, the `ndl`
//! command's own, and the records, stores and Python checks of its Zarr
//! tests.
#![allow(dead_code, unused_imports)]

pub mod cli;
pub mod numpy_kinds;
pub mod records;
pub mod stores;
pub mod zarr_python;

pub use ndl_testkit::moto;
pub use ndl_testkit::python::*;

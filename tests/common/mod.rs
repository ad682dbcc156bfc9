//! The root tests' helpers: the workspace's shared ones, and the `ndl`
//! command's own.
#![allow(dead_code, unused_imports)]

pub mod cli;

pub use ndl_testkit::moto;
pub use ndl_testkit::python::*;

//! The record types of the `.npy`/`.npz` tests, from the shared test kit.
#![allow(unused_imports)]

pub use ndl_testkit::records::*;

//! The one integration-test binary of `ndl-zarr`: each module is one
//! concern, as each file was once its own binary.

mod bad_stores;
mod columns;
mod consolidated;
mod crash;
mod durable;
mod locks;
mod ndarray;
mod publish;
mod records;
mod s3;
mod strings;
mod variable_records;
mod zarr_python;

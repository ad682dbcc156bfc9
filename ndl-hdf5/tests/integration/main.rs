//! The one integration-test binary of `ndl-hdf5`: each module is one
//! concern, as each file was once its own binary.

mod arrays;
mod bad_input;
mod columns_bool;
mod compound_order;
mod crash;
mod extent;
mod filters;
mod h5py;
mod inventory;
mod netcdf;
mod record_columns;
mod records;
mod untyped_records;
mod writer;

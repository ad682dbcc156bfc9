//! The one integration-test binary of `ndl`: each module is one
//! concern, as each file was once its own binary.

mod common;

mod cli_arrow;
mod cli_cdl;
mod cli_create;
mod cli_dataset;
mod cli_describe;
mod cli_describe_variable;
mod cli_errors;
mod cli_hdf5;
mod cli_hdf5_order;
mod cli_hdf5_strings;
mod cli_netcdf;
mod cli_records;
mod cli_records_hdf5;
mod cli_records_netcdf;
mod cli_records_parquet;
mod cli_records_zarr;
mod cli_rust;
mod cli_sidecar;
mod cli_time;
mod cli_usage;
mod cli_zarr_chunks;
mod cli_zarr_convert;
mod cli_zarr_describe;
mod cli_zarr_errors;
mod cli_zarr_rank;
mod cli_zarr_storage;
mod cli_zarr_strings;
mod export;
mod zarr_cf_time;
mod zarr_codecs;
mod zarr_columns;
mod zarr_corpus;
mod zarr_s3;

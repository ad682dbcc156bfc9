//! The one integration-test binary of `ndl-runtime`: each module is one
//! concern, as each file was once its own binary.

mod examples;
mod npy_header;

mod lang_cdl;
mod lang_datashape;
mod lang_nczarr;
mod lang_zarr;
mod ndarray_numpy;
mod ndl_errors;
mod ndl_pyyaml;
mod ndl_spec;
mod npy_append;
mod npy_by_name;
mod npy_byte_orders;
mod npy_enums;
mod npy_half_complex;
mod npy_header_limits;
mod npy_header_malformed;
mod npy_header_parse;
mod npy_header_write;
mod npy_numpy;
mod npy_records;
mod npy_typed;
mod npz;
mod record_columns;
mod record_datatype;
mod time_languages;
mod time_npy;
mod time_numpy;
mod valgrind_padding;

//! Zarr: the v2 `.zarray` `dtype` and the v3 `data_type`, written and read
//! back, codecs, and whole metadata documents, as plain JSON: the one place
//! that spells Zarr metadata, for descriptions and for the stores of
//! `ndl-zarr` alike.
//!
//! - [`Datatype::to_zarr_v2_dtype`](crate::Datatype::to_zarr_v2_dtype),
//!   [`Datatype::to_zarr_v3_data_type`](crate::Datatype::to_zarr_v3_data_type)
//!   and [`v3_fill_value`]: datatypes written as Zarr data types;
//! - [`parse_v2_dtype`] and [`parse_v3_data_type`]: Zarr data types read
//!   back into packed datatypes;
//! - [`Codec`]: the compression of each chunk, and its codec lists;
//! - [`ArrayDocument`]: the documents of an array, and those of groups.
//!
//! **v2** (`zarr-specs` v2.0, "Data type encoding"): a scalar is its NumPy
//! type string with byte order (`"<f8"`, `"|b1"`, `"|S12"`, `"<U3"`,
//! `"|V16"`); a compound is a list of `[name, dtype]` entries, an array
//! member `[name, dtype, shape]`, a nested compound a nested list.
//!
//! **v3**: the scalar data type names (`bool`, `int8` … `uint64`,
//! `float16/32/64`, `complex64/128`), `null_terminated_bytes`,
//! `fixed_length_utf32` and `raw_bytes` with `length_bytes`, and compounds
//! as the `struct` extension (zarr-extensions `data-types/struct`, the
//! name zarr-python 3.2 writes):
//! `{"name": "struct", "configuration": {"fields": [{"name": ..., "data_type": ...}]}}`.
//!
//! Decisions:
//!
//! * **Padding is an error, in both versions.** v3 `struct` packs fields
//!   without gaps, so a padded layout has no v3 form. In v2 the only
//!   spelling of a gap is NumPy's `["", "|Vn"]` entry, which zarr-python 2
//!   writes but reads back as a real field named `f<i>` (writes then fail,
//!   zarr-python issue #1629) and which zarr-python 3.1 drops, silently
//!   repacking the record. Either reader would misplace every later field,
//!   so a padded compound is refused rather than described wrongly. Use a
//!   packed record (`#[repr(C, packed)]`) for Zarr.
//! * Empty member names are refused: NumPy's list form renames them `f<i>`,
//!   and v3 requires non-empty names.
//! * v3 `struct` has no subarray field, so an array member is an error
//!   there; in v2 it is `[name, dtype, shape]`.
//! * An enum is its base integer type, an opaque is raw bytes (`|Vn` /
//!   `raw_bytes`): the names and the tag are dropped.
//! * A top-level array datatype is no Zarr dtype; the metadata builders
//!   fold its shape into the array's shape, as NumPy does.
//! * Variable-length data (`string`, `vlen`) and references are errors,
//!   except a top-level `string` in v3, which is Zarr's `string` data type
//!   with the `vlen-utf8` codec.

mod codec;
mod data_type;
mod document;
mod parse;

pub use codec::{Codec, V3Codecs};
pub use data_type::v3_fill_value;
pub use document::{
    ArrayDocument, ZARR_JSON, ZARRAY, ZATTRS, ZGROUP, ZarrFormat, check_grid, regular_chunks,
    v2_array_metadata, v2_group, v3_array_metadata, v3_group,
};
pub use parse::{BadDataType, V2Dtype, parse_v2_dtype, parse_v3_data_type};

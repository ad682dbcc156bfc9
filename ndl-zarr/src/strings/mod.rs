//! Arrays of variable-length strings and byte strings: v3 `string` and
//! `variable_length_bytes`, v2 `|O` with the `vlen-utf8` or `vlen-bytes`
//! filter, of any rank, read and written through zarrs' own data types
//! and codecs; and, read only, v2 `|O` strings of numcodecs' `json2`
//! object codec (zarr-python 2's `object_codec=numcodecs.JSON()`).
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("words.zarr");
//! ndl_zarr::write_strings(&path, &["alpha", "", "γ"])?;
//! assert_eq!(ndl_zarr::read_strings(&path)?, ["alpha", "", "γ"]);
//! assert!(ndl_zarr::read_byte_strings(&path).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod json2;
mod meta;
#[cfg(feature = "ndarray")]
mod nd;
mod read;
mod values;
mod write;
pub(crate) use meta::VlenMeta;

use std::path::Path;

pub use meta::VlenKind;
#[cfg(feature = "ndarray")]
pub use nd::{
    read_byte_strings_ndarray, read_strings_ndarray, write_byte_strings_ndarray,
    write_strings_ndarray,
};
pub use read::{VlenReader, Widest};
pub use values::VlenValues;
pub use write::VlenWriter;

use crate::error::Result;
use crate::options::WriteOptions;

/// Writes `values` as a new store at `dir` holding one one-dimensional
/// array of UTF-8 strings: Zarr v3 `string`, zstd.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// ndl_zarr::write_strings(dir.path().join("s.zarr"), &[String::from("a")])?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_strings<S: AsRef<str>>(dir: impl AsRef<Path>, values: &[S]) -> Result<()> {
    WriteOptions::new().write_strings(dir, &[values.len() as u64], values)
}

/// Writes `values` as a new store at `dir` holding one one-dimensional
/// array of byte strings: Zarr v3 `variable_length_bytes`, zstd.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// ndl_zarr::write_byte_strings(dir.path().join("b.zarr"), &[b"\x00a"])?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_byte_strings<B: AsRef<[u8]>>(dir: impl AsRef<Path>, values: &[B]) -> Result<()> {
    WriteOptions::new().write_byte_strings(dir, &[values.len() as u64], values)
}

/// Reads every value of the array of strings at `dir`, of any rank, in C
/// order (its shape is [`VlenReader::shape`]).
///
/// # Errors
/// If the array holds no strings (byte strings are refused: read them
/// with [`read_byte_strings`]), or a chunk or value is corrupt.
pub fn read_strings(dir: impl AsRef<Path>) -> Result<Vec<String>> {
    let values = read::read_kind(dir.as_ref(), VlenKind::Text)?;
    // Each value was checked to be UTF-8 as its chunk was decoded.
    Ok(values
        .iter()
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .collect())
}

/// Reads every value of the array of byte strings at `dir`, of any rank,
/// in C order.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("b.zarr");
/// ndl_zarr::write_byte_strings(&path, &[&b"x"[..], b"yz"])?;
/// assert_eq!(ndl_zarr::read_byte_strings(&path)?, [b"x".to_vec(), b"yz".to_vec()]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_byte_strings(dir: impl AsRef<Path>) -> Result<Vec<Vec<u8>>> {
    let values = read::read_kind(dir.as_ref(), VlenKind::Bytes)?;
    Ok(values.iter().map(<[u8]>::to_vec).collect())
}

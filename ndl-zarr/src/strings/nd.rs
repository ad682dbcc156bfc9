//! Variable-length strings and bytes as `ndarray` arrays of any rank
//! (feature `ndarray`).

use std::path::Path;

use ndarray::{Array, ArrayBase, Data, Dimension, IxDyn};

use super::meta::VlenKind;
use super::read::{VlenReader, read_kind};
use crate::error::{Error, Result};
use crate::options::WriteOptions;

/// Writes `array`, strings of any rank and layout, as a new store at `dir`
/// holding one array of its shape (v3 `string` by default; the format,
/// codec and chunks are `options`'), published once complete.
///
/// ```
/// use ndarray::{array, ArrayD};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("m.zarr");
/// let a = array![["a", "bc"], ["", "déf"]];
/// ndl_zarr::write_strings_ndarray(&path, &a.t(), &ndl_zarr::WriteOptions::new())?;
/// let back: ArrayD<String> = ndl_zarr::read_strings_ndarray(&path)?;
/// assert_eq!(back.shape(), [2, 2]);
/// assert_eq!(back[[0, 1]], "");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_strings_ndarray<T, S, D>(
    dir: impl AsRef<Path>,
    array: &ArrayBase<S, D>,
    options: &WriteOptions,
) -> Result<()>
where
    T: AsRef<str>,
    S: Data<Elem = T>,
    D: Dimension,
{
    write(dir.as_ref(), VlenKind::Text, array, options, |v| {
        v.as_ref().as_bytes()
    })
}

/// Writes `array`, byte strings of any rank and layout, as a new store at
/// `dir` holding one array of its shape (v3 `variable_length_bytes` by
/// default), published once complete.
///
/// ```
/// use ndarray::{array, ArrayD};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("b.zarr");
/// let a = array![[vec![0u8, 1], vec![]]];
/// ndl_zarr::write_byte_strings_ndarray(&path, &a, &ndl_zarr::WriteOptions::new())?;
/// let back: ArrayD<Vec<u8>> = ndl_zarr::read_byte_strings_ndarray(&path)?;
/// assert_eq!(back, a.into_dyn());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_byte_strings_ndarray<T, S, D>(
    dir: impl AsRef<Path>,
    array: &ArrayBase<S, D>,
    options: &WriteOptions,
) -> Result<()>
where
    T: AsRef<[u8]>,
    S: Data<Elem = T>,
    D: Dimension,
{
    write(dir.as_ref(), VlenKind::Bytes, array, options, AsRef::as_ref)
}

fn write<T, S, D>(
    dir: &Path,
    kind: VlenKind,
    array: &ArrayBase<S, D>,
    options: &WriteOptions,
    bytes: impl Fn(&T) -> &[u8],
) -> Result<()>
where
    S: Data<Elem = T>,
    D: Dimension,
{
    let shape: Vec<u64> = array.shape().iter().map(|&d| d as u64).collect();
    let options = options.clone().publish_on_finish(true);
    let mut w = options.create_vlen(dir, kind, &shape)?;
    // `iter` walks the logical C order, whatever the memory layout.
    for v in array.iter() {
        w.append(bytes(v))?;
    }
    w.finish().map(drop)
}

/// Reads the array of strings at `dir`, of any rank.
pub fn read_strings_ndarray(dir: impl AsRef<Path>) -> Result<Array<String, IxDyn>> {
    let dir = dir.as_ref();
    let shape = VlenReader::open(dir)?.shape().to_vec();
    // Each value was checked to be UTF-8 as its chunk was decoded.
    let values = read_kind(dir, VlenKind::Text)?
        .iter()
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .collect();
    shaped(dir, &shape, values)
}

/// Reads the array of byte strings at `dir`, of any rank.
pub fn read_byte_strings_ndarray(dir: impl AsRef<Path>) -> Result<Array<Vec<u8>, IxDyn>> {
    let dir = dir.as_ref();
    let shape = VlenReader::open(dir)?.shape().to_vec();
    let values = read_kind(dir, VlenKind::Bytes)?
        .iter()
        .map(<[u8]>::to_vec)
        .collect();
    shaped(dir, &shape, values)
}

fn shaped<T>(dir: &Path, shape: &[u64], values: Vec<T>) -> Result<Array<T, IxDyn>> {
    let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    Array::from_shape_vec(IxDyn(&dims), values).map_err(|e| Error::Shape {
        store: dir.display().to_string(),
        message: format!("values do not fill shape {shape:?}: {e}"),
    })
}

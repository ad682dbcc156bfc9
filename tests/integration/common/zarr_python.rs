//! The Python side of the Zarr command-line tests: the prelude every
//! script starts with, and zarr-python reading and writing stores.

use std::path::Path;

use crate::common;

/// Shared by every script: the packed form of a dtype and a recursive,
/// field-by-field comparison of values (byte order and padding aside).
pub const PY_LIB: &str = r#"
import ast, json, os, sys
import numpy as np
from numpy.lib import recfunctions as rfn

def packed(dt):
    return rfn.repack_fields(dt, align=False, recurse=True)

def same(got, exp, path=''):
    if exp.dtype.names is None:
        g, e = np.asarray(got), np.asarray(exp)
        assert g.shape == e.shape, (path, g.shape, e.shape)
        assert np.array_equal(g, e), f'field {path!r}: got {g[:5]} expected {e[:5]}'
        return
    assert got.dtype.names == exp.dtype.names, (path, got.dtype, exp.dtype)
    for name in exp.dtype.names:
        same(got[name], exp[name], f'{path}.{name}' if path else name)
"#;

/// argv: store, npy, store, npy … For each pair, `zarr.open_array(store)[:]`
/// equals the .npy's array field by field, with its dtype packed: in v2
/// with the byte order kept; a v3 data type has none (the `bytes` codec's
/// `endian` is how the chunks hold numbers), and zarr-python 3.4 reads
/// big-endian chunks into native numbers. Prints `ok` and the zarr version
/// once all are checked.
pub const CHECK_STORE: &str = r#"
import warnings
warnings.simplefilter('ignore')
import zarr
for store, npy in zip(sys.argv[1::2], sys.argv[2::2]):
    exp = np.load(npy)
    z = zarr.open_array(store, mode='r')
    got = z[:]
    assert got.shape == exp.shape, (store, got.shape, exp.shape)
    want = packed(exp.dtype)
    if z.metadata.zarr_format == 3:
        want = want.newbyteorder('<')
        assert got.dtype.newbyteorder('<') == want, (store, got.dtype, want)
    else:
        assert got.dtype == want, (store, got.dtype, want)
    same(got, exp, store + ': ')
print('ok', zarr.__version__)
"#;

/// argv: npy, directory. zarr-python (3.4) writes the .npy's records,
/// packed, as `py_v3.zarr` (default codecs, little-endian) and `py_v2.zarr`
/// (blosc lz4, big-endian), in chunks of 100 records.
pub const ZARR_PYTHON_WRITES: &str = r#"
import warnings
warnings.simplefilter('ignore')
import numcodecs, zarr
npy, out = sys.argv[1:3]
a = np.load(npy)
little = packed(a.dtype)
a = a.astype(little)
z = zarr.create_array(store=f'{out}/py_v3.zarr', shape=a.shape, chunks=(100,), dtype=little, zarr_format=3)
z[:] = a
big = little.newbyteorder('>')
z = zarr.create_array(store=f'{out}/py_v2.zarr', shape=a.shape, chunks=(100,), dtype=big, zarr_format=2,
                      compressors=numcodecs.Blosc(cname='lz4', clevel=5, shuffle=numcodecs.Blosc.SHUFFLE))
z[:] = a.astype(big)
print('ok', zarr.__version__)
"#;

pub fn py(script: &str) -> String {
    format!("{PY_LIB}\n{script}")
}

/// zarr-python (`python`) opens each pair's store and finds the records
/// of its npy; returns its version.
pub fn check_stores(python: &Path, pairs: &[(impl AsRef<Path>, impl AsRef<Path>)]) -> String {
    let args: Vec<&str> = pairs
        .iter()
        .flat_map(|(store, npy)| [store.as_ref(), npy.as_ref()])
        .map(|p| p.to_str().unwrap())
        .collect();
    let out = common::run_with(python, &py(CHECK_STORE), &args);
    let version = out
        .strip_prefix("ok ")
        .unwrap_or_else(|| panic!("{out}"))
        .trim();
    version.to_owned()
}

pub fn check_store_312(store: &Path, npy: &Path) {
    check_stores_312(&[(store, npy)]);
}

/// zarr-python 3.4 finds the records of each pair's npy in its store, all
/// in one interpreter.
pub fn check_stores_312(pairs: &[(impl AsRef<Path>, impl AsRef<Path>)]) {
    let version = check_stores(&common::python312(), pairs);
    assert!(version.starts_with("3.4"), "zarr-python {version}, not 3.4");
}

/// As [`check_stores_312`], with zarr-python 3.1.
pub fn check_stores_311(pairs: &[(impl AsRef<Path>, impl AsRef<Path>)]) {
    let version = check_stores(&common::python(), pairs);
    assert!(version.starts_with("3.1"), "zarr-python {version}, not 3.1");
}

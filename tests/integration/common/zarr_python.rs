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

/// argv: store, npy. `zarr.open_array(store)[:]` equals the .npy's array
/// field by field, with its dtype packed: in v2 with the byte order kept;
/// a v3 data type has none (the `bytes` codec's `endian` is how the chunks
/// hold numbers), and zarr-python 3.4 reads big-endian chunks into native
/// numbers. Prints `ok` and the zarr version.
pub const CHECK_STORE: &str = r#"
import warnings
warnings.simplefilter('ignore')
import zarr
store, npy = sys.argv[1], sys.argv[2]
exp = np.load(npy)
z = zarr.open_array(store, mode='r')
got = z[:]
assert got.shape == exp.shape, (got.shape, exp.shape)
want = packed(exp.dtype)
if z.metadata.zarr_format == 3:
    want = want.newbyteorder('<')
    assert got.dtype.newbyteorder('<') == want, (got.dtype, want)
else:
    assert got.dtype == want, (got.dtype, want)
same(got, exp)
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

/// zarr-python (`python`) opens `store` and finds the records of `npy`;
/// returns its version.
pub fn check_store(python: &Path, store: &Path, npy: &Path) -> String {
    let out = common::run_with(
        python,
        &py(CHECK_STORE),
        &[store.to_str().unwrap(), npy.to_str().unwrap()],
    );
    let version = out
        .strip_prefix("ok ")
        .unwrap_or_else(|| panic!("{out}"))
        .trim();
    version.to_owned()
}

pub fn check_store_312(store: &Path, npy: &Path) {
    let version = check_store(&common::python312(), store, npy);
    assert!(version.starts_with("3.4"), "zarr-python {version}, not 3.4");
}

pub fn check_store_311(store: &Path, npy: &Path) {
    let version = check_store(&common::python(), store, npy);
    assert!(version.starts_with("3.1"), "zarr-python {version}, not 3.1");
}

//! `ndl convert` of HDF5 and netCDF-4 datasets of variable-length strings
//! (h5py's `string_dtype()`, netCDF4-python's `str` variables): to `.npy`
//! as the narrowest fixed `U` (UTF-8) or `S` (ASCII) that holds them,
//! equal to what h5py and netCDF4-python read; to Zarr's variable-length
//! strings with `--strings variable`; a value that is not UTF-8 refused
//! by element.

use crate::common;

use common::cli::{convert, refused};
use ndl_testkit::python::{python312, run_with};

use std::path::Path;

/// argv: dir. Writes `strings.h5` (h5py) and `strings.nc`
/// (netCDF4-python): 1-D, N-D, scalar and empty datasets, UTF-8 and
/// ASCII, with elements never written; `bad.h5` holds a value that is not
/// UTF-8 at [1, 2].
const WRITE: &str = r#"
import sys, os, h5py, numpy as np, netCDF4
d = sys.argv[1]
utf8, ascii = h5py.string_dtype(), h5py.string_dtype('ascii')
with h5py.File(os.path.join(d, 'strings.h5'), 'w') as f:
    one = f.create_dataset('one', (23,), dtype=utf8)
    for i in range(0, 23, 2):
        one[i] = 'é' * (i % 7) + 'x' + '日本' * (i % 3)
    many = f.create_dataset('many', (300, 250), dtype=utf8, chunks=(64, 64))
    many[:, :] = np.array([['%d.%dé' % (i, j) for j in range(250)] for i in range(300)], dtype=object)
    many[299, 249] = 'the widest value, at the very end'
    f.create_dataset('cube', data=np.array([b'a' * (k % 5) for k in range(24)], dtype=object).reshape(2, 3, 4), dtype=ascii)
    f.create_dataset('scalar', data='ünïcode', dtype=utf8)
    f.create_dataset('empty', (0,), dtype=utf8)
with h5py.File(os.path.join(d, 'bad.h5'), 'w') as f:
    s = f.create_dataset('s', (2, 3), dtype=utf8)
    s[0, 0] = 'ok'
    s[1, 2] = b'a\xffb'
nc = netCDF4.Dataset(os.path.join(d, 'strings.nc'), 'w')
nc.createDimension('x', 5)
nc.createDimension('y', 2)
name = nc.createVariable('name', str, ('x',))
for i, v in enumerate(['α', 'bb', '', 'dddd', 'Ωmega']):
    name[i] = v
grid = nc.createVariable('grid', str, ('y', 'x'))
grid[0, 1] = 'set'
grid[1, 4] = 'also set, longer'
nc.close()
"#;

/// argv: npy, file, member. NumPy loads the .npy as the narrowest fixed
/// dtype that holds every value h5py (or netCDF4-python, for `.nc`)
/// reads, with those values, in that shape.
const SAME_AS_READER: &str = r#"
import sys, numpy as np
npy, path, member = sys.argv[1:4]
if path.endswith('.nc'):
    import netCDF4
    with netCDF4.Dataset(path) as nc:
        want = np.asarray(nc[member][...], dtype=object)
else:
    import h5py
    with h5py.File(path) as f:
        d = f[member]
        text = h5py.check_string_dtype(d.dtype).encoding == 'utf-8'
        want = np.asarray((d.asstr() if text else d)[()], dtype=object)
got = np.load(npy)
values = want.reshape(-1).tolist()
text = all(isinstance(v, str) for v in values)
width = max([1] + [len(v) for v in values])
assert got.dtype == np.dtype(('U%d' if text else 'S%d') % width), (got.dtype, width)
assert got.shape == want.shape, (got.shape, want.shape)
assert got.reshape(-1).tolist() == values
print('ok', got.dtype)
"#;

/// argv: store, file, member. zarr-python reads the store as h5py reads
/// the dataset, as variable-length strings.
const ZARR_SAME_AS_H5PY: &str = r#"
import sys, warnings
warnings.simplefilter('ignore')
import numpy as np, zarr, h5py
store, path, member = sys.argv[1:4]
z = zarr.open_array(store, mode='r')
dt = getattr(z.metadata, 'data_type', None) or z.metadata.dtype
assert type(dt).__name__ == 'VariableLengthUTF8', z.metadata
with h5py.File(path) as f:
    want = np.asarray(f[member].asstr()[()], dtype=object)
got = np.asarray(z[...], dtype=object)
assert got.shape == want.shape, (got.shape, want.shape)
assert got.reshape(-1).tolist() == want.reshape(-1).tolist()
print('ok')
"#;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn write_files(dir: &Path) {
    run_with(&python312(), WRITE, &[s(dir)]);
}

#[test]
fn h5py_and_netcdf4_strings_convert_to_the_narrowest_fixed_type() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_files(d);
    let cases = [
        ("strings.h5", "one"),
        ("strings.h5", "many"),
        ("strings.h5", "cube"),
        ("strings.h5", "scalar"),
        ("strings.h5", "empty"),
        ("strings.nc", "name"),
        ("strings.nc", "grid"),
    ];
    for (file, member) in cases {
        let (src, npy) = (d.join(file), d.join(format!("{file}.{member}.npy")));
        let run = convert(&src, &npy, &["--member", member]);
        assert_eq!(run.code, Some(0), "{file} {member}: {run:#?}");
        assert!(
            run.stderr.starts_with("ndl: note: ") && run.stderr.contains("narrowest fixed width"),
            "{file} {member}: {run:#?}"
        );
        let out = run_with(&python312(), SAME_AS_READER, &[s(&npy), s(&src), member]);
        assert!(out.starts_with("ok"), "{file} {member}: {out}");
    }
}

#[test]
fn h5py_strings_convert_to_zarr_variable_length_strings() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_files(d);
    let src = d.join("strings.h5");
    for (format, member) in [("3", "many"), ("2", "one"), ("3", "scalar")] {
        let store = d.join(format!("{member}_v{format}.zarr"));
        let args = ["--member", member, "--strings", "variable"];
        let run = convert(
            &src,
            &store,
            &[&args[..], &["--zarr-format", format]].concat(),
        );
        assert_eq!(run.code, Some(0), "{member} v{format}: {run:#?}");
        let out = run_with(
            &python312(),
            ZARR_SAME_AS_H5PY,
            &[s(&store), s(&src), member],
        );
        assert!(out.starts_with("ok"), "{member} v{format}: {out}");
    }
}

#[test]
fn a_value_that_is_not_utf8_is_refused_by_element_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_files(d);
    let (src, npy) = (d.join("bad.h5"), d.join("bad.npy"));
    let run = convert(&src, &npy, &["--member", "s"]);
    refused(&run, &src, &["dataset `s`", "element [1, 2]", "not UTF-8"]);
    assert!(
        !npy.exists(),
        "a refused conversion wrote {}",
        npy.display()
    );
}

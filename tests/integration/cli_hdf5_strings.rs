//! `ndl convert` of HDF5 and netCDF-4 datasets of variable-length strings
//! (h5py's `string_dtype()`, netCDF4-python's `str` variables): to `.npy`
//! as the narrowest fixed `U` (UTF-8) or `S` (ASCII) that holds them,
//! equal to what h5py and netCDF4-python read; to Zarr's variable-length
//! strings, and to HDF5's and netCDF-4's, as text stays; a value that is
//! not UTF-8 refused by element.

use crate::common;

use common::cli::{compile_cdl, convert, describe, refused};
use ndl_testkit::netcdf::ncdump;
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

/// argv: triples of (converted file, source file, source member). h5py,
/// or netCDF4-python for a `.nc`, reads the converted file's one dataset
/// as variable-length UTF-8 text equal to what it (or NumPy) reads of the
/// source.
const TEXT_SAME_AS_SOURCE: &str = r#"
import sys, numpy as np, h5py, netCDF4
def values(path, member):
    if path.endswith('.npy'):
        return np.load(path).astype(object)
    if path.endswith('.nc'):
        with netCDF4.Dataset(path) as nc:
            v = nc[member] if member else next(iter(nc.variables.values()))
            assert v.dtype == str, (path, v.dtype)
            return np.asarray(v[...], dtype=object)
    with h5py.File(path) as f:
        d = f[member] if member else next(o for o in f.values() if isinstance(o, h5py.Dataset))
        info = h5py.check_string_dtype(d.dtype)
        assert info and info.encoding == 'utf-8' and info.length is None, (path, d.dtype)
        return np.asarray(d.asstr()[()], dtype=object)
args = sys.argv[1:]
for out, src, member in zip(args[0::3], args[1::3], args[2::3]):
    got, want = values(out, ''), values(src, member)
    assert got.shape == want.shape, (out, got.shape, want.shape)
    assert got.reshape(-1).tolist() == want.reshape(-1).tolist(), out
print('ok', len(args) // 3)
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
    // Parquet holds the text variable-length: nothing is narrowed or said.
    let parquet = d.join("one.parquet");
    let run = convert(&d.join("strings.h5"), &parquet, &["--member", "one"]);
    assert_eq!((run.code, run.stderr.as_str()), (Some(0), ""), "{run:#?}");
}

#[test]
fn h5py_strings_convert_to_zarr_variable_length_strings() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_files(d);
    let src = d.join("strings.h5");
    // Said, or not: text read variable-length is written so.
    let cases = [
        ("3", "many", &["--strings", "variable"][..]),
        ("2", "one", &[]),
        ("3", "scalar", &[]),
    ];
    for (format, member, said) in cases {
        let store = d.join(format!("{member}_v{format}.zarr"));
        let args = [&["--member", member, "--zarr-format", format][..], said].concat();
        let run = convert(&src, &store, &args);
        assert_eq!(run.code, Some(0), "{member} v{format}: {run:#?}");
        assert!(run.stderr.is_empty(), "no narrowing note: {run:#?}");
        let out = run_with(
            &python312(),
            ZARR_SAME_AS_H5PY,
            &[s(&store), s(&src), member],
        );
        assert!(out.starts_with("ok"), "{member} v{format}: {out}");
    }
}

#[test]
fn text_stays_variable_length_into_hdf5_and_netcdf4_and_fixed_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_files(d);
    let cases = [
        ("strings.h5", "many", "h5"),
        ("strings.h5", "one", "nc"),
        ("strings.h5", "scalar", "h5"),
        ("strings.h5", "empty", "nc"),
        ("strings.nc", "grid", "h5"),
        ("strings.nc", "name", "nc"),
    ];
    let mut checks = Vec::new();
    for (file, member, to) in cases {
        let (src, out) = (d.join(file), d.join(format!("{file}.{member}.{to}")));
        let run = convert(&src, &out, &["--member", member]);
        assert_eq!(run.code, Some(0), "{file} {member}: {run:#?}");
        assert!(run.stderr.is_empty(), "no narrowing note: {run:#?}");
        checks.extend([
            out.display().to_string(),
            src.display().to_string(),
            member.into(),
        ]);
    }
    // A `.npy` of `U`, big-endian and 2-D, which HDF5 has no type for.
    let npy = d.join("u.npy");
    run_with(
        &python312(),
        "import sys, numpy as np\n\
         np.save(sys.argv[1], np.array([['a', 'bé'], ['', 'xyz日']], dtype='>U4'))",
        &[s(&npy)],
    );
    for to in ["h5", "nc"] {
        let out = d.join(format!("u.{to}"));
        let run = convert(&npy, &out, &[]);
        assert_eq!(run.code, Some(0), "{to}: {run:#?}");
        checks.extend([
            out.display().to_string(),
            npy.display().to_string(),
            String::new(),
        ]);
    }
    let checks: Vec<&str> = checks.iter().map(String::as_str).collect();
    let out = run_with(&python312(), TEXT_SAME_AS_SOURCE, &checks);
    assert_eq!(out.trim(), "ok 8", "{out}");
    let cdl = ncdump(&[], &d.join("strings.h5.one.nc"));
    // The variable is named after the dataset it was read from.
    assert!(cdl.contains("string one(record) ;"), "{cdl}");
    // Into Zarr, fixed when asked: the narrowing is said.
    let fixed = d.join("fixed.zarr");
    let run = convert(
        &d.join("strings.h5"),
        &fixed,
        &["--member", "one", "--strings", "fixed"],
    );
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(run.stderr.contains("narrowest fixed width"), "{run:#?}");
    let meta = std::fs::read_to_string(fixed.join("zarr.json")).unwrap();
    assert!(
        meta.contains("fixed_length_utf32") || meta.contains("<U"),
        "{meta}"
    );
}

#[test]
fn a_nul_inside_text_is_refused_for_hdf5_naming_the_element() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let npy = d.join("nul.npy");
    run_with(
        &python312(),
        "import sys, numpy as np\n\
         np.save(sys.argv[1], np.array(['ok', 'a\\x00b', 'c'], dtype='<U3'))",
        &[s(&npy)],
    );
    let h5 = d.join("nul.h5");
    let run = convert(&npy, &h5, &[]);
    refused(&run, &h5, &["record 1", "NUL character"]);
    assert!(!h5.exists(), "nothing is left behind");
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

/// argv: path. A file of every variable-length and reference type h5py
/// writes, beside plain numbers.
const WRITE_VARIABLE: &str = r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], 'w') as f:
    f.create_dataset('x', data=np.arange(3, dtype='<i4'))
    f.create_dataset('s', data=np.array(['é', 'bb'], dtype=object), dtype=h5py.string_dtype())
    f.create_dataset('a', data=np.array([b'a'], dtype=object), dtype=h5py.string_dtype('ascii'))
    v = f.create_dataset('v', (2,), dtype=h5py.vlen_dtype('f4'))
    v[0] = np.array([1, 2], 'f4')
    rec = [('id', '<u8'), ('symbol', h5py.string_dtype()), ('levels', h5py.vlen_dtype('f4')),
           ('tags', h5py.vlen_dtype(h5py.string_dtype())),
           ('venue', [('code', h5py.string_dtype()), ('id', '<u2')])]
    f.create_dataset('c', (2,), dtype=rec)
    r = f.create_dataset('r', (1,), dtype=h5py.ref_dtype)
    r[0] = f['x'].ref
    f.create_dataset('rr', (1,), dtype=h5py.regionref_dtype)
"#;

/// argv: file, header dicts. Every dataset's descr is NumPy's for h5py's
/// dtype (its metadata, which .npy does not keep, aside).
const DESCR_AS_H5PY: &str = r#"
import sys, ast, h5py, numpy as np
path, text = sys.argv[1:3]
got = ast.literal_eval(text)
with h5py.File(path) as f:
    assert sorted(got) == sorted(f), (sorted(got), sorted(f))
    for name, header in got.items():
        want = np.lib.format.dtype_to_descr(f[name].dtype)
        assert header['descr'] == want, (name, header['descr'], want)
        assert header['shape'] == f[name].shape
print('ok')
"#;

#[test]
fn every_hdf5_variable_length_and_reference_type_is_described_in_every_language() {
    let dir = tempfile::tempdir().unwrap();
    let h5 = dir.path().join("variable.h5");
    run_with(&python312(), WRITE_VARIABLE, &[s(&h5)]);
    let run = describe(&h5, "ndl", &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    for want in [
        "s: {shape: [2], type: string}",
        "levels: {type: {vlen: {base: float32}}}",
        "tags: {type: {vlen: {base: string}}",
        "code: {type: string}",
        "r: {shape: [1], type: objref}",
        "rr: {shape: [1], type: {regref:",
    ] {
        assert!(run.stdout.contains(want), "{want}: {}", run.stdout);
    }

    let run = describe(&h5, "numpy", &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let out = run_with(&python312(), DESCR_AS_H5PY, &[s(&h5), &run.stdout]);
    assert!(out.starts_with("ok"), "{out}");
    assert!(
        run.stderr
            .contains("`c`: NumPy: its members `symbol` (string), `levels` (vlen of float32)"),
        "{run:#?}"
    );

    let run = describe(&h5, "datashape", &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    for want in [
        "s: 2 * string",
        "v: 2 * var * float32",
        "levels: var * float32",
    ] {
        assert!(run.stdout.contains(want), "{want}: {run:#?}");
    }

    let run = describe(&h5, "zarr", &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["s"]["filters"][0]["id"], "vlen-utf8", "{doc}");
    assert_eq!(doc["v"]["filters"][0]["dtype"], "<f4", "{doc}");
    assert_eq!(doc["x"]["dtype"], "<i4", "{doc}");
    for (left_out, why) in [
        ("c", "struct extension forbids them"),
        ("r", "object reference"),
        ("rr", "region reference"),
    ] {
        assert!(doc.get(left_out).is_none(), "{left_out}: {doc}");
        let line = format!("`{left_out}`: Zarr: ");
        assert!(
            run.stderr.contains(&line) && run.stderr.contains(why),
            "{left_out}: {run:#?}"
        );
    }

    let run = describe(&h5, "cdl", &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    for want in ["string s(s_dim0) ;", "float(*) v_t ;", "int x(x_dim0) ;"] {
        assert!(run.stdout.contains(want), "{want}: {run:#?}");
    }
    for left_out in [
        "`c`: netCDF CDL: a compound with variable-length members (`symbol` (string)",
        "`r`: netCDF CDL: netCDF-4 has no object references",
        "`rr`: netCDF CDL",
    ] {
        assert!(run.stderr.contains(left_out), "{left_out}: {run:#?}");
    }
    compile_cdl(&run.stdout, dir.path(), "variable");
}

#[test]
fn netcdf4_vlen_types_are_described_in_cdl_as_ncdump_does() {
    let dir = tempfile::tempdir().unwrap();
    let nc = dir.path().join("vlen.nc");
    let make = r#"
import sys, netCDF4, numpy as np
ds = netCDF4.Dataset(sys.argv[1], 'w')
ds.createDimension('x', 3)
vt = ds.createVLType(np.float32, 'ragged_t')
v = ds.createVariable('r', vt, ('x',))
v[0] = np.array([1, 2], 'f4')
s = ds.createVariable('s', str, ('x',))
s[0] = 'a'
ds.close()
"#;
    run_with(&python312(), make, &[s(&nc)]);
    let run = describe(&nc, "cdl", &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert_eq!(run.stdout.trim_end(), ncdump(&["-h"], &nc).trim_end());
}

#[test]
fn records_with_variable_length_members_are_refused_by_member() {
    let dir = tempfile::tempdir().unwrap();
    let h5 = dir.path().join("variable.h5");
    run_with(&python312(), WRITE_VARIABLE, &[s(&h5)]);
    let npy = dir.path().join("c.npy");
    // Strings would become `<U n`; the lists have no place in a `.npy`.
    let run = convert(&h5, &npy, &["--member", "c"]);
    refused(
        &run,
        &h5,
        &["column `levels`", "variable-length lists", ".npy"],
    );
    assert!(!npy.exists());
    // A dataset of sequences is records of one list, `value`.
    let run = convert(&h5, &npy, &["--member", "v"]);
    refused(&run, &h5, &["column `value`", "variable-length lists"]);
    let run = convert(&h5, &npy, &["--member", "r"]);
    refused(&run, &h5, &["dataset `r`", "object reference"]);
}

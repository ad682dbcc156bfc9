//! `ndl describe FILE --format rust`: the types it writes compile without
//! warnings and read the files numpy, h5py, zarr-python, xarray and
//! pyarrow wrote, exactly.
//!
//! Every generated type goes into ONE temporary crate, compiled once: its
//! `main` reads each file with the matching typed reader and writes the
//! records back as `.npy` through the same type, and the Python that made
//! the file compares them with its own reading, dtype (offsets, itemsize)
//! included.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use ndl_testkit::python::{python, python312, run_with};

use crate::common::cli::{describe, ok, refused};

/// The NumPy dtypes of the `.npy` files: name, dtype expression.
const NPY: [(&str, &str); 7] = [
    (
        "padded",
        "np.dtype([('a', 'u1'), ('b', '<f8'), ('c', '<u2')], align=True)",
    ),
    (
        "packed",
        "np.dtype([('a', 'u1'), ('type', '<f8'), ('s', 'S5'), ('u', '<U3')])",
    ),
    (
        "nested",
        "np.dtype([('id', '<u4'), ('pos', [('x', '<f4'), ('y', '<f4')]), ('Sensor ID', 'i1')], align=True)",
    ),
    (
        "gapped",
        "np.dtype({'names': ['a', 'b', '1x'], 'formats': ['u1', '<i4', '<u2'], 'offsets': [0, 8, 20], 'itemsize': 32})",
    ),
    (
        "subarray",
        "np.dtype([('m', '<f8', (2, 3)), ('k', 'u1', (4,))])",
    ),
    (
        "numbers",
        "np.dtype([('h', '<f2'), ('z', '<c8'), ('w', '<c16', (2,))], align=True)",
    ),
    (
        "times",
        "np.dtype([('t', '<M8[ns]'), ('d', '<m8[s]'), ('day', '<M8[D]')])",
    ),
];

/// Three records of any dtype: each byte a different value, through the
/// fields so padding stays zero, and no NaN or NaT (which equal nothing).
const MAKE_NPY: &str = r#"
import sys
import numpy as np
out, dtype = sys.argv[1], eval(sys.argv[2])
a = np.zeros(3, dtype)
def fill(view, seed):
    if view.dtype.names:
        for i, name in enumerate(view.dtype.names):
            fill(view[name], seed + 7 * i)
        return
    k = view.dtype.base.kind if view.dtype.subdtype else view.dtype.kind
    n = view.size
    vals = (np.arange(n) + seed) % 50 + 1
    if k in 'SU':
        view[...] = np.array(['r%d' % v for v in vals]).reshape(view.shape)
    elif k in 'Mm':
        view[...] = vals.astype('i8').reshape(view.shape)
    else:
        view[...] = (vals * 1.5 if k in 'fc' else vals).reshape(view.shape).astype(view.dtype.base if view.dtype.subdtype else view.dtype)
fill(a, 1)
np.save(out, a)
"#;

const MAKE_H5: &str = r#"
import sys
import numpy as np, h5py
colour = h5py.enum_dtype({'RED': 0, 'GREEN': 1, 'BLUE': 2}, basetype='i1')
dt = np.dtype([('id', '<u4'), ('colour', colour), ('v', '<f8')])
with h5py.File(sys.argv[1], 'w') as f:
    f['data'] = np.array([(1, 0, 1.5), (2, 2, -3.25), (3, 1, 8.0)], dt)
"#;

const MAKE_PARQUET: &str = r#"
import sys
import pyarrow as pa, pyarrow.parquet as pq
schema = pa.schema([pa.field('id', pa.int64(), nullable=False), pa.field('x', pa.float64(), nullable=False), pa.field('flag', pa.bool_(), nullable=False)])
pq.write_table(pa.table({'id': [1, 2, 3], 'x': [0.5, 1.5, -2.5], 'flag': [True, False, True]}, schema=schema), sys.argv[1])
"#;

/// A table pyarrow marks nullable throughout, some columns holding
/// nulls: strings (non-ASCII, empty), lists, a struct.
const MAKE_NULLS: &str = r#"
import sys
import pyarrow as pa, pyarrow.parquet as pq
place = pa.struct([('x', pa.int32()), ('label', pa.string())])
pq.write_table(pa.table({
    'name': pa.array(['ä日', '', None], pa.string()),
    'levels': pa.array([[1.5, 2.0], [], None], pa.list_(pa.float32())),
    'tags': pa.array([['x', ''], [], ['ü']], pa.list_(pa.string())),
    'count': pa.array([None, 2, 3], pa.int64()),
    'whole': pa.array([7, 8, 9], pa.uint16()),
    'place': pa.array([{'x': 1, 'label': None}, None, {'x': 3, 'label': 'ß'}], place),
}), sys.argv[1], row_group_size=2)
"#;

/// A zarr-python 3.4 array of a nested, packed structured dtype (v2: v3
/// has no such data type zarr-python writes), in two chunks.
const MAKE_ZARR: &str = r#"
import sys
import numpy as np, zarr
dt = np.dtype([('id', '<u4'), ('pos', [('x', '<f4'), ('y', '<f4')]), ('v', '<f8')])
a = zarr.create_array(sys.argv[1], shape=(3,), dtype=dt, zarr_format=2, chunks=(2,))
a[:] = np.array([(1, (0.5, 1.5), 2.0), (2, (2.5, 3.5), -1.0), (3, (4.5, 5.5), 8.25)], dt)
"#;

/// An xarray table in a Zarr v3 store: strings (non-ASCII, empty) and
/// floats whose NaN is the `_FillValue` xarray masks.
const MAKE_XARRAY_ZARR: &str = r#"
import sys
import numpy as np, xarray as xr
xr.Dataset({
    'name': ('obs', np.array(['ä日', '', 'xyz'], dtype=object)),
    't': ('obs', np.array([1.5, np.nan, 3.0])),
}).to_zarr(sys.argv[1], zarr_format=3, consolidated=False)
"#;

/// The same table as a netCDF-4 file, with an integer column.
const MAKE_XARRAY_NC: &str = r#"
import sys
import numpy as np, xarray as xr
xr.Dataset({
    'name': ('obs', np.array(['ä日', '', 'xyz'], dtype=object)),
    't': ('obs', np.array([1.5, np.nan, 3.0])),
    'k': ('obs', np.array([4, -5, 6], 'i4')),
}).to_netcdf(sys.argv[1])
"#;

const CHECK_XARRAY_NC: &str = r#"
import sys
import pyarrow.parquet as pq, xarray as xr
ds = xr.open_dataset(sys.argv[1])
b = pq.read_table(sys.argv[2])
assert b.column_names == ['name', 't', 'k'], b.schema
assert b.column('name').to_pylist() == [str(s) for s in ds['name'].values], b
assert b.column('t').to_pylist() == [1.5, None, 3.0], b
assert b.column('k').to_pylist() == ds['k'].values.tolist(), b
print(len(b))
"#;

const CHECK_ZARR: &str = r#"
import sys
import numpy as np, zarr
a = zarr.open_array(sys.argv[1], mode='r')[:]
b = np.load(sys.argv[2])
assert a.dtype == b.dtype, (a.dtype.descr, b.dtype.descr)
assert a.tobytes() == b.tobytes(), (a, b)
print(len(b))
"#;

const CHECK_XARRAY_ZARR: &str = r#"
import sys
import pyarrow.parquet as pq, xarray as xr
ds = xr.open_zarr(sys.argv[1], consolidated=False)
b = pq.read_table(sys.argv[2])
assert b.column('name').to_pylist() == [str(s) for s in ds['name'].values], b
assert b.column('t').to_pylist() == [1.5, None, 3.0], b
print(len(b))
"#;

/// Compares the original with what the generated type wrote back.
const CHECK_NPY: &str = r#"
import sys
import numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
assert a.dtype == b.dtype and a.dtype.itemsize == b.dtype.itemsize, (a.dtype.descr, b.dtype.descr)
assert a.tobytes() == b.tobytes(), (a, b)
print(len(b))
"#;

const CHECK_H5: &str = r#"
import sys
import numpy as np, h5py
with h5py.File(sys.argv[1]) as f:
    a = f['data'][()]
b = np.load(sys.argv[2])
assert [(n, a.dtype.fields[n][1]) for n in a.dtype.names] == [(n, b.dtype.fields[n][1]) for n in b.dtype.names]
assert a.dtype.itemsize == b.dtype.itemsize
for n in a.dtype.names:
    assert np.array_equal(a[n], b[n]), (n, a[n], b[n])
print(len(b))
"#;

/// h5py's records of a string and a sequence beside a number.
const MAKE_H5_VLEN: &str = r#"
import sys
import numpy as np, h5py
dt = np.dtype([('id', '<i4'), ('name', h5py.string_dtype()), ('v', h5py.vlen_dtype(np.float32))])
rows = [(1, 'ä日', np.array([1.5, 2], 'f4')), (2, '', np.array([], 'f4')), (3, 'xyz', np.array([-3], 'f4'))]
with h5py.File(sys.argv[1], 'w') as f:
    f['data'] = np.array(rows, dt)
"#;

const CHECK_H5_VLEN: &str = r#"
import sys
import h5py, pyarrow.parquet as pq
with h5py.File(sys.argv[1]) as f:
    a = f['data'][()]
b = pq.read_table(sys.argv[2])
assert b.column_names == ['id', 'name', 'v'], b.schema
assert b.column('id').to_pylist() == a['id'].tolist()
assert b.column('name').to_pylist() == [s.decode() for s in a['name']]
assert b.column('v').to_pylist() == [x.tolist() for x in a['v']]
print(len(b))
"#;

const CHECK_PARQUET: &str = r#"
import sys
import numpy as np, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
b = np.load(sys.argv[2])
assert list(b.dtype.names) == t.column_names
for n in t.column_names:
    assert np.array_equal(t[n].to_numpy(), b[n]), (n, t[n], b[n])
print(len(b))
"#;

const CHECK_NULLS: &str = r#"
import sys
import pyarrow.parquet as pq
a, b = pq.read_table(sys.argv[1]), pq.read_table(sys.argv[2])
assert a.column_names == b.column_names, (a.schema, b.schema)
assert a.to_pylist() == b.to_pylist(), (a.to_pylist(), b.to_pylist())
assert b.column('count').null_count == 1 and b.column('name').null_count == 1
print(len(b))
"#;

/// One file: its module name, the reading expression, the checker, and
/// how the records are written back (the function in the generated
/// `main`, the file's ending).
struct Case {
    module: String,
    file: PathBuf,
    read: String,
    check: (PathBuf, &'static str),
    back: (&'static str, &'static str),
}

#[test]
fn generated_types_compile_and_read_every_file_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let mut cases = Vec::new();
    for (name, dtype) in NPY {
        let file = dir.path().join(format!("{name}.npy"));
        run_with(&python(), MAKE_NPY, &[file.to_str().unwrap(), dtype]);
        let read = "ndl_runtime::npy::read_file::<{T}>({F})".into();
        cases.push(case(name, file, read, (python(), CHECK_NPY)));
    }
    let h5 = dir.path().join("colours.h5");
    run_with(&python312(), MAKE_H5, &[h5.to_str().unwrap()]);
    let read = "ndl_hdf5::read::<{T}>({F}, \"data\")".into();
    cases.push(case("colours", h5, read, (python312(), CHECK_H5)));
    let h5 = dir.path().join("vlen.h5");
    run_with(&python312(), MAKE_H5_VLEN, &[h5.to_str().unwrap()]);
    let read = "ndl_hdf5::read::<{T}>({F}, \"data\")".into();
    cases.push(Case {
        back: ("back_parquet", "parquet"),
        ..case("vlen", h5, read, (python312(), CHECK_H5_VLEN))
    });
    let parquet = dir.path().join("plain.parquet");
    run_with(&python312(), MAKE_PARQUET, &[parquet.to_str().unwrap()]);
    let read = "ndl_arrow::read_parquet::<{T}>({F})".into();
    cases.push(case("plain", parquet, read, (python312(), CHECK_PARQUET)));
    let store = dir.path().join("structured.zarr");
    run_with(&python312(), MAKE_ZARR, &[store.to_str().unwrap()]);
    let read = "ndl_zarr::read::<{T}>({F})".into();
    cases.push(case("structured", store, read, (python312(), CHECK_ZARR)));
    let store = dir.path().join("table.zarr");
    run_with(&python312(), MAKE_XARRAY_ZARR, &[store.to_str().unwrap()]);
    let read = "ndl_zarr::read::<{T}>({F})".into();
    cases.push(Case {
        back: ("back_parquet", "parquet"),
        ..case("table", store, read, (python312(), CHECK_XARRAY_ZARR))
    });
    let nc = dir.path().join("table.nc");
    run_with(&python312(), MAKE_XARRAY_NC, &[nc.to_str().unwrap()]);
    let read = "ndl_hdf5::read_columns::<{T}>({F})".into();
    cases.push(Case {
        back: ("back_parquet", "parquet"),
        ..case("nctable", nc, read, (python312(), CHECK_XARRAY_NC))
    });
    let nulls = dir.path().join("nulls.parquet");
    run_with(&python312(), MAKE_NULLS, &[nulls.to_str().unwrap()]);
    let read = "ndl_arrow::read_parquet::<{T}>({F})".into();
    cases.push(Case {
        back: ("back_parquet", "parquet"),
        ..case("nulls", nulls, read, (python312(), CHECK_NULLS))
    });

    let krate = dir.path().join("generated");
    write_crate(&krate, &cases);
    let started = Instant::now();
    let built = cargo_build(&krate);
    eprintln!(
        "cli_rust: the generated crate built in {:.1?}",
        started.elapsed()
    );
    let run = Command::new(built).arg(dir.path()).output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success(),
        "the generated crate's read_back failed:\n{stderr}"
    );
    for c in &cases {
        let back = dir.path().join(format!("{}.back.{}", c.module, c.back.1));
        let (py, script) = &c.check;
        let n = run_with(
            py,
            script,
            &[c.file.to_str().unwrap(), back.to_str().unwrap()],
        );
        assert_eq!(n.trim(), "3", "{}: records", c.module);
    }
}

/// `ndl describe FILE --format rust --type-name Rec` for one file.
fn case(module: &str, file: PathBuf, read: String, check: (PathBuf, &'static str)) -> Case {
    Case {
        module: module.to_string(),
        file,
        read,
        check,
        back: ("back", "npy"),
    }
}

/// A crate whose library holds each generated type in its own module
/// (`#![deny(warnings)]`: the source must compile clean), and whose
/// `read_back` program reads each file and writes it back.
///
/// The program is a test target without a harness, and the dependencies
/// ask for the features `cargo test --workspace` gives them: so `cargo
/// test` builds the crate with the workspace's own `test` profile
/// artifacts, already built, rather than every dependency again (two
/// minutes of a cold CI run). Should the features drift, the test still
/// passes, only slower.
fn write_crate(krate: &Path, cases: &[Case]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::create_dir_all(krate.join("tests")).unwrap();
    let dep = |name: &str| root.join(name).display().to_string();
    let manifest = format!(
        "[package]\nname = \"generated\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[workspace]\n\n\
         [dependencies]\n\
         ndl-runtime = {{ path = {:?}, features = [\"half\", \"num-complex\", \"ndarray\", \"chrono\", \"jiff\"] }}\n\
         ndl-hdf5 = {{ path = {:?} }}\n\
         ndl-arrow = {{ path = {:?} }}\n\
         ndl-zarr = {{ path = {:?}, features = [\"ndarray\"] }}\n\
         half = \"2\"\nnum-complex = \"0.4\"\n\
         serde = {{ version = \"1\", features = [\"alloc\"] }}\nnum-bigint = \"0.4\"\n\n\
         [[test]]\nname = \"read_back\"\nharness = false\n\n\
         [profile.dev]\ndebug = \"line-tables-only\"\n\n\
         [profile.dev.package.\"*\"]\ndebug = false\n",
        dep("ndl-runtime"),
        dep("ndl-hdf5"),
        dep("ndl-arrow"),
        dep("ndl-zarr"),
    );
    std::fs::write(krate.join("Cargo.toml"), manifest).unwrap();
    // The workspace's lock: the same versions, already built, offline.
    std::fs::copy(root.join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();
    let mut lib = String::from("#![deny(warnings)]\n");
    let mut main = String::from(
        "#![deny(warnings)]\n\nfn back<T: ndl_runtime::Record>(dir: &str, name: &str, records: Vec<T>) {\n    \
         ndl_runtime::npy::write_file(format!(\"{dir}/{name}.back.npy\"), &records).unwrap();\n}\n\n\
         fn back_parquet<T: ndl_runtime::Record>(dir: &str, name: &str, records: Vec<T>) {\n    \
         ndl_arrow::write_parquet(format!(\"{dir}/{name}.back.parquet\"), &records).unwrap();\n}\n\n\
         fn main() {\n    let dir = std::env::args().nth(1).unwrap();\n",
    );
    for c in cases {
        let run = describe(&c.file, "rust", &["--type-name", "Rec"]);
        let source = ok(run, &c.module);
        writeln!(lib, "\npub mod {} {{\n{source}}}", c.module).unwrap();
        let file = format!(
            "&format!(\"{{dir}}/{}\")",
            c.file.file_name().unwrap().to_str().unwrap()
        );
        let ty = format!("generated::{}::Rec", c.module);
        let read = c.read.replace("{T}", &ty).replace("{F}", &file);
        let back = c.back.0;
        writeln!(main, "    {back}(&dir, {:?}, {read}.unwrap());", c.module).unwrap();
    }
    main.push_str("}\n");
    std::fs::write(krate.join("src/lib.rs"), lib).unwrap();
    std::fs::write(krate.join("tests/read_back.rs"), main).unwrap();
}

/// Builds the crate offline into the workspace's target directory, so
/// the dependencies already built are reused; gives the `read_back`
/// program.
fn cargo_build(krate: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    // What cargo set for this test (CARGO_MANIFEST_DIR …): build scripts
    // that watch these (ring's) would otherwise be built again, here and
    // in the next build of the workspace.
    for (key, _) in std::env::vars_os() {
        let key_text = key.to_string_lossy();
        if CRATE_VARS.iter().any(|p| key_text.starts_with(p)) {
            command.env_remove(&key);
        }
    }
    let out = command
        .args(["test", "--offline", "--no-run", "--message-format=json"])
        .args(["--test", "read_back", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    // Cargo's JSON messages, one a line.
    let messages: Vec<serde_json::Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice(line).ok())
        .collect();
    assert!(
        out.status.success(),
        "the generated types do not compile cleanly:\n{}{}\n--- lib.rs\n{}",
        String::from_utf8_lossy(&out.stderr),
        compiler_messages(&messages),
        std::fs::read_to_string(krate.join("src/lib.rs")).unwrap()
    );
    let rebuilt: Vec<&str> = messages
        .iter()
        .filter(|m| m["reason"] == "compiler-artifact" && m["fresh"] == false)
        .filter_map(|m| m["package_id"].as_str())
        .filter(|id| !id.contains("generated"))
        .collect();
    if !rebuilt.is_empty() {
        eprintln!("cli_rust: dependencies built again for the generated crate: {rebuilt:?}");
    }
    messages
        .iter()
        .find(|m| m["target"]["name"] == "read_back")
        .and_then(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the read_back program it built")
}

/// The prefixes of the variables cargo sets for a crate's build and tests.
const CRATE_VARS: &[&str] = &[
    "CARGO_MANIFEST_",
    "CARGO_PKG_",
    "CARGO_CRATE_",
    "CARGO_BIN_",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_TARGET_TMPDIR",
    "CARGO_RUSTC_CURRENT_DIR",
    "CARGO_CFG_",
    "OUT_DIR",
];

/// The compiler's errors and warnings among cargo's JSON messages, as the
/// compiler prints them.
fn compiler_messages(messages: &[serde_json::Value]) -> String {
    messages
        .iter()
        .filter_map(|m| m["message"]["rendered"].as_str())
        .collect()
}

// Overlapping members are refused by the printer's unit tests
// (`lang::rust`): no file format the readers take can hold them.
#[test]
fn several_arrays_need_a_member() {
    let dir = tempfile::tempdir().unwrap();
    let npz = dir.path().join("two.npz");
    let script = r#"
import sys
import numpy as np
np.savez(sys.argv[1], a=np.zeros(2, 'u1'), b=np.zeros(2, [('x', '<f8')]))
"#;
    run_with(&python(), script, &[npz.to_str().unwrap()]);
    refused(
        &describe(&npz, "rust", &[]),
        &npz,
        &["--member", "`a`", "`b`"],
    );
    refused(
        &describe(&npz, "rust", &["--member", "c"]),
        &npz,
        &["`c`", "`a`", "`b`"],
    );
    let b = ok(
        describe(&npz, "rust", &["--member", "b", "--type-name", "row"]),
        "member b",
    );
    assert!(b.contains("pub struct Row {\n    pub x: f64,\n}"), "{b}");
    // Unnamed, the type takes the member's name, not the file's.
    let b = ok(describe(&npz, "rust", &["--member", "b"]), "member b");
    assert!(b.contains("pub struct B {\n    pub x: f64,\n}"), "{b}");
    let npz_path = npz.to_str().unwrap();
    let cdl = crate::common::cli::ndl(&["describe", npz_path, "--member", "b"]);
    assert_eq!(
        cdl.code,
        Some(1),
        "--member without --format rust: {cdl:#?}"
    );
    assert!(cdl.stderr.contains("--format rust"), "{cdl:#?}");
}

/// A column the typed readers take into no Rust type (Arrow's decimals,
/// times of day) is refused by name: the type printed for it compiled but
/// did not read the file.
#[test]
fn arrow_only_columns_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("dec.parquet");
    let script = r#"
import sys, decimal
import pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table({
    'id': pa.array([1, 2], pa.int64()),
    'price': pa.array([decimal.Decimal('1.25'), decimal.Decimal('3.50')], pa.decimal128(10, 2)),
}), sys.argv[1])
"#;
    run_with(&python312(), script, &[parquet.to_str().unwrap()]);
    refused(
        &describe(&parquet, "rust", &[]),
        &parquet,
        &["column `price`", "decimal128(10, 2)", "cast it"],
    );
}

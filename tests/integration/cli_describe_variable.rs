//! `ndl describe` of Parquet and Arrow IPC files whose columns have no
//! fixed size (strings, binaries, lists, maps, structs of them), no NumPy
//! form (decimals, times of day, intervals) or no values (nulls), as
//! pyarrow writes them: described in every language, each checked by its
//! own tool (NumPy builds the dtype, ncgen compiles the CDL); `ndl
//! convert` refuses the columns only Arrow holds, naming one.

use std::path::Path;

use crate::common;

use common::cli::{compile_cdl, convert, describe, ok, refused};
use ndl_testkit::python::{python312, run_with};

/// One column of each kind, as Parquet and as an Arrow IPC file.
const PY_TABLE: &str = r#"
import sys, datetime, decimal
import pyarrow as pa, pyarrow.parquet as pq, pyarrow.ipc as ipc
t = pa.table({
    'id': pa.array([1, 2], pa.int64()),
    'name': pa.array(['a', None], pa.string()),
    'blob': pa.array([b'x', b''], pa.large_binary()),
    'levels': pa.array([[1.0], []], pa.list_(pa.float32())),
    'tags': pa.array([['a'], None], pa.large_list(pa.string())),
    'venue': pa.array([{'code': 'x', 'n': 1}, {'code': None, 'n': 2}],
                      pa.struct([('code', pa.string()), ('n', pa.uint8())])),
    'attrs': pa.array([[('k', 1)], []], pa.map_(pa.string(), pa.int32())),
    'nothing': pa.nulls(2),
    'side': pa.array(['buy', 'sell']).dictionary_encode(),
    'price': pa.array([decimal.Decimal('1.25'), None], pa.decimal128(10, 2)),
    'at': pa.array([datetime.time(1, 2, 3), None], pa.time64('us')),
})
pq.write_table(t, sys.argv[1] + '/t.parquet')
with ipc.new_file(sys.argv[1] + '/t.arrow', t.schema) as w:
    w.write_table(t)
"#;

fn write_table(dir: &Path) {
    run_with(&python312(), PY_TABLE, &[dir.to_str().unwrap()]);
}

/// Columns that hold nulls are `optional` (`?`); the others not, though
/// pyarrow marks every field nullable.
const DATASHAPE: &str = "2 * {id: int64, name: ?string, blob: var * uint8, levels: var * float32, \
     tags: ?var * string, venue: {code: ?string, n: uint8}, attrs: var * {key: string, value: int32}, \
     nothing: ?0 * uint8, side: string, price: ?16 * uint8, at: ?8 * uint8}\n";

#[test]
fn variable_columns_are_described_in_ndl_and_datashape() {
    let dir = tempfile::tempdir().unwrap();
    write_table(dir.path());
    for file in ["t.parquet", "t.arrow"] {
        let path = dir.path().join(file);
        let shape = ok(describe(&path, "datashape", &[]), file);
        assert_eq!(shape, DATASHAPE, "{file}");
        let yaml = ok(describe(&path, "ndl", &[]), file);
        for line in [
            "- name: {type: {optional: {base: string}}}",
            "- blob: {type: {vlen: {base: uint8}}}",
            "- levels: {type: {vlen: {base: float32}}}",
            "- side: {type: string}",
            "optional: {base: {opaque: {size: 16, tag: \"arrow:decimal128(10, 2)\"}}}",
            "type: {optional: {base: {opaque: {size: 8, tag: \"arrow:time64[us]\"}}}}",
            "type: {optional: {base: {opaque: {size: 0, tag: \"arrow:null\"}}}}",
        ] {
            assert!(yaml.contains(line), "{file}: no {line:?} in\n{yaml}");
        }
    }
}

#[test]
fn numpy_builds_the_dtype_described_with_objects_for_variable_columns() {
    let dir = tempfile::tempdir().unwrap();
    write_table(dir.path());
    let path = dir.path().join("t.parquet");
    let run = describe(&path, "numpy", &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    // The objects are named in a warning: the descr cannot say what they hold.
    assert!(
        run.stderr.contains("`levels` (vlen of float32)"),
        "{}",
        run.stderr
    );
    run_with(
        &python312(),
        r#"
import sys, ast, numpy as np, pyarrow.parquet as pq
d = ast.literal_eval(sys.argv[1])
dt = np.dtype(d['descr'])
assert d['shape'] == (2,), d
want = ['id', 'name', 'blob', 'levels', 'tags', 'venue', 'attrs', 'nothing', 'side', 'price', 'at']
assert list(dt.names) == want, dt.names
assert dt['id'] == np.dtype('<i8')
objects = [n for n in dt.names if dt[n] == np.dtype('O')]
assert objects == ['name', 'blob', 'levels', 'tags', 'attrs', 'nothing', 'side', 'price', 'at'], objects
assert dt['venue'].names == ('code', 'n') and dt['venue']['code'] == np.dtype('O'), dt['venue']
# pyarrow makes Python objects of the same columns.
t = pq.read_table(sys.argv[2])
for n in objects:
    assert t.column(n).to_numpy(zero_copy_only=False).dtype == np.dtype('O'), n
"#,
        &[run.stdout.trim(), path.to_str().unwrap()],
    );
}

#[test]
fn cdl_of_variable_columns_compiles_with_ncgen() {
    let dir = tempfile::tempdir().unwrap();
    write_table(dir.path());
    let path = dir.path().join("t.arrow");
    let run = describe(&path, "cdl", &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(
        run.stderr.contains("`nothing` are of Arrow's null type"),
        "{}",
        run.stderr
    );
    for text in [
        "float(*) levels_t ;",
        "string name ;",
        "string(*) tags_t ;",
        "opaque(16) price_t ;",
    ] {
        assert!(run.stdout.contains(text), "no {text:?} in\n{}", run.stdout);
    }
    let header = compile_cdl(&run.stdout, dir.path(), "t");
    assert!(header.contains("levels_t levels ;"), "{header}");
    assert!(header.contains("string code ;"), "{header}");
}

#[test]
fn zarr_and_convert_refuse_variable_columns_by_name() {
    let dir = tempfile::tempdir().unwrap();
    write_table(dir.path());
    let path = dir.path().join("t.parquet");
    refused(
        &describe(&path, "zarr", &[]),
        &path,
        &[
            "`name` (string)",
            "`levels` (vlen of float32)",
            "struct extension",
        ],
    );
    let npy = dir.path().join("t.npy");
    refused(
        &convert(&path, &npy, &[]),
        &path,
        &["column `nothing`", "Arrow type `null`"],
    );
    assert!(!npy.exists());
}

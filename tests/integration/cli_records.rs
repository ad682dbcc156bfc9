//! `ndl convert` of records with strings, lists and options between
//! formats, to `.npy`, and `--fill`: a table pyarrow writes goes round
//! netCDF-4, Zarr and Arrow IPC and comes back equal, nulls included;
//! through HDF5 and `.npy`, which have no nulls, with the fills given.

use std::path::Path;

use crate::common;

use common::cli::{convert, converted, describe, ok, refused};
use ndl_testkit::python::{python312, run_with};

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The table every test starts from: plain numbers, strings (non-ASCII
/// and empty ones), a nullable number with nulls, and lists (empty ones
/// too), as pyarrow writes them.
const TABLE: &str = r#"
import pyarrow as pa
n = 23
table = pa.table({
    "id": pa.array(range(n), pa.uint64()),
    "symbol": pa.array(["", "Ünï", "日本"] + [f"s{i}" for i in range(3, n)], pa.string()),
    "price": pa.array([i / 8 for i in range(n)], pa.float64()),
    "venue": pa.array([None if i % 4 == 1 else i * 10 for i in range(n)], pa.int32()),
    "levels": pa.array([[float(k) for k in range(i % 3)] for i in range(n)], pa.list_(pa.float32())),
    "tags": pa.array([["é"] * (i % 2) for i in range(n)], pa.list_(pa.string())),
})
"#;

/// `TABLE` written to the Parquet file at `to`, with `extra` columns.
fn write_table(to: &Path, script: &str) {
    run_with(
        &python312(),
        &format!(
            "{TABLE}\nimport sys, pyarrow.parquet as pq\n{script}\npq.write_table(table, sys.argv[1])\n"
        ),
        &[path(to)],
    );
}

#[test]
fn a_table_goes_round_netcdf_zarr_and_ipc_and_comes_back_equal_nulls_included() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (parquet, nc, zarr, zarr2, ipc) = (
        d.join("t.parquet"),
        d.join("t.nc"),
        d.join("t.zarr"),
        d.join("t2.zarr"),
        d.join("t.arrow"),
    );
    write_table(&parquet, "");
    converted(
        convert(&parquet, &nc, &["--fill", "venue=-1"]),
        "parquet to nc",
    );
    converted(convert(&nc, &zarr, &[]), "nc to zarr");
    converted(
        convert(&zarr, &zarr2, &["--zarr-format", "2"]),
        "zarr to zarr v2",
    );
    converted(convert(&zarr2, &ipc, &[]), "zarr v2 to arrow");
    run_with(
        &python312(),
        r#"
import sys, pyarrow.parquet as pq, pyarrow.ipc as ipc, netCDF4, xarray as xr
want = pq.read_table(sys.argv[1])
got = ipc.open_file(sys.argv[2]).read_all()
for name in want.column_names:
    assert got.column(name).to_pylist() == want.column(name).to_pylist(), (name, got.column(name), want.column(name))
with netCDF4.Dataset(sys.argv[3]) as f:
    venue = f["venue"][:]
    assert venue.mask.tolist() == [i % 4 == 1 for i in range(23)], venue
    assert f["symbol"][:].tolist()[:3] == ["", "Ünï", "日本"]
ds = xr.open_zarr(sys.argv[4])
assert ds["symbol"].values.tolist()[:3] == ["", "Ünï", "日本"], ds
"#,
        &[path(&parquet), path(&ipc), path(&nc), path(&zarr)],
    );
}

#[test]
fn a_table_goes_to_hdf5_with_its_fills_and_back_with_its_nulls() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (parquet, h5, back) = (d.join("t.parquet"), d.join("t.h5"), d.join("back.parquet"));
    write_table(
        &parquet,
        r#"table = table.append_column("note", pa.array([None if i % 3 == 0 else f"n{i}" for i in range(n)], pa.string()))"#,
    );
    let unfilled = convert(&parquet, &d.join("no.h5"), &[]);
    refused(&unfilled, &d.join("no.h5"), &["--fill venue=VALUE"]);
    assert!(!d.join("no.h5").exists());
    converted(
        convert(&parquet, &h5, &["--fill", "venue=-1", "--fill", "note=NA"]),
        "parquet to h5",
    );
    converted(convert(&h5, &back, &[]), "h5 to parquet");
    run_with(
        &python312(),
        r#"
import sys, h5py, pyarrow.parquet as pq
want = pq.read_table(sys.argv[1]).to_pylist()
with h5py.File(sys.argv[2]) as f:
    (name,) = f.keys()
    d = f[name]
    assert h5py.check_string_dtype(d.dtype["symbol"]) is not None, d.dtype
    assert h5py.check_vlen_dtype(d.dtype["levels"]) is not None, d.dtype
    rows = d[:]
    for w, r in zip(want, rows):
        assert r["symbol"].decode() == w["symbol"], (r, w)
        assert r["venue"] == (-1 if w["venue"] is None else w["venue"]), (r, w)
        assert r["note"].decode() == (w["note"] or "NA"), (r, w)
        assert r["levels"].tolist() == w["levels"], (r, w)
        assert [t.decode() for t in r["tags"]] == w["tags"], (r, w)
# The dataset's `ndl_fills` marks the options: the nulls come back.
assert pq.read_table(sys.argv[3]).to_pylist() == want
"#,
        &[path(&parquet), path(&h5), path(&back)],
    );
    // Described as it reads: `venue` and `note` optional, in NDL and Rust.
    let ndl = ok(describe(&h5, "ndl", &[]), "describe");
    assert!(
        ndl.contains("venue: {type: {optional: {base: int32}}}"),
        "{ndl}"
    );
    assert!(!ndl.contains("ndl_fills"), "{ndl}");
    let rust = ok(describe(&h5, "rust", &[]), "describe");
    assert!(rust.contains("pub note: Option<String>"), "{rust}");
}

#[test]
fn records_go_to_npy_with_strings_as_the_narrowest_u_and_fills_for_nulls() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (parquet, npy) = (d.join("t.parquet"), d.join("t.npy"));
    write_table(
        &parquet,
        r#"table = table.drop_columns(["levels", "tags"])"#,
    );
    let bare = convert(&parquet, &d.join("bare.npy"), &[]);
    refused(
        &bare,
        &d.join("bare.npy"),
        &[
            "column `venue` of",
            "may be null, and a `.npy` file has no nulls: give a value to stand for null \
             with `--fill venue=VALUE`",
        ],
    );
    let bad = convert(&parquet, &d.join("bad.npy"), &["--fill", "venue=x"]);
    refused(&bad, &parquet, &["--fill venue", "`x`"]);
    let unknown = convert(&parquet, &d.join("bad.npy"), &["--fill", "venu=1"]);
    refused(
        &unknown,
        &parquet,
        &["--fill venu", "id, symbol, price, venue"],
    );
    converted(
        convert(&parquet, &npy, &["--fill", "venue=-1"]),
        "parquet to npy",
    );
    // A .npz archive takes them as its one member, named for the source.
    let npz = d.join("t.npz");
    refused(
        &convert(&parquet, &npz, &[]),
        &npz,
        &["a `.npz` archive has no nulls", "--fill venue=VALUE"],
    );
    converted(
        convert(&parquet, &npz, &["--fill", "venue=-1"]),
        "parquet to npz",
    );
    let check = r#"
import sys, numpy as np, pyarrow.parquet as pq
want = pq.read_table(sys.argv[1]).to_pylist()
a = np.load(sys.argv[2])
if sys.argv[2].endswith('.npz'):
    assert a.files == ['t'], a.files
    a = a['t']
assert a.dtype["symbol"] == np.dtype("<U3"), a.dtype
assert a["symbol"].tolist() == [w["symbol"] for w in want], a
assert a["venue"].tolist() == [-1 if w["venue"] is None else w["venue"] for w in want], a
"#;
    for to in [&npy, &npz] {
        run_with(&python312(), check, &[path(&parquet), path(to)]);
    }
}

#[test]
fn lists_are_refused_by_npy_naming_the_column() {
    let dir = tempfile::tempdir().unwrap();
    let (parquet, npy) = (dir.path().join("t.parquet"), dir.path().join("t.npy"));
    write_table(&parquet, "");
    let run = convert(&parquet, &npy, &["--fill", "venue=-1"]);
    refused(&run, &npy, &["`levels`", "variable-length lists"]);
    assert!(!npy.exists());
}

#[test]
fn an_h5py_compound_of_strings_goes_to_npy_as_the_narrowest_u() {
    let dir = tempfile::tempdir().unwrap();
    let (h5, npy) = (dir.path().join("c.h5"), dir.path().join("c.npy"));
    run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
rec = [("id", "<u2"), ("name", h5py.string_dtype()), ("venue", [("code", h5py.string_dtype()), ("n", "<i4")])]
with h5py.File(sys.argv[1], "w") as f:
    d = f.create_dataset("c", (3,), dtype=rec)
    d[0] = (1, "ab", ("Ü", 7))
    d[1] = (2, "", ("xyz", -1))
    d[2] = (3, "日本語です", ("", 0))
"#,
        &[path(&h5)],
    );
    converted(convert(&h5, &npy, &[]), "h5 to npy");
    run_with(
        &python312(),
        r#"
import sys, numpy as np
a = np.load(sys.argv[1])
assert a.dtype["name"] == np.dtype("<U5") and a.dtype["venue"]["code"] == np.dtype("<U3"), a.dtype
assert a["name"].tolist() == ["ab", "", "日本語です"], a
assert a["venue"]["code"].tolist() == ["Ü", "xyz", ""] and a["venue"]["n"].tolist() == [7, -1, 0], a
assert a["id"].tolist() == [1, 2, 3], a
"#,
        &[path(&npy)],
    );
}

/// Records of numbers alone, two of them nullable (a NaN fill included),
/// go to HDF5 and back with their nulls: the dataset's `ndl_fills` sends
/// them through the records path though no member is variable-length.
#[test]
fn numbers_with_nulls_go_to_hdf5_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (parquet, h5, back) = (d.join("n.parquet"), d.join("n.h5"), d.join("back.parquet"));
    let make = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table({
    'id': pa.array([1, 2, 3], pa.uint64()),
    'qty': pa.array([None, 2, 3], pa.int32()),
    'x': pa.array([0.5, None, 1.5]),
}), sys.argv[1])
"#;
    run_with(&python312(), make, &[path(&parquet)]);
    let fills = ["--fill", "qty=-1", "--fill", "x=NaN"];
    converted(convert(&parquet, &h5, &fills), "parquet to h5");
    converted(convert(&h5, &back, &[]), "h5 to parquet");
    let check = r#"
import sys, pyarrow.parquet as pq
assert pq.read_table(sys.argv[1]).to_pylist() == pq.read_table(sys.argv[2]).to_pylist()
"#;
    run_with(&python312(), check, &[path(&parquet), path(&back)]);
}

/// A table pyarrow writes as an Arrow IPC file with an optional list
/// (one null holding an item below it, as Arrow allows), an optional
/// record, and an option inside a list of records.
const NESTED_NULLS: &str = r#"
import sys, pyarrow as pa, pyarrow.ipc as ipc
tags = pa.ListArray.from_arrays(
    pa.array([0, 2, 3, 3, 4], pa.int32()), pa.array([1, 2, 99, 4], pa.int32()),
    mask=pa.array([False, True, False, False]))
place = pa.array([{"code": 3, "name": "x"}, None, {"code": 4, "name": None}, {"code": 5, "name": "y"}],
                 pa.struct([("code", pa.uint16()), ("name", pa.string())]))
legs = pa.array([[{"qty": 5}, {"qty": None}], [], [{"qty": None}], [{"qty": 7}]],
                pa.list_(pa.struct([("qty", pa.int32())])))
table = pa.table({"tags": tags, "place": place, "legs": legs})
with ipc.new_file(sys.argv[1], table.schema) as w:
    w.write_table(table)
"#;

#[test]
fn null_lists_records_and_options_in_lists_take_the_fills_each_error_advises() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (src, h5, back) = (d.join("t.arrow"), d.join("t.h5"), d.join("back.parquet"));
    run_with(&python312(), NESTED_NULLS, &[path(&src)]);
    // Each refusal names the next column and the fill that it takes, and
    // that fill is taken.
    let mut fills: Vec<&str> = Vec::new();
    for (column, advice, fill) in [
        ("tags", "--fill tags=[]", "tags=[]"),
        ("place", "--fill place.code=VALUE", "place.code=0"),
        ("place.name", "--fill place.name=VALUE", "place.name=-"),
        ("legs.qty", "--fill legs.qty=VALUE", "legs.qty=-1"),
    ] {
        let run = convert(&src, &h5, &fills);
        assert_eq!(run.code, Some(1), "{run:#?}");
        let error = run.stderr.lines().last().unwrap_or_default();
        assert!(error.starts_with("ndl: error: "), "{run:#?}");
        assert!(error.contains(&format!("column `{column}` of")), "{run:#?}");
        assert!(error.ends_with(&format!("`{advice}`")), "{run:#?}");
        assert!(!h5.exists());
        fills.extend(["--fill", fill]);
    }
    let run = convert(&src, &h5, &fills);
    assert_eq!(run.code, Some(0), "{run:#?}");
    for note in [
        "tags=[]: its nulls are written as empty lists",
        "`place` may be null",
    ] {
        assert!(run.stderr.contains(note), "{run:#?}");
    }
    let wrong = convert(&src, &d.join("no.h5"), &["--fill", "tags=[0]"]);
    refused(&wrong, &src, &["--fill tags", "takes `[]`"]);
    converted(convert(&h5, &back, &[]), "h5 to parquet");
    run_with(
        &python312(),
        r#"
import sys, h5py, pyarrow.parquet as pq
with h5py.File(sys.argv[1]) as f:
    (name,) = f.keys()
    rows = f[name][:]
    assert [r["tags"].tolist() for r in rows] == [[1, 2], [], [], [4]], rows
    assert [r["place"]["code"] for r in rows] == [3, 0, 4, 5], rows
    assert [r["place"]["name"].decode() for r in rows] == ["x", "-", "-", "y"], rows
    assert [r["legs"]["qty"].tolist() for r in rows] == [[5, -1], [], [-1], [7]], rows
# Back in a format with nulls: the fills are nulls again; a null list is
# an empty one, and a null record a record of nulls.
got = pq.read_table(sys.argv[2]).to_pylist()
assert got == [
    {"tags": [1, 2], "place": {"code": 3, "name": "x"}, "legs": [{"qty": 5}, {"qty": None}]},
    {"tags": [], "place": {"code": None, "name": None}, "legs": []},
    {"tags": [], "place": {"code": 4, "name": None}, "legs": [{"qty": None}]},
    {"tags": [4], "place": {"code": 5, "name": "y"}, "legs": [{"qty": 7}]},
], got
"#,
        &[path(&h5), path(&back)],
    );
}

/// Lists whose items may be null have no fill in a format without nulls:
/// the refusal says where they go instead, and `--fill` of the column
/// says the same rather than that it holds no nulls.
#[test]
fn null_items_of_lists_are_refused_pointing_to_formats_with_nulls() {
    let dir = tempfile::tempdir().unwrap();
    let (src, h5) = (dir.path().join("l.parquet"), dir.path().join("l.h5"));
    run_with(
        &python312(),
        r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
l = pa.array([[1, None], [3]], pa.list_(pa.int32()))
pq.write_table(pa.table({"l": l}, schema=pa.schema([pa.field("l", l.type, nullable=False)])), sys.argv[1])
"#,
        &[path(&src)],
    );
    for fills in [&[][..], &["--fill", "l=[]"], &["--fill", "l=-1"]] {
        let run = convert(&src, &h5, fills);
        refused(&run, &src, &["null items", "Parquet or Arrow IPC"]);
        assert!(!run.stderr.contains("nothing to fill"), "{run:#?}");
        assert!(!h5.exists());
    }
    // The CDL names the items apart from a list that may itself be null.
    let cdl = describe(&src, "cdl", &[]);
    assert!(
        cdl.stderr.contains("the members `l[]` hold nulls"),
        "{cdl:#?}"
    );
    // A list that may be null too, and lists of such lists, say so at
    // once, not after a `--fill m=[]` that cannot be enough.
    let nested = dir.path().join("nested.parquet");
    run_with(
        &python312(),
        r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
m = pa.array([[1, None], None], pa.list_(pa.int32()))
n = pa.array([[[1, None]], [[]]], pa.list_(pa.list_(pa.int32())))
pq.write_table(pa.table({"m": m, "n": n}), sys.argv[1])
"#,
        &[path(&nested)],
    );
    for fills in [&[][..], &["--fill", "n=1"]] {
        let run = convert(&nested, &h5, fills);
        refused(&run, &nested, &["null items", "Parquet or Arrow IPC"]);
        assert!(!run.stderr.contains("`--fill m=[]`"), "{run:#?}");
        assert!(!run.stderr.contains("nothing to fill"), "{run:#?}");
    }
}

/// The columns layout asked of an `.h5` refuses a null without a fill as
/// what it is, an HDF5 file, not a netCDF-4 one.
#[test]
fn a_null_without_a_fill_is_refused_by_the_format_it_goes_to() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("n.parquet");
    run_with(
        &python312(),
        "import sys, pyarrow as pa, pyarrow.parquet as pq\n\
         pq.write_table(pa.table({'s': ['a', None]}), sys.argv[1])",
        &[path(&src)],
    );
    for (to, what) in [("n.h5", "an HDF5 file"), ("n.nc", "a netCDF-4 file")] {
        let dst = dir.path().join(to);
        let run = convert(&src, &dst, &["--layout", "columns"]);
        refused(&run, &src, &["column `s`", &format!("{what} has no nulls")]);
    }
}

/// An Arrow map column (pyarrow's `map_`, DuckDB's `MAP`) is read as
/// what `ndl describe` says it is, a list of its key-value records.
#[test]
fn map_columns_convert_as_lists_of_key_value_records() {
    let dir = tempfile::tempdir().unwrap();
    let (src, h5, back) = (
        dir.path().join("m.parquet"),
        dir.path().join("m.h5"),
        dir.path().join("back.parquet"),
    );
    run_with(
        &python312(),
        r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
m = pa.array([[("a", 1), ("b", 2)], [], [("c", 3)]], pa.map_(pa.string(), pa.int32()))
schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("m", m.type, nullable=False)])
pq.write_table(pa.table({"id": [1, 2, 3], "m": m}, schema=schema), sys.argv[1])
"#,
        &[path(&src)],
    );
    converted(convert(&src, &h5, &[]), "a map to .h5");
    converted(convert(&h5, &back, &[]), "back to parquet");
    run_with(
        &python312(),
        r#"
import sys, h5py, pyarrow.parquet as pq
with h5py.File(sys.argv[1]) as f:
    (name,) = f.keys()
    # h5py reads no sequence of records holding strings (a background
    # buffer it lacks): its type, then the values through ndl's copy.
    entries = h5py.check_vlen_dtype(f[name].dtype["m"])
    assert entries.names == ("key", "value"), entries
rows = pq.read_table(sys.argv[2]).to_pylist()
assert [[(e["key"], e["value"]) for e in r["m"]] for r in rows] == [[("a", 1), ("b", 2)], [], [("c", 3)]], rows
"#,
        &[path(&h5), path(&back)],
    );
}

/// A nullable string column goes to Zarr columns (v3 and v2) with its
/// fill as the string array's `fill_value`, which xarray masks in v2, and
/// comes back to Parquet with its nulls; an empty string stays one.
#[test]
fn optional_strings_go_to_zarr_with_their_fill_and_back_as_nulls() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let parquet = d.join("t.parquet");
    write_table(
        &parquet,
        r#"table = table.append_column("note", pa.array([None if i % 3 == 0 else ("" if i % 3 == 1 else f"n{i}") for i in range(n)], pa.string()))"#,
    );
    for format in ["2", "3"] {
        let (zarr, back) = (
            d.join(format!("t{format}.zarr")),
            d.join(format!("back{format}.parquet")),
        );
        let unfilled = convert(
            &parquet,
            &zarr,
            &["--zarr-format", format, "--fill", "venue=-1"],
        );
        refused(&unfilled, &zarr, &["column `note`", "--fill note=VALUE"]);
        let fills = ["--fill", "venue=-1", "--fill", "note=NA"];
        let run = convert(
            &parquet,
            &zarr,
            &[&fills[..], &["--zarr-format", format]].concat(),
        );
        converted(run, "parquet to zarr");
        converted(convert(&zarr, &back, &[]), "zarr to parquet");
        run_with(
            &python312(),
            r#"
import sys, pyarrow.parquet as pq, xarray as xr, zarr
want = pq.read_table(sys.argv[1]).to_pylist()
assert pq.read_table(sys.argv[2]).to_pylist() == want
stored = [w["note"] if w["note"] is not None else "NA" for w in want]
assert zarr.open_group(sys.argv[3])["note"][:].tolist() == stored
seen = xr.open_zarr(sys.argv[3])["note"].values.tolist()
if sys.argv[4] == "2":
    stored = [None if w["note"] is None else w["note"] for w in want]
    seen = [None if v != v else v for v in seen]
assert seen == stored, seen
"#,
            &[path(&parquet), path(&back), path(&zarr), format],
        );
    }
}

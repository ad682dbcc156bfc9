//! `ndl convert` of records with strings, lists and options (parquet):
//! tables pyarrow wrote, with nulls, non-ASCII and empty values, a struct
//! and lists, go to Parquet and to Arrow IPC files and streams, which
//! pyarrow, polars and DuckDB read back as the same table, values and
//! nulls; tables polars wrote likewise. Nullable columns that hold no
//! null stay plain; a truncated file is an error naming it.

use std::path::Path;

use crate::common;

use common::cli::{convert, converted, describe, ok, refused};
use ndl_testkit::python::{python312, run_with};

/// Five rows, the table in two row groups (Parquet) and two batches
/// (IPC); argv: the Parquet file, the IPC file.
const MAKE: &str = r#"
import sys
import pyarrow as pa, pyarrow.parquet as pq, pyarrow.ipc as ipc
place = pa.struct([("x", pa.int32()), ("label", pa.string())])
t = pa.table({
    "name": pa.array(["a", "é日本", "", "zz", None], pa.string()),
    "levels": pa.array([[1.5, 2.0], [], [3.25], None, [0.0]], pa.list_(pa.float32())),
    "tags": pa.array([["x", ""], [], ["ü"], ["a", "b", "c"], []], pa.list_(pa.string())),
    "count": pa.array([1, None, 3, 4, None], pa.int64()),
    "full": pa.array([10, 20, 30, 40, 50], pa.int64()),
    "plain": pa.array([1.0, 2.5, -3.0, 4.0, 5.0]),
    "place": pa.array([{"x": 1, "label": "p"}, {"x": 2, "label": ""}, None,
                       {"x": 4, "label": "ß"}, {"x": 5, "label": None}], place),
})
pq.write_table(t, sys.argv[1], row_group_size=2)
with ipc.new_file(sys.argv[2], t.schema) as w:
    for b in t.to_batches(max_chunksize=3):
        w.write_batch(b)
"#;

/// argv: the original Parquet file, then each copy. Each copy is read by
/// pyarrow, polars and DuckDB and must equal the original as each reads
/// it; prints the number of copies checked.
const CHECK: &str = r#"
import sys
import pyarrow as pa, pyarrow.parquet as pq, pyarrow.ipc as ipc
import polars as pl, duckdb

def arrow(p):
    if p.endswith(".parquet"):
        return pq.read_table(p)
    if p.endswith(".arrows"):
        return ipc.open_stream(p).read_all()
    return ipc.open_file(p).read_all()

def polars(p):
    if p.endswith(".parquet"):
        return pl.read_parquet(p)
    if p.endswith(".arrows"):
        return pl.read_ipc_stream(p)
    return pl.read_ipc(p)

def rows(t):
    # DuckDB reads Parquet itself; Arrow IPC through the table pyarrow read.
    return duckdb.sql("select * from t").fetchall()

def duck(p):
    if p.endswith(".parquet"):
        return duckdb.sql(f"select * from read_parquet('{p}')").fetchall()
    return rows(arrow(p))

original = sys.argv[1]
want = arrow(original)
assert want.column("count").null_count == 2 and want.column("name").null_count == 1
for copy in sys.argv[2:]:
    got = arrow(copy)
    assert got.column_names == want.column_names, (copy, got.schema)
    assert got.to_pylist() == want.to_pylist(), (copy, got.to_pylist(), want.to_pylist())
    assert polars(copy).to_dicts() == polars(original).to_dicts(), copy
    assert duck(copy) == duck(original), (copy, duck(copy), duck(original))
    fields = {f.name: f for f in got.schema}
    # `optional` only where the data holds nulls.
    assert fields["count"].nullable and fields["name"].nullable, got.schema
    assert not fields["full"].nullable and not fields["tags"].nullable, got.schema
    assert fields["tags"].type == pa.list_(pa.field("item", pa.string(), nullable=False)), got.schema
print(len(sys.argv) - 2)
"#;

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn pyarrow_tables_with_strings_lists_and_nulls_convert_to_parquet_and_ipc() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (parquet, ipc) = (d.join("t.parquet"), d.join("t.arrow"));
    run_with(&python312(), MAKE, &[path(&parquet), path(&ipc)]);
    let datashape = "5 * {name: ?string, levels: ?var * float32, tags: var * string, \
                     count: ?int64, full: int64, plain: float64, \
                     place: ?{x: int32, label: ?string}}\n";
    for src in [&parquet, &ipc] {
        let described = ok(describe(src, "datashape", &[]), "describe");
        assert_eq!(described, datashape, "{}", src.display());
    }
    let mut copies = Vec::new();
    for (src, stem) in [(&parquet, "from_parquet"), (&ipc, "from_arrow")] {
        for ending in ["parquet", "arrow", "arrows"] {
            let dest = d.join(format!("{stem}.{ending}"));
            converted(convert(src, &dest, &[]), &format!("{stem} to {ending}"));
            copies.push(dest);
        }
    }
    // A copy of a copy: ndl's own files come back the same.
    let again = d.join("again.parquet");
    converted(convert(&copies[2], &again, &[]), "stream to parquet");
    copies.push(again);
    let mut args = vec![path(&parquet)];
    args.extend(copies.iter().map(|c| path(c)));
    let checked = run_with(&python312(), CHECK, &args);
    assert_eq!(checked.trim(), copies.len().to_string());
    for copy in &copies {
        let described = ok(describe(copy, "datashape", &[]), "describe a copy");
        assert_eq!(described, datashape, "{}", copy.display());
    }
}

#[test]
fn a_truncated_file_is_an_error_naming_it_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (parquet, ipc) = (d.join("t.parquet"), d.join("t.arrow"));
    run_with(&python312(), MAKE, &[path(&parquet), path(&ipc)]);
    for (whole, cut) in [
        (&parquet, d.join("cut.parquet")),
        (&ipc, d.join("cut.arrow")),
    ] {
        let bytes = std::fs::read(whole).unwrap();
        std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
        for ending in ["parquet", "arrows"] {
            let dest = d.join(format!("out.{ending}"));
            refused(&convert(&cut, &dest, &[]), &cut, &[]);
            assert!(!dest.exists(), "{} was written", dest.display());
        }
    }
}

/// Tables polars wrote (its own string views, large lists and
/// categoricals in IPC) convert too, and polars reads the copies back as
/// the same frame. argv: the Parquet file, the IPC file, then the copies.
const POLARS: &str = r#"
import sys
import polars as pl
if len(sys.argv) == 3:
    df = pl.DataFrame({
        "s": ["a", None, "é", ""],
        "l": [[1, 2], [], None, [3]],
        "c": pl.Series(["x", "y", "x", "y"], dtype=pl.Categorical),
        "i": [1, None, 3, 4],
    })
    df.write_parquet(sys.argv[1])
    df.write_ipc(sys.argv[2])
    sys.exit()
want = pl.read_parquet(sys.argv[1]).to_dicts()
assert pl.read_ipc(sys.argv[2]).to_dicts() == want
for copy in sys.argv[3:]:
    got = pl.read_parquet(copy) if copy.endswith(".parquet") else pl.read_ipc(copy)
    assert got.to_dicts() == want, (copy, got.to_dicts(), want)
print(len(sys.argv) - 3)
"#;

#[test]
fn polars_tables_convert_and_polars_reads_the_copies() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (parquet, ipc) = (d.join("p.parquet"), d.join("p.arrow"));
    run_with(&python312(), POLARS, &[path(&parquet), path(&ipc)]);
    let mut copies = Vec::new();
    for (src, dest) in [(&parquet, "a.arrow"), (&ipc, "b.parquet")] {
        let dest = d.join(dest);
        converted(convert(src, &dest, &[]), dest.to_str().unwrap());
        copies.push(dest);
    }
    let mut args = vec![path(&parquet), path(&ipc)];
    args.extend(copies.iter().map(|c| path(c)));
    assert_eq!(run_with(&python312(), POLARS, &args).trim(), "2");
}

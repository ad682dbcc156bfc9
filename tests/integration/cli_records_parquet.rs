//! `ndl convert` of records with strings, lists and options (parquet):
//! tables pyarrow wrote, with nulls, non-ASCII and empty values, a struct
//! and lists, go to Parquet and to Arrow IPC files and streams, which
//! pyarrow, polars and DuckDB read back as the same table, values and
//! nulls; tables polars wrote likewise. Between Parquet and IPC the
//! batches are copied as they are, types only Arrow holds included; a
//! truncated file is an error naming it.

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

/// `shape(schema)`, for the checks below: each field's name, nullability
/// and type, the names of list items and map entries aside (Parquet
/// writers name them as they like), and the schema's metadata.
const SHAPE: &str = r#"
def shape(schema):
    def kind(t):
        if pa.types.is_map(t):
            return ("map", kind(t.key_type), kind(t.item_type), t.item_field.nullable)
        if pa.types.is_list(t) or pa.types.is_large_list(t):
            return (str(t).split("<")[0], kind(t.value_type), t.value_field.nullable)
        if pa.types.is_struct(t):
            return ("struct", [(f.name, f.nullable, kind(f.type)) for f in t])
        # Parquet holds dates as days, as pyarrow's writer does.
        return "date32[day]" if t == pa.date64() else str(t)
    return [(f.name, f.nullable, kind(f.type)) for f in schema], schema.metadata
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
    # The batches are copied as they are: every type, and nullable as
    # pyarrow made every field, schema metadata included.
    assert shape(got.schema) == shape(want.schema), (copy, got.schema, want.schema)
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
    let checked = run_with(&python312(), &format!("{SHAPE}{CHECK}"), &args);
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

/// argv: mode (`make` or `check`), the Parquet file, the IPC file, then
/// (`check`) the copies. Types only Arrow holds (decimals, times of day,
/// binary, fixed-size binary, maps, dictionaries, dates of milliseconds),
/// schema metadata, and
/// DuckDB's Parquet INTERVAL; each copy holds the original's schema and
/// values as pyarrow, polars and DuckDB (the types they have) read them.
const ARROW_ONLY: &str = r#"
import sys, decimal, datetime
import pyarrow as pa, pyarrow.parquet as pq, pyarrow.ipc as ipc
import polars as pl, duckdb
mode, parquet, arrow_file = sys.argv[1:4]
if mode == "make":
    t = pa.table({
        "dec": pa.array([decimal.Decimal("1.50"), None, decimal.Decimal("-2.25")], pa.decimal128(10, 2)),
        "big": pa.array([decimal.Decimal("1e30"), decimal.Decimal("0"), None], pa.decimal256(40, 0)),
        "tod": pa.array([datetime.time(12, 0), datetime.time(1, 2, 3, 4), None], pa.time64("us")),
        "bin": pa.array([b"a\x00b", b"", None], pa.binary()),
        "lbin": pa.array([b"x", b"yz", b""], pa.large_binary()),
        "fsb": pa.array([b"abcd", b"\x00\x00\x00\x01", b"zzzz"], pa.binary(4)),
        "map": pa.array([[("k", 1)], [], None], pa.map_(pa.string(), pa.int32())),
        "dict": pa.array(["u", "v", "u"]).dictionary_encode(),
        "d64": pa.array([0, 3 * 86400000, None], pa.date64()),
    }, metadata={"origin": "test"})
    pq.write_table(t, parquet)
    with ipc.new_file(arrow_file, t.schema) as w:
        w.write_table(t)
    duckdb.sql(f"copy (select interval 1 month + interval 2 day as iv) to '{parquet}.interval.parquet'")
    union = pa.UnionArray.from_sparse(pa.array([0, 1], pa.int8()), [pa.array([1, 2]), pa.array(["a", "b"])])
    u = pa.table({"id": [1, 2], "s": pa.StructArray.from_arrays([union], ["u"])})
    with ipc.new_file(arrow_file + ".union.arrow", u.schema) as w:
        w.write_table(u)
    sys.exit()
def table(p):
    if p.endswith(".parquet"):
        return pq.read_table(p)
    return (ipc.open_stream if p.endswith(".arrows") else ipc.open_file)(p).read_all()
# Neither polars nor DuckDB has a 256-bit decimal.
def frame(p):
    cols = [n for n in want.column_names if n != "big"]
    read = {"parquet": pl.read_parquet, "arrow": pl.read_ipc, "arrows": pl.read_ipc_stream}
    return read[p.rsplit(".", 1)[1]](p, columns=cols)
def duck(p):
    t = table(p).drop_columns(["big"])
    return duckdb.sql("select * from t").fetchall()
want = table(parquet)
for copy in sys.argv[4:]:
    got = table(copy)
    assert shape(got.schema) == shape(want.schema), (copy, got.schema, want.schema)
    assert got.to_pylist() == want.to_pylist(), (copy, got.to_pylist())
    assert frame(copy).equals(frame(parquet)), copy
    assert duck(copy) == duck(parquet), copy
print(len(sys.argv) - 4)
"#;

#[test]
fn types_only_arrow_holds_are_copied_between_parquet_and_ipc_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (parquet, ipc) = (d.join("o.parquet"), d.join("o.arrow"));
    run_with(
        &python312(),
        ARROW_ONLY,
        &["make", path(&parquet), path(&ipc)],
    );
    let mut copies = Vec::new();
    for (src, dest) in [
        (&parquet, "a.arrow"),
        (&parquet, "b.arrows"),
        (&parquet, "c.parquet"),
        (&ipc, "d.parquet"),
    ] {
        let dest = d.join(dest);
        converted(convert(src, &dest, &[]), dest.to_str().unwrap());
        copies.push(dest);
    }
    let mut args = vec!["check", path(&parquet), path(&ipc)];
    args.extend(copies.iter().map(|c| path(c)));
    let script = format!("{SHAPE}{ARROW_ONLY}");
    assert_eq!(run_with(&python312(), &script, &args).trim(), "4");
    // Nothing to fill where both hold nulls.
    let filled = d.join("filled.arrow");
    let run = convert(&parquet, &filled, &["--fill", "dec=0"]);
    refused(&run, &filled, &["--fill dec does not apply"]);
    assert!(!filled.exists());
    // The parquet crate drops an INTERVAL's months: refused, not copied.
    let interval = d.join("o.parquet.interval.parquet");
    let out = d.join("interval.arrow");
    let run = convert(&interval, &out, &[]);
    refused(
        &run,
        &interval,
        &["column `iv` is a Parquet INTERVAL", "without its months"],
    );
    assert!(!out.exists());
    // Described as the 12 bytes pyarrow reads, not as a day_time_interval.
    let ndl = ok(describe(&interval, "ndl", &[]), "describe");
    assert!(ndl.contains("iv: {type: {opaque: {size: 12}}"), "{ndl}");
    // Parquet has no union: refused by column, where the parquet crate
    // would panic.
    let union = d.join("o.arrow.union.arrow");
    let out = d.join("union.parquet");
    let run = convert(&union, &out, &[]);
    refused(
        &run,
        &out,
        &["column `s.u`: a union, which Parquet has no form for"],
    );
    assert!(!out.exists());
}

//! Records with `String`, `Vec`, `Option`, nested-record and array fields
//! (`#[derive(Record)]`), both ways: round trips through record batches,
//! Parquet and Arrow IPC; pyarrow, polars and DuckDB read what we write;
//! what they write (in every string and list form they choose) reads back
//! typed; every bad value is named by column and record.

use std::path::Path;

use ndl_arrow::ReadOptions;
use ndl_arrow::arrow_schema::DataType;
use ndl_runtime::time::{DateTime64, Days, Micros, NAT};
use ndl_runtime::{NdlType, Record};
use ndl_testkit::{python312, run_with};

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u8)]
pub enum Side {
    Buy = 1,
    Sell = 2,
}

/// Where a trade was made.
#[derive(Clone, Debug, PartialEq, Record)]
pub struct Venue {
    code: String,
    id: u16,
}

/// One trade: the issue's benchmark record, and more.
#[derive(Clone, Debug, PartialEq, Record)]
pub struct Trade {
    id: u64,
    symbol: String,
    /// Price paid.
    #[ndl(units = "USD")]
    price: f64,
    side: Side,
    qty: Option<i32>,
    note: Option<String>,
    levels: Vec<f32>,
    tags: Vec<String>,
    venue: Venue,
    dims: [u16; 3],
}

const SYMBOLS: [&str; 4] = ["ABC", "", "Été", "東京"];
const CODES: [&str; 3] = ["X", "", "ÄB"];

/// Trade `i` of a deterministic series; `PY_TRADES` computes the same.
fn trade(i: u64) -> Trade {
    Trade {
        id: i,
        symbol: SYMBOLS[(i % 4) as usize].into(),
        price: i as f64 * 0.5,
        side: if i.is_multiple_of(2) {
            Side::Buy
        } else {
            Side::Sell
        },
        qty: (!i.is_multiple_of(3)).then(|| i as i32 - 5),
        note: match i % 4 {
            0 => None,
            1 => Some(String::new()),
            2 => Some("late ✓".into()),
            _ => Some(format!("n{i}")),
        },
        levels: (0..i % 4).map(|k| k as f32 * 0.25).collect(),
        tags: (0..i % 3).map(|k| format!("t{k}")).collect(),
        venue: Venue {
            code: CODES[(i % 3) as usize].into(),
            id: (i % 7) as u16,
        },
        dims: [i as u16, i as u16 + 1, 0],
    }
}

fn trades(n: u64) -> Vec<Trade> {
    (0..n).map(trade).collect()
}

const PY_TRADES: &str = r#"
import sys
SYMBOLS = ["ABC", "", "Été", "東京"]
CODES = ["X", "", "ÄB"]
def trade(i):
    return {
        "id": i,
        "symbol": SYMBOLS[i % 4],
        "price": i * 0.5,
        "side": "Buy" if i % 2 == 0 else "Sell",
        "qty": None if i % 3 == 0 else i - 5,
        "note": [None, "", "late ✓", f"n{i}"][i % 4],
        "levels": [k * 0.25 for k in range(i % 4)],
        "tags": [f"t{k}" for k in range(i % 3)],
        "venue": {"code": CODES[i % 3], "id": i % 7},
        "dims": [i % 65536, (i + 1) % 65536, 0],
    }
def rows(n):
    return [trade(i) for i in range(n)]
"#;

const N: u64 = 500;

fn py(script: &str, args: &[&Path]) -> String {
    let args: Vec<&str> = args.iter().map(|p| p.to_str().unwrap()).collect();
    run_with(&python312(), &format!("{PY_TRADES}\n{script}"), &args)
}

#[test]
fn a_record_batch_has_the_arrow_types_and_reads_back() {
    let data = trades(N);
    let batch = ndl_arrow::to_record_batch(&data).unwrap();
    let schema = batch.schema();
    let kinds: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| format!("{}:{}:{}", f.name(), f.data_type(), f.is_nullable()))
        .collect();
    assert_eq!(kinds[1], "symbol:Utf8:false");
    assert_eq!(kinds[3], "side:Dictionary(UInt8, Utf8):false");
    assert_eq!(kinds[4], "qty:Int32:true");
    assert_eq!(kinds[5], "note:Utf8:true");
    assert!(
        matches!(schema.field(6).data_type(), DataType::List(f) if f.data_type() == &DataType::Float32 && !f.is_nullable())
    );
    assert!(
        matches!(schema.field(7).data_type(), DataType::List(f) if f.data_type() == &DataType::Utf8)
    );
    assert!(matches!(schema.field(8).data_type(), DataType::Struct(f) if f.len() == 2));
    assert!(matches!(
        schema.field(9).data_type(),
        DataType::FixedSizeList(_, 3)
    ));
    assert_eq!(schema.field(2).metadata()["units"], "USD");
    assert_eq!(batch.column(4).null_count(), (N as usize).div_ceil(3));
    assert_eq!(ndl_arrow::from_record_batch::<Trade>(&batch).unwrap(), data);
    assert_eq!(ndl_arrow::schema::<Trade>(), *schema);
    // The metadata keeps the record's datatype: NDL `string`, `vlen`, `optional`.
    let yaml = &schema.metadata()[ndl_arrow::DATATYPE_KEY];
    let stored: ndl_runtime::Datatype = serde_yaml::from_str(yaml).unwrap();
    assert_eq!(stored, <Trade as Record>::datatype(), "{yaml}");
    // A slice of the batch reads as the records it holds.
    let part = batch.slice(7, 20);
    assert_eq!(
        ndl_arrow::from_record_batch::<Trade>(&part).unwrap(),
        data[7..27]
    );
}

#[test]
fn records_round_trip_through_parquet_and_ipc_files() {
    let dir = tempfile::tempdir().unwrap();
    let data = trades(N);
    for name in ["t.parquet", "t.arrow", "t.arrows"] {
        let path = dir.path().join(name);
        if name.ends_with("parquet") {
            ndl_arrow::write_parquet(&path, &data).unwrap();
            assert_eq!(ndl_arrow::read_parquet::<Trade>(&path).unwrap(), data);
        } else {
            ndl_arrow::write_ipc(&path, &data).unwrap();
            assert_eq!(ndl_arrow::read_ipc::<Trade>(&path).unwrap(), data, "{name}");
        }
    }
    // Appended in parts, one file.
    let path = dir.path().join("parts.parquet");
    let mut writer = ndl_arrow::ParquetWriter::<Trade>::create(&path).unwrap();
    writer.append(&data[..100]).unwrap();
    writer.append(&[]).unwrap();
    writer.append(&data[100..]).unwrap();
    assert_eq!(writer.finish().unwrap(), N);
    assert_eq!(ndl_arrow::read_parquet::<Trade>(&path).unwrap(), data);
    let path = dir.path().join("parts.arrow");
    let mut writer = ndl_arrow::IpcWriter::<Trade>::create(&path).unwrap();
    writer.append(&data[..3]).unwrap();
    writer.append(&data[3..]).unwrap();
    writer.finish().unwrap();
    assert_eq!(ndl_arrow::read_ipc::<Trade>(&path).unwrap(), data);
}

#[test]
fn pyarrow_polars_and_duckdb_read_what_we_write() {
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("t.parquet");
    let ipc = dir.path().join("t.arrow");
    let data = trades(N);
    ndl_arrow::write_parquet(&parquet, &data).unwrap();
    ndl_arrow::write_ipc(&ipc, &data).unwrap();
    let out = py(
        r#"
import pyarrow as pa, pyarrow.parquet as pq, pyarrow.ipc as ipc, polars as pl, duckdb
for table in [pq.read_table(sys.argv[1]), ipc.open_file(sys.argv[2]).read_all()]:
    print(";".join(f"{f.name}:{f.type}:{f.nullable}" for f in table.schema))
    assert table.to_pylist() == rows(500)
for df in [pl.read_parquet(sys.argv[1]), pl.read_ipc(sys.argv[2])]:
    print(";".join(f"{k}:{v}" for k, v in df.schema.items()))
    got = df.with_columns(pl.col("side").cast(pl.String)).to_dicts()
    assert got == rows(500), [(a, b) for a, b in zip(got, rows(500)) if a != b][:2]
con = duckdb.connect()
print(";".join(f"{r[0]}:{r[1]}" for r in con.sql(f"describe select * from '{sys.argv[1]}'").fetchall()))
print(con.sql(f"""select count(*), count(qty), count(note), sum(len(levels)), sum(len(tags)),
    sum(strlen(symbol)), count(*) filter (where venue.code = 'ÄB'), sum(dims[2]),
    count(*) filter (where side = 'Sell') from '{sys.argv[1]}'""").fetchall())
"#,
        &[&parquet, &ipc],
    );
    let lines: Vec<&str> = out.lines().collect();
    // DuckDB reads a Parquet list as a list, whatever the Arrow schema
    // stored beside says (`dims` is a fixed-size list there).
    let arrow = "id:uint64:False;symbol:string:False;price:double:False;\
side:dictionary<values=string, indices=uint8, ordered=0>:False;qty:int32:True;note:string:True;\
levels:list<item: float not null>:False;tags:list<item: string not null>:False;\
venue:struct<code: string not null, id: uint16 not null>:False;\
dims:fixed_size_list<item: uint16 not null>[3]:False";
    assert_eq!(lines[0], arrow);
    assert_eq!(lines[1], arrow);
    let polars = "id:UInt64;symbol:String;price:Float64;side:Enum(categories=['Buy', 'Sell']);\
qty:Int32;note:String;levels:List(Float32);tags:List(String);\
venue:Struct({'code': String, 'id': UInt16});dims:Array(UInt16, shape=(3,))";
    assert_eq!(lines[2], polars);
    assert_eq!(lines[3], polars);
    assert_eq!(
        lines[4],
        "id:UBIGINT;symbol:VARCHAR;price:DOUBLE;side:VARCHAR;qty:INTEGER;note:VARCHAR;\
levels:FLOAT[];tags:VARCHAR[];venue:STRUCT(code VARCHAR, id USMALLINT);dims:USMALLINT[]"
    );
    let sum = |f: &dyn Fn(&Trade) -> usize| data.iter().map(f).sum::<usize>();
    let expected = format!(
        "[({N}, {}, {}, {}, {}, {}, {}, {}, {})]",
        sum(&|t| t.qty.is_some() as usize),
        sum(&|t| t.note.is_some() as usize),
        sum(&|t| t.levels.len()),
        sum(&|t| t.tags.len()),
        sum(&|t| t.symbol.len()),
        sum(&|t| (t.venue.code == "ÄB") as usize),
        sum(&|t| usize::from(t.dims[1])),
        sum(&|t| (t.side == Side::Sell) as usize),
    );
    assert_eq!(lines[5], expected);
}

/// pyarrow writes the records in each of the forms it has for strings and
/// lists, columns in another order and an extra one; each reads back.
#[test]
fn what_pyarrow_writes_in_any_string_and_list_form_reads_back_typed() {
    let dir = tempfile::tempdir().unwrap();
    let out = py(
        r#"
import pyarrow as pa, pyarrow.parquet as pq, pyarrow.feather as feather, os
def venue(code):
    return pa.struct([("code", code), ("id", pa.uint16())])
plain = [("id", pa.uint64()), ("symbol", pa.string()), ("price", pa.float64()),
    ("side", pa.dictionary(pa.int32(), pa.string())), ("qty", pa.int32()), ("note", pa.string()),
    ("levels", pa.list_(pa.float32())), ("tags", pa.list_(pa.string())),
    ("venue", venue(pa.string())), ("dims", pa.list_(pa.uint16(), 3))]
large = [("extra", pa.int8()), ("dims", pa.large_list(pa.uint16())), ("venue", venue(pa.large_string())),
    ("tags", pa.large_list(pa.large_string())), ("levels", pa.large_list(pa.float32())),
    ("note", pa.large_string()), ("qty", pa.int32()), ("side", pa.string()), ("price", pa.float64()),
    ("symbol", pa.large_string()), ("id", pa.uint64())]
views = [("id", pa.uint64()), ("symbol", pa.string_view()), ("price", pa.float64()),
    ("side", pa.dictionary(pa.int8(), pa.large_string())), ("qty", pa.int32()),
    ("note", pa.dictionary(pa.int16(), pa.string())), ("levels", pa.list_(pa.float32())),
    ("tags", pa.list_(pa.string_view())), ("venue", venue(pa.dictionary(pa.int8(), pa.string()))),
    ("dims", pa.list_(pa.uint16()))]
data = rows(500)
for r in data:
    r["extra"] = 1
for name, fields in [("plain", plain), ("large", large), ("views", views)]:
    table = pa.Table.from_pylist(data, schema=pa.schema(fields))
    pq.write_table(table, os.path.join(sys.argv[1], name + ".parquet"), row_group_size=128)
    feather.write_feather(table, os.path.join(sys.argv[1], name + ".arrow"))
print("ok")
"#,
        &[dir.path()],
    );
    assert_eq!(out.trim(), "ok");
    let data = trades(N);
    let ignore = ReadOptions::new().ignore_extra_columns(true);
    for name in ["plain", "large", "views"] {
        let parquet = dir.path().join(format!("{name}.parquet"));
        let ipc = dir.path().join(format!("{name}.arrow"));
        let options = if name == "large" {
            ignore
        } else {
            ReadOptions::new()
        };
        let got = ndl_arrow::read_parquet_with::<Trade>(&parquet, &options).unwrap();
        assert_eq!(got, data, "{name}.parquet");
        let got = ndl_arrow::read_ipc_with::<Trade>(&ipc, &options).unwrap();
        assert_eq!(got, data, "{name}.arrow");
    }
    let err = ndl_arrow::read_parquet::<Trade>(dir.path().join("large.parquet")).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("column `extra`: the records have no such member (ReadOptions::ignore_extra_columns skips it)"),
        "{err}"
    );
}

#[test]
fn what_polars_writes_reads_back_typed() {
    let dir = tempfile::tempdir().unwrap();
    let out = py(
        r#"
import polars as pl, os
schema = {"id": pl.UInt64, "symbol": pl.String, "price": pl.Float64, "side": pl.Enum(["Buy", "Sell"]),
    "qty": pl.Int32, "note": pl.String, "levels": pl.List(pl.Float32), "tags": pl.List(pl.String),
    "venue": pl.Struct({"code": pl.String, "id": pl.UInt16}), "dims": pl.Array(pl.UInt16, 3)}
df = pl.DataFrame(rows(500), schema=schema)
df.write_parquet(os.path.join(sys.argv[1], "p.parquet"))
df.write_ipc(os.path.join(sys.argv[1], "p.arrow"))
df.write_ipc(os.path.join(sys.argv[1], "old.arrow"), compat_level=pl.CompatLevel.oldest())
import pyarrow.ipc as ipc
print(ipc.open_file(os.path.join(sys.argv[1], "p.arrow")).schema.field("symbol").type)
print(ipc.open_file(os.path.join(sys.argv[1], "old.arrow")).schema.field("symbol").type)
"#,
        &[dir.path()],
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["string_view", "large_string"]
    );
    let data = trades(N);
    let path = |name: &str| dir.path().join(name);
    assert_eq!(
        ndl_arrow::read_parquet::<Trade>(path("p.parquet")).unwrap(),
        data
    );
    assert_eq!(ndl_arrow::read_ipc::<Trade>(path("p.arrow")).unwrap(), data);
    assert_eq!(
        ndl_arrow::read_ipc::<Trade>(path("old.arrow")).unwrap(),
        data
    );
}

/// Writes `rows(n)` with pyarrow, `change` applied to the Python list of
/// rows first, and returns the error reading it as `Trade`s.
fn refused(n: usize, change: &str, schema_change: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.parquet");
    py(
        &format!(
            r#"
import pyarrow as pa, pyarrow.parquet as pq
fields = [("id", pa.uint64()), ("symbol", pa.string()), ("price", pa.float64()),
    ("side", pa.string()), ("qty", pa.int32()), ("note", pa.string()),
    ("levels", pa.list_(pa.float32())), ("tags", pa.list_(pa.string())),
    ("venue", pa.struct([("code", pa.string()), ("id", pa.uint16())])), ("dims", pa.list_(pa.uint16()))]
data = rows({n})
{change}
{schema_change}
pq.write_table(pa.Table.from_pylist(data, schema=pa.schema(fields)), sys.argv[1])
"#
        ),
        &[&path],
    );
    let err = ndl_arrow::read_parquet::<Trade>(&path).unwrap_err();
    err.without_path().to_string()
}

#[test]
fn bad_values_are_named_by_column_and_record() {
    assert_eq!(
        refused(10, "data[6]['symbol'] = None", ""),
        "record 6, column `symbol`: a null, where the field is not an `Option`; make it an `Option` to read nulls"
    );
    assert_eq!(
        refused(10, "data[7]['levels'] = [1.0, None]", ""),
        "record 7, column `levels`: a null, where the field is not an `Option`; make it an `Option` to read nulls"
    );
    assert_eq!(
        refused(10, "data[4]['venue'] = {'code': None, 'id': 1}", ""),
        "record 4, column `venue.code`: a null, where the field is not an `Option`; make it an `Option` to read nulls"
    );
    assert_eq!(
        refused(10, "data[5]['dims'] = [1, 2]", ""),
        "record 5, column `dims`: a list of 2 items, where the field `[_; 3]` holds 3"
    );
    assert_eq!(
        refused(10, "data[8]['side'] = 'Hold'", ""),
        "record 8, column `side`: `Hold` is no member of the enum"
    );
    let list_for_scalar = refused(
        3,
        "for r in data: r['price'] = [r['price']]",
        "fields[2] = ('price', pa.list_(pa.float64()))",
    );
    assert_eq!(
        list_for_scalar,
        "column `price`: expected Float64, found List(Float64, field: 'element')"
    );
}

/// Records are counted from the start of the file, across batches.
#[test]
fn errors_count_records_from_the_start_of_the_file() {
    let message = refused(70_000, "data[65_432]['tags'] = ['a', None]", "");
    assert_eq!(
        message,
        "record 65432, column `tags`: a null, where the field is not an `Option`; make it an `Option` to read nulls"
    );
}

/// The other kinds of fields: bools, time (NaT as null), optional enums,
/// records, lists and times, lists of options and of lists, arrays of
/// strings.
#[derive(Clone, Debug, PartialEq, Record)]
pub struct Extras {
    ok: bool,
    at: DateTime64<Micros>,
    day: Option<DateTime64<Days>>,
    side: Option<Side>,
    venue: Option<Venue>,
    counts: Vec<Option<i32>>,
    names: Option<Vec<String>>,
    pair: [String; 2],
    nested: Vec<Vec<u8>>,
    label: Box<str>,
}

fn extras(i: i64) -> Extras {
    Extras {
        ok: i % 3 == 1,
        at: DateTime64::new(if i == 4 { NAT } else { i * 1_000_001 }),
        day: (i % 4 != 2).then(|| DateTime64::new(19_000 + i)),
        side: [None, Some(Side::Buy), Some(Side::Sell)][(i % 3) as usize],
        venue: (i % 2 == 0).then(|| Venue {
            code: format!("v{i}"),
            id: i as u16,
        }),
        counts: (0..i % 4).map(|k| (k != 1).then_some(k as i32)).collect(),
        names: (i % 5 != 0).then(|| vec!["é".repeat(i as usize % 3); i as usize % 2]),
        pair: [format!("{i}"), String::new()],
        nested: vec![vec![], vec![i as u8; 2]],
        label: format!("l{i}").into(),
    }
}

#[test]
fn every_other_kind_of_field_goes_to_pyarrow_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("ours.parquet");
    let data: Vec<Extras> = (0..40).map(extras).collect();
    ndl_arrow::write_parquet(&ours, &data).unwrap();
    assert_eq!(ndl_arrow::read_parquet::<Extras>(&ours).unwrap(), data);
    let batch = ndl_arrow::to_record_batch(&data).unwrap();
    assert_eq!(
        ndl_arrow::from_record_batch::<Extras>(&batch).unwrap(),
        data
    );
    let out = py(
        r#"
import pyarrow as pa, pyarrow.parquet as pq, pyarrow.feather as feather, os
table = pq.read_table(sys.argv[1])
for f in table.schema:
    print(f"{f.name}:{f.type}:{f.nullable}")
print(table.column("venue").null_count, table.column("day").null_count, table.column("at").null_count)
print(table.column("venue").to_pylist()[:2], table.column("counts").to_pylist()[:4])
# Rebuilt from Python values, with a null struct's fields null too (as
# Arrow allows, though pyarrow itself writes empty values there).
again = pa.Table.from_pylist(table.to_pylist(), schema=table.schema)
venues = table.column("venue").to_pylist()
code = pa.array([v and v["code"] for v in venues])
ids = pa.array([v and v["id"] for v in venues], pa.uint16())
venue = pa.StructArray.from_arrays([code, ids], names=["code", "id"], mask=pa.array([v is None for v in venues]))
assert venue.field(0).null_count == 20
again = again.set_column(4, "venue", venue)
pq.write_table(again, os.path.join(os.path.dirname(sys.argv[1]), "again.parquet"))
feather.write_feather(again, os.path.join(os.path.dirname(sys.argv[1]), "again.arrow"))
"#,
        &[&ours],
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..10],
        [
            "ok:bool:False",
            "at:timestamp[us]:True",
            "day:timestamp[ms]:True", // Parquet has no seconds
            "side:dictionary<values=string, indices=uint8, ordered=0>:True",
            "venue:struct<code: string not null, id: uint16 not null>:True",
            "counts:list<item: int32>:False",
            "names:list<item: string not null>:True",
            "pair:fixed_size_list<item: string not null>[2]:False",
            "nested:list<item: list<item: uint8 not null> not null>:False",
            "label:string:False",
        ]
    );
    assert_eq!(lines[10], "20 10 1");
    assert_eq!(
        lines[11],
        "[{'code': 'v0', 'id': 0}, None] [[], [0], [0, None], [0, None, 2]]"
    );
    let again = dir.path().join("again.parquet");
    assert_eq!(ndl_arrow::read_parquet::<Extras>(&again).unwrap(), data);
    let again = dir.path().join("again.arrow");
    assert_eq!(ndl_arrow::read_ipc::<Extras>(&again).unwrap(), data);
}

/// Records that are no struct are one column, `value`.
#[test]
fn records_that_are_no_struct_are_one_value_column() {
    let words = vec!["a".to_string(), String::new(), "ü".into()];
    let batch = ndl_arrow::to_record_batch(&words).unwrap();
    assert_eq!(batch.schema().field(0).name(), "value");
    assert_eq!(
        ndl_arrow::from_record_batch::<String>(&batch).unwrap(),
        words
    );
    let maybe = vec![Some(vec![1.5f32]), None, Some(vec![])];
    let batch = ndl_arrow::to_record_batch(&maybe).unwrap();
    assert!(batch.schema().field(0).is_nullable());
    assert_eq!(
        ndl_arrow::from_record_batch::<Option<Vec<f32>>>(&batch).unwrap(),
        maybe
    );
    let err = ndl_arrow::from_record_batch::<Vec<f32>>(&batch).unwrap_err();
    assert_eq!(
        err.to_string(),
        "record 1, column `value`: a null, where the field is not an `Option`; make it an `Option` to read nulls"
    );
    let nested = vec![Some(Some(1u8))];
    let err = ndl_arrow::to_record_batch(&nested).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("column `value`: the datatype an `Option` of an `Option`"),
        "{err}"
    );
}

/// A list of records.
#[derive(Clone, Debug, PartialEq, Record)]
pub struct Route {
    name: String,
    stops: Vec<Venue>,
}

/// An error in a record inside a list names the field's path and the
/// record the list belongs to.
#[test]
fn errors_inside_lists_of_records_name_the_record_of_the_list() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("routes.arrow");
    py(
        r#"
import pyarrow as pa, pyarrow.feather as feather
stop = pa.struct([("code", pa.string()), ("id", pa.uint16())])
rows = [{"name": "r0", "stops": [{"code": "a", "id": 1}]}, {"name": "r1", "stops": []},
    {"name": "r2", "stops": [{"code": "b", "id": 2}, {"code": None, "id": 3}]}]
feather.write_feather(pa.Table.from_pylist(rows, schema=pa.schema([("name", pa.string()), ("stops", pa.list_(stop))])), sys.argv[1])
"#,
        &[&path],
    );
    let err = ndl_arrow::read_ipc::<Route>(&path).unwrap_err();
    assert_eq!(
        err.without_path().to_string(),
        "record 2, column `stops.code`: a null, where the field is not an `Option`; make it an `Option` to read nulls"
    );
    let routes = vec![
        Route {
            name: "r".into(),
            stops: vec![Venue {
                code: "é".into(),
                id: 9,
            }],
        },
        Route {
            name: String::new(),
            stops: vec![],
        },
    ];
    let batch = ndl_arrow::to_record_batch(&routes).unwrap();
    assert_eq!(
        ndl_arrow::from_record_batch::<Route>(&batch).unwrap(),
        routes
    );
}

/// Lists of any length.
#[derive(Clone, Debug, PartialEq, Record)]
pub struct Path2 {
    xs: Vec<f32>,
    names: Option<Vec<String>>,
}

/// A `Vec` reads from a `FixedSizeList` too (a list that happens to have
/// one length), and from a slice of one.
#[test]
fn a_vec_reads_from_a_fixed_size_list() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fixed.arrow");
    py(
        r#"
import pyarrow as pa, pyarrow.feather as feather
schema = pa.schema([("xs", pa.list_(pa.float32(), 2)), ("names", pa.list_(pa.large_string(), 1))])
rows = [{"xs": [i, -i], "names": None if i == 1 else [f"n{i}"]} for i in range(4)]
feather.write_feather(pa.Table.from_pylist(rows, schema=schema), sys.argv[1])
"#,
        &[&path],
    );
    let expected: Vec<Path2> = (0..4)
        .map(|i| Path2 {
            xs: vec![i as f32, -(i as f32)],
            names: (i != 1).then(|| vec![format!("n{i}")]),
        })
        .collect();
    assert_eq!(ndl_arrow::read_ipc::<Path2>(&path).unwrap(), expected);
}

#[test]
fn what_duckdb_writes_reads_back_typed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.parquet");
    py(
        r#"
import pyarrow as pa, duckdb
schema = pa.schema([("id", pa.uint64()), ("symbol", pa.string()), ("price", pa.float64()),
    ("side", pa.string()), ("qty", pa.int32()), ("note", pa.string()),
    ("levels", pa.list_(pa.float32())), ("tags", pa.list_(pa.string())),
    ("venue", pa.struct([("code", pa.string()), ("id", pa.uint16())])), ("dims", pa.list_(pa.uint16(), 3))])
t = pa.Table.from_pylist(rows(500), schema=schema)
con = duckdb.connect()
con.register("t", t)
con.sql(f"copy (select * from t order by id) to '{sys.argv[1]}' (format parquet)")
"#,
        &[&path],
    );
    assert_eq!(ndl_arrow::read_parquet::<Trade>(&path).unwrap(), trades(N));
}

/// An optional array.
#[derive(Clone, Debug, PartialEq, Record)]
pub struct MaybeArray {
    id: u8,
    xyz: Option<[u16; 3]>,
}

/// DuckDB writes an array column as Parquet lists, a NULL as an empty
/// one: it reads as `None`.
#[test]
fn an_optional_array_reads_from_lists_with_empty_nulls() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.parquet");
    py(
        r#"
import duckdb
duckdb.sql(f"""copy (select i::utinyint as id, case when i = 1 then null else [i, i + 1, 7]::usmallint[3] end as xyz
    from range(3) t(i)) to '{sys.argv[1]}' (format parquet)""")
"#,
        &[&path],
    );
    let expected = vec![
        MaybeArray {
            id: 0,
            xyz: Some([0, 1, 7]),
        },
        MaybeArray { id: 1, xyz: None },
        MaybeArray {
            id: 2,
            xyz: Some([2, 3, 7]),
        },
    ];
    assert_eq!(
        ndl_arrow::read_parquet::<MaybeArray>(&path).unwrap(),
        expected
    );
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Reading {
    station: i64,
    level: f64,
}

#[derive(Clone, Debug, PartialEq, Record)]
struct MaybeReading {
    station: i64,
    level: Option<f64>,
}

/// Dictionaries of numbers (pandas' categoricals of numbers) read as the
/// values they stand for, in the plain and the variable paths, a null
/// key a null.
#[test]
fn dictionaries_of_numbers_read_as_their_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.parquet");
    py(
        r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
station = pa.array([20, 10, 20], pa.int64()).dictionary_encode()
level = pa.DictionaryArray.from_arrays(pa.array([1, None, 0], pa.int8()), pa.array([0.5, -2.0]))
pq.write_table(pa.table({"station": station, "level": level}), sys.argv[1])
"#,
        &[&path],
    );
    let maybe: Vec<MaybeReading> = ndl_arrow::read_parquet(&path).unwrap();
    let want = [(20, Some(-2.0)), (10, None), (20, Some(0.5))];
    let got: Vec<_> = maybe.iter().map(|r| (r.station, r.level)).collect();
    assert_eq!(got, want);
    // Without the null, through the plain records' path.
    let plain = dir.path().join("p.parquet");
    py(
        r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
station = pa.array([20, 10], pa.int64()).dictionary_encode()
level = pa.array([0.5, 1.5]).dictionary_encode()
pq.write_table(pa.table({"station": station, "level": level}), sys.argv[1])
"#,
        &[&plain],
    );
    let readings: Vec<Reading> = ndl_arrow::read_parquet(&plain).unwrap();
    assert_eq!(
        readings,
        [
            Reading {
                station: 20,
                level: 0.5
            },
            Reading {
                station: 10,
                level: 1.5
            }
        ]
    );
}

//! Time values (`DateTime64`, `TimeDelta64`) as Arrow `Timestamp` and
//! `Duration`, NaT as null: typed round trips, the NumPy units Arrow has
//! no unit for, and pyarrow and polars both ways.

use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_array::types::{DurationMillisecondType, TimestampNanosecondType, TimestampSecondType};
use arrow_schema::{DataType, TimeUnit};
use ndl_runtime::time::{DateTime64, Days, Micros, Millis, Nanos, Seconds, TimeDelta64};
use ndl_runtime::{ByteOrder, Compound, Datatype, NdlType, TimeType};
use ndl_testkit::{python312, run_with};

/// 2026-11-25T12:00:00 UTC, in seconds.
const NOON: i64 = 1_795_608_000;

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Event {
    id: u32,
    at: DateTime64<Nanos>,
    day: DateTime64<Seconds>,
    took: TimeDelta64<Millis>,
    window: [DateTime64<Seconds>; 2],
}

/// Event `i`; every third has NaT in `at`, `took` and `window[1]`.
fn event(i: i64) -> Event {
    let nat = i % 3 == 2;
    Event {
        id: i as u32,
        at: if nat {
            DateTime64::NAT
        } else {
            DateTime64::new((NOON + i) * 1_000_000_000 + i)
        },
        day: DateTime64::new(NOON + 86_400 * i),
        took: if nat {
            TimeDelta64::NAT
        } else {
            TimeDelta64::new(-1500 * i)
        },
        window: [
            DateTime64::new(NOON - i),
            if nat {
                DateTime64::NAT
            } else {
                DateTime64::new(NOON + i)
            },
        ],
    }
}

fn events(n: i64) -> Vec<Event> {
    (0..n).map(event).collect()
}

#[test]
fn typed_time_maps_to_timestamps_and_durations_with_nat_as_null() {
    let data = events(6);
    let batch = ndl_arrow::to_record_batch(&data).unwrap();
    let schema = batch.schema();
    let types: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| f.data_type().to_string())
        .collect();
    assert_eq!(
        types,
        [
            "UInt32",
            "Timestamp(ns)",
            "Timestamp(s)",
            "Duration(ms)",
            "FixedSizeList(2 x Timestamp(s))"
        ]
    );
    let nullable: Vec<bool> = schema.fields().iter().map(|f| f.is_nullable()).collect();
    assert_eq!(nullable, [false, true, true, true, false]);
    // The Arrow type says it all: no `ndl.type`.
    assert!(!schema.field(1).metadata().contains_key("ndl.type"));

    let at = batch.column(1).as_primitive::<TimestampNanosecondType>();
    assert_eq!(at.value(1), (NOON + 1) * 1_000_000_000 + 1);
    assert_eq!(
        (at.null_count(), at.is_null(2), at.is_null(5)),
        (2, true, true)
    );
    let day = batch.column(2).as_primitive::<TimestampSecondType>();
    assert_eq!((day.value(3), day.null_count()), (NOON + 3 * 86_400, 0));
    let took = batch.column(3).as_primitive::<DurationMillisecondType>();
    assert_eq!((took.value(4), took.null_count()), (-6000, 2));
    let window = batch.column(4).as_fixed_size_list();
    let ends = window.values().as_primitive::<TimestampSecondType>();
    assert_eq!(
        (ends.value(2), ends.is_null(5), ends.null_count()),
        (NOON - 1, true, 2)
    );

    assert_eq!(ndl_arrow::from_record_batch::<Event>(&batch).unwrap(), data);
}

#[test]
fn typed_time_round_trips_through_parquet_and_ipc() {
    let dir = tempfile::tempdir().unwrap();
    let data = events(1000);
    let parquet = dir.path().join("e.parquet");
    let ipc = dir.path().join("e.arrow");
    ndl_arrow::write_parquet(&parquet, &data).unwrap();
    ndl_arrow::write_ipc(&ipc, &data).unwrap();
    assert_eq!(ndl_arrow::read_parquet::<Event>(&parquet).unwrap(), data);
    assert_eq!(ndl_arrow::read_ipc::<Event>(&ipc).unwrap(), data);
}

fn time(code: &str) -> Datatype {
    Datatype::Time(code.parse::<TimeType>().unwrap())
}

fn record_of(members: &[(&str, &str)]) -> Datatype {
    Datatype::Compound(
        Compound::c_layout(members.iter().map(|&(name, code)| (name, time(code)))).unwrap(),
    )
}

fn bytes_of(counts: &[i64]) -> Vec<u8> {
    counts.iter().flat_map(|c| c.to_ne_bytes()).collect()
}

/// Days, hours and multiples are written in the coarsest Arrow unit that
/// divides them exactly, and come back in their own unit from the
/// metadata.
#[test]
fn other_numpy_units_are_scaled_exactly_and_come_back() {
    let dt = record_of(&[("d", "M8[D]"), ("h", "m8[h]"), ("t", "M8[10ms]")]);
    let counts = [20_417, 3, 7, /* */ i64::MIN, -2, i64::MIN];
    let records = bytes_of(&counts);
    let batch = ndl_arrow::to_record_batch_raw(&dt, ByteOrder::NATIVE, &records).unwrap();
    let schema = batch.schema();
    assert_eq!(
        schema.field(0).data_type(),
        &DataType::Timestamp(TimeUnit::Second, None)
    );
    assert_eq!(
        schema.field(1).data_type(),
        &DataType::Duration(TimeUnit::Second)
    );
    assert_eq!(
        schema.field(2).data_type(),
        &DataType::Timestamp(TimeUnit::Millisecond, None)
    );
    assert_eq!(
        schema.field(0).metadata()["ndl.type"],
        "datetime: {unit: D}"
    );
    assert_eq!(
        schema.field(2).metadata()["ndl.type"],
        "datetime: {unit: \"10ms\"}"
    );
    let d = batch.column(0).as_primitive::<TimestampSecondType>();
    assert_eq!((d.value(0), d.is_null(1)), (20_417 * 86_400, true));
    let t = batch
        .column(2)
        .as_primitive::<arrow_array::types::TimestampMillisecondType>();
    assert_eq!(t.value(0), 70);

    let back = ndl_arrow::from_record_batch_raw(&dt, &batch, &Default::default()).unwrap();
    assert_eq!(back, records);
    // Without the schema metadata, the field's `ndl.type` restores the unit.
    assert_eq!(
        ndl_arrow::datatype_of(
            &schema
                .as_ref()
                .clone()
                .with_metadata(std::collections::HashMap::new())
        )
        .unwrap(),
        dt
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("units.parquet");
    let mut writer = ndl_arrow::ParquetRecordWriter::create(&path, &dt, ByteOrder::NATIVE).unwrap();
    writer.write(&records).unwrap();
    writer.finish().unwrap();
    let mut reader = ndl_arrow::ParquetRecordReader::open(&path, &Default::default()).unwrap();
    assert_eq!(reader.datatype(), &dt);
    assert_eq!(reader.next_records().unwrap().unwrap(), records);
}

#[test]
fn a_count_beyond_arrow_s_range_or_a_unit_it_has_not_is_an_error_naming_the_column() {
    let dt = record_of(&[("d", "M8[D]")]);
    let err = ndl_arrow::to_record_batch_raw(&dt, ByteOrder::NATIVE, &bytes_of(&[1, i64::MAX / 2]))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "record 1, column `d`: 4611686018427387903 of M8[D] is beyond the range of an Arrow count of seconds"
    );
    for (code, why) in [
        ("M8[M]", "calendar years and months have no fixed length"),
        ("m8[Y]", "calendar years and months have no fixed length"),
        ("M8[ps]", "it is no whole number of nanoseconds"),
        ("m8[as]", "it is no whole number of nanoseconds"),
    ] {
        let err = ndl_arrow::schema_of(&record_of(&[("when", code)]))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(&format!("column `when`: the time type {code}: {why}")),
            "{err}"
        );
    }
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Coarse {
    at: DateTime64<Seconds>,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Fine {
    at: DateTime64<Nanos>,
}

/// Reading into another unit converts exactly, or names what cannot be.
#[test]
fn reading_into_another_unit_converts_exactly_or_refuses() {
    let fine = [
        Fine {
            at: DateTime64::new(NOON * 1_000_000_000),
        },
        Fine {
            at: DateTime64::NAT,
        },
    ];
    let batch = ndl_arrow::to_record_batch(&fine).unwrap();
    assert_eq!(
        ndl_arrow::from_record_batch::<Coarse>(&batch).unwrap(),
        [
            Coarse {
                at: DateTime64::new(NOON)
            },
            Coarse {
                at: DateTime64::NAT
            }
        ]
    );
    let inexact = ndl_arrow::to_record_batch(&[Fine {
        at: DateTime64::new(1),
    }])
    .unwrap();
    assert_eq!(
        ndl_arrow::from_record_batch::<Coarse>(&inexact)
            .unwrap_err()
            .to_string(),
        "record 0, column `at`: 1 of M8[ns]: not a whole number of steps of M8[s]"
    );
    let far = ndl_arrow::to_record_batch(&[
        Coarse {
            at: DateTime64::new(NOON),
        },
        Coarse {
            at: DateTime64::new(i64::MAX / 10),
        },
    ])
    .unwrap();
    assert_eq!(
        ndl_arrow::from_record_batch::<Fine>(&far)
            .unwrap_err()
            .to_string(),
        "record 1, column `at`: 922337203685477580 of M8[s]: beyond the range of an i64 count of M8[ns]"
    );
    // Others' non-null count of `i64::MIN` would read as NaT: refused.
    let schema = std::sync::Arc::new(ndl_arrow::schema::<Fine>());
    let column = arrow_array::TimestampNanosecondArray::from(vec![0, i64::MIN]);
    let batch =
        arrow_array::RecordBatch::try_new(schema, vec![std::sync::Arc::new(column)]).unwrap();
    assert_eq!(
        ndl_arrow::from_record_batch::<Fine>(&batch)
            .unwrap_err()
            .to_string(),
        "record 1, column `at`: -9223372036854775808 of M8[ns]: NaT's count (yet not null) in M8[ns]"
    );
    let durations = ndl_arrow::to_record_batch(&[Took {
        at: TimeDelta64::new(1),
    }])
    .unwrap();
    assert_eq!(
        ndl_arrow::from_record_batch::<Coarse>(&durations)
            .unwrap_err()
            .to_string(),
        "column `at`: expected a Timestamp (or a Date32, Date64), found Duration(ms)"
    );
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Took {
    at: TimeDelta64<Millis>,
}

fn run(script: &str, args: &[&std::path::Path]) -> String {
    let args: Vec<&str> = args.iter().map(|p| p.to_str().unwrap()).collect();
    run_with(&python312(), script, &args)
}

#[test]
fn pyarrow_reads_our_time_with_nat_as_null() {
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("e.parquet");
    let ipc = dir.path().join("e.arrow");
    let data = events(6);
    ndl_arrow::write_parquet(&parquet, &data).unwrap();
    ndl_arrow::write_ipc(&ipc, &data).unwrap();
    let out = run(
        r#"
import sys, datetime, pyarrow as pa, pyarrow.parquet as pq, pyarrow.ipc as ipc
NOON = 1795608000
for table in [pq.read_table(sys.argv[1]), ipc.open_file(sys.argv[2]).read_all()]:
    print(";".join(f"{f.name}:{f.type}:{f.nullable}" for f in table.schema))
    at = table.column("at")
    assert at.cast(pa.int64()).to_pylist() == [None if i % 3 == 2 else (NOON + i) * 10**9 + i for i in range(6)]
    assert at.null_count == 2
    assert table.column("day").to_pylist()[1] == datetime.datetime(2026, 11, 26, 12, 0, 0)
    assert table.column("took").to_pylist()[1] == datetime.timedelta(milliseconds=-1500)
    assert table.column("took").to_pylist()[2] is None
    assert table.column("window").to_pylist()[2] == [datetime.datetime(2026, 11, 25, 11, 59, 58), None]
import polars as pl
for df in [pl.read_parquet(sys.argv[1]), pl.read_ipc(sys.argv[2])]:
    assert df["at"].null_count() == 2 and df["took"].null_count() == 2
    assert str(df["day"][1]) == "2026-11-26 12:00:00", df["day"][1]
    assert df["at"].dt.nanosecond()[1] == 1
"#,
        &[&parquet, &ipc],
    );
    // Parquet has no timestamp of seconds: there they are milliseconds.
    let schema = |s| {
        format!(
            "id:uint32:False;at:timestamp[ns]:True;day:timestamp[{s}]:True;took:duration[ms]:True;window:fixed_size_list<item: timestamp[{s}]>[2]:False"
        )
    };
    assert_eq!(out.lines().collect::<Vec<_>>(), [schema("ms"), schema("s")]);
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Observed {
    id: i64,
    at: DateTime64<Nanos>,
    utc: DateTime64<Micros>,
    seen: DateTime64<Seconds>,
    took: TimeDelta64<Millis>,
}

/// Observation `i`, as the Python scripts write it: `utc` in a time zone,
/// `seen` (milliseconds there) null every fourth.
fn observed(i: i64) -> Observed {
    Observed {
        id: i,
        at: DateTime64::new(NOON * 1_000_000_000 + i),
        utc: DateTime64::new(NOON * 1_000_000 + i * 1000),
        seen: if i % 4 == 3 {
            DateTime64::NAT
        } else {
            DateTime64::new(NOON + i)
        },
        took: TimeDelta64::new(i * 250),
    }
}

#[test]
fn timestamps_pyarrow_and_polars_write_read_back_typed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run(
        r#"
import sys, os, pyarrow as pa, pyarrow.parquet as pq, pyarrow.feather as feather, polars as pl
d = sys.argv[1]
NOON = 1795608000
n = 100
at = [NOON * 10**9 + i for i in range(n)]
utc = [NOON * 10**6 + i * 1000 for i in range(n)]
seen = [None if i % 4 == 3 else (NOON + i) * 1000 for i in range(n)]
took = [i * 250 for i in range(n)]
table = pa.table({
    "took": pa.array(took, pa.duration("ms")),
    "seen": pa.array(seen, pa.timestamp("ms")),
    "utc": pa.array(utc, pa.timestamp("us", tz="Europe/Paris")),
    "at": pa.array(at, pa.timestamp("ns")),
    "id": pa.array(range(n), pa.int64()),
})
pq.write_table(table, os.path.join(d, "pyarrow.parquet"))
feather.write_feather(table, os.path.join(d, "pyarrow.feather"))
df = pl.DataFrame({
    "id": pl.Series(range(n), dtype=pl.Int64),
    "at": pl.Series(at).cast(pl.Datetime("ns")),
    "utc": pl.Series(utc).cast(pl.Datetime("us")).dt.replace_time_zone("UTC"),
    "seen": pl.Series(seen, dtype=pl.Int64).cast(pl.Datetime("ms")),
    "took": pl.Series(took).cast(pl.Duration("ms")),
})
df.write_parquet(os.path.join(d, "polars.parquet"))
df.write_ipc(os.path.join(d, "polars.arrow"))
"#,
        &[d],
    );
    let data: Vec<Observed> = (0..100).map(observed).collect();
    for name in ["pyarrow.parquet", "polars.parquet"] {
        let read = ndl_arrow::read_parquet::<Observed>(d.join(name));
        assert_eq!(
            read.unwrap_or_else(|e| panic!("{name}: {e}")),
            data,
            "{name}"
        );
    }
    for name in ["pyarrow.feather", "polars.arrow"] {
        let read = ndl_arrow::read_ipc::<Observed>(d.join(name));
        assert_eq!(
            read.unwrap_or_else(|e| panic!("{name}: {e}")),
            data,
            "{name}"
        );
    }
    // Without our metadata, each column's datatype is the time type of
    // its Arrow unit.
    let reader =
        ndl_arrow::ParquetRecordReader::open(d.join("pyarrow.parquet"), &Default::default())
            .unwrap();
    let Datatype::Compound(c) = reader.datatype() else {
        panic!("a compound")
    };
    let codes: Vec<String> = c
        .members
        .iter()
        .map(|m| match &m.datatype {
            Datatype::Time(t) => t.to_string(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(codes, ["m8[ms]", "M8[ms]", "M8[us]", "M8[ns]", "Int64"]);
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Logged {
    id: i32,
    at: DateTime64<Micros>,
    exact: DateTime64<Nanos>,
    zoned: DateTime64<Seconds>,
}

#[test]
fn duckdb_queries_our_time_and_writes_timestamps_we_read_typed() {
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("e.parquet");
    let theirs = dir.path().join("duckdb.parquet");
    ndl_arrow::write_parquet(&ours, &events(6)).unwrap();
    let out = run(
        r#"
import sys, duckdb
f, out = sys.argv[1], sys.argv[2]
print(duckdb.sql(f"""SELECT count("at"), count("day"), strftime(max("day"), '%Y-%m-%d %H:%M:%S') FROM '{f}'""").fetchall())
print([(name, kind) for name, kind, *_ in duckdb.sql(f"""DESCRIBE SELECT "at", "day" FROM '{f}'""").fetchall()])
duckdb.sql(f"""COPY (SELECT i::INTEGER AS id,
    make_timestamp(1795608000000000 + i) AS "at",
    CASE WHEN i % 4 = 3 THEN NULL ELSE make_timestamp_ns(1795608000000000000 + i) END AS exact,
    to_timestamp(1795608000 + i) AS zoned
  FROM range(10) t(i)) TO '{out}' (FORMAT parquet)""")
"#,
        &[&ours, &theirs],
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "[(4, 6, '2026-11-30 12:00:00')]");
    // DuckDB reads a Parquet timestamp of milliseconds as its TIMESTAMP
    // (of microseconds).
    assert_eq!(lines[1], "[('at', 'TIMESTAMP_NS'), ('day', 'TIMESTAMP')]");
    let expected: Vec<Logged> = (0..10)
        .map(|i| Logged {
            id: i as i32,
            at: DateTime64::new(NOON * 1_000_000 + i),
            exact: if i % 4 == 3 {
                DateTime64::NAT
            } else {
                DateTime64::new(NOON * 1_000_000_000 + i)
            },
            zoned: DateTime64::new(NOON + i),
        })
        .collect();
    assert_eq!(
        ndl_arrow::read_parquet::<Logged>(&theirs).unwrap(),
        expected
    );
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Dated {
    day: DateTime64<Days>,
}

/// polars' `Date` is Arrow's `Date32`, days: instants of days.
#[test]
fn polars_dates_read_as_days() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dates.parquet");
    run(
        r#"
import sys, datetime, polars as pl
days = [datetime.date(2026, 11, 25) + datetime.timedelta(days=i) for i in range(3)]
pl.DataFrame({"day": pl.Series(days + [None], dtype=pl.Date)}).write_parquet(sys.argv[1])
"#,
        &[&path],
    );
    let day = NOON / 86_400;
    let days: Vec<Dated> = [day, day + 1, day + 2, i64::MIN]
        .into_iter()
        .map(|d| Dated {
            day: DateTime64::new(d),
        })
        .collect();
    assert_eq!(ndl_arrow::read_parquet::<Dated>(&path).unwrap(), days);
}

/// A record of Spark's columns `id`, `t` and `span.start`, its times in
/// one unit.
macro_rules! spark {
    ($spark:ident, $span:ident, $unit:ty) => {
        #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
        #[repr(C)]
        struct $spark {
            id: i64,
            t: DateTime64<$unit>,
            span: $span,
        }

        #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
        #[repr(C)]
        struct $span {
            start: DateTime64<$unit>,
        }
    };
}
spark!(SparkMicros, SpanMicros, Micros);
spark!(SparkNanos, SpanNanos, Nanos);
spark!(SparkSeconds, SpanSeconds, Seconds);

/// Writes, with pyarrow's legacy INT96 timestamps (as Spark does), the
/// instants `micros` (microseconds since 1970, `None` for a null) as the
/// columns `t` and `span.start`; prints what pyarrow reads back with
/// `coerce_int96_timestamp_unit="us"`, as microseconds. With `spark`, the
/// file has no Arrow schema in its metadata, as Spark's have not.
const PY_INT96: &str = r#"
import sys, json, pyarrow as pa, pyarrow.parquet as pq
path, unit, values = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
spark = sys.argv[4:] == ["spark"]
t = pa.array(values, pa.timestamp(unit))
table = pa.table({
    "id": pa.array(range(len(values)), pa.int64()),
    "t": t,
    "span": pa.StructArray.from_arrays([t], ["start"]),
})
pq.write_table(table, path, use_deprecated_int96_timestamps=True, store_schema=not spark)
assert str(pq.read_metadata(path).schema.column(1).physical_type) == "INT96"
back = pq.read_table(path, coerce_int96_timestamp_unit="us")
print(json.dumps(back.column("t").cast(pa.int64()).to_pylist()))
"#;

#[test]
fn int96_timestamps_beyond_nanoseconds_read_exactly_in_microseconds_or_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spark.parquet");
    // 2000-01-01T00:00:00.123456, 3000-01-01T00:00:01, a null,
    // 1600-01-01T00:00:00: the two last wrap in nanoseconds.
    let micros = "[946684800123456, 32503680001000000, null, -11676096000000000]";
    let args = [path.to_str().unwrap(), "us", micros, "spark"];
    let pyarrow: Vec<Option<i64>> = json_ints(&run_with(&python312(), PY_INT96, &args));
    let at = |m: Option<i64>| m.map_or(DateTime64::NAT, DateTime64::new);
    let expected: Vec<SparkMicros> = pyarrow
        .iter()
        .enumerate()
        .map(|(i, &m)| SparkMicros {
            id: i as i64,
            t: at(m),
            span: SpanMicros { start: at(m) },
        })
        .collect();
    assert_eq!(
        ndl_arrow::read_parquet::<SparkMicros>(&path).unwrap(),
        expected
    );
    // Nanoseconds cannot hold them: refused, not wrapped.
    let err = ndl_arrow::read_parquet::<SparkNanos>(&path).unwrap_err();
    assert!(
        err.without_path()
            .to_string()
            .starts_with("record 1, column `t`:"),
        "{err}"
    );
    // `ndl convert`'s reader takes the file's unit, nanoseconds: refused.
    let mut reader = ndl_arrow::ParquetRecordReader::open(&path, &Default::default()).unwrap();
    let err = reader.next_records().unwrap_err();
    assert!(
        err.without_path()
            .to_string()
            .starts_with("record 1, column `t`:"),
        "{err}"
    );
    // pyarrow's own file keeps the unit it was written from in its Arrow
    // schema: read in it, right.
    let args = [path.to_str().unwrap(), "us", micros];
    run_with(&python312(), PY_INT96, &args);
    let mut reader = ndl_arrow::ParquetRecordReader::open(&path, &Default::default()).unwrap();
    let records = reader.next_records().unwrap().unwrap();
    let t: Vec<i64> = records
        .chunks(24)
        .map(|r| i64::from_ne_bytes(r[8..16].try_into().unwrap()))
        .collect();
    let nat = |m: Option<i64>| m.unwrap_or(i64::MIN);
    assert_eq!(t, pyarrow.iter().copied().map(nat).collect::<Vec<_>>());
}

#[test]
fn an_int96_timestamp_beyond_nanoseconds_with_a_fraction_of_a_microsecond_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("impala.parquet");
    run_with(
        &python312(),
        PY_INT96,
        &[
            path.to_str().unwrap(),
            "ns",
            "[946684800000000001, 946684800000000002]",
        ],
    );
    // The second instant moved to 3000-01-01T00:00:00.000000002, which
    // only nanoseconds hold, and they do not reach it: pyarrow cannot
    // write it, so its Julian day is patched in the plain, uncompressed
    // INT96 values (8 bytes of nanoseconds in the day, 4 of the day).
    run_with(
        &python312(),
        r#"
import sys, struct, pyarrow as pa, pyarrow.parquet as pq
path = sys.argv[1]
t = pq.read_table(path)
pq.write_table(t, path, use_deprecated_int96_timestamps=True, compression="none",
               use_dictionary=False, write_statistics=False)
data = open(path, "rb").read()
old = struct.pack("<qi", 2, 2451545)
assert data.count(old) == 2, data.count(old)
data = data.replace(old, struct.pack("<qi", 2, 2451545 + 376200 - 10957))
open(path, "wb").write(data)
print(pq.read_table(path, coerce_int96_timestamp_unit="s").column("t"))
"#,
        &[path.to_str().unwrap()],
    );
    for err in [
        ndl_arrow::read_parquet::<SparkNanos>(&path).unwrap_err(),
        ndl_arrow::read_parquet::<SparkSeconds>(&path).unwrap_err(),
    ] {
        assert_eq!(
            err.without_path().to_string(),
            "record 1, column `t`: the INT96 timestamp 32503680000.000000002 s after 1970 is \
             beyond the years 1677-2262 that nanoseconds reach, and the column's values are not \
             all whole microseconds, milliseconds or seconds"
        );
    }
}

/// A JSON list of integers and nulls, as Python prints it.
fn json_ints(text: &str) -> Vec<Option<i64>> {
    let list = text.trim().trim_start_matches('[').trim_end_matches(']');
    list.split(',').map(|v| v.trim().parse().ok()).collect()
}

/// Seconds inside lists: Parquet holds them as milliseconds, which
/// pyarrow reads as timestamps, and which read back as the seconds.
#[derive(Clone, Debug, PartialEq, ndl_runtime::Record)]
struct SecondsInLists {
    id: u32,
    seen: Vec<DateTime64<Seconds>>,
    maybe: Vec<Option<DateTime64<Seconds>>>,
}

#[test]
fn seconds_in_lists_round_trip_through_parquet() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.parquet");
    let rows = vec![
        SecondsInLists {
            id: 1,
            seen: vec![DateTime64::new(1_700_000_000), DateTime64::new(-5)],
            maybe: vec![None, Some(DateTime64::new(7))],
        },
        SecondsInLists {
            id: 2,
            seen: vec![],
            maybe: vec![],
        },
    ];
    ndl_arrow::write_parquet(&path, &rows).unwrap();
    let back: Vec<SecondsInLists> = ndl_arrow::read_parquet(&path).unwrap();
    assert_eq!(back, rows);
    let script = "import sys, pyarrow.parquet as pq\n\
                  t = pq.read_table(sys.argv[1])\n\
                  print(t.schema.field('seen').type, t.column('seen').to_pylist()[0][0].isoformat())";
    let out = ndl_testkit::python::run_with(
        &ndl_testkit::python::python312(),
        script,
        &[path.to_str().unwrap()],
    );
    assert_eq!(out.trim(), "list<item: timestamp[ms]> 2023-11-14T22:13:20");
}

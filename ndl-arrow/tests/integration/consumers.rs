//! The real consumers, both ways: pyarrow, polars and DuckDB read what we
//! write, and we read typed what they write. Python comes from
//! `NDL_PYTHON312` (or `.venv312`), with the pinned pyarrow, polars and
//! DuckDB of `tests/python/requirements-py312.txt`.

use crate::common;

use std::path::Path;

use common::{PY_READINGS, Reading, readings};
use ndl_arrow::ReadOptions;
use ndl_testkit::{python312, run_with};

const N: u32 = 1000;

fn run(script: &str, args: &[&Path]) -> String {
    let args: Vec<&str> = args.iter().map(|p| p.to_str().unwrap()).collect();
    run_with(&python312(), &format!("{PY_READINGS}\n{script}"), &args)
}

/// The sums the peers should find, as Python prints them.
fn expected_sums(data: &[Reading]) -> (u64, f64) {
    let stations = data.iter().map(|r| u64::from(r.station)).sum();
    let temperature = data.iter().map(|r| f64::from(r.temperature)).sum();
    (stations, temperature)
}

#[test]
fn pyarrow_reads_our_schema_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("r.parquet");
    let ipc = dir.path().join("r.arrow");
    let data = readings(N);
    ndl_arrow::write_parquet(&parquet, &data).unwrap();
    ndl_arrow::write_ipc(&ipc, &data).unwrap();
    let out = run(
        r#"
import sys, pyarrow.parquet as pq, pyarrow.ipc as ipc
for table in [pq.read_table(sys.argv[1]), ipc.open_file(sys.argv[2]).read_all()]:
    print(";".join(f"{f.name}:{f.type}:{f.nullable}" for f in table.schema))
    print(table.schema.field("station").metadata[b"description"].decode())
    print(b"ndl.datatype" in table.schema.metadata)
    assert table.num_rows == 1000
    assert table.column("sky").to_pylist() == [SKY_NAMES[i % 3] for i in range(1000)]
    assert table.column("code").to_pylist() == [CODES[i % 4] for i in range(1000)]
    assert table.column("wind").to_pylist()[:3] == [[0.0, -0.0], [0.25, -1.0], [0.5, -2.0]]
    cols = columns(1000)
    assert table.column("station").to_pylist() == cols["station"]
    assert table.column("time").to_pylist() == cols["time"]
    assert table.column("temperature").to_pylist() == cols["temperature"]
"#,
        &[&parquet, &ipc],
    );
    let lines: Vec<&str> = out.lines().collect();
    let schema = "station:uint32:False;time:double:False;sky:dictionary<values=string, indices=uint8, ordered=0>:False;code:string:False;wind:fixed_size_list<item: float not null>[2]:False;temperature:float:False";
    assert_eq!(
        lines,
        [
            schema,
            "Station number.",
            "True",
            schema,
            "Station number.",
            "True"
        ]
    );
}

#[test]
fn polars_reads_our_parquet_and_ipc_files_with_the_enum_as_an_enum() {
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("r.parquet");
    let ipc = dir.path().join("r.arrow");
    let data = readings(N);
    ndl_arrow::write_parquet(&parquet, &data).unwrap();
    ndl_arrow::write_ipc(&ipc, &data).unwrap();
    let out = run(
        r#"
import sys, polars as pl
for df in [pl.read_parquet(sys.argv[1]), pl.read_ipc(sys.argv[2])]:
    print(df.schema)
    print(df["station"].sum(), df["temperature"].sum(), df.height)
    print(df.group_by("sky").len().sort("sky").rows())
    assert df["code"].to_list() == [CODES[i % 4] for i in range(1000)]
    assert df["wind"].to_list()[1] == [0.25, -1.0]
"#,
        &[&parquet, &ipc],
    );
    let (stations, temperature) = expected_sums(&data);
    let lines: Vec<&str> = out.lines().collect();
    let schema = "Schema({'station': UInt32, 'time': Float64, 'sky': Enum(categories=['Clear', 'Cumulus', 'Stratus']), 'code': String, 'wind': Array(Float32, shape=(2,)), 'temperature': Float32})";
    let sums = format!("{stations} {temperature:.1} {N}");
    let groups = "[('Clear', 334), ('Cumulus', 333), ('Stratus', 333)]";
    assert_eq!(lines, [schema, &sums, groups, schema, &sums, groups]);
}

#[test]
fn duckdb_queries_our_parquet_file() {
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("r.parquet");
    let data = readings(N);
    ndl_arrow::write_parquet(&parquet, &data).unwrap();
    let out = run(
        r#"
import sys, duckdb
f = sys.argv[1]
print(duckdb.sql(f"SELECT count(*), sum(station), sum(temperature) FROM '{f}'").fetchall())
print(duckdb.sql(f"SELECT sky, count(*) FROM '{f}' GROUP BY sky ORDER BY sky").fetchall())
print(duckdb.sql(f"SELECT code, wind[1], wind[2] FROM '{f}' LIMIT 3 OFFSET 1").fetchall())
print(duckdb.sql(f"DESCRIBE SELECT * FROM '{f}'").fetchall())
"#,
        &[&parquet],
    );
    let (stations, temperature) = expected_sums(&data);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("[({N}, {stations}, {temperature:.1})]"));
    assert_eq!(
        lines[1],
        "[('Clear', 334), ('Cumulus', 333), ('Stratus', 333)]"
    );
    assert_eq!(
        lines[2],
        "[('SN', 0.25, -1.0), ('TSRA', 0.5, -2.0), ('', 0.75, -3.0)]"
    );
    assert!(lines[3].contains("('station', 'UINTEGER'"), "{}", lines[3]);
    assert!(
        lines[3].contains("('wind', 'FLOAT[2]'") || lines[3].contains("('wind', 'FLOAT[]'"),
        "{}",
        lines[3]
    );
}

/// Files of the same records written by each peer, columns in another
/// order, with their own choices of types (nullable columns, large or
/// view strings, lists, categoricals, enums).
#[test]
fn files_written_by_pyarrow_polars_and_duckdb_read_back_typed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run(
        r#"
import sys, os, pyarrow as pa, pyarrow.parquet as pq, pyarrow.feather as feather, polars as pl, duckdb
d = sys.argv[1]
cols = columns(1000)
order = ["temperature", "code", "wind", "sky", "time", "station"]
table = pa.table({
    "temperature": pa.array(cols["temperature"], pa.float32()),
    "code": pa.array(cols["code"]),
    "wind": pa.array(cols["wind"], pa.list_(pa.float32(), 2)),
    "sky": pa.array(cols["sky"]).dictionary_encode(),
    "time": pa.array(cols["time"]),
    "station": pa.array(cols["station"], pa.uint32()),
})
pq.write_table(table, os.path.join(d, "pyarrow.parquet"))
feather.write_feather(table, os.path.join(d, "pyarrow.feather"))
df = pl.DataFrame({
    "temperature": pl.Series(cols["temperature"], dtype=pl.Float32),
    "code": cols["code"],
    "wind": pl.Series(cols["wind"], dtype=pl.Array(pl.Float32, 2)),
    "sky": pl.Series(cols["sky"], dtype=pl.Enum(SKY_NAMES)),
    "time": cols["time"],
    "station": pl.Series(cols["station"], dtype=pl.UInt32),
})
df.write_parquet(os.path.join(d, "polars.parquet"))
df.write_ipc(os.path.join(d, "polars.arrow"))
con = duckdb.connect()
con.execute("CREATE TYPE sky AS ENUM ('Clear', 'Cumulus', 'Stratus')")
con.execute("""CREATE TABLE t (temperature FLOAT, code VARCHAR, wind FLOAT[2], sky sky, time DOUBLE, station UINTEGER)""")
con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", [
    [cols[c][i] for c in order] for i in range(1000)
])
con.execute(f"COPY (SELECT * FROM t) TO '{os.path.join(d, 'duckdb.parquet')}' (FORMAT parquet)")
con.execute(f"COPY (SELECT temperature, code, wind::FLOAT[] AS wind, sky::VARCHAR AS sky, time, station FROM t) TO '{os.path.join(d, 'duckdb-plain.parquet')}' (FORMAT parquet)")
"#,
        &[d],
    );
    let data = readings(N);
    for name in [
        "pyarrow.parquet",
        "polars.parquet",
        "duckdb.parquet",
        "duckdb-plain.parquet",
    ] {
        let read = ndl_arrow::read_parquet::<Reading>(d.join(name));
        assert_eq!(
            read.unwrap_or_else(|e| panic!("{name}: {e}")),
            data,
            "{name}"
        );
    }
    for name in ["pyarrow.feather", "polars.arrow"] {
        let read = ndl_arrow::read_ipc::<Reading>(d.join(name));
        assert_eq!(
            read.unwrap_or_else(|e| panic!("{name}: {e}")),
            data,
            "{name}"
        );
    }
}

#[test]
fn parquet_files_pyarrow_compresses_with_each_of_its_codecs_read_back_typed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let codecs = run(
        r#"
import sys, os, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
cols = columns(1000)
table = pa.table({
    "station": pa.array(cols["station"], pa.uint32()),
    "time": pa.array(cols["time"]),
    "sky": pa.array(cols["sky"]).dictionary_encode(),
    "code": pa.array(cols["code"]),
    "wind": pa.array(cols["wind"], pa.list_(pa.float32(), 2)),
    "temperature": pa.array(cols["temperature"], pa.float32()),
})
codecs = ["none", "snappy", "gzip", "brotli", "lz4", "zstd"]
for codec in codecs:
    path = os.path.join(d, codec + ".parquet")
    pq.write_table(table, path, compression=codec)
    wrote = pq.read_metadata(path).row_group(0).column(0).compression
    assert wrote == {"none": "UNCOMPRESSED"}.get(codec, codec.upper()), wrote
print(" ".join(codecs))
"#,
        &[d],
    );
    let data = readings(N);
    for codec in codecs.split_whitespace() {
        let read = ndl_arrow::read_parquet::<Reading>(d.join(format!("{codec}.parquet")));
        assert_eq!(
            read.unwrap_or_else(|e| panic!("{codec}: {e}")),
            data,
            "{codec}"
        );
    }
}

/// A record whose member has another name than its Rust field.
#[derive(Clone, Copy, Debug, PartialEq, ndl_runtime::NdlType)]
#[repr(C)]
struct Renamed {
    station: u32,
    #[ndl(rename = "Temperature")]
    temperature: f32,
}

#[test]
fn mismatches_in_their_files_name_the_column() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run(
        r#"
import sys, os, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
cols = columns(10)
def table(**changes):
    t = {
        "station": pa.array(cols["station"], pa.uint32()),
        "time": pa.array(cols["time"]),
        "sky": pa.array(cols["sky"]).dictionary_encode(),
        "code": pa.array(cols["code"]),
        "wind": pa.array(cols["wind"], pa.list_(pa.float32(), 2)),
        "temperature": pa.array(cols["temperature"], pa.float32()),
    }
    t.update(changes)
    return pa.table({k: v for k, v in t.items() if v is not None})
pq.write_table(table(), os.path.join(d, "ok.parquet"))
pq.write_table(table(temperature=None), os.path.join(d, "missing.parquet"))
pq.write_table(table(station=pa.array(cols["station"], pa.int64())), os.path.join(d, "wrong-type.parquet"))
pq.write_table(table(temperature=pa.array([1.0, 2.0, None] + [3.0] * 7, pa.float32())), os.path.join(d, "null.parquet"))
pq.write_table(table(sky=pa.array(["Clear"] * 5 + ["Fog"] + ["Clear"] * 4).dictionary_encode()), os.path.join(d, "no-member.parquet"))
pq.write_table(table(extra=pa.array(range(10))), os.path.join(d, "extra.parquet"))
pq.write_table(table(code=pa.array(["RA"] * 3 + ["TSRAGR"] + ["RA"] * 6)), os.path.join(d, "long.parquet"))
pq.write_table(table(wind=pa.array([[1.0, 2.0]] * 4 + [[1.0]] + [[1.0, 2.0]] * 5, pa.list_(pa.float32()))), os.path.join(d, "short-list.parquet"))
bad = table().replace_schema_metadata({"ndl.datatype": "compound: [{station: {type: uint32, offset: 0}}]\nsize: 4"})
pq.write_table(bad, os.path.join(d, "bad-metadata.parquet"))
bad = table().replace_schema_metadata({"ndl.datatype": "{compound: ["})
pq.write_table(bad, os.path.join(d, "garbled-metadata.parquet"))
"#,
        &[d],
    );
    let err = |name: &str| {
        ndl_arrow::read_parquet::<Reading>(d.join(name))
            .unwrap_err()
            .without_path()
            .to_string()
    };
    assert_eq!(
        ndl_arrow::read_parquet::<Reading>(d.join("ok.parquet")).unwrap(),
        readings(10)
    );
    assert_eq!(err("missing.parquet"), "column `temperature`: missing");
    // A renamed member is looked for, and missed, under its column's name.
    let others = ReadOptions::new().ignore_extra_columns(true);
    let renamed = ndl_arrow::read_parquet_with::<Renamed>(d.join("ok.parquet"), &others);
    let renamed = renamed.unwrap_err();
    assert_eq!(
        renamed.without_path().to_string(),
        "column `Temperature`: missing"
    );
    assert_eq!(
        err("wrong-type.parquet"),
        "column `station`: expected UInt32, found Int64"
    );
    assert_eq!(
        err("null.parquet"),
        "record 2, column `temperature`: a null, which the records cannot hold"
    );
    assert_eq!(
        err("no-member.parquet"),
        "record 5, column `sky`: `Fog` is no member of the enum"
    );
    assert_eq!(
        err("extra.parquet"),
        "column `extra`: the records have no such member (ReadOptions::ignore_extra_columns skips it)"
    );
    let options = ReadOptions::new().ignore_extra_columns(true);
    assert_eq!(
        ndl_arrow::read_parquet_with::<Reading>(d.join("extra.parquet"), &options).unwrap(),
        readings(10)
    );
    assert_eq!(
        err("long.parquet"),
        "record 3, column `code`: the string \"TSRAGR\" has 6 bytes, more than the 4 the field holds"
    );
    assert_eq!(
        err("short-list.parquet"),
        "record 4, column `wind`: a list of 1 values, where the records hold 2"
    );

    let open = |name: &str| {
        ndl_arrow::ParquetRecordReader::open(d.join(name), &ReadOptions::default())
            .unwrap_err()
            .without_path()
            .to_string()
    };
    assert!(
        open("bad-metadata.parquet")
            .starts_with("the schema metadata `ndl.datatype`: does not describe the columns: "),
        "{}",
        open("bad-metadata.parquet")
    );
    assert!(
        open("garbled-metadata.parquet").starts_with("the schema metadata `ndl.datatype`: "),
        "{}",
        open("garbled-metadata.parquet")
    );
    // Without the metadata, the datatype is made of the columns.
    let reader =
        ndl_arrow::ParquetRecordReader::open(d.join("missing.parquet"), &ReadOptions::default());
    let err = reader.unwrap_err().to_string();
    assert!(
        err.contains("column `sky`") || err.contains("column `code`"),
        "{err}"
    );
}

/// Nested structs, 2-d arrays, complex numbers, f16, UTF-32 strings and
/// enums of wide bases: what each peer makes of them.
#[test]
fn the_peers_read_every_member_kind() {
    use ndl_testkit::records::{C64, Extras, F16, Names, Outer, S5, Tagged, U3};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let outer: Vec<Outer> = (0..4)
        .map(|i| Outer {
            id: i,
            pos: ndl_testkit::records::Inner {
                x: f64::from(i),
                y: 0.5,
            },
            flags: [i % 2 == 0, true, false],
            m: [[i as i16, -1, 2], [3, 4, 5]],
        })
        .collect();
    ndl_arrow::write_parquet(d.join("outer.parquet"), &outer).unwrap();
    let extras = [Extras {
        z: C64 { re: 1.0, im: -2.0 },
        h: F16(0x3C00),
        ok: true,
    }];
    ndl_arrow::write_parquet(d.join("extras.parquet"), &extras).unwrap();
    let names = [Names {
        s: S5(*b"ab\0\0\0"),
        u: U3(['é' as u32, '∑' as u32, 0]),
    }];
    ndl_arrow::write_parquet(d.join("names.parquet"), &names).unwrap();
    use ndl_testkit::records::{Color, Level, Wide};
    let tagged = [Tagged {
        c: Color::Blue,
        l: Level::Low,
        w: Wide::B,
    }];
    ndl_arrow::write_parquet(d.join("tagged.parquet"), &tagged).unwrap();
    let out = run(
        r#"
import sys, os, pyarrow.parquet as pq, polars as pl, duckdb
d = sys.argv[1]
for name in ["outer", "extras", "names", "tagged"]:
    f = os.path.join(d, name + ".parquet")
    t = pq.read_table(f)
    print(name, "pyarrow", t.to_pylist()[-1])
    try:
        print(name, "polars", pl.read_parquet(f).rows()[-1])
    except Exception as e:
        print(name, "polars fails:", type(e).__name__)
    try:
        print(name, "duckdb", duckdb.sql(f"SELECT * FROM '{f}'").fetchall()[-1])
    except Exception as e:
        print(name, "duckdb fails:", type(e).__name__)
"#,
        &[d],
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "outer pyarrow {'id': 3, 'pos': {'x': 3.0, 'y': 0.5}, 'flags': [False, True, False], 'm': [[3, -1, 2], [3, 4, 5]]}",
            "outer polars (3, {'x': 3.0, 'y': 0.5}, [False, True, False], [[3, -1, 2], [3, 4, 5]])",
            "outer duckdb (3, {'x': 3.0, 'y': 0.5}, [False, True, False], [[3, -1, 2], [3, 4, 5]])",
            "extras pyarrow {'z': {'re': 1.0, 'im': -2.0}, 'h': 1.0, 'ok': True}",
            "extras polars ({'re': 1.0, 'im': -2.0}, 1.0, True)",
            "extras duckdb ({'re': 1.0, 'im': -2.0}, 1.0, True)",
            "names pyarrow {'s': 'ab', 'u': 'é∑'}",
            "names polars ('ab', 'é∑')",
            "names duckdb ('ab', 'é∑')",
            "tagged pyarrow {'c': 'Blue', 'l': 'Low', 'w': 'B'}",
            "tagged polars ('Blue', 'Low', 'B')",
            "tagged duckdb ('Blue', 'Low', 'B')",
        ]
    );
}

/// A file without our metadata: its datatype is made of its columns, as a
/// `#[repr(C)]` struct would lay them out, and its records read as bytes.
#[test]
fn a_polars_file_without_our_metadata_describes_its_own_records() {
    use ndl_runtime::{Compound, Datatype, Enum, EnumMember, IntType};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run(
        r#"
import sys, os, polars as pl
d = sys.argv[1]
pl.DataFrame({
    "station": pl.Series([1, 2], dtype=pl.UInt32),
    "sky": pl.Series(["Stratus", "Clear"], dtype=pl.Enum(SKY_NAMES)),
    "wind": pl.Series([[1.0, 2.0], [3.0, 4.0]], dtype=pl.Array(pl.Float32, 2)),
}).write_parquet(os.path.join(d, "p.parquet"))
pl.DataFrame({"name": ["a", "b"]}).write_parquet(os.path.join(d, "strings.parquet"))
"#,
        &[d],
    );
    let mut reader =
        ndl_arrow::ParquetRecordReader::open(d.join("p.parquet"), &ReadOptions::default()).unwrap();
    let sky = Datatype::Enum(Enum {
        base: IntType::UInt8,
        members: vec![
            EnumMember::new("Clear", 0),
            EnumMember::new("Cumulus", 1),
            EnumMember::new("Stratus", 2),
        ],
    });
    let expected = Compound::c_layout([
        ("station", Datatype::UInt32),
        ("sky", sky),
        ("wind", Datatype::Float32.array_of(&[2])),
    ])
    .unwrap();
    assert_eq!(reader.datatype(), &Datatype::Compound(expected));
    let records = reader.next_records().unwrap().unwrap();
    let mut first = 1u32.to_ne_bytes().to_vec();
    first.extend([2, 0, 0, 0]);
    first.extend([1f32.to_ne_bytes(), 2f32.to_ne_bytes()].concat());
    assert_eq!(records[..16], first[..]);
    let err =
        ndl_arrow::ParquetRecordReader::open(d.join("strings.parquet"), &ReadOptions::default())
            .unwrap_err();
    assert_eq!(
        err.without_path().to_string(),
        "column `name`: LargeUtf8 has no fixed size, so it has no place in a record"
    );
}

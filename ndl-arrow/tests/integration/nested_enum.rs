//! Records whose nested structs hold enums (issue #27): polars, pyarrow and
//! DuckDB all read them, at depth 1 and 2, for every enum base, and inside
//! an array field of the nested struct.

use ndl_runtime::NdlType;
use ndl_testkit::{python312, run_with};

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u8)]
pub enum Small {
    A,
    B,
    C = 9,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(i16)]
pub enum Signed {
    Low = -3,
    High = 300,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u32)]
pub enum Wide {
    One = 1,
    Big = 70000,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
pub struct Deep {
    pub wide: Wide,
    pub level: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
pub struct Inner {
    pub small: Small,
    pub signed: Signed,
    pub skies: [Small; 2],
    pub deep: Deep,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
pub struct Outer {
    pub id: u32,
    pub inner: Inner,
}

const SMALLS: [Small; 3] = [Small::A, Small::B, Small::C];

fn record(i: u32) -> Outer {
    let small = |k: u32| SMALLS[(k % 3) as usize];
    Outer {
        id: i,
        inner: Inner {
            small: small(i),
            signed: if i.is_multiple_of(2) {
                Signed::Low
            } else {
                Signed::High
            },
            skies: [small(i + 1), small(i + 2)],
            deep: Deep {
                wide: if i.is_multiple_of(4) {
                    Wide::Big
                } else {
                    Wide::One
                },
                level: i as f32 * 0.5,
            },
        },
    }
}

fn records(n: u32) -> Vec<Outer> {
    (0..n).map(record).collect()
}

/// `record(i)` as polars, pyarrow and DuckDB give it back, as a dict.
const PY_RECORD: &str = r#"
import sys
SMALLS = ["A", "B", "C"]
def record(i):
    return {"id": i, "inner": {
        "small": SMALLS[i % 3],
        "signed": "Low" if i % 2 == 0 else "High",
        "skies": [SMALLS[(i + 1) % 3], SMALLS[(i + 2) % 3]],
        "deep": {"wide": "Big" if i % 4 == 0 else "One", "level": i * 0.5},
    }}
EXPECTED = [record(i) for i in range(int(sys.argv[3]))]
"#;

const N: u32 = 300;

/// Writes the records as Parquet and IPC, runs `script` on them, and
/// returns its output lines.
fn run_on_files(script: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("n.parquet");
    let ipc = dir.path().join("n.arrow");
    let data = records(N);
    ndl_arrow::write_parquet(&parquet, &data).unwrap();
    ndl_arrow::write_ipc(&ipc, &data).unwrap();
    assert_eq!(ndl_arrow::read_parquet::<Outer>(&parquet).unwrap(), data);
    assert_eq!(ndl_arrow::read_ipc::<Outer>(&ipc).unwrap(), data);
    let out = run_with(
        &python312(),
        &format!("{PY_RECORD}\n{script}"),
        &[
            parquet.to_str().unwrap(),
            ipc.to_str().unwrap(),
            &N.to_string(),
        ],
    );
    out.lines().map(str::to_owned).collect()
}

#[test]
fn polars_reads_enums_nested_in_structs_from_parquet_and_ipc() {
    let lines = run_on_files(
        r#"
import polars as pl
for name, read in [
    ("read_parquet", lambda: pl.read_parquet(sys.argv[1])),
    ("scan_parquet", lambda: pl.scan_parquet(sys.argv[1]).collect()),
    ("read_ipc", lambda: pl.read_ipc(sys.argv[2])),
    ("scan_ipc", lambda: pl.scan_ipc(sys.argv[2]).collect()),
]:
    df = read()
    assert df.to_dicts() == EXPECTED, name
    print(name, df.schema)
"#,
    );
    let schema = "Schema({'id': UInt32, 'inner': Struct({'small': Enum(categories=['A', 'B', 'C']), 'signed': Enum(categories=['Low', 'High']), 'skies': Array(Categorical, shape=(2,)), 'deep': Struct({'wide': Enum(categories=['One', 'Big']), 'level': Float32})})})";
    let expected: Vec<String> = ["read_parquet", "scan_parquet", "read_ipc", "scan_ipc"]
        .iter()
        .map(|how| format!("{how} {schema}"))
        .collect();
    assert_eq!(lines, expected);
}

#[test]
fn pyarrow_and_duckdb_read_enums_nested_in_structs() {
    let lines = run_on_files(
        r#"
import duckdb, pyarrow.parquet as pq, pyarrow.ipc as ipc
for table in [pq.read_table(sys.argv[1]), ipc.open_file(sys.argv[2]).read_all()]:
    assert table.to_pylist() == EXPECTED
    print(table.schema.field("inner").type.field("deep").type.field("wide").type)
nested = duckdb.read_parquet(sys.argv[1])
rows = duckdb.sql('SELECT id, "inner" FROM nested ORDER BY id').fetchall()
assert [{"id": i, "inner": inner} for i, inner in rows] == EXPECTED
print(duckdb.sql('SELECT "inner".deep.wide, count(*) FROM nested GROUP BY ALL ORDER BY 1').fetchall())
"#,
    );
    let dictionary = "dictionary<values=string, indices=uint8, ordered=0>";
    assert_eq!(
        lines,
        [dictionary, dictionary, "[('Big', 75), ('One', 225)]"]
    );
}

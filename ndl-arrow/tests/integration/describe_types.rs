//! Every Arrow type has an NDL description: files pyarrow writes with a
//! column of each, described from their schema (Parquet and IPC, file
//! and stream), and the plain reader still refusing what it cannot read,
//! by column.

use std::path::Path;

use ndl_runtime::{Datatype, Opaque};
use ndl_testkit::{python312, run_with};

/// A table with one column of each kind, written as Parquet, an IPC file
/// and an IPC stream.
const PY_EVERY_TYPE: &str = r#"
import sys, datetime, decimal
import pyarrow as pa, pyarrow.parquet as pq, pyarrow.ipc as ipc
n = 2
cols = {
    'id': pa.array([1, 2], pa.int64()),
    'utf8': pa.array(['a', None], pa.string()),
    'large_utf8': pa.array(['a', 'bc'], pa.large_string()),
    'view': pa.array(['a', 'bc'], pa.string_view()),
    'binary': pa.array([b'x', b''], pa.binary()),
    'large_binary': pa.array([b'x', None], pa.large_binary()),
    'list': pa.array([[1.0], []], pa.list_(pa.float32())),
    'large_list': pa.array([['a'], None], pa.large_list(pa.string())),
    'fixed_list': pa.array([[1, 2], [3, 4]], pa.list_(pa.int16(), 2)),
    'struct': pa.array([{'code': 'x', 'n': 1}, {'code': None, 'n': 2}],
                       pa.struct([('code', pa.string()), ('n', pa.uint8())])),
    'fixed_struct': pa.array([{'a': 1, 'b': 2.0}, {'a': 3, 'b': 4.0}],
                             pa.struct([('a', pa.int32()), ('b', pa.float64())])),
    'map': pa.array([[('k', 1)], []], pa.map_(pa.string(), pa.int32())),
    'null': pa.nulls(n),
    'dict': pa.array(['u', 'v']).dictionary_encode(),
    'dec128': pa.array([decimal.Decimal('1.25'), None], pa.decimal128(10, 2)),
    'dec256': pa.array([decimal.Decimal('1.5'), None], pa.decimal256(40, 1)),
    'time32': pa.array([datetime.time(1, 2, 3), None], pa.time32('ms')),
    'time64': pa.array([datetime.time(1, 2, 3), None], pa.time64('us')),
    'interval': pa.array([pa.MonthDayNano([1, 2, 3]), None], pa.month_day_nano_interval()),
}
t = pa.table(cols)
out = sys.argv[1]
ipc_only = ['view', 'interval']
pq.write_table(t.drop_columns(ipc_only), out + '/every.parquet')
with ipc.new_file(out + '/every.arrow', t.schema) as w:
    w.write_table(t)
with ipc.new_stream(out + '/every.arrows', t.schema) as w:
    w.write_table(t)
print('written')
"#;

fn write_every_type(dir: &Path) {
    let out = run_with(&python312(), PY_EVERY_TYPE, &[dir.to_str().unwrap()]);
    assert!(out.contains("written"), "{out}");
}

fn tagged(size: usize, tag: &str) -> Datatype {
    Datatype::Opaque(Opaque {
        size,
        tag: Some(tag.into()),
    })
}

fn vlen(dt: Datatype) -> Datatype {
    Datatype::Vlen(Box::new(dt))
}

fn optional(dt: Datatype) -> Datatype {
    Datatype::Optional(Box::new(dt))
}

/// The description each column must have: `optional` where it holds a
/// null.
fn expected(name: &str) -> Option<Datatype> {
    use Datatype::*;
    Some(match name {
        "id" => Int64,
        "large_utf8" | "view" | "dict" => String,
        "utf8" => optional(String),
        "binary" => vlen(UInt8),
        "large_binary" => optional(vlen(UInt8)),
        "list" => vlen(Float32),
        "large_list" => optional(vlen(String)),
        "fixed_list" => Int16.array_of(&[2]),
        "null" => optional(tagged(0, "arrow:null")),
        "dec128" => optional(tagged(16, "arrow:decimal128(10, 2)")),
        "dec256" => optional(tagged(32, "arrow:decimal256(40, 1)")),
        "time32" => optional(tagged(4, "arrow:time32[ms]")),
        "time64" => optional(tagged(8, "arrow:time64[us]")),
        "interval" => optional(tagged(16, "arrow:month_day_nano_interval")),
        _ => return None,
    })
}

fn check_described(dt: &Datatype, file: &str) {
    let Datatype::Compound(c) = dt else {
        panic!("{file}: not a compound: {dt:?}")
    };
    assert!(c.is_variable(), "{file}");
    for m in &c.members {
        let Some(want) = expected(&m.name) else {
            continue;
        };
        assert_eq!(m.datatype, want, "{file}: column {}", m.name);
    }
    let member = |name: &str| &c.member(name).unwrap().datatype;
    let Datatype::Compound(s) = member("struct") else {
        panic!("{file}: struct")
    };
    assert!(s.is_variable());
    assert_eq!(s.members[0].datatype, optional(Datatype::String));
    assert_eq!(s.members[1].datatype, Datatype::UInt8);
    let Datatype::Compound(f) = member("fixed_struct") else {
        panic!("{file}: fixed_struct")
    };
    assert_eq!((f.size, f.members[1].offset), (16, 8), "{file}: C layout");
    // A map is a `vlen` of `{key, value}` records.
    let Datatype::Vlen(entry) = member("map") else {
        panic!("{file}: map")
    };
    let Datatype::Compound(e) = &**entry else {
        panic!("{file}: map entry")
    };
    let names: Vec<&str> = e.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["key", "value"], "{file}");
    assert_eq!(e.members[0].datatype, Datatype::String);
    assert_eq!(e.members[1].datatype, Datatype::Int32);
}

#[test]
fn every_arrow_type_is_described() {
    let dir = tempfile::tempdir().unwrap();
    write_every_type(dir.path());
    let (dt, rows) = ndl_arrow::describe_parquet(&dir.path().join("every.parquet")).unwrap();
    assert_eq!(rows, 2);
    check_described(&dt, "every.parquet");
    for file in ["every.arrow", "every.arrows"] {
        let (dt, rows) = ndl_arrow::describe_ipc(&dir.path().join(file)).unwrap();
        assert_eq!(rows, 2, "{file}");
        check_described(&dt, file);
        let Datatype::Compound(c) = &dt else {
            unreachable!()
        };
        assert_eq!(c.members.len(), 19, "{file}: every column");
    }
}

#[test]
fn plain_tables_describe_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plain.parquet");
    run_with(
        &python312(),
        "import sys, pyarrow as pa, pyarrow.parquet as pq\n\
         pq.write_table(pa.table({'a': pa.array([1], pa.uint8()), 'b': [2.5]}), sys.argv[1])",
        &[path.to_str().unwrap()],
    );
    let (dt, _) = ndl_arrow::describe_parquet(&path).unwrap();
    // Nullable in pyarrow's schema, yet plain: a C-layout compound.
    let Datatype::Compound(c) = &dt else {
        panic!("{dt:?}")
    };
    assert_eq!((c.size, c.members[1].offset), (16, 8));
    assert_eq!(c.members[1].datatype, Datatype::Float64);
    assert!(
        ndl_arrow::ParquetRecordReader::open(&path, &ndl_arrow::ReadOptions::default()).is_ok()
    );
}

#[test]
fn reading_variable_columns_as_bytes_is_refused_by_column() {
    let dir = tempfile::tempdir().unwrap();
    write_every_type(dir.path());
    let e = ndl_arrow::ParquetRecordReader::open(
        dir.path().join("every.parquet"),
        &ndl_arrow::ReadOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("utf8"), "{e}");
}

/// The same table with and without statistics: `optional` where a column
/// holds a null, whether the row groups count them or the data is read;
/// a struct's field whose only nulls are under null structs stays plain.
const PY_NULLS: &str = r#"
import sys
import pyarrow as pa, pyarrow.parquet as pq, pyarrow.ipc as ipc
point = pa.struct([('x', pa.int32()), ('y', pa.float64())])
t = pa.table({
    'holes': pa.array([1, None, 3, 4], pa.int64()),
    'whole': pa.array([1, 2, 3, 4], pa.int64()),
    'late': pa.array([1.0, 2.0, 3.0, None]),
    'point': pa.array([{'x': 1, 'y': 0.5}, None, {'x': 3, 'y': None}, {'x': 4, 'y': 1.0}], point),
    'items': pa.array([[1], [None], [], None], pa.list_(pa.int8())),
})
out = sys.argv[1]
pq.write_table(t, out + '/stats.parquet', row_group_size=2)
pq.write_table(t, out + '/bare.parquet', row_group_size=2, write_statistics=False)
with ipc.new_file(out + '/t.arrow', t.schema) as w:
    w.write_table(t, max_chunksize=3)
print('written')
"#;

#[test]
fn optional_where_the_data_holds_nulls() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_with(&python312(), PY_NULLS, &[dir.path().to_str().unwrap()]);
    assert!(out.contains("written"), "{out}");
    let point = Datatype::Compound(
        ndl_runtime::Compound::variable(vec![
            ndl_runtime::Member::new("x", 0, Datatype::Int32),
            ndl_runtime::Member::new("y", 0, optional(Datatype::Float64)),
        ])
        .unwrap(),
    );
    let want = [
        ("holes", optional(Datatype::Int64)),
        ("whole", Datatype::Int64),
        ("late", optional(Datatype::Float64)),
        ("point", optional(point)),
        ("items", optional(vlen(optional(Datatype::Int8)))),
    ];
    for file in ["stats.parquet", "bare.parquet", "t.arrow"] {
        let path = dir.path().join(file);
        let (dt, rows) = match file.ends_with(".parquet") {
            true => ndl_arrow::describe_parquet(&path),
            false => ndl_arrow::describe_ipc(&path),
        }
        .unwrap();
        assert_eq!(rows, 4);
        let Datatype::Compound(c) = &dt else {
            panic!("{file}: {dt:?}")
        };
        for (name, dt) in &want {
            assert_eq!(&c.member(name).unwrap().datatype, dt, "{file}: {name}");
        }
    }
}

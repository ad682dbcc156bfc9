//! Records without a Rust type: a table pyarrow wrote, with bytes,
//! strings and nulls, read as neutral columns a record at a time and
//! written back through `ColumnsWriter`, which pyarrow reads as the same
//! values (bytes as lists of `uint8`, NDL's `vlen` of `uint8`).

use ndl_arrow::{ColumnsReader, ColumnsWriter, ReadOptions, WriteOptions};
use ndl_testkit::{python312, run_with};

const MAKE: &str = r#"
import sys
import pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table({
    'blob': pa.array([b'ab', b'', None, b'\x00\xff'], pa.binary()),
    'large': pa.array([b'x', b'yz', b'', b''], pa.large_binary()),
    'name': pa.array(['é', None, '', 'z'], pa.string()),
}), sys.argv[1], row_group_size=3)
"#;

const CHECK: &str = r#"
import sys
import pyarrow as pa, pyarrow.parquet as pq, pyarrow.ipc as ipc
a = pq.read_table(sys.argv[1])
b = ipc.open_file(sys.argv[2]).read_all()
assert b.column_names == a.column_names, b.schema
assert b.schema.field('blob').type == pa.list_(pa.field('item', pa.uint8(), nullable=False)), b.schema
assert b.schema.field('blob').nullable and not b.schema.field('large').nullable, b.schema
as_lists = lambda v: None if v is None else list(v)
for n in ['blob', 'large']:
    assert b.column(n).to_pylist() == [as_lists(v) for v in a.column(n).to_pylist()], n
assert b.column('name').to_pylist() == a.column('name').to_pylist()
print(b.num_rows)
"#;

#[test]
fn bytes_strings_and_nulls_go_through_columns_a_record_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let (src, dest) = (dir.path().join("t.parquet"), dir.path().join("t.arrow"));
    run_with(&python312(), MAKE, &[src.to_str().unwrap()]);
    let mut reader = ColumnsReader::open_parquet(&src, &ReadOptions::default(), 1).unwrap();
    assert_eq!(reader.len(), 4);
    let (dt, template) = (reader.datatype().clone(), reader.template().clone());
    let mut writer =
        ColumnsWriter::create_ipc(&dest, &dt, &template, &WriteOptions::default()).unwrap();
    let mut batches = 0;
    while let Some(columns) = reader.next_columns().unwrap() {
        assert_eq!(columns.len(), 1);
        writer.write(columns).unwrap();
        batches += 1;
    }
    assert_eq!(batches, 4);
    assert!(!dest.exists(), "published before finish");
    assert_eq!(writer.finish().unwrap(), 4);
    let rows = run_with(
        &python312(),
        CHECK,
        &[src.to_str().unwrap(), dest.to_str().unwrap()],
    );
    assert_eq!(rows.trim(), "4");
}

#[test]
fn a_null_where_the_template_takes_none_names_column_and_record() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("t.parquet");
    run_with(&python312(), MAKE, &[src.to_str().unwrap()]);
    let reader = ColumnsReader::open_parquet(&src, &ReadOptions::default(), 1 << 20).unwrap();
    // The same columns without their options: the nulls have no place.
    let strict =
        ndl_runtime::record::Column::template(&without_options(reader.datatype())).unwrap();
    let batch = ndl_arrow::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        std::fs::File::open(&src).unwrap(),
    )
    .unwrap()
    .build()
    .unwrap()
    .next()
    .unwrap()
    .unwrap();
    let err = ndl_arrow::columns_from_batch(&strict, &batch, &ReadOptions::default()).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("blob") && text.contains("record 2"), "{text}");
}

fn without_options(dt: &ndl_runtime::Datatype) -> ndl_runtime::Datatype {
    use ndl_runtime::Datatype;
    match dt {
        Datatype::Optional(base) => without_options(base),
        Datatype::Compound(c) => {
            let members: Vec<_> = c
                .members
                .iter()
                .map(|m| ndl_runtime::Member::new(m.name.clone(), 0, without_options(&m.datatype)))
                .collect();
            Datatype::Compound(ndl_runtime::Compound::variable(members).unwrap())
        }
        other => other.clone(),
    }
}

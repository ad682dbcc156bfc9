//! Variable records without a Rust type ([`RecordsWriter`],
//! [`RecordsReader`]): batches of columns laid out by a template, blocks
//! crossing records, strings and sequences, nulls stored as their fill,
//! and the typed reader agreeing with what the untyped writer wrote.

use ndl_hdf5::{Error, RecordsReader, RecordsWriter, WriteOptions};
use ndl_runtime::record::{self, Column};
use ndl_runtime::Record;

#[derive(Clone, Debug, PartialEq, Record)]
struct Venue {
    code: String,
    id: u16,
}

#[derive(Clone, Debug, PartialEq, Record)]
struct Row {
    id: u64,
    name: String,
    levels: Vec<f32>,
    venue: Venue,
    #[ndl(fill = -1)]
    rank: Option<i32>,
}

fn rows(n: u64) -> Vec<Row> {
    (0..n)
        .map(|i| Row {
            id: i,
            name: ["", "é", "日本語", "plain"][i as usize % 4].repeat(i as usize % 3),
            levels: (0..i % 5).map(|x| x as f32 / 2.0).collect(),
            venue: Venue {
                code: format!("ü{i}"),
                id: i as u16,
            },
            rank: (i % 3 != 0).then_some(i as i32),
        })
        .collect()
}

/// The columns of `records` as another format gives them: a null's slot
/// holds a placeholder (0), not the fill.
fn untyped(records: &[Row]) -> Column {
    let mut column = record::columns(records);
    let Column::Struct { fields, .. } = &mut column else {
        unreachable!()
    };
    let (_, rank) = fields.iter_mut().find(|(n, _)| n == "rank").unwrap();
    let Column::Nullable {
        values, validity, ..
    } = rank
    else {
        unreachable!()
    };
    let Column::Values {
        values: ndl_runtime::record::Values::I32(v),
        ..
    } = values.as_mut()
    else {
        unreachable!()
    };
    for (i, x) in v.iter_mut().enumerate() {
        if !validity.get(i) {
            *x = 0;
        }
    }
    column
}

#[test]
fn untyped_batches_read_back_in_small_blocks_and_typed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.h5");
    let datatype = Row::datatype();
    let template = Column::template(&datatype).unwrap();
    // The template has no fill: the writer takes the record type's.
    let template = match (template, record::columns::<Row>(&[])) {
        (Column::Struct { len, .. }, Column::Struct { fields, .. }) => {
            Column::Struct { len, fields }
        }
        _ => unreachable!(),
    };
    let all = rows(50);
    let mut writer =
        RecordsWriter::create(&path, "rows", &datatype, &template, &WriteOptions::new()).unwrap();
    for batch in all.chunks(7) {
        writer.append(&untyped(batch)).unwrap();
    }
    assert!(!path.exists(), "published only when finished");
    assert_eq!(writer.finish().unwrap(), 50);

    assert_eq!(ndl_hdf5::read::<Row>(&path, "rows").unwrap(), all);
    // Blocks of 3 records: strings and sequences cross their boundaries.
    let mut reader = RecordsReader::open(&path, "rows")
        .unwrap()
        .with_block_bytes(3 * 72);
    assert_eq!(reader.len(), 50);
    let mut back = Vec::new();
    let mut blocks = 0;
    while let Some(block) = reader.next_block().unwrap() {
        assert!(block.len() <= 3, "{}", block.len());
        back.push(block);
        blocks += 1;
    }
    assert!(blocks >= 17, "{blocks}");
    // The file has no nulls: a null reads back as its fill, -1.
    let names: Vec<String> = back
        .iter()
        .flat_map(|b| {
            let Column::Struct { fields, .. } = b else {
                unreachable!()
            };
            let (_, Column::Strings { offsets, data }) = &fields[1] else {
                panic!("{fields:?}")
            };
            offsets
                .windows(2)
                .map(|w| String::from_utf8(data[w[0] as usize..w[1] as usize].to_vec()).unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    let expected: Vec<String> = all.iter().map(|r| r.name.clone()).collect();
    assert_eq!(names, expected);
    let ranks: Vec<i32> = back
        .iter()
        .flat_map(|b| {
            let Column::Struct { fields, .. } = b else {
                unreachable!()
            };
            let (_, Column::Values { values, .. }) = &fields[4] else {
                panic!("{fields:?}")
            };
            let ndl_runtime::record::Values::I32(v) = values else {
                panic!("{values:?}")
            };
            v.clone()
        })
        .collect();
    let expected: Vec<i32> = all.iter().map(|r| r.rank.unwrap_or(-1)).collect();
    assert_eq!(ranks, expected);
}

#[test]
fn an_option_without_a_fill_is_refused_naming_it_and_the_fill_option() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.h5");
    let datatype = Row::datatype();
    let template = Column::template(&datatype).unwrap();
    let e = RecordsWriter::create(&path, "rows", &datatype, &template, &WriteOptions::new())
        .err()
        .unwrap();
    let Error::Type { source, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(source.field, "rank", "{e}");
    assert!(e.to_string().contains("--fill rank=VALUE"), "{e}");
    assert!(!path.exists());
}

#[test]
fn a_batch_of_another_shape_is_refused_and_nothing_is_published() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("venues.h5");
    let datatype = Venue::datatype();
    let template = Column::template(&datatype).unwrap();
    let mut writer =
        RecordsWriter::create(&path, "v", &datatype, &template, &WriteOptions::new()).unwrap();
    let other = record::columns(&rows(2));
    let e = writer.append(&other).unwrap_err();
    assert!(matches!(e, Error::InvalidValue { .. }), "{e}");
    drop(writer);
    assert!(!path.exists());
}

#[derive(Debug, PartialEq, Record)]
struct Marked {
    id: u64,
    levels: Vec<f32>,
}

const MARK: u64 = 0x0123_4567_89ab_cdef;

#[test]
fn a_damaged_sequence_length_is_refused_naming_record_and_member() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("marked.h5");
    let records: Vec<Marked> = (0..3)
        .map(|i| Marked {
            id: MARK + i,
            levels: (0..=i).map(|x| x as f32).collect(),
        })
        .collect();
    ndl_hdf5::write(&path, "data", &records).unwrap();
    assert_eq!(RecordsReader::open(&path, "data").unwrap().len(), 3);
    let mut bytes = std::fs::read(&path).unwrap();
    let mark = (MARK + 1).to_le_bytes();
    let at = bytes.windows(8).position(|w| w == mark).unwrap();
    // 2³²-1 floats would be 16 GiB.
    bytes[at + 8..at + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(&path, bytes).unwrap();
    let e = RecordsReader::open(&path, "data").err().unwrap();
    let Error::InvalidValue { record, field, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!((*record, field.as_str()), (1, "levels"), "{e}");
    assert!(e.to_string().contains("more than the whole file"), "{e}");
}

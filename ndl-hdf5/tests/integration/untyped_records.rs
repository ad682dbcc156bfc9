//! Variable records without a Rust type ([`RecordsWriter`],
//! [`RecordsReader`]): batches of columns laid out by a template, blocks
//! crossing records, strings and sequences, nulls stored as their fill,
//! and the typed reader agreeing with what the untyped writer wrote.

use ndl_hdf5::{Error, RecordsReader, RecordsWriter, WriteOptions};
use ndl_runtime::record::{self, Column};
use ndl_runtime::{Datatype, Record};

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
    // HDF5 has no nulls, but the writer's `ndl_fills` attribute marks
    // `rank` an option with its fill: read without the Rust type, the
    // datatype is the record's and the nulls come back.
    assert_eq!(reader.datatype(), &datatype);
    let records: Vec<Row> = back
        .iter()
        .flat_map(|b| record::read::<Row>(&b.view()).unwrap())
        .collect();
    assert_eq!(records, all);
}

#[derive(Clone, Debug, PartialEq, Record)]
struct Unfilled {
    id: u64,
    name: String,
    rank: Option<i32>,
}

#[derive(Clone, Debug, PartialEq, Record)]
struct Filled {
    id: u64,
    name: String,
    #[ndl(fill = -1)]
    rank: Option<i32>,
}

/// A Rust type whose `Option` has no fill (as `ndl describe --format
/// rust` writes one) reads the nulls by the file's `ndl_fills`; one whose
/// attribute names no member, or holds no number, is an error naming it.
#[test]
fn the_files_fills_mark_the_nulls_for_types_without_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("filled.h5");
    let written = [
        Filled {
            id: 1,
            name: "a".into(),
            rank: None,
        },
        Filled {
            id: 2,
            name: "".into(),
            rank: Some(3),
        },
    ];
    ndl_hdf5::write(&path, "t", &written).unwrap();
    let back: Vec<Unfilled> = ndl_hdf5::read(&path, "t").unwrap();
    assert_eq!(
        back.iter().map(|r| r.rank).collect::<Vec<_>>(),
        [None, Some(3)]
    );
    let script = r#"
import sys, h5py
with h5py.File(sys.argv[1], "a") as f:
    assert f["t"].attrs["ndl_fills"] == '{"rank":"-1"}', f["t"].attrs["ndl_fills"]
    assert f["t"]["rank"].tolist() == [-1, 3]
    f["t"].attrs["ndl_fills"] = sys.argv[2]
"#;
    for (bad, words) in [
        (r#"{"rnk":"-1"}"#, "`rnk`"),
        (r#"{"rank":"x"}"#, "the fill of `rank`"),
    ] {
        let copy = dir.path().join("bad.h5");
        std::fs::copy(&path, &copy).unwrap();
        ndl_testkit::python::run_with(
            &ndl_testkit::python::python312(),
            script,
            &[copy.to_str().unwrap(), bad],
        );
        let e = RecordsReader::open(&copy, "t").err().unwrap().to_string();
        assert!(e.contains("ndl_fills") && e.contains(words), "{e}");
    }
}

#[derive(Clone, Debug, PartialEq, Record)]
struct FilledLeg {
    #[ndl(fill = -1)]
    qty: Option<i32>,
}

#[derive(Clone, Debug, PartialEq, Record)]
struct Leg {
    qty: Option<i32>,
}

#[derive(Clone, Debug, PartialEq, Record)]
struct Trip<L: Record> {
    legs: Vec<L>,
}

/// An option inside a list of records is marked too (`legs.qty`): a type
/// without the fill, or no type at all, gets its nulls back.
#[test]
fn the_files_fills_mark_options_in_the_items_of_lists() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trips.h5");
    let leg = |qty| FilledLeg { qty };
    let written = [
        Trip {
            legs: vec![leg(Some(5)), leg(None)],
        },
        Trip { legs: vec![] },
        Trip {
            legs: vec![leg(None)],
        },
    ];
    ndl_hdf5::write(&path, "t", &written).unwrap();
    let back: Vec<Trip<Leg>> = ndl_hdf5::read(&path, "t").unwrap();
    let qty = |t: &Trip<Leg>| t.legs.iter().map(|l| l.qty).collect::<Vec<_>>();
    assert_eq!(
        back.iter().map(qty).collect::<Vec<_>>(),
        [vec![Some(5), None], vec![], vec![None]]
    );
    let reader = RecordsReader::open(&path, "t").unwrap();
    assert_eq!(reader.datatype(), &Trip::<Leg>::datatype());
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

/// A dataset of sequences alone (h5py's `vlen_dtype()`) reads as records
/// of one member, `value`, untyped; and typed as the `Vec` that `ndl
/// describe --format rust` names for it.
#[test]
fn a_dataset_of_sequences_reads_as_records_of_one_list() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.h5");
    ndl_testkit::python::run_with(
        &ndl_testkit::python::python312(),
        r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    v = f.create_dataset("v", (3,), dtype=h5py.vlen_dtype(np.int16))
    for i, row in enumerate([[1, 2], [], [-3]]):
        v[i] = np.array(row, np.int16)
"#,
        &[path.to_str().unwrap()],
    );
    let mut reader = RecordsReader::open(&path, "v").unwrap();
    let Datatype::Compound(c) = reader.datatype() else {
        panic!("{:?}", reader.datatype())
    };
    assert_eq!(c.members[0].name, ndl_hdf5::VALUE_MEMBER);
    #[derive(Debug, PartialEq, Record)]
    struct Row {
        value: Vec<i16>,
    }
    let block = reader.next_block().unwrap().unwrap();
    let rows: Vec<Row> = record::read(&block.view()).unwrap();
    let want = [vec![1, 2], vec![], vec![-3]];
    assert_eq!(
        rows.iter().map(|r| r.value.clone()).collect::<Vec<_>>(),
        want
    );
    assert_eq!(ndl_hdf5::read::<Vec<i16>>(&path, "v").unwrap(), want);
}

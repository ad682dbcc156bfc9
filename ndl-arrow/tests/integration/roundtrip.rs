//! Records through record batches, Parquet and Arrow IPC files and back,
//! typed and as raw bytes, without any Python.

use crate::common;

use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, UInt8Type, UInt32Type};
use arrow_schema::DataType;
use common::{Reading, readings};
use ndl_arrow::{
    IpcRecordReader, IpcRecordWriter, ParquetRecordReader, ParquetRecordWriter, ParquetWriter,
    ReadOptions,
};
use ndl_runtime::{ByteOrder, Datatype, NdlType, npy};
use ndl_testkit::records::{Extras, Names, Outer, Padded, Tagged, Track};

#[test]
fn the_readme_record_maps_column_by_column() {
    let data = readings(10);
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
            "Float64",
            "Dictionary(UInt8, Utf8)",
            "Utf8",
            "FixedSizeList(2 x non-null Float32)",
            "Float32"
        ]
    );
    assert!(schema.fields().iter().all(|f| !f.is_nullable()));
    assert_eq!(schema.field(0).metadata()["description"], "Station number.");
    assert_eq!(schema.field(5).metadata()["units"], "K");
    let sky = schema.field(2).metadata();
    assert_eq!(
        sky["ndl.type"],
        "enum: {base: uint8, members: {Clear: 0, Cumulus: 1, Stratus: 7}}"
    );
    assert_eq!(sky["_PL_ENUM_VALUES2"], "5;Clear7;Cumulus7;Stratus");
    let dt: Datatype = serde_yaml::from_str(&schema.metadata()[ndl_arrow::DATATYPE_KEY]).unwrap();
    assert_eq!(dt, Reading::datatype());

    let station = batch.column(0).as_primitive::<UInt32Type>();
    assert_eq!(station.values()[3], data[3].station);
    let sky = batch.column(2).as_dictionary::<UInt8Type>();
    assert_eq!(sky.keys().values()[..3], [0, 1, 2]);
    assert_eq!(sky.values().as_string::<i32>().value(2), "Stratus");
    let code = batch.column(3).as_string::<i32>();
    assert_eq!(
        (code.value(0), code.value(2), code.value(3)),
        ("RA", "TSRA", "")
    );
    let wind = batch.column(4).as_fixed_size_list();
    assert_eq!(
        wind.values().as_primitive::<Float32Type>().values()[2..4],
        data[1].wind
    );

    assert_eq!(
        ndl_arrow::from_record_batch::<Reading>(&batch).unwrap(),
        data
    );
}

/// Round trips of `data` through a batch, a Parquet file and an IPC file.
fn round_trips<T: ndl_runtime::Record + PartialEq + std::fmt::Debug>(data: &[T]) {
    let batch = ndl_arrow::to_record_batch(data).unwrap();
    assert_eq!(ndl_arrow::from_record_batch::<T>(&batch).unwrap(), data);
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("x.parquet");
    ndl_arrow::write_parquet(&parquet, data).unwrap();
    assert_eq!(ndl_arrow::read_parquet::<T>(&parquet).unwrap(), data);
    let ipc = dir.path().join("x.arrow");
    ndl_arrow::write_ipc(&ipc, data).unwrap();
    assert_eq!(ndl_arrow::read_ipc::<T>(&ipc).unwrap(), data);
}

#[test]
fn every_kind_of_member_round_trips() {
    round_trips(&readings(1000));
    round_trips(&readings(0));
    round_trips(
        &(0..50)
            .map(|i| Outer {
                id: i,
                pos: ndl_testkit::records::Inner {
                    x: i as f64,
                    y: -(i as f32),
                },
                flags: [i % 2 == 0, true, false],
                m: [[i as i16, -1, 2], [3, 4, i16::MIN]],
            })
            .collect::<Vec<_>>(),
    );
    let inner = |i: u8| ndl_testkit::records::Inner {
        x: f64::from(i),
        y: 0.5,
    };
    round_trips(&[
        Track {
            n: 2,
            pts: [inner(1), inner(2)],
        },
        Track {
            n: 0,
            pts: [inner(3), inner(4)],
        },
    ]);
    round_trips(
        &(0..9)
            .map(|i| Padded {
                a: i,
                b: -f64::from(i),
                c: u16::MAX - u16::from(i),
            })
            .collect::<Vec<_>>(),
    );
    round_trips(&[u64::MAX, 0, 7]);
    round_trips(&[[1.5f32, 2.0], [3.0, -4.0]]);
}

#[test]
fn hand_written_types_round_trip() {
    let tagged: Vec<Tagged> = (0..6)
        .map(|i| Tagged {
            c: [
                ndl_testkit::records::Color::Red,
                ndl_testkit::records::Color::Blue,
            ][i % 2],
            l: [
                ndl_testkit::records::Level::Low,
                ndl_testkit::records::Level::High,
            ][i % 2],
            w: [ndl_testkit::records::Wide::A, ndl_testkit::records::Wide::B][i % 2],
        })
        .collect();
    round_trips(&tagged);
    let names = [Names {
        s: ndl_testkit::records::S5(*b"ab\0\0\0"),
        u: ndl_testkit::records::U3(['é' as u32, '∑' as u32, 0]),
    }];
    round_trips(&names);
    let batch = ndl_arrow::to_record_batch(&names).unwrap();
    assert_eq!(batch.column(1).as_string::<i32>().value(0), "é∑");
    let extras = [Extras {
        z: ndl_testkit::records::C64 { re: 1.0, im: -2.0 },
        h: ndl_testkit::records::F16(0x3C00),
        ok: true,
    }];
    round_trips(&extras);
    let batch = ndl_arrow::to_record_batch(&extras).unwrap();
    assert_eq!(
        batch.schema().field(0).data_type().to_string(),
        "Struct(\"re\": non-null Float32, \"im\": non-null Float32)"
    );
    assert_eq!(batch.schema().field(1).data_type(), &DataType::Float16);
}

#[test]
fn big_endian_bytes_become_the_same_columns_and_come_back_big_endian() {
    let data: Vec<Padded> = (0..5)
        .map(|i| Padded {
            a: i,
            b: f64::from(i) / 3.0,
            c: 300 + u16::from(i),
        })
        .collect();
    let dt = Padded::datatype();
    let mut big = vec![0u8; 24 * data.len()];
    for (r, p) in big.chunks_exact_mut(24).zip(&data) {
        r[0] = p.a;
        r[8..16].copy_from_slice(&p.b.to_be_bytes());
        r[16..18].copy_from_slice(&p.c.to_be_bytes());
        r[1] = 0xEE; // padding, never read
    }
    let batch = ndl_arrow::to_record_batch_raw(&dt, ByteOrder::Big, &big).unwrap();
    assert_eq!(batch, ndl_arrow::to_record_batch(&data).unwrap());
    let options = ReadOptions::new().byte_order(ByteOrder::Big);
    let back = ndl_arrow::from_record_batch_raw(&dt, &batch, &options).unwrap();
    for r in big.chunks_exact_mut(24) {
        r[1] = 0;
    }
    assert_eq!(back, big);
}

#[test]
fn npy_to_parquet_to_npy_is_byte_identical() {
    let data = readings(3000);
    for order in [ByteOrder::Little, ByteOrder::Big] {
        let mut file = Vec::new();
        npy::WriteOptions::new()
            .byte_order(order)
            .write(&mut file, &data)
            .unwrap();
        let body = &file[file.len() - data.len() * 40..];
        let dir = tempfile::tempdir().unwrap();
        for ext in ["parquet", "arrow"] {
            let path = dir.path().join(format!("r.{ext}"));
            let options = ReadOptions::new().byte_order(order);
            let (dt, records) = if ext == "parquet" {
                let mut w =
                    ParquetRecordWriter::create(&path, &Reading::datatype(), order).unwrap();
                w.write(&body[..40 * 1000]).unwrap();
                w.write(&body[40 * 1000..]).unwrap();
                w.finish().unwrap();
                let mut r = ParquetRecordReader::open(&path, &options).unwrap();
                assert_eq!(r.len(), 3000);
                assert_eq!(r.stored_byte_order(), Some(order));
                let mut records = Vec::new();
                while let Some(part) = r.next_records().unwrap() {
                    records.extend(part);
                }
                (r.datatype().clone(), records)
            } else {
                let mut w = IpcRecordWriter::create(&path, &Reading::datatype(), order).unwrap();
                w.write(body).unwrap();
                w.finish().unwrap();
                let mut r = IpcRecordReader::open(&path, &options).unwrap();
                assert_eq!(r.stored_byte_order(), Some(order));
                let mut records = Vec::new();
                while let Some(part) = r.next_records().unwrap() {
                    records.extend(part);
                }
                (r.datatype().clone(), records)
            };
            assert_eq!(
                dt,
                Reading::datatype(),
                "{ext}: the exact datatype, descriptions included"
            );
            let mut again = file[..file.len() - body.len()].to_vec();
            again.extend(records);
            assert!(again == file, "{ext} {order:?}: not byte-identical");
        }
    }
}

/// The rows of each row group of the Parquet file at `path`.
fn row_groups(path: &std::path::Path) -> Vec<i64> {
    use ndl_arrow::parquet::file::reader::{FileReader, SerializedFileReader};
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    reader
        .metadata()
        .row_groups()
        .iter()
        .map(|g| g.num_rows())
        .collect()
}

#[test]
fn row_groups_keep_to_their_byte_limit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bytes.parquet");
    let props = ndl_arrow::parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_bytes(Some(64 << 10))
        .build();
    let mut writer = ParquetWriter::<Reading>::create_with(
        &path,
        &ndl_arrow::WriteOptions::new().parquet_properties(props),
    )
    .unwrap();
    writer.append(&readings(20_000)).unwrap();
    writer.finish().unwrap();
    let groups = row_groups(&path);
    assert!(groups.len() > 1, "{groups:?}");
    assert_eq!(groups.iter().sum::<i64>(), 20_000);
    assert_eq!(
        ndl_arrow::read_parquet::<Reading>(&path).unwrap(),
        readings(20_000)
    );
}

#[test]
fn a_parquet_writer_streams_row_groups_and_publishes_on_finish() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stream.parquet");
    let props = ndl_arrow::parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(1000))
        .build();
    let mut writer = ParquetWriter::<Reading>::create_with(
        &path,
        &ndl_arrow::WriteOptions::new().parquet_properties(props),
    )
    .unwrap();
    for start in (0..5000).step_by(700) {
        let part: Vec<Reading> = (start..(start + 700).min(5000))
            .map(common::reading)
            .collect();
        writer.append(&part).unwrap();
    }
    assert!(!path.exists());
    assert_eq!(
        ndl_testkit::names(dir.path()).len(),
        1,
        "one temporary file beside it"
    );
    writer.finish().unwrap();
    assert_eq!(ndl_testkit::names(dir.path()), ["stream.parquet"]);
    let meta = ParquetRecordReader::open(&path, &ReadOptions::default()).unwrap();
    assert_eq!(meta.len(), 5000);
    assert_eq!(row_groups(&path), [1000; 5]);
    assert_eq!(
        ndl_arrow::read_parquet::<Reading>(&path).unwrap(),
        readings(5000)
    );

    let dropped = dir.path().join("dropped.parquet");
    let mut writer = ParquetWriter::<Reading>::create(&dropped).unwrap();
    writer.append(&readings(10)).unwrap();
    drop(writer);
    assert_eq!(
        ndl_testkit::names(dir.path()),
        ["stream.parquet"],
        "a dropped writer leaves nothing"
    );
}

#[test]
fn bad_bytes_are_named_by_record_and_column() {
    let dt = Reading::datatype();
    let mut bytes = vec![0u8; 80];
    bytes[40 + 16] = 3; // record 1's sky: no member
    let err = ndl_arrow::to_record_batch_raw(&dt, ByteOrder::NATIVE, &bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "record 1, column `sky`: 3 is no member of the enum"
    );
    bytes[40 + 16] = 7;
    bytes[17..19].copy_from_slice(&[0xC3, 0x28]); // record 0's code: not UTF-8
    let err = ndl_arrow::to_record_batch_raw(&dt, ByteOrder::NATIVE, &bytes).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("record 0, column `code`: the string is not UTF-8"),
        "{err}"
    );
    let err = ndl_arrow::to_record_batch_raw(&dt, ByteOrder::NATIVE, &bytes[..50]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "50 bytes are not whole records of 40 bytes"
    );
    let err = ndl_arrow::schema_of(&Datatype::Vlen(Box::new(Datatype::Int8))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "column `value`: the datatype vlen: {base: int8} has no Arrow form in ndl-arrow"
    );
}

#[test]
fn a_value_too_long_for_its_field_is_refused() {
    use arrow_array::{RecordBatch, StringArray};
    use std::sync::Arc;
    #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
    #[repr(C)]
    struct Code {
        #[ndl(string)]
        code: [u8; 2],
    }
    let batch = RecordBatch::try_from_iter([(
        "code",
        Arc::new(StringArray::from(vec!["ab", "abc"])) as Arc<dyn Array>,
    )])
    .unwrap();
    let err = ndl_arrow::from_record_batch::<Code>(&batch).unwrap_err();
    assert_eq!(
        err.to_string(),
        "record 1, column `code`: the string \"abc\" has 3 bytes, more than the 2 the field holds"
    );
}

#[test]
fn an_ipc_file_of_many_batches_keeps_one_dictionary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.arrow");
    let data = readings(3000);
    let bytes: Vec<u8> = {
        let mut file = Vec::new();
        npy::write(&mut file, &data).unwrap();
        file[file.len() - 40 * 3000..].to_vec()
    };
    let mut w = IpcRecordWriter::create(&path, &Reading::datatype(), ByteOrder::NATIVE).unwrap();
    for part in bytes.chunks(40 * 700) {
        w.write(part).unwrap();
    }
    w.finish().unwrap();
    assert_eq!(ndl_arrow::read_ipc::<Reading>(&path).unwrap(), data);
}

#[test]
fn unfinished_writers_of_every_kind_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = readings(10);
    let dt = Reading::datatype();
    let mut w = ndl_arrow::IpcWriter::<Reading>::create(dir.path().join("a.arrow")).unwrap();
    w.append(&data).unwrap();
    drop(w);
    let mut w =
        ParquetRecordWriter::create(dir.path().join("b.parquet"), &dt, ByteOrder::NATIVE).unwrap();
    w.write(&[0; 40]).unwrap();
    drop(w);
    let mut w =
        IpcRecordWriter::create(dir.path().join("c.arrow"), &dt, ByteOrder::NATIVE).unwrap();
    let err = w.write(&[0; 41]).unwrap_err();
    assert_eq!(
        err.without_path().to_string(),
        "41 bytes are not whole records of 40 bytes"
    );
    drop(w);
    assert!(ndl_testkit::names(dir.path()).is_empty());
}

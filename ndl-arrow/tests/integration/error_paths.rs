//! Every error of a function given a path names that path, once (issue
//! #28): opening, reading, creating, appending and finishing, for Parquet
//! and Arrow IPC, typed and raw.

use std::path::{Path, PathBuf};

use ndl_arrow::{
    Error, IpcRecordReader, IpcRecordWriter, IpcWriter, ParquetRecordReader, ParquetRecordWriter,
    ParquetWriter, ReadOptions,
};
use ndl_runtime::{
    ByteOrder, Charset, Compound, Datatype, Enum, EnumMember, FixedString, IntType, NdlType,
};

use crate::common::{Reading, readings};

/// A record type `Reading` is not: reading a file of readings as these
/// fails on its columns.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Other {
    missing: u64,
}

#[track_caller]
fn assert_names_once(err: &Error, path: &Path) {
    let text = err.to_string();
    let named = path.to_str().unwrap();
    assert_eq!(text.matches(named).count(), 1, "{text}");
    assert_eq!(err.path(), Some(path), "{text}");
}

/// Records of `{id: uint32, e: enum {A: 0, B: 1}}` whose second enum
/// byte is 7, no member.
fn bad_enum_records() -> (Datatype, Vec<u8>) {
    let e = Datatype::Enum(Enum {
        base: IntType::UInt8,
        members: vec![EnumMember::new("A", 0), EnumMember::new("B", 1)],
    });
    let dt = Datatype::Compound(Compound::c_layout([("id", Datatype::UInt32), ("e", e)]).unwrap());
    let mut bytes = Vec::new();
    for (id, e) in [(1u32, 0u8), (2, 7)] {
        bytes.extend(id.to_ne_bytes());
        bytes.extend([e, 0, 0, 0]);
    }
    (dt, bytes)
}

fn files(dir: &Path) -> [PathBuf; 2] {
    [dir.join("r.parquet"), dir.join("r.arrow")]
}

fn is_parquet(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "parquet")
}

fn read_typed<T: ndl_runtime::Record>(path: &Path) -> Result<Vec<T>, Error> {
    if is_parquet(path) {
        ndl_arrow::read_parquet(path)
    } else {
        ndl_arrow::read_ipc(path)
    }
}

fn open_raw(path: &Path) -> Result<Box<dyn ndl_arrow::RecordReader>, Error> {
    let options = ReadOptions::default();
    Ok(if is_parquet(path) {
        Box::new(ParquetRecordReader::open(path, &options)?)
    } else {
        Box::new(IpcRecordReader::open(path, &options)?)
    })
}

fn write_typed(path: &Path, data: &[Reading]) -> Result<(), Error> {
    if is_parquet(path) {
        ndl_arrow::write_parquet(path, data)
    } else {
        ndl_arrow::write_ipc(path, data)
    }
}

#[test]
fn readers_name_the_file_once() {
    let dir = tempfile::tempdir().unwrap();
    for path in files(dir.path()) {
        let absent = read_typed::<Reading>(&path).unwrap_err();
        assert_names_once(&absent, &path);

        write_typed(&path, &readings(50)).unwrap();
        let wrong_type = read_typed::<Other>(&path).unwrap_err();
        assert_names_once(&wrong_type, &path);
        assert!(matches!(
            wrong_type.without_path(),
            Error::TypeMismatch { .. }
        ));
        let as_other = Other::datatype();
        let options = ReadOptions::default();
        let open_as = if is_parquet(&path) {
            ParquetRecordReader::open_as(&path, &as_other, &options).map(drop)
        } else {
            IpcRecordReader::open_as(&path, &as_other, &options).map(drop)
        };
        assert_names_once(&open_as.unwrap_err(), &path);

        std::fs::write(&path, b"not a file of columns at all").unwrap();
        assert_names_once(&read_typed::<Reading>(&path).unwrap_err(), &path);
        assert_names_once(&open_raw(&path).map(drop).unwrap_err(), &path);
    }
}

#[test]
fn a_bad_value_met_while_reading_names_the_file_and_its_record_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let (dt, bytes) = bad_enum_records();
    let good = dt.clone();
    let Datatype::Compound(mut c) = dt else {
        unreachable!()
    };
    // Written as one-byte strings, read back as the enum: "Z" is no member.
    c.members[1].datatype = Datatype::FixedString(FixedString {
        length: 1,
        charset: Charset::Ascii,
    });
    let plain = Datatype::Compound(c);
    let mut bytes = bytes;
    bytes[4] = b'A';
    bytes[12] = b'Z';
    for path in files(dir.path()) {
        if is_parquet(&path) {
            let mut w = ParquetRecordWriter::create(&path, &plain, ByteOrder::NATIVE).unwrap();
            for part in [&bytes[..8], &bytes[..8], &bytes] {
                w.write(part).unwrap();
            }
            w.finish().unwrap();
        } else {
            let mut w = IpcRecordWriter::create(&path, &plain, ByteOrder::NATIVE).unwrap();
            for part in [&bytes[..8], &bytes[..8], &bytes] {
                w.write(part).unwrap();
            }
            w.finish().unwrap();
        }
        let options = ReadOptions::default();
        // Three batches in the IPC file, one in the Parquet file: the bad
        // record is the file's fourth either way.
        let mut reader: Box<dyn ndl_arrow::RecordReader> = if is_parquet(&path) {
            Box::new(ParquetRecordReader::open_as(&path, &good, &options).unwrap())
        } else {
            Box::new(IpcRecordReader::open_as(&path, &good, &options).unwrap())
        };
        let err = loop {
            match reader.next_records() {
                Ok(records) => assert!(records.is_some(), "{}: read", path.display()),
                Err(err) => break err,
            }
        };
        assert_names_once(&err, &path);
        let text = err.to_string();
        assert!(text.contains("record 3, column `e`"), "{text}");
    }
}

#[test]
fn writers_name_the_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let (dt, bytes) = bad_enum_records();
    for path in files(dir.path()) {
        let nowhere = dir.path().join("absent").join(path.file_name().unwrap());
        assert_names_once(&write_typed(&nowhere, &readings(3)).unwrap_err(), &nowhere);

        let partial = if is_parquet(&path) {
            let mut w = ParquetRecordWriter::create(&path, &dt, ByteOrder::NATIVE).unwrap();
            w.write(&bytes[..5]).unwrap_err()
        } else {
            let mut w = IpcRecordWriter::create(&path, &dt, ByteOrder::NATIVE).unwrap();
            w.write(&bytes[..5]).unwrap_err()
        };
        assert_names_once(&partial, &path);
        assert!(matches!(
            partial.without_path(),
            Error::PartialRecord { .. }
        ));

        // The bad record is the file's fourth: the second of the second write.
        let bad_value = if is_parquet(&path) {
            let mut w = ParquetRecordWriter::create(&path, &dt, ByteOrder::NATIVE).unwrap();
            w.write(&bytes[..8]).unwrap();
            w.write(&bytes[..8]).unwrap();
            w.write(&bytes).unwrap_err()
        } else {
            let mut w = IpcRecordWriter::create(&path, &dt, ByteOrder::NATIVE).unwrap();
            w.write(&bytes[..8]).unwrap();
            w.write(&bytes[..8]).unwrap();
            w.write(&bytes).unwrap_err()
        };
        assert_names_once(&bad_value, &path);
        assert!(
            bad_value.to_string().contains("record 3, column `e`"),
            "{bad_value}"
        );
    }
}

#[test]
fn finishing_into_a_vanished_directory_names_the_file_once() {
    for name in ["r.parquet", "r.arrow"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        let err = if is_parquet(&path) {
            let mut w = ParquetWriter::<Reading>::create(&path).unwrap();
            w.append(&readings(3)).unwrap();
            std::fs::remove_dir_all(dir.path()).unwrap();
            w.finish().unwrap_err()
        } else {
            let mut w = IpcWriter::<Reading>::create(&path).unwrap();
            w.append(&readings(3)).unwrap();
            std::fs::remove_dir_all(dir.path()).unwrap();
            w.finish().unwrap_err()
        };
        assert_names_once(&err, &path);
    }
}

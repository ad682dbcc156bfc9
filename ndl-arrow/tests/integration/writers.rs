//! The writers' life, as in every format crate: `create_with` takes
//! [`WriteOptions`], `finish` says how many records the file holds, and
//! `durable` flushes the file before its rename into place and the
//! directory after.

use ndl_arrow::{IpcWriter, ParquetWriter, WriteOptions};
use ndl_testkit::child::{assert_durable_publish, traced_flushes};

use crate::common::{Reading, readings};

#[test]
fn finish_counts_the_records_written() {
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("r.parquet");
    let mut w = ParquetWriter::<Reading>::create(&parquet).unwrap();
    w.append(&readings(7)).unwrap();
    w.append(&readings(5)).unwrap();
    assert_eq!(w.finish().unwrap(), 12);
    assert_eq!(
        ndl_arrow::read_parquet::<Reading>(&parquet).unwrap().len(),
        12
    );
    for name in ["r.arrow", "r.arrows"] {
        let path = dir.path().join(name);
        let mut w = IpcWriter::<Reading>::create_with(&path, &WriteOptions::new()).unwrap();
        w.append(&readings(3)).unwrap();
        assert_eq!(w.finish().unwrap(), 3);
        assert_eq!(ndl_arrow::read_ipc::<Reading>(&path).unwrap(), readings(3));
    }
}

#[test]
fn durable_writes_flush_around_the_rename() {
    const CHILD: &str = "NDL_ARROW_DURABLE_CHILD";
    if let Ok(spec) = std::env::var(CHILD) {
        let (durable, path) = spec.split_once(' ').unwrap();
        let options = WriteOptions::new().durable(durable == "true");
        if path.ends_with(".parquet") {
            let mut w = ParquetWriter::<Reading>::create_with(path, &options).unwrap();
            w.append(&readings(50)).unwrap();
            w.finish().unwrap();
        } else {
            let mut w = IpcWriter::<Reading>::create_with(path, &options).unwrap();
            w.append(&readings(50)).unwrap();
            w.finish().unwrap();
        }
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (durable, name) in [(false, "a.parquet"), (true, "b.parquet"), (true, "c.arrow")] {
        let path = dir.path().join(name);
        let spec = format!("{durable} {}", path.display());
        let calls = traced_flushes("durable_writes_flush_around_the_rename", (CHILD, &spec));
        assert!(path.exists(), "{name}");
        assert_durable_publish(&calls, durable);
    }
}

//! Files that are not what they claim: garbage, truncated, corrupted.
//! Every one gives an error, never a panic.

use crate::common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use common::{Reading, readings};
use ndl_arrow::{IpcRecordReader, ParquetRecordReader, ReadOptions};

/// Reads `path` every way there is; the first error, `None` when it reads.
fn read_every_way(path: &Path) -> Option<String> {
    let options = ReadOptions::default();
    let typed = if path.extension().is_some_and(|e| e == "parquet") {
        ndl_arrow::read_parquet::<Reading>(path).err()
    } else {
        ndl_arrow::read_ipc::<Reading>(path).err()
    };
    let raw = if path.extension().is_some_and(|e| e == "parquet") {
        ParquetRecordReader::open(path, &options).and_then(|mut r| {
            while r.next_records()?.is_some() {}
            Ok(())
        })
    } else {
        IpcRecordReader::open(path, &options).and_then(|mut r| {
            while r.next_records()?.is_some() {}
            Ok(())
        })
    };
    typed.or(raw.err()).map(|e| e.to_string())
}

/// The variants of `good` that panic a reader, by description.
fn panics(
    dir: &Path,
    name: &str,
    variants: impl Iterator<Item = (String, Vec<u8>)>,
) -> Vec<String> {
    let mut panicked = Vec::new();
    let path = dir.join(name);
    for (what, bytes) in variants {
        std::fs::write(&path, &bytes).unwrap();
        if catch_unwind(AssertUnwindSafe(|| read_every_way(&path))).is_err() {
            panicked.push(what);
        }
    }
    panicked
}

fn good_files(dir: &Path) -> [(&'static str, Vec<u8>); 2] {
    let data = readings(300);
    let parquet = dir.join("good.parquet");
    let props = ndl_arrow::parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(100))
        .build();
    let mut w = ndl_arrow::ParquetWriter::<Reading>::create_with(
        &parquet,
        &ndl_arrow::WriteOptions::new().parquet_properties(props),
    )
    .unwrap();
    w.append(&data).unwrap();
    w.finish().unwrap();
    let ipc = dir.join("good.arrow");
    ndl_arrow::write_ipc(&ipc, &data).unwrap();
    [
        ("x.parquet", std::fs::read(parquet).unwrap()),
        ("x.arrow", std::fs::read(ipc).unwrap()),
    ]
}

#[test]
fn garbage_is_refused_with_an_error() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["g.parquet", "g.arrow"] {
        let path = dir.path().join(name);
        for bytes in [
            &b""[..],
            b"PAR1",
            b"PAR1PAR1",
            b"ARROW1\0\0ARROW1",
            b"not a file at all, just text",
        ] {
            std::fs::write(&path, bytes).unwrap();
            let err = read_every_way(&path);
            assert!(err.is_some(), "{name} {bytes:?} read");
        }
    }
    let err = ndl_arrow::read_parquet::<Reading>(dir.path().join("absent.parquet")).unwrap_err();
    assert!(err.to_string().contains("absent.parquet"), "{err}");
}

#[test]
fn truncated_files_give_errors() {
    let dir = tempfile::tempdir().unwrap();
    for (name, good) in good_files(dir.path()) {
        let step = (good.len() / 300).max(1);
        let cuts = (0..good.len())
            .step_by(step)
            .chain(good.len().saturating_sub(16)..good.len());
        let variants = cuts.map(|n| (format!("{name} cut at {n}"), good[..n].to_vec()));
        let panicked = panics(dir.path(), name, variants);
        assert!(panicked.is_empty(), "panics: {panicked:?}");
        for n in [0, good.len() / 2, good.len() - 1] {
            let path = dir.path().join(name);
            std::fs::write(&path, &good[..n]).unwrap();
            assert!(read_every_way(&path).is_some(), "{name} cut at {n} read");
        }
    }
}

#[test]
fn corrupted_bytes_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    for (name, good) in good_files(dir.path()) {
        let step = (good.len() / 400).max(1);
        let variants = (0..good.len()).step_by(step).flat_map(|at| {
            [0xFFu8, 0x00, 0x80].map(|b| {
                let mut bad = good.clone();
                bad[at] ^= b | 1;
                (format!("{name} byte {at} ^ {:#x}", b | 1), bad)
            })
        });
        let panicked = panics(dir.path(), name, variants);
        assert!(
            panicked.is_empty(),
            "{} panics: {panicked:?}",
            panicked.len()
        );
    }
}

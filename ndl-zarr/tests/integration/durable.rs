//! `WriteOptions::durable`: every kind of store written so is complete,
//! and its files and directories are flushed to the disk around their
//! renames. That the flush makes a store survive a power loss cannot be
//! shown without one; the system calls are what a test can see (strace).

use std::path::Path;

use ndl_runtime::NdlType;
use ndl_testkit::child::traced_flushes;
use ndl_zarr::{ArrayWriter, Layout, WriteOptions, ZarrFormat};

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Rec {
    id: u64,
    t: f64,
    ok: bool,
}

fn records(range: std::ops::Range<u64>) -> Vec<Rec> {
    range
        .map(|i| Rec {
            id: i,
            t: i as f64 / 4.0,
            ok: i % 3 == 0,
        })
        .collect()
}

/// Durable options of each kind of store, in chunks of 10 records.
fn every_kind() -> [WriteOptions; 4] {
    let base = WriteOptions::new().chunk_len(10).durable(true);
    [
        base.clone(),
        base.clone().zarr_format(ZarrFormat::V2),
        base.clone().shard_len(40),
        base.layout(Layout::Columns),
    ]
}

#[test]
fn the_option_is_carried() {
    let durable = WriteOptions::new().durable(true);
    assert_ne!(durable, WriteOptions::new());
    assert_eq!(durable.clone().durable(false), WriteOptions::new());
    assert!(format!("{durable:?}").contains("durable: true"));
}

/// Written whole, created and appended to, published on finish: each
/// store reads back every record, and takes appends.
#[test]
fn durable_stores_are_complete() {
    let dir = tempfile::tempdir().unwrap();
    for (i, options) in every_kind().into_iter().enumerate() {
        let written = dir.path().join(format!("w{i}.zarr"));
        options.write(&written, &records(0..95)).unwrap();
        assert_eq!(ndl_zarr::read::<Rec>(&written).unwrap(), records(0..95));

        for publish in [false, true] {
            let path = dir.path().join(format!("c{i}{publish}.zarr"));
            let mut w =
                ArrayWriter::<Rec>::create_with(&path, &options.clone().publish_on_finish(publish))
                    .unwrap();
            w.append(&records(0..57)).unwrap();
            assert_eq!(w.finish().unwrap(), 57, "{options:?}");
            let mut w = ArrayWriter::<Rec>::open(&path).unwrap();
            w.append(&records(57..80)).unwrap();
            assert_eq!(w.finish().unwrap(), 80);
            assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), records(0..80));
        }
    }
    // A relative path: its parent directory is the current one.
    let relative = Path::new("target-durable-relative.zarr");
    let _ = std::fs::remove_dir_all(relative);
    let done = WriteOptions::new()
        .durable(true)
        .write(relative, &records(0..3));
    let back = ndl_zarr::read::<Rec>(relative);
    let _ = std::fs::remove_dir_all(relative);
    done.unwrap();
    assert_eq!(back.unwrap(), records(0..3));
}

/// The system calls of a write (`strace -f`), with and without the option:
/// without, no flush; with, a flush of each file and directory, the store's
/// directory flushed before it is renamed into place and its parent after.
#[test]
fn durable_writes_flush_around_their_renames() {
    const CHILD: &str = "NDL_ZARR_DURABLE_CHILD";
    if let Ok(spec) = std::env::var(CHILD) {
        let (durable, path) = spec.split_once(' ').unwrap();
        let options = WriteOptions::new().chunk_len(10).durable(durable == "true");
        options.write(path, &records(0..95)).unwrap();
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for durable in [false, true] {
        let path = dir.path().join(format!("{durable}.zarr"));
        let spec = format!("{durable} {}", path.display());
        let calls = traced_flushes("durable_writes_flush_around_their_renames", (CHILD, &spec));
        assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), records(0..95));
        let syncs = calls.iter().filter(|l| l.contains("sync(")).count();
        if !durable {
            assert_eq!(syncs, 0, "{calls:#?}");
            continue;
        }
        // 10 chunks and the metadata, each file and its directory.
        assert!(syncs >= 12, "{syncs} flushes: {calls:#?}");
        let publish = calls
            .iter()
            .position(|l| l.contains("rename") && l.contains(".partial\""))
            .unwrap_or_else(|| panic!("no rename of the building directory: {calls:#?}"));
        assert!(calls[publish - 1].contains("sync("), "{calls:#?}");
        assert!(calls[publish + 1].contains("sync("), "{calls:#?}");
    }
}

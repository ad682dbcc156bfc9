//! The streaming writer and the storage options, checked with h5py.

use ndl_hdf5::{Codec, DatasetWriter, WriteOptions};
use ndl_runtime::ByteOrder;
use ndl_testkit::child::{assert_durable_publish, traced_flushes};
use ndl_testkit::python::{python312, run_with};
use ndl_testkit::records::Padded;

fn records(range: std::ops::Range<u32>) -> Vec<Padded> {
    range
        .map(|i| Padded {
            a: i as u8,
            b: f64::from(i) / 4.0,
            c: (i * 3) as u16,
        })
        .collect()
}

#[test]
fn appends_stream_into_one_extendable_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stream.h5");
    let options = WriteOptions::new()
        .chunk(1000)
        .codec(Codec::Deflate(6))
        .shuffle(true);
    let mut w = DatasetWriter::<Padded>::create_with(&path, "/a/b/data", &options).unwrap();
    for k in 0..5 {
        w.append(&records(k * 700..(k + 1) * 700)).unwrap();
        // Nothing at `path` until the file is complete.
        assert!(!path.exists());
    }
    assert_eq!(w.len(), 3500);
    w.finish().unwrap();
    assert_eq!(
        ndl_hdf5::read::<Padded>(&path, "/a/b/data").unwrap(),
        records(0..3500)
    );

    let mut w = DatasetWriter::<Padded>::open(&path, "/a/b/data").unwrap();
    w.append(&records(3500..4000)).unwrap();
    w.finish().unwrap();
    assert_eq!(
        ndl_hdf5::read::<Padded>(&path, "/a/b/data").unwrap(),
        records(0..4000)
    );

    let out = run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
d = h5py.File(sys.argv[1], "r")["a/b/data"]
print(d.shape, d.maxshape, d.chunks, d.compression, d.compression_opts, d.shuffle)
print(int(d["c"].sum()), float(d["b"][-1]))
"#,
        &[path.to_str().unwrap()],
    );
    let want_sum: u64 = (0..4000u64).map(|i| (i * 3) % 65536).sum();
    assert_eq!(
        out,
        format!(
            "(4000,) (None,) (1000,) gzip 6 True\n{want_sum} {}\n",
            3999.0 / 4.0
        )
    );
    // Another type is not appended to it.
    let e = DatasetWriter::<ndl_testkit::records::Packed>::open(&path, "/a/b/data")
        .err()
        .unwrap();
    assert!(matches!(e, ndl_hdf5::Error::TypeMismatch { .. }), "{e}");
}

#[test]
fn big_endian_files_are_numpys_big_endian_dtype() {
    let dir = tempfile::tempdir().unwrap();
    let h5 = dir.path().join("be.h5");
    let npy = dir.path().join("be.npy");
    let recs = records(0..10);
    let options = WriteOptions::new().byte_order(ByteOrder::Big);
    let mut w = DatasetWriter::<Padded>::create_with(&h5, "data", &options).unwrap();
    w.append(&recs).unwrap();
    w.finish().unwrap();
    ndl_runtime::npy::WriteOptions::new()
        .byte_order(ByteOrder::Big)
        .write_file(&npy, &recs)
        .unwrap();
    run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
d = h5py.File(sys.argv[1], "r")["data"]
want = np.load(sys.argv[2])
assert d.dtype == want.dtype and d.dtype["b"].byteorder == ">", (d.dtype, want.dtype)
assert d[...].tobytes() == want.tobytes()
"#,
        &[h5.to_str().unwrap(), npy.to_str().unwrap()],
    );
    assert_eq!(ndl_hdf5::read::<Padded>(&h5, "data").unwrap(), recs);
    // Appends go on in the file's order.
    let mut w = DatasetWriter::<Padded>::open(&h5, "data").unwrap();
    w.append(&records(10..20)).unwrap();
    w.finish().unwrap();
    assert_eq!(
        ndl_hdf5::read::<Padded>(&h5, "data").unwrap(),
        records(0..20)
    );
}

#[test]
fn a_small_write_takes_a_small_chunk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.h5");
    ndl_hdf5::write(&path, "data", &records(0..10)).unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size < 16 * 1024, "{size} bytes for 10 records");
}

/// A writer told to expect many more records than it is given reserves
/// disk for them while writing, and gives back what the file did not use:
/// the finished file takes no more blocks than its size needs. Unfilled
/// elements are never read: h5py sees exactly the records written.
#[test]
fn a_reservation_larger_than_the_records_is_given_back() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("reserved.h5");
    let options = WriteOptions::new().expected_len(4_000_000);
    let mut w = DatasetWriter::<Padded>::create_with(&path, "data", &options).unwrap();
    w.append(&records(0..1000)).unwrap();
    w.finish().unwrap();
    let meta = std::fs::metadata(&path).unwrap();
    let allocated = meta.blocks() * 512;
    assert!(
        allocated <= meta.len().next_multiple_of(64 * 1024),
        "{allocated} bytes allocated for a file of {}",
        meta.len()
    );
    let script =
        "import h5py, sys\nd = h5py.File(sys.argv[1])['data']\nprint(d.shape[0], int(d['c'][-1]))";
    let out = run_with(&python312(), script, &[path.to_str().unwrap()]);
    assert_eq!(out.trim(), format!("1000 {}", records(999..1000)[0].c));
}

/// A file a writer finished is closed for good: the same process opens it
/// again to append (HDF5 refuses a second open with other locking flags
/// while the first is still open inside the library). Uncompressed, whole
/// chunks: the case in which `H5Dwrite_chunk` on Debian's HDF5 1.10.8 left
/// the file open after `H5Fclose`.
#[test]
fn a_finished_file_opens_again_in_the_same_process() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("again.h5");
    let options = WriteOptions::new().chunk(100);
    let mut w = DatasetWriter::<Padded>::create_with(&path, "data", &options).unwrap();
    w.append(&records(0..1000)).unwrap();
    w.finish().unwrap();
    for k in 1..3 {
        let mut w = DatasetWriter::<Padded>::open(&path, "data").unwrap();
        w.append(&records(k * 1000..(k + 1) * 1000)).unwrap();
        w.finish().unwrap();
    }
    assert_eq!(
        ndl_hdf5::read::<Padded>(&path, "data").unwrap(),
        records(0..3000)
    );
}

/// `finish` says how many records the dataset holds: those written, and
/// after an append, those of the whole dataset.
#[test]
fn finish_counts_the_records_of_the_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("count.h5");
    let mut w = DatasetWriter::<Padded>::create(&path, "d").unwrap();
    w.append(&records(0..30)).unwrap();
    assert_eq!(w.finish().unwrap(), 30);
    let opens = [DatasetWriter::<Padded>::open, DatasetWriter::open_copy];
    for (open, after) in opens.into_iter().zip([35, 40]) {
        let mut w = open(&path, "d").unwrap();
        w.append(&records(0..5)).unwrap();
        assert_eq!(w.finish().unwrap(), after);
    }
    assert_eq!(ndl_hdf5::read::<Padded>(&path, "d").unwrap().len(), 40);
}

/// `WriteOptions::durable`: the system calls of a write (`strace -f`)
/// show no flush without it; with it, the file flushed before its rename
/// into place and the directory after.
#[test]
fn durable_writes_flush_around_the_rename() {
    const CHILD: &str = "NDL_HDF5_DURABLE_CHILD";
    if let Ok(spec) = std::env::var(CHILD) {
        let (durable, path) = spec.split_once(' ').unwrap();
        let options = WriteOptions::new().durable(durable == "true");
        let mut w = DatasetWriter::<Padded>::create_with(path, "d", &options).unwrap();
        w.append(&records(0..100)).unwrap();
        w.finish().unwrap();
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for durable in [false, true] {
        let path = dir.path().join(format!("{durable}.h5"));
        let spec = format!("{durable} {}", path.display());
        let calls = traced_flushes("durable_writes_flush_around_the_rename", (CHILD, &spec));
        assert_eq!(
            ndl_hdf5::read::<Padded>(&path, "d").unwrap(),
            records(0..100)
        );
        assert_durable_publish(&calls, durable);
    }
}

//! Datasets larger than their file can hold: a read refuses them with a
//! typed error naming the file and dataset, before it allocates memory
//! for their records; a small dataset of fill values still reads.
//! Fails (never skips) without h5py in the Python 3.12 venv.

use std::path::Path;

use ndl_hdf5::Error;
use ndl_testkit::python::{python312, run_with};
use ndl_testkit::records::Padded;

/// h5py's datasets of `Padded` (`u1`, `f8`, `u2` at 0, 8, 16; 24 bytes):
/// extents of 2^40 records with no chunk written (`chunked`), with 2048
/// written (`partly`), contiguous and never allocated (`contiguous`), and
/// 1000 records of fill values (`fill`). In `patched.h5`, a contiguous
/// `data` of 123457 zeroed records.
fn make_files(dir: &Path) {
    run_with(
        &python312(),
        r#"
import sys, os, h5py, numpy as np
dt = np.dtype({"names": ["a", "b", "c"], "formats": ["u1", "<f8", "<u2"],
               "offsets": [0, 8, 16], "itemsize": 24})
with h5py.File(os.path.join(sys.argv[1], "huge.h5"), "w") as f:
    f.create_dataset("chunked", shape=(2**40,), maxshape=(None,), chunks=(1024,), dtype=dt)
    f.create_dataset("contiguous", shape=(2**40,), dtype=dt)
    f.create_dataset("fill", shape=(1000,), chunks=(100,), dtype=dt)
    d = f.create_dataset("partly", shape=(2**40,), maxshape=(None,), chunks=(1024,), dtype=dt)
    d[:2048] = np.ones(2048, dt)
with h5py.File(os.path.join(sys.argv[1], "patched.h5"), "w") as f:
    f.create_dataset("data", data=np.zeros(123457, dt))
"#,
        &[dir.to_str().unwrap()],
    );
}

/// The message of a `TooLarge` error, checked to name `file` and `dataset`.
fn too_large(e: Error, file: &str, dataset: &str) -> String {
    let message = e.to_string();
    assert!(
        message.contains(file) && message.contains(&format!("dataset `{dataset}`")),
        "{message}"
    );
    match e {
        Error::TooLarge { records, .. } => assert!(records >= 1 << 30, "{records}"),
        other => panic!("not TooLarge: {other:?}"),
    }
    message
}

#[test]
fn extents_beyond_the_file_are_refused_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    make_files(dir.path());
    let huge = dir.path().join("huge.h5");

    let e = ndl_hdf5::read::<Padded>(&huge, "chunked").unwrap_err();
    let message = too_large(e, "huge.h5", "chunked");
    assert!(message.contains("stores data for 0"), "{message}");
    let e = ndl_hdf5::read::<Padded>(&huge, "partly").unwrap_err();
    let message = too_large(e, "huge.h5", "partly");
    assert!(message.contains("stores data for 2048"), "{message}");
    let e = ndl_hdf5::read::<Padded>(&huge, "contiguous").unwrap_err();
    too_large(e, "huge.h5", "contiguous");

    // A dataset of fill values within the bound is data like any other.
    let fill = ndl_hdf5::read::<Padded>(&huge, "fill").unwrap();
    assert_eq!(fill.len(), 1000);
    assert!(fill.iter().all(|r| *r == Padded { a: 0, b: 0.0, c: 0 }));
}

#[test]
fn a_header_claiming_more_records_than_the_file_stores_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    make_files(dir.path());
    let path = dir.path().join("patched.h5");
    assert_eq!(
        ndl_hdf5::read::<Padded>(&path, "data").unwrap().len(),
        123457
    );
    // The extent (dims and max dims) and the storage size in the header
    // become 2^30 records: 24 GiB, of a file of 3 MB.
    let mut bytes = std::fs::read(&path).unwrap();
    let header = &mut bytes[..2048];
    let claimed = 1u64 << 30;
    for (from, to) in [(123457u64, claimed), (123457 * 24, claimed * 24)] {
        let (from, to) = (from.to_le_bytes(), to.to_le_bytes());
        let mut patched = 0;
        for at in 0..header.len() - 8 {
            if header[at..at + 8] == from {
                header[at..at + 8].copy_from_slice(&to);
                patched += 1;
            }
        }
        assert!(patched > 0, "no {from:?} in the header");
    }
    std::fs::write(&path, &bytes).unwrap();
    let e = ndl_hdf5::read::<Padded>(&path, "data").unwrap_err();
    // Debian's HDF5 1.10 opens the dataset; our check refuses it before
    // the memory for 2^30 records is asked for.
    let message = too_large(e, "patched.h5", "data");
    assert!(message.contains("past the end of the file"), "{message}");
}

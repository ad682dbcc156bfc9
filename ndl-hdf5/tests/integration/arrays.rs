//! Datasets of any rank as bytes, the conversion's path: what h5py wrote
//! reads as NumPy holds it, and what we write h5py reads back equal.

use ndl_hdf5::{ArrayReader, ArrayWriter, Codec, WriteOptions};
use ndl_runtime::{ByteOrder, Datatype};
use ndl_testkit::python::{python312, run_with};

/// Reads every row of `reader`, a few rows at a time.
fn read_all(reader: &mut ArrayReader) -> Vec<u8> {
    let row = reader.row_bytes();
    let mut out = Vec::new();
    let mut buf = vec![0; row * 3 + row / 2];
    loop {
        let n = reader.read_rows(&mut buf).unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&buf[..n * row]);
    }
}

#[test]
fn arrays_of_any_rank_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let theirs = dir.path().join("theirs.h5");
    run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
rec = np.dtype([("a", ">i4"), ("b", "<f8")])
with h5py.File(sys.argv[1], "w") as f:
    f["cube"] = np.arange(60, dtype=">u2").reshape(3, 4, 5)
    f["scalar"] = np.float32(2.5)
    f["empty"] = np.zeros((0, 4), "<i8")
    r = np.zeros((7, 2), rec); r["a"] = np.arange(14).reshape(7, 2); r["b"] = 0.5
    f.create_dataset("recs", data=r, chunks=(2, 2), compression="gzip")
    np.save(sys.argv[2], f["cube"][...]); np.save(sys.argv[3], r)
"#,
        &[
            theirs.to_str().unwrap(),
            dir.path().join("cube.npy").to_str().unwrap(),
            dir.path().join("recs.npy").to_str().unwrap(),
        ],
    );
    let mut cube = ArrayReader::open(&theirs, "cube").unwrap();
    assert_eq!(cube.shape(), [3, 4, 5]);
    assert_eq!(cube.stored().datatype, Datatype::UInt16);
    assert_eq!(cube.stored().byte_order, ByteOrder::Big);
    let bytes = read_all(&mut cube);
    let want: Vec<u8> = (0..60u16).flat_map(|v| v.to_be_bytes()).collect();
    assert_eq!(bytes, want);

    let mut scalar = ArrayReader::open(&theirs, "scalar").unwrap();
    assert!(scalar.shape().is_empty());
    assert_eq!(read_all(&mut scalar), 2.5f32.to_le_bytes());
    let mut empty = ArrayReader::open(&theirs, "empty").unwrap();
    assert!(read_all(&mut empty).is_empty());

    // Mixed byte orders read as stored, each field in its own.
    let mut recs = ArrayReader::open(&theirs, "recs").unwrap();
    assert_eq!(recs.stored().byte_order, ByteOrder::Big);
    assert_eq!(recs.stored().other_order, vec![4..12]);
    let bytes = read_all(&mut recs);
    assert_eq!(bytes.len(), 14 * 12);
    assert_eq!(&bytes[12..24], [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f]);

    // And back out deflated, every field in the order opposite to its
    // own, as h5py and NumPy agree.
    let ours = dir.path().join("ours.h5");
    let stored = recs.stored().datatype.clone();
    let field_b = 4..12;
    let options = WriteOptions::new()
        .codec(Codec::Deflate(3))
        .byte_order(ByteOrder::Little)
        .mixed_byte_orders(vec![field_b]);
    let mut w = ArrayWriter::create(
        &ours,
        "g/recs",
        &stored,
        ByteOrder::Big,
        &[7, 2],
        "rec_t",
        &options,
    )
    .unwrap();
    w.write_rows(&bytes[..3 * 24]).unwrap();
    w.write_rows(&bytes[3 * 24..]).unwrap();
    w.finish().unwrap();
    let mut w = ArrayWriter::create(
        dir.path().join("cube.h5"),
        "cube",
        &Datatype::UInt16,
        ByteOrder::Big,
        &[3, 4, 5],
        "",
        &WriteOptions::new(),
    )
    .unwrap();
    w.write_rows(&want).unwrap();
    w.finish().unwrap();
    run_with(
        &python312(),
        r#"
import sys, os, h5py, numpy as np
d = os.path.dirname(sys.argv[1])
with h5py.File(sys.argv[1], "r") as f:
    got = f["g/recs"][...]
    want = np.load(os.path.join(d, "recs.npy"))
    assert got.shape == (7, 2) and got.dtype == want.dtype.newbyteorder("S"), got.dtype
    assert got.dtype.descr == [("a", "<i4"), ("b", ">f8")], got.dtype
    assert np.array_equal(got, want), (got, want)
    assert f["g/recs"].compression == "gzip"
with h5py.File(os.path.join(d, "cube.h5"), "r") as f:
    assert np.array_equal(f["cube"][...], np.load(os.path.join(d, "cube.npy")))
"#,
        &[ours.to_str().unwrap()],
    );
}

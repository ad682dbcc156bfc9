//! Datasets h5py wrote with the filters it reads through hdf5plugin (LZF
//! through h5py itself) read as h5py reads them; a damaged chunk is an
//! error naming the dataset and the filter, and a filter we have no
//! decoder for is named as the file names it. Fails (never skips)
//! without h5py and hdf5plugin in the Python 3.12 venv.

use std::path::Path;

use ndl_hdf5::Error;
use ndl_testkit::python::{python312, run_with};
use ndl_testkit::records::Padded;

/// The filters, as the groups of the file `WRITE` makes.
const FILTERS: [(&str, &str); 7] = [
    ("lzf", "LZF (HDF5 filter 32000)"),
    ("lz4", "LZ4 (HDF5 filter 32004)"),
    ("bitshuffle", "bitshuffle (HDF5 filter 32008)"),
    ("bitshuffle_lz4", "bitshuffle (HDF5 filter 32008)"),
    ("bitshuffle_zstd", "bitshuffle (HDF5 filter 32008)"),
    ("blosc2", "Blosc2 (HDF5 filter 32026)"),
    ("blosc2_zstd_bitshuffle", "Blosc2 (HDF5 filter 32026)"),
];

/// One group per filter, each with `numbers` (f8, 10 chunks of 100, so
/// that bitshuffle's elements past a multiple of 8 are there) and
/// `records` (`Padded`, chunks of 60 and a partial last one).
const WRITE: &str = r#"
import sys, h5py, hdf5plugin, numpy as np
filters = {
    "lzf": dict(compression="lzf"),
    "lz4": hdf5plugin.LZ4(nbytes=256),
    "bitshuffle": hdf5plugin.Bitshuffle(cname="none"),
    "bitshuffle_lz4": hdf5plugin.Bitshuffle(cname="lz4"),
    "bitshuffle_zstd": hdf5plugin.Bitshuffle(cname="zstd"),
    "blosc2": hdf5plugin.Blosc2(),
    "blosc2_zstd_bitshuffle": hdf5plugin.Blosc2(cname="zstd", filters=hdf5plugin.Blosc2.BITSHUFFLE),
}
rng = np.random.default_rng(7)
numbers = np.round(rng.normal(size=1000), 2).astype("<f8")
numbers[200:400] = 0.5
dt = np.dtype({"names": ["a", "b", "c"], "formats": ["u1", "<f8", "<u2"], "offsets": [0, 8, 16], "itemsize": 24})
records = np.zeros(250, dt)
records["a"] = np.arange(250) % 7
records["b"] = np.repeat(np.arange(25) / 4, 10)
records["c"] = np.arange(250) * 3
with h5py.File(sys.argv[1], "w") as f:
    for name, kw in filters.items():
        g = f.create_group(name)
        g.create_dataset("numbers", data=numbers, chunks=(100,), **kw)
        g.create_dataset("records", data=records, chunks=(60,), **kw)
        for d in ("numbers", "records"):
            assert g[d].id.get_create_plist().get_nfilters() == 1, (name, d)
            # Bare bitshuffle only moves bits, and Blosc2's frames weigh
            # about what they save on these small chunks; the others compress.
            plain = name == "bitshuffle" or name.startswith("blosc2")
            assert plain or g[d].id.get_storage_size() < g[d].nbytes, (name, d)
"#;

/// Has h5py check that the .npy at `ours` holds what it reads from
/// `dataset` of `h5`: the same dtype and bytes.
fn h5py_agrees(h5: &Path, dataset: &str, ours: &Path) {
    run_with(
        &python312(),
        r#"
import sys, h5py, hdf5plugin, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    want = f[sys.argv[2]][...]
got = np.load(sys.argv[3])
assert got.dtype == want.dtype, (got.dtype, want.dtype)
assert got.tobytes() == want.tobytes(), (sys.argv[2], got, want)
"#,
        &[h5.to_str().unwrap(), dataset, ours.to_str().unwrap()],
    );
}

#[test]
fn lzf_lz4_bitshuffle_and_blosc2_read_as_h5py_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let h5 = dir.path().join("filtered.h5");
    run_with(&python312(), WRITE, &[h5.to_str().unwrap()]);
    for (group, _) in FILTERS {
        let numbers = format!("{group}/numbers");
        let got = ndl_hdf5::read::<f64>(&h5, &numbers).unwrap();
        assert_eq!(got.len(), 1000, "{numbers}");
        let npy = dir.path().join(format!("{group}_numbers.npy"));
        ndl_runtime::npy::write_file(&npy, &got).unwrap();
        h5py_agrees(&h5, &numbers, &npy);

        let records = format!("{group}/records");
        let got = ndl_hdf5::read::<Padded>(&h5, &records).unwrap();
        assert_eq!(got.len(), 250, "{records}");
        assert_eq!(got[249].c, 747, "{records}");
        let npy = dir.path().join(format!("{group}_records.npy"));
        ndl_runtime::npy::write_file(&npy, &got).unwrap();
        h5py_agrees(&h5, &records, &npy);
    }
}

/// Overwrites the second stored chunk of `dataset` with `byte`.
fn damage(h5: &Path, dataset: &str, byte: u8) {
    run_with(
        &python312(),
        r#"
import sys, h5py, hdf5plugin
with h5py.File(sys.argv[1], "r") as f:
    info = f[sys.argv[2]].id.get_chunk_info(1)
with open(sys.argv[1], "r+b") as out:
    out.seek(info.byte_offset)
    out.write(bytes([int(sys.argv[3])]) * info.size)
"#,
        &[h5.to_str().unwrap(), dataset, &byte.to_string()],
    );
}

#[test]
fn a_damaged_chunk_is_an_error_naming_the_dataset_and_the_filter() {
    let dir = tempfile::tempdir().unwrap();
    for byte in [0xff, 0x00, 0x21] {
        let h5 = dir.path().join(format!("damaged_{byte}.h5"));
        run_with(&python312(), WRITE, &[h5.to_str().unwrap()]);
        // Bare bitshuffle stores every bit as it is: nothing to detect.
        for (group, label) in FILTERS.into_iter().filter(|f| f.0 != "bitshuffle") {
            let numbers = format!("{group}/numbers");
            damage(&h5, &numbers, byte);
            let e = ndl_hdf5::read::<f64>(&h5, &numbers).unwrap_err();
            let Error::Filter {
                dataset, filter, ..
            } = &e
            else {
                panic!("{numbers} with bytes {byte:#x}: not a filter error: {e:?}");
            };
            assert_eq!(dataset, &numbers);
            assert_eq!(filter, label);
            let text = e.to_string();
            assert!(text.contains(&numbers) && text.contains(label), "{text}");
            // The other datasets of the group still read.
            ndl_hdf5::read::<Padded>(&h5, &format!("{group}/records")).unwrap();
        }
    }
}

#[test]
fn a_filter_without_a_decoder_is_named_not_a_plugin_directory() {
    let dir = tempfile::tempdir().unwrap();
    let h5 = dir.path().join("zfp.h5");
    run_with(
        &python312(),
        r#"
import sys, h5py, hdf5plugin, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("x", data=np.linspace(0, 1, 64), chunks=(16,), **hdf5plugin.Zfp(reversible=True))
"#,
        &[h5.to_str().unwrap()],
    );
    let e = ndl_hdf5::read::<f64>(&h5, "x").unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, Error::Filter { .. }), "{e:?}");
    assert!(text.contains("HDF5 filter 32013"), "{text}");
    assert!(text.contains("ZFP"), "{text}");
    assert!(!text.contains("plugin"), "{text}");
    let e = ndl_hdf5::ArrayReader::open(&h5, "x").err().unwrap();
    assert!(e.to_string().contains("HDF5 filter 32013"), "{e}");
}

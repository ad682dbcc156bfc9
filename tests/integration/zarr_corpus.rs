//! `ndl convert` on Zarr stores that no one here wrote: zarr-python 3.4
//! and 3.1 write a corpus (every rank, both orders, every codec, text,
//! time, structured, variable-length strings, zip stores, odd metadata),
//! zarr-python 2.18 stores are checked in (`tests/data/zarr2-corpus`), and
//! zarrs writes a few. Of the arrays zarr-python 3.4 reads, at least 95 %
//! must convert to a `.npy` equal in values and dtype, and every other
//! one must be refused with an error that names its codec or data type.
//! A wrong value is never acceptable.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::cli::ndl;
use ndl_testkit::python::{python, python312, run_file, run_with};

fn corpus_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/zarr_corpus.py")
}

/// Copies the checked-in zarr-python 2.x stores into `dir`.
fn copy_zarr2_stores(dir: &Path) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/zarr2-corpus");
    for entry in std::fs::read_dir(&from).unwrap() {
        let entry = entry.unwrap();
        if entry.path().extension().is_some_and(|e| e == "zarr") {
            copy_dir(&entry.path(), &dir.join(entry.file_name()));
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Two arrays as zarrs itself writes them: 2-D zstd and 3-D uncompressed.
fn write_zarrs_stores(dir: &Path) {
    use std::sync::Arc;
    use zarrs::array::codec::ZstdCodec;
    use zarrs::array::{ArrayBuilder, ArrayBytes, data_type};
    use zarrs::filesystem::FilesystemStore;

    let int32: Vec<u8> = (0..63i32)
        .flat_map(|v| (v * 1000 - 7).to_le_bytes())
        .collect();
    let uint16: Vec<u8> = (0..60u16)
        .flat_map(|v| v.wrapping_mul(911).to_le_bytes())
        .collect();
    for (name, shape, chunks, dtype, size, bytes, zstd) in [
        (
            "zarrs_int32_2d_zstd",
            vec![9u64, 7],
            vec![4u64, 4],
            data_type::int32(),
            4,
            int32,
            true,
        ),
        (
            "zarrs_uint16_3d",
            vec![3, 4, 5],
            vec![2, 2, 2],
            data_type::uint16(),
            2,
            uint16,
            false,
        ),
    ] {
        let store = Arc::new(FilesystemStore::new(dir.join(format!("{name}.zarr"))).unwrap());
        let fill = zarrs::array::FillValue::new(vec![0u8; size]);
        let mut builder = ArrayBuilder::new(shape, chunks, dtype, fill);
        if zstd {
            builder.bytes_to_bytes_codecs(vec![Arc::new(ZstdCodec::new(3, false))]);
        }
        let array = builder.build(store, "/").unwrap();
        array.store_metadata().unwrap();
        array
            .store_array_subset(&array.subset_all(), ArrayBytes::new_flen(bytes))
            .unwrap();
    }
}

#[test]
fn stores_that_others_wrote_convert_or_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    run_file(
        &python312(),
        &corpus_script(),
        &["write", root.to_str().unwrap()],
    );
    let zarr31 = root.join("zarr31");
    std::fs::create_dir(&zarr31).unwrap();
    run_file(
        &python(),
        &corpus_script(),
        &["write", zarr31.to_str().unwrap()],
    );
    for entry in std::fs::read_dir(&zarr31).unwrap() {
        let entry = entry.unwrap();
        let name = format!("py31_{}", entry.file_name().to_string_lossy());
        std::fs::rename(entry.path(), root.join(name)).unwrap();
    }
    std::fs::remove_dir(&zarr31).unwrap();
    copy_zarr2_stores(root);
    write_zarrs_stores(root);

    let mut refusals: BTreeMap<String, String> = BTreeMap::new();
    for entry in std::fs::read_dir(root).unwrap() {
        let store = entry.unwrap().path();
        let file = store.file_name().unwrap().to_string_lossy().into_owned();
        let Some((name, _)) = file.split_once(".zarr") else {
            continue;
        };
        let npy = root.join(format!("{name}.npy"));
        let run = ndl(&["convert", store.to_str().unwrap(), npy.to_str().unwrap()]);
        if run.code != Some(0) {
            assert_eq!(run.code, Some(1), "{file}: {run:#?}");
            refusals.insert(name.to_string(), run.stderr.clone());
        }
    }

    let report = run_with(
        &python312(),
        &format!(
            "import runpy, sys; sys.argv = ['zarr_corpus.py', 'check', sys.argv[1]]; \
             runpy.run_path({:?}, run_name='__main__')",
            corpus_script().to_str().unwrap()
        ),
        &[root.to_str().unwrap()],
    );
    let report: BTreeMap<String, serde_json::Value> = serde_json::from_str(&report).unwrap();

    let mut readable = 0;
    let mut equal = 0;
    let mut problems = Vec::new();
    let mut refused = Vec::new();
    for (name, entry) in &report {
        if let Some(verdict) = entry["verdict"].as_str() {
            // Whatever zarr-python reads and we converted must be equal,
            // counted or not.
            if verdict != "equal" {
                problems.push(format!("{name}: {verdict}"));
            }
        }
        if !entry["readable"].as_bool().unwrap() {
            continue;
        }
        readable += 1;
        match (entry["verdict"].as_str(), refusals.get(name)) {
            (Some("equal"), _) => equal += 1,
            (_, Some(stderr)) => {
                let names: Vec<&str> = entry["names"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(|v| v.as_str())
                    .collect();
                if !names.iter().any(|n| stderr.contains(n)) {
                    problems.push(format!(
                        "{name}: refused without naming any of {names:?}: {stderr}"
                    ));
                }
                refused.push(format!("{name}: {}", stderr.trim()));
            }
            _ => {}
        }
    }
    let share = equal as f64 / readable as f64;
    eprintln!(
        "{equal} of {readable} stores that zarr-python reads convert equal ({:.1} %); refused:\n  {}",
        share * 100.0,
        refused.join("\n  ")
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        readable >= 250,
        "only {readable} readable stores in the corpus"
    );
    assert!(
        share >= 0.95,
        "{equal} of {readable} convert ({:.1} %), below 95 %",
        share * 100.0
    );
}

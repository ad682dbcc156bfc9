//! Variable-length strings and bytes, checked by the real consumers:
//! zarr-python 3.4 (Python 3.12) writes v2 and v3 arrays that read back
//! here equal, and reads what we write equal, as zarr-python 3.1 does;
//! zarr-python 2.18's stores (fill value 0) are checked in, small; corrupt
//! chunks are typed errors naming the chunk and the element.

use std::path::{Path, PathBuf};

use ndl_testkit::{python, python312, run_file};
use ndl_zarr::{Codec, Error, VlenKind, VlenReader, WriteOptions, ZarrFormat};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/strings.py");
const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

/// Element `i`'s value, as `value` in strings.py computes it.
fn text(i: u64) -> String {
    if i.is_multiple_of(7) {
        return String::new();
    }
    format!("{}ß{i}", "é".repeat((i % 5) as usize))
}

fn bytes(i: u64) -> Vec<u8> {
    if i.is_multiple_of(7) {
        return Vec::new();
    }
    let mut v = [0, (i % 256) as u8].repeat((i % 4) as usize);
    v.extend_from_slice(i.to_string().as_bytes());
    v
}

fn kind_arg(kind: VlenKind) -> &'static str {
    match kind {
        VlenKind::Text => "text",
        VlenKind::Bytes => "bytes",
    }
}

fn extents(e: &[u64]) -> String {
    e.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

fn read_back(path: &Path, kind: VlenKind) -> Vec<Vec<u8>> {
    match kind {
        VlenKind::Text => ndl_zarr::read_strings(path)
            .unwrap()
            .into_iter()
            .map(String::into_bytes)
            .collect(),
        VlenKind::Bytes => ndl_zarr::read_byte_strings(path).unwrap(),
    }
}

fn expected(kind: VlenKind, n: u64) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| match kind {
            VlenKind::Text => text(i).into_bytes(),
            VlenKind::Bytes => bytes(i),
        })
        .collect()
}

/// Shapes and chunks: 1-D, 2-D chunked in both dimensions with ragged
/// edges, 0-D.
const CASES: [(&[u64], &[u64]); 3] = [(&[23], &[4]), (&[5, 3], &[2, 2]), (&[], &[])];

#[test]
fn what_zarr_python_writes_reads_back_equal() {
    let dir = tempfile::tempdir().unwrap();
    let mut stores = Vec::new();
    let mut args: Vec<String> = vec!["write".into()];
    for format in [2, 3] {
        for kind in [VlenKind::Text, VlenKind::Bytes] {
            for (shape, chunks) in CASES {
                let path =
                    dir.path()
                        .join(format!("v{format}_{}_{}.zarr", kind_arg(kind), shape.len()));
                args.extend([
                    path.display().to_string(),
                    kind_arg(kind).into(),
                    format.to_string(),
                    extents(shape),
                    extents(chunks),
                ]);
                stores.push((path, kind, shape));
            }
        }
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run_file(&python312(), Path::new(SCRIPT), &args);
    let written = out.lines().filter(|l| l.starts_with("ok")).count();
    assert_eq!(written, stores.len(), "{out}");
    for (path, kind, shape) in stores {
        let reader = VlenReader::open(&path).unwrap();
        let p = path.display();
        assert_eq!((reader.kind(), reader.shape()), (kind, shape), "{p}");
        let n = shape.iter().product();
        assert_eq!(read_back(&path, kind), expected(kind, n), "{p}");
    }
}

#[test]
fn what_we_write_zarr_python_reads_equal() {
    let dir = tempfile::tempdir().unwrap();
    let mut checks: Vec<String> = vec!["check".into()];
    for format in [ZarrFormat::V2, ZarrFormat::V3] {
        for kind in [VlenKind::Text, VlenKind::Bytes] {
            for (shape, chunks) in CASES {
                let name = format!("{format:?}_{}_{}.zarr", kind_arg(kind), shape.len());
                let path = dir.path().join(name);
                let n: u64 = shape.iter().product();
                let options = WriteOptions::new()
                    .zarr_format(format)
                    .codec(Codec::Gzip(5))
                    .chunks(chunks);
                match kind {
                    VlenKind::Text => {
                        let values: Vec<String> = (0..n).map(text).collect();
                        options.write_strings(&path, shape, &values).unwrap();
                    }
                    VlenKind::Bytes => {
                        let values: Vec<Vec<u8>> = (0..n).map(bytes).collect();
                        options.write_byte_strings(&path, shape, &values).unwrap();
                    }
                }
                assert_eq!(read_back(&path, kind), expected(kind, n));
                checks.extend([
                    path.display().to_string(),
                    kind_arg(kind).into(),
                    extents(shape),
                ]);
            }
        }
    }
    let args: Vec<&str> = checks.iter().map(String::as_str).collect();
    let stores = (args.len() - 1) / 3;
    for py in [python312(), python()] {
        let out = run_file(&py, Path::new(SCRIPT), &args);
        // The script stops at the first store it reads wrong.
        assert_eq!(
            out.lines().filter(|l| l.starts_with("ok")).count(),
            stores,
            "{out}"
        );
    }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(DATA).join(name)
}

#[test]
fn zarr_python_2_stores_read_with_their_fill_value_of_0() {
    assert_eq!(
        ndl_zarr::read_strings(fixture("z2_vlen_utf8.zarr")).unwrap(),
        ["", "é", "long text"]
    );
    assert_eq!(
        ndl_zarr::read_byte_strings(fixture("z2_vlen_bytes.zarr")).unwrap(),
        [b"".to_vec(), b"\x00\x01".to_vec(), b"xyz".to_vec()]
    );
    let e = VlenReader::open(fixture("z2_vlen_array.zarr")).unwrap_err();
    assert!(matches!(e, Error::DataType { .. }), "{e}");
    assert!(e.to_string().contains("vlen-array"), "{e}");
    let e = ndl_zarr::read_strings(fixture("z2_vlen_bytes.zarr")).unwrap_err();
    assert!(matches!(e, Error::TypeMismatch { .. }), "{e}");
}

/// Writes, as zarr-python 2.18 writes it, the metadata of a v2 object
/// array of 4 elements in chunks of 2 (none stored: every element is the
/// fill value) at `argv[1]`, of filter `argv[2]` and fill value `argv[3]`
/// (JSON); prints the values zarr-python 3.4 reads, as JSON.
const FILLED_V2: &str = r#"
import json, os, sys, zarr
path, codec, fill = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
os.makedirs(path)
with open(os.path.join(path, '.zarray'), 'w') as f:
    json.dump({"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "|O",
               "fill_value": fill, "order": "C", "compressor": None,
               "filters": [{"id": codec}], "dimension_separator": "."}, f)
values = zarr.open_array(path, mode='r')[:].tolist()
print(json.dumps([v if isinstance(v, str) else list(v) for v in values]))
"#;

#[test]
fn absent_chunks_of_v2_object_arrays_read_as_their_fill_value_as_zarr_python_does() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("filled.py");
    std::fs::write(&script, FILLED_V2).unwrap();
    let zarr_python = |path: &Path, codec: &str, fill: &str| -> serde_json::Value {
        let args = [path.to_str().unwrap(), codec, fill];
        serde_json::from_str(&run_file(&python312(), &script, &args)).unwrap()
    };
    for (i, fill) in [r#""0""#, "0", r#""abc""#, "null"].into_iter().enumerate() {
        let path = dir.path().join(format!("text{i}.zarr"));
        let expected = zarr_python(&path, "vlen-utf8", fill);
        let read = ndl_zarr::read_strings(&path).unwrap();
        assert_eq!(serde_json::json!(read), expected, "fill value {fill}");
    }
    for (i, fill) in [r#""MA==""#, "null"].into_iter().enumerate() {
        let path = dir.path().join(format!("bytes{i}.zarr"));
        let expected = zarr_python(&path, "vlen-bytes", fill);
        let read = ndl_zarr::read_byte_strings(&path).unwrap();
        assert_eq!(serde_json::json!(read), expected, "fill value {fill}");
    }
}

/// A v2 array written without a fill has none (`null`), as xarray writes
/// it, for xarray takes a v2 `fill_value` for missing values; a chunk of
/// empty strings is stored all the same, since zarr-python 2 reads an
/// absent chunk of such an array as `None`s.
#[test]
fn v2_arrays_without_a_fill_have_none_and_keep_chunks_of_empty_strings() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.zarr");
    WriteOptions::new()
        .zarr_format(ZarrFormat::V2)
        .chunks(&[2])
        .write_strings(&path, &[3], &["", "", "a"])
        .unwrap();
    let zarray: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path.join(".zarray")).unwrap()).unwrap();
    assert_eq!(zarray["fill_value"], serde_json::Value::Null);
    assert!(
        path.join("0").exists(),
        "the chunk of empty strings is stored"
    );
    assert_eq!(ndl_zarr::read_strings(&path).unwrap(), ["", "", "a"]);
}

/// A store of 3 strings in chunks of 2, uncompressed, whose chunk `1`
/// (v2 keys) is replaced by `chunk`.
fn with_chunk(dir: &Path, name: &str, chunk: &[u8]) -> PathBuf {
    let path = dir.join(name);
    WriteOptions::new()
        .zarr_format(ZarrFormat::V2)
        .codec(Codec::None)
        .chunks(&[2])
        .write_strings(&path, &[3], &["ab", "cd", "ef"])
        .unwrap();
    std::fs::write(path.join("1"), chunk).unwrap();
    path
}

#[test]
fn corrupt_chunks_are_errors_naming_the_chunk_and_element() {
    let dir = tempfile::tempdir().unwrap();
    // count 2, then a length of 1000 bytes that the chunk does not hold.
    let mut overrun = 2u32.to_le_bytes().to_vec();
    overrun.extend_from_slice(&1000u32.to_le_bytes());
    overrun.extend_from_slice(b"ef");
    let path = with_chunk(dir.path(), "overrun.zarr", &overrun);
    let e = ndl_zarr::read_strings(&path).unwrap_err();
    assert!(matches!(e, Error::Chunk { chunk: 1, .. }), "{e}");
    assert!(e.to_string().contains("element 0 of the chunk"), "{e}");

    let mut bad_count = 9u32.to_le_bytes().to_vec();
    bad_count.extend_from_slice(&[0; 8]);
    let path = with_chunk(dir.path(), "count.zarr", &bad_count);
    let e = ndl_zarr::read_strings(&path).unwrap_err();
    assert!(e.to_string().contains("9 values, not 2"), "{e}");

    let mut latin1 = 2u32.to_le_bytes().to_vec();
    for v in [&b"ok"[..], b"caf\xe9"] {
        latin1.extend_from_slice(&(v.len() as u32).to_le_bytes());
        latin1.extend_from_slice(v);
    }
    let path = with_chunk(dir.path(), "latin1.zarr", &latin1);
    let e = ndl_zarr::read_strings(&path).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidValue {
                chunk: 1,
                record: 1,
                offset: 3,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("not UTF-8"), "{e}");
}

#[test]
fn the_widest_value_is_found_in_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.zarr");
    let values = ["a", "ééééé", "", "xyz", "ab"];
    WriteOptions::new()
        .chunks(&[2, 1])
        .write_strings(&path, &[5, 1], &values)
        .unwrap();
    let w = VlenReader::open(&path).unwrap().widest().unwrap();
    assert_eq!((w.len, w.index), (5, vec![1, 0]));
    assert_eq!(w.total_bytes, 1 + 10 + 3 + 2);
}

#[test]
fn text_must_be_utf8_and_counts_must_match_the_shape() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = WriteOptions::new()
        .publish_on_finish(true)
        .create_vlen(dir.path().join("t.zarr"), VlenKind::Text, &[2])
        .unwrap();
    assert!(
        w.append(b"\xff")
            .unwrap_err()
            .to_string()
            .contains("not UTF-8")
    );
    w.append(b"fine").unwrap();
    let e = w.finish().unwrap_err();
    assert!(e.to_string().contains("1 values were written"), "{e}");
    assert!(!dir.path().join("t.zarr").exists(), "nothing is published");
}

#[test]
fn slabs_of_several_chunk_rows_come_out_in_c_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.zarr");
    let n = 200 * 3;
    let values: Vec<String> = (0..n).map(text).collect();
    WriteOptions::new()
        .chunks(&[1, 2])
        .write_strings(&path, &[200, 3], &values)
        .unwrap();
    let mut reader = VlenReader::open(&path).unwrap();
    // 2 chunks a row: 32 rows a slab, the last of 8.
    assert_eq!(reader.slab_len(), 32 * 3);
    let mut lens = Vec::new();
    let mut all = Vec::new();
    while let Some(slab) = reader.next_slab().unwrap() {
        lens.push(slab.len());
        all.extend(slab.iter().map(<[u8]>::to_vec));
    }
    assert_eq!(lens.len(), 7);
    assert_eq!(lens[6], 8 * 3);
    assert_eq!(all, expected(VlenKind::Text, n));
}

/// Arrays whose chunks are not plain framed values (sharded; v2 in
/// Fortran order) are decoded by zarrs whole.
#[test]
fn sharded_and_fortran_order_stores_read_through_zarrs() {
    let dir = tempfile::tempdir().unwrap();
    let (sharded, fortran) = (dir.path().join("sh.zarr"), dir.path().join("f.zarr"));
    let script = r#"
import sys, zarr, numpy as np
a = zarr.create_array(sys.argv[1], shape=(10,), chunks=(2,), shards=(4,), dtype=str)
a[:] = np.array(['x' * i for i in range(10)])
b = zarr.create_array(sys.argv[2], shape=(3, 2), chunks=(2, 2), dtype=str, zarr_format=2, order='F')
b[...] = np.array([['a', 'bb'], ['ccc', 'd'], ['', 'e']])
"#;
    ndl_testkit::run_with(
        &python312(),
        script,
        &[sharded.to_str().unwrap(), fortran.to_str().unwrap()],
    );
    let want: Vec<String> = (0..10).map(|i| "x".repeat(i)).collect();
    assert_eq!(ndl_zarr::read_strings(&sharded).unwrap(), want);
    assert_eq!(
        ndl_zarr::read_strings(&fortran).unwrap(),
        ["a", "bb", "ccc", "d", "", "e"]
    );
}

const JSON2_STORE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/json2_store.py");
const JSON2_CHECK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/json2_check.py");

/// A v2 `|O` store of numcodecs' `json2` codec, as zarr-python 2 wrote
/// them, reads as numcodecs itself decodes it: every string equal, `None`
/// as the empty string; any other element is refused naming its chunk and
/// element.
#[test]
fn json2_object_arrays_read_as_numcodecs_decodes_them() {
    let dir = tempfile::tempdir().unwrap();
    for (shape, chunks, compressor) in
        [("7", "3", "zstd"), ("5,3", "2,2", "none"), ("", "", "none")]
    {
        let path = dir.path().join(format!("j{shape}{compressor}.zarr"));
        let p = path.to_str().unwrap();
        run_file(
            &python312(),
            Path::new(JSON2_STORE),
            &[p, shape, chunks, compressor],
        );
        let seen = run_file(&python312(), Path::new(JSON2_CHECK), &[p]);
        let want: Vec<Option<String>> = serde_json::from_str(&seen).unwrap();
        assert!(
            want.contains(&None) || shape.is_empty(),
            "the case holds a None: {seen}"
        );
        let want: Vec<String> = want.into_iter().map(Option::unwrap_or_default).collect();
        assert_eq!(
            ndl_zarr::read_strings(&path).unwrap(),
            want,
            "{shape} {compressor}"
        );
        let reader = VlenReader::open(&path).unwrap();
        assert_eq!(reader.kind(), VlenKind::Text);
        let extents: Vec<u64> = shape.split(',').filter_map(|x| x.parse().ok()).collect();
        assert_eq!(reader.shape(), extents);
    }
    for (odd, says) in [
        ("12", "a number (12)"),
        ("[1, 2]", "a list"),
        ("true", "a boolean"),
    ] {
        let path = dir.path().join("odd.zarr");
        let _ = std::fs::remove_dir_all(&path);
        let p = path.to_str().unwrap();
        run_file(
            &python312(),
            Path::new(JSON2_STORE),
            &[p, "4", "2", "none", odd],
        );
        let e = ndl_zarr::read_strings(&path).unwrap_err();
        assert!(matches!(e, Error::Chunk { chunk: 0, .. }), "{e}");
        let text = e.to_string();
        assert!(
            text.contains("element 1 of the chunk") && text.contains(says),
            "{text}"
        );
    }
}

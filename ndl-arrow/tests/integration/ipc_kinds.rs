//! The Arrow IPC variants besides the file format: streams (`.arrows`),
//! read and written, and the two refused by name, big-endian IPC and
//! Feather v1.

use crate::common;

use std::path::{Path, PathBuf};

use common::{PY_READINGS, Reading, readings};
use ndl_arrow::Error;
use ndl_testkit::{python312, run_with};

fn run(script: &str, args: &[&Path]) -> String {
    let args: Vec<&str> = args.iter().map(|p| p.to_str().unwrap()).collect();
    run_with(&python312(), &format!("{PY_READINGS}\n{script}"), &args)
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

#[test]
fn a_stream_pyarrow_writes_is_read_typed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.arrows");
    // Two batches, to show every batch of the stream is read.
    run(
        r#"
import sys, pyarrow as pa, pyarrow.ipc as ipc
cols = columns(10)
table = pa.table({
    "station": pa.array(cols["station"], pa.uint32()),
    "time": pa.array(cols["time"], pa.float64()),
    "sky": pa.array(cols["sky"]).dictionary_encode(),
    "code": pa.array(cols["code"]),
    "wind": pa.array(cols["wind"], pa.list_(pa.float32(), 2)),
    "temperature": pa.array(cols["temperature"], pa.float32()),
})
with ipc.new_stream(sys.argv[1], table.schema) as w:
    for batch in table.to_batches(max_chunksize=6):
        w.write_batch(batch)
"#,
        &[&path],
    );
    assert_eq!(&std::fs::read(&path).unwrap()[..4], &[0xFF; 4]);
    let read = ndl_arrow::read_ipc::<Reading>(&path).unwrap();
    assert_eq!(read, readings(10));
}

#[test]
fn pyarrow_reads_the_stream_we_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.arrows");
    let data = readings(100);
    ndl_arrow::write_ipc(&path, &data).unwrap();
    let out = run(
        r#"
import sys, pyarrow.ipc as ipc
table = ipc.open_stream(sys.argv[1]).read_all()
cols = columns(100)
for name in ["station", "time", "sky", "code", "temperature"]:
    assert table.column(name).to_pylist() == cols[name], name
print(table.num_rows)
"#,
        &[&path],
    );
    assert_eq!(out.trim(), "100");
    assert_eq!(ndl_arrow::read_ipc::<Reading>(&path).unwrap(), data);
}

#[derive(Clone, Copy, Debug, PartialEq, ndl_runtime::NdlType)]
#[repr(C)]
struct Meta {
    sort_of_pandas: i8,
}

fn unsupported_message(path: &Path) -> String {
    let err = ndl_arrow::read_ipc::<Meta>(path).unwrap_err();
    match err.without_path() {
        Error::UnsupportedFile { .. } => err.to_string(),
        other => panic!("{}: {other:?}", path.display()),
    }
}

#[test]
fn big_endian_files_and_streams_are_refused_by_name() {
    for name in [
        "bigendian_custom_metadata.arrow_file",
        "bigendian_custom_metadata.stream",
    ] {
        let e = unsupported_message(&data(name));
        assert!(e.contains("big-endian Arrow IPC"), "{e}");
        assert!(e.contains(name), "{e}");
    }
}

#[test]
fn feather_v1_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.feather");
    run(
        r#"
import sys, warnings, pyarrow as pa, pyarrow.feather as feather
warnings.simplefilter("ignore", DeprecationWarning)
feather.write_feather(pa.table({"sort_of_pandas": pa.array([1, 2], pa.int8())}), sys.argv[1], version=1)
"#,
        &[&path],
    );
    let e = unsupported_message(&path);
    assert!(e.contains("a Feather v1 file (it starts with FEA1)"), "{e}");
    assert!(e.contains("Feather v2"), "{e}");
}

#[test]
fn a_truncated_stream_is_corrupt_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.arrows");
    ndl_arrow::write_ipc(&path, &readings(50)).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    for cut in [5, bytes.len() / 2, bytes.len() - 9] {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let err = ndl_arrow::read_ipc::<Reading>(&path).unwrap_err();
        match err.without_path() {
            Error::Corrupt { message } => {
                assert!(message.contains("past the end"), "{cut}: {message}")
            }
            other => panic!("{cut}: {other:?}"),
        }
    }
}

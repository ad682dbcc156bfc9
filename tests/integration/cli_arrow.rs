//! `ndl describe` and `ndl convert` of the Arrow IPC variants: a stream
//! pyarrow wrote (`.arrows`) converts to the `.npy` NumPy reads with the
//! same values, and back to a stream pyarrow reads; Feather v1 is refused
//! by name.

use crate::common;

use common::cli::{convert, converted, describe, ok, refused};
use ndl_testkit::python::{python312, run_with};

#[test]
fn streams_convert_both_ways_and_feather_v1_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (stream, npy, back, v1) = (
        d.join("s.arrows"),
        d.join("s.npy"),
        d.join("back.arrows"),
        d.join("old.feather"),
    );
    let path = |p: &std::path::Path| p.to_str().unwrap().to_string();
    run_with(
        &python312(),
        r#"
import sys, pyarrow as pa, pyarrow.ipc as ipc, pyarrow.feather as feather
t = pa.table({"id": pa.array(range(7), pa.uint32()),
              "t": pa.array([i / 4 for i in range(7)], pa.float64())})
with ipc.new_stream(sys.argv[1], t.schema) as w:
    w.write_table(t.slice(0, 3))
    w.write_table(t.slice(3))
feather.write_feather(t, sys.argv[2], version=1)
"#,
        &[&path(&stream), &path(&v1)],
    );
    let described = ok(describe(&stream, "datashape", &[]), "describe a stream");
    assert_eq!(described, "7 * {id: uint32, t: float64}\n");
    converted(convert(&stream, &npy, &[]), "stream to npy");
    converted(convert(&npy, &back, &[]), "npy to stream");
    run_with(
        &python312(),
        r#"
import sys, numpy as np, pyarrow.ipc as ipc
a = np.load(sys.argv[1])
assert a["id"].tolist() == list(range(7)), a
assert a["t"].tolist() == [i / 4 for i in range(7)], a
t = ipc.open_stream(sys.argv[2]).read_all()
assert t.column("id").to_pylist() == list(range(7)), t
"#,
        &[&path(&npy), &path(&back)],
    );
    refused(&convert(&v1, &d.join("v1.npy"), &[]), &v1, &["Feather v1"]);
}

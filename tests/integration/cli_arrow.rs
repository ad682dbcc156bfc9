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

/// `ndl convert SRC DEST` of a source that holds a bad value (issue #27):
/// the error names the source and the record in it, not the Parquet or
/// Arrow IPC destination, which is never published.
#[test]
fn a_bad_value_in_the_source_is_named_against_the_source_not_the_destination() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (bool_npy, text_npy) = (d.join("bool.npy"), d.join("text.npy"));
    run_with(
        &python312(),
        r#"
import sys, numpy as np
a = np.zeros(5, dtype=[("id", "<u4"), ("ok", "?")])
a.view(np.uint8).reshape(5, -1)[3, 4] = 2
np.save(sys.argv[1], a)
t = np.zeros(5, dtype=[("id", "<u4"), ("name", "<U2")])
t.view(np.uint32).reshape(5, -1)[2, 1] = 0x110000
np.save(sys.argv[2], t)
"#,
        &[bool_npy.to_str().unwrap(), text_npy.to_str().unwrap()],
    );
    for (src, words) in [
        (&bool_npy, ["record 3", "`ok`"]),
        (&text_npy, ["record 2", "`name`"]),
    ] {
        for name in ["out.parquet", "out.arrow"] {
            let dest = d.join(name);
            let run = convert(src, &dest, &[]);
            refused(&run, src, &words);
            assert!(!run.stderr.contains(name), "{}", run.stderr);
            assert!(!dest.exists(), "{name} was published");
        }
    }
}

/// A source the destination refuses for what it holds (a 2-D array, where a
/// table holds 1-D arrays of records): the error names both.
#[test]
fn a_source_a_table_cannot_hold_is_named_with_the_destination() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("grid.npy");
    run_with(
        &python312(),
        "import sys, numpy as np\nnp.save(sys.argv[1], np.zeros((2, 3)))",
        &[npy.to_str().unwrap()],
    );
    for name in ["out.parquet", "out.arrow"] {
        let dest = dir.path().join(name);
        let run = convert(&npy, &dest, &[]);
        refused(&run, &dest, &["shape [2, 3]", "one-dimensional"]);
        assert!(run.stderr.contains(npy.to_str().unwrap()), "{}", run.stderr);
    }
}

/// A Parquet source whose row group is damaged, converted to two formats:
/// both errors name the source.
#[test]
fn a_damaged_parquet_source_is_named_whatever_the_destination() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (npy, parquet) = (d.join("r.npy"), d.join("r.parquet"));
    run_with(
        &python312(),
        r#"
import sys, numpy as np
np.save(sys.argv[1], np.arange(1000, dtype="<f8"))
"#,
        &[npy.to_str().unwrap()],
    );
    converted(convert(&npy, &parquet, &[]), "npy to parquet");
    let mut bytes = std::fs::read(&parquet).unwrap();
    // Past the 4-byte magic, inside the one column chunk's first page.
    for b in &mut bytes[8..64] {
        *b ^= 0x5A;
    }
    std::fs::write(&parquet, &bytes).unwrap();
    for name in ["out.npy", "out.arrow"] {
        let dest = d.join(name);
        let run = convert(&parquet, &dest, &[]);
        refused(&run, &parquet, &[]);
        assert!(!run.stderr.contains(name), "{}", run.stderr);
        assert!(!dest.exists(), "{name} was published");
    }
}

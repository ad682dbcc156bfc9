//! `ndl convert` and `ndl describe` with compounds whose members h5py
//! inserted out of offset order. The description lists the fields in
//! h5py's order; the `.npy` holds h5py's bytes, offsets and itemsize with
//! the fields by offset, the only order NumPy's `descr` can say (NumPy's
//! own `np.save` refuses such a dtype), and a sidecar with h5py's order
//! still fits it; an `.h5` copy is h5py's dtype;
//! Parquet and Zarr keep h5py's order.

use crate::common;

use common::cli::{convert, converted, describe, ok};
use ndl_testkit::h5py_files::OUT_OF_ORDER_COMPOUNDS;
use ndl_testkit::python::{python312, run_with};

#[test]
fn out_of_order_fields_convert_at_their_offsets_and_describe_in_h5pys_order() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let h5 = d.join("order.h5");
    run_with(
        &python312(),
        OUT_OF_ORDER_COMPOUNDS,
        &[h5.to_str().unwrap()],
    );
    for name in ["flat", "nested"] {
        let npy = d.join(format!("{name}.npy"));
        converted(convert(&h5, &npy, &["--member", name]), name);
        let copy = d.join(format!("{name}.h5"));
        converted(convert(&h5, &copy, &["--member", name]), name);
        run_with(
            &python312(),
            r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    want = f[sys.argv[3]][()]
got = np.load(sys.argv[2])
def layout(dt):
    return sorted((n, off, layout(sub) if sub.names else sub.str)
                  for n, (sub, off) in dt.fields.items())
assert layout(got.dtype) == layout(want.dtype), (got.dtype, want.dtype)
assert got.dtype.itemsize == want.dtype.itemsize
assert list(got.dtype.names) == sorted(want.dtype.names, key=lambda n: want.dtype.fields[n][1])
assert got.tobytes() == want.tobytes()
def same(a, b, path):
    if b.dtype.names is None:
        assert a.tolist() == b.tolist(), path
        return
    for n in b.dtype.names:
        same(a[n], b[n], path + "." + n)
same(got, want, sys.argv[3])
with h5py.File(sys.argv[4], "r") as f:
    (copy,) = [v for v in f.values() if isinstance(v, h5py.Dataset)]
    assert copy.dtype == want.dtype, (copy.dtype, want.dtype)
    assert copy.dtype.names == want.dtype.names
    assert copy[()].tobytes() == want.tobytes()
"#,
            &[
                h5.to_str().unwrap(),
                npy.to_str().unwrap(),
                name,
                copy.to_str().unwrap(),
            ],
        );
    }
    // Parquet and Zarr (records packed) keep h5py's order.
    let parquet = d.join("nested.parquet");
    let zarr = d.join("nested.zarr");
    converted(convert(&h5, &parquet, &["--member", "nested"]), "parquet");
    converted(convert(&h5, &zarr, &["--member", "nested"]), "zarr");
    run_with(
        &python312(),
        r#"
import sys, h5py, pyarrow.parquet as pq, zarr
with h5py.File(sys.argv[1], "r") as f:
    want = f["nested"][()]
rows = [{"z": {"b": float(r["z"]["b"]), "a": int(r["z"]["a"])}, "y": int(r["y"]), "x": float(r["x"])}
        for r in want]
t = pq.read_table(sys.argv[2])
assert t.schema.names == ["z", "y", "x"] and t.schema.field("z").type.names == ["b", "a"], t.schema
assert t.to_pylist() == rows, t.to_pylist()
z = zarr.open_array(sys.argv[3], mode="r")[...]
assert z.dtype.names == ("z", "y", "x") and z.dtype["z"].names == ("b", "a"), z.dtype
for n in ("y", "x"):
    assert z[n].tolist() == want[n].tolist(), n
for n in ("a", "b"):
    assert z["z"][n].tolist() == want["z"][n].tolist(), n
"#,
        &[
            h5.to_str().unwrap(),
            parquet.to_str().unwrap(),
            zarr.to_str().unwrap(),
        ],
    );
    let ndl = ok(describe(&h5, "ndl", &[]), "describe as NDL");
    let yaml = d.join("order.yaml");
    std::fs::write(&yaml, &ndl).unwrap();
    let order = run_with(
        &python312(),
        r#"
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))["ndarrays"]
def fields(t):
    return [(n, b["offset"], fields(b["type"]) if isinstance(b["type"], dict) and "compound" in b["type"] else None)
            for m in t["compound"] for n, b in m.items()]
print(fields(doc["flat"]["type"]), fields(doc["nested"]["type"]))
"#,
        &[yaml.to_str().unwrap()],
    );
    assert_eq!(
        order.trim(),
        "[('b', 8, None), ('a', 0, None)] \
         [('z', 24, [('b', 8, None), ('a', 0, None)]), ('y', 0, None), ('x', 8, None)]",
        "{ndl}"
    );
    // The `.npy` alone lists the fields by offset; the sidecar the
    // conversion wrote beside it gives h5py's order back, as does the
    // file's description made its sidecar: the same layout.
    let npy = d.join("flat.npy");
    let first = |text: &str| text.find("- a:").unwrap() < text.find("- b:").unwrap();
    let alone = ok(
        describe(&npy, "ndl", &["--no-sidecar"]),
        "describe flat.npy",
    );
    assert!(first(&alone), "{alone}");
    let kept = ok(describe(&npy, "ndl", &[]), "describe flat.npy, its sidecar");
    assert!(!first(&kept), "{kept}");
    run_with(
        &python312(),
        r#"
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
doc["ndarrays"] = {"flat": doc["ndarrays"]["flat"]}
yaml.safe_dump(doc, open(sys.argv[2], "w"), sort_keys=False)
"#,
        &[
            yaml.to_str().unwrap(),
            d.join("flat.yaml").to_str().unwrap(),
        ],
    );
    let with_sidecar = ok(
        describe(&npy, "ndl", &[]),
        "describe flat.npy with its sidecar",
    );
    assert!(!first(&with_sidecar), "{with_sidecar}");
    let shape = ok(describe(&h5, "datashape", &[]), "describe as Datashape");
    assert!(
        shape.contains("nested: 3 * {z: {b: float64, a: int32}, y: uint16, x: float32}"),
        "{shape}"
    );
}

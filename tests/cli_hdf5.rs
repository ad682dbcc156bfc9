//! `ndl convert` and `ndl describe` with HDF5 files: what NumPy saves
//! goes to `.h5` and back byte for byte, h5py reads it equal, files that
//! h5py and netCDF4-python wrote convert dataset by dataset and describe
//! in NDL that PyYAML reads.

mod common;

use common::cli::{convert, converted, describe, ok, refused};
use common::numpy_kinds::{NETCDF4_FILE, NUMPY_KINDS};
use ndl_testkit::python::{python312, run_with};

#[test]
fn npy_to_h5_and_back_is_byte_for_byte_and_h5py_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run_with(&python312(), NUMPY_KINDS, &[d.to_str().unwrap()]);
    for name in ["recs", "big", "cube", "scalar", "empty", "complex", "time"] {
        let npy = d.join(format!("{name}.npy"));
        let h5 = d.join(format!("{name}.h5"));
        let back = d.join(format!("{name}_back.npy"));
        converted(convert(&npy, &h5, &[]), &format!("{name} to .h5"));
        converted(convert(&h5, &back, &[]), &format!("{name} back"));
        assert_eq!(
            std::fs::read(&npy).unwrap(),
            std::fs::read(&back).unwrap(),
            "{name}: the .npy that came back differs"
        );
        run_with(
            &python312(),
            r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    got = f[sys.argv[3]][()]
want = np.load(sys.argv[2])
assert got.dtype == want.dtype, (got.dtype, want.dtype)
assert np.asarray(got).tobytes() == want.tobytes()
"#,
            &[h5.to_str().unwrap(), npy.to_str().unwrap(), name],
        );
    }
    // A Fortran-order array has no HDF5 form: refused, nothing written.
    let f = d.join("fortran.npy");
    run_with(
        &python312(),
        "import sys, numpy as np; np.save(sys.argv[1], np.asfortranarray(np.zeros((2, 3))))",
        &[f.to_str().unwrap()],
    );
    let h5 = d.join("fortran.h5");
    refused(&convert(&f, &h5, &[]), &h5, &["C order"]);
    assert!(!h5.exists());
}

#[test]
fn files_h5py_and_netcdf4_wrote_convert_and_describe() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let nc = d.join("cf.nc");
    let h5 = d.join("many.h5");
    run_with(&python312(), NETCDF4_FILE, &[nc.to_str().unwrap()]);
    run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f["a"] = np.arange(3); f.create_group("g")["b"] = np.zeros(2, [("x", "<f4"), ("y", "u1")])
    f["g/b"].attrs["units"] = "m"
"#,
        &[h5.to_str().unwrap()],
    );
    let out = d.join("tas.npy");
    converted(convert(&nc, &out, &["--member", "tas"]), "tas");
    run_with(
        &python312(),
        "import sys, numpy as np; a = np.load(sys.argv[1]); assert a.dtype == '<f4' and a.shape == (2, 3) and a.sum() == 15, a",
        &[out.to_str().unwrap()],
    );
    // Several datasets and no --member: refused, naming them.
    let e = convert(&h5, &d.join("x.npy"), &[]);
    refused(&e, &h5, &["--member", "/a", "/g/b"]);
    converted(convert(&h5, &d.join("b.npy"), &["--member", "g/b"]), "g/b");

    let ndl = ok(describe(&nc, "ndl", &[]), "describe cf.nc");
    let parsed = run_with(
        &python312(),
        "import sys, yaml, json; print(json.dumps(yaml.safe_load(open(sys.argv[1]).read())))",
        &[{
            let p = d.join("cf.yaml");
            std::fs::write(&p, &ndl).unwrap();
            p.to_str().unwrap().to_string()
        }
        .as_str()],
    );
    let doc: serde_json::Value = serde_json::from_str(&parsed).unwrap();
    let text = doc.to_string();
    assert!(text.contains("air temperature"), "{ndl}");
    assert!(text.contains("\"tas\""), "{ndl}");
    assert!(text.contains("\"lat\""), "{ndl}");
    let cdl = ok(describe(&h5, "cdl", &[]), "describe many.h5 as CDL");
    assert!(cdl.contains("group: g {"), "{cdl}");
    ok(describe(&h5, "numpy", &[]), "describe many.h5 as numpy");
}

#[test]
fn files_the_hdf5_tools_rewrote_describe_and_convert() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run_with(&python312(), NUMPY_KINDS, &[d.to_str().unwrap()]);
    let npy = d.join("cube.npy");
    let h5 = d.join("cube.h5");
    converted(convert(&npy, &h5, &[]), "cube to .h5");
    // h5repack (Debian's hdf5-tools) rechunks and filters it with the
    // library's own filters: n-bit, scale-offset, shuffle, deflate, and
    // a Fletcher-32 checksum.
    for (name, filters) in [
        ("nbit", &["-f", "cube:NBIT", "-l", "cube:CHUNK=1x4x5"][..]),
        (
            "soff",
            &["-f", "cube:SOFF=0,IN", "-l", "cube:CHUNK=3x2x5"][..],
        ),
        (
            "gz",
            &[
                "-f",
                "cube:SHUF",
                "-f",
                "cube:GZIP=5",
                "-f",
                "cube:FLET",
                "-l",
                "cube:CHUNK=2x2x2",
            ][..],
        ),
    ] {
        let out = d.join(format!("{name}.h5"));
        let run = std::process::Command::new("h5repack")
            .args(filters)
            .arg(&h5)
            .arg(&out)
            .output()
            .expect("h5repack (Debian package hdf5-tools)");
        assert!(run.status.success(), "{name}: {run:?}");
        let ndl = ok(describe(&out, "ndl", &[]), name);
        let wanted = match name {
            "nbit" => vec!["nbit"],
            "soff" => vec!["scaleoffset"],
            _ => vec!["shuffle", "deflate", "fletcher32"],
        };
        for filter in wanted {
            assert!(ndl.contains(filter), "{name}: {filter}: {ndl}");
        }
        let back = d.join(format!("{name}.npy"));
        converted(convert(&out, &back, &[]), name);
        assert_eq!(
            std::fs::read(&npy).unwrap(),
            std::fs::read(&back).unwrap(),
            "{name}"
        );
    }
}

//! `ndl convert` and `ndl describe` with HDF5 files: what NumPy saves
//! goes to `.h5` and back byte for byte, h5py reads it equal, files that
//! h5py and netCDF4-python wrote convert dataset by dataset and describe
//! in NDL that PyYAML reads.

use crate::common;

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
    // A dataset that is not there: said in our words, listing those that are.
    let e = convert(&h5, &d.join("x.npy"), &["--member", "g/nope"]);
    refused(&e, &h5, &["no dataset named `g/nope`", "/a, /g/b"]);
    assert!(!e.stderr.contains("H5"), "{}", e.stderr);

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

/// Writes with h5py's low-level API, at `argv[1]`, datasets of types
/// h5py reads as NumPy types that are not the HDF5 class they are stored
/// as: bitfields of 1, 2 (big-endian) and 4 bytes, and opaque data tagged
/// `NUMPY:|S4` and `NUMPY:>u4`.
const H5PY_TYPES: &str = r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    for name, t in [("b8", h5py.h5t.STD_B8LE), ("b16be", h5py.h5t.STD_B16BE), ("b32le", h5py.h5t.STD_B32LE)]:
        d = h5py.h5d.create(f.id, name.encode(), t, h5py.h5s.create_simple((3,)))
        d.write(h5py.h5s.ALL, h5py.h5s.ALL, np.arange(3 * t.get_size(), dtype="u1") * 7 + 1, mtype=t)
    for name, tag in [("s4", b"NUMPY:|S4"), ("u4be", b"NUMPY:>u4")]:
        o = h5py.h5t.create(h5py.h5t.OPAQUE, 4)
        o.set_tag(tag)
        d = h5py.h5d.create(f.id, name.encode(), o, h5py.h5s.create_simple((2,)))
        d.write(h5py.h5s.ALL, h5py.h5s.ALL, np.frombuffer(b"ab\0\0wxyz", dtype="u1"), mtype=o)
"#;

/// Asserts that the `.npy` at `argv[2]` holds what h5py reads of dataset
/// `argv[3]` of the HDF5 file at `argv[1]`: the same dtype and bytes.
const SAME_AS_H5PY: &str = r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    want = f[sys.argv[3]][()]
got = np.load(sys.argv[2])
assert got.dtype == want.dtype and got.dtype.str == want.dtype.str, (got.dtype.str, want.dtype.str)
assert got.shape == want.shape and got.tobytes() == want.tobytes(), (got, want)
print(want.dtype.str)
"#;

#[test]
fn bitfields_and_numpy_tagged_opaque_data_are_the_types_h5py_reads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let h5 = d.join("types.h5");
    run_with(&python312(), H5PY_TYPES, &[h5.to_str().unwrap()]);
    let numpy = ok(describe(&h5, "numpy", &[]), "describe as numpy");
    for (name, dtype) in [
        ("b8", "|u1"),
        ("b16be", ">u2"),
        ("b32le", "<u4"),
        ("s4", "|S4"),
        ("u4be", ">u4"),
    ] {
        let npy = d.join(format!("{name}.npy"));
        converted(convert(&h5, &npy, &["--member", name]), name);
        let read = run_with(
            &python312(),
            SAME_AS_H5PY,
            &[h5.to_str().unwrap(), npy.to_str().unwrap(), name],
        );
        assert_eq!(read.trim(), dtype, "{name}");
        assert!(numpy.contains(dtype), "{name}: {dtype} in\n{numpy}");
    }
    assert!(!numpy.contains("V1") && !numpy.contains("V4"), "{numpy}");
}

/// A dataset with a null dataspace has no elements and no shape (h5py
/// reads `h5py.Empty`, of shape `None`): not a scalar. Describing the file
/// leaves it out saying so; converting it is refused saying so.
#[test]
fn a_null_dataspace_is_no_array_and_is_said_to_be_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let h5 = d.join("null.h5");
    let shape = run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("n", data=h5py.Empty("f4"))
    f["ok"] = np.arange(3.0)
with h5py.File(sys.argv[1], "r") as f:
    print(f["n"].shape, isinstance(f["n"][()], h5py.Empty))
"#,
        &[h5.to_str().unwrap()],
    );
    assert_eq!(shape.trim(), "None True");
    let run = describe(&h5, "numpy", &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(
        run.stderr.starts_with("ndl: warning: ")
            && run.stderr.contains("`/n`")
            && run.stderr.contains("null dataspace")
            && run.stderr.contains("float32"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.contains("ok") && !run.stdout.contains("'n'"),
        "{}",
        run.stdout
    );
    let npy = d.join("n.npy");
    refused(
        &convert(&h5, &npy, &["--member", "n"]),
        &h5,
        &["`n`", "null dataspace", "h5py.Empty"],
    );
    assert!(!npy.exists());
}

/// A dataset whose type has no NumPy type (NumPy's 16-byte long double,
/// which h5py writes as HDF5's) is described as opaque bytes, with a
/// warning, and the rest of the file as usual; converting it is refused,
/// naming it and its type. A file with a user block (h5py's
/// `userblock_size`) is HDF5 all the same.
#[test]
fn a_type_with_no_numpy_type_spoils_only_its_dataset_and_a_user_block_is_no_obstacle() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let h5 = d.join("long.h5");
    run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
for path, block in [(sys.argv[1], 0), (sys.argv[2], 512), (sys.argv[3], 4096)]:
    with h5py.File(path, "w", userblock_size=block) as f:
        f["ld"] = np.arange(3, dtype=np.longdouble)
        f["ok"] = np.arange(4, dtype="<i2")
"#,
        &[
            h5.to_str().unwrap(),
            d.join("block512.h5").to_str().unwrap(),
            d.join("block4096.h5").to_str().unwrap(),
        ],
    );
    for name in ["long", "block512", "block4096"] {
        let h5 = d.join(format!("{name}.h5"));
        let run = describe(&h5, "numpy", &[]);
        assert_eq!(run.code, Some(0), "{name}: {run:#?}");
        assert!(
            run.stderr.starts_with("ndl: warning: ")
                && run.stderr.contains("`/ld`")
                && run.stderr.contains("float of 16 bytes"),
            "{name}: {}",
            run.stderr
        );
        assert!(run.stdout.contains("<i2"), "{name}: {}", run.stdout);
        let npy = d.join(format!("{name}_ok.npy"));
        converted(convert(&h5, &npy, &["--member", "ok"]), name);
        run_with(
            &python312(),
            SAME_AS_H5PY,
            &[h5.to_str().unwrap(), npy.to_str().unwrap(), "ok"],
        );
        let refused_npy = d.join(format!("{name}_ld.npy"));
        refused(
            &convert(&h5, &refused_npy, &["--member", "ld"]),
            &h5,
            &["`ld`", "float of 16 bytes", "no NumPy type"],
        );
        assert!(!refused_npy.exists());
    }
}

#[test]
fn datasets_h5py_compressed_with_hdf5plugin_filters_convert_and_an_unread_filter_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let h5 = d.join("filtered.h5");
    run_with(
        &python312(),
        r#"
import sys, h5py, hdf5plugin, numpy as np
grid = (np.arange(40 * 30, dtype="<f4").reshape(40, 30) % 17) / 4
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("lzf", data=grid, chunks=(8, 30), compression="lzf")
    f.create_dataset("bitshuffle", data=grid, chunks=(7, 11), **hdf5plugin.Bitshuffle(cname="lz4"))
    f.create_dataset("zfp", data=grid, chunks=(8, 30), **hdf5plugin.Zfp(reversible=True))
    # Chunks large enough that C-Blosc2 splits them into blocks of fewer rows.
    big = np.sin(np.arange(300 * 700, dtype="<f8")).reshape(300, 700)
    f.create_dataset("blosc2", data=big, chunks=(128, 700), **hdf5plugin.Blosc2(cname="lz4"))
"#,
        &[h5.to_str().unwrap()],
    );
    for member in ["lzf", "bitshuffle", "blosc2"] {
        let out = d.join(format!("{member}.npy"));
        converted(convert(&h5, &out, &["--member", member]), member);
        run_with(
            &python312(),
            r#"
import sys, h5py, hdf5plugin, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    want = f[sys.argv[2]][...]
got = np.load(sys.argv[3])
assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape)
assert got.tobytes() == want.tobytes()
"#,
            &[h5.to_str().unwrap(), member, out.to_str().unwrap()],
        );
    }
    let out = d.join("zfp.npy");
    let e = convert(&h5, &out, &["--member", "zfp"]);
    refused(
        &e,
        &h5,
        &["zfp", "ZFP, HDF5 filter 32013", "is not supported"],
    );
    assert!(!e.stderr.contains("plugin"), "{}", e.stderr);
    assert!(!out.exists());
    // The description names each filter, not only its id.
    let yaml = ok(describe(&h5, "ndl", &[]), "describe the filtered file");
    for name in ["name: lzf", "name: bitshuffle", "name: blosc2", "name: zfp"] {
        assert!(yaml.contains(name), "{name}: {yaml}");
    }
}

/// h5py's attributes of a record, an enum, bools and complex numbers are
/// copied to `.h5` of their own types, as h5py reads them: the complex
/// ones were the text `<a value of complex128>`, the bools and the
/// record their JSON text, the enum an `int64`. A `.nc` holds no such
/// unnamed types: the complex number is its `[real, imaginary]` there.
#[test]
fn attributes_of_records_enums_bools_and_complex_numbers_keep_their_types() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("a.h5");
    let py = python312();
    run_with(
        &py,
        "import sys, h5py, numpy as np\n\
         with h5py.File(sys.argv[1], 'w') as f:\n\
         \x20   d = f.create_dataset('d', data=np.arange(3, dtype='i4'))\n\
         \x20   d.attrs['comp'] = np.array((1, 2.5), dtype=[('a', 'i4'), ('b', 'f8')])\n\
         \x20   d.attrs['state'] = np.array(1, dtype=h5py.enum_dtype({'OFF': 0, 'ON': 1}, basetype='u1'))\n\
         \x20   d.attrs['flags'] = np.array([True, False])\n\
         \x20   d.attrs['c'] = np.complex128(1 + 2j)\n\
         \x20   d.attrs['cs'] = np.array([1j, 2], 'c8')\n",
        &[src.to_str().unwrap()],
    );
    let h5 = dir.path().join("b.h5");
    let nc = dir.path().join("b.nc");
    for dst in [&h5, &nc] {
        let run = convert(&src, dst, &[]);
        assert_eq!(run.code, Some(0), "{run:#?}");
    }
    let show = "import sys, h5py\n\
         for p in sys.argv[1:]:\n\
         \x20   with h5py.File(p) as f:\n\
         \x20       a = f['d'].attrs\n\
         \x20       print(sorted((k, str(a[k].dtype), a[k].tolist()) for k in ('comp', 'state', 'flags', 'c', 'cs')))\n";
    let shown = run_with(&py, show, &[src.to_str().unwrap(), h5.to_str().unwrap()]);
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), 2, "{shown}");
    assert_eq!(lines[0], lines[1], "{shown}");
    let c = run_with(
        &py,
        "import sys, netCDF4\n\
         with netCDF4.Dataset(sys.argv[1]) as f:\n\
         \x20   print(f['d'].getncattr('c').tolist())\n",
        &[nc.to_str().unwrap()],
    );
    assert_eq!(c, "[1.0, 2.0]\n", "{c}");
}

/// An h5py dataset's `fillvalue` (no `_FillValue`: no mask) stays the
/// copy's, in `.h5` and `.nc` the dataset fill and in Zarr the
/// `fill_value`, so that the copy grows as the source would; it was 0.
/// A zarr-python v3 array's `fill_value` is carried the same way.
#[test]
fn dataset_fills_that_mask_nothing_are_kept_in_copies() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (h5, zarr) = (d.join("f.h5"), d.join("f.zarr"));
    run_with(
        &python312(),
        "import sys, h5py, zarr\n\
         with h5py.File(sys.argv[1], 'w') as f:\n\
         \x20   f.create_dataset('d', shape=(6,), chunks=(2,), dtype='i4', fillvalue=-7)[0:2] = [1, 2]\n\
         zarr.create_array(sys.argv[2], shape=(6,), chunks=(2,), dtype='i4', fill_value=-5)[0:2] = [1, 2]\n",
        &[h5.to_str().unwrap(), zarr.to_str().unwrap()],
    );
    let mut copies = Vec::new();
    for (src, name) in [(&h5, "h5"), (&zarr, "zarr")] {
        for ext in ["h5", "nc", "zarr"] {
            let dst = d.join(format!("{name}_copy.{ext}"));
            converted(convert(src, &dst, &[]), &format!("{name} to {ext}"));
            copies.push(dst);
        }
    }
    let args: Vec<&str> = copies.iter().map(|p| p.to_str().unwrap()).collect();
    let fills = run_with(
        &python312(),
        "import sys, h5py, zarr\n\
         for p in sys.argv[1:]:\n\
         \x20   if p.endswith('.zarr'):\n\
         \x20       a = zarr.open(p, mode='r')\n\
         \x20       a = a[next(iter(a.array_keys()))] if isinstance(a, zarr.Group) else a\n\
         \x20       print(a[:].tolist(), a.metadata.fill_value, '_FillValue' in a.attrs)\n\
         \x20   else:\n\
         \x20       with h5py.File(p) as f:\n\
         \x20           v = [x for x in f.values() if isinstance(x, h5py.Dataset) and 'CLASS' not in x.attrs][0]\n\
         \x20           print(v[:].tolist(), v.fillvalue, '_FillValue' in v.attrs)\n",
        &args,
    );
    let (h, z) = (
        "[1, 2, -7, -7, -7, -7] -7 False\n",
        "[1, 2, -5, -5, -5, -5] -5 False\n",
    );
    assert_eq!(fills, [h.repeat(3), z.repeat(3)].concat(), "{fills}");
}

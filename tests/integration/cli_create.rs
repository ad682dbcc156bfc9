//! `ndl create DOC DEST`: the NDL spec's examples (tests/data/ndl, with
//! the types the spec leaves out filled in) made into HDF5 and netCDF-4
//! files that h5py, netCDF4-python and ncdump read as the documents say;
//! `ndl describe` giving a document back; bad documents refused with one
//! line naming the document and where in it, and nothing created. The
//! same examples as Zarr v3 and v2 stores that zarr-python reads.

use crate::common;

use std::path::{Path, PathBuf};

use common::cli::{Run, describe, ndl, ok, refused};
use ndl_runtime::ndl::{AttributeForm, File};
use ndl_testkit::netcdf::ncdump;
use ndl_testkit::python::{python312, run_file};

/// The spec's examples, by file stem.
const EXAMPLES: [&str; 5] = ["attributes", "dimcoords", "groups", "ndarrays", "datatypes"];

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/ndl/{name}.ndl.yaml"))
}

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/python/{name}"))
}

fn create(doc: &Path, dest: &Path) -> Run {
    ndl(&["create", doc.to_str().unwrap(), dest.to_str().unwrap()])
}

/// `ndl create DOC DEST --zarr-format FORMAT`.
fn create_zarr(doc: &Path, dest: &Path, format: &str) -> Run {
    let (doc, dest) = (doc.to_str().unwrap(), dest.to_str().unwrap());
    ndl(&["create", doc, dest, "--zarr-format", format])
}

/// Makes every example as `<stem>.<ext>` in `dir`, each silently but for
/// a note on the one variable netCDF4-python skips (an opaque one).
fn create_examples(dir: &Path, ext: &str) {
    for name in EXAMPLES {
        let dest = dir.join(format!("{name}.{ext}"));
        let run = create(&data(name), &dest);
        assert_eq!(run.code, Some(0), "{name}.{ext}: {run:#?}");
        assert!(run.stdout.is_empty(), "{run:#?}");
        if (name, ext) == ("datatypes", "nc") {
            let note = "skips the variable `/image`, of an opaque type, which ncdump";
            assert_eq!(run.stderr.lines().count(), 1, "{run:#?}");
            assert!(run.stderr.contains(note), "{run:#?}");
            continue;
        }
        assert!(run.stderr.is_empty(), "{run:#?}");
    }
}

/// The names in `dir`, hidden ones included: what a failed create left.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn spec_examples_make_hdf5_files_that_h5py_reads_as_described() {
    let dir = tempfile::tempdir().unwrap();
    create_examples(dir.path(), "h5");
    let out = run_file(
        &python312(),
        &script("check_created_h5.py"),
        &[dir.path().to_str().unwrap()],
    );
    assert_eq!(out.trim(), "ok");
}

#[test]
fn spec_examples_make_netcdf4_files_that_netcdf4_python_and_ncdump_read() {
    let dir = tempfile::tempdir().unwrap();
    create_examples(dir.path(), "nc");
    for name in EXAMPLES {
        let cdl = ncdump(&[], &dir.path().join(format!("{name}.nc")));
        assert!(!cdl.contains("phony_dim"), "{name}: {cdl}");
    }
    let types = ncdump(&["-h"], &dir.path().join("datatypes.nc"));
    for line in [
        "byte enum direction_t {UP = 0, DOWN = 25, CENTER = -120} ;",
        "opaque(4) image_t ;",
        "float matrix(dim_2, dim_3, dim_3_2) ;",
        "int stored(stored_0, dim_4) ;",
        "stored_0 = UNLIMITED ; // (3 currently)",
    ] {
        assert!(types.contains(line), "no {line:?} in:\n{types}");
    }
    let out = run_file(
        &python312(),
        &script("check_created_nc.py"),
        &[dir.path().to_str().unwrap()],
    );
    assert_eq!(out.trim(), "ok");
}

#[test]
fn spec_examples_make_zarr_stores_that_zarr_python_reads_v3_and_v2() {
    let dir = tempfile::tempdir().unwrap();
    for (format, extra) in [(3, &[][..]), (2, &["--zarr-format", "2"][..])] {
        let out = dir.path().join(format!("v{format}"));
        std::fs::create_dir_all(&out).unwrap();
        for name in EXAMPLES {
            let doc = data(name);
            let store = out.join(format!("{name}.zarr"));
            let mut args = vec!["create", doc.to_str().unwrap(), store.to_str().unwrap()];
            args.extend_from_slice(extra);
            let run = ndl(&args);
            assert_eq!(run.code, Some(0), "{name} v{format}: {run:#?}");
        }
        let out = run_file(
            &python312(),
            &script("check_created_zarr.py"),
            &[out.to_str().unwrap(), &format.to_string()],
        );
        assert_eq!(out.trim(), "ok");
    }
}

/// `file` with every root attribute in the long form: the spec's `a` and
/// `same_as_a` are one attribute written two ways.
fn long_form(mut file: File) -> File {
    for (_, g) in file.groups.iter_mut() {
        for (_, a) in g.attributes.iter_mut() {
            a.form = AttributeForm::Long;
        }
    }
    file
}

#[test]
fn describe_gives_the_document_back() {
    let dir = tempfile::tempdir().unwrap();
    for ext in ["h5", "nc"] {
        let dest = dir.path().join(format!("attributes.{ext}"));
        assert_eq!(create(&data("attributes"), &dest).code, Some(0));
        let text = ok(describe(&dest, "ndl", &[]), "describe");
        let doc = std::fs::read_to_string(data("attributes")).unwrap();
        assert_eq!(
            long_form(File::from_yaml(&text).unwrap()),
            long_form(File::from_yaml(&doc).unwrap()),
            "{ext}: {text}"
        );
    }
    // Storage the file chose (chunks, byte order) aside, the same dimcoords
    // and ndarrays, shaped by the same names.
    let dest = dir.path().join("dimcoords.nc");
    assert_eq!(create(&data("dimcoords"), &dest).code, Some(0));
    let back = File::from_yaml(&ok(describe(&dest, "ndl", &[]), "describe")).unwrap();
    let doc = File::from_yaml(&std::fs::read_to_string(data("dimcoords")).unwrap()).unwrap();
    let (b, d) = (back.group("/").unwrap(), doc.group("/").unwrap());
    for (name, dc) in d.dimcoords.iter() {
        let got = b.dimcoords.get(name).unwrap();
        assert_eq!((got.size, &got.datatype), (dc.size, &dc.datatype), "{name}");
        assert_eq!(got.attributes, dc.attributes, "{name}");
    }
    let (got, want) = (b.ndarrays.get("t").unwrap(), d.ndarrays.get("t").unwrap());
    assert_eq!((&got.shape, &got.datatype), (&want.shape, &want.datatype));
}

/// Each kind of bad document, the words its error holds (the location
/// first), for `.h5`, `.nc` and `.zarr` alike.
const BAD: [(&str, &str, &[&str]); 28] = [
    (
        "yaml",
        "ndarrays: [\n  a: {\n",
        &["not a YAML document", "line 3"],
    ),
    (
        "type",
        "ndarrays:\n  a: {shape: [2], type: int9}\n",
        &["ndarray `a`: type", "unknown datatype `int9`"],
    ),
    (
        "dimcoord",
        "/g:\n  ndarrays:\n    a: {shape: [2, /nope], type: int8}\n",
        &["/g: ndarray `a`: shape[1]", "`/nope` names no dimcoord"],
    ),
    (
        "values",
        "ndarrays:\n  a: {shape: [2, 3], type: int8, value: [[1, 2, 3], [4, 5]]}\n",
        &[
            "ndarray `a`: value[1]",
            "a list of 3 values was expected, found 2",
        ],
    ),
    (
        "chunk",
        "ndarrays:\n  a: {shape: [2, 3], type: int8, storage: {chunk: [2]}}\n",
        &["ndarray `a`: storage.chunk", "the rank is 2"],
    ),
    (
        "member",
        "ndarrays:\n  a: {shape: [2], type: {enum: {members: {A: 0, B: 1}}}, value: [A, C]}\n",
        &["ndarray `a`: value[1]", "`C` is no member of the enum"],
    ),
    (
        "filter",
        "ndarrays:\n  a: {shape: [2], type: int8, storage: {filter: [lzma]}}\n",
        &["ndarray `a`: storage.filter[0]", "unknown filter `lzma`"],
    ),
    (
        "fillvalue",
        "ndarrays:\n  a: {shape: [2], type: {string: {length: 3, charset: ascii}}, storage: {fillvalue: abc}}\n",
        &["ndarray `a`: storage.fillvalue", "fills of numbers only"],
    ),
    (
        "fill_range",
        "ndarrays:\n  a: {shape: [2], type: {optional: {base: int8}}, storage: {fillvalue: 300}}\n",
        &[
            "ndarray `a`: storage.fillvalue",
            "300 is not a value of int8",
        ],
    ),
    (
        "null",
        "ndarrays:\n  a: {shape: [2], type: int8, value: [1, null]}\n",
        &["ndarray `a`: value[1]", "null is not a value of int8"],
    ),
    (
        "optional",
        "ndarrays:\n  a: {shape: [2], type: {optional: {base: {compound: [x: int8]}}}}\n",
        &["ndarray `a`: type", "makes optional numbers"],
    ),
    (
        "vlen_value",
        "ndarrays:\n  a: {shape: [2], type: {vlen: {base: int8}}, value: [[1], [2, x]]}\n",
        &["ndarray `a`: value[1][1]", "is not a value of int8"],
    ),
    (
        "optional_member",
        "ndarrays:\n  a: {shape: [2], type: {compound: [x: int8, y: {optional: {base: int8}}]}}\n",
        &[
            "ndarray `a`: type",
            "member `y`",
            "no optional compound members",
        ],
    ),
    (
        "string_in_attribute",
        "attributes:\n  a: {shape: [], type: {compound: [x: int8, y: string]}, value: [1, b]}\n",
        &[
            "attribute `a`: type",
            "not of an attribute's compound member",
        ],
    ),
    (
        "string_items",
        "ndarrays:\n  a: {shape: [2], type: {array: {base: string, shape: [2]}}}\n",
        &["ndarray `a`: type", "or the items of an array"],
    ),
    (
        "huge_opaque",
        "ndarrays:\n  a: {shape: [2], type: {opaque: {size: 4294967296}}, value: [[1], [2]]}\n",
        &["ndarray `a`: type", "at most 16 MiB"],
    ),
    (
        "huge_shape",
        "ndarrays:\n  a: {shape: [4294967296, 4294967296, 4294967296, 0], type: int8}\n",
        &["ndarray `a`: shape", "multiply past 2^64"],
    ),
    (
        "string_in_vlen_items",
        "ndarrays:\n  a: {shape: [2], type: {vlen: {base: {compound: [x: string]}}}}\n",
        &["ndarray `a`: type", "or the items of an array"],
    ),
    // A value that is the fill of an optional reads back as null.
    (
        "nan_of_optional",
        "ndarrays:\n  a: {shape: [3], type: {optional: {base: float32}}, value: [1, null, .nan]}\n",
        &[
            "ndarray `a`: value[2]",
            "the fill that stands for null",
            "write null",
        ],
    ),
    // Values that would be lost or changed.
    (
        "unknown_member",
        "ndarrays:\n  a: {shape: [1], type: {compound: [x: int8]}, value: [{y: 1}]}\n",
        &[
            "ndarray `a`: value[0]",
            "`y` is no member of the compound (x)",
        ],
    ),
    (
        "long_member_list",
        "ndarrays:\n  a: {shape: [1], type: {compound: [x: int8]}, value: [[1, 2]]}\n",
        &[
            "ndarray `a`: value[0]",
            "expected a list of 1 member values (x), found 2",
        ],
    ),
    (
        "float32_overflow",
        "ndarrays:\n  a: {shape: [1], type: float32, value: [1e40]}\n",
        &["ndarray `a`: value[0]", "out of the range of float32"],
    ),
    // Documents HDF5 would refuse only once half written.
    (
        "dimcoord_and_ndarray",
        "dimcoords: {a: {size: 2, type: int8}}\nndarrays: {a: {shape: [2], type: int8}}\n",
        &["ndarray `a`", "a dimcoord of this group has the name too"],
    ),
    (
        "group_and_ndarray",
        "/:\n  ndarrays: {b: {shape: [1], type: int8}}\n/b:\n  attributes: {x: 1}\n",
        &["ndarray `b`", "the group `/b` needs its path, `/b`"],
    ),
    (
        "group_below_ndarray",
        "/:\n  ndarrays: {b: {shape: [1], type: int8}}\n/b/c:\n  attributes: {x: 1}\n",
        &["ndarray `b`", "the group `/b/c` needs its path, `/b`"],
    ),
    (
        "enum_values_twice",
        "ndarrays: {a: {shape: [1], type: {enum: {base: uint8, members: {A: 1, B: 1}}}}}\n",
        &[
            "ndarray `a`: type",
            "enum members `A` and `B` have one value, 1",
        ],
    ),
    (
        "two_fills",
        "ndarrays:\n  a: {shape: [2], type: int8, storage: {fillvalue: 1}, attributes: {_FillValue: 2}}\n",
        &["ndarray `a`: attribute `_FillValue`", "give the fill once"],
    ),
    (
        "fill_of_optional",
        "ndarrays:\n  a: {shape: [2], type: {optional: {base: int16}}, value: [-1, 2], storage: {fillvalue: -1}}\n",
        &[
            "ndarray `a`: value[0]",
            "the number -1 is the fill",
            "storage.fillvalue",
        ],
    ),
];

#[test]
fn bad_documents_are_refused_naming_where_and_nothing_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    for (kind, text, words) in BAD {
        let doc = docs.join(format!("{kind}.ndl.yaml"));
        std::fs::write(&doc, text).unwrap();
        for ext in ["h5", "nc", "zarr"] {
            let dest = out.join(format!("{kind}.{ext}"));
            let run = create(&doc, &dest);
            refused(&run, &doc, words);
            assert!(!dest.exists(), "{kind}.{ext} was created");
        }
    }
    // HDF5 alone refuses a chunk longer than a fixed dimension.
    let doc = docs.join("long_chunk.ndl.yaml");
    std::fs::write(
        &doc,
        "ndarrays:\n  a: {shape: [2, 3], type: int8, storage: {chunk: [4, 3]}}\n",
    )
    .unwrap();
    for ext in ["h5", "nc"] {
        let run = create(&doc, &out.join(format!("long_chunk.{ext}")));
        refused(
            &run,
            &doc,
            &["ndarray `a`: storage.chunk[0]", "4 exceeds the extent 2"],
        );
    }
    assert_eq!(entries(&out), Vec::<String>::new(), "left behind");
}

#[test]
fn an_existing_destination_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    for ext in ["h5", "nc"] {
        let dest = dir.path().join(format!("there.{ext}"));
        std::fs::write(&dest, b"not yours").unwrap();
        let run = create(&data("ndarrays"), &dest);
        refused(&run, &dest, &["already exists"]);
        assert_eq!(std::fs::read(&dest).unwrap(), b"not yours");
    }
    let store = dir.path().join("there.zarr");
    std::fs::create_dir_all(&store).unwrap();
    std::fs::write(store.join("zarr.json"), b"not yours").unwrap();
    let run = create(&data("ndarrays"), &store);
    refused(&run, &store, &["already exists"]);
    assert_eq!(entries(&store), ["zarr.json"]);
    assert_eq!(
        std::fs::read(store.join("zarr.json")).unwrap(),
        b"not yours"
    );
    let names = entries(dir.path());
    assert_eq!(names, ["there.h5", "there.nc", "there.zarr"]);
    let run = create(&data("ndarrays"), &dir.path().join("out.txt"));
    refused(&run, &dir.path().join("out.txt"), &[".h5", ".nc"]);
}

/// `float16` values (an extension; NumPy's `<f2`) made into an HDF5 file
/// and a Zarr store that h5py and zarr-python read exactly; netCDF-4 has
/// no 16-bit float, so a `.nc` is refused naming the ndarray.
#[test]
fn float16_values_are_made_where_the_format_has_them() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("half.ndl.yaml");
    std::fs::write(
        &doc,
        "ndarrays:\n  half:\n    shape: [4]\n    type: float16\n    value: [1.5, -0.25, 65504, .nan]\n",
    )
    .unwrap();
    let (h5, zarr, nc) = (
        dir.path().join("half.h5"),
        dir.path().join("half.zarr"),
        dir.path().join("half.nc"),
    );
    for dest in [&h5, &zarr] {
        let run = create(&doc, dest);
        assert_eq!(run.code, Some(0), "{run:#?}");
    }
    refused(&create(&doc, &nc), &nc, &["`/half`", "16-bit float"]);
    let out = ndl_testkit::python::run_with(
        &python312(),
        r#"
import sys, h5py, zarr, numpy as np
want = np.array([1.5, -0.25, 65504, np.nan], np.float16)
with h5py.File(sys.argv[1]) as f:
    got = f["half"][:]
    assert got.dtype == np.float16 and np.array_equal(got, want, equal_nan=True), got
got = zarr.open_group(sys.argv[2], mode="r")["half"][:]
assert got.dtype == np.float16 and np.array_equal(got, want, equal_nan=True), got
print("ok")
"#,
        &[h5.to_str().unwrap(), zarr.to_str().unwrap()],
    );
    assert_eq!(out.trim(), "ok");
}

/// `vlen` ndarrays (tests/data/ndl/vlen.ndl.yaml): sequences of numbers,
/// strings, compounds and sequences, with values and without, as HDF5
/// `H5T_VLEN` datasets that h5py reads exactly and netCDF-4 `NC_VLEN`
/// types that `ncdump` prints and netCDF4-python reads (it skips vlens of
/// strings, compounds and vlens); `ndl describe` gives each datatype back.
/// Zarr has no such type: refused naming the ndarray, nothing created.
#[test]
fn vlen_ndarrays_are_made_in_hdf5_and_netcdf4_and_refused_in_zarr() {
    let dir = tempfile::tempdir().unwrap();
    let (h5, nc) = (dir.path().join("vlen.h5"), dir.path().join("vlen.nc"));
    for dest in [&h5, &nc] {
        let run = create(&data("vlen"), dest);
        assert_eq!(run.code, Some(0), "{run:#?}");
        // Each variable netCDF4-python skips is named, and only those.
        let skipped: Vec<&str> = run
            .stderr
            .lines()
            .filter_map(|l| l.strip_prefix("ndl: note: ")?.split('`').nth(1))
            .collect();
        let want: &[&str] = if dest == &nc {
            &["/words", "/points", "/nested"]
        } else {
            &[]
        };
        assert_eq!(skipped, want, "{run:#?}");
    }
    let cdl = ncdump(&[], &nc);
    for line in [
        "int(*) ragged_t ;",
        "ragged_t ragged(obs) ;",
        "ragged = {1, 2, 3}, {}, {-4} ;",
        "words = {\"a\", \"bé\"}, {\"\"} ;",
        "{{1, 2.5}}, {},",
        "{}, {{3, 4.5}, {5, 0}} ;",
        "nested = {{1}, {2, 3}}, {} ;",
        "unset = {}, {} ;",
    ] {
        assert!(cdl.contains(line), "no {line:?} in:\n{cdl}");
    }
    let out = ndl_testkit::python::run_with(
        &python312(),
        r#"
import sys, warnings, h5py, netCDF4, numpy as np
def lists(a):
    return [x.tolist() for x in a]
with h5py.File(sys.argv[1]) as f:
    assert h5py.check_vlen_dtype(f["ragged"].dtype) == np.int32
    assert lists(f["ragged"][:]) == [[1, 2, 3], [], [-4]]
    assert [[s.decode() for s in w] for w in f["words"][:]] == [["a", "bé"], [""]]
    p = f["points"][:]
    assert p.shape == (2, 2) and p[0, 0].dtype.names == ("x", "y"), p
    assert [[x.tolist() for x in row] for row in p] == [[[(1, 2.5)], []], [[], [(3, 4.5), (5, 0.0)]]]
    assert [[x.tolist() for x in s] for s in f["nested"][:]] == [[[1], [2, 3]], []]
    assert lists(f["unset"][:]) == [[], []]
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    with netCDF4.Dataset(sys.argv[2]) as d:
        assert lists(d["ragged"][:]) == [[1, 2, 3], [], [-4]]
        assert d["ragged"].datatype.dtype == np.int32
        assert d["ragged"].dimensions == ("obs",)
        assert lists(d["unset"][:]) == [[], []]
print("ok")
"#,
        &[h5.to_str().unwrap(), nc.to_str().unwrap()],
    );
    assert_eq!(out.trim(), "ok");
    let doc = File::from_yaml(&std::fs::read_to_string(data("vlen")).unwrap()).unwrap();
    for dest in [&h5, &nc] {
        let back = File::from_yaml(&ok(describe(dest, "ndl", &[]), "describe")).unwrap();
        let (b, d) = (back.group("/").unwrap(), doc.group("/").unwrap());
        for (name, want) in d.ndarrays.iter() {
            let got = b.ndarrays.get(name).unwrap();
            assert_eq!(got.datatype, want.datatype, "{}: {name}", dest.display());
        }
    }
    for format in ["3", "2"] {
        let dest = dir.path().join(format!("vlen{format}.zarr"));
        let doc = data("vlen");
        let run = create_zarr(&doc, &dest, format);
        refused(
            &run,
            &doc,
            &["ndarray `ragged`: type", "no variable-length sequence"],
        );
        assert!(!dest.exists());
    }
    assert_eq!(entries(dir.path()), ["vlen.h5", "vlen.nc"]);
}

/// Compounds holding `string` and `vlen` members
/// (tests/data/ndl/records.ndl.yaml), as h5py writes records: h5py reads
/// every member as the document gives it (a member left out is zero, ""
/// or []), with the storage asked for; `ndl describe` gives each datatype
/// back. netCDF4-python reads no such compound and Zarr's struct members
/// have a fixed size: refused naming the ndarray, nothing created. They
/// panicked before.
#[test]
fn records_with_string_and_vlen_members_are_made_in_hdf5_alone() {
    let dir = tempfile::tempdir().unwrap();
    let doc = data("records");
    let h5 = dir.path().join("records.h5");
    let run = create(&doc, &h5);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let out = ndl_testkit::python::run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1]) as f:
    t = f["trades"]
    assert t.shape == (3,) and t.maxshape == (3,), t
    assert h5py.check_string_dtype(t.dtype["symbol"]).encoding == "utf-8"
    assert h5py.check_vlen_dtype(t.dtype["levels"]) == np.float32
    assert h5py.check_string_dtype(h5py.check_vlen_dtype(t.dtype["tags"])) is not None
    assert h5py.check_string_dtype(t.dtype["venue"]["code"]) is not None
    assert h5py.check_enum_dtype(t.dtype["side"]) == {"BUY": 0, "SELL": 1}
    rows = [
        (int(r["id"]), r["symbol"].decode(), r["levels"].tolist(),
         [x.decode() for x in r["tags"]], (r["venue"][0].decode(), float(r["venue"][1])),
         int(r["side"]))
        for r in t[:]
    ]
    assert rows == [
        (1, "AAPL", [1.5, 2.25], ["a", "bé"], ("XNAS", 40.7), 1),
        (2, "Ü", [], [], ("", 0.0), 0),
        (3, "", [], [""], ("", -1.5), 0),
    ], rows
    assert t.attrs["long_name"] == "trades of the day"
    log = f["log"]
    assert log.shape == (2, 2) and log.chunks == (1, 2), log
    assert log.compression == "gzip" and log.compression_opts == 4 and log.shuffle
    assert [[(int(r["t"]), r["note"].decode()) for r in row] for row in log[:]] == [
        [(1, "hot"), (2, "cold")], [(3, ""), (4, "wind ✓")]]
    assert log.dims[0][0].name == "/station"
    e = f["empty"]
    assert e.shape == (0,) and e.maxshape == (None,), e
    assert h5py.check_string_dtype(e.dtype["word"]) is not None
print("ok")
"#,
        &[h5.to_str().unwrap()],
    );
    assert_eq!(out.trim(), "ok");
    let back = File::from_yaml(&ok(describe(&h5, "ndl", &[]), "describe")).unwrap();
    let want = File::from_yaml(&std::fs::read_to_string(&doc).unwrap()).unwrap();
    let (b, d) = (back.group("/").unwrap(), want.group("/").unwrap());
    for (name, nd) in d.ndarrays.iter() {
        let got = b.ndarrays.get(name).unwrap();
        assert_eq!(got.datatype, nd.datatype, "{name}");
    }
    // A dimension scale on the first dimension alone is named, the other
    // given by its size (all were given by size before); a dimension that
    // grows without a scale is null (it was its current length, 0), its
    // length `storage.shape`.
    for name in ["trades", "log", "empty"] {
        let (got, want) = (b.ndarrays.get(name).unwrap(), d.ndarrays.get(name).unwrap());
        assert_eq!(got.shape, want.shape, "{name}");
    }
    assert_eq!(
        b.ndarrays.get("empty").unwrap().storage.shape,
        Some(vec![0])
    );
    for (ext, words) in [
        ("nc", "netCDF4-python reads no compound"),
        ("zarr", "holds members of a fixed size"),
    ] {
        let dest = dir.path().join(format!("records.{ext}"));
        refused(
            &create(&doc, &dest),
            &doc,
            &["ndarray `trades`: type", words],
        );
        assert!(!dest.exists());
    }
    assert_eq!(entries(dir.path()), ["records.h5"]);
}

/// Types the HDF5 library has none for, or crashed on, are refused naming
/// the dataset: an enum of no members inside a compound (a segfault in
/// `H5Tinsert`), in an attribute too; a sequence of values of no bytes (a
/// panic); a fixed string of 2^64 - 1 bytes (HDF5 took it for a
/// variable-length one, Zarr overflowed). An ndarray without values in a
/// Zarr store costs its metadata alone, whatever its size (a trillion
/// elements were written as zeros), reading as its fill; an HDF5 dataset
/// of an array type of 10^10 elements is described at once (it was walked
/// element by element).
#[test]
fn hostile_types_and_sizes_are_refused_or_made_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let doc = |name: &str, text: &str| {
        let path = dir.path().join(format!("{name}.ndl.yaml"));
        std::fs::write(&path, text).unwrap();
        path
    };
    let empty_enum = doc(
        "empty_enum",
        "ndarrays:\n  a: {shape: [], type: {compound: [x: {enum: {base: int8, members: {}}}]}}\n",
    );
    let empty_enum_attribute = doc(
        "empty_enum_attribute",
        "attributes:\n  x: {shape: [1], type: {compound: [a: {enum: {base: int8, members: {}}}]}, value: [[0]]}\n",
    );
    let no_bytes = doc(
        "no_bytes",
        "ndarrays:\n  a: {shape: [1], type: {vlen: {base: {opaque: {size: 0}}}}, value: [[]]}\n",
    );
    let longest = doc(
        "longest",
        "ndarrays:\n  a: {shape: [1], type: {string: {length: 18446744073709551615, charset: ascii}}}\n",
    );
    for (doc, words) in [
        (&empty_enum, "an enum with no members has no HDF5 type"),
        (
            &empty_enum_attribute,
            "an enum with no members has no HDF5 type",
        ),
        (&no_bytes, "an opaque value of no bytes has no HDF5 type"),
    ] {
        for ext in ["h5", "nc"] {
            let dest = dir.path().join(format!("made.{ext}"));
            let run = create(doc, &dest);
            assert_eq!(run.code, Some(1), "{run:#?}");
            assert!(run.stderr.contains(words), "{run:#?}");
            assert!(!dest.exists());
        }
    }
    for ext in ["h5", "nc", "zarr"] {
        let run = create(&longest, &dir.path().join(format!("longest.{ext}")));
        assert!(run.stderr.contains("at most 16 MiB"), "{run:#?}");
    }

    let big = doc(
        "big",
        "ndarrays:\n  a: {shape: [1000000000000], type: int8}\n  b: {shape: [1], type: {array: {base: float64, shape: [100000, 100000]}}}\n",
    );
    let (zarr, h5) = (dir.path().join("big.zarr"), dir.path().join("big.h5"));
    for dest in [&zarr, &h5] {
        let run = create(&big, dest);
        assert_eq!(run.code, Some(0), "{run:#?}");
    }
    let described = ok(describe(&h5, "ndl", &[]), "describe");
    assert!(described.contains("shape: [100000, 100000]"), "{described}");
    let out = ndl_testkit::python::run_with(
        &python312(),
        r#"
import sys, zarr
g = zarr.open_group(sys.argv[1], mode="r")
a = g["a"]
assert a.shape == (10**12,) and a[:4].tolist() == [0, 0, 0, 0] and a[-1] == 0, a
assert g["b"].shape == (1, 100000, 100000)
print("ok")
"#,
        &[zarr.to_str().unwrap()],
    );
    assert_eq!(out.trim(), "ok");
}

/// `optional` numbers (tests/data/ndl/optional.ndl.yaml) and
/// `storage.fillvalue`: a null is the fill; netCDF-4 keeps it as
/// `_FillValue`, HDF5 as the dataset's fill (and `_FillValue` for an
/// optional), Zarr as `fill_value` (and `_FillValue` for an optional, and
/// in v3 for any fill), so netCDF4-python and xarray mask the nulls;
/// `ndl describe` gives the
/// base type back with its `_FillValue`.
#[test]
fn optional_ndarrays_are_masked_by_each_formats_readers() {
    let dir = tempfile::tempdir().unwrap();
    let doc = data("optional");
    let (h5, nc) = (dir.path().join("o.h5"), dir.path().join("o.nc"));
    for dest in [&h5, &nc] {
        let run = create(&doc, dest);
        assert_eq!(run.code, Some(0), "{run:#?}");
    }
    let mut stores = Vec::new();
    for format in ["3", "2"] {
        let dest = dir.path().join(format!("o{format}.zarr"));
        let run = create_zarr(&doc, &dest, format);
        assert_eq!(run.code, Some(0), "{run:#?}");
        stores.push(dest);
    }
    let out = ndl_testkit::python::run_with(
        &python312(),
        r#"
import sys, h5py, netCDF4, xarray as xr, zarr, numpy as np
h5, nc, z3, z2 = sys.argv[1:]
nan = float("nan")
def same(got, want):
    assert np.array_equal(np.asarray(got, float), np.asarray(want, float), equal_nan=True), (got, want)
with h5py.File(h5) as f:
    same(f["temp"][:], [1.5, nan, 3])
    assert np.isnan(f["temp"].fillvalue) and np.isnan(f["temp"].attrs["_FillValue"])
    assert f["count"][:].tolist() == [-1, 7, 8] and f["count"].fillvalue == -1
    assert f["count"].attrs["_FillValue"].dtype == np.int16
    assert f["unset"][:].tolist() == [-2147483647] * 4
    assert f["level"].fillvalue == -999 and "_FillValue" not in f["level"].attrs
with netCDF4.Dataset(nc) as d:
    assert d["temp"][:].mask.tolist() == [False, True, False]
    assert d["count"][:].mask.tolist() == [True, False, False]
    assert d["count"][:].compressed().tolist() == [7, 8]
    assert d["unset"][:].mask.all() and d["level"][:].mask.all()
for path, engine in [(nc, "netcdf4"), (z3, "zarr"), (z2, "zarr")]:
    kw = {"consolidated": False} if engine == "zarr" else {}
    with xr.open_dataset(path, engine=engine, **kw) as ds:
        same(ds["temp"], [1.5, nan, 3])
        same(ds["count"], [nan, 7, 8])
        same(ds["unset"], [nan] * 4)
for path in (z3, z2):
    g = zarr.open_group(path, mode="r")
    assert g["count"][:].tolist() == [-1, 7, 8] and g["count"].fill_value == -1
    assert g["unset"].fill_value == -2147483647 and g["level"].fill_value == -999
    assert np.isnan(g["temp"].fill_value)
    assert "_FillValue" in g["temp"].attrs
    # A v2 fill_value is masked as it is; v3 says so in the attribute.
    assert ("_FillValue" in g["level"].attrs) == (path == z3)
print("ok")
"#,
        &[
            h5.to_str().unwrap(),
            nc.to_str().unwrap(),
            stores[0].to_str().unwrap(),
            stores[1].to_str().unwrap(),
        ],
    );
    assert_eq!(out.trim(), "ok");
    let back = File::from_yaml(&ok(describe(&nc, "ndl", &[]), "describe")).unwrap();
    let temp = back.group("/").unwrap().ndarrays.get("temp").unwrap();
    assert_eq!(temp.datatype, Some(ndl_runtime::Datatype::Float32));
    assert!(temp.attributes.get("_FillValue").is_some(), "{temp:?}");
}

/// `_FillValue` given as an attribute, in each form `ndl describe` prints
/// it (a list of one, a typed scalar, a bare number): the fill of the
/// array, of its type, so that unwritten elements read as missing.
const FILL_ATTRIBUTES: &str = "\
ndarrays:
  a:
    shape: [4]
    type: int32
    attributes:
      _FillValue: {shape: [1], type: int32, value: [-1]}
  b:
    shape: [4]
    type: float32
    value: [1, -999, 3, 4]
    attributes:
      _FillValue: {shape: [], type: float32, value: -999}
  c:
    shape: [3]
    type: int16
    attributes:
      _FillValue: 7
  d:
    shape: [2]
    type: int8
    storage: {fillvalue: 3}
    attributes:
      _FillValue: 3
";

/// argv: .nc, .h5, .zarr. netCDF4-python, xarray (netCDF-4 and Zarr) mask
/// the fill; h5py reads it as each dataset's fill and attribute, typed.
const CHECK_FILL_ATTRIBUTES: &str = r#"
import sys, warnings
warnings.simplefilter('ignore')
import numpy as np, netCDF4, h5py, xarray as xr
nc, h5, store = sys.argv[1:4]
f = netCDF4.Dataset(nc)
for name, dtype in [('a', 'i4'), ('b', 'f4'), ('c', 'i2')]:
    assert f[name].dtype == np.dtype(dtype) and f[name]._FillValue.dtype == np.dtype(dtype), name
assert f['a'][:].mask.all() and f['c'][:].mask.all()
assert f['b'][:].mask.tolist() == [False, True, False, False]
for ds in [xr.open_dataset(nc), xr.open_zarr(store, consolidated=False)]:
    assert np.isnan(ds['a'].values).all() and np.isnan(ds['c'].values).all(), ds
    assert np.isnan(ds['d'].values).all(), ds
    assert np.isnan(ds['b'].values).tolist() == [False, True, False, False], ds
with h5py.File(h5) as g:
    for name, fill in [('a', -1), ('b', -999), ('c', 7), ('d', 3)]:
        assert g[name].fillvalue == fill and g[name].attrs['_FillValue'].dtype == g[name].dtype, name
print('ok')
"#;

#[test]
fn a_fill_value_attribute_is_the_arrays_fill() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("fills.ndl.yaml");
    std::fs::write(&doc, FILL_ATTRIBUTES).unwrap();
    let made: Vec<PathBuf> = ["nc", "h5", "zarr"]
        .iter()
        .map(|ext| dir.path().join(format!("fills.{ext}")))
        .collect();
    for dest in &made {
        let run = create(&doc, dest);
        assert_eq!(run.code, Some(0), "{run:#?}");
    }
    let args: Vec<&str> = made.iter().map(|p| p.to_str().unwrap()).collect();
    let out = ndl_testkit::python::run_with(&python312(), CHECK_FILL_ATTRIBUTES, &args);
    assert_eq!(out.trim(), "ok");
}

/// Number variables of a `.nc` given no values read as netCDF-C's
/// default fill, as ncgen makes them, which netCDF4-python masks: they
/// read as HDF5's zeros.
#[test]
fn netcdf_variables_without_values_read_as_the_default_fill() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("empty.ndl.yaml");
    let text = "ndarrays:\n  a: {shape: [2], type: int16}\n  b: {shape: [3], type: float32}\n  c: {shape: [2], type: uint64}\n";
    std::fs::write(&doc, text).unwrap();
    let nc = dir.path().join("empty.nc");
    let run = create(&doc, &nc);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let check = r#"
import sys, warnings
warnings.simplefilter('ignore')
import netCDF4
f = netCDF4.Dataset(sys.argv[1])
for name in ['a', 'b', 'c']:
    assert f[name][:].mask.all(), (name, f[name][:])
    assert '_FillValue' not in f[name].ncattrs(), name
print('ok')
"#;
    let out = ndl_testkit::python::run_with(&python312(), check, &[nc.to_str().unwrap()]);
    assert_eq!(out.trim(), "ok");
    let cdl = ncdump(&[], &nc);
    assert!(cdl.contains(" a = _, _ ;"), "{cdl}");
}

/// An ndarray of two unnamed extents of one size names two dimensions,
/// as xarray needs (it refuses a variable naming one twice), in netCDF-4
/// and Zarr alike; another ndarray of that size shares the first.
#[test]
fn unnamed_extents_of_one_size_are_two_dimensions() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("square.ndl.yaml");
    let text = "ndarrays:\n  cov: {shape: [3, 3], type: float64}\n  v: {shape: [3], type: int8}\n";
    std::fs::write(&doc, text).unwrap();
    let (nc, store) = (dir.path().join("sq.nc"), dir.path().join("sq.zarr"));
    for dest in [&nc, &store] {
        let run = create(&doc, dest);
        assert_eq!(run.code, Some(0), "{run:#?}");
    }
    let check = r#"
import sys, warnings
warnings.simplefilter('ignore')
import xarray as xr
for ds in [xr.open_dataset(sys.argv[1]), xr.open_zarr(sys.argv[2], consolidated=False)]:
    assert ds['cov'].dims == ('dim_3', 'dim_3_2'), ds
    assert ds['v'].dims == ('dim_3',), ds
print('ok')
"#;
    let args = [nc.to_str().unwrap(), store.to_str().unwrap()];
    let out = ndl_testkit::python::run_with(&python312(), check, &args);
    assert_eq!(out.trim(), "ok");
}

/// argv: .h5, .zarr. h5py writes a dataset with shuffle and gzip, xarray
/// a Zarr v3 store with its default zstd.
const COMPRESSED: &str = r#"
import sys, warnings
warnings.simplefilter('ignore')
import numpy as np, h5py, xarray as xr
with h5py.File(sys.argv[1], 'w') as f:
    f.create_dataset('t', data=np.arange(6.0).reshape(2, 3), shuffle=True, compression='gzip', compression_opts=5)
xr.Dataset({'v': ('x', np.arange(4, dtype='i4'))}).to_zarr(sys.argv[2], zarr_format=3, consolidated=False)
"#;

/// What `ndl describe` prints of a compressed file makes it again: its
/// filters in the form describe gives them (`{name, configuration}`),
/// HDF5's deflate and shuffle, and a Zarr codec for a store. A Zarr codec
/// HDF5 has no filter for is refused naming it.
#[test]
fn described_filters_make_the_file_again() {
    let dir = tempfile::tempdir().unwrap();
    let (h5, store) = (dir.path().join("c.h5"), dir.path().join("c.zarr"));
    let args = [h5.to_str().unwrap(), store.to_str().unwrap()];
    ndl_testkit::python::run_with(&python312(), COMPRESSED, &args);
    for (from, ext) in [(&h5, "h5"), (&store, "zarr")] {
        let doc = dir.path().join(format!("{ext}.ndl.yaml"));
        let printed = ok(describe(from, "ndl", &[]), ext);
        std::fs::write(&doc, &printed).unwrap();
        let made = dir.path().join(format!("again.{ext}"));
        let run = create(&doc, &made);
        assert_eq!(run.code, Some(0), "{run:#?}");
        let again = ok(describe(&made, "ndl", &[]), ext);
        let filters = |text: &str| -> Vec<serde_yaml::Value> {
            let doc: serde_yaml::Value = serde_yaml::from_str(text).unwrap();
            let node = &doc["ndarrays"][if ext == "h5" { "t" } else { "v" }];
            node["storage"]["filter"]
                .as_sequence()
                .cloned()
                .unwrap_or_default()
        };
        assert_eq!(filters(&again), filters(&printed), "{printed}\n{again}");
        assert!(!filters(&printed).is_empty(), "{printed}");
    }
    let doc = dir.path().join("zarr.ndl.yaml");
    let nc = dir.path().join("again.nc");
    refused(
        &create(&doc, &nc),
        &doc,
        &["storage.filter[0]", "`zstd` is a Zarr codec"],
    );
}

/// Bool attributes in a `.nc` are `byte`s, 0 and 1, as netCDF4-python
/// stores NumPy's bools: netCDF-C skipped them as h5py's enum, so ncdump,
/// netCDF4-python and xarray did not see them.
#[test]
fn bool_attributes_are_bytes_in_netcdf() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("flags.ndl.yaml");
    let text = "/:\n  attributes:\n    flag: true\n    flags: {shape: [2], type: bool, value: [true, false]}\n  ndarrays:\n    x: {shape: [1], type: int8, value: [1], attributes: {ok: false}}\n";
    std::fs::write(&doc, text).unwrap();
    let nc = dir.path().join("flags.nc");
    let run = create(&doc, &nc);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let cdl = ncdump(&["-h"], &nc);
    for line in [":flag = 1b ;", ":flags = 1b, 0b ;", "x:ok = 0b ;"] {
        assert!(cdl.contains(line), "{line} in {cdl}");
    }
}

/// A dataset's fill as h5py sets it (`fillvalue`) is described as
/// `storage.fillvalue`, which makes it again: it was left out, and the
/// dataset made again had zeros.
#[test]
fn an_hdf5_fill_is_described_and_made_again() {
    let dir = tempfile::tempdir().unwrap();
    let h5 = dir.path().join("fills.h5");
    let make = r#"
import sys
import numpy as np, h5py
with h5py.File(sys.argv[1], 'w') as f:
    f.create_dataset('a', shape=(3,), dtype='f4', fillvalue=-1)
    f.create_dataset('b', shape=(3,), dtype='i2', fillvalue=7)
    f.create_dataset('c', shape=(3,), dtype='f8', fillvalue=np.nan)
    f.create_dataset('d', shape=(3,), dtype='f8')
"#;
    ndl_testkit::python::run_with(&python312(), make, &[h5.to_str().unwrap()]);
    let printed = ok(describe(&h5, "ndl", &[]), "fills");
    let doc = dir.path().join("fills.ndl.yaml");
    std::fs::write(&doc, &printed).unwrap();
    let again = dir.path().join("again.h5");
    let run = create(&doc, &again);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let check = r#"
import sys, math
import h5py
with h5py.File(sys.argv[1]) as f, h5py.File(sys.argv[2]) as g:
    for name in 'abd':
        assert f[name].fillvalue == g[name].fillvalue, (name, f[name].fillvalue, g[name].fillvalue)
    assert math.isnan(g['c'].fillvalue) and list(g['a'][:]) == [-1, -1, -1]
print('ok')
"#;
    let args = [h5.to_str().unwrap(), again.to_str().unwrap()];
    let out = ndl_testkit::python::run_with(&python312(), check, &args);
    assert_eq!(out.trim(), "ok", "{printed}");
}

/// argv: .nc. netCDF4-python writes a root coordinate, root dimensions
/// that no variable holds (`nv`, `string3`), `char` variables, and a group
/// of variables over them and a dimension of its own without a variable
/// (`n`), and a group whose own `lat` hides the root's.
const DIMENSIONS_ALONE: &str = r#"
import sys
import numpy as np, netCDF4
f = netCDF4.Dataset(sys.argv[1], 'w')
f.createDimension('lat', 3)
f.createDimension('nv', 2)
f.createVariable('lat', 'f4', ('lat',))[:] = [1, 2, 3]
f.createDimension('string3', 3)
f.createVariable('code', 'S1', ('lat', 'string3'))
f.createVariable('initial', 'S1', ('lat',))
g = f.createGroup('obs')
g.createDimension('n', 2)
g.createVariable('p', 'f8', ('n', 'lat'))
g.createVariable('bnds', 'i4', ('n', 'nv'))
h = f.createGroup('inner')
h.createDimension('lat', 5)
h.createVariable('q', 'f4', ('lat',))
f.close()
"#;

/// What `ndl describe` prints of a netCDF-4 file makes it again, header
/// for header: a dimension that no variable holds is a dimension alone
/// (it became a variable of indices), declared in the group that declares
/// it (it moved to the group of the first variable naming it); `char`
/// variables are `char` over their dimensions (one more was added).
#[test]
fn described_dimensions_without_variables_make_the_file_again() {
    let dir = tempfile::tempdir().unwrap();
    let nc = dir.path().join("dims.nc");
    ndl_testkit::python::run_with(&python312(), DIMENSIONS_ALONE, &[nc.to_str().unwrap()]);
    let printed = ok(describe(&nc, "ndl", &[]), "dims");
    let doc = dir.path().join("dims.ndl.yaml");
    std::fs::write(&doc, &printed).unwrap();
    let again = dir.path().join("again.nc");
    let run = create(&doc, &again);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let header = |path: &Path| -> Vec<String> {
        let mut lines: Vec<String> = ncdump(&["-h"], path)
            .lines()
            .skip(1)
            .map(String::from)
            .collect();
        lines.sort();
        lines
    };
    assert_eq!(header(&again), header(&nc), "{printed}");
}

/// Names netCDF-C refuses are refused for a `.nc`, naming where (ncdump
/// stopped at a variable named ` lead`); HDF5 and Zarr take them.
#[test]
fn names_netcdf_refuses_are_refused_for_netcdf_alone() {
    let dir = tempfile::tempdir().unwrap();
    for (text, words) in [
        (
            "ndarrays:\n  \" lead\": {shape: [1], type: int8}\n",
            ["ndarray ` lead`", "begin with a letter"],
        ),
        (
            "ndarrays:\n  \"trail \": {shape: [1], type: int8}\n",
            ["ndarray `trail `", "end in no space"],
        ),
        (
            "attributes:\n  \"a\\tb\": 1\n",
            ["attribute `a\tb`", "no control character"],
        ),
        (
            "/-g:\n  attributes: {x: 1}\n",
            ["/-g", "`-g` is no netCDF name"],
        ),
    ] {
        let doc = dir.path().join("names.ndl.yaml");
        std::fs::write(&doc, text).unwrap();
        let nc = dir.path().join("names.nc");
        refused(&create(&doc, &nc), &doc, &words);
        assert!(!nc.exists());
        let h5 = dir.path().join("names.h5");
        let run = create(&doc, &h5);
        assert_eq!(run.code, Some(0), "{run:#?}");
        std::fs::remove_file(&h5).unwrap();
    }
}

/// A number's `storage.fillvalue` is masked by xarray in a Zarr store of
/// either version, as in a `.nc`: v3 states it as `_FillValue` too (xarray
/// reads a v3 `fill_value` as a value).
#[test]
fn a_storage_fill_is_masked_in_zarr_of_either_version() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("level.ndl.yaml");
    let text = "ndarrays:\n  level: {shape: [3], type: int16, storage: {fillvalue: -999}, value: [1, -999, 3]}\n";
    std::fs::write(&doc, text).unwrap();
    let mut made = Vec::new();
    for format in ["3", "2"] {
        let store = dir.path().join(format!("level{format}.zarr"));
        let run = create_zarr(&doc, &store, format);
        assert_eq!(run.code, Some(0), "{run:#?}");
        made.push(store);
    }
    let nc = dir.path().join("level.nc");
    assert_eq!(create(&doc, &nc).code, Some(0));
    made.push(nc);
    let check = r#"
import sys, warnings
warnings.simplefilter('ignore')
import numpy as np, xarray as xr
for path in sys.argv[1:]:
    ds = xr.open_zarr(path, consolidated=False) if path.endswith('.zarr') else xr.open_dataset(path)
    assert np.isnan(ds['level'].values).tolist() == [False, True, False], (path, ds['level'].values)
print('ok')
"#;
    let args: Vec<&str> = made.iter().map(|p| p.to_str().unwrap()).collect();
    let out = ndl_testkit::python::run_with(&python312(), check, &args);
    assert_eq!(out.trim(), "ok");
}

/// Arrays along one unlimited dimcoord with values of different lengths
/// make a Zarr store xarray opens: each is as long as the longest, the
/// rest its fill, as netCDF's unlimited dimension is (xarray refused
/// "conflicting sizes").
#[test]
fn arrays_along_an_unlimited_dimcoord_share_its_length_in_zarr() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("unl.ndl.yaml");
    let text = "dimcoords:\n  t: {size: null, type: int32, value: [1, 2]}\nndarrays:\n  v: {shape: [t], type: float32, value: [1, 2, 3]}\n  w: {shape: [t], type: float32}\n  s: {shape: [t], type: string, value: [a]}\n";
    std::fs::write(&doc, text).unwrap();
    let mut stores = Vec::new();
    for format in ["3", "2"] {
        let store = dir.path().join(format!("unl{format}.zarr"));
        let run = create_zarr(&doc, &store, format);
        assert_eq!(run.code, Some(0), "{run:#?}");
        stores.push(store);
    }
    let check = r#"
import sys, warnings
warnings.simplefilter('ignore')
import xarray as xr
for path in sys.argv[1:]:
    ds = xr.open_zarr(path, consolidated=False).load()
    assert ds.sizes['t'] == 3, ds
    assert ds['v'].values.tolist() == [1, 2, 3] and ds['t'].values.tolist()[:2] == [1, 2], ds
    assert ds['s'].values.tolist() == ['a', '', ''], ds
print('ok')
"#;
    let args: Vec<&str> = stores.iter().map(|p| p.to_str().unwrap()).collect();
    let out = ndl_testkit::python::run_with(&python312(), check, &args);
    assert_eq!(out.trim(), "ok");
    // Along a later dimension the values cannot be padded in place.
    let doc = dir.path().join("later.ndl.yaml");
    let text = "dimcoords:\n  t: {size: null, type: int32, value: [1, 2]}\nndarrays:\n  m: {shape: [2, t], type: int8, value: [[1], [2]]}\n";
    std::fs::write(&doc, text).unwrap();
    let store = dir.path().join("later.zarr");
    refused(
        &create(&doc, &store),
        &doc,
        &[
            "ndarray `m`: value",
            "give every array along it as many values",
        ],
    );
    assert!(!store.exists());
}

/// What describe prints of a netCDF file (every attribute a list there,
/// a scalar's `shape: [1]`) makes a Zarr store whose attributes xarray
/// reads as the netCDF file's: scalars, as `convert` writes them. They
/// were lists of one (`units: ['K']`).
#[test]
fn described_netcdf_attributes_are_scalars_in_zarr() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let nc = d.join("x.nc");
    ndl_testkit::python::run_with(
        &python312(),
        "import sys, numpy as np, xarray as xr\n\
         t = xr.DataArray(np.arange(3, dtype='f4'), dims='x', attrs={'units': 'K', 'scale': 0.5})\n\
         xr.Dataset({'t': t}, attrs={'title': 'tëst'}).to_netcdf(sys.argv[1])\n",
        &[nc.to_str().unwrap()],
    );
    let doc = d.join("x.ndl.yaml");
    std::fs::write(&doc, ok(describe(&nc, "ndl", &[]), "x.nc")).unwrap();
    let zarr = d.join("x.zarr");
    let run = create(&doc, &zarr);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let shown = ndl_testkit::python::run_with(
        &python312(),
        "import sys, xarray as xr\n\
         for p in sys.argv[1:]:\n\
         \x20   ds = xr.open_zarr(p, consolidated=False) if p.endswith('.zarr') else xr.open_dataset(p)\n\
         \x20   print(repr(ds.attrs['title']), repr(ds['t'].attrs['units']), float(ds['t'].attrs['scale']))\n",
        &[nc.to_str().unwrap(), zarr.to_str().unwrap()],
    );
    assert_eq!(shown, "'tëst' 'K' 0.5\n".repeat(2), "{shown}");
}

/// An attribute of a record type is made in `.h5`, and refused for a
/// `.nc`, naming it, with nothing left: netCDF-C read the one made there
/// as nothing (ncdump listed no such attribute).
#[test]
fn a_record_attribute_is_refused_for_netcdf_and_made_in_hdf5() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("rec.ndl.yaml");
    std::fs::write(
        &doc,
        "attributes:\n  origin: {shape: [], type: {compound: [{lat: float64}, {lon: float64}]}, \
         value: {lat: 1.5, lon: -2.0}}\n",
    )
    .unwrap();
    let nc = dir.path().join("rec.nc");
    refused(&create(&doc, &nc), &nc, &["@origin", "atomic types"]);
    assert!(!nc.exists());
    let h5 = dir.path().join("rec.h5");
    let run = create(&doc, &h5);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let origin = ndl_testkit::python::run_with(
        &python312(),
        "import sys, h5py\nprint(h5py.File(sys.argv[1]).attrs['origin'].tolist())",
        &[h5.to_str().unwrap()],
    );
    assert_eq!(origin, "(1.5, -2.0)\n", "{origin}");
}

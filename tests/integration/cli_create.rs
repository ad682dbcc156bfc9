//! `ndl create DOC DEST`: the NDL spec's examples (tests/data/ndl, with
//! the types the spec leaves out filled in) made into HDF5 and netCDF-4
//! files that h5py, netCDF4-python and ncdump read as the documents say;
//! `ndl describe` giving a document back; bad documents refused with one
//! line naming the document and where in it, and nothing created. The
//! same examples as Zarr v3 and v2 stores that zarr-python reads.

use crate::common;

use std::path::{Path, PathBuf};

use common::cli::{describe, ndl, ok, refused, Run};
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

/// Makes every example as `<stem>.<ext>` in `dir`, each silently.
fn create_examples(dir: &Path, ext: &str) {
    for name in EXAMPLES {
        let dest = dir.join(format!("{name}.{ext}"));
        let run = create(&data(name), &dest);
        assert_eq!(run.code, Some(0), "{name}.{ext}: {run:#?}");
        assert!(run.stdout.is_empty() && run.stderr.is_empty(), "{run:#?}");
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
        "float matrix(dim_2, dim_3, dim_3) ;",
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
const BAD: [(&str, &str, &[&str]); 8] = [
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
        "ndarrays:\n  a: {shape: [2], type: int8, storage: {fillvalue: -1}}\n",
        &["ndarray `a`: storage.fillvalue", "does not set fill values"],
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

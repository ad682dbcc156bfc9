//! `ndl convert` between .npy/.npz files and Zarr stores: NumPy's padded
//! records to v3 and v2 stores read by zarr-python 3.4 and 3.1, and back to
//! .npy and .npz files NumPy loads with the same values; .npz members,
//! `file://` URLs, new parent directories, any two formats in a row, and
//! no progress bar when stderr is not a terminal.

use crate::common;

use common::cli::{convert, converted, describe, ok, refused};
use common::names;
use common::records::Files;
use common::stores::{chunk_files, json, no_partial};
use common::zarr_python::{check_store_312, check_stores_311, check_stores_312, py};

use std::path::{Path, PathBuf};

/// argv: converted file (.npy or .npz), original npy, npz member name.
/// numpy loads it; the dtype is the original's (layout and byte order
/// kept: the store's `ndl_datatype` gives the layout back); the values are
/// the original's.
const CHECK_BACK: &str = r#"
back, npy, member = sys.argv[1:4]
orig = np.load(npy)
if back.endswith('.npz'):
    with np.load(back) as z:
        assert z.files == [member], z.files
        got = z[member]
else:
    got = np.load(back)
assert got.shape == orig.shape, (got.shape, orig.shape)
assert got.dtype == orig.dtype, (got.dtype, orig.dtype)
same(got, orig)
print('ok')
"#;

/// numpy loads the converted `back` and finds the records of `npy`.
fn check_back(back: &Path, npy: &Path, member: &str) {
    let out = common::run_python(
        &py(CHECK_BACK),
        &[back.to_str().unwrap(), npy.to_str().unwrap(), member],
    );
    assert_eq!(out.trim(), "ok", "{}", back.display());
}

/// NumPy's padded, aligned records (nested, and big-endian) convert to a v3
/// store that zarr-python 3.4 reads as the same values with the packed
/// dtype; to v2 with blosc, read by 3.4, and by 3.1 for the flat dtype;
/// and back to .npy and .npz that NumPy loads with the original dtype and
/// values.
#[test]
fn npy_to_zarr_and_back_read_by_zarr_python_and_numpy() {
    let files = Files::new();
    let root = files.dir.path();
    // Each store and the .npy whose records zarr-python 3.4 (and 3.1) must
    // find in it, checked at the end in one interpreter each.
    let (mut by_312, mut by_311) = (Vec::new(), Vec::new());
    for name in ["nested", "nested_big", "flat", "flat_big"] {
        let npy = files.path(&format!("{name}.npy"));
        let v3 = root.join(format!("{name}.zarr"));
        converted(convert(&npy, &v3, &[]), &format!("{name} to v3"));
        assert_eq!(json(&v3.join("zarr.json"))["zarr_format"], 3);
        by_312.push((v3.clone(), npy.clone()));

        let v2 = root.join(format!("{name}_v2.zarr"));
        converted(
            convert(&npy, &v2, &["--zarr-format", "2", "--codec", "blosc"]),
            &format!("{name} to v2 blosc"),
        );
        let zarray = json(&v2.join(".zarray"));
        assert_eq!(zarray["zarr_format"], 2);
        assert_eq!(zarray["compressor"]["id"], "blosc", "{zarray}");
        by_312.push((v2.clone(), npy.clone()));
        if name.starts_with("flat") {
            // zarr-python 3.1 refuses nested v2 dtypes.
            by_311.push((v2.clone(), npy.clone()));
        }

        for (store, tag) in [(&v3, "v3"), (&v2, "v2")] {
            let stem = format!("{name}_{tag}");
            let back = root.join(format!("{stem}_back.npy"));
            converted(convert(store, &back, &[]), &format!("{stem} to .npy"));
            check_back(&back, &npy, "");
            let back = root.join(format!("{stem}_back.npz"));
            converted(convert(store, &back, &[]), &format!("{stem} to .npz"));
            // The member is named after the store.
            let member = store.file_stem().unwrap().to_str().unwrap();
            check_back(&back, &npy, member);
            // And that single-member archive converts back to a store.
            let again = root.join(format!("{stem}_again.zarr"));
            converted(
                convert(&back, &again, &[]),
                &format!("{stem} .npz to store"),
            );
            by_312.push((again, npy.clone()));
        }
    }
    check_stores_312(&by_312);
    check_stores_311(&by_311);
    no_partial(root);
}

#[test]
fn an_npz_of_two_members_needs_member_but_to_a_zarr_group() {
    let files = Files::new();
    let root = files.dir.path();
    let two = files.path("two.npz");
    let dst = root.join("two.zarr");
    let before = names(root);

    let one = root.join("one.npy");
    let run = convert(&two, &one, &[]);
    refused(&run, &two, &["readings", "grid", "--member", ".zarr"]);
    assert_eq!(names(root), before, "nothing written");

    // To a store, both members: a group of two arrays.
    converted(convert(&two, &dst, &[]), "whole");
    for member in ["readings", "grid"] {
        assert!(dst.join(member).join("zarr.json").is_file(), "{member}");
    }
    std::fs::remove_dir_all(&dst).unwrap();

    let run = convert(&two, &dst, &["--member", "nope"]);
    refused(&run, &two, &["nope", "readings", "grid"]);
    assert_eq!(names(root), before, "nothing written");

    // The 2-d member converts as a 2-d .npy does, and back.
    let grid = root.join("grid.zarr");
    converted(convert(&two, &grid, &["--member", "grid"]), "--member grid");
    let back = root.join("grid_back.npy");
    converted(convert(&grid, &back, &[]), "grid back");
    let shape = ndl_runtime::npy::read_header(&mut std::fs::File::open(&back).unwrap())
        .unwrap()
        .shape;
    assert_eq!(shape, [3, 4]);
    std::fs::remove_dir_all(&grid).unwrap();
    std::fs::remove_file(&back).unwrap();
    assert_eq!(names(root), before, "the grid's files removed");

    // The member chosen, from a compressed archive.
    converted(
        convert(&two, &dst, &["--member", "readings"]),
        "--member readings",
    );
    check_store_312(&dst, &files.path("nested.npy"));
    let v2 = root.join("two_v2.zarr");
    converted(
        convert(&two, &v2, &["--member", "readings", "--zarr-format", "2"]),
        "--member readings, v2",
    );
    check_store_312(&v2, &files.path("nested.npy"));

    // One member needs no --member (naming it is fine too).
    let one = files.path("one.npz");
    let store = root.join("one.zarr");
    converted(convert(&one, &store, &[]), "one.npz");
    check_store_312(&store, &files.path("nested.npy"));
    let store = root.join("one_named.zarr");
    converted(
        convert(&one, &store, &["--member", "readings"]),
        "one.npz --member",
    );
    check_store_312(&store, &files.path("nested.npy"));
    no_partial(root);
}

/// `file://` URLs name local paths, both ways and for `describe`; a
/// conversion leaves nothing beside its destination.
#[test]
fn file_urls_name_local_paths() {
    let files = Files::new();
    let root = files.dir.path();
    let npy = files.path("flat.npy");
    let store = root.join("u.zarr");
    let url = |p: &Path| PathBuf::from(format!("file://{}", p.display()));
    converted(
        convert(&url(&npy), &url(&store), &[]),
        "npy to a file:// store",
    );
    check_store_312(&store, &npy);
    ok(
        describe(&url(&store), "ndl", &[]),
        "describe a file:// store",
    );
    let back = root.join("u.npy");
    converted(
        convert(&url(&store), &url(&back), &[]),
        "file:// store to npy",
    );
    check_back(&back, &npy, "");
    no_partial(root);
}

/// A destination in directories that do not exist yet: they are made.
#[test]
fn missing_parent_directories_are_made() {
    let files = Files::new();
    let root = files.dir.path();
    let npy = files.path("flat.npy");
    let store = root.join("new/sub/f.zarr");
    converted(
        convert(&npy, &store, &[]),
        "npy to a store in new directories",
    );
    check_store_312(&store, &npy);
    assert_eq!(common::names(&root.join("new/sub")), ["f.zarr"]);
}

/// The record dimension (v3 `dimension_names`, v2 `_ARRAY_DIMENSIONS`,
/// which xarray reads) is named after the store, as `WriteOptions` documents,
/// not after the hidden directory it was built in.
#[test]
fn the_record_dimension_is_named_after_the_store() {
    let files = Files::new();
    let root = files.dir.path();
    let v3 = root.join("readings.zarr");
    converted(convert(&files.path("nested.npy"), &v3, &[]), "v3");
    let v2 = root.join("readings_v2.zarr");
    converted(
        convert(&files.path("nested.npy"), &v2, &["--zarr-format", "2"]),
        "v2",
    );
    let v3_names = json(&v3.join("zarr.json"))["dimension_names"].clone();
    let v2_names = json(&v2.join(".zattrs"))["_ARRAY_DIMENSIONS"].clone();
    assert_eq!(
        (v3_names, v2_names),
        (
            serde_json::json!(["readings"]),
            serde_json::json!(["readings_v2"])
        )
    );
}

/// An array larger than one batch (32 MiB) converts both ways with nothing
/// on stderr (not a terminal), and the records across the batch
/// boundaries are right.
#[test]
fn no_progress_bar_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("large.npy");
    let n = 1_500_000usize;
    common::run_python(
        &py(
            "dt = np.dtype([('a', 'u1'), ('b', '<f8'), ('c', '<u2'), ('ok', '?'), ('code', 'S4')], align=True)\n\
             n = int(sys.argv[2]); i = np.arange(n)\n\
             a = np.zeros(n, dt); a['a'] = i % 251; a['b'] = i * 0.5; a['c'] = i % 65536; a['ok'] = i % 3 == 0\n\
             a['code'] = np.char.mod(b'%d', i % 10000).astype('S4')\n\
             assert a.nbytes > 32 << 20\n\
             np.save(sys.argv[1], a)",
        ),
        &[npy.to_str().unwrap(), &n.to_string()],
    );
    let store = dir.path().join("large.zarr");
    // Chunks of 700 000 records: batches (about 1.4 M records each way)
    // end inside chunks, which are completed by the next batch.
    let run = convert(&npy, &store, &["--chunk-len", "700000"]);
    converted(run, "to a store");
    let chunks = chunk_files(&store);
    assert_eq!(chunks.len(), 3);
    let back = dir.path().join("large_back.npy");
    converted(convert(&store, &back, &[]), "to .npy");
    let back_npz = dir.path().join("large_back.npz");
    converted(convert(&store, &back_npz, &[]), "to .npz");
    check_back(&back, &npy, "");
    check_back(&back_npz, &npy, "large");
}

/// Any two formats convert, the same as pairs across them: file to file,
/// store to store, records to columns and back, v3 to v2; the values
/// survive every step, as NumPy reads them.
#[test]
fn any_two_formats_convert() {
    let files = Files::new();
    let root = files.dir.path();
    let npy = files.path("nested.npy");
    let steps = [
        (root.join("a.npz"), vec![]),
        (root.join("b.zarr"), vec![]),
        (
            root.join("c.zarr"),
            vec!["--layout", "columns", "--zarr-format", "2"],
        ),
        (root.join("d.zarr"), vec!["--zarr-format", "2"]),
        (root.join("e.npz"), vec![]),
        (root.join("f.npy"), vec![]),
    ];
    let mut src = npy.clone();
    for (dst, args) in &steps {
        converted(convert(&src, dst, args), &dst.display().to_string());
        src = dst.clone();
    }
    let same = common::run_python(
        "import sys, numpy as np\n\
         a, b = np.load(sys.argv[1]), np.load(sys.argv[2])\n\
         print(a.dtype.names == b.dtype.names and a.tolist() == b.tolist())",
        &[npy.to_str().unwrap(), src.to_str().unwrap()],
    );
    assert_eq!(same.trim(), "True", "values changed on the way");
}

/// A record with an array field: v3 is refused, naming the columns layout;
/// the v2 records store is written with a note saying zarr-python 3 cannot
/// read it, and zarr-python 3.4 refuses it (as the
/// README and the v3 refusal say), while the columns layout reads in
/// zarr-python 3.4 with the field's values.
#[test]
fn array_fields_go_to_the_columns_layout_as_zarr_python_3_reads_no_v2_subarray() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("a.npy");
    common::run_python(
        "import sys, numpy as np\n\
         a = np.zeros(3, [('id', '<u4'), ('v', '<f4', (4,))])\n\
         a['id'] = [1, 2, 3]; a['v'] = np.arange(12).reshape(3, 4)\n\
         np.save(sys.argv[1], a)",
        &[npy.to_str().unwrap()],
    );
    let v3 = dir.path().join("a3.zarr");
    refused(
        &convert(&npy, &v3, &[]),
        &v3,
        &["columns layout", "zarr-python 3 refuses"],
    );
    let v2 = dir.path().join("a2.zarr");
    let run = convert(&npy, &v2, &["--zarr-format", "2"]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(
        run.stderr.starts_with("ndl: note: ")
            && run.stderr.contains("zarr-python 3 cannot")
            && run.stderr.contains("--layout columns"),
        "{}",
        run.stderr
    );
    let columns = dir.path().join("ac.zarr");
    converted(convert(&npy, &columns, &["--layout", "columns"]), "columns");
    let out = common::run_with(
        &common::python312(),
        "import sys, zarr\n\
         try:\n    zarr.open_array(sys.argv[1], mode='r'); print('opened')\n\
         except Exception as e:\n    print('refused', type(e).__name__)\n\
         g = zarr.open_group(sys.argv[2], mode='r')\n\
         print(g['v'][:].tolist())",
        &[v2.to_str().unwrap(), columns.to_str().unwrap()],
    );
    assert!(out.starts_with("refused"), "{out}");
    assert!(
        out.contains("[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]"),
        "{out}"
    );
}

/// An xarray dataset (a grid, its coordinates, a string label) in v3 and
/// v2 stores, and zipped: a group of arrays of other shapes holds no
/// records, and the refusal lists them; `--member` converts one, as
/// xarray reads it, and a name the store lacks is refused listing them.
#[test]
fn a_member_of_a_zarr_group_converts_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let script = r#"
import sys, os, zipfile, numpy as np, xarray as xr
ds = xr.Dataset({"temp": (("time", "station"), np.arange(12, dtype="f4").reshape(4, 3)),
                 "label": (("station",), np.array(["alpha", "", "γ"], dtype=object))},
                coords={"station": [10, 20, 30]})
for fmt in (2, 3):
    path = os.path.join(sys.argv[1], f"x{fmt}.zarr")
    ds.to_zarr(path, zarr_format=fmt, consolidated=False)
with zipfile.ZipFile(os.path.join(sys.argv[1], "x3.zarr.zip"), "w") as z:
    root = os.path.join(sys.argv[1], "x3.zarr")
    for parent, _, files in os.walk(root):
        for f in files:
            z.write(os.path.join(parent, f), os.path.relpath(os.path.join(parent, f), root))
"#;
    ndl_testkit::python::run_with(&ndl_testkit::python::python312(), script, &[path(d)]);
    for store in ["x2.zarr", "x3.zarr", "x3.zarr.zip"] {
        let src = d.join(store);
        let whole = d.join(format!("{store}.npy"));
        let run = convert(&src, &whole, &[]);
        refused(&run, &src, &["label, station, temp", "--member"]);
        let (temp, label) = (
            d.join(format!("{store}.temp.npy")),
            d.join(format!("{store}.label.parquet")),
        );
        converted(convert(&src, &temp, &["--member", "temp"]), store);
        converted(convert(&src, &label, &["--member", "/label"]), store);
        // To netCDF-4 with xarray's dimension names; a coordinate array,
        // named as its dimension, on one of the file's own.
        let (temp_nc, station_nc) = (
            d.join(format!("{store}.temp.nc")),
            d.join(format!("{store}.station.nc")),
        );
        converted(convert(&src, &temp_nc, &["--member", "temp"]), store);
        converted(convert(&src, &station_nc, &["--member", "station"]), store);
        let missing = convert(&src, &d.join("m.npy"), &["--member", "nope"]);
        refused(&missing, &src, &["`nope`", "label, station, temp"]);
        ndl_testkit::python::run_with(
            &ndl_testkit::python::python312(),
            r#"
import sys, numpy as np, pyarrow.parquet as pq, xarray as xr
t = np.load(sys.argv[1])
assert t.dtype == np.dtype("<f4") and t.tolist() == np.arange(12, dtype="f4").reshape(4, 3).tolist(), t
assert pq.read_table(sys.argv[2]).column("value").to_pylist() == ["alpha", "", "γ"]
nc = xr.open_dataset(sys.argv[3])
assert nc["temp"].dims == ("time", "station") and nc["temp"].values.tolist() == t.tolist(), nc
assert xr.open_dataset(sys.argv[4])["station"].values.tolist() == [10, 20, 30]
"#,
            &[path(&temp), path(&label), path(&temp_nc), path(&station_nc)],
        );
    }
}

/// A copy of a Zarr store keeps each array's chunks and codec, as xarray
/// keeps them (a v2 store made v3, a sharded one unsharded keeps the chunks
/// inside the shards); `--chunks` and `--codec` replace them, `--chunks` on
/// the arrays of its rank only (a 1-dimensional coordinate beside a
/// 2-dimensional variable is chunked by default, where it was refused). To
/// HDF5, the chunks and gzip are kept, as nccopy keeps them. A store made
/// from another format takes our own chunks, as before.
#[test]
fn a_zarr_copy_keeps_each_arrays_chunks_and_codec() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let script = r#"
import sys, os, numpy as np, zarr
from zarr.codecs import BloscCodec, GzipCodec
g = zarr.open_group(os.path.join(sys.argv[1], "s3.zarr"), mode="w", zarr_format=3)
t = g.create_array("t", shape=(10, 7), chunks=(3, 4), dtype="f4",
                   compressors=[GzipCodec(level=5)], dimension_names=["x", "y"])
t[:] = np.arange(70, dtype="f4").reshape(10, 7)
v = g.create_array("v", shape=(100,), chunks=(17,), dtype="i8", dimension_names=["n"],
                   compressors=[BloscCodec(cname="zstd", clevel=4, shuffle="bitshuffle")])
v[:] = np.arange(100)
s = g.create_array("s", shape=(40,), shards=(20,), chunks=(5,), dtype="u2", dimension_names=["m"])
s[:] = np.arange(40)
g2 = zarr.open_group(os.path.join(sys.argv[1], "s2.zarr"), mode="w", zarr_format=2)
u = g2.create_array("t", shape=(10, 7), chunks=(3, 4), dtype="f4", compressors=None)
u.attrs["_ARRAY_DIMENSIONS"] = ["x", "y"]
u[:] = np.arange(70, dtype="f4").reshape(10, 7)
"#;
    ndl_testkit::python::run_with(&ndl_testkit::python::python312(), script, &[path(d)]);
    let (s3, s2) = (d.join("s3.zarr"), d.join("s2.zarr"));
    let copies = [
        ("c3.zarr", &s3, &[][..]),
        ("c2.zarr", &s3, &["--zarr-format", "2"][..]),
        ("c23.zarr", &s2, &[][..]),
        ("t.zarr", &s3, &["--member", "t"][..]),
        ("rechunked.zarr", &s3, &["--chunks", "5,5"][..]),
        ("recoded.zarr", &s3, &["--codec", "zstd:1"][..]),
        ("c.h5", &s3, &[][..]),
    ];
    for (name, src, args) in copies {
        converted(convert(src, &d.join(name), args), name);
    }
    let npy = d.join("t.npy");
    converted(convert(&s3, &npy, &["--member", "t"]), "t.npy");
    converted(convert(&npy, &d.join("fresh.zarr"), &[]), "fresh.zarr");
    ndl_testkit::python::run_with(
        &ndl_testkit::python::python312(),
        r#"
import sys, os, h5py, numpy as np, zarr, xarray as xr
from zarr.codecs import BloscCodec, GzipCodec, ZstdCodec
d = sys.argv[1]
def arrays(name):
    g = zarr.open_group(os.path.join(d, name), mode="r")
    return {k: (a.chunks, a.compressors) for k, a in g.arrays()}
def codec(c):
    return (type(c).__name__, getattr(c, "level", None), getattr(c, "cname", None),
            getattr(c, "clevel", None))
def codecs(cs):
    return [codec(c) for c in cs]
c3 = arrays("c3.zarr")
assert c3["t"][0] == (3, 4) and codecs(c3["t"][1]) == [("GzipCodec", 5, None, None)], c3
assert c3["v"][0] == (17,) and codecs(c3["v"][1])[0][2:] == ("zstd", 4), c3
assert str(getattr(c3["v"][1][0].shuffle, "value", c3["v"][1][0].shuffle)) == "bitshuffle", c3
assert c3["s"][0] == (5,), c3
c2 = arrays("c2.zarr")
assert c2["t"][0] == (3, 4) and c2["t"][1][0].codec_id == "gzip" and c2["t"][1][0].level == 5, c2
assert c2["v"][0] == (17,) and c2["v"][1][0].cname == "zstd" and c2["v"][1][0].clevel == 4, c2
assert arrays("c23.zarr")["t"] == ((3, 4), ()), arrays("c23.zarr")
t = zarr.open_array(os.path.join(d, "t.zarr"), mode="r")
assert t.chunks == (3, 4) and codecs(t.compressors) == [("GzipCodec", 5, None, None)], t
r = arrays("rechunked.zarr")
assert r["t"][0] == (5, 5) and r["v"][0] == (100,) and r["s"][0] == (40,), r
assert all(codecs(c) == [("ZstdCodec", 3, None, None)] for _, c in r.values()), r
r = arrays("recoded.zarr")
assert all(codecs(c) == [("ZstdCodec", 1, None, None)] for _, c in r.values()), r
with h5py.File(os.path.join(d, "c.h5")) as f:
    assert f["t"].chunks == (3, 4) and f["t"].compression == "gzip", f["t"]
    assert f["t"].compression_opts == 5 and f["v"].chunks == (17,), f["v"]
fresh = zarr.open_array(os.path.join(d, "fresh.zarr"), mode="r")
assert fresh.chunks == (10, 7) and codecs(fresh.compressors) == [("ZstdCodec", 3, None, None)]
src = xr.open_zarr(os.path.join(d, "s3.zarr"), consolidated=False)
for name in ("c3.zarr", "c2.zarr", "rechunked.zarr", "recoded.zarr"):
    xr.testing.assert_equal(src, xr.open_zarr(os.path.join(d, name), consolidated=False))
"#,
        &[path(d)],
    );
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Integer attributes past `int64` (netCDF's `uint64`, zarr-python's
/// Python ints) stay exact from Zarr to netCDF-4: a list of them was
/// written as `double`, 2^63 + 1 read back as 2^63.
#[test]
fn integer_attributes_past_int64_stay_exact_from_zarr() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (src, store, back) = (d.join("src.nc"), d.join("mid.zarr"), d.join("back.nc"));
    let theirs = d.join("theirs.zarr");
    ndl_testkit::python::run_with(
        &ndl_testkit::python::python312(),
        "import sys, netCDF4, numpy as np, zarr\n\
         with netCDF4.Dataset(sys.argv[1], 'w') as f:\n\
         \x20   f.createDimension('n', 1)\n\
         \x20   v = f.createVariable('v', 'i4', ('n',))\n\
         \x20   v[:] = [1]\n\
         \x20   f.setncattr('ids', np.array([2**63 + 1, 5], 'u8'))\n\
         \x20   v.setncattr('vids', np.array([0, 2**63 + 1], 'u8'))\n\
         g = zarr.open_group(sys.argv[2], mode='w')\n\
         a = g.create_array('x', shape=(2,), dtype='i4')\n\
         a[:] = [1, 2]\n\
         a.attrs['seeds'] = [5, 2**63 + 1]\n",
        &[src.to_str().unwrap(), theirs.to_str().unwrap()],
    );
    let theirs_nc = d.join("theirs.nc");
    for (from, to) in [(&src, &store), (&store, &back), (&theirs, &theirs_nc)] {
        let run = convert(from, to, &[]);
        assert_eq!(run.code, Some(0), "{run:#?}");
    }
    let got = ndl_testkit::python::run_with(
        &ndl_testkit::python::python312(),
        "import sys, netCDF4\n\
         with netCDF4.Dataset(sys.argv[1]) as f:\n\
         \x20   print([int(x) for x in f.getncattr('ids')], [int(x) for x in f['v'].getncattr('vids')])\n\
         with netCDF4.Dataset(sys.argv[2]) as f:\n\
         \x20   print([int(x) for x in f['x'].getncattr('seeds')])\n",
        &[back.to_str().unwrap(), theirs_nc.to_str().unwrap()],
    );
    let (big, five) = ((1u64 << 63) + 1, 5);
    assert_eq!(
        got,
        format!("[{big}, {five}] [0, {big}]\n[{five}, {big}]\n"),
        "{got}"
    );
}

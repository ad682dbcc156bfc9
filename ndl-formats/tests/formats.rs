//! The interface across formats: sources and sinks of every format, any
//! two converting, and the contents every language renders.

use ndl_formats::{ConvertOptions, Error, Language, ReadOptions, Source, convert, describe, open};
use ndl_runtime::ndl::{self, Extent};
use ndl_runtime::npz::NpzWriter;
use ndl_runtime::{ArraySpec, ByteOrder, NdlType, Order};

#[path = "formats/netcdf3.rs"]
mod netcdf3;

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Reading {
    station: u32,
    time: f64,
    ok: bool,
}

fn readings(n: u32) -> Vec<Reading> {
    (0..n)
        .map(|i| Reading {
            station: i,
            time: f64::from(i) / 4.0,
            ok: i % 3 == 0,
        })
        .collect()
}

fn read_all(source: &mut dyn Source) -> Vec<u8> {
    let mut all = Vec::new();
    let mut buf = vec![0; source.spec().element_size() * 7];
    loop {
        let n = source.read(&mut buf).unwrap();
        if n == 0 {
            return all;
        }
        all.extend_from_slice(&buf[..n * source.spec().element_size()]);
    }
}

#[test]
fn a_npy_source_gives_its_spec_and_every_element() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.npy");
    let data = readings(50);
    ndl_runtime::npy::write_file(&path, &data).unwrap();
    let mut source = open(&path, &ReadOptions::default()).unwrap();
    let expected = ArraySpec {
        datatype: Reading::datatype(),
        byte_order: ByteOrder::NATIVE,
        other_order: Vec::new(),
        order: Order::C,
        shape: vec![50],
    };
    assert_eq!(source.spec(), &expected);
    assert_eq!(source.location(), path);
    let bytes = read_all(source.as_mut());
    assert_eq!(bytes.len(), 50 * size_of::<Reading>());
    let station = |i: usize| u32::from_ne_bytes(bytes[i * 24..i * 24 + 4].try_into().unwrap());
    assert_eq!((station(0), station(49)), (0, 49));
}

#[test]
fn a_compressed_npz_member_streams_and_a_dropped_source_stops() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.npz");
    let mut archive = NpzWriter::create_compressed(&path).unwrap();
    archive.add("a", &readings(200_000)).unwrap();
    archive.add("b", &[1u8, 2, 3]).unwrap();
    archive.finish().unwrap();

    let two = open(&path, &ReadOptions::default()).err().unwrap();
    let Error::SeveralArrays { names, .. } = &two else {
        panic!("{two}")
    };
    assert_eq!(names, &["a", "b"]);
    assert!(two.to_string().contains("--member"), "{two}");

    let member = |name: &str| ReadOptions::new().member(name);
    let mut a = open(&path, &member("a")).unwrap();
    assert_eq!(a.location(), path.join("a"));
    let bytes = read_all(a.as_mut());
    assert_eq!(bytes.len(), 200_000 * size_of::<Reading>());
    // Dropped after one batch: the reading thread ends instead of hanging.
    let mut early = open(&path, &member("a")).unwrap();
    let mut buf = vec![0; 24];
    assert_eq!(early.read(&mut buf).unwrap(), 1);
    drop(early);

    let missing = open(&path, &member("c")).err().unwrap();
    assert!(missing.to_string().contains('c'), "{missing}");
}

#[test]
fn any_two_formats_convert_and_keep_every_value() {
    let dir = tempfile::tempdir().unwrap();
    let data = readings(1000);
    let start = dir.path().join("r.npy");
    ndl_runtime::npy::write_file(&start, &data).unwrap();
    let mut src = start.clone();
    for name in [
        "a.npz",
        "b.zarr",
        "c.parquet",
        "d.arrow",
        "e.zarr",
        "f.npz",
        "g.parquet",
        "h.npy",
    ] {
        let dst = dir.path().join(name);
        let n = convert(&src, &dst, &ConvertOptions::default(), &|_| {}).unwrap();
        assert_eq!(n, 1000, "{name}");
        src = dst;
    }
    // Zarr packs the records (no padding), so they come back packed.
    let back = describe(&src, Language::Numpy, &Default::default()).unwrap();
    assert!(back.text.contains("'shape': (1000,)"), "{}", back.text);
    let zarr = dir.path().join("b.zarr");
    assert_eq!(ndl_zarr::read::<Reading>(&zarr).unwrap(), data);
}

#[test]
fn a_conversion_refused_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let grid = dir.path().join("g.npy");
    ndl_runtime::npy::WriteOptions::new()
        .shape(&[2, 3])
        .write_file(&grid, &[0u8; 6])
        .unwrap();
    let dst = dir.path().join("g.zarr");
    // A 2-d array has no columns.
    let columns = to_zarr(ndl_zarr::WriteOptions::new().layout(ndl_zarr::Layout::Columns));
    let e = convert(&grid, &dst, &columns, &|_| {}).unwrap_err();
    assert!(matches!(e, Error::Unsupported { .. }), "{e}");
    assert!(e.to_string().contains("[2, 3]"), "{e}");
    assert!(!dst.exists());
    assert!(
        names_in(dir.path()).len() == 1,
        "nothing left: {:?}",
        names_in(dir.path())
    );
    let exists = convert(&grid, &grid, &ConvertOptions::default(), &|_| {}).unwrap_err();
    assert!(matches!(exists, Error::Exists { .. }), "{exists}");
}

fn names_in(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// Arrays of any rank convert through Zarr in the order they keep: a
/// Fortran-order 3-d array comes back byte for byte, chunked as asked.
#[test]
fn an_nd_array_in_fortran_order_goes_through_zarr_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("f.npy");
    let values: Vec<u16> = (0..60).collect();
    ndl_runtime::npy::WriteOptions::new()
        .shape(&[3, 4, 5])
        .order(Order::Fortran)
        .write_file(&src, &values)
        .unwrap();
    let zarr = dir.path().join("f.zarr");
    let options = to_zarr(ndl_zarr::WriteOptions::new().chunks(&[2, 3, 2]));
    assert_eq!(convert(&src, &zarr, &options, &|_| {}).unwrap(), 60);
    let info = ndl_zarr::ArrayInfo::open(&zarr).unwrap();
    assert_eq!(info.chunks(), [2, 3, 2]);
    assert_eq!(info.order(), ndl_runtime::Order::Fortran);
    let back = dir.path().join("back.npy");
    convert(&zarr, &back, &ConvertOptions::default(), &|_| {}).unwrap();
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&src).unwrap());
    let text = describe(&zarr, Language::Numpy, &Default::default())
        .unwrap()
        .text;
    assert!(
        text.contains("'fortran_order': True, 'shape': (3, 4, 5)"),
        "{text}"
    );
}

/// A columns store names its dimension: the NDL document has a dimcoord
/// for it, and every column's shape refers to it by name.
#[test]
fn a_columns_store_describes_its_dimensions_as_dimcoords() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cols.zarr");
    ndl_zarr::WriteOptions::new()
        .layout(ndl_zarr::Layout::Columns)
        .write(&path, &readings(5))
        .unwrap();
    let text = describe(&path, Language::Ndl, &Default::default())
        .unwrap()
        .text;
    let doc = ndl::File::from_yaml(&text).unwrap();
    let root = doc.group("/").unwrap();
    let dim = root.dimcoords.get("cols").expect("the record dimension");
    assert_eq!(dim.size, Some(5), "{text}");
    for (name, nd) in root.ndarrays.iter() {
        assert_eq!(nd.shape.0, [Extent::Dim("cols".into())], "{name}: {text}");
    }
    assert_eq!(root.ndarrays.names().count(), 3, "{text}");
}

/// Converting into a Zarr store written with `zarr`, keeping the byte order.
fn to_zarr(zarr: ndl_zarr::WriteOptions) -> ConvertOptions {
    let zarr = ndl_formats::ZarrSinkOptions::new()
        .zarr(zarr)
        .keep_byte_order(true);
    ConvertOptions::new().write(ndl_formats::SinkOptions::new().zarr(zarr))
}

/// NumPy records whose fields have different byte orders: described with
/// NumPy's own descr, and converted to every format with every value kept.
/// `.npy`, `.npz`, a Zarr v2 records store and an HDF5 file keep each
/// field's order (zarr-python and h5py read them as exactly the file's
/// dtype); Zarr v3, the columns layout, netCDF-4, Parquet and Arrow get one
/// order. And zarr-python's own mixed v2 store reads back as its dtype.
#[test]
fn records_of_mixed_byte_orders_describe_and_convert() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("mixed.npy");
    let dtype = "[('a', '<u8'), ('b', '>f8'), ('c', '>i2')]";
    ndl_testkit::run_python(
        &format!(
            "import sys, numpy as np\n\
             a = np.zeros(4, {dtype})\n\
             a['a'] = [1, 2, 3, 2**40]; a['b'] = [0.5, -1.5, 1e300, 3.0]; a['c'] = [-7, 0, 300, 1]\n\
             np.save(sys.argv[1], a)"
        ),
        &[npy.to_str().unwrap()],
    );
    let dict = describe(&npy, Language::Numpy, &Default::default())
        .unwrap()
        .text;
    assert!(dict.contains(dtype), "{dict}");
    let v2 = ndl_zarr::WriteOptions::new().zarr_format(ndl_zarr::ZarrFormat::V2);
    let columns = ndl_zarr::WriteOptions::new().layout(ndl_zarr::Layout::Columns);
    let one_order = "[('a', '<u8'), ('b', '<f8'), ('c', '<i2')]";
    for (name, options, kept) in [
        ("copy.npy", ConvertOptions::default(), dtype),
        ("copy.npz", ConvertOptions::default(), dtype),
        ("v2.zarr", to_zarr(v2), dtype),
        ("v3.zarr", ConvertOptions::default(), one_order),
        ("columns.zarr", to_zarr(columns), one_order),
        ("copy.h5", ConvertOptions::default(), dtype),
        ("copy.nc", ConvertOptions::default(), one_order),
        ("copy.parquet", ConvertOptions::default(), one_order),
        ("copy.arrow", ConvertOptions::default(), one_order),
    ] {
        let converted = dir.path().join(name);
        let back = dir.path().join(format!("{name}.npy"));
        convert(&npy, &converted, &options, &|_| {}).unwrap();
        convert(&converted, &back, &ConvertOptions::default(), &|_| {}).unwrap();
        let same = ndl_testkit::run_python(
            "import sys, numpy as np\n\
             a, b = np.load(sys.argv[1]), np.load(sys.argv[2])\n\
             print(a.tolist() == b.tolist(), b.dtype.descr)",
            &[npy.to_str().unwrap(), back.to_str().unwrap()],
        );
        assert_eq!(same.trim(), format!("True {kept}"), "{name}");
    }
    let h5py = ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, numpy as np, h5py\n\
         a = np.load(sys.argv[1])\n\
         d = h5py.File(sys.argv[2])['mixed']\n\
         print(d.dtype.descr == a.dtype.descr and d[:].tolist() == a.tolist())",
        &[
            npy.to_str().unwrap(),
            dir.path().join("copy.h5").to_str().unwrap(),
        ],
    );
    assert_eq!(h5py.trim(), "True");
    // zarr-python reads our v2 store as the file's dtype, and we read its.
    let ours = dir.path().join("v2.zarr");
    let theirs = dir.path().join("python.zarr");
    let python = ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, numpy as np, zarr\n\
         a = np.load(sys.argv[1])\n\
         z = zarr.open_array(sys.argv[2], mode='r')\n\
         print(z.dtype.descr == a.dtype.descr and z[:].tolist() == a.tolist())\n\
         zarr.create_array(store=sys.argv[3], shape=a.shape, chunks=(3,), dtype=a.dtype, zarr_format=2)[:] = a",
        &[
            npy.to_str().unwrap(),
            ours.to_str().unwrap(),
            theirs.to_str().unwrap(),
        ],
    );
    assert_eq!(python.trim(), "True");
    let dict = describe(&theirs, Language::Numpy, &Default::default())
        .unwrap()
        .text;
    assert!(dict.contains(dtype), "{dict}");
    let back = dir.path().join("python.npy");
    convert(&theirs, &back, &ConvertOptions::default(), &|_| {}).unwrap();
    let same = ndl_testkit::run_python(
        "import sys, numpy as np\n\
         a, b = np.load(sys.argv[1]), np.load(sys.argv[2])\n\
         print(a.tolist() == b.tolist(), a.dtype == b.dtype)",
        &[npy.to_str().unwrap(), back.to_str().unwrap()],
    );
    assert_eq!(same.trim(), "True True");
}

/// NumPy's subarray of a subarray (`('c', ('<f8', (5,)), (2,))`): Zarr has
/// no array of arrays, so a store holds it as its folded form, `(2, 5)`,
/// with the same bytes, in both layouts; the values come back equal.
#[test]
fn a_subarray_of_a_subarray_converts_folded() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("sub.npy");
    ndl_testkit::run_python(
        "import sys, numpy as np\n\
         a = np.zeros(3, [('a', '<i4'), ('c', ('<f8', (5,)), (2,))])\n\
         a['c'] = np.arange(30).reshape(3, 2, 5); a['a'] = [4, 5, 6]\n\
         np.save(sys.argv[1], a)",
        &[npy.to_str().unwrap()],
    );
    let zarr = describe(&npy, Language::Zarr, &Default::default())
        .unwrap()
        .text;
    assert!(zarr.contains("[\n        2,\n        5\n      ]"), "{zarr}");
    let v2 = ndl_zarr::WriteOptions::new().zarr_format(ndl_zarr::ZarrFormat::V2);
    let columns = ndl_zarr::WriteOptions::new().layout(ndl_zarr::Layout::Columns);
    for (name, zarr) in [("v2.zarr", v2), ("columns.zarr", columns)] {
        let store = dir.path().join(name);
        let back = dir.path().join(format!("{name}.npy"));
        convert(&npy, &store, &to_zarr(zarr), &|_| {}).unwrap();
        convert(&store, &back, &ConvertOptions::default(), &|_| {}).unwrap();
        let same = ndl_testkit::run_python(
            "import sys, numpy as np\n\
             a, b = np.load(sys.argv[1]), np.load(sys.argv[2])\n\
             print(b.dtype['c'].shape, all((a[n] == b[n]).all() for n in a.dtype.names))",
            &[npy.to_str().unwrap(), back.to_str().unwrap()],
        );
        assert_eq!(same.trim(), "(2, 5) True", "{name}");
    }
}

/// Parquet and Arrow IPC both ways with their makers: a table pyarrow
/// wrote converts to a `.npy` NumPy reads with the same values, and a
/// `.npy` converted to each is read by pyarrow with the same values; a
/// uniform-order `.npy` comes back byte for byte.
#[test]
fn parquet_and_arrow_files_convert_with_pyarrow_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let theirs = dir.path().join("theirs.parquet");
    ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, pyarrow as pa, pyarrow.parquet as pq\n\
         t = pa.table({'id': pa.array([1, 2, 3], pa.uint32()), 'x': pa.array([0.5, 1.5, -2.0])})\n\
         pq.write_table(t, sys.argv[1])",
        &[theirs.to_str().unwrap()],
    );
    let npy = dir.path().join("theirs.npy");
    convert(&theirs, &npy, &ConvertOptions::default(), &|_| {}).unwrap();
    let seen = ndl_testkit::run_python(
        "import sys, numpy as np\n\
         a = np.load(sys.argv[1]); print(a.dtype.names, a['id'].tolist(), a['x'].tolist())",
        &[npy.to_str().unwrap()],
    );
    assert_eq!(seen.trim(), "('id', 'x') [1, 2, 3] [0.5, 1.5, -2.0]");

    let ours = dir.path().join("ours.npy");
    ndl_runtime::npy::write_file(&ours, &readings(10)).unwrap();
    for name in ["ours.parquet", "ours.arrow"] {
        let table = dir.path().join(name);
        convert(&ours, &table, &ConvertOptions::default(), &|_| {}).unwrap();
        let seen = ndl_testkit::run_with(
            &ndl_testkit::python312(),
            "import sys, pyarrow.parquet as pq, pyarrow.feather as pf\n\
             p = sys.argv[1]\n\
             t = pq.read_table(p) if p.endswith('.parquet') else pf.read_table(p)\n\
             print(t.column('station').to_pylist()[-1], t.column('time').to_pylist()[-1], t.column('ok').to_pylist()[:4])",
            &[table.to_str().unwrap()],
        );
        assert_eq!(seen.trim(), "9 2.25 [True, False, False, True]", "{name}");
        let back = dir.path().join(format!("{name}.npy"));
        convert(&table, &back, &ConvertOptions::default(), &|_| {}).unwrap();
        assert_eq!(
            std::fs::read(&back).unwrap(),
            std::fs::read(&ours).unwrap(),
            "{name}"
        );
    }
}

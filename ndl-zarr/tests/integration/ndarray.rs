//! `ndarray` arrays of any rank in and out of Zarr stores, and the grid
//! writer and reader under them: every layout of view (C, Fortran,
//! strided, permuted) of ranks 0 to 4, records and numbers, written and
//! read back; zarr-python 3.4 reads what we write, and we read what it
//! writes chunked in every dimension, in Fortran order too.

use ndarray::{Array2, Array3, ArrayD, Ix2, IxDyn, arr0, s};
use ndl_runtime::Order;
use ndl_runtime::{Datatype, NdlType};
use ndl_zarr::{
    GridReader, GridWriter, ReadOptions, WriteOptions, ZarrFormat, read_ndarray, write_ndarray,
};

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Padded {
    a: u8,
    b: f64,
}

/// `0, 1, 2, …` in C order of `shape`.
fn arange(shape: &[usize]) -> ArrayD<f64> {
    let n = shape.iter().product::<usize>();
    ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(|i| i as f64).collect()).unwrap()
}

#[test]
fn every_layout_of_every_rank_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let mut k = 0;
    for shape in [
        &[][..],
        &[5],
        &[3, 4],
        &[2, 3, 5],
        &[2, 1, 3, 2],
        &[3, 0, 2],
    ] {
        let a = arange(shape);
        let records = a.mapv(|x| Padded {
            a: x as u8,
            b: x / 2.0,
        });
        let mut views = vec![("c", a.view()), ("f", a.t())];
        if shape.len() >= 2 {
            views.push(("permuted", {
                let mut v = a.view();
                v.swap_axes(0, 1);
                v
            }));
        }
        for (what, view) in views {
            for format in [ZarrFormat::V2, ZarrFormat::V3] {
                k += 1;
                let path = dir.path().join(format!("{k}.zarr"));
                let options = WriteOptions::new().zarr_format(format).chunks(
                    &view
                        .shape()
                        .iter()
                        .map(|&d| (d as u64).div_ceil(2).max(1))
                        .collect::<Vec<_>>(),
                );
                write_ndarray(&path, &view, &options).unwrap();
                let back: ArrayD<f64> = read_ndarray(&path, &ReadOptions::new()).unwrap();
                assert_eq!(back, view, "{shape:?} {what} {format:?}");
                // Fortran-contiguous views (a 2-d swap of axes is one) come
                // back in Fortran order, the rest in C order.
                let f_only = |v: &ndarray::ArrayViewD<f64>| {
                    v.t().is_standard_layout() && !v.is_standard_layout()
                };
                assert_eq!(
                    f_only(&back.view()),
                    f_only(&view),
                    "{shape:?} {what}: read back in the order written"
                );
                let path = dir.path().join(format!("{k}r.zarr"));
                let view = records.view();
                write_ndarray(&path, &view.t(), &WriteOptions::new().zarr_format(format)).unwrap();
                let back: ArrayD<Padded> = read_ndarray(&path, &ReadOptions::new()).unwrap();
                assert_eq!(back, view.t(), "records {shape:?} {format:?}");
            }
        }
    }
}

#[test]
fn strided_views_are_written_in_c_order() {
    let dir = tempfile::tempdir().unwrap();
    let a = Array3::from_shape_fn((6, 5, 4), |(i, j, k)| (i * 100 + j * 10 + k) as u32);
    let view = a.slice(s![..;2, 1.., ..;3]);
    let path = dir.path().join("s.zarr");
    write_ndarray(&path, &view, &WriteOptions::new().chunks(&[2, 3, 1])).unwrap();
    let mut reader = GridReader::open(&path).unwrap();
    assert_eq!(reader.order(), Order::C);
    assert_eq!(reader.shape(), [3, 4, 2]);
    let bytes = reader.read_all().unwrap();
    let values: Vec<u32> = bytes
        .chunks(4)
        .map(|b| u32::from_ne_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(values, view.iter().copied().collect::<Vec<_>>());
}

#[test]
fn the_rank_and_the_type_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.zarr");
    write_ndarray(&path, &arange(&[2, 3]), &WriteOptions::new()).unwrap();
    let ok: Array2<f64> = read_ndarray(&path, &ReadOptions::new()).unwrap();
    assert_eq!(ok.shape(), [2, 3]);
    let e = read_ndarray::<f64, ndarray::Ix1>(&path, &ReadOptions::new()).unwrap_err();
    assert!(e.to_string().contains("[2, 3]"), "{e}");
    let e = read_ndarray::<f32, Ix2>(&path, &ReadOptions::new()).unwrap_err();
    assert!(matches!(e, ndl_zarr::Error::TypeMismatch { .. }), "{e}");
    let e = read_ndarray::<f64, Ix2>(&path, &ReadOptions::new().by_name(true)).unwrap_err();
    assert!(e.to_string().contains("not by name"), "{e}");
    // 0-d.
    let zero = dir.path().join("z.zarr");
    write_ndarray(&zero, &arr0(7u16), &WriteOptions::new()).unwrap();
    let back: ndarray::Array0<u16> = read_ndarray(&zero, &ReadOptions::new()).unwrap();
    assert_eq!(back, arr0(7));
}

#[test]
fn a_grid_writer_takes_exactly_its_elements_and_publishes_only_when_finished() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.zarr");
    let options = WriteOptions::new().publish_on_finish(true);
    let mut w =
        GridWriter::create_with(&path, &Datatype::UInt8, &[2, 2], Order::C, &options).unwrap();
    w.append(&[1, 2, 3]).unwrap();
    assert!(!path.exists(), "not published before finish");
    let e = w.append(&[4, 5]).unwrap_err();
    assert!(e.to_string().contains("more elements than the 4"), "{e}");
    let mut w =
        GridWriter::create_with(&path, &Datatype::UInt16, &[2, 2], Order::C, &options).unwrap();
    let e = w.append(&[1, 2, 3]).unwrap_err();
    assert!(e.to_string().contains("not whole elements"), "{e}");
    w.append(&[0; 4]).unwrap();
    let e = w.finish().unwrap_err();
    assert!(e.to_string().contains("2 elements were written"), "{e}");
    assert!(!path.exists(), "nothing published");
    let e = GridWriter::create_with(
        &path,
        &Datatype::UInt8,
        &[2, 2],
        Order::C,
        &WriteOptions::new().layout(ndl_zarr::Layout::Columns),
    )
    .unwrap_err();
    assert!(e.to_string().contains("records layout"), "{e}");
}

/// A value the datatype does not admit is refused, naming the element by
/// its indices in the array, in either order.
#[test]
fn a_bad_bool_is_named_by_its_indices() {
    let dir = tempfile::tempdir().unwrap();
    for order in [Order::C, Order::Fortran] {
        let path = dir.path().join(format!("{order:?}.zarr"));
        let options = WriteOptions::new()
            .codec(ndl_zarr::Codec::None)
            .chunks(&[2, 2]);
        let mut w =
            GridWriter::create_with(&path, &Datatype::UInt8, &[3, 4], order, &options).unwrap();
        // In the writer's order: element [2, 1] holds 2.
        let mut values = vec![0u8; 12];
        let at = match order {
            Order::C => 2 * 4 + 1,
            Order::Fortran => 2 + 3,
        };
        values[at] = 2;
        w.append(&values).unwrap();
        w.finish().unwrap();
        let doc = path.join("zarr.json");
        let text = std::fs::read_to_string(&doc).unwrap();
        let text = text
            .replace("\"uint8\"", "\"bool\"")
            .replace("\"fill_value\": 0", "\"fill_value\": false");
        std::fs::write(&doc, text).unwrap();
        let e = GridReader::open(&path).unwrap().read_all().unwrap_err();
        assert!(
            matches!(e, ndl_zarr::Error::InvalidValue { chunk: 1, .. }),
            "{order:?}: {e}"
        );
        assert!(e.to_string().contains("element [2, 1]"), "{order:?}: {e}");
    }
}

/// zarr-python 3.4 reads what we write (C and Fortran order, v2 and v3),
/// and writes chunked arrays we read, Fortran order included.
const PEER: &str = r#"
import sys, numpy as np, zarr, zarr.codecs as zc
out = sys.argv[1]
exp = np.arange(2 * 3 * 5, dtype='<f8').reshape(2, 3, 5)
for name in ['c2', 'c3', 'f2', 'f3']:
    z = zarr.open_array(f'{out}/{name}.zarr', mode='r')
    want = exp if name[0] == 'c' else exp.T
    assert np.array_equal(z[...], want), name
z = zarr.create_array(f'{out}/py_t.zarr', shape=exp.shape, dtype=exp.dtype, chunks=(1, 2, 2), filters=[zc.TransposeCodec(order=(2, 1, 0))]); z[...] = exp
z = zarr.create_array(f'{out}/py_f.zarr', shape=exp.shape, dtype=exp.dtype, chunks=(2, 2, 3), zarr_format=2, order='F'); z[...] = exp
z = zarr.create_array(f'{out}/py_c.zarr', shape=exp.shape, dtype=exp.dtype, chunks=(1, 3, 2)); z[...] = exp
print('ok', zarr.__version__)
"#;

#[test]
fn zarr_python_reads_what_we_write_and_we_read_what_it_writes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let exp = arange(&[2, 3, 5]);
    for (format, v) in [(ZarrFormat::V2, '2'), (ZarrFormat::V3, '3')] {
        let options = WriteOptions::new().zarr_format(format).chunks(&[1, 2, 2]);
        write_ndarray(root.join(format!("c{v}.zarr")), &exp, &options).unwrap();
        let options = options.chunks(&[2, 2, 1]);
        write_ndarray(root.join(format!("f{v}.zarr")), &exp.t(), &options).unwrap();
    }
    let out = ndl_testkit::run_with(&ndl_testkit::python312(), PEER, &[root.to_str().unwrap()]);
    assert!(out.starts_with("ok 3.4"), "{out}");
    for (name, fortran) in [("py_t", true), ("py_f", true), ("py_c", false)] {
        let back: Array3<f64> =
            read_ndarray(root.join(format!("{name}.zarr")), &ReadOptions::new()).unwrap();
        assert_eq!(back.into_dyn(), exp, "{name}");
        let reader = GridReader::open(root.join(format!("{name}.zarr"))).unwrap();
        let order = if fortran { Order::Fortran } else { Order::C };
        assert_eq!(reader.order(), order, "{name}");
    }
}

/// A `fill_value` given is the array's, of 1-D and 2-D arrays alike: a
/// chunk all of it is not stored, and zarr-python reads it as the fill.
/// Records take none.
#[test]
fn a_fill_value_given_is_the_arrays() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.zarr");
    let two = dir.path().join("two.zarr");
    let v2 = WriteOptions::new()
        .zarr_format(ZarrFormat::V2)
        .fill_value((-1).into());
    v2.clone().chunk_len(1).write(&one, &[5i16, -1, 7]).unwrap();
    assert!(one.join("0").exists() && !one.join("1").exists());
    let grid = Array2::from_shape_vec((2, 2), vec![1.5f32, 2.0, f32::NAN, f32::NAN]).unwrap();
    let options = v2.fill_value("NaN".into()).chunks(&[1, 2]);
    write_ndarray(&two, &grid, &options).unwrap();
    assert!(two.join("0.0").exists() && !two.join("1.0").exists());
    let script = "import sys, json, zarr\n\
        for p in sys.argv[1:]:\n\
        \x20   z = zarr.open_array(p, mode='r')\n\
        \x20   print(json.dumps(z.fill_value.item()), json.dumps(z[...].tolist()))\n";
    let out = ndl_testkit::run_with(
        &ndl_testkit::python312(),
        script,
        &[one.to_str().unwrap(), two.to_str().unwrap()],
    );
    assert_eq!(out, "-1 [5, -1, 7]\nNaN [[1.5, 2.0], [NaN, NaN]]\n");
    let record = WriteOptions::new()
        .fill_value(0.into())
        .write(dir.path().join("r.zarr"), &[Padded { a: 1, b: 2.0 }]);
    assert!(record.is_err(), "{record:?}");
}

//! `ndarray` arrays against real NumPy, both ways: NumPy loads what we
//! write from arrays of rank 0 to 4 in C order, Fortran order and strided
//! or permuted views, and we read what `np.save` writes, C and Fortran
//! order, into fixed-rank and dynamic-rank arrays and memory-mapped views.

use ndarray::{Array, Array1, Array2, Array3, Array4, ArrayD, Ix2, Ix4, IxDyn, arr0, s};
use ndl_runtime::ndarray_ext::{ReadNpyExt, WriteNpyExt};
use ndl_runtime::npy::{ByteOrder, Error, MmapArray};
use ndl_testkit::records::Padded;

/// `0, 1, 2, …` as f64 in C order of `shape`, as `np.arange(n.).reshape(shape)`.
fn arange(shape: &[usize]) -> ArrayD<f64> {
    let n = shape.iter().product::<usize>();
    ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(|i| i as f64).collect()).unwrap()
}

fn padded(shape: &[usize]) -> ArrayD<Padded> {
    arange(shape).mapv(|x| Padded {
        a: x as u8,
        b: x / 2.0,
        c: 1000 + x as u16,
    })
}

const PADDED_DTYPE: &str = "np.dtype([('a', 'u1'), ('b', '<f8'), ('c', '<u2')], align=True)";

#[test]
fn numpy_loads_arrays_of_every_layout_we_write() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| dir.path().join(format!("{name}.npy"));
    arr0(7.5f64).write_npy_file(file("r0")).unwrap();
    arange(&[5]).write_npy_file(file("r1")).unwrap();
    arange(&[2, 3]).write_npy_file(file("r2")).unwrap();
    arange(&[2, 3]).t().write_npy_file(file("r2_t")).unwrap();
    let r3 = arange(&[2, 3, 4]);
    r3.slice(s![.., ..;2, 1..])
        .write_npy_file(file("r3_sliced"))
        .unwrap();
    r3.view()
        .permuted_axes(IxDyn(&[1, 0, 2]))
        .write_npy_file(file("r3_permuted"))
        .unwrap();
    let r4 = arange(&[2, 3, 4, 5]);
    r4.slice(s![.., .., ..;-1, ..;2])
        .write_npy_file(file("r4_reversed"))
        .unwrap();
    r4.t().write_npy_file(file("r4_t")).unwrap();
    let mut big = Vec::new();
    r4.slice(s![1, .., 1.., ..])
        .write_npy_in(ByteOrder::Big, &mut big)
        .unwrap();
    std::fs::write(file("r3_big"), big).unwrap();
    Array2::<f64>::zeros((0, 3))
        .write_npy_file(file("empty"))
        .unwrap();
    let recs = padded(&[2, 3]);
    recs.t().write_npy_file(file("rec_t")).unwrap();
    recs.slice(s![.., ..;-2])
        .write_npy_file(file("rec_sliced"))
        .unwrap();
    let out = ndl_testkit::run_python(
        &format!(
            r#"
import sys, numpy as np
d = sys.argv[1]
def ar(*shape): return np.arange(float(np.prod(shape))).reshape(shape)
rec = np.zeros((2, 3), {PADDED_DTYPE})
x = np.arange(6.).reshape(2, 3)
rec['a'], rec['b'], rec['c'] = x, x / 2, 1000 + x
expected = {{
    'r0': np.array(7.5), 'r1': ar(5), 'r2': ar(2, 3), 'r2_t': ar(2, 3).T,
    'r3_sliced': ar(2, 3, 4)[:, ::2, 1:], 'r3_permuted': ar(2, 3, 4).transpose(1, 0, 2),
    'r4_reversed': ar(2, 3, 4, 5)[:, :, ::-1, ::2], 'r4_t': ar(2, 3, 4, 5).T,
    'r3_big': ar(2, 3, 4, 5)[1, :, 1:, :].astype('>f8'), 'empty': np.zeros((0, 3)),
    'rec_t': rec.T, 'rec_sliced': rec[:, ::-2],
}}
for name, e in expected.items():
    a = np.load(f'{{d}}/{{name}}.npy')
    assert a.dtype == e.dtype and a.shape == e.shape, (name, a.dtype, e.dtype, a.shape, e.shape)
    assert (a == e).all(), (name, a, e)
    print(name, 'F' if a.flags.f_contiguous and not a.flags.c_contiguous else 'C')
"#
        ),
        &[dir.path().to_str().unwrap()],
    );
    // Fortran-order arrays are written as they lie, like np.save does.
    assert_eq!(
        out,
        "r0 C\nr1 C\nr2 C\nr2_t F\nr3_sliced C\nr3_permuted C\nr4_reversed C\nr4_t F\n\
         r3_big C\nempty C\nrec_t F\nrec_sliced C\n"
    );
}

#[test]
fn we_read_what_numpy_writes_in_c_and_fortran_order() {
    let dir = tempfile::tempdir().unwrap();
    ndl_testkit::run_python(
        &format!(
            r#"
import sys, numpy as np
d = sys.argv[1]
def ar(*shape): return np.arange(float(np.prod(shape))).reshape(shape)
np.save(f'{{d}}/r0.npy', np.array(7.5))
np.save(f'{{d}}/r1.npy', ar(5))
np.save(f'{{d}}/r2_f.npy', np.asfortranarray(ar(2, 3)))
np.save(f'{{d}}/r3_big.npy', ar(2, 3, 4).astype('>f8'))
np.save(f'{{d}}/r4.npy', ar(2, 3, 4, 5))
np.save(f'{{d}}/r4_f.npy', np.asfortranarray(ar(2, 3, 4, 5)))
rec = np.zeros((2, 3), {PADDED_DTYPE})
x = np.arange(6.).reshape(2, 3)
rec['a'], rec['b'], rec['c'] = x, x / 2, 1000 + x
np.save(f'{{d}}/rec_f.npy', np.asfortranarray(rec))
"#
        ),
        &[dir.path().to_str().unwrap()],
    );
    let file = |name: &str| dir.path().join(format!("{name}.npy"));
    let r0 = Array::<f64, ndarray::Ix0>::read_npy_file(file("r0")).unwrap();
    assert_eq!(r0, arr0(7.5));
    assert_eq!(
        Array1::<f64>::read_npy_file(file("r1")).unwrap().into_dyn(),
        arange(&[5])
    );
    let r2 = Array2::<f64>::read_npy_file(file("r2_f")).unwrap();
    assert_eq!(r2.view().into_dyn(), arange(&[2, 3]));
    assert!(r2.t().is_standard_layout(), "kept in Fortran order");
    let r3 = Array3::<f64>::read_npy_file(file("r3_big")).unwrap();
    assert_eq!(r3.into_dyn(), arange(&[2, 3, 4]));
    assert_eq!(
        Array4::<f64>::read_npy_file(file("r4")).unwrap().into_dyn(),
        arange(&[2, 3, 4, 5])
    );
    assert_eq!(
        ArrayD::<f64>::read_npy_file(file("r4_f")).unwrap(),
        arange(&[2, 3, 4, 5])
    );
    assert_eq!(
        Array2::<Padded>::read_npy_file(file("rec_f"))
            .unwrap()
            .into_dyn(),
        padded(&[2, 3])
    );
    // SAFETY: the test owns the files and does not change them while mapped.
    let map = unsafe { MmapArray::<f64>::open(file("r4_f")).unwrap() };
    assert_eq!(map.view::<Ix4>().unwrap().into_dyn(), arange(&[2, 3, 4, 5]));
    assert_eq!(map.view::<IxDyn>().unwrap(), arange(&[2, 3, 4, 5]));
    let e = map.view::<Ix2>().unwrap_err();
    assert!(matches!(e, Error::RankMismatch { expected: 2, .. }), "{e}");
    // Rank and type are checked, and errors say which file.
    let e = Array3::<f64>::read_npy_file(file("r4")).unwrap_err();
    assert!(
        matches!(e.kind(), Error::RankMismatch { expected: 3, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("r4.npy"), "{e}");
    let e = Array4::<f32>::read_npy_file(file("r4")).unwrap_err();
    assert!(e.to_string().contains("r4.npy"), "{e}");
}

#[test]
fn npz_members_from_arrays_of_any_layout() {
    use ndl_runtime::npz::{NpzReader, NpzWriter};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.npz");
    let r3 = arange(&[2, 3, 4]);
    let mut w = NpzWriter::create(&path).unwrap();
    w.add_ndarray("c", &r3).unwrap();
    w.add_ndarray("f", &r3.t()).unwrap();
    w.add_ndarray("strided", &r3.slice(s![.., ..;-2, 1..]))
        .unwrap();
    w.finish().unwrap();
    ndl_testkit::run_python(
        r#"
import sys, zipfile, numpy as np
assert zipfile.ZipFile(sys.argv[1]).testzip() is None
z = np.load(sys.argv[1])
r3 = np.arange(24.).reshape(2, 3, 4)
for name, e in [('c', r3), ('f', r3.T), ('strided', r3[:, ::-2, 1:])]:
    assert z[name].shape == e.shape and (z[name] == e).all(), name
"#,
        &[path.to_str().unwrap()],
    );
    let mut r = NpzReader::open(&path).unwrap();
    let f = r
        .read_array::<f64>("f")
        .unwrap()
        .into_ndarray::<IxDyn>()
        .unwrap();
    assert_eq!(f, r3.t());
    // SAFETY: the test owns the archive and does not change it while mapped.
    let strided = unsafe { r.mmap::<f64>("strided").unwrap() };
    assert_eq!(
        strided.view::<IxDyn>().unwrap(),
        r3.slice(s![.., ..;-2, 1..]).into_dyn()
    );
}

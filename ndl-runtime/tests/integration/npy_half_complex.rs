//! `half::f16` and `num_complex::Complex` records against real NumPy
//! (`<f2`, `<c8`, `<c16`), in both byte orders and both directions: NumPy
//! loads what we write, with the very bytes `np.save` writes for the same
//! array, and we read what `np.save` writes, bit for bit.

use half::f16;
use ndl_runtime::NdlType;
use ndl_runtime::npy::{self, ByteOrder, MmapArray, WriteOptions};
use num_complex::Complex;

/// A derived record of the optional types, with padding after `gain`.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Iq {
    gain: f16,
    z: Complex<f64>,
    pair: [Complex<f32>; 2],
}

/// 0.5, -2, the largest, the smallest normal, the smallest subnormal, inf.
const HALF_BITS: [u16; 6] = [0x3800, 0xC000, 0x7BFF, 0x0400, 0x0001, 0x7C00];

fn halves() -> Vec<f16> {
    HALF_BITS.iter().map(|&b| f16::from_bits(b)).collect()
}

fn c8s() -> Vec<Complex<f32>> {
    vec![
        Complex::new(1.5, -0.25),
        Complex::new(-1024.125, 3.0),
        Complex::new(f32::MAX, f32::MIN_POSITIVE),
    ]
}

fn c16s() -> Vec<Complex<f64>> {
    vec![
        Complex::new(1e300, -2.5e-300),
        Complex::new(-0.1, 0.0),
        Complex::new(f64::MIN_POSITIVE, f64::MAX),
    ]
}

fn records() -> Vec<Iq> {
    let (h, c8, c16) = (halves(), c8s(), c16s());
    vec![
        Iq {
            gain: h[0],
            z: c16[0],
            pair: [c8[0], c8[1]],
        },
        Iq {
            gain: h[1],
            z: c16[1],
            pair: [c8[1], c8[2]],
        },
    ]
}

/// The same arrays built in Python, as `expected[name]`.
const EXPECTED: &str = r#"
import sys, io, numpy as np
h = np.array([0x3800, 0xC000, 0x7BFF, 0x0400, 0x0001, 0x7C00], '<u2').view('<f2')
f4 = np.finfo(np.float32)
c8 = np.array([1.5 - 0.25j, -1024.125 + 3j, complex(f4.max, f4.tiny)], '<c8')
f8 = np.finfo(np.float64)
c16 = np.array([complex(1e300, -2.5e-300), complex(-0.1, 0.0), complex(f8.tiny, f8.max)], '<c16')
rec = np.zeros(2, np.dtype({'names': ['gain', 'z', 'pair'], 'formats': ['<f2', '<c16', ('<c8', (2,))],
                            'offsets': [0, 8, 24], 'itemsize': 40}))
rec['gain'] = h[:2]
rec['z'] = c16[:2]
rec['pair'] = [c8[:2], c8[1:]]
expected = {'h': h, 'c8': c8, 'c16': c16, 'rec': rec}
def ordered(e, o):
    # Field by field into zeros: `astype` leaves padding bytes undefined.
    a = np.zeros(e.shape, e.dtype.newbyteorder(o))
    a[...] = e
    return a
def saved(a):
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()
"#;

fn write_all(dir: &std::path::Path, order: ByteOrder) {
    let o = WriteOptions::new().byte_order(order);
    o.write_file(dir.join("h.npy"), &halves()).unwrap();
    o.write_file(dir.join("c8.npy"), &c8s()).unwrap();
    o.write_file(dir.join("c16.npy"), &c16s()).unwrap();
    o.write_file(dir.join("rec.npy"), &records()).unwrap();
}

#[test]
fn numpy_loads_f16_and_complex_we_write_in_both_byte_orders() {
    for (order, o) in [(ByteOrder::Little, "<"), (ByteOrder::Big, ">")] {
        let dir = tempfile::tempdir().unwrap();
        write_all(dir.path(), order);
        let out = ndl_testkit::run_python(
            &format!(
                "{EXPECTED}\n\
                 d, o = sys.argv[1], sys.argv[2]\n\
                 for name, e in expected.items():\n\
                 \x20   e = ordered(e, o)\n\
                 \x20   a = np.load(f'{{d}}/{{name}}.npy')\n\
                 \x20   assert a.dtype == e.dtype and a.dtype.descr == e.dtype.descr, (name, a.dtype.descr, e.dtype.descr)\n\
                 \x20   assert a.tobytes() == e.tobytes(), (name, a, e)\n\
                 \x20   assert open(f'{{d}}/{{name}}.npy', 'rb').read() == saved(e), name\n\
                 \x20   print(name, a.dtype.str)"
            ),
            &[dir.path().to_str().unwrap(), o],
        );
        let expected = format!("h {o}f2\nc8 {o}c8\nc16 {o}c16\nrec |V40\n");
        assert_eq!(out, expected, "{order:?}");
    }
}

#[test]
fn we_read_f16_and_complex_numpy_writes_in_both_byte_orders() {
    let dir = tempfile::tempdir().unwrap();
    ndl_testkit::run_python(
        &format!(
            "{EXPECTED}\n\
             for o in '<>':\n\
             \x20   for name, e in expected.items():\n\
             \x20       np.save(f'{{sys.argv[1]}}/{{name}}{{\"le\" if o == \"<\" else \"be\"}}.npy', ordered(e, o))"
        ),
        &[dir.path().to_str().unwrap()],
    );
    for order in ["le", "be"] {
        let path = |name: &str| dir.path().join(format!("{name}{order}.npy"));
        let h: Vec<u16> = npy::read_file::<f16>(path("h"))
            .unwrap()
            .iter()
            .map(|h| h.to_bits())
            .collect();
        assert_eq!(h, HALF_BITS, "{order}");
        assert_eq!(npy::read_file::<Complex<f32>>(path("c8")).unwrap(), c8s());
        assert_eq!(npy::read_file::<Complex<f64>>(path("c16")).unwrap(), c16s());
        assert_eq!(npy::read_file::<Iq>(path("rec")).unwrap(), records());
        let e = npy::read_file::<Complex<f64>>(path("c8")).unwrap_err();
        assert!(e.to_string().contains("c8"), "{e}");
    }
    let native = if cfg!(target_endian = "little") {
        "le"
    } else {
        "be"
    };
    // SAFETY: the test owns the files and does not change them while mapped.
    unsafe {
        let z =
            MmapArray::<Complex<f64>>::open(dir.path().join(format!("c16{native}.npy"))).unwrap();
        assert_eq!(z.as_slice(), c16s());
        let r = MmapArray::<Iq>::open(dir.path().join(format!("rec{native}.npy"))).unwrap();
        assert_eq!(r.as_slice(), records());
    }
}

#[test]
fn the_rust_types_in_the_other_description_languages() {
    use ndl_runtime::lang::{LangError, cdl};
    let iq = Iq::datatype();
    assert_eq!(
        iq.try_to_datashape().unwrap(),
        "{gain: float16, z: complex[float64], pair: 2 * complex[float32]}"
    );
    // Zarr structs have no padding: the scalars, one by one.
    for (dt, v2, v3) in [
        (f16::datatype(), ">f2", "float16"),
        (Complex::<f32>::datatype(), ">c8", "complex64"),
        (Complex::<f64>::datatype(), ">c16", "complex128"),
    ] {
        assert_eq!(dt.to_zarr_v2_dtype(ByteOrder::Big).unwrap(), v2);
        assert_eq!(dt.to_zarr_v3_data_type().unwrap(), v3);
    }
    let complex = cdl::type_definitions("z_t", &Complex::<f32>::datatype()).unwrap();
    assert!(
        complex.contains("float r") && complex.contains("float i"),
        "{complex}"
    );
    let e = cdl::type_definitions("iq_t", &iq).unwrap_err();
    assert!(
        matches!(e, LangError::Unsupported { .. }) && e.to_string().contains("16-bit"),
        "{e}"
    );
}

//! Records whose fields have different byte orders, as NumPy allows
//! (`[('a', '<u8'), ('b', '>f8')]`): the header keeps each field's order
//! and prints NumPy's descr back, and reads convert each field from its own
//! order.

use std::path::Path;

use ndl_runtime::NdlType;
use ndl_runtime::npy::{self, AppendOptions, ByteOrder, Header, HeaderLimits, MmapArray};
use ndl_runtime::npz::NpzReader;

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Inner {
    x: i16,
    y: i32,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Mixed {
    a: u64,
    b: f64,
    n: Inner,
    v: [f32; 3],
    c: [[u16; 2]; 2],
}

/// Some of `Mixed`'s fields, in another order.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Part {
    v: [f32; 3],
    b: f64,
    n: Inner,
}

/// NumPy's dtype for `Mixed`, each field in its own order, with the
/// padding NumPy needs to match `repr(C)`.
const DTYPE: &str = "np.dtype({'names': ['a', 'b', 'n', 'v', 'c'], \
    'formats': ['<u8', '>f8', np.dtype({'names': ['x', 'y'], 'formats': ['>i2', '<i4'], 'offsets': [0, 4], 'itemsize': 8}), ('>f4', (3,)), (('<u2', (2,)), (2,))], \
    'offsets': [0, 8, 16, 24, 36], 'itemsize': 48})";

fn expected(i: u64) -> Mixed {
    let f = i as f64;
    Mixed {
        a: i * 1_000_003,
        b: f * 0.5,
        n: Inner {
            x: -(i as i16),
            y: i as i32 * 70_000,
        },
        v: [f as f32, f as f32 + 0.25, -(f as f32)],
        c: [[i as u16, 1], [2, 3 * i as u16]],
    }
}

/// Writes `n` records with NumPy; returns NumPy's descr of the dtype.
fn numpy_file(path: &Path, n: usize) -> String {
    ndl_testkit::run_python(
        &format!(
            "import sys, numpy as np\n\
             dt = {DTYPE}\n\
             n = int(sys.argv[2])\n\
             a = np.zeros(n, dt)\n\
             i = np.arange(n)\n\
             a['a'] = i * 1000003\n\
             a['b'] = i * 0.5\n\
             a['n']['x'] = -i\n\
             a['n']['y'] = i * 70000\n\
             a['v'] = np.stack([i, i + 0.25, -i], axis=1)\n\
             a['c'][:, 0, 0] = i\n\
             a['c'][:, 0, 1] = 1\n\
             a['c'][:, 1, 0] = 2\n\
             a['c'][:, 1, 1] = 3 * i\n\
             np.save(sys.argv[1], a)\n\
             print(np.lib.format.dtype_to_descr(dt))"
        ),
        &[path.to_str().unwrap(), &n.to_string()],
    )
    .trim()
    .to_string()
}

#[test]
fn the_header_keeps_each_fields_order_and_prints_numpys_descr() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.npy");
    let descr = numpy_file(&path, 2);
    assert_eq!(
        descr,
        "[('a', '<u8'), ('b', '>f8'), ('n', [('x', '>i2'), ('', '|V2'), ('y', '<i4')]), \
         ('v', '>f4', (3,)), ('c', ('<u2', (2,)), (2,)), ('', '|V4')]"
    );
    let file = std::fs::read(&path).unwrap();
    let (h, start) = Header::parse(&file, &HeaderLimits::default()).unwrap();
    assert_eq!(h.byte_order, ByteOrder::Little);
    assert_eq!(h.other_order, [8..18, 24..36]);
    assert_eq!(h.byte_order_at(20), ByteOrder::Little);
    assert_eq!(h.byte_order_at(28), ByteOrder::Big);
    assert_eq!(h.descr().unwrap(), descr);
    assert_eq!(h.to_bytes().unwrap(), file[..start]);
}

#[test]
fn typed_and_by_name_reads_convert_each_field_from_its_own_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.npy");
    numpy_file(&path, 1000);
    let want: Vec<Mixed> = (0..1000).map(expected).collect();
    assert_eq!(npy::read_file::<Mixed>(&path).unwrap(), want);
    // By name: `a` and `c` are not read, the others move.
    let got = npy::ReadOptions::new()
        .by_name(true)
        .read_file::<Part>(&path)
        .unwrap();
    let want_part: Vec<Part> = want
        .iter()
        .map(|m| Part {
            v: m.v,
            b: m.b,
            n: m.n,
        })
        .collect();
    assert_eq!(got.data, want_part);
}

#[test]
fn npz_members_read_appends_keep_each_order_and_maps_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.npy");
    numpy_file(&path, 3);
    // SAFETY: nothing modifies the file while it is mapped.
    let e = unsafe { MmapArray::<Mixed>::open(&path) }.unwrap_err();
    assert!(e.to_string().contains("both byte orders"), "{e}");
    // Appended records take each field's own order, as NumPy reads them.
    let before = npy::read_header_file(&path).unwrap();
    AppendOptions::new()
        .append_file(&path, &[expected(3), expected(4)])
        .unwrap();
    let after = npy::read_header_file(&path).unwrap();
    assert_eq!(after.other_order, before.other_order);
    assert_eq!(
        npy::read_file::<Mixed>(&path).unwrap(),
        (0..5).map(expected).collect::<Vec<_>>()
    );
    let numpy = ndl_testkit::run_python(
        "import sys, numpy as np\na = np.load(sys.argv[1])\nprint(len(a), int(a['a'][4]), float(a['b'][4]), int(a['n']['y'][4]))",
        &[path.to_str().unwrap()],
    );
    assert_eq!(numpy.trim(), "5 4000012 2.0 280000");
    let mut path3 = path.clone();
    path3.set_file_name("m3.npy");
    numpy_file(&path3, 3);
    let path = path3;

    let npz = dir.path().join("m.npz");
    ndl_testkit::run_python(
        "import sys, numpy as np\nnp.savez(sys.argv[2], m=np.load(sys.argv[1]))",
        &[path.to_str().unwrap(), npz.to_str().unwrap()],
    );
    let got = NpzReader::open(&npz).unwrap().read::<Mixed>("m").unwrap();
    assert_eq!(got, (0..3).map(expected).collect::<Vec<_>>());
}

#[test]
fn raw_data_is_put_into_one_byte_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.npy");
    numpy_file(&path, 4);
    let file = std::fs::read(&path).unwrap();
    let (h, data) = Header::split(&file, &HeaderLimits::default()).unwrap();
    let mut data = data.to_vec();
    h.to_one_byte_order(&mut data);
    let uniform = Header {
        other_order: Vec::new(),
        ..h.clone()
    };
    let mut bytes = uniform.to_bytes().unwrap();
    bytes.extend_from_slice(&data);
    let got = npy::read::<Mixed, _>(&bytes[..]).unwrap();
    assert_eq!(got, (0..4).map(expected).collect::<Vec<_>>());
}

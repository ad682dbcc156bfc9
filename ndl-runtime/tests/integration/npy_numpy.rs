//! Cross-checks with real NumPy, both ways:
//! - NumPy loads what we write, with the dtype built independently in
//!   Python (names, formats, offsets, itemsize), the same values, and the
//!   very bytes `np.save` writes for that array;
//! - we load what `np.save`, `np.savez` and `np.savez_compressed` write,
//!   in both byte orders, including `align=True` dtypes.
//!
//! Run with `NDL_PYTHON=/path/to/python` (numpy 2.4.6).

use ndl_runtime::Order;
use std::fmt::Debug;
use std::path::Path;

use ndl_runtime::NdlType;
use ndl_runtime::npy::{self, ByteOrder, MmapArray, ReadOptions, WriteOptions};
use ndl_runtime::npz::{NpzReader, NpzWriter};
use ndl_testkit::records::*;

/// A value as a Python literal NumPy accepts for its dtype.
trait Py {
    fn py(&self) -> String;
}

macro_rules! py_display {
    ($($t:ty),*) => {$(impl Py for $t { fn py(&self) -> String { self.to_string() } })*};
}
py_display!(i8, u8, i16, u16, i32, u32, i64, u64);

impl Py for f32 {
    fn py(&self) -> String {
        format!("{self:?}")
    }
}
impl Py for f64 {
    fn py(&self) -> String {
        format!("{self:?}")
    }
}
impl Py for bool {
    fn py(&self) -> String {
        if *self { "True" } else { "False" }.into()
    }
}
impl<T: Py, const N: usize> Py for [T; N] {
    fn py(&self) -> String {
        let items: Vec<String> = self.iter().map(Py::py).collect();
        format!("[{}]", items.join(", "))
    }
}
impl Py for Padded {
    fn py(&self) -> String {
        format!("({}, {}, {})", self.a.py(), self.b.py(), self.c.py())
    }
}
impl Py for Packed {
    fn py(&self) -> String {
        let (a, b, c) = (self.a, self.b, self.c);
        format!("({}, {}, {})", a.py(), b.py(), c.py())
    }
}
impl Py for Aligned {
    fn py(&self) -> String {
        format!("({}, {})", self.x.py(), self.y.py())
    }
}
impl Py for Inner {
    fn py(&self) -> String {
        format!("({}, {})", self.x.py(), self.y.py())
    }
}
impl Py for Outer {
    fn py(&self) -> String {
        format!(
            "({}, {}, {}, {})",
            self.id.py(),
            self.pos.py(),
            self.flags.py(),
            self.m.py()
        )
    }
}
impl Py for Track {
    fn py(&self) -> String {
        format!("({}, {})", self.n.py(), self.pts.py())
    }
}
impl Py for Tagged {
    fn py(&self) -> String {
        format!("({}, {}, {})", self.c as u8, self.l as i16, self.w as u64)
    }
}
impl Py for S5 {
    fn py(&self) -> String {
        let body: String = self.0.iter().map(|b| format!("\\x{b:02x}")).collect();
        format!("b'{body}'")
    }
}
impl Py for U3 {
    fn py(&self) -> String {
        let body: String = self.0.iter().map(|&c| format!("\\U{c:08x}")).collect();
        format!("'{body}'")
    }
}
impl Py for Names {
    fn py(&self) -> String {
        format!("({}, {})", self.s.py(), self.u.py())
    }
}
impl Py for C64 {
    fn py(&self) -> String {
        format!("complex({}, {})", self.re.py(), self.im.py())
    }
}
impl Py for F16 {
    fn py(&self) -> String {
        format!("{:?}", f16_to_f64(self.0))
    }
}
impl Py for Extras {
    fn py(&self) -> String {
        format!("({}, {}, {})", self.z.py(), self.h.py(), self.ok.py())
    }
}

/// The value of IEEE half-precision bits.
fn f16_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let frac = f64::from(bits & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        _ => sign * (1.0 + frac / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// Adds a case's array to our stored and deflated npz archives.
type AddToNpz = Box<dyn Fn(&mut NpzWriter, &mut NpzWriter)>;

/// One array written and read both ways.
struct Case {
    name: String,
    /// The Python dict describing the case.
    py: String,
    /// Adds the array to our two npz archives.
    add_to_npz: AddToNpz,
    /// Checks the files NumPy wrote for this case.
    check: Box<dyn Fn(&Path)>,
}

struct Spec {
    name: &'static str,
    /// `np.dtype(...)` argument, built by hand (not from our datatype).
    dtype: &'static str,
    /// `None`: 1-D.
    shape: Option<Vec<u64>>,
    /// Trailing dimensions of a top-level array type.
    inner: Vec<u64>,
    fortran: bool,
    order: ByteOrder,
}

fn spec(name: &'static str, dtype: &'static str) -> Spec {
    Spec {
        name,
        dtype,
        shape: None,
        inner: vec![],
        fortran: false,
        order: ByteOrder::Little,
    }
}

impl Spec {
    fn shape(mut self, s: &[u64]) -> Spec {
        self.shape = Some(s.to_vec());
        self
    }
    fn fortran(mut self) -> Spec {
        self.fortran = true;
        self
    }
    fn big(mut self) -> Spec {
        self.order = ByteOrder::Big;
        self
    }
    fn inner(mut self, d: &[u64]) -> Spec {
        self.inner = d.to_vec();
        self
    }

    /// Writes our file for `data` and describes the case.
    fn case<T: NdlType + Py + PartialEq + Debug>(self, dir: &Path, data: Vec<T>) -> Case {
        let options = {
            let o = WriteOptions::new()
                .byte_order(self.order)
                .order(Order::from_fortran(self.fortran));
            match &self.shape {
                Some(s) => o.shape(s),
                None => o,
            }
        };
        options
            .write_file(dir.join(format!("{}.rs.npy", self.name)), &data)
            .unwrap_or_else(|e| panic!("{}: {e}", self.name));
        let shape = self
            .shape
            .clone()
            .unwrap_or_else(|| vec![data.len() as u64]);
        let np_shape: Vec<String> = shape
            .iter()
            .chain(&self.inner)
            .map(u64::to_string)
            .collect();
        let values: Vec<String> = data.iter().map(Py::py).collect();
        let py = format!(
            "dict(name={:?}, dt=np.dtype({}), shape=({}{}), fortran={}, order={:?}, values=[{}])",
            self.name,
            self.dtype,
            np_shape.join(", "),
            if np_shape.len() == 1 { "," } else { "" },
            if self.fortran { "True" } else { "False" },
            self.order.numpy_char().to_string(),
            values.join(", "),
        );
        let name = self.name.to_string();
        let data = std::rc::Rc::new(data);
        let (d1, d2) = (data.clone(), data.clone());
        let (o1, n1, n2) = (options.clone(), name.clone(), name.clone());
        let fortran_expected =
            self.fortran && shape.iter().filter(|&&d| d != 1).count() > 1 && !shape.contains(&0);
        let order = self.order;
        Case {
            name: name.clone(),
            py,
            add_to_npz: Box::new(move |stored, deflated| {
                stored.add_with(&n1, &o1, &d1).unwrap();
                deflated.add_with(&n1, &o1, &d1).unwrap();
            }),
            check: Box::new(move |dir| {
                let expect = |a: npy::NpyArray<T>, what: &str| {
                    assert_eq!(a.data, *d2, "{n2} {what}");
                    assert_eq!(a.shape, shape, "{n2} {what}");
                    assert_eq!(a.order.is_fortran(), fortran_expected, "{n2} {what}");
                };
                let file = dir.join(format!("{n2}.np.npy"));
                let a = ReadOptions::new()
                    .read_file::<T>(&file)
                    .unwrap_or_else(|e| panic!("{e}"));
                expect(a, "np.save");
                for archive in ["stored.npz", "deflated.npz"] {
                    let mut z = NpzReader::open(dir.join(archive)).unwrap();
                    let a = z.read_array::<T>(&n2).unwrap_or_else(|e| panic!("{e}"));
                    expect(a, archive);
                }
                if order == ByteOrder::NATIVE {
                    // SAFETY: the test's files are not modified while mapped.
                    let m =
                        unsafe { MmapArray::<T>::open(&file) }.unwrap_or_else(|e| panic!("{e}"));
                    assert_eq!(m.as_slice(), &d2[..], "{n2} mmap");
                }
            }),
        }
    }
}

const PY_CHECK: &str = r#"
import io, sys, numpy as np
CASES = eval(open(sys.argv[1]).read())
out = sys.argv[2]
errors = []

def fill(dst, src):
    # Field by field, so padding in dst stays zero (np.save copies it).
    if dst.dtype.names:
        for n in dst.dtype.names:
            fill(dst[n], src[n])
    else:
        dst[...] = src

def norm(x):
    # tolist() leaves subarray fields of records as arrays: go all the way down.
    if isinstance(x, np.ndarray):
        return norm(x.tolist())
    if isinstance(x, (list, tuple)):
        return [norm(i) for i in x]
    return x

arrays = {}
for c in CASES:
    name, shape = c['name'], c['shape']
    dt = c['dt']
    if c['order'] == '>':
        dt = dt.newbyteorder('>')
    src = np.array(c['values'], dtype=dt)
    if c['fortran']:
        src = src.reshape(shape[::-1]).T
        exp = np.zeros(shape, dt, order='F')
    else:
        src = src.reshape(shape)
        exp = np.zeros(shape, dt)
    fill(exp, src)
    ours = np.load(f'{out}/{name}.rs.npy')
    if ours.dtype != dt:
        errors.append(f'{name}: dtype {ours.dtype!r} != {dt!r}')
    if ours.shape != shape:
        errors.append(f'{name}: shape {ours.shape} != {shape}')
    if norm(ours) != norm(exp):
        errors.append(f'{name}: values {norm(ours)} != {norm(exp)}')
    buf = io.BytesIO()
    np.save(buf, exp)
    mine = open(f'{out}/{name}.rs.npy', 'rb').read()
    if buf.getvalue() != mine:
        errors.append(f'{name}: bytes differ from np.save:\n  numpy {buf.getvalue()!r}\n  ours  {mine!r}')
    np.save(f'{out}/{name}.np.npy', exp)
    arrays[name] = exp

for archive in ['rs.npz', 'rs_deflated.npz']:
    z = np.load(f'{out}/{archive}')
    if z.files != list(arrays):
        errors.append(f'{archive}: names {z.files} != {list(arrays)}')
    for name, exp in arrays.items():
        a = z[name]
        if a.dtype != exp.dtype or a.shape != exp.shape or norm(a) != norm(exp):
            errors.append(f'{archive}/{name}: {a!r} != {exp!r}')
np.savez(f'{out}/stored.npz', **arrays)
np.savez_compressed(f'{out}/deflated.npz', **arrays)
if errors:
    print('\n'.join(errors), file=sys.stderr)
    sys.exit(1)
print(len(CASES), 'cases')
"#;

/// Every case, our files written into `dir`.
fn cases(dir: &Path) -> Vec<Case> {
    let padded: Vec<Padded> = (0..4)
        .map(|i| Padded {
            a: i as u8 * 60,
            b: i as f64 * -0.1,
            c: 65535 - i,
        })
        .collect();
    let outer: Vec<Outer> = (0..3)
        .map(|i| Outer {
            id: 7 + i,
            pos: Inner {
                x: 1.0 / (i as f64 + 3.0),
                y: i as f32 + 0.5,
            },
            flags: [i % 2 == 0, true, false],
            m: [[i as i16, -1, 2], [3, -32768, 32767]],
        })
        .collect();
    let tagged = vec![
        Tagged {
            c: Color::Blue,
            l: Level::Low,
            w: Wide::B,
        },
        Tagged {
            c: Color::Red,
            l: Level::High,
            w: Wide::A,
        },
    ];
    let names = vec![
        Names {
            s: S5(*b"ab\0\0\0"),
            u: U3::new("xé"),
        },
        Names {
            s: S5(*b"12345"),
            u: U3::new("整😀z"),
        },
    ];
    let padded_dt = "[('a', 'u1'), ('b', '<f8'), ('c', '<u2')], align=True";
    let padded_dict = "{'names': ['a', 'b', 'c'], 'formats': ['u1', '<f8', '<u2'], 'offsets': [0, 8, 16], 'itemsize': 24}";
    let outer_dt = "{'names': ['id', 'pos', 'flags', 'm'], 'formats': ['<u4', {'names': ['x', 'y'], 'formats': ['<f8', '<f4'], 'offsets': [0, 8], 'itemsize': 16}, ('?', (3,)), ('<i2', (2, 3))], 'offsets': [0, 8, 24, 28], 'itemsize': 40}";
    let track_dt = "{'names': ['n', 'pts'], 'formats': ['u1', ({'names': ['x', 'y'], 'formats': ['<f8', '<f4'], 'offsets': [0, 8], 'itemsize': 16}, (2,))], 'offsets': [0, 8], 'itemsize': 40}";
    let tagged_dt = "{'names': ['c', 'l', 'w'], 'formats': ['u1', '<i2', '<u8'], 'offsets': [0, 2, 8], 'itemsize': 16}";
    let extras = vec![
        Extras {
            z: C64 { re: 1.5, im: -2.0 },
            h: F16(0x3E00),
            ok: true,
        },
        Extras {
            z: C64 { re: 0.0, im: 1e-3 },
            h: F16(0xC000),
            ok: false,
        },
    ];
    vec![
        spec("i1", "'i1'").case(dir, vec![-128i8, 0, 127]),
        spec("u1", "'u1'").case(dir, vec![0u8, 255]),
        spec("i2", "'<i2'").case(dir, vec![-32768i16, 1, 32767]),
        spec("u2", "'<u2'").case(dir, vec![0u16, 65535]),
        spec("i4", "'<i4'").case(dir, vec![i32::MIN, 0, i32::MAX]),
        spec("u4", "'<u4'").case(dir, vec![0u32, u32::MAX]),
        spec("i8", "'<i8'").case(dir, vec![i64::MIN, 0, i64::MAX]),
        spec("u8", "'<u8'").case(dir, vec![0u64, u64::MAX]),
        spec("f4", "'<f4'").case(dir, vec![0.1f32, -3.4e38, 1e-45]),
        spec("f8", "'<f8'").case(dir, vec![0.1f64, -1e308, 5e-324]),
        spec("b1", "'?'").case(dir, vec![true, false, true]),
        spec("extras", "{'names': ['z', 'h', 'ok'], 'formats': ['<c8', '<f2', '?'], 'offsets': [0, 8, 10], 'itemsize': 12}").case(dir, extras.clone()),
        spec("padded", padded_dt).case(dir, padded.clone()),
        spec("padded_dict", padded_dict).case(dir, padded.clone()),
        spec("packed", "[('a', 'u1'), ('b', '<f8'), ('c', '<u2')]").case(
            dir,
            padded.iter().map(|p| Packed { a: p.a, b: p.b, c: p.c }).collect(),
        ),
        spec("aligned", "{'names': ['x', 'y'], 'formats': ['<f4', '<f4'], 'offsets': [0, 4], 'itemsize': 32}")
            .case(dir, vec![Aligned { x: 1.0, y: -2.0 }, Aligned { x: 3.0, y: 4.25 }]),
        spec("nested", outer_dt).case(dir, outer.clone()),
        spec("track", track_dt).case(
            dir,
            vec![Track { n: 2, pts: [Inner { x: 1.0, y: 2.0 }, Inner { x: -1.0, y: 0.5 }] }],
        ),
        spec("enums", tagged_dt).case(dir, tagged.clone()),
        spec("strings", "{'names': ['s', 'u'], 'formats': ['S5', '<U3'], 'offsets': [0, 8], 'itemsize': 20}")
            .case(dir, names.clone()),
        spec("array_of_arrays", "'<f4'").inner(&[2, 3]).case(
            dir,
            vec![[[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]], [[-1.0, -2.0, -3.0], [0.0, 0.5, 0.25]]],
        ),
        // The other byte order, big-endian in the file.
        spec("padded_be", padded_dt).big().case(dir, padded.clone()),
        spec("nested_be", outer_dt).big().case(dir, outer.clone()),
        spec("enums_be", tagged_dt).big().case(dir, tagged),
        spec("strings_be", "{'names': ['s', 'u'], 'formats': ['S5', '<U3'], 'offsets': [0, 8], 'itemsize': 20}")
            .big()
            .case(dir, names),
        spec("extras_be", "{'names': ['z', 'h', 'ok'], 'formats': ['<c8', '<f2', '?'], 'offsets': [0, 8, 10], 'itemsize': 12}")
            .big()
            .case(dir, extras),
        spec("f8_be", "'<f8'").big().case(dir, vec![1.0f64, -2.5]),
        spec("u1_be", "'u1'").big().case(dir, vec![1u8, 2]),
        // Shapes and memory orders.
        spec("c2x3", "'<u2'").shape(&[2, 3]).case(dir, (1..=6u16).collect()),
        spec("f2x3", "'<u2'").shape(&[2, 3]).fortran().case(dir, (1..=6u16).collect()),
        spec("f2x3x2_be", "'<i4'").shape(&[2, 3, 2]).fortran().big().case(dir, (0..12i32).collect()),
        spec("f3x1", "'<u2'").shape(&[3, 1]).fortran().case(dir, vec![1u16, 2, 3]),
        spec("nested_2x1", outer_dt).shape(&[1, 3]).case(dir, outer),
        spec("empty", padded_dt).case(dir, Vec::<Padded>::new()),
        spec("empty_2d", "'<f8'").shape(&[0, 4]).case(dir, Vec::<f64>::new()),
        spec("zero_d", "'<f8'").shape(&[]).case(dir, vec![2.5f64]),
        spec("zero_d_struct", padded_dt).shape(&[]).case(dir, vec![padded[1]]),
    ]
}

#[test]
fn numpy_and_we_read_each_others_files() {
    let dir = tempfile::tempdir().unwrap();
    let cases = cases(dir.path());
    let mut stored = NpzWriter::create(dir.path().join("rs.npz")).unwrap();
    let mut deflated = NpzWriter::create_compressed(dir.path().join("rs_deflated.npz")).unwrap();
    for c in &cases {
        (c.add_to_npz)(&mut stored, &mut deflated);
    }
    stored.finish().unwrap();
    deflated.finish().unwrap();
    let list: Vec<&str> = cases.iter().map(|c| c.py.as_str()).collect();
    let manifest = dir.path().join("cases.py");
    std::fs::write(&manifest, format!("[\n{}\n]\n", list.join(",\n"))).unwrap();
    let out = ndl_testkit::run_python(
        PY_CHECK,
        &[manifest.to_str().unwrap(), dir.path().to_str().unwrap()],
    );
    assert!(out.contains("cases"), "{out}");
    for c in &cases {
        eprintln!("checking {}", c.name);
        (c.check)(dir.path());
    }
    assert_eq!(
        ByteOrder::NATIVE.opposite(),
        ByteOrder::Big,
        "the big-endian cases assume a little-endian machine"
    );
}

/// The padded dtypes of NumPy's own `test_load_padded_dtype` (gaps before,
/// between and after fields, titles, nesting, no fields), each filled with
/// `arr[i] = i + 5` and saved by `np.save` and `np.savez`.
#[test]
fn numpy_padded_dtypes_from_its_test_suite() {
    let dir = tempfile::tempdir().unwrap();
    ndl_testkit::run_python(
        r#"
import sys, numpy as np
out = sys.argv[1]
dt2 = {'names': ['a', 'b'], 'formats': ['i4', 'i4'], 'offsets': [1, 6]}
dts = {
    'dt1': np.dtype('i1, i4, i1', align=True),
    'dt2': np.dtype(dt2),
    'dt3': np.dtype({'names': ['c', 'd'], 'formats': ['i4', dt2]}),
    'dt5': np.dtype({'names': ['a', 'b'], 'formats': ['i4', 'i4'], 'offsets': [1, 6], 'titles': ['aa', 'bb']}),
    'dt6': np.dtype({'names': [], 'formats': [], 'itemsize': 8}),
}
arrays = {}
for name, dt in dts.items():
    arr = np.zeros(3, dt)
    for i in range(3):
        arr[i] = i + 5
    np.save(f'{out}/{name}.npy', arr)
    arrays[name] = arr
np.savez(f'{out}/all.npz', **arrays)
"#,
        &[dir.path().to_str().unwrap()],
    );
    let p = |n: &str| dir.path().join(n);
    let mut z = NpzReader::open(p("all.npz")).unwrap();
    let triples: Vec<AlignedTriple> = (5..8)
        .map(|i| AlignedTriple {
            f0: i,
            f1: i32::from(i),
            f2: i,
        })
        .collect();
    assert_eq!(
        npy::read_file::<AlignedTriple>(p("dt1.npy")).unwrap(),
        triples
    );
    assert_eq!(z.read::<AlignedTriple>("dt1").unwrap(), triples);
    let gapped = |i: i32| Gapped {
        gap0: 0,
        a: i,
        gap1: 0,
        b: i,
    };
    let read_gapped =
        |v: Vec<Gapped>| -> Vec<(i32, i32)> { v.iter().map(|g| (g.a, g.b)).collect() };
    let pairs: Vec<(i32, i32)> = (5..8).map(|i| (i, i)).collect();
    for name in ["dt2", "dt5"] {
        assert_eq!(
            read_gapped(npy::read_file::<Gapped>(p(&format!("{name}.npy"))).unwrap()),
            pairs
        );
        assert_eq!(read_gapped(z.read::<Gapped>(name).unwrap()), pairs);
    }
    let nested = npy::read_file::<HoldsGapped>(p("dt3.npy")).unwrap();
    let got: Vec<(i32, i32, i32)> = nested.iter().map(|h| (h.c, h.d.a, h.d.b)).collect();
    assert_eq!(got, [(5, 5, 5), (6, 6, 6), (7, 7, 7)]);
    assert_eq!(npy::read_file::<NoFields>(p("dt6.npy")).unwrap().len(), 3);
    // And NumPy reads these layouts back from us, with zeros in the gaps.
    npy::write_file(p("ours_dt3.npy"), &[HoldsGapped { c: 1, d: gapped(2) }]).unwrap();
    let out = ndl_testkit::run_python(
        r#"
import sys, numpy as np
a = np.load(sys.argv[1])
dt2 = {'names': ['a', 'b'], 'formats': ['i4', 'i4'], 'offsets': [1, 6]}
assert a.dtype == np.dtype({'names': ['c', 'd'], 'formats': ['<i4', dt2]}), a.dtype
print(a.tolist(), a.tobytes().hex())
"#,
        &[p("ours_dt3.npy").to_str().unwrap()],
    );
    assert_eq!(out.trim(), "[(1, (2, 2))] 0100000000020000000002000000");
}

/// Large arrays take the pipelined write path: still exactly `np.save`'s bytes.
#[test]
fn large_padded_arrays_match_np_save() {
    let dir = tempfile::tempdir().unwrap();
    let n = 300_000u32;
    let data: Vec<Padded> = (0..n)
        .map(|i| Padded {
            a: (i % 256) as u8,
            b: f64::from(i) * 0.5,
            c: (i % 65536) as u16,
        })
        .collect();
    for (name, order) in [("le.npy", ByteOrder::Little), ("be.npy", ByteOrder::Big)] {
        WriteOptions::new()
            .byte_order(order)
            .write_file(dir.path().join(name), &data)
            .unwrap();
    }
    ndl_testkit::run_python(
        r#"
import io, sys, numpy as np
d, n = sys.argv[1], int(sys.argv[2])
for name, order in [('le.npy', '<'), ('be.npy', '>')]:
    dt = np.dtype([('a', 'u1'), ('b', order + 'f8'), ('c', order + 'u2')], align=True)
    exp = np.zeros(n, dt)
    i = np.arange(n)
    exp['a'], exp['b'], exp['c'] = i % 256, i * 0.5, i % 65536
    buf = io.BytesIO()
    np.save(buf, exp)
    assert buf.getvalue() == open(f'{d}/{name}', 'rb').read(), name
"#,
        &[dir.path().to_str().unwrap(), &n.to_string()],
    );
}

/// `FixedStr<N>` fields are NumPy's `S<N>`: NumPy reads ours as the same
/// texts, trailing NULs trimmed, and we read NumPy's, full-length and
/// empty texts included.
#[test]
fn fixed_strings_are_numpys_s() {
    use ndl_runtime::FixedStr;

    #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
    #[repr(C)]
    struct Station {
        code: FixedStr<4>,
        name: FixedStr<8>,
        height: f32,
    }
    let station = |code: &str, name: &str, height| Station {
        code: code.parse().unwrap(),
        name: name.parse().unwrap(),
        height,
    };
    let ours = [station("EGLL", "Heathrow", 25.0), station("K", "", -1.5)];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stations.npy");
    npy::write_file(&path, &ours).unwrap();
    let out = ndl_testkit::run_python(
        "import sys, numpy as np\n\
         a = np.load(sys.argv[1])\n\
         print(a.dtype.descr, a['code'].tolist(), a['name'].tolist())\n\
         np.save(sys.argv[2], np.array([(b'LFPG', b'Paris CD', 119.0), (b'', b'x', 0.0)], a.dtype))",
        &[
            path.to_str().unwrap(),
            dir.path().join("theirs.npy").to_str().unwrap(),
        ],
    );
    assert_eq!(
        out,
        "[('code', '|S4'), ('name', '|S8'), ('height', '<f4')] [b'EGLL', b'K'] [b'Heathrow', b'']\n"
    );
    let theirs = npy::read_file::<Station>(dir.path().join("theirs.npy")).unwrap();
    assert_eq!(
        theirs,
        [station("LFPG", "Paris CD", 119.0), station("", "x", 0.0)]
    );
    assert_eq!(theirs[0].name.as_str(), Ok("Paris CD"));
}

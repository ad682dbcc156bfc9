//! `.npy` headers written as NumPy writes them: byte for byte as
//! `np.save`, in the version NumPy would choose, the same length as the
//! array grows, names escaped as Python's `repr`, and the datatypes a
//! header cannot hold refused.

use crate::npy_header;
use ndl_runtime::Order;

use ndl_runtime::npy::{ByteOrder, Error, Header, HeaderLimits};
use ndl_runtime::{Charset, Datatype, EnumMember, IntType};
use npy_header::{at, big, c, fortran, little, s, same, u, v};

/// A header and the Python expressions of the same dtype and shape.
struct Case {
    header: Header,
    dtype: &'static str,
    shape: &'static str,
    /// Whether reading NumPy's bytes gives back exactly `header`.
    reads_back: bool,
}

fn case(header: Header, dtype: &'static str, shape: &'static str) -> Case {
    Case {
        header,
        dtype,
        shape,
        reads_back: true,
    }
}

// One case a line: the table reads as NumPy's own descr table.
#[rustfmt::skip]
fn cases() -> Vec<Case> {
    use Datatype::*;
    let nested_aligned = c(&[("a", Int8), ("n", c(&[("x", Int8), ("y", Int64)]))]);
    let mut all = vec![
        case(little(Float64, &[3, 6]), "'<f8'", "(3, 6)"),
        case(little(Float64, &[]), "'<f8'", "()"),
        case(little(Bool, &[]), "'?'", "()"),
        case(big(UInt16, &[3]), "'>u2'", "(3,)"),
        case(little(Int8, &[4]), "'i1'", "(4,)"),
        case(little(UInt8, &[0]), "'u1'", "(0,)"),
        case(little(Int16, &[2, 0]), "'<i2'", "(2, 0)"),
        case(little(Int32, &[5]), "'<i4'", "(5,)"),
        case(big(Int64, &[5]), "'>i8'", "(5,)"),
        case(little(UInt32, &[1]), "'<u4'", "(1,)"),
        case(little(UInt64, &[1]), "'<u8'", "(1,)"),
        case(little(Float16, &[2]), "'<f2'", "(2,)"),
        case(big(Float32, &[2]), "'>f4'", "(2,)"),
        case(little(Complex64, &[2]), "'<c8'", "(2,)"),
        case(big(Complex128, &[2]), "'>c16'", "(2,)"),
        case(little(s(10), &[2]), "'S10'", "(2,)"),
        case(little(u(10), &[2]), "'<U10'", "(2,)"),
        case(big(u(3), &[2]), "'>U3'", "(2,)"),
        case(little(v(8), &[2]), "'V8'", "(2,)"),
        case(fortran(little(Float32, &[2, 3])), "'<f4'", "(2, 3)"),
        case(fortran(little(c(&[("a", Int16), ("b", Float64)]), &[4, 2, 3])), "np.dtype([('a','<i2'),('b','<f8')], align=True)", "(4, 2, 3)"),
        case(little(at(12, &[("a", 0, Int32), ("b", 4, Float64)]), &[1]), "[('a','<i4'),('b','<f8')]", "(1,)"),
        case(little(c(&[("a", UInt8), ("b", Int32)]), &[1]), "np.dtype([('a','u1'),('b','<i4')], align=True)", "(1,)"),
        case(little(c(&[("f0", Int8), ("f1", Int32), ("f2", Int8)]), &[2]), "np.dtype('i1,i4,i1', align=True)", "(2,)"),
        case(little(at(10, &[("a", 1, Int32), ("b", 6, Int32)]), &[2]), "np.dtype({'names':['a','b'],'formats':['<i4','<i4'],'offsets':[1,6]})", "(2,)"),
        case(little(at(16, &[("a", 0, Int32), ("b", 4, Int32)]), &[2]), "np.dtype({'names':['a','b'],'formats':['<i4','<i4'],'offsets':[0,4],'itemsize':16})", "(2,)"),
        case(little(at(8, &[]), &[3]), "np.dtype({'names':[],'formats':[],'itemsize':8})", "(3,)"),
        case(little(at(0, &[]), &[3]), "np.dtype([])", "(3,)"),
        case(little(nested_aligned, &[2]), "np.dtype([('a','i1'),('n',np.dtype([('x','i1'),('y','<i8')], align=True))], align=True)", "(2,)"),
        case(
            little(c(&[("x", Int32.array_of(&[2])), ("y", Float64.array_of(&[2, 2])), ("z", UInt8)]), &[2]),
            "np.dtype({'names':['x','y','z'],'formats':[('<i4',(2,)),('<f8',(2,2)),'u1'],'offsets':[0,8,40],'itemsize':48})",
            "(2,)",
        ),
        case(
            little(at(12, &[("x", 0, c(&[("a", Int8), ("b", Int16)]).array_of(&[3]))]), &[2]),
            "np.dtype([('x', np.dtype([('a','i1'),('b','<i2')], align=True), (3,))])",
            "(2,)",
        ),
        case(
            big(at(13, &[("a", 0, Int32), ("n", 4, at(9, &[("x", 0, Float64), ("y", 8, UInt8)]))]), &[2]),
            "[('a','>i4'),('n',[('x','>f8'),('y','u1')])]",
            "(2,)",
        ),
        case(
            little(at(30, &[("b", 0, Bool), ("s", 1, s(3)), ("u", 4, u(2)), ("v", 12, v(4)), ("z", 16, Complex64), ("h", 24, Float16), ("q", 26, UInt32)]), &[]),
            "[('b','?'),('s','S3'),('u','<U2'),('v','V4'),('z','<c8'),('h','<f2'),('q','<u4')]",
            "()",
        ),
        case(
            big(at(30, &[("b", 0, Bool), ("s", 1, s(3)), ("u", 4, u(2)), ("v", 12, v(4)), ("z", 16, Complex64), ("h", 24, Float16), ("q", 26, UInt32)]), &[2]),
            "[('b','?'),('s','S3'),('u','>U2'),('v','V4'),('z','>c8'),('h','>f2'),('q','>u4')]",
            "(2,)",
        ),
        case(little(c(&[("a", Int32), ("", Int32), ("b", Int32)]), &[2]), "np.dtype({'names':['a','','b'],'formats':['<i4']*3})", "(2,)"),
        case(little(c(&[("é", Float64)]), &[2]), "[('\\xe9', '<f8')]", "(2,)"),
        case(little(c(&[("int", Int64), ("整形", Int64)]), &[2]), "[('int', '<i8'), ('\\u6574\\u5f62', '<i8')]", "(2,)"),
        case(little(c(&[("😀", UInt8)]), &[2]), "[('\\U0001f600', 'u1')]", "(2,)"),
        case(little(c(&[("a'b", Int16)]), &[2]), "[(\"a'b\", '<i2')]", "(2,)"),
        case(little(c(&[("a\"b", Int16)]), &[2]), "[('a\"b', '<i2')]", "(2,)"),
        case(little(c(&[("a'b\"c", Int16)]), &[2]), "[('a\\'b\"c', '<i2')]", "(2,)"),
        case(little(c(&[("a\\b", Int16)]), &[2]), "[('a\\\\b', '<i2')]", "(2,)"),
        case(
            little(c(&[("\0", UInt8), ("\x7f", UInt8), ("\n", UInt8), ("\t", UInt8), ("\r", UInt8), ("\u{2028}", UInt8), ("\u{a0}", UInt8), ("\u{ad}", UInt8), ("\u{85}", UInt8), ("\u{1b}", UInt8)]), &[2]),
            "[(n, 'u1') for n in ['\\x00', '\\x7f', '\\n', '\\t', '\\r', '\\u2028', '\\xa0', '\\xad', '\\x85', '\\x1b']]",
            "(2,)",
        ),
        case(
            little(same((0..=10000).map(|i| format!("f{i}")), Int32), &[]),
            "np.dtype('i,' * 10000 + 'i')",
            "()",
        ),
        case(
            little(same((0..500).map(|i| i.to_string().repeat(100)), Float64), &[1]),
            "[(str(i) * 100, '<f8') for i in range(500)]",
            "(1,)",
        ),
        case(little(same(["x".repeat(65536)], Int64), &[]), "[('x' * 65536, '<i8')]", "()"),
        // The largest HEADER_LEN that still fits version 1.0 is 65526.
        case(little(same(["x".repeat(65450)], Int64), &[]), "[('x' * 65450, '<i8')]", "()"),
    ];
    for k in [29, 30, 31, 93, 94, 95] {
        let name: &'static str = Box::leak(" ".repeat(k).into_boxed_str());
        let dtype: &'static str = Box::leak(format!("[(' ' * {k}, '<i8')]").into_boxed_str());
        all.push(case(
            little(same([name.to_string()], Int64), &[2, 3]),
            dtype,
            "(2, 3)",
        ));
        all.push(case(
            fortran(little(same([name.to_string()], Int64), &[2, 3])),
            dtype,
            "(2, 3)",
        ));
    }
    // Written as the base type: reads back as the base, not the enum.
    let e = ndl_runtime::Enum {
        base: IntType::Int16,
        members: vec![EnumMember::new("a", 1)],
    };
    all.push(Case {
        reads_back: false,
        ..case(big(Datatype::Enum(e), &[3]), "'>i2'", "(3,)")
    });
    // A void member named '' is padding to NumPy: written as such, lost on reading.
    all.push(Case {
        reads_back: false,
        ..case(
            little(c(&[("a", Int32), ("", v(4))]), &[1]),
            "np.dtype({'names':['a',''],'formats':['<i4','V4']})",
            "(1,)",
        )
    });
    // A top-level array moves into the shape.
    let arr = Datatype::Array(ndl_runtime::Array {
        base: Box::new(Float32),
        shape: vec![3],
    });
    all.push(Case {
        reads_back: false,
        ..case(little(arr, &[2]), "'<f4'", "(2, 3)")
    });
    all
}

/// The header bytes NumPy writes for each case: `np.save` of a zero array
/// (the header is what precedes the data).
fn numpy_headers(cases: &[Case]) -> Vec<Vec<u8>> {
    let mut script = String::from(
        "import io, sys, warnings\nimport numpy as np\nwarnings.simplefilter('ignore')\ncases = [\n",
    );
    for c in cases {
        script.push_str(&format!(
            "    ({}, {}, {}),\n",
            c.dtype,
            c.shape,
            if c.header.order.is_fortran() {
                "'F'"
            } else {
                "'C'"
            }
        ));
    }
    script.push_str(
        "]\nfor dt, shape, order in cases:\n    a = np.zeros(shape, dtype=np.dtype(dt), order=order)\n    \
         b = io.BytesIO()\n    np.save(b, a)\n    data = b.getvalue()\n    print(data[:len(data) - a.nbytes].hex())\n",
    );
    ndl_testkit::run_python(&script, &[])
        .lines()
        .map(|l| {
            (0..l.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&l[i..i + 2], 16).unwrap())
                .collect()
        })
        .collect()
}

#[test]
fn header_bytes_equal_numpys() {
    let cases = cases();
    let expected = numpy_headers(&cases);
    assert_eq!(expected.len(), cases.len());
    for (c, want) in cases.iter().zip(&expected) {
        let got = c.header.to_bytes().unwrap();
        assert!(
            got == *want,
            "header of {} {}:\n ours:  {}\n numpy: {}",
            c.dtype,
            c.shape,
            String::from_utf8_lossy(&got[..got.len().min(300)]),
            String::from_utf8_lossy(&want[..want.len().min(300)]),
        );
        assert_eq!(got.len() % 64, 0);
    }
}

#[test]
fn numpy_headers_read_back() {
    let cases = cases();
    let expected = numpy_headers(&cases);
    let limits = HeaderLimits {
        max_header_size: usize::MAX,
    };
    for (c, bytes) in cases.iter().zip(&expected) {
        let (h, offset) =
            Header::parse(bytes, &limits).unwrap_or_else(|e| panic!("{}: {e}", c.dtype));
        assert_eq!(offset, bytes.len());
        if c.reads_back {
            let mut want = c.header.clone();
            if !has_multibyte(&want.datatype) {
                want.byte_order = ByteOrder::NATIVE;
            }
            assert_eq!(h, want, "{}", c.dtype);
        }
        // Reading and writing again gives the same bytes.
        assert_eq!(&h.to_bytes().unwrap(), bytes, "{}", c.dtype);
    }
}

fn has_multibyte(dt: &Datatype) -> bool {
    match dt {
        Datatype::Compound(c) => c.members.iter().any(|m| has_multibyte(&m.datatype)),
        Datatype::Array(a) => has_multibyte(&a.base),
        Datatype::FixedString(s) => s.charset == Charset::Utf32,
        Datatype::Opaque(_) => false,
        other => other.size().is_some_and(|s| s > 1),
    }
}

#[test]
fn version_is_chosen_like_numpy() {
    let h = little(c(&[("é", Datatype::Float64)]), &[2])
        .to_bytes()
        .unwrap();
    assert_eq!(&h[6..8], &[1, 0]);
    assert!(h.windows(3).any(|w| w == b"'\xe9'"), "raw latin-1 byte");
    let h = little(c(&[("整", Datatype::Float64)]), &[2])
        .to_bytes()
        .unwrap();
    assert_eq!(&h[6..8], &[3, 0]);
    assert!(h.windows(5).any(|w| w == "'整'".as_bytes()), "UTF-8");
    let h = little(same(["x".repeat(65536)], Datatype::Int64), &[])
        .to_bytes()
        .unwrap();
    assert_eq!(&h[6..8], &[2, 0]);
    assert_eq!(u32::from_le_bytes(h[8..12].try_into().unwrap()), 65664 - 12);
}

#[test]
fn growth_axis_keeps_the_length() {
    for fortran_order in [false, true] {
        let mut h = little(
            c(&[("a", Datatype::UInt8), ("b", Datatype::Float64)]),
            &[0, 3],
        );
        h.order = Order::from_fortran(fortran_order);
        let grow = if fortran_order { 1 } else { 0 };
        let len0 = h.to_bytes().unwrap().len();
        for n in [1, 9, 10, 12345, 10u64.pow(19), u64::MAX] {
            h.shape[grow] = n;
            let bytes = h.to_bytes().unwrap();
            assert_eq!(bytes.len(), len0, "n = {n}");
            // What a streaming writer relies on: rewrite in place, read back.
            if n <= 10u64.pow(12) {
                let (back, offset) = Header::parse(&bytes, &HeaderLimits::default()).unwrap();
                assert_eq!((back.shape[grow], offset), (n, len0));
            }
        }
    }
    // And the same bytes as NumPy's writer for the largest count.
    let h = little(Datatype::UInt8, &[u64::MAX]);
    let out = ndl_testkit::run_python(
        "import io, numpy.lib._format_impl as f\nb = io.BytesIO()\n\
         f._write_array_header(b, {'descr': '|u1', 'fortran_order': False, 'shape': (2**64 - 1,)}, None)\n\
         print(b.getvalue().hex())",
        &[],
    );
    let want: Vec<u8> = (0..out.trim().len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&out[i..i + 2], 16).unwrap())
        .collect();
    assert_eq!(h.to_bytes().unwrap(), want);
}

#[test]
fn unwritable_datatypes() {
    use Datatype::*;
    for dt in [
        String,
        Vlen(Box::new(Int8)),
        ObjRef,
        c(&[("a", Int8)]).array_of(&[2]),
    ] {
        let mut h = little(dt, &[2]);
        h.order = Order::Fortran;
        let e = h.to_bytes().unwrap_err();
        assert!(matches!(e, Error::NotWritable { .. }), "{e}");
    }
    let overlap = at(8, &[("a", 0, Int32), ("b", 2, Int32)]);
    let e = little(overlap, &[1]).to_bytes().unwrap_err();
    assert!(e.to_string().contains("field 'b'"), "{e}");
}

#[test]
fn is_printable_matches_python_except_unassigned() {
    // Names of every 3rd code point up to U+32000 plus some of the rest.
    let points: Vec<u32> = (0..0x32000)
        .step_by(3)
        .chain((0x32000..0x110000).step_by(997))
        .filter(|&c| char::from_u32(c).is_some())
        .collect();
    let ours: Vec<std::string::String> = points
        .iter()
        .map(|&p| {
            let d = c(&[(
                char::from_u32(p).unwrap().to_string().as_str(),
                Datatype::UInt8,
            )])
            .numpy_descr();
            d["[(".len()..d.len() - ", '|u1')]".len()].to_string()
        })
        .collect();
    let list = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        list.path(),
        points
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(","),
    )
    .unwrap();
    let out = ndl_testkit::run_python(
        "import sys, unicodedata\nfor p in map(int, open(sys.argv[1]).read().split(',')):\n    c = chr(p)\n    print(repr(c).encode().hex(), unicodedata.category(c))\n",
        &[list.path().to_str().unwrap()],
    );
    let mut mismatches = Vec::new();
    for ((p, ours), line) in points.iter().zip(&ours).zip(out.lines()) {
        let (theirs, category) = line.rsplit_once(' ').unwrap();
        let theirs: Vec<u8> = (0..theirs.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&theirs[i..i + 2], 16).unwrap())
            .collect();
        if ours.as_bytes() != theirs {
            mismatches.push((*p, category.to_string()));
        }
    }
    let not_unassigned: Vec<_> = mismatches.iter().filter(|(_, cat)| cat != "Cn").collect();
    assert!(
        not_unassigned.is_empty(),
        "{} mismatches, e.g. {:x?}",
        not_unassigned.len(),
        &not_unassigned[..not_unassigned.len().min(20)]
    );
}

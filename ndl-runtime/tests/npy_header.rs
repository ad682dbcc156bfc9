//! `.npy` headers against NumPy: the bytes `np.save` writes, what reading
//! them gives, and how every malformed header of NumPy's test-suite (and
//! more) is refused.

use ndl_runtime::npy::{ByteOrder, Error, Header, HeaderLimits};
use ndl_runtime::{
    Array, Charset, Compound, Datatype, EnumMember, FixedString, IntType, Member, Opaque,
};

fn little(datatype: Datatype, shape: &[u64]) -> Header {
    Header {
        datatype,
        byte_order: ByteOrder::Little,
        other_order: Vec::new(),
        fortran_order: false,
        shape: shape.to_vec(),
    }
}

fn big(datatype: Datatype, shape: &[u64]) -> Header {
    Header {
        byte_order: ByteOrder::Big,
        ..little(datatype, shape)
    }
}

fn fortran(mut h: Header) -> Header {
    h.fortran_order = true;
    h
}

fn c(members: &[(&str, Datatype)]) -> Datatype {
    Datatype::Compound(Compound::c_layout(members.iter().cloned()).unwrap())
}

/// An array of `base`, kept apart from an array `base` (no folding).
fn nested(base: Datatype, shape: &[usize]) -> Datatype {
    Datatype::Array(Array {
        base: Box::new(base),
        shape: shape.to_vec(),
    })
}

fn at(size: usize, members: &[(&str, usize, Datatype)]) -> Datatype {
    Datatype::Compound(Compound {
        size,
        members: members
            .iter()
            .map(|(n, o, d)| Member::new(*n, *o, d.clone()))
            .collect(),
    })
}

/// `c_layout` of `names` all of one datatype.
fn same(names: impl IntoIterator<Item = String>, dt: Datatype) -> Datatype {
    Datatype::Compound(Compound::c_layout(names.into_iter().map(|n| (n, dt.clone()))).unwrap())
}

fn s(n: usize) -> Datatype {
    Datatype::FixedString(FixedString {
        length: n,
        charset: Charset::Ascii,
    })
}

fn u(n: usize) -> Datatype {
    Datatype::FixedString(FixedString {
        length: n,
        charset: Charset::Utf32,
    })
}

fn v(n: usize) -> Datatype {
    Datatype::Opaque(Opaque { size: n, tag: None })
}

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
            if c.header.fortran_order { "'F'" } else { "'C'" }
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
        h.fortran_order = fortran_order;
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

// ---- malformed input ------------------------------------------------------

fn v1(text: &str) -> Vec<u8> {
    ndl_testkit::npy_file(1, &text.chars().map(|c| c as u8).collect::<Vec<_>>())
}

fn parse(bytes: &[u8]) -> Result<Header, Error> {
    Header::parse(bytes, &HeaderLimits::default()).map(|(h, _)| h)
}

fn fails(bytes: &[u8]) -> (Error, String) {
    let e = parse(bytes).expect_err(&String::from_utf8_lossy(bytes));
    let msg = e.to_string();
    (e, msg)
}

const GOOD: &str = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }";

#[test]
fn bad_magic_m1_to_m7() {
    for (bytes, found) in [
        (&b"\x92NUMPY\x01\x00"[..], "b'\\x92NUMPY'"),
        (b"\x00NUMPY\x01\x00", "b'\\x00NUMPY'"),
        (b"\x93numpy\x01\x00", "b'\\x93numpy'"),
        (b"\x93MATLB\x01\x00", "b'\\x93MATLB'"),
    ] {
        let (e, msg) = fails(bytes);
        assert!(matches!(e, Error::BadMagic { .. }), "{msg}");
        assert!(msg.contains(found) && msg.contains("byte 0"), "{msg}");
    }
    for (bytes, got) in [(&b"\x93NUMPY\x01"[..], 7), (b"\x93NUMPY", 6), (b"", 0)] {
        let (e, msg) = fails(bytes);
        assert!(
            matches!(e, Error::UnexpectedEof { what: "magic string", offset: 0, expected: 8, got: g } if g == got),
            "{msg}"
        );
    }
    // Not even a prefix of the magic: said so, rather than "too short".
    assert!(matches!(fails(b"GIF").0, Error::BadMagic { .. }));
}

#[test]
fn bad_versions_v1_to_v6() {
    for (major, minor) in [(1, 1), (0, 0), (0, 1), (2, 2), (255, 255), (4, 0)] {
        let mut f = ndl_testkit::npy_file(1, GOOD.as_bytes());
        f[6] = major;
        f[7] = minor;
        let (e, msg) = fails(&f);
        assert!(
            matches!(e, Error::UnsupportedVersion { major: a, minor: b } if (a, b) == (major, minor)),
            "{msg}"
        );
        assert!(
            msg.contains(&format!("{major}.{minor}")) && msg.contains("byte 6"),
            "{msg}"
        );
    }
    // V4: 2.0 is valid, only the length field is missing.
    let (e, msg) = fails(b"\x93NUMPY\x02\x00");
    assert!(
        matches!(
            e,
            Error::UnexpectedEof {
                what: "array header length",
                offset: 8,
                expected: 4,
                got: 0
            }
        ),
        "{msg}"
    );
}

#[test]
fn bad_header_h1_to_h5() {
    // H1, H2: the length field is missing or cut.
    assert!(matches!(
        fails(b"\x93NUMPY\x01\x00").0,
        Error::UnexpectedEof {
            what: "array header length",
            offset: 8,
            expected: 2,
            got: 0
        }
    ));
    assert!(matches!(
        fails(b"\x93NUMPY\x01\x001").0,
        Error::UnexpectedEof {
            what: "array header length",
            offset: 8,
            expected: 2,
            got: 1
        }
    ));
    // H3: HEADER_LEN 1, no header byte.
    assert!(matches!(
        fails(b"\x93NUMPY\x01\x00\x01\x00").0,
        Error::UnexpectedEof {
            what: "array header",
            offset: 10,
            expected: 1,
            got: 0
        }
    ));
    // H4 (as intended): no fortran_order.
    let h4 = [
        &b"\x93NUMPY\x01\x006\x00{'descr': 'x', 'shape': (1, 2), }"[..],
        &[b' '; 20],
        b"\n",
    ]
    .concat();
    assert_eq!(h4.len(), 64);
    let (e, msg) = fails(&h4);
    assert!(
        matches!(&e, Error::WrongKeys { offset: 10, found } if found == &["'descr'", "'shape'"]),
        "{msg}"
    );
    // H5 (as intended): an extra key.
    let h5 = [
        &b"\x93NUMPY\x01\x00v\x00{'descr': 'x', 'extrakey': -1, 'fortran_order': False, 'shape': (1, 2), }"[..],
        &[b' '; 44],
        b"\n",
    ]
    .concat();
    assert_eq!(h5.len(), 128);
    let (e, msg) = fails(&h5);
    assert!(
        matches!(&e, Error::WrongKeys { found, .. } if found == &["'descr'", "'extrakey'", "'fortran_order'", "'shape'"]),
        "{msg}"
    );
    assert!(msg.contains("'extrakey'"));
}

#[test]
fn header_syntax_and_structure() {
    let syntax = [
        ("", 10),
        ("   \n", 14),
        ("hello world", 10),
        ("__import__('os').system('true')", 10),
        (
            "{\"descr\": \"<f8\", \"fortran_order\": false, \"shape\": (2,)}",
            44,
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\x00",
            67,
        ),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (2", 62),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }}",
            67,
        ),
        (
            "{'descr': b'<f8' '', 'fortran_order': False, 'shape': (2,)}",
            27,
        ),
    ];
    for (text, offset) in syntax {
        let (e, msg) = fails(&v1(text));
        assert!(
            matches!(e, Error::HeaderSyntax { offset: o, .. } if o == offset),
            "{text:?}: {msg}"
        );
        assert!(msg.contains(&format!("byte {offset}")), "{msg}");
    }
    for text in [
        "['descr', '<f8']",
        "('<f8', False, (2,))",
        "5",
        "{'descr', 'shape'}",
    ] {
        let (e, msg) = fails(&v1(text));
        assert!(
            matches!(e, Error::NotADict { offset: 10, .. }),
            "{text}: {msg}"
        );
    }
    for (text, keys) in [
        ("{}", vec![]),
        (
            "{'descr': '<f8', 'shape': (2,)}",
            vec!["'descr'", "'shape'"],
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 1: 2}",
            vec!["'descr'", "'fortran_order'", "'shape'", "1"],
        ),
    ] {
        let (e, msg) = fails(&v1(text));
        assert!(
            matches!(&e, Error::WrongKeys { found, .. } if *found == keys),
            "{text}: {msg}"
        );
    }
}

#[test]
fn literal_forms_numpy_accepts() {
    let ok = [
        "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (2,)}",
        "{'descr': 'x', 'descr': '<f8', 'fortran_order': False, 'shape': (2,)}",
        " \t\n{'descr': '<' 'f8', # comment\n 'fortran_order': False, 'shape': (+2,)}\n",
        "{u'descr': r'<f8', 'fortran_order': False, 'shape': (0x2,)}",
        "{'descr': '\\x3cf8', 'fortran_order': False, 'shape': (2L,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2,)}",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1_0,)}\x0c",
    ];
    for text in ok {
        let h = parse(&v1(text)).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(h.datatype, Datatype::Float64);
        assert!(h.shape == [2] || h.shape == [10]);
    }
    // The Python 2 `L` suffix is for 1.0 and 2.0 only.
    let text = "{'descr': '<f8', 'fortran_order': False, 'shape': (2L,)}";
    assert!(parse(&ndl_testkit::npy_file(2, text.as_bytes())).is_ok());
    assert!(matches!(
        fails(&ndl_testkit::npy_file(3, text.as_bytes())).0,
        Error::HeaderSyntax { .. }
    ));
    // No padding, no newline, odd alignment: all fine for a reader.
    let f = v1(GOOD);
    assert_eq!(
        Header::parse(&f, &HeaderLimits::default()).unwrap().1,
        f.len()
    );
}

#[test]
fn invalid_shapes() {
    let with_shape = |s: &str| {
        v1(&format!(
            "{{'descr': '<f8', 'fortran_order': False, 'shape': {s}}}"
        ))
    };
    let shape_at = 10 + "{'descr': '<f8', 'fortran_order': False, 'shape': ".len() as u64;
    for (shape, at, what) in [
        ("[2]", 0, "list"),
        ("2", 0, "int"),
        ("None", 0, "None"),
        ("(2.0,)", 1, "float"),
        ("('2',)", 1, "str"),
        ("(None,)", 1, "None"),
        ("((2,),)", 1, "tuple"),
        ("(True, 2)", 1, "bool"),
        ("(2, False)", 4, "bool"),
        ("(-1,)", 1, "negative"),
        ("(99999999999999999999999,)", 1, "larger than"),
        (
            "(999999999999999999999999999999999999999999,)",
            1,
            "out of range",
        ),
    ] {
        let (e, msg) = fails(&with_shape(shape));
        assert!(
            matches!(e, Error::InvalidShape { offset, .. } if offset == shape_at + at),
            "{shape}: {msg}"
        );
        assert!(msg.contains(what), "{shape}: {msg}");
    }
    let (e, msg) = fails(&with_shape("(4294967296, 4294967296)"));
    assert!(matches!(e, Error::ShapeOverflow { .. }), "{msg}");
    // The element count fits, the byte count does not.
    let (e, msg) = fails(&with_shape("(4294967296, 536870912)"));
    assert!(
        matches!(e, Error::ShapeOverflow { itemsize: 8, .. }),
        "{msg}"
    );
    assert_eq!(
        parse(&with_shape("(4294967296, 268435455)"))
            .unwrap()
            .data_len()
            .unwrap(),
        8 * 4294967296 * 268435455
    );
}

#[test]
fn invalid_fortran_order() {
    for value in ["0", "'False'", "None", "1"] {
        let text = format!("{{'descr': '<f8', 'fortran_order': {value}, 'shape': (2,)}}");
        let (e, msg) = fails(&v1(&text));
        assert!(
            matches!(e, Error::InvalidFortranOrder { offset: 44, .. }),
            "{msg}"
        );
        assert!(msg.contains(value), "{msg}");
    }
}

fn with_descr(d: &str) -> Vec<u8> {
    v1(&format!(
        "{{'descr': {d}, 'fortran_order': False, 'shape': (2,)}}"
    ))
}

#[test]
fn invalid_descrs() {
    for d in [
        "'x'",
        "5",
        "None",
        "b'<f8'",
        "'<f3'",
        "[('a','zz')]",
        "'float64'",
        "'S'",
        "{'names': ['a'], 'formats': ['<f8']}",
        "[('a',)]",
        "[('a','<f8',(1,),5)]",
        "[(1,'<f8')]",
        "[('a','<f8',(-1,))]",
        "[('a','<f8',(2.0,))]",
        "('<f8', 2, 3)",
        "[5]",
        "[(('t', 5), '<f8')]",
        "'<M8[fortnight]'",
        "[('t','<m8[2147483648s]')]",
    ] {
        let (e, msg) = fails(&with_descr(d));
        assert!(
            matches!(e, Error::InvalidDescr { offset, .. } if offset >= 20),
            "{d}: {msg}"
        );
    }
    // The offset points at the offending value, and the field is named.
    let (e, msg) = fails(&with_descr("[('a', '<f8'), ('b', [('c', 'zz')])]"));
    assert!(
        matches!(&e, Error::InvalidDescr { offset: 48, field, .. } if field == "b.c"),
        "{msg}"
    );
    assert!(msg.contains("'zz'") && msg.contains("field 'b.c'"), "{msg}");
    for (d, what) in [
        ("'|O'", "pickle"),
        ("'O8'", "pickle"),
        ("[('a','<i4'),('o','|O')]", "pickle"),
        ("'T'", "StringDType"),
        ("'<m8'", "has no unit"),
        ("'>M8[0s]'", "multiple 0"),
        ("[('t','<M8[00D]')]", "multiple 00"),
        ("'<f16'", "long double"),
    ] {
        let (e, msg) = fails(&with_descr(d));
        assert!(matches!(e, Error::UnsupportedDescr { .. }), "{d}: {msg}");
        assert!(msg.contains(what), "{d}: {msg}");
    }
    let (e, msg) = fails(&with_descr("[('a','<f8'),('a','<f8')]"));
    assert!(
        matches!(&e, Error::DuplicateField { offset: 33, name } if name == "a"),
        "{msg}"
    );
    let (e, msg) = fails(&with_descr("[(('a', 'x'),'<f8'),('a','<f8')]"));
    assert!(
        matches!(&e, Error::DuplicateField { name, .. } if name == "a"),
        "{msg}"
    );
}

#[test]
fn descr_forms_numpy_accepts() {
    use Datatype::*;
    let read = |d: &str| parse(&with_descr(d)).unwrap_or_else(|e| panic!("{d}: {e}"));
    assert_eq!(
        read("[('a','<f4',2)]").datatype,
        c(&[("a", Float32.array_of(&[2]))])
    );
    assert_eq!(read("[('a','<f8',())]").datatype, c(&[("a", Float64)]));
    assert_eq!(
        read("[(('title', 'a'),'<i4')]").datatype,
        c(&[("a", Int32)])
    );
    assert_eq!(read("[((5, 'a'),'<i4')]").datatype, c(&[("a", Int32)]));
    assert_eq!(
        read("[('', '|V1', (4,)), ('a', '<i4')]").datatype,
        at(8, &[("a", 4, Int32)])
    );
    assert_eq!(read("[('', '<i4')]").datatype, c(&[("", Int32)]));
    assert_eq!(read("[('', '|V8')]").datatype, at(8, &[]));
    assert_eq!(read("[]").datatype, at(0, &[]));
    // A subarray of a subarray keeps its nesting, as NumPy does.
    assert_eq!(
        read("[('c', ('<f8', (5,)), (2,))]").datatype,
        c(&[("c", nested(Float64.array_of(&[5]), &[2]))])
    );
    assert_eq!(
        read("[('c', (('<f8', (5,)), (2,)))]").datatype,
        read("[('c', ('<f8', (5,)), (2,))]").datatype
    );
    assert_eq!(
        read("[('c', ('<f8', (5,)), ())]").datatype,
        c(&[("c", Float64.array_of(&[5]))])
    );
    assert_eq!(read("'?'").datatype, Bool);
    assert_eq!(read("'<b1'").datatype, Bool);
    // Byte order is ignored where it does not matter, '|'/'=' mean native.
    let h = read("[('a','>u1'),('s','<S3'),('b','>i4'),('v','<V2')]");
    assert_eq!(h.byte_order, ByteOrder::Big);
    assert_eq!(read("'=f8'").byte_order, ByteOrder::NATIVE);
    assert_eq!(read("'|U3'").datatype, u(3));
    // A subarray descr at the top level extends the shape (C order).
    let h = read("('<f4', (3,))");
    assert_eq!((h.datatype, h.shape), (Float32, vec![2, 3]));
    let f = v1("{'descr': ('<f4', (3,)), 'fortran_order': True, 'shape': (2,)}");
    assert!(matches!(fails(&f).0, Error::UnsupportedDescr { .. }));
}

#[test]
fn encodings() {
    // Latin-1 in 1.0: the byte 0xE9 is 'é'.
    let h = parse(&ndl_testkit::npy_file(
        1,
        b"{'descr': [('\xe9', '<f8')], 'fortran_order': False, 'shape': (2,)}",
    ))
    .unwrap();
    assert_eq!(h.datatype, c(&[("é", Datatype::Float64)]));
    // UTF-8 in 3.0; invalid UTF-8 is an error at its byte.
    let h = parse(&ndl_testkit::npy_file(
        3,
        "{'descr': [('é', '<f8')], 'fortran_order': False, 'shape': (2,)}".as_bytes(),
    ))
    .unwrap();
    assert_eq!(h.datatype, c(&[("é", Datatype::Float64)]));
    let (e, msg) = fails(&ndl_testkit::npy_file(
        3,
        b"{'descr': [('\xff', '<f8')], 'fortran_order': False, 'shape': (2,)}",
    ));
    assert!(matches!(e, Error::HeaderEncoding { offset: 25 }), "{msg}");
    assert!(msg.contains("UTF-8") && msg.contains("byte 25"), "{msg}");
    // Error offsets count file bytes, in either encoding.
    let (e, _) = fails(&ndl_testkit::npy_file(
        1,
        b"{'descr': [('\xe9\xe9', 'zz')], 'fortran_order': False, 'shape': (2,)}",
    ));
    assert_eq!(e.offset(), Some(10 + 18));
    let (e, _) = fails(&ndl_testkit::npy_file(
        3,
        "{'descr': [('éé', 'zz')], 'fortran_order': False, 'shape': (2,)}".as_bytes(),
    ));
    assert_eq!(e.offset(), Some(12 + 20));
}

/// A 1.0 header of exactly `len` characters (padding and `\n` included).
fn sized(len: usize) -> Vec<u8> {
    let mut text = GOOD.to_string();
    text.push_str(&" ".repeat(len - GOOD.len() - 1));
    text.push('\n');
    v1(&text)
}

#[test]
fn header_size_limit() {
    assert!(parse(&sized(10000)).is_ok());
    let (e, msg) = fails(&sized(10001));
    assert!(
        matches!(
            e,
            Error::HeaderTooLarge {
                offset: 10,
                len: 10001,
                limit: 10000
            }
        ),
        "{msg}"
    );
    assert!(msg.contains("10001") && msg.contains("10000"), "{msg}");
    let limits = HeaderLimits {
        max_header_size: 20000,
    };
    assert!(Header::parse(&sized(20000), &limits).is_ok());
    assert!(Header::parse(&sized(20001), &limits).is_err());
    // The limit is checked before reading: a claim alone is enough.
    let mut f = b"\x93NUMPY\x02\x00".to_vec();
    f.extend_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        parse(&f).unwrap_err(),
        Error::HeaderTooLarge {
            len: 4294967295,
            ..
        }
    ));
    // With no limit, a huge claim in a tiny file is a short read, not an allocation.
    f.extend_from_slice(GOOD.as_bytes());
    let unlimited = HeaderLimits {
        max_header_size: usize::MAX,
    };
    let e = Header::parse(&f, &unlimited).unwrap_err();
    assert!(
        matches!(e, Error::UnexpectedEof { what: "array header", offset: 12, expected: 4294967295, got } if got == GOOD.len() as u64),
        "{e}"
    );
    // 3.0 counts characters, as NumPy does after decoding.
    let mut text = "{'descr': [('é', '<f8')], 'fortran_order': False, 'shape': (2,)}".to_string();
    text.push_str(&" ".repeat(10000 - text.chars().count() - 1));
    text.push('\n');
    assert!(text.len() > 10000);
    assert!(parse(&ndl_testkit::npy_file(3, text.as_bytes())).is_ok());
}

#[test]
fn header_len_zero_and_cut_short() {
    let (e, msg) = fails(b"\x93NUMPY\x01\x00\x00\x00");
    assert!(matches!(e, Error::HeaderSyntax { offset: 10, .. }), "{msg}");
    // HEADER_LEN says 30: the dict is cut inside.
    let mut f = v1(GOOD);
    f[8] = 30;
    let (e, msg) = fails(&f);
    assert!(matches!(e, Error::HeaderSyntax { .. }), "{msg}");
}

#[test]
fn truncated_files_fail_like_test_roundtrip_truncated() {
    use Datatype::*;
    let limits = HeaderLimits::default();
    for h in [
        little(Float64, &[0]),
        little(Float64, &[]),
        big(Int16, &[1500]),
        fortran(little(Complex64, &[30, 50])),
        little(c(&[("a", UInt8), ("b", Float64)]), &[3]),
        little(Bool, &[0, 5]),
    ] {
        let mut f = h.to_bytes().unwrap();
        let header_len = f.len() as u64;
        let data_len = h.data_len().unwrap();
        f.resize(f.len() + data_len as usize, 0);
        let (back, data) = Header::split(&f, &limits).unwrap();
        assert_eq!((back.shape, data.len() as u64), (h.shape.clone(), data_len));
        let cut = &f[..f.len() - 1];
        let e = Header::split(cut, &limits).unwrap_err();
        if data_len == 0 {
            assert!(
                matches!(e, Error::UnexpectedEof { what: "array header", offset: 10, expected, got } if got + 1 == expected && expected == header_len - 10),
                "{e}"
            );
        } else {
            assert!(
                matches!(e, Error::UnexpectedEof { what: "array data", offset, expected, got } if offset == header_len && expected == data_len && got == data_len - 1),
                "{e}"
            );
        }
        // Every shorter prefix fails too, without panicking.
        for n in 0..f.len() - 1 {
            assert!(Header::split(&f[..n], &limits).is_err(), "prefix {n}");
        }
    }
}

#[test]
fn numpy_refuses_what_we_refuse_and_accepts_what_we_accept() {
    // A sample of the cases above, loaded by NumPy itself.
    let samples: Vec<(Vec<u8>, bool)> = vec![
        (with_descr("[('a','<f8'),('a','<f8')]"), false),
        (with_descr("[('a','<f4',2)]"), true),
        (with_descr("'|O'"), false),
        (
            v1("{'descr': '<f8', 'fortran_order': 0, 'shape': (2,)}"),
            false,
        ),
        (
            v1("{'descr': '<f8', 'fortran_order': False, 'shape': (2.0,)}"),
            false,
        ),
        (
            v1(" \t\n{'descr': '<' 'f8', # c\n 'fortran_order': False, 'shape': (+2,)}\n"),
            true,
        ),
        (
            v1("{\"descr\": \"<f8\", \"fortran_order\": false, \"shape\": (2,)}"),
            false,
        ),
        (
            ndl_testkit::npy_file(
                3,
                b"{'descr': [('\xff', '<f8')], 'fortran_order': False, 'shape': (2,)}",
            ),
            false,
        ),
        (sized(10001), false),
        (sized(10000), true),
    ];
    let mut script = String::from("import io, sys, numpy as np, warnings\nwarnings.simplefilter('ignore')\nfor h in sys.argv[1:]:\n    b = bytes.fromhex(h) + bytes(16)\n    try:\n        np.load(io.BytesIO(b)); print('ok')\n    except Exception as e:\n        print('error')\n");
    script.push('\n');
    let args: Vec<String> = samples
        .iter()
        .map(|(b, _)| b.iter().map(|x| format!("{x:02x}")).collect())
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = ndl_testkit::run_python(&script, &args);
    for ((bytes, ok), line) in samples.iter().zip(out.lines()) {
        assert_eq!(
            line == "ok",
            *ok,
            "numpy on {}",
            String::from_utf8_lossy(bytes)
        );
        let mut f = bytes.clone();
        f.extend_from_slice(&[0; 16]);
        assert_eq!(
            parse(&f).is_ok(),
            *ok,
            "ours on {}",
            String::from_utf8_lossy(bytes)
        );
    }
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
        h.fortran_order = true;
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

/// NumPy's own test_format.py case: a field that is a subarray of a
/// subarray. The header NumPy writes parses to the nested datatype, prints
/// back as `np.lib.format.dtype_to_descr` does, byte for byte as NumPy's
/// header, and the data reads into a Rust type whose datatype folds it.
#[test]
fn a_subarray_of_a_subarray_keeps_its_form() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.npy");
    let descr = ndl_testkit::run_python(
        "import sys, numpy as np\n\
         dt = np.dtype([('c', ('<f8', (5,)), (2,))])\n\
         np.save(sys.argv[1], np.arange(30.0).view(dt))\n\
         print(np.lib.format.dtype_to_descr(dt))",
        &[path.to_str().unwrap()],
    );
    assert_eq!(descr.trim(), "[('c', ('<f8', (5,)), (2,))]");
    let file = std::fs::read(&path).unwrap();
    let (h, start) = Header::parse(&file, &HeaderLimits::default()).unwrap();
    assert_eq!(
        h.datatype,
        Datatype::Compound(Compound {
            size: 80,
            members: vec![Member::new(
                "c",
                0,
                nested(Datatype::Float64.array_of(&[5]), &[2])
            )],
        })
    );
    assert_eq!(h.descr().unwrap(), descr.trim());
    assert_eq!(h.to_bytes().unwrap(), file[..start]);

    #[derive(Clone, Copy, Debug, PartialEq, ndl_runtime::NdlType)]
    #[repr(C)]
    struct C {
        c: [[f64; 5]; 2],
    }
    let read = ndl_runtime::npy::read_file::<C>(&path).unwrap();
    assert_eq!(read.len(), 3);
    assert_eq!(read[2].c[1][4], 29.0);
}

//! Every malformed `.npy` header of NumPy's test-suite, and more, refused
//! with the error that names what is wrong and the byte where it is.

use crate::npy_header;

use ndl_runtime::npy::Error;
use npy_header::{GOOD, fails, parse, v1, with_descr};

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
fn header_len_zero_and_cut_short() {
    let (e, msg) = fails(b"\x93NUMPY\x01\x00\x00\x00");
    assert!(matches!(e, Error::HeaderSyntax { offset: 10, .. }), "{msg}");
    // HEADER_LEN says 30: the dict is cut inside.
    let mut f = v1(GOOD);
    f[8] = 30;
    let (e, msg) = fails(&f);
    assert!(matches!(e, Error::HeaderSyntax { .. }), "{msg}");
}

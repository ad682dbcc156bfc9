//! `.npy` headers read as NumPy reads them: every literal and descr form
//! NumPy accepts, Latin-1 and UTF-8 names, a subarray of a subarray, and
//! NumPy refusing what we refuse.

use crate::npy_header;

use ndl_runtime::npy::{ByteOrder, Error, Header, HeaderLimits};
use ndl_runtime::{Compound, Datatype, Member};
use npy_header::{GOOD, at, c, fails, nested, parse, sized, u, v1, with_descr};

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
    let mut script = String::from(
        "import io, sys, numpy as np, warnings\nwarnings.simplefilter('ignore')\nfor h in sys.argv[1:]:\n    b = bytes.fromhex(h) + bytes(16)\n    try:\n        np.load(io.BytesIO(b)); print('ok')\n    except Exception as e:\n        print('error')\n",
    );
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

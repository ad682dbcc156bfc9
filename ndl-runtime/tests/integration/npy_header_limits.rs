//! How much a `.npy` header reader reads: the header size limit, checked
//! before reading, and files cut short anywhere.

use crate::npy_header;

use ndl_runtime::Datatype;
use ndl_runtime::npy::{Error, Header, HeaderLimits};
use npy_header::{GOOD, big, c, fails, fortran, little, parse, sized};

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

//! `.npz` archives against NumPy's `np.savez`/`np.load` behaviour: member
//! names, non-`.npy` members, nested names, limits, zip64 members.

mod common;
mod npy_support;

use ndl_runtime::npy::Error;
use ndl_runtime::npz::{group_path, NpzReader, NpzWriter};
use ndl_runtime::Datatype;
use npy_support::Padded;

#[test]
fn names_and_members_as_numpy_writes_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("np.npz");
    common::run_python(
        r#"
import sys, zipfile, io, numpy as np
p = sys.argv[1]
np.savez(p, np.arange(3, dtype='<i8'), **{'dir/x': np.array([1.5, 2.5]), 'y.npy': np.array([7], 'u1'),
         'rec': np.zeros(2, np.dtype([('a', 'u1'), ('b', '<f8'), ('c', '<u2')], align=True))})
with zipfile.ZipFile(p, 'a') as z:
    z.writestr('metadata', b'Name: Test')
    b = io.BytesIO(); np.save(b, np.array([True, False])); z.writestr('test2', b.getvalue())
assert np.load(p).files == ['dir/x', 'y.npy', 'rec', 'arr_0', 'metadata', 'test2'], np.load(p).files
"#,
        &[path.to_str().unwrap()],
    );
    let mut z = NpzReader::open(&path).unwrap();
    assert_eq!(
        z.names(),
        ["dir/x", "y.npy", "rec", "arr_0", "metadata", "test2"]
    );
    assert_eq!(z.read::<i64>("arr_0").unwrap(), [0, 1, 2]);
    assert_eq!(z.read::<i64>("arr_0.npy").unwrap(), [0, 1, 2]);
    assert_eq!(z.read::<f64>("dir/x").unwrap(), [1.5, 2.5]);
    assert_eq!(group_path("dir/x"), ("/dir".to_string(), "x".to_string()));
    assert_eq!(z.read::<u8>("y.npy").unwrap(), [7]);
    assert!(matches!(z.read::<u8>("y"), Err(Error::InFile { .. })));
    assert_eq!(z.read::<bool>("test2").unwrap(), [true, false]);
    assert_eq!(
        z.read::<Padded>("rec").unwrap(),
        [Padded { a: 0, b: 0.0, c: 0 }; 2]
    );
    assert_eq!(z.header("dir/x").unwrap().datatype, Datatype::Float64);
    // A member that is not a .npy file: listed, its bytes readable, but not an array.
    assert_eq!(z.member_bytes("metadata").unwrap(), b"Name: Test");
    let e = z.read::<u8>("metadata").unwrap_err();
    assert!(
        e.to_string().contains("np.npz/metadata: not a .npy file"),
        "{e}"
    );
    let e = z.read::<u8>("nothing").unwrap_err();
    assert!(e.to_string().contains("no array named 'nothing'"), "{e}");
    // Header limits apply per member, as NumPy's max_header_size.
    let mut z = NpzReader::open(&path).unwrap().max_header_size(50);
    let e = z.header("rec").unwrap_err();
    assert!(e.to_string().contains("more than the limit of 50"), "{e}");
}

#[test]
fn an_empty_savez_archive_has_no_names() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.npz");
    common::run_python(
        "import sys, numpy as np; np.savez(sys.argv[1])",
        &[path.to_str().unwrap()],
    );
    assert!(NpzReader::open(&path).unwrap().names().is_empty());
    NpzWriter::create(dir.path().join("ours.npz"))
        .unwrap()
        .finish()
        .unwrap();
    let out = common::run_python(
        "import sys, numpy as np; print(np.load(sys.argv[1]).files)",
        &[dir.path().join("ours.npz").to_str().unwrap()],
    );
    assert_eq!(out.trim(), "[]");
}

#[test]
fn members_carry_zip64_extras_like_numpys() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("z.npz");
    let mut w = NpzWriter::create(&path).unwrap();
    w.add("a", &[1u8, 2, 3]).unwrap();
    w.finish().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..4], b"PK\x03\x04");
    let name_len = usize::from(u16::from_le_bytes([bytes[26], bytes[27]]));
    let extra_len = u16::from_le_bytes([bytes[28], bytes[29]]);
    assert_eq!(&bytes[30..30 + name_len], b"a.npy");
    assert!(extra_len >= 20, "zip64 extra field");
    assert_eq!(
        &bytes[30 + name_len..32 + name_len],
        &[1, 0],
        "zip64 extra id"
    );
    let out = common::run_python(
        r#"
import sys, zipfile, numpy as np
z = zipfile.ZipFile(sys.argv[1])
i = z.infolist()[0]
print(i.filename, i.compress_type, np.load(sys.argv[1])['a'].tolist())
"#,
        &[path.to_str().unwrap()],
    );
    assert_eq!(out.trim(), "a.npy 0 [1, 2, 3]");
}

#[test]
fn a_member_cut_short_is_refused_by_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.npz");
    for method in ["ZIP_STORED", "ZIP_DEFLATED"] {
        common::run_python(
            "import sys, io, zipfile, numpy as np\n\
             b = io.BytesIO(); np.save(b, np.arange(10, dtype='<i4'))\n\
             with zipfile.ZipFile(sys.argv[1], 'w', getattr(zipfile, sys.argv[2])) as z:\n\
             \x20   z.writestr('x.npy', b.getvalue()[:-4])\n\
             \x20   z.writestr('ok.npy', b.getvalue())",
            &[path.to_str().unwrap(), method],
        );
        let mut r = NpzReader::open(&path).unwrap();
        assert_eq!(r.header("ok").unwrap().shape, [10]);
        let err = r.header("x").unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("array data") && msg.contains("x.npy"),
            "{method}: {msg}"
        );
        assert!(r.read::<i32>("x").is_err(), "{method}");
        assert_eq!(r.read::<i32>("ok").unwrap(), (0..10).collect::<Vec<_>>());
    }
}

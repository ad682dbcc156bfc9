//! `.npz` archives against NumPy's `np.savez`/`np.load` behaviour: member
//! names, non-`.npy` members, nested names, limits, zip64 members.

use ndl_runtime::Datatype;
use ndl_runtime::npy::Error;
use ndl_runtime::npz::{NpzReader, NpzWriter, group_path};
use ndl_testkit::records::Padded;

#[test]
fn names_and_members_as_numpy_writes_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("np.npz");
    ndl_testkit::run_python(
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
    ndl_testkit::run_python(
        "import sys, numpy as np; np.savez(sys.argv[1])",
        &[path.to_str().unwrap()],
    );
    assert!(NpzReader::open(&path).unwrap().names().is_empty());
    NpzWriter::create(dir.path().join("ours.npz"))
        .unwrap()
        .finish()
        .unwrap();
    let out = ndl_testkit::run_python(
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
    let out = ndl_testkit::run_python(
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
        ndl_testkit::run_python(
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

/// The archive offsets of every member's records, as Python's `zipfile`
/// and NumPy find them, one `name offset` line per member; also checks
/// every CRC and that NumPy loads each member as `expected` (a Python
/// dict literal of lists).
const MEMBER_OFFSETS: &str = r#"
import sys, zipfile, struct, numpy as np
p, expected = sys.argv[1], eval(sys.argv[2])
z = zipfile.ZipFile(p)
assert z.testzip() is None
f = open(p, 'rb')
loaded = np.load(p)
for i in z.infolist():
    f.seek(i.header_offset + 26)
    n, m = struct.unpack('<HH', f.read(4))
    start = i.header_offset + 30 + n + m
    f.seek(start + 6)
    major = f.read(1)[0]
    f.seek(start + 8)
    hlen = struct.unpack('<H' if major == 1 else '<I', f.read(2 if major == 1 else 4))[0]
    name = i.filename[:-4]
    assert loaded[name].tolist() == expected[name], (name, loaded[name].tolist())
    print(name, start + (10 if major == 1 else 12) + hlen)
"#;

fn member_offsets(path: &std::path::Path, expected: &str) -> Vec<(String, u64)> {
    let out = ndl_testkit::run_python(MEMBER_OFFSETS, &[path.to_str().unwrap(), expected]);
    out.lines()
        .map(|l| {
            let (name, at) = l.split_once(' ').unwrap();
            (name.to_string(), at.parse().unwrap())
        })
        .collect()
}

#[test]
fn create_aligns_every_member_for_mmap_and_numpy_still_loads_it() {
    use ndl_runtime::npy::WriteOptions;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("aligned.npz");
    let mut w = NpzWriter::create(&path).unwrap();
    w.add("b", &[1u8, 2, 3]).unwrap();
    w.add("grid/values", &[0.5f64, -1.5, 2.25, 8.0]).unwrap();
    w.add_with("m", &WriteOptions::new().shape(&[2, 2]), &[1i32, 2, 3, 4])
        .unwrap();
    w.add("flags", &[true, false, true]).unwrap();
    w.add::<f32>("empty", &[]).unwrap();
    w.add(
        "rec",
        &[Padded { a: 1, b: 2.5, c: 3 }, Padded { a: 4, b: 5.5, c: 6 }],
    )
    .unwrap();
    w.finish().unwrap();
    let offsets = member_offsets(
        &path,
        "{'b': [1, 2, 3], 'grid/values': [0.5, -1.5, 2.25, 8.0], 'm': [[1, 2], [3, 4]], \
          'flags': [True, False, True], 'empty': [], 'rec': [(1, 2.5, 3), (4, 5.5, 6)]}",
    );
    assert_eq!(offsets.len(), 6);
    for (name, at) in &offsets {
        assert_eq!(at % 64, 0, "{name} records at {at}");
    }
    let mut r = NpzReader::open(&path).unwrap();
    // SAFETY: the test owns the archive and does not change it while mapped.
    unsafe {
        assert_eq!(r.mmap::<u8>("b").unwrap().as_slice(), [1, 2, 3]);
        let v = r.mmap::<f64>("grid/values.npy").unwrap();
        assert_eq!(v.as_slice(), [0.5, -1.5, 2.25, 8.0]);
        let m = r.mmap::<i32>("m").unwrap();
        assert_eq!((m.as_slice(), m.shape()), (&[1, 2, 3, 4][..], &[2, 2][..]));
        assert_eq!(
            r.mmap::<bool>("flags").unwrap().as_slice(),
            [true, false, true]
        );
        assert!(r.mmap::<f32>("empty").unwrap().is_empty());
        assert_eq!(
            r.mmap::<Padded>("rec").unwrap()[1],
            Padded { a: 4, b: 5.5, c: 6 }
        );
        // The header is checked as for a .npy file.
        let e = r.mmap::<f32>("grid/values").unwrap_err();
        assert!(
            matches!(
                e.kind(),
                Error::TypeMismatch { .. } | Error::DatatypeMismatch { .. }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("aligned.npz/grid/values.npy"), "{e}");
        let e = r.mmap::<u8>("nothing").unwrap_err();
        assert!(matches!(e.kind(), Error::NoSuchArray { .. }), "{e}");
    }
}

#[test]
fn savez_members_are_unaligned_and_savez_compressed_ones_compressed() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.npz");
    let packed = dir.path().join("packed.npz");
    ndl_testkit::run_python(
        "import sys, numpy as np\n\
         np.savez(sys.argv[1], a=np.array([1.5, 2.5], '<f8'), b=np.array([7, 8], 'u1'))\n\
         np.savez_compressed(sys.argv[2], a=np.array([1.5, 2.5], '<f8'))",
        &[plain.to_str().unwrap(), packed.to_str().unwrap()],
    );
    let offsets = member_offsets(&plain, "{'a': [1.5, 2.5], 'b': [7, 8]}");
    let a_at = offsets[0].1;
    // NumPy's layout makes this fixed: 30 + len('a.npy') + a 20-byte zip64
    // extra + a 128-byte header.
    assert_eq!(a_at, 183);
    let mut r = NpzReader::open(&plain).unwrap();
    // SAFETY: the test owns the archives and does not change them while mapped.
    unsafe {
        let e = r.mmap::<f64>("a").unwrap_err();
        assert!(matches!(e.kind(), Error::NotMappable { .. }), "{e}");
        let msg = e.to_string();
        assert!(
            msg.contains("plain.npz/a.npy")
                && msg.contains("byte 183 of the archive, not a multiple of 8")
                && msg.contains("read it with NpzReader::read"),
            "{msg}"
        );
        // Bytes need no alignment.
        assert_eq!(r.mmap::<u8>("b").unwrap().as_slice(), [7, 8]);
        let e = NpzReader::open(&packed)
            .unwrap()
            .mmap::<f64>("a")
            .unwrap_err();
        assert!(matches!(e.kind(), Error::NotMappable { .. }), "{e}");
        let msg = e.to_string();
        assert!(
            msg.contains("packed.npz/a.npy")
                && msg.contains("compressed")
                && msg.contains("read it with NpzReader::read"),
            "{msg}"
        );
    }
    assert_eq!(r.read::<f64>("a").unwrap(), [1.5, 2.5]);
}

#[test]
fn mmap_handles_data_descriptors_and_refuses_what_it_cannot_view() {
    use ndl_runtime::npy::{ByteOrder, WriteOptions};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stream.npz");
    // Python writes to an unseekable stream with data descriptors: the
    // sizes follow the data and the local header holds zeros.
    ndl_testkit::run_python(
        "import sys, io, zipfile, numpy as np\n\
         class Pipe(io.RawIOBase):\n\
         \x20   def __init__(s, f): s.f = f\n\
         \x20   def writable(s): return True\n\
         \x20   def write(s, b): return s.f.write(b)\n\
         with open(sys.argv[1], 'wb') as f, zipfile.ZipFile(Pipe(f), 'w') as z:\n\
         \x20   with z.open('x.npy', 'w') as m: np.save(m, np.arange(5, dtype='u1'))\n\
         assert zipfile.ZipFile(sys.argv[1]).infolist()[0].flag_bits & 8\n\
         assert zipfile.ZipFile(sys.argv[1]).testzip() is None",
        &[path.to_str().unwrap()],
    );
    let mut r = NpzReader::open(&path).unwrap();
    // SAFETY: the test owns the archives and does not change them while mapped.
    unsafe {
        assert_eq!(r.mmap::<u8>("x").unwrap().as_slice(), [0, 1, 2, 3, 4]);
    }
    let other = dir.path().join("other.npz");
    let mut w = NpzWriter::create(&other).unwrap();
    let order = ByteOrder::NATIVE.opposite();
    w.add_with("o", &WriteOptions::new().byte_order(order), &[1u32])
        .unwrap();
    w.finish().unwrap();
    let mut r = NpzReader::open(&other).unwrap();
    // SAFETY: as above.
    let e = unsafe { r.mmap::<u32>("o") }.unwrap_err();
    assert!(
        e.to_string()
            .contains("read it with NpzReader::read, which converts"),
        "{e}"
    );
    assert_eq!(r.read::<u32>("o").unwrap(), [1]);
    let mut r = NpzReader::new(std::io::BufReader::new(
        std::fs::File::open(&other).unwrap(),
    ))
    .unwrap();
    // SAFETY: as above.
    let e = unsafe { r.mmap::<u32>("o") }.unwrap_err();
    assert!(e.to_string().contains("open it by path"), "{e}");
}

#[test]
fn mmap_refuses_a_member_that_runs_past_the_end_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.npz");
    // The central directory claims 1 MiB of stored data; the file holds 133.
    ndl_testkit::run_python(
        "import sys, io, zipfile, struct, numpy as np\n\
         b = io.BytesIO(); np.save(b, np.arange(5, dtype='u1'))\n\
         with zipfile.ZipFile(sys.argv[1], 'w') as z: z.writestr('x.npy', b.getvalue())\n\
         d = bytearray(open(sys.argv[1], 'rb').read())\n\
         c = d.index(b'PK\\x01\\x02')\n\
         d[c + 20:c + 28] = struct.pack('<II', 1 << 20, 1 << 20)\n\
         open(sys.argv[1], 'wb').write(d)",
        &[path.to_str().unwrap()],
    );
    let mut r = NpzReader::open(&path).unwrap();
    // SAFETY: the test owns the archive and does not change it while mapped.
    let e = unsafe { r.mmap::<u8>("x") }.unwrap_err();
    assert!(matches!(e.kind(), Error::UnexpectedEof { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("long.npz/x.npy")
            && msg.contains("stored member at byte 0: expected 1048576 bytes"),
        "{msg}"
    );
}

/// A member NumPy compressed, with fields we lack in another order and
/// byte order, read by field name; without the switch it is refused.
#[test]
fn members_read_by_field_name() {
    #[derive(Clone, Copy, Debug, PartialEq, ndl_runtime::NdlType)]
    #[repr(C)]
    struct Part {
        b: f64,
        a: u8,
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("np.npz");
    ndl_testkit::run_python(
        r#"
import sys, numpy as np
x = np.zeros(300, np.dtype([('c', '>u2'), ('b', '>f8'), ('a', 'u1')]))
x['a'] = np.arange(300) % 256; x['b'] = np.arange(300) / 4; x['c'] = 9
np.savez_compressed(sys.argv[1], rec=x)
"#,
        &[path.to_str().unwrap()],
    );
    let want: Vec<Part> = (0..300)
        .map(|i| Part {
            b: f64::from(i) / 4.0,
            a: (i % 256) as u8,
        })
        .collect();
    assert!(NpzReader::open(&path).unwrap().read::<Part>("rec").is_err());
    let mut z = NpzReader::open(&path).unwrap().by_name(true);
    assert_eq!(z.read::<Part>("rec").unwrap(), want);
    #[derive(Clone, Copy, Debug, PartialEq, ndl_runtime::NdlType)]
    #[repr(C)]
    struct Missing {
        d: u8,
    }
    let e = z.read::<Missing>("rec").unwrap_err();
    assert!(e.to_string().contains("no field 'd'"), "{e}");
}

/// A stored member whose data was changed after it was written: its CRC-32
/// no longer matches the directory's. Reading checks the CRC once the
/// member is read to its end; `mmap` does not read the member, and says
/// so; `mmap_checked` reads it once and refuses it.
#[test]
fn a_corrupted_member_fails_its_crc_check() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.npz");
    let mut w = NpzWriter::create(&path).unwrap();
    w.add("x", &[1.0f64, 2.0, 3.0]).unwrap();
    w.finish().unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes
        .windows(8)
        .position(|w| w == 2.0f64.to_ne_bytes())
        .unwrap();
    bytes[at + 7] ^= 0x01;
    std::fs::write(&path, &bytes).unwrap();

    let mut r = NpzReader::open(&path).unwrap();
    let e = r.read::<f64>("x").unwrap_err();
    assert!(e.to_string().contains("checksum"), "{e}");
    // SAFETY: nothing modifies the archive while it is mapped.
    let unchecked = unsafe { r.mmap::<f64>("x") }.unwrap();
    assert_ne!(unchecked.as_slice()[1], 2.0);
    drop(unchecked);
    // SAFETY: as above.
    let e = unsafe { r.mmap_checked::<f64>("x") }.unwrap_err();
    assert!(e.to_string().contains("CRC-32"), "{e}");
    assert!(e.to_string().contains("x.npy"), "{e}");

    // An intact member passes the check.
    let mut w = NpzWriter::create(&path).unwrap();
    w.add("x", &[1.0f64, 2.0, 3.0]).unwrap();
    w.finish().unwrap();
    let mut r = NpzReader::open(&path).unwrap();
    // SAFETY: as above.
    let checked = unsafe { r.mmap_checked::<f64>("x") }.unwrap();
    assert_eq!(checked.as_slice(), [1.0, 2.0, 3.0]);
}

//! Reading records by field name (`ReadOptions::by_name`) from files that
//! real NumPy writes: extra fields, other orders, packed and aligned
//! offsets, big-endian, nested compounds; and the errors for missing
//! fields, other types and invalid bools and enums.
//!
//! Run with `NDL_PYTHON=/path/to/python` (numpy).

use std::path::Path;

use ndl_runtime::NdlType;
use ndl_runtime::npy::{self, Error, MmapArray, ReadOptions};
use proptest::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Pos {
    y: f32,
    x: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u8)]
enum Kind {
    Calm = 0,
    Windy = 1,
    Stormy = 5,
}

/// A subset of the file's fields, in another order, nested.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Wanted {
    kind: Kind,
    pos: Pos,
    ok: bool,
    id: u32,
}

fn wanted(i: u32) -> Wanted {
    Wanted {
        kind: [Kind::Calm, Kind::Windy, Kind::Stormy][i as usize % 3],
        pos: Pos {
            y: i as f32 * 0.25,
            x: f64::from(i) * -1.5,
        },
        ok: i.is_multiple_of(2),
        id: 1000 + i,
    }
}

/// Writes `name.npy` with NumPy: `n` records of a dtype holding the
/// fields of [`Wanted`] and more, in `order` (`<` or `>`), packed or aligned.
fn numpy_file(dir: &Path, name: &str, order: &str, align: bool, n: u32) -> std::path::PathBuf {
    let path = dir.join(format!("{name}.npy"));
    ndl_testkit::run_python(
        r#"
import sys, numpy as np
path, o, align, n = sys.argv[1], sys.argv[2], sys.argv[3] == '1', int(sys.argv[4])
pos = np.dtype([('z', o + 'i2'), ('x', o + 'f8'), ('y', o + 'f4')], align=align)
dt = np.dtype([('id', o + 'u4'), ('note', 'S3'), ('pos', pos), ('kind', 'u1'),
               ('w', o + 'f8', (2,)), ('ok', '?')], align=align)
a = np.zeros(n, dt)
i = np.arange(n)
a['id'] = 1000 + i
a['note'] = b'abc'
a['pos']['z'] = -i
a['pos']['x'] = i * -1.5
a['pos']['y'] = i * 0.25
a['kind'] = np.array([0, 1, 5])[i % 3]
a['w'] = 7.0
a['ok'] = i % 2 == 0
np.save(path, a)
"#,
        &[
            path.to_str().unwrap(),
            order,
            if align { "1" } else { "0" },
            &n.to_string(),
        ],
    );
    path
}

fn by_name() -> ReadOptions {
    ReadOptions::new().by_name(true)
}

#[test]
fn numpy_files_with_more_fields_read_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let n = 20_000; // several read chunks of 256 KiB
    let expected: Vec<Wanted> = (0..n).map(wanted).collect();
    for (order, align) in [("<", false), ("<", true), (">", false), (">", true)] {
        let path = numpy_file(
            dir.path(),
            &format!("f{align}{}", order == ">"),
            order,
            align,
            n,
        );
        let label = format!("order {order}, align {align}");
        let got = by_name().read_file::<Wanted>(&path).expect(&label);
        assert_eq!(got.shape, [u64::from(n)], "{label}");
        assert!(got.data == expected, "{label}");
        // From a reader of unknown length too.
        let bytes = std::fs::read(&path).unwrap();
        let got = by_name().read::<Wanted, _>(&bytes[..]).expect(&label);
        assert!(got.data == expected, "{label}");
        // Without the switch the layouts must be equal, as before.
        // ... and the error says that reading by name would do.
        let e = ReadOptions::new().read_file::<Wanted>(&path).unwrap_err();
        assert!(matches!(e.kind(), Error::TypeMismatch { .. }), "{e}");
        assert!(e.to_string().contains("ReadOptions::by_name(true)"), "{e}");
        // A map never gives a zero-copy view.
        // SAFETY: nothing modifies the file while it is mapped.
        assert!(unsafe { MmapArray::<Wanted>::open(&path) }.is_err());
    }
}

#[test]
fn a_file_of_the_exact_layout_reads_the_same_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("same.npy");
    let data: Vec<Wanted> = (0..100).map(wanted).collect();
    npy::write_file(&path, &data).unwrap();
    assert_eq!(by_name().read_file::<Wanted>(&path).unwrap().data, data);
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct NeedsV {
    id: u32,
    v: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct PosOnlyZ {
    z: i16,
    q: i16,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct NeedsPosQ {
    pos: PosOnlyZ,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct IdAsI64 {
    id: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct PosX32 {
    x: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct NestedType {
    pos: PosX32,
}

#[test]
fn missing_fields_and_other_types_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = numpy_file(dir.path(), "f", "<", false, 3);
    let e = by_name().read_file::<NeedsV>(&path).unwrap_err();
    match e.kind() {
        Error::MissingField { field, available } => {
            assert_eq!(field, "v");
            assert_eq!(available, &["id", "note", "pos", "kind", "w", "ok"]);
        }
        other => panic!("{other}"),
    }
    assert!(e.to_string().contains("no field 'v'"), "{e}");
    let e = by_name().read_file::<NeedsPosQ>(&path).unwrap_err();
    assert!(
        matches!(e.kind(), Error::MissingField { field, .. } if field == "pos.q"),
        "{e}"
    );
    // Where reading by name cannot help, the exact read does not offer it.
    let e = ReadOptions::new().read_file::<IdAsI64>(&path).unwrap_err();
    assert!(!e.to_string().contains("by_name"), "{e}");
    let e = by_name().read_file::<IdAsI64>(&path).unwrap_err();
    match e.kind() {
        Error::TypeMismatch { field, message } => {
            assert_eq!(field, "id");
            assert_eq!(
                message,
                "file has uint32, type expects int64 (reading by name)"
            );
        }
        other => panic!("{other}"),
    }
    let e = by_name().read_file::<NestedType>(&path).unwrap_err();
    assert!(
        matches!(e.kind(), Error::TypeMismatch { field, .. } if field == "pos.x"),
        "{e}"
    );
}

#[test]
fn invalid_bools_and_enums_are_caught_at_their_file_offset() {
    let dir = tempfile::tempdir().unwrap();
    let path = numpy_file(dir.path(), "f", ">", true, 10);
    // Offsets of the aligned, big-endian dtype, from NumPy itself.
    let offsets = ndl_testkit::run_python(
        "import sys, numpy as np\na = np.load(sys.argv[1])\n\
         print(a.dtype.fields['kind'][1], a.dtype.fields['ok'][1], a.dtype.itemsize)",
        &[path.to_str().unwrap()],
    );
    let v: Vec<u64> = offsets
        .split_whitespace()
        .map(|s| s.parse().unwrap())
        .collect();
    let (kind, ok, itemsize) = (v[0], v[1], v[2]);
    let header = npy::read_header_file(&path).unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    let data = bytes.len() as u64 - 10 * itemsize;
    assert_eq!(header.shape, [10]);

    let at = data + 7 * itemsize + kind;
    bytes[at as usize] = 3;
    std::fs::write(&path, &bytes).unwrap();
    let e = by_name().read_file::<Wanted>(&path).unwrap_err();
    match e.kind() {
        Error::InvalidValue {
            record,
            offset,
            field,
            message,
        } => {
            assert_eq!((*record, *offset, field.as_str()), (7, at, "kind"));
            assert!(message.contains("3 is not a value"), "{message}");
        }
        other => panic!("{other}"),
    }
    bytes[at as usize] = 5;
    let at = data + 4 * itemsize + ok;
    bytes[at as usize] = 2;
    std::fs::write(&path, &bytes).unwrap();
    let e = by_name().read_file::<Wanted>(&path).unwrap_err();
    assert!(
        matches!(e.kind(), Error::InvalidValue { record: 4, offset, field, .. } if *offset == at && field == "ok"),
        "{e}"
    );
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Pair {
    b: u16,
    a: u8,
}

#[test]
fn array_record_types_read_by_name() {
    // `[Pair; 2]` reads a (n, 2) array of a compound with more fields.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grid.npy");
    ndl_testkit::run_python(
        r#"
import sys, numpy as np
a = np.zeros((3, 2), [('a', 'u1'), ('c', '>i8'), ('b', '>u2')])
a['a'] = np.arange(6).reshape(3, 2)
a['b'] = 100 + np.arange(6).reshape(3, 2)
np.save(sys.argv[1], a)
"#,
        &[path.to_str().unwrap()],
    );
    let got = by_name().read_file::<[Pair; 2]>(&path).unwrap();
    assert_eq!(got.shape, [3]);
    let flat: Vec<(u8, u16)> = got.data.iter().flatten().map(|p| (p.a, p.b)).collect();
    assert_eq!(
        flat,
        (0..6u8)
            .map(|i| (i, 100 + u16::from(i)))
            .collect::<Vec<_>>()
    );
}

#[test]
fn short_files_fail_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    let path = numpy_file(dir.path(), "f", "<", false, 50);
    let bytes = std::fs::read(&path).unwrap();
    let cut = &bytes[..bytes.len() - 5];
    std::fs::write(&path, cut).unwrap();
    for e in [
        by_name().read_file::<Wanted>(&path).unwrap_err(),
        by_name().read::<Wanted, _>(cut).unwrap_err(),
    ] {
        assert!(
            matches!(
                e.kind(),
                Error::UnexpectedEof {
                    what: "array data",
                    ..
                }
            ),
            "{e}"
        );
    }
}

/// A record with its fields in a chosen order and place: reading any
/// subset of the fields by name gives the values written.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Wide {
    a: u8,
    b: u64,
    c: i16,
    d: f32,
    e: [u16; 3],
    f: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Narrow {
    e: [u16; 3],
    d: f32,
    f: bool,
    b: u64,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_records_read_by_name_keep_their_values(
        rows in prop::collection::vec((any::<u8>(), any::<u64>(), any::<i16>(), any::<u32>(), any::<[u16; 3]>(), any::<bool>()), 0..300),
        big in any::<bool>(),
    ) {
        let data: Vec<Wide> = rows
            .iter()
            .map(|&(a, b, c, d, e, f)| Wide { a, b, c, d: f32::from_bits(d & 0x7f7f_ffff), e, f })
            .collect();
        let order = if big { npy::ByteOrder::Big } else { npy::ByteOrder::Little };
        let mut file = Vec::new();
        npy::WriteOptions::new().byte_order(order).write(&mut file, &data).unwrap();
        let got = by_name().read::<Narrow, _>(&file[..]).unwrap();
        let want: Vec<Narrow> = data.iter().map(|w| Narrow { e: w.e, d: w.d, f: w.f, b: w.b }).collect();
        prop_assert_eq!(got.data, want);
    }
}

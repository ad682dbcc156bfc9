//! h5py reads what we write as exactly the NumPy dtype `np.save` gives
//! the same records, and we read what h5py writes. Fails (never skips)
//! without h5py in the Python 3.12 venv.

use std::path::Path;

use ndl_runtime::NdlType;
use ndl_runtime::time::{DateTime64, Nanos, Seconds, TimeDelta64};
use ndl_testkit::python::{python312, run_with};
use ndl_testkit::records::{
    C64, Color, Extras, F16, Inner, Level, Outer, Packed, Padded, S5, Tagged, Track, Wide,
};

/// Time fields, as h5py stores NumPy's: opaque, tagged with the dtype.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Timed {
    at: DateTime64<Nanos>,
    took: TimeDelta64<Seconds>,
    code: S5,
}

/// Writes `records` as .h5 and .npy side by side, and has h5py check
/// that the dataset's dtype and bytes are the .npy's.
fn h5py_reads_as_numpy<T: NdlType + ndl_runtime::Record + PartialEq + std::fmt::Debug + Send>(
    dir: &Path,
    name: &str,
    records: &[T],
) {
    let h5 = dir.join(format!("{name}.h5"));
    let npy = dir.join(format!("{name}.npy"));
    ndl_hdf5::write(&h5, "/g/data", records).unwrap();
    ndl_runtime::npy::WriteOptions::new()
        .write_file(&npy, records)
        .unwrap();
    run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
d = f["g/data"]
want = np.load(sys.argv[2])
assert d.dtype == want.dtype, (d.dtype, want.dtype)
got = d[...]
assert got.tobytes() == want.tobytes(), (got, want)
named = [k for k in f if isinstance(f[k], h5py.Datatype)]
assert sys.argv[3] in named, named
assert f[sys.argv[3]].dtype == want.dtype
"#,
        &[h5.to_str().unwrap(), npy.to_str().unwrap(), name],
    );
    assert_eq!(ndl_hdf5::read::<T>(&h5, "/g/data").unwrap(), records);
    // netCDF-C reads the file too: its types are committed as it needs.
    let text = ndl_testkit::netcdf::ncdump(&["-h"], &h5);
    assert!(text.contains(&format!("{name} data(")), "{text}");
}

#[test]
fn h5py_reads_our_records_as_their_numpy_dtype() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    h5py_reads_as_numpy(
        d,
        "Padded",
        &[
            Padded { a: 1, b: 2.5, c: 3 },
            Padded {
                a: 255,
                b: -0.0,
                c: 65535,
            },
        ],
    );
    h5py_reads_as_numpy(d, "Packed", &[Packed { a: 1, b: 2.5, c: 3 }]);
    let inner = Inner { x: 1.0, y: -2.0 };
    h5py_reads_as_numpy(
        d,
        "Outer",
        &[Outer {
            id: 9,
            pos: inner,
            flags: [true, false, true],
            m: [[1, -2, 3], [4, 5, -6]],
        }],
    );
    h5py_reads_as_numpy(
        d,
        "Track",
        &[Track {
            n: 2,
            pts: [inner, Inner { x: 3.0, y: 4.0 }],
        }],
    );
    h5py_reads_as_numpy(
        d,
        "Tagged",
        &[
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
        ],
    );
    h5py_reads_as_numpy(
        d,
        "Extras",
        &[Extras {
            z: C64 { re: 1.5, im: -1.0 },
            h: F16(0x3c00),
            ok: true,
        }],
    );
    h5py_reads_as_numpy(
        d,
        "Timed",
        &[Timed {
            at: DateTime64::new(1_700_000_000_123_456_789),
            took: TimeDelta64::NAT,
            code: S5(*b"ab\0\0\0"),
        }],
    );
}

#[test]
fn h5py_sees_enum_members_and_bools() {
    let dir = tempfile::tempdir().unwrap();
    let h5 = dir.path().join("tagged.h5");
    ndl_hdf5::write(
        &h5,
        "data",
        &[Tagged {
            c: Color::Green,
            l: Level::High,
            w: Wide::A,
        }],
    )
    .unwrap();
    ndl_hdf5::write(
        dir.path().join("extras.h5"),
        "data",
        &[Extras {
            z: C64 { re: 0.0, im: 0.0 },
            h: F16(0),
            ok: true,
        }],
    )
    .unwrap();
    let out = run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
dt = f["data"].dtype
print(sorted(h5py.check_enum_dtype(dt["c"]).items()), sorted(h5py.check_enum_dtype(dt["l"]).items()))
g = h5py.File(sys.argv[2], "r")
print(g["data"].dtype["ok"], g["data"][0]["ok"])
"#,
        &[
            h5.to_str().unwrap(),
            dir.path().join("extras.h5").to_str().unwrap(),
        ],
    );
    assert_eq!(
        out,
        "[('Blue', 5), ('Green', 1), ('Red', 0)] [('High', 300), ('Low', -5)]\nbool True\n"
    );
}

/// h5py writes the same fields in another order, packing and byte order:
/// HDF5 converts by name, and the records read equal.
#[test]
fn we_read_what_h5py_writes_by_field_name() {
    let dir = tempfile::tempdir().unwrap();
    let h5 = dir.path().join("theirs.h5");
    run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
dt = np.dtype([("c", ">u2"), ("junk", "<f4"), ("b", ">f8"), ("a", "u1")])
a = np.zeros(3, dt)
a["a"] = [1, 2, 3]; a["b"] = [0.5, -1.5, 1e300]; a["c"] = [7, 8, 65535]
with h5py.File(sys.argv[1], "w") as f:
    f["data"] = a
    f["ints"] = np.arange(3, dtype="<i4")
    f["wide"] = np.zeros(2, [("a", "u1"), ("b", "<f8"), ("c", "<u8")])
    f["text"] = np.zeros(2, [("a", "u1"), ("b", "S3"), ("c", "<u2")])
    f["flat"] = np.zeros((2, 2), [("a", "u1"), ("b", "<f8"), ("c", "<u2")])
"#,
        &[h5.to_str().unwrap()],
    );
    let got = ndl_hdf5::read::<Padded>(&h5, "data").unwrap();
    assert_eq!(
        got,
        [
            Padded { a: 1, b: 0.5, c: 7 },
            Padded {
                a: 2,
                b: -1.5,
                c: 8
            },
            Padded {
                a: 3,
                b: 1e300,
                c: 65535
            }
        ]
    );
    let missing = ndl_hdf5::read::<Padded>(&h5, "ints").unwrap_err();
    assert!(
        matches!(missing, ndl_hdf5::Error::TypeMismatch { .. }),
        "{missing}"
    );
    let narrowed = ndl_hdf5::read::<Padded>(&h5, "wide").unwrap_err();
    assert!(
        matches!(&narrowed, ndl_hdf5::Error::TypeMismatch { field, .. } if field == "c"),
        "{narrowed}"
    );
    assert!(
        narrowed.to_string().contains("dataset `wide`"),
        "{narrowed}"
    );
    let kind = ndl_hdf5::read::<Padded>(&h5, "text").unwrap_err();
    assert!(
        matches!(&kind, ndl_hdf5::Error::TypeMismatch { field, .. } if field == "b"),
        "{kind}"
    );
    assert!(
        kind.to_string().contains("stored as an HDF5 string"),
        "{kind}"
    );
    let rank = ndl_hdf5::read::<Padded>(&h5, "flat").unwrap_err();
    assert!(rank.to_string().contains("one-dimensional"), "{rank}");
}

#[test]
fn an_enum_value_that_is_no_member_names_record_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let h5 = dir.path().join("bad.h5");
    run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
color = h5py.enum_dtype({"Red": 0, "Green": 1, "Blue": 5, "Pink": 9}, basetype="u1")
level = h5py.enum_dtype({"Low": -5, "High": 300}, basetype="<i2")
wide = h5py.enum_dtype({"A": 1, "B": 1 << 40}, basetype="<u8")
a = np.zeros(3, [("c", color), ("l", level), ("w", wide)])
a["c"] = [0, 5, 9]; a["l"] = -5; a["w"] = 1
with h5py.File(sys.argv[1], "w") as f:
    f["data"] = a
"#,
        &[h5.to_str().unwrap()],
    );
    let e = ndl_hdf5::read::<Tagged>(&h5, "data").unwrap_err();
    assert!(
        matches!(&e, ndl_hdf5::Error::TypeMismatch { field, .. } if field == "c"),
        "{e}"
    );
    assert!(e.to_string().contains("member `Pink`"), "{e}");

    // A value that is no member of the stored enum either.
    run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
color = h5py.enum_dtype({"Red": 0, "Green": 1, "Blue": 5}, basetype="u1")
level = h5py.enum_dtype({"Low": -5, "High": 300}, basetype="<i2")
wide = h5py.enum_dtype({"A": 1, "B": 1 << 40}, basetype="<u8")
a = np.zeros(3, [("c", color), ("l", level), ("w", wide)])
a["c"] = [0, 5, 7]; a["l"] = -5; a["w"] = 1
with h5py.File(sys.argv[1], "w") as f:
    f["data"] = a
"#,
        &[h5.to_str().unwrap()],
    );
    let e = ndl_hdf5::read::<Tagged>(&h5, "data").unwrap_err();
    assert!(
        matches!(&e, ndl_hdf5::Error::InvalidValue { record: 2, field, .. } if field == "c"),
        "{e:?}"
    );
}

/// An enum whose member names match the type's but whose values differ
/// is refused, naming the member and both values, as `.npy` and Zarr
/// reads refuse it: one rule in every format (HDF5 alone would convert by
/// name, so the same records would read as other numbers elsewhere).
#[test]
fn an_enum_with_other_values_for_the_same_names_is_refused() {
    #[derive(Clone, Copy, Debug, PartialEq, ndl_runtime::NdlType)]
    #[repr(u8)]
    enum Colour {
        Red = 0,
        Green = 1,
        Blue = 5,
    }
    #[derive(Clone, Copy, Debug, PartialEq, ndl_runtime::NdlType)]
    #[repr(C)]
    struct Paint {
        colour: Colour,
    }
    let dir = tempfile::tempdir().unwrap();
    let h5 = dir.path().join("paint.h5");
    run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
same = h5py.enum_dtype({"Red": 0, "Green": 1, "Blue": 5}, basetype="u1")
other = h5py.enum_dtype({"Red": 0, "Green": 2, "Blue": 5}, basetype="u1")
with h5py.File(sys.argv[1], "w") as f:
    f["same"] = np.array([(1,), (5,)], [("colour", same)])
    f["other"] = np.array([(2,), (5,)], [("colour", other)])
"#,
        &[h5.to_str().unwrap()],
    );
    let same = ndl_hdf5::read::<Paint>(&h5, "same").unwrap();
    assert_eq!(
        same,
        [
            Paint {
                colour: Colour::Green
            },
            Paint {
                colour: Colour::Blue
            }
        ]
    );
    let e = ndl_hdf5::read::<Paint>(&h5, "other")
        .unwrap_err()
        .to_string();
    for words in ["colour", "`Green` the value 2", "the type gives it 1"] {
        assert!(e.contains(words), "{words}: {e}");
    }
}

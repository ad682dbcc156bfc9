//! Records with `String` and `Option` fields in `.npy`, checked with real
//! NumPy both ways: strings as the narrowest `<U n`, options as their
//! fill, `Vec`s and fill-less options refused by field.

use std::path::Path;

use ndl_runtime::Record;
use ndl_runtime::npy::{self, Error, StreamWriter};

#[derive(Debug, Clone, PartialEq, Record)]
struct Venue {
    code: String,
    id: u16,
}

#[derive(Debug, Clone, PartialEq, Record)]
struct Trade {
    id: u64,
    symbol: String,
    #[ndl(fill = -1)]
    venue: Option<i32>,
    #[ndl(fill = String::new())]
    note: Option<String>,
    place: Venue,
    tags: [String; 2],
    flag: bool,
    price: f64,
}

fn trades() -> Vec<Trade> {
    vec![
        Trade {
            id: 1,
            symbol: "ABC".into(),
            venue: Some(7),
            note: None,
            place: Venue {
                code: "XNYS".into(),
                id: 3,
            },
            tags: ["a".into(), "bb".into()],
            flag: true,
            price: 1.5,
        },
        Trade {
            id: 2,
            symbol: "Ééé😀".into(),
            venue: None,
            note: Some("late".into()),
            place: Venue {
                code: "".into(),
                id: 9,
            },
            tags: ["".into(), "ccc".into()],
            flag: false,
            price: -2.25,
        },
    ]
}

const TRADE_DESCR: &str = "[('id', '<u8'), ('symbol', '<U4'), ('venue', '<i4'), ('note', '<U4'), \
     ('place', [('code', '<U4'), ('id', '<u2')]), ('tags', '<U3', (2,)), ('flag', '|b1'), ('price', '<f8')]";

#[test]
fn records_round_trip_with_the_narrowest_unicode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.npy");
    npy::write_file(&path, &trades()).unwrap();
    let header = npy::read_header_file(&path).unwrap();
    assert_eq!(header.descr().unwrap(), TRADE_DESCR);
    assert_eq!(header.shape, [2]);
    assert_eq!(npy::read_file::<Trade>(&path).unwrap(), trades());
}

#[test]
fn numpy_loads_what_we_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.npy");
    npy::write_file(&path, &trades()).unwrap();
    let out = ndl_testkit::run_python(
        r#"
import sys, numpy as np
a = np.load(sys.argv[1])
want = np.dtype([('id', '<u8'), ('symbol', '<U4'), ('venue', '<i4'), ('note', '<U4'),
                 ('place', [('code', '<U4'), ('id', '<u2')]), ('tags', '<U3', (2,)),
                 ('flag', '?'), ('price', '<f8')])
assert a.dtype == want, a.dtype
assert a['symbol'].tolist() == ['ABC', 'Ééé😀'], a['symbol']
assert a['venue'].tolist() == [7, -1]
assert a['note'].tolist() == ['', 'late']
assert a['place']['code'].tolist() == ['XNYS', '']
assert a['place']['id'].tolist() == [3, 9]
assert a['tags'].tolist() == [['a', 'bb'], ['', 'ccc']]
assert a['flag'].tolist() == [True, False]
assert a['price'].tolist() == [1.5, -2.25]
print('numpy agrees')
"#,
        &[path.to_str().unwrap()],
    );
    assert!(out.contains("numpy agrees"), "{out}");
}

/// The fields of a file NumPy writes, in another order and a subset.
#[derive(Debug, PartialEq, Record)]
struct Quote {
    #[ndl(fill = f64::NAN)]
    bid: Option<f64>,
    name: String,
    #[ndl(fill = 0)]
    size: Option<u32>,
    code: Box<str>,
}

#[test]
fn numpy_unicode_fields_read_as_strings() {
    let dir = tempfile::tempdir().unwrap();
    for (order, file) in [("<", "le.npy"), (">", "be.npy")] {
        let path = dir.path().join(file);
        ndl_testkit::run_python(
            r#"
import sys, numpy as np
o = sys.argv[2]
dt = np.dtype([('size', o + 'u4'), ('name', o + 'U7'), ('extra', 'i1'), ('bid', o + 'f8'), ('code', 'S3')])
a = np.array([(5, 'ab', 1, 1.25, b'XY'), (0, 'longest', 2, np.nan, b''), (2, 'π', 3, 0.0, b'abc')], dtype=dt)
np.save(sys.argv[1], a)
"#,
            &[path.to_str().unwrap(), order],
        );
        let quotes = npy::read_file::<Quote>(&path).unwrap();
        assert_eq!(quotes.len(), 3);
        assert_eq!(
            quotes[0],
            Quote {
                bid: Some(1.25),
                name: "ab".into(),
                size: Some(5),
                code: "XY".into()
            },
            "{file}"
        );
        // The fills read back as `None`: NaN for `bid`, 0 for `size`.
        assert_eq!((quotes[1].bid, quotes[1].size), (None, None), "{file}");
        assert_eq!(quotes[1].name, "longest");
        assert_eq!(quotes[1].code.as_ref(), "");
        assert_eq!(quotes[2].name, "π");
        assert_eq!(quotes[2].bid, Some(0.0));
    }
}

#[derive(Debug, PartialEq, Record)]
struct WithList {
    id: u32,
    levels: Vec<f32>,
}

#[derive(Debug, PartialEq, Record)]
struct NoFill {
    id: u32,
    note: Option<String>,
}

fn assert_refused(path: &Path, e: Error, field: &str, says: &str) {
    let text = e.to_string();
    assert!(
        text.contains(&format!("'{field}'")) || text.contains(field),
        "{text}"
    );
    assert!(text.contains(says), "{text}");
    assert!(!path.exists(), "{} was written", path.display());
}

#[test]
fn vec_fields_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.npy");
    let e = npy::write_file(
        &path,
        &[WithList {
            id: 1,
            levels: vec![1.0],
        }],
    )
    .unwrap_err();
    assert_refused(&path, e, "levels", "Zarr, HDF5 or Arrow");
    let e = StreamWriter::<WithList>::create(&path).unwrap_err();
    assert_refused(&path, e, "levels", "`[T; N]`");
}

#[test]
fn options_without_fill_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("o.npy");
    let e = npy::write_file(&path, &[NoFill { id: 1, note: None }]).unwrap_err();
    assert_refused(&path, e, "note", "#[ndl(fill = ...)]");
    let e = StreamWriter::<NoFill>::create(&path).unwrap_err();
    assert_refused(&path, e, "note", "#[ndl(fill = ...)]");
}

#[test]
fn some_fill_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.npy");
    npy::write_file(&path, &trades()).unwrap();
    let before = std::fs::read(&path).unwrap();
    let mut bad = trades();
    bad[1].venue = Some(-1);
    let e = npy::write_file(&path, &bad).unwrap_err().to_string();
    assert!(e.contains("venue"), "{e}");
    assert!(e.contains("Trade"), "{e}");
    assert!(e.contains("record 1"), "{e}");
    assert!(e.contains("read back as `None`"), "{e}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the old file was replaced"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn strings_alone_are_a_unicode_array() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.npy");
    let names = vec![String::from("a"), "bcd".into(), String::new()];
    npy::write_file(&path, &names).unwrap();
    assert_eq!(
        npy::read_header_file(&path).unwrap().descr().unwrap(),
        "'<U3'"
    );
    assert_eq!(npy::read_file::<String>(&path).unwrap(), names);
    // Only empty strings: NumPy's narrowest is `<U1`.
    npy::write_file(&path, &[String::new()]).unwrap();
    assert_eq!(
        npy::read_header_file(&path).unwrap().descr().unwrap(),
        "'<U1'"
    );
}

#[test]
fn a_missing_field_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.npy");
    npy::write_file(
        &path,
        &[Venue {
            code: "X".into(),
            id: 1,
        }],
    )
    .unwrap();
    let e = npy::read_file::<Quote>(&path).unwrap_err().to_string();
    assert!(e.contains("bid"), "{e}");
    assert!(e.contains("code, id"), "{e}");
}

#[test]
fn a_string_field_read_from_numbers_is_a_type_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.npy");
    ndl_testkit::run_python(
        "import sys, numpy as np\nnp.save(sys.argv[1], np.zeros(2, dtype=[('code', '<i4'), ('id', '<u2')]))",
        &[path.to_str().unwrap()],
    );
    let e = npy::read_file::<Venue>(&path).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("code"), "{text}");
    assert!(text.contains("'<i4'") || text.contains("<i4"), "{text}");
}

#[test]
fn streams_fix_widths_with_the_first_batch() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.npy");
    let all = trades();
    let wide = Trade {
        symbol: "WWWW".into(),
        note: Some("wide".into()),
        place: Venue {
            code: "WIDE".into(),
            id: 0,
        },
        tags: ["ww".into(), "www".into()],
        ..all[0].clone()
    };
    let mut w = StreamWriter::<Trade>::create(&path).unwrap();
    w.append(std::slice::from_ref(&wide)).unwrap();
    w.append(&all).unwrap();
    let mut longer = all[0].clone();
    longer.place.code = "LONGER".into();
    let e = w.append(&[all[0].clone(), longer]).unwrap_err().to_string();
    assert!(e.contains("place.code"), "{e}");
    assert!(e.contains("record 4"), "{e}");
    assert!(e.contains("<U4"), "{e}");
    // The refused batch left nothing; the stream goes on.
    w.append(&all[..1]).unwrap();
    assert_eq!(w.finish().unwrap(), 4);
    let back = npy::read_file::<Trade>(&path).unwrap();
    assert_eq!(back, [wide, all[0].clone(), all[1].clone(), all[0].clone()]);
    ndl_testkit::run_python(
        "import sys, numpy as np\na = np.load(sys.argv[1])\nassert a['symbol'].tolist() == ['WWWW', 'ABC', 'Ééé😀', 'ABC'], a",
        &[path.to_str().unwrap()],
    );
}

#[test]
fn streams_of_variable_records_do_not_continue_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.npy");
    npy::write_file(&path, &trades()).unwrap();
    let e = StreamWriter::<Trade>::open(&path).unwrap_err().to_string();
    assert!(e.contains("StreamWriter::create"), "{e}");
    let mut w = StreamWriter::<Trade>::create(dir.path().join("empty.npy")).unwrap();
    assert_eq!(w.records(), 0);
    // An empty batch fixes no width.
    w.append(&[]).unwrap();
    assert_eq!(w.finish().unwrap(), 0);
    assert!(
        npy::read_file::<Trade>(dir.path().join("empty.npy"))
            .unwrap()
            .is_empty()
    );
}

#[derive(Debug, Clone, Copy, PartialEq, ndl_runtime::NdlType)]
#[repr(u8)]
enum Side {
    Buy = 1,
    Sell = 2,
}

/// A `Record` of plain fields beside a string: enums, time, arrays and
/// packed `NdlType` structs go through the columns too.
#[derive(Debug, PartialEq, Record)]
struct Order {
    side: Side,
    at: ndl_runtime::time::DateTime64<ndl_runtime::time::Millis>,
    qty: [u16; 3],
    ok: bool,
    #[ndl(fill = Side::Buy)]
    was: Option<Side>,
    who: String,
}

#[test]
fn enums_times_and_arrays_beside_strings_round_trip() {
    use ndl_runtime::time::DateTime64;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("o.npy");
    let orders = vec![
        Order {
            side: Side::Sell,
            at: DateTime64::new(1_700_000_000_000),
            qty: [1, 2, 3],
            ok: true,
            was: None,
            who: "me".into(),
        },
        Order {
            side: Side::Buy,
            at: DateTime64::new(-5),
            qty: [0; 3],
            ok: false,
            was: Some(Side::Sell),
            who: "you".into(),
        },
    ];
    npy::write_file(&path, &orders).unwrap();
    assert_eq!(
        npy::read_header_file(&path).unwrap().descr().unwrap(),
        "[('side', '|u1'), ('at', '<M8[ms]'), ('qty', '<u2', (3,)), ('ok', '|b1'), ('was', '|u1'), ('who', '<U3')]"
    );
    assert_eq!(npy::read_file::<Order>(&path).unwrap(), orders);
    // A byte that is no member of the enum is refused naming field and record.
    let mut bytes = std::fs::read(&path).unwrap();
    let itemsize = 1 + 8 + 6 + 1 + 1 + 12;
    let data = bytes.len() - 2 * itemsize;
    bytes[data + itemsize] = 9;
    std::fs::write(&path, &bytes).unwrap();
    let e = npy::read_file::<Order>(&path).unwrap_err().to_string();
    assert!(e.contains("record 1") && e.contains("side"), "{e}");
}

#[test]
fn vec_fields_are_not_read_from_npy() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.npy");
    npy::write_file(&path, &[1u32, 2]).unwrap();
    let e = npy::read_file::<WithList>(&path).unwrap_err().to_string();
    assert!(e.contains("levels") || e.contains("Vec"), "{e}");
}

/// Headers that lie (offsets past the record, a huge count) are refused
/// before any value is read: an error, never a panic or a huge allocation.
#[test]
fn lying_headers_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.npy");
    let cases: [(&str, usize); 3] = [
        (
            "{'descr': {'names': ['code', 'id'], 'formats': ['<U2', '<u2'], 'offsets': [100, 0], 'itemsize': 10}, 'fortran_order': False, 'shape': (1,), }",
            10,
        ),
        (
            "{'descr': [('code', '<U2'), ('id', '<u2')], 'fortran_order': False, 'shape': (1000000000000,), }",
            10,
        ),
        (
            "{'descr': [('code', '<U2'), ('id', '<u2')], 'fortran_order': False, 'shape': (2, 1), }",
            20,
        ),
    ];
    for (text, data) in cases {
        let mut file = ndl_testkit::npy_file(1, text.as_bytes());
        file.extend(vec![0u8; data]);
        std::fs::write(&path, &file).unwrap();
        assert!(npy::read_file::<Venue>(&path).is_err(), "{text}");
    }
}

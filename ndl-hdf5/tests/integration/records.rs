//! Records with `String`, `Vec` and `Option` fields as HDF5 compounds of
//! variable-length strings and sequences: round trips, h5py reading
//! every field, the compounds h5py writes read back typed, appends, and
//! errors that name field and record. Fails (never skips) without h5py.

use ndl_hdf5::{DatasetWriter, Error};
use ndl_runtime::{NdlType, Record};
use ndl_testkit::python::{python312, run_with};
use serde_json::{Value, json};

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u8)]
enum Side {
    Buy = 1,
    Sell = 2,
}

#[derive(Debug, PartialEq, Record)]
struct Venue {
    code: String,
    id: u16,
}

#[derive(Debug, PartialEq, Record)]
struct Trade {
    id: u64,
    symbol: String,
    /// Price paid.
    #[ndl(units = "USD")]
    price: f64,
    side: Side,
    #[ndl(fill = -1)]
    qty: Option<i32>,
    levels: Vec<f32>,
    tags: Vec<String>,
    venue: Venue,
    lots: [u16; 3],
}

fn trades() -> Vec<Trade> {
    vec![
        Trade {
            id: 1,
            symbol: "ABC".into(),
            price: 1.5,
            side: Side::Buy,
            qty: Some(10),
            levels: vec![1.5, 1.25],
            tags: vec!["fast".into(), "größer ✓".into()],
            venue: Venue {
                code: "XNAS".into(),
                id: 7,
            },
            lots: [1, 2, 3],
        },
        Trade {
            id: 2,
            symbol: String::new(),
            price: -0.0,
            side: Side::Sell,
            qty: None,
            levels: vec![],
            tags: vec![],
            venue: Venue {
                code: String::new(),
                id: 0,
            },
            lots: [0, 0, 65535],
        },
        Trade {
            id: u64::MAX,
            symbol: "日本語".into(),
            price: f64::MAX,
            side: Side::Buy,
            qty: Some(i32::MIN),
            levels: vec![f32::MIN_POSITIVE],
            tags: vec![String::new(), "x".into()],
            venue: Venue {
                code: "é".into(),
                id: 65535,
            },
            lots: [9, 8, 7],
        },
    ]
}

#[test]
fn records_round_trip_with_empty_strings_lists_and_unicode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trades.h5");
    ndl_hdf5::write(&path, "/market/trades", &trades()).unwrap();
    assert_eq!(
        ndl_hdf5::read::<Trade>(&path, "/market/trades").unwrap(),
        trades()
    );
}

/// Prints, as JSON, each field's kind as h5py sees it and every value.
const H5PY_READS: &str = r#"
import json, sys
import h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    d = f["trades"]
    dt = d.dtype
    kinds = {}
    for name in dt.names:
        t = dt[name]
        s = h5py.check_string_dtype(t)
        v = h5py.check_vlen_dtype(t)
        if s is not None:
            kinds[name] = "string:" + s.encoding
        elif v is not None:
            vs = h5py.check_string_dtype(v)
            kinds[name] = "vlen:" + ("string:" + vs.encoding if vs is not None else str(v))
        elif h5py.check_enum_dtype(t) is not None:
            kinds[name] = "enum:" + str(sorted(h5py.check_enum_dtype(t).items()))
        else:
            kinds[name] = str(t)
    venue = dt["venue"]
    kinds["venue.code"] = "string:" + h5py.check_string_dtype(venue["code"]).encoding
    def plain(x):
        if isinstance(x, bytes):
            return x.decode("utf-8")
        if isinstance(x, np.ndarray):
            return [plain(y) for y in x.tolist()] if x.dtype != object else [plain(y) for y in x]
        if isinstance(x, np.void):
            return {n: plain(x[n]) for n in x.dtype.names}
        if isinstance(x, np.generic):
            return x.item()
        return x
    rows = [{n: plain(r[n]) for n in dt.names} for r in d[:]]
    print(json.dumps({"kinds": kinds, "rows": rows}))
"#;

#[test]
fn h5py_reads_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trades.h5");
    ndl_hdf5::write(&path, "trades", &trades()).unwrap();
    let out = run_with(&python312(), H5PY_READS, &[path.to_str().unwrap()]);
    let got: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        got["kinds"],
        json!({
            "id": "uint64",
            "symbol": "string:utf-8",
            "price": "float64",
            "side": "enum:[('Buy', 1), ('Sell', 2)]",
            "qty": "int32",
            "levels": "vlen:float32",
            "tags": "vlen:string:utf-8",
            "venue": "[('code', 'O'), ('id', '<u2')]",
            "venue.code": "string:utf-8",
            "lots": "('<u2', (3,))",
        })
    );
    let rows = got["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(
        rows[0],
        json!({
            "id": 1, "symbol": "ABC", "price": 1.5, "side": 1, "qty": 10,
            "levels": [1.5, 1.25], "tags": ["fast", "größer ✓"],
            "venue": {"code": "XNAS", "id": 7}, "lots": [1, 2, 3],
        })
    );
    // `None` is stored as the fill; empty strings and lists stay empty.
    assert_eq!(
        rows[1],
        json!({
            "id": 2, "symbol": "", "price": -0.0, "side": 2, "qty": -1,
            "levels": [], "tags": [],
            "venue": {"code": "", "id": 0}, "lots": [0, 0, 65535],
        })
    );
    assert_eq!(rows[2]["id"], json!(u64::MAX));
    assert_eq!(rows[2]["symbol"], json!("日本語"));
    assert_eq!(rows[2]["tags"], json!(["", "x"]));
    assert_eq!(rows[2]["venue"], json!({"code": "é", "id": 65535}));
}

/// h5py writes the compound of `variable-length.md`, and the same
/// members in another order.
const H5PY_WRITES: &str = r#"
import sys
import h5py, numpy as np
s = h5py.string_dtype()
venue = np.dtype([("code", s), ("id", "<u2")])
dt = np.dtype([("id", "<u8"), ("symbol", s), ("levels", h5py.vlen_dtype(np.float32)),
               ("tags", h5py.vlen_dtype(s)), ("venue", venue)])
shuffled = np.dtype([("venue", np.dtype([("id", "<u2"), ("code", s)])), ("tags", h5py.vlen_dtype(s)),
                     ("levels", h5py.vlen_dtype(np.float32)), ("symbol", s), ("id", "<u8")])
rows = [
    (1, "ABC", np.array([1.5, 2.5], np.float32), np.array(["a", "ü"], dtype=object), ("XNAS", 7)),
    (2, "", np.array([], np.float32), np.array([], dtype=object), ("", 0)),
]
with h5py.File(sys.argv[1], "w") as f:
    a = np.empty(len(rows), dt)
    for i, r in enumerate(rows):
        a[i] = r
    f.create_dataset("ordered", data=a)
    b = np.empty(len(rows), shuffled)
    for i, (id_, sym, lv, tg, (code, vid)) in enumerate(rows):
        b[i] = ((vid, code), tg, lv, sym, id_)
    f.create_dataset("shuffled", data=b, chunks=(1,), maxshape=(None,))
    bad = np.empty(1, np.dtype([("id", "<u8"), ("symbol", h5py.string_dtype("ascii"))]))
    bad[0] = (1, b"\xff\xfe")
    f.create_dataset("not_utf8", data=bad)
"#;

#[derive(Debug, PartialEq, Record)]
struct Listing {
    id: u64,
    symbol: String,
    levels: Vec<f32>,
    tags: Vec<String>,
    venue: Venue,
}

#[derive(Debug, PartialEq, Record)]
struct Symbol {
    id: u64,
    symbol: String,
}

#[derive(Debug, PartialEq, Record)]
struct Numbered {
    id: u64,
    symbol: u32,
}

#[derive(Debug, PartialEq, Record)]
struct WithNote {
    id: u64,
    note: String,
}

#[test]
fn compounds_h5py_writes_read_back_typed_in_any_member_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h5py.h5");
    run_with(&python312(), H5PY_WRITES, &[path.to_str().unwrap()]);
    let expected = vec![
        Listing {
            id: 1,
            symbol: "ABC".into(),
            levels: vec![1.5, 2.5],
            tags: vec!["a".into(), "ü".into()],
            venue: Venue {
                code: "XNAS".into(),
                id: 7,
            },
        },
        Listing {
            id: 2,
            symbol: String::new(),
            levels: vec![],
            tags: vec![],
            venue: Venue {
                code: String::new(),
                id: 0,
            },
        },
    ];
    assert_eq!(
        ndl_hdf5::read::<Listing>(&path, "ordered").unwrap(),
        expected
    );
    assert_eq!(
        ndl_hdf5::read::<Listing>(&path, "shuffled").unwrap(),
        expected
    );

    // A member the file lacks is named, not read as zeros.
    let e = ndl_hdf5::read::<WithNote>(&path, "ordered").unwrap_err();
    let Error::TypeMismatch { field, message, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(field, "note");
    assert!(message.contains("no member `note`"), "{e}");

    // A number where the file has a string is named before any read.
    let e = ndl_hdf5::read::<Numbered>(&path, "ordered").unwrap_err();
    let Error::TypeMismatch { field, message, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(field, "symbol");
    assert!(message.contains("variable-length value"), "{e}");

    // A string that is not UTF-8 names its record and field.
    let e = ndl_hdf5::read::<Symbol>(&path, "not_utf8").unwrap_err();
    let Error::InvalidValue { record, field, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!((*record, field.as_str()), (0, "symbol"), "{e}");
    assert!(e.to_string().contains("UTF-8"), "{e}");

    // Appending to h5py's dataset, members in its own order.
    let mut w = DatasetWriter::<Listing>::open(&path, "shuffled").unwrap();
    w.append(&expected[..1]).unwrap();
    assert_eq!(w.finish().unwrap(), 3);
    let back = ndl_hdf5::read::<Listing>(&path, "shuffled").unwrap();
    assert_eq!(back.len(), 3);
    assert_eq!(back[2], expected[0]);
}

#[test]
fn dataset_writer_appends_across_calls_and_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("appended.h5");
    let all = trades();
    let mut w = DatasetWriter::<Trade>::create(&path, "trades").unwrap();
    w.append(&all[..1]).unwrap();
    w.append(&all[1..]).unwrap();
    assert_eq!(w.finish().unwrap(), 3);
    assert_eq!(ndl_hdf5::read::<Trade>(&path, "trades").unwrap(), all);

    let mut w = DatasetWriter::<Trade>::open_copy(&path, "trades").unwrap();
    w.append(&all[2..]).unwrap();
    assert_eq!(w.finish().unwrap(), 4);
    let back = ndl_hdf5::read::<Trade>(&path, "trades").unwrap();
    assert_eq!(back[3], all[2]);
}

#[derive(Debug, PartialEq, Record)]
struct Unfilled {
    id: u64,
    note: Option<String>,
}

#[test]
fn a_fill_clash_and_a_missing_fill_are_refused_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clash.h5");
    let mut all = trades();
    all[2].qty = Some(-1);
    let e = ndl_hdf5::write(&path, "trades", &all).unwrap_err();
    let Error::InvalidValue { record, field, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!((*record, field.as_str()), (2, "qty"), "{e}");
    assert!(e.to_string().contains("read back as `None`"), "{e}");
    assert!(!path.exists(), "nothing is written");

    let e = ndl_hdf5::write(&path, "notes", &[Unfilled { id: 1, note: None }]).unwrap_err();
    let Error::Type { source, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(source.field, "note");
    assert!(source.why.contains("#[ndl(fill = ...)]"), "{e}");
    assert!(!path.exists(), "nothing is written");

    let e = ndl_hdf5::write(
        &path,
        "nul",
        &[Symbol {
            id: 1,
            symbol: "a\0b".into(),
        }],
    )
    .unwrap_err();
    let Error::InvalidValue { record, field, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!((*record, field.as_str()), (0, "symbol"), "{e}");
}

/// What netCDF4-python and xarray read of the columns, as JSON.
const NETCDF_READS: &str = r#"
import json, sys
import netCDF4, numpy as np, xarray as xr
with netCDF4.Dataset(sys.argv[1]) as ds:
    v = ds.variables
    qty = v["qty"][:]
    out = {
        "symbol": [str(s) for s in v["symbol"][:]],
        "symbol_dtype": str(v["symbol"].dtype),
        "price_attrs": [v["price"].long_name, v["price"].units],
        "qty": qty.filled(0).tolist(),
        "qty_mask": np.ma.getmaskarray(qty).tolist(),
        "levels": v["levels"][:].tolist(),
        "levels_dims": list(v["levels"].dimensions),
        "levels_count": v["levels_count"][:].tolist(),
        "levels_sample_dimension": v["levels_count"].sample_dimension,
        "tags": [str(s) for s in v["tags"][:]],
        "tags_sample_dimension": v["tags_count"].sample_dimension,
        "venue.code": [str(s) for s in v["venue.code"][:]],
        # 65535 is netCDF's default fill of `ushort`, which
        # netCDF4-python masks in a variable without `_FillValue`.
        "lots": (v["lots"].set_auto_mask(False), v["lots"][:].tolist())[1],
        "side": v["side"][:].tolist(),
        "side_enum": sorted(v["side"].datatype.enum_dict.items()),
        "dims": {k: len(d) for k, d in ds.dimensions.items()},
    }
with xr.open_dataset(sys.argv[1]) as x:
    out["xr_qty"] = [None if np.isnan(q) else q for q in x["qty"].values.tolist()]
    out["xr_tags"] = [str(s) for s in x["tags"].values.tolist()]
    out["xr_symbol"] = [str(s) for s in x["symbol"].values.tolist()]
    out["xr_levels_dims"] = list(x["levels"].dims)
print(json.dumps(out))
"#;

#[test]
fn netcdf_columns_round_trip_and_netcdf4_python_and_xarray_read_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trades.nc");
    ndl_hdf5::write_columns(&path, &trades()).unwrap();
    assert_eq!(ndl_hdf5::read_columns::<Trade>(&path).unwrap(), trades());

    let out = run_with(&python312(), NETCDF_READS, &[path.to_str().unwrap()]);
    let got: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        got,
        json!({
            "symbol": ["ABC", "", "日本語"],
            "symbol_dtype": "<class 'str'>",
            "price_attrs": ["Price paid.", "USD"],
            "qty": [10, 0, i32::MIN],
            "qty_mask": [false, true, false],
            "levels": [1.5, 1.25, f32::MIN_POSITIVE],
            "levels_dims": ["levels_sample"],
            "levels_count": [2, 0, 1],
            "levels_sample_dimension": "levels_sample",
            "tags": ["fast", "größer ✓", "", "x"],
            "tags_sample_dimension": "tags_sample",
            "venue.code": ["XNAS", "", "é"],
            "lots": [[1, 2, 3], [0, 0, 65535], [9, 8, 7]],
            "side": [1, 2, 1],
            "side_enum": [["Buy", 1], ["Sell", 2]],
            "dims": {"record": 3, "levels_sample": 3, "tags_sample": 4, "lots_len": 3},
            "xr_qty": [10.0, null, i32::MIN as f64],
            "xr_tags": ["fast", "größer ✓", "", "x"],
            "xr_symbol": ["ABC", "", "日本語"],
            "xr_levels_dims": ["levels_sample"],
        })
    );

    // ncdump's CDL of the file compiles back with ncgen.
    let cdl = ndl_testkit::netcdf::ncdump(&["-h"], &path);
    assert!(cdl.contains("string symbol(record)"), "{cdl}");
    assert!(
        cdl.contains("levels_count:sample_dimension = \"levels_sample\""),
        "{cdl}"
    );
    assert!(cdl.contains("qty:_FillValue = -1"), "{cdl}");
    ndl_testkit::netcdf::compile_cdl(&cdl, dir.path(), "again");
}

#[test]
fn netcdf_columns_refuse_an_option_without_fill_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.nc");
    let e = ndl_hdf5::write_columns(&path, &[Unfilled { id: 1, note: None }]).unwrap_err();
    let Error::Type { source, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(source.field, "note");
    assert!(source.why.contains("#[ndl(fill = ...)]"), "{e}");
    assert!(!path.exists());

    let mut all = trades();
    all[0].qty = Some(-1);
    let e = ndl_hdf5::write_columns(&path, &all).unwrap_err();
    let Error::InvalidValue { record, field, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!((*record, field.as_str()), (0, "qty"), "{e}");
    assert!(!path.exists());
}

#[derive(Debug, PartialEq, Record)]
struct Marked {
    id: u64,
    levels: Vec<f32>,
}

const MARK: u64 = 0x0123_4567_89ab_cdef;

/// Sets the stored length of the `levels` of the record whose `id` is
/// `MARK + 1` (the 4 bytes after the id, in the element's bytes).
fn damage_length(path: &std::path::Path, len: u32) {
    let mut bytes = std::fs::read(path).unwrap();
    let mark = (MARK + 1).to_le_bytes();
    let at = bytes
        .windows(8)
        .position(|w| w == mark)
        .expect("the record's id in the file");
    bytes[at + 8..at + 12].copy_from_slice(&len.to_le_bytes());
    std::fs::write(path, bytes).unwrap();
}

const H5PY_CONTIGUOUS: &str = r#"
import sys
import h5py, numpy as np
dt = np.dtype([("id", "<u8"), ("levels", h5py.vlen_dtype(np.float32))])
a = np.empty(3, dt)
for i in range(3):
    a[i] = (0x0123456789abcdef + i, np.arange(i + 1, dtype=np.float32))
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("data", data=a)
"#;

#[test]
fn a_damaged_sequence_length_is_refused_before_hdf5_allocates_it() {
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("ours.h5");
    let records: Vec<Marked> = (0..3)
        .map(|i| Marked {
            id: MARK + i,
            levels: (0..=i).map(|x| x as f32).collect(),
        })
        .collect();
    ndl_hdf5::write(&ours, "data", &records).unwrap();
    let theirs = dir.path().join("h5py.h5");
    run_with(&python312(), H5PY_CONTIGUOUS, &[theirs.to_str().unwrap()]);
    assert_eq!(ndl_hdf5::read::<Marked>(&theirs, "data").unwrap(), records);

    // Chunked (ours) and contiguous (h5py's): 2³²-1 floats would be 16 GiB.
    for path in [&ours, &theirs] {
        damage_length(path, u32::MAX);
        let e = ndl_hdf5::read::<Marked>(path, "data").unwrap_err();
        let Error::InvalidValue { record, field, .. } = &e else {
            panic!("{e}")
        };
        assert_eq!((*record, field.as_str()), (1, "levels"), "{e}");
        assert!(e.to_string().contains("more than the whole file"), "{e}");
    }
}

#[derive(Debug, PartialEq, Record)]
struct Nested {
    venues: Vec<Venue>,
    matrix: Vec<Vec<u8>>,
    #[ndl(fill = "")]
    note: Option<String>,
    #[ndl(fill = f64::NAN)]
    score: Option<f64>,
    open: bool,
    name: Box<str>,
    codes: Box<[i16]>,
    grid: [[f32; 2]; 2],
}

fn nested() -> Vec<Nested> {
    vec![
        Nested {
            venues: vec![
                Venue {
                    code: "XNAS".into(),
                    id: 1,
                },
                Venue {
                    code: "ü".into(),
                    id: 2,
                },
            ],
            matrix: vec![vec![1, 2], vec![], vec![3]],
            note: Some("late".into()),
            score: None,
            open: true,
            name: "a".into(),
            codes: vec![-1, 1].into(),
            grid: [[1.0, 2.0], [3.0, 4.0]],
        },
        Nested {
            venues: vec![],
            matrix: vec![],
            note: None,
            score: Some(0.5),
            open: false,
            name: "".into(),
            codes: vec![].into(),
            grid: [[0.0; 2]; 2],
        },
    ]
}

/// The shapes other bindings trip on (a string in a compound in a
/// sequence, h5py#2085; sequences of sequences), as h5py reads them.
const H5PY_NESTED: &str = r#"
import json, sys
import h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    d = f["nested"]
    dt = d.dtype
    venue = h5py.check_vlen_dtype(dt["venues"])
    # h5py converts a sequence of compounds holding a string only one
    # non-empty element at a time: a whole read (or write), or an empty
    # one, fails in h5py's own conversion (h5py#2085), for the dataset
    # h5py would write too.
    try:
        d.fields("venues")[:]
        whole = "read"
    except TypeError as e:
        whole = str(e)
    print(json.dumps({
        "venue_code": h5py.check_string_dtype(venue["code"]).encoding,
        "matrix_inner": str(h5py.check_vlen_dtype(h5py.check_vlen_dtype(dt["matrix"]))),
        "venues": [[v["code"].decode(), int(v["id"])] for v in d[0]["venues"]],
        "venues_whole": whole,
        "matrix": [[m.tolist() for m in r] for r in d.fields("matrix")[:]],
        "note": [n.decode() for n in d.fields("note")[:]],
        "score_nan": [bool(np.isnan(x)) for x in d.fields("score")[:]],
        "open": d.fields("open")[:].tolist(),
        "name": [n.decode() for n in d.fields("name")[:]],
        "codes": [c.tolist() for c in d.fields("codes")[:]],
        "grid": d.fields("grid")[:].tolist(),
    }))
"#;

#[test]
fn strings_in_compounds_in_sequences_and_sequences_of_sequences_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested.h5");
    ndl_hdf5::write(&path, "nested", &nested()).unwrap();
    // The NaN stored for `score: None` reads back as `None`.
    assert_eq!(ndl_hdf5::read::<Nested>(&path, "nested").unwrap(), nested());

    let out = run_with(&python312(), H5PY_NESTED, &[path.to_str().unwrap()]);
    let got: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        got,
        json!({
            "venue_code": "utf-8",
            "matrix_inner": "uint8",
            "venues": [["XNAS", 1], ["ü", 2]],
            "venues_whole": "Data type conversion failed (invalid background buffer pointer)",
            "matrix": [[[1, 2], [], [3]], []],
            "note": ["late", ""],
            "score_nan": [true, false],
            "open": [true, false],
            "name": ["a", ""],
            "codes": [[-1, 1], []],
            "grid": [[[1.0, 2.0], [3.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]]],
        })
    );
}

#[test]
fn records_with_variable_members_in_a_netcdf_path_point_to_write_columns() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trades.nc");
    let e = ndl_hdf5::write(&path, "trades", &trades()).unwrap_err();
    assert!(matches!(e, Error::Type { .. }), "{e}");
    assert!(e.to_string().contains("write_columns"), "{e}");
    assert!(!path.exists());
}

/// Writers move to other threads (a converter's pipeline), plain or not:
/// this fails to compile otherwise.
#[test]
fn dataset_writers_are_send() {
    fn assert_send<T: Send>() {}
    assert_send::<DatasetWriter<f64>>();
    assert_send::<DatasetWriter<Trade>>();
}

#[test]
fn compressed_records_round_trip_and_h5py_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deflated.h5");
    let options = ndl_hdf5::WriteOptions::new()
        .codec(ndl_hdf5::Codec::Deflate(4))
        .shuffle(true);
    let mut w = DatasetWriter::<Trade>::create_with(&path, "trades", &options).unwrap();
    w.append(&trades()).unwrap();
    w.finish().unwrap();
    assert_eq!(ndl_hdf5::read::<Trade>(&path, "trades").unwrap(), trades());
    let out = run_with(&python312(), H5PY_READS, &[path.to_str().unwrap()]);
    let got: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(got["rows"][0]["tags"], json!(["fast", "größer ✓"]));
    assert_eq!(got["rows"][2]["symbol"], json!("日本語"));
}

#[test]
fn ragged_counts_that_disagree_with_their_values_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trades.nc");
    ndl_hdf5::write_columns(&path, &trades()).unwrap();
    let set_count = |value: i64| {
        let script = format!(
            "import sys, netCDF4\nwith netCDF4.Dataset(sys.argv[1], 'a') as ds:\n    \
             ds['levels_count'][0] = {value}\n"
        );
        run_with(&python312(), &script, &[path.to_str().unwrap()]);
    };
    set_count(5);
    let e = ndl_hdf5::read_columns::<Trade>(&path).unwrap_err();
    let Error::TypeMismatch { field, message, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(field, "levels_count");
    assert!(message.contains("add up to 6, but `levels` holds 3"), "{e}");
    set_count(-1);
    let e = ndl_hdf5::read_columns::<Trade>(&path).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("record 0, field `levels_count`"), "{e}");
    assert!(text.contains("the count -1 is not a length"), "{e}");
}

/// `DocumentWriter::dataset` makes a dataset of records holding strings
/// and sequences in any shape, from a column (what `ndl create` writes),
/// laid out as `write` lays them out: read back typed, the same records;
/// without values, empty strings and zeros (refused, naming the member,
/// where an option has no fill). A netCDF-4 file refuses such a
/// compound, naming the dataset.
#[test]
fn a_document_dataset_of_variable_records_reads_back_typed() {
    use ndl_hdf5::{DocumentWriter, Elements, NewDataset, WriteOptions};
    use ndl_runtime::record::Columns;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.h5");
    let datatype = <Trade as Record>::datatype();
    let new = |extents: &'static [u64]| NewDataset {
        datatype: &datatype,
        extents,
        unlimited: &[false, false][..extents.len()],
        chunk: None,
        filters: &[],
        byte_order: ndl_runtime::ByteOrder::NATIVE,
        fill: None,
    };
    let mut columns = <Trade as Record>::Columns::with_capacity(4);
    columns.extend(&trades());
    let column = columns.finish();
    let mut w = DocumentWriter::create_with(&path, &WriteOptions::new()).unwrap();
    let err = w
        .dataset("t", &new(&[2, 2]), Elements::Column(&column))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("3 values given for the 4 elements"),
        "{err}"
    );
    w.dataset("t", &new(&[3]), Elements::Column(&column))
        .unwrap();
    // Without values an option has no fill to stand for its nulls.
    let err = w.dataset("empty", &new(&[2]), Elements::Fill).unwrap_err();
    assert!(err.to_string().contains("qty"), "{err}");
    let venue = <Venue as Record>::datatype();
    let empty = NewDataset {
        datatype: &venue,
        ..new(&[2])
    };
    w.dataset("empty", &empty, Elements::Fill).unwrap();
    w.finish().unwrap();
    assert_eq!(ndl_hdf5::read::<Trade>(&path, "t").unwrap(), trades());
    let zero = || Venue {
        code: String::new(),
        id: 0,
    };
    assert_eq!(
        ndl_hdf5::read::<Venue>(&path, "empty").unwrap(),
        [zero(), zero()]
    );

    let nc = dir.path().join("doc.nc");
    let mut w = DocumentWriter::create(&nc, true).unwrap();
    let err = w
        .dataset("t", &new(&[3]), Elements::Column(&column))
        .unwrap_err();
    assert!(
        matches!(&err, Error::Type { dataset, .. } if dataset == "t"),
        "{err}"
    );
    assert!(
        err.to_string().contains("netCDF4-python reads no compound"),
        "{err}"
    );
}

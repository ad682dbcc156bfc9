//! Records with `String`, `Vec` and `Option` fields in the columns layout:
//! round trips in v3 and v2, read by zarr-python 3.4 and 3.1 and by
//! xarray; the errors name the field and the record.

use std::path::Path;

use ndl_runtime::{NdlType, Record};
use ndl_zarr::{ArrayWriter, Layout, WriteOptions, ZarrFormat};
use serde_json::{Value, json};

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/python/variable_records.py"
);

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u8)]
enum Side {
    Buy = 1,
    Sell = 2,
}

/// Where a trade was made.
#[derive(Clone, Debug, PartialEq, Record)]
struct Venue {
    code: u16,
    name: String,
}

/// One trade.
#[derive(Clone, Debug, PartialEq, Record)]
struct Trade {
    id: u64,
    symbol: String,
    price: f64,
    side: Side,
    #[ndl(fill = -1)]
    qty: Option<i32>,
    #[ndl(fill = f64::NAN)]
    fee: Option<f64>,
    #[ndl(fill = "NA")]
    note: Option<String>,
    #[ndl(fill = false)]
    flag: Option<bool>,
    levels: Vec<f32>,
    tags: Vec<String>,
    venue: Venue,
    bands: [u16; 3],
}

fn trades() -> Vec<Trade> {
    vec![
        Trade {
            id: 1,
            symbol: "ABC".into(),
            price: 1.5,
            side: Side::Buy,
            qty: Some(7),
            fee: None,
            note: Some("x".into()),
            flag: Some(true),
            levels: vec![1.5, 1.25],
            tags: vec!["a".into(), "".into()],
            venue: Venue {
                code: 3,
                name: "Zürich".into(),
            },
            bands: [1, 2, 3],
        },
        Trade {
            id: 2,
            symbol: "".into(),
            price: -2.0,
            side: Side::Sell,
            qty: None,
            fee: Some(0.25),
            note: None,
            flag: None,
            levels: vec![],
            tags: vec![],
            venue: Venue {
                code: 4,
                name: "".into(),
            },
            bands: [4, 5, 6],
        },
        Trade {
            id: 3,
            symbol: "日本".into(),
            price: 3.0,
            side: Side::Buy,
            qty: Some(0),
            fee: Some(1.0),
            note: Some("".into()),
            flag: Some(true),
            levels: vec![9.0],
            tags: vec!["ß".into()],
            venue: Venue {
                code: 5,
                name: "x".into(),
            },
            bands: [7, 8, 9],
        },
    ]
}

fn columns(format: ZarrFormat) -> WriteOptions {
    WriteOptions::new()
        .zarr_format(format)
        .layout(Layout::Columns)
        .chunk_len(2)
}

fn run(python: &Path, mode: &str, path: &Path) -> Value {
    let out = ndl_testkit::run_file(python, Path::new(SCRIPT), &[mode, path.to_str().unwrap()]);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn round_trip_v3_and_v2() {
    let dir = tempfile::tempdir().unwrap();
    for (format, name) in [(ZarrFormat::V3, "v3.zarr"), (ZarrFormat::V2, "v2.zarr")] {
        let path = dir.path().join(name);
        columns(format).write(&path, &trades()).unwrap();
        assert_eq!(
            ndl_zarr::read::<Trade>(&path).unwrap(),
            trades(),
            "{format:?}"
        );
    }
}

#[test]
fn array_writer_appends_across_calls() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.zarr");
    let mut w = ArrayWriter::<Trade>::create_with(&path, &columns(ZarrFormat::V3)).unwrap();
    w.append(&trades()[..2]).unwrap();
    // A full chunk (of 2) is stored as it fills, before `finish`.
    for chunk in ["id/c/0", "symbol/c/0", "levels_count/c/0", "tags/c/0"] {
        assert!(path.join(chunk).exists(), "{chunk}");
    }
    w.append(&trades()[2..]).unwrap();
    assert_eq!(w.len(), 3);
    assert_eq!(w.finish().unwrap(), 3);
    assert_eq!(ndl_zarr::read::<Trade>(&path).unwrap(), trades());
}

/// What zarr-python (3.4 and 3.1) sees of every array.
fn check_zarr_python(seen: &Value) {
    assert_eq!(seen["id"]["values"], json!([1, 2, 3]));
    assert_eq!(seen["symbol"]["values"], json!(["ABC", "", "日本"]));
    assert_eq!(seen["side"]["values"], json!([1, 2, 1]));
    assert_eq!(seen["qty"]["values"], json!([7, -1, 0]));
    assert_eq!(seen["fee"]["values"], json!([null, 0.25, 1.0]));
    // An optional string's fill is its array's `fill_value`.
    assert_eq!(seen["note"]["values"], json!(["x", "NA", ""]));
    // A bool is a byte; an optional one's fill is its `fill_value`.
    assert_eq!(seen["flag"]["values"], json!([1, 0, 1]));
    assert_eq!(seen["levels"]["values"], json!([1.5, 1.25, 9.0]));
    assert_eq!(seen["levels_count"]["values"], json!([2, 0, 1]));
    assert_eq!(
        seen["levels_count"]["attrs"]["sample_dimension"],
        "levels_sample"
    );
    assert_eq!(seen["tags"]["values"], json!(["a", "", "ß"]));
    assert_eq!(seen["tags_count"]["values"], json!([2, 0, 1]));
    assert_eq!(seen["venue.code"]["values"], json!([3, 4, 5]));
    assert_eq!(seen["venue.name"]["values"], json!(["Zürich", "", "x"]));
    assert_eq!(
        seen["bands"]["values"],
        json!([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    );
}

#[test]
fn zarr_python_3_4_reads_every_array_v3_and_v2() {
    let dir = tempfile::tempdir().unwrap();
    for (format, name) in [(ZarrFormat::V3, "v3.zarr"), (ZarrFormat::V2, "v2.zarr")] {
        let path = dir.path().join(name);
        columns(format).write(&path, &trades()).unwrap();
        check_zarr_python(&run(&ndl_testkit::python312(), "zarr", &path));
    }
}

#[test]
fn zarr_python_3_1_reads_v3() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v3.zarr");
    columns(ZarrFormat::V3).write(&path, &trades()).unwrap();
    let seen = run(&ndl_testkit::python(), "zarr", &path);
    assert!(
        seen["version"].as_str().unwrap().starts_with("3.1"),
        "{seen}"
    );
    check_zarr_python(&seen);
}

#[test]
fn xarray_masks_options_and_sees_sample_dimension() {
    let dir = tempfile::tempdir().unwrap();
    for (format, name) in [(ZarrFormat::V3, "v3.zarr"), (ZarrFormat::V2, "v2.zarr")] {
        let path = dir.path().join(name);
        columns(format).write(&path, &trades()).unwrap();
        let seen = run(&ndl_testkit::python312(), "xarray", &path);
        assert_eq!(seen["qty"]["values"], json!([7.0, null, 0.0]), "{format:?}");
        assert_eq!(
            seen["fee"]["values"],
            json!([null, 0.25, 1.0]),
            "{format:?}"
        );
        // xarray masks a string `fill_value` in v2, as it writes one; in
        // v3 it writes and reads none for strings.
        let note = match format {
            ZarrFormat::V2 => json!(["x", null, ""]),
            _ => json!(["x", "NA", ""]),
        };
        assert_eq!(seen["note"]["values"], note, "{format:?}");
        assert_eq!(
            seen["flag"]["values"],
            json!([1.0, null, 1.0]),
            "{format:?}"
        );
        let count = &seen["levels_count"];
        assert_eq!(count["attrs"]["sample_dimension"], "levels_sample");
        assert_eq!(count["dims"], json!([name.trim_end_matches(".zarr")]));
        assert_eq!(seen["levels"]["dims"], json!(["levels_sample"]));
        assert_eq!(seen["tags"]["values"], json!(["a", "", "ß"]));
    }
}

#[test]
fn some_fill_is_refused_naming_record_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.zarr");
    let mut bad = trades();
    bad[2].qty = Some(-1);
    let e = columns(ZarrFormat::V3)
        .write(&path, &bad)
        .unwrap_err()
        .to_string();
    assert!(e.contains("record 2") && e.contains("`qty`"), "{e}");
    assert!(!path.exists(), "nothing is written");
}

#[derive(Clone, Debug, PartialEq, Record)]
struct NoFill {
    id: u64,
    note: Option<i32>,
}

#[test]
fn option_without_fill_is_refused_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.zarr");
    let e = columns(ZarrFormat::V3)
        .write(&path, &[NoFill { id: 1, note: None }])
        .unwrap_err()
        .to_string();
    assert!(e.contains("`note`") && e.contains("#[ndl(fill"), "{e}");
    assert!(!path.exists());
}

#[derive(Clone, Debug, PartialEq, Record)]
struct Filled {
    id: u64,
    #[ndl(fill = -1)]
    note: Option<i32>,
}

/// A type whose `Option` has no fill (as `ndl describe --format rust`
/// writes one) reads a store's nulls by the fill the store keeps.
#[test]
fn an_option_without_fill_reads_by_the_stores_fill() {
    let dir = tempfile::tempdir().unwrap();
    for format in [ZarrFormat::V3, ZarrFormat::V2] {
        let path = dir.path().join(format!("{format:?}.zarr"));
        let written = [
            Filled { id: 1, note: None },
            Filled {
                id: 2,
                note: Some(5),
            },
        ];
        columns(format).write(&path, &written).unwrap();
        let back: Vec<NoFill> = ndl_zarr::read(&path).unwrap();
        let want = [
            NoFill { id: 1, note: None },
            NoFill {
                id: 2,
                note: Some(5),
            },
        ];
        assert_eq!(back, want, "{format:?}");
    }
}

#[test]
fn records_layout_is_refused_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.zarr");
    let e = ndl_zarr::write(&path, &trades()).unwrap_err().to_string();
    assert!(
        e.contains("`symbol`") && e.contains("Layout::Columns"),
        "{e}"
    );
    assert!(!path.exists());
}

/// Lists of lists and options of lists: what the columns layout does
/// not store.
#[derive(Clone, Debug, PartialEq, Record)]
struct Unstorable {
    id: u32,
    #[ndl(fill = Vec::new())]
    maybe: Option<Vec<i32>>,
    nested: Vec<Vec<i32>>,
}

#[test]
fn kinds_the_columns_layout_cannot_store_are_refused_in_ndl_words() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("u.zarr");
    let records = [Unstorable {
        id: 1,
        maybe: None,
        nested: vec![vec![1, 2], vec![]],
    }];
    let e = columns(ZarrFormat::V3)
        .write(&path, &records)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(
            "field `maybe` is an option of vlen of int32: the columns layout stores \
             options of fixed-size values and of strings only"
        ),
        "{e}"
    );
    #[derive(Clone, Debug, PartialEq, Record)]
    struct Nested {
        nested: Vec<Vec<i32>>,
    }
    let nested = [Nested {
        nested: vec![vec![1]],
    }];
    let e = columns(ZarrFormat::V2)
        .write(&path, &nested)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("field `nested` is a vlen of vlen of int32: the columns layout stores lists"),
        "{e}"
    );
    assert!(!path.exists());
}

#[test]
fn counts_that_disagree_with_the_items_are_an_error_naming_the_arrays() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.zarr");
    columns(ZarrFormat::V2).write(&path, &trades()).unwrap();
    // One fewer item than the counts say: the items array shrinks.
    let zarray = path.join("levels/.zarray");
    let doc = std::fs::read_to_string(&zarray)
        .unwrap()
        .replace("\"shape\": [\n    3\n  ]", "\"shape\": [\n    2\n  ]");
    std::fs::write(&zarray, doc).unwrap();
    let e = ndl_zarr::read::<Trade>(&path).unwrap_err().to_string();
    assert!(e.contains("levels_count") && e.contains("`levels`"), "{e}");
}

#[test]
fn a_missing_column_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    for (i, column) in ["symbol", "qty", "tags"].into_iter().enumerate() {
        let path = dir.path().join(format!("t{i}.zarr"));
        columns(ZarrFormat::V3).write(&path, &trades()).unwrap();
        std::fs::remove_dir_all(path.join(column)).unwrap();
        let e = ndl_zarr::read::<Trade>(&path).unwrap_err().to_string();
        assert!(
            e.contains(&format!("/{column}")) || e.contains(&format!("`{column}`")),
            "{column}: {e}"
        );
    }
}

/// Only strings: no fixed-size column gives the number of records, the
/// string arrays do.
#[derive(Clone, Debug, PartialEq, Record)]
struct Label {
    text: String,
    note: String,
}

#[test]
fn records_of_strings_alone_round_trip_typed_and_untyped() {
    let dir = tempfile::tempdir().unwrap();
    let labels: Vec<Label> = ["", "é", "a b"]
        .iter()
        .map(|t| Label {
            text: t.to_string(),
            note: t.repeat(2),
        })
        .collect();
    let path = dir.path().join("labels.zarr");
    columns(ZarrFormat::V3).write(&path, &labels).unwrap();
    assert_eq!(ndl_zarr::read::<Label>(&path).unwrap(), labels);
    let mut reader = ndl_zarr::VariableRecordsReader::open(&path)
        .unwrap()
        .unwrap();
    assert_eq!(reader.len(), 3);
    let mut back = Vec::new();
    while let Some(batch) = reader.next_batch(2).unwrap() {
        back.extend(ndl_runtime::record::read::<Label>(&batch.view()).unwrap());
    }
    assert_eq!(back, labels);
}

/// `ArrayWriter::open` appends to a store of variable records in later
/// sessions, v3 and v2: partial chunks of every array (strings, items,
/// counts) are completed, and zarr-python and xarray read the whole.
#[test]
fn array_writer_open_appends_to_an_existing_store() {
    let dir = tempfile::tempdir().unwrap();
    for (format, name) in [(ZarrFormat::V3, "v3.zarr"), (ZarrFormat::V2, "v2.zarr")] {
        let path = dir.path().join(name);
        let all: Vec<Trade> = (0..4).flat_map(|_| trades()).collect();
        columns(format).write(&path, &all[..3]).unwrap();
        let mut w = ArrayWriter::<Trade>::open(&path).unwrap();
        assert_eq!(w.len(), 3);
        // A second appender waits for the first.
        assert!(matches!(
            ArrayWriter::<Trade>::open(&path),
            Err(ndl_zarr::Error::Locked { .. })
        ));
        w.append(&all[3..4]).unwrap();
        w.append(&all[4..8]).unwrap();
        assert_eq!(w.finish().unwrap(), 8);
        let mut w = ArrayWriter::<Trade>::open(&path).unwrap();
        w.append(&all[8..]).unwrap();
        assert_eq!(w.finish().unwrap(), 12);
        assert_eq!(ndl_zarr::read::<Trade>(&path).unwrap(), all, "{format:?}");
        let seen = run(&ndl_testkit::python312(), "xarray", &path);
        let symbols: Vec<&str> = all.iter().map(|t| t.symbol.as_str()).collect();
        assert_eq!(seen["symbol"]["values"], json!(symbols), "{format:?}");
        let tags: Vec<&str> = all
            .iter()
            .flat_map(|t| &t.tags)
            .map(String::as_str)
            .collect();
        assert_eq!(seen["tags"]["values"], json!(tags), "{format:?}");
    }
}

#[test]
fn array_writer_open_refuses_a_store_of_other_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("labels.zarr");
    let labels = [Label {
        text: "a".into(),
        note: "b".into(),
    }];
    columns(ZarrFormat::V3).write(&path, &labels).unwrap();
    let e = ArrayWriter::<Trade>::open(&path).unwrap_err().to_string();
    assert!(e.contains("labels.zarr/symbol"), "{e}");
    assert!(!path.join(".ndl-append.lock").exists());
}

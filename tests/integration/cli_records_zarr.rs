//! `ndl convert` of records with strings, lists and options (zarr):
//! columns stores that ndl's typed API or xarray wrote become columns
//! stores (v3, and v2 with `--zarr-format 2`) that ndl, zarr-python 3.4
//! and 3.1 and xarray read back equal: values, masks, non-ASCII and empty
//! strings, empty lists. The records layout cannot hold them and is
//! refused by name.

use crate::common;

use std::path::Path;

use common::cli::{convert, converted, refused};
use common::{python, python312, run_file, run_with};
use ndl_runtime::{NdlType, Record};
use ndl_zarr::{Layout, WriteOptions};
use serde_json::{Value, json};

/// Prints what zarr-python or xarray sees of a columns store, as JSON.
const SEEN_PY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/ndl-zarr/tests/python/variable_records.py"
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
    side: Side,
    #[ndl(fill = -1)]
    qty: Option<i32>,
    #[ndl(fill = f64::NAN)]
    fee: Option<f64>,
    levels: Vec<f32>,
    tags: Vec<String>,
    venue: Venue,
}

const SYMBOLS: [&str; 5] = ["ABC", "", "日本", "Zürich ✓", "x"];

/// More records than a chunk (of 3), so that chunks, strings and lists
/// cross the writer's batches.
fn trades() -> Vec<Trade> {
    (0..8u64)
        .map(|i| Trade {
            id: i,
            symbol: SYMBOLS[i as usize % 5].into(),
            side: if i % 2 == 0 { Side::Buy } else { Side::Sell },
            qty: (i % 3 != 1).then_some(i as i32 * 10),
            fee: (i % 4 != 2).then_some(i as f64 / 4.0),
            levels: (0..i % 3).map(|k| k as f32 + 0.5).collect(),
            tags: (0..(i + 1) % 3).map(|k| format!("t{k}ß")).collect(),
            venue: Venue {
                code: i as u16 + 100,
                name: SYMBOLS[(i as usize + 2) % 5].into(),
            },
        })
        .collect()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn seen(python: &Path, mode: &str, path: &Path) -> Value {
    let out = run_file(python, Path::new(SEEN_PY), &[mode, s(path)]);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// A store of `trades()` that ndl's typed API wrote.
fn typed_store(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("trades.zarr");
    let options = WriteOptions::new().layout(Layout::Columns).chunk_len(3);
    options.write(&path, &trades()).unwrap();
    path
}

/// What zarr-python sees of every array of a store of `trades()`.
fn check_zarr_python(seen: &Value, what: &str) {
    let t = trades();
    let col = |f: &dyn Fn(&Trade) -> Value| Value::Array(t.iter().map(f).collect());
    assert_eq!(seen["id"]["values"], col(&|r| json!(r.id)), "{what}");
    assert_eq!(
        seen["symbol"]["values"],
        col(&|r| json!(r.symbol)),
        "{what}"
    );
    assert_eq!(
        seen["side"]["values"],
        col(&|r| json!(r.side as u8)),
        "{what}"
    );
    assert_eq!(
        seen["qty"]["values"],
        col(&|r| json!(r.qty.unwrap_or(-1))),
        "{what}"
    );
    assert_eq!(seen["fee"]["values"], col(&|r| json!(r.fee)), "{what}");
    let levels: Vec<f32> = t.iter().flat_map(|r| r.levels.clone()).collect();
    assert_eq!(seen["levels"]["values"], json!(levels), "{what}");
    assert_eq!(
        seen["levels_count"]["values"],
        col(&|r| json!(r.levels.len())),
        "{what}"
    );
    let tags: Vec<String> = t.iter().flat_map(|r| r.tags.clone()).collect();
    assert_eq!(seen["tags"]["values"], json!(tags), "{what}");
    assert_eq!(
        seen["tags_count"]["values"],
        col(&|r| json!(r.tags.len())),
        "{what}"
    );
    assert_eq!(
        seen["venue.name"]["values"],
        col(&|r| json!(r.venue.name)),
        "{what}"
    );
    assert_eq!(
        seen["venue.code"]["values"],
        col(&|r| json!(r.venue.code)),
        "{what}"
    );
}

#[test]
fn typed_stores_convert_to_v3_and_v2_columns_read_back_equal() {
    let dir = tempfile::tempdir().unwrap();
    let src = typed_store(dir.path());
    for (format, extra) in [
        ("v3", &[][..]),
        ("v2", &["--zarr-format", "2", "--chunk-len", "2"][..]),
    ] {
        let dst = dir.path().join(format!("{format}.zarr"));
        converted(convert(&src, &dst, extra), format);
        assert_eq!(ndl_zarr::read::<Trade>(&dst).unwrap(), trades(), "{format}");
        check_zarr_python(&seen(&python312(), "zarr", &dst), format);
        let zarr31 = seen(&python(), "zarr", &dst);
        assert!(
            zarr31["version"].as_str().unwrap().starts_with("3.1"),
            "{zarr31}"
        );
        check_zarr_python(&zarr31, format);
        let xr = seen(&python312(), "xarray", &dst);
        let masked = |o: Option<f64>| o.map_or(Value::Null, |x| json!(x));
        let qty: Vec<Value> = trades()
            .iter()
            .map(|r| masked(r.qty.map(f64::from)))
            .collect();
        assert_eq!(xr["qty"]["values"], json!(qty), "{format}");
        let fee: Vec<Value> = trades().iter().map(|r| masked(r.fee)).collect();
        assert_eq!(xr["fee"]["values"], json!(fee), "{format}");
        assert_eq!(
            xr["symbol"]["values"],
            json!(SYMBOLS.iter().cycle().take(8).collect::<Vec<_>>())
        );
        assert_eq!(xr["levels"]["dims"], json!(["levels_sample"]), "{format}");
    }
}

#[test]
fn a_converted_store_converts_again_with_the_same_records() {
    let dir = tempfile::tempdir().unwrap();
    let src = typed_store(dir.path());
    let v2 = dir.path().join("v2.zarr");
    converted(convert(&src, &v2, &["--zarr-format", "2"]), "to v2");
    let back = dir.path().join("back.zarr");
    converted(convert(&v2, &back, &[]), "v2 to v3");
    assert_eq!(ndl_zarr::read::<Trade>(&back).unwrap(), trades());
}

/// argv: store, zarr format. An xarray Dataset of a string variable
/// (non-ASCII and empty values) and a float variable with NaN, written
/// with `to_zarr`.
const XARRAY_WRITES: &str = r#"
import sys, warnings
warnings.simplefilter('ignore')
import numpy as np, xarray as xr
path, fmt = sys.argv[1], int(sys.argv[2])
names = np.array(['ab', '', 'Zürich ✓', '日本', 'x', ''], dtype=object)
temp = np.array([1.5, np.nan, -2.0, np.nan, 0.0, 3.25])
ds = xr.Dataset({'name': ('obs', names), 'temp': ('obs', temp)}, attrs={'title': 'stations'})
ds['temp'].attrs['units'] = 'K'
ds.to_zarr(path, zarr_format=fmt, consolidated=True, encoding={'name': {'chunks': (4,)}, 'temp': {'chunks': (4,)}})
print('ok')
"#;

/// argv: store. What xarray reads, as JSON.
const XARRAY_READS: &str = r#"
import sys, json, math, warnings
warnings.simplefilter('ignore')
import xarray as xr
ds = xr.open_zarr(sys.argv[1])
temp = [None if math.isnan(v) else v for v in ds['temp'].values.tolist()]
print(json.dumps({'name': [str(v) for v in ds['name'].values.tolist()], 'temp': temp,
                  'dims': list(ds['temp'].dims), 'title': ds.attrs.get('title'),
                  'units': ds['temp'].attrs.get('units')}))
"#;

#[test]
fn xarray_strings_and_nan_fills_convert_and_read_back_equal() {
    let dir = tempfile::tempdir().unwrap();
    let names = json!(["ab", "", "Zürich ✓", "日本", "x", ""]);
    let temp = json!([1.5, null, -2.0, null, 0.0, 3.25]);
    for written in ["2", "3"] {
        let src = dir.path().join(format!("xr{written}.zarr"));
        run_with(&python312(), XARRAY_WRITES, &[s(&src), written]);
        for (format, extra) in [("v3", &[][..]), ("v2", &["--zarr-format", "2"][..])] {
            let what = format!("xarray v{written} to {format}");
            let dst = dir.path().join(format!("xr{written}-{format}.zarr"));
            converted(convert(&src, &dst, extra), &what);
            let out = run_with(&python312(), XARRAY_READS, &[s(&dst)]);
            let got: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
            assert_eq!(got["name"], names, "{what}");
            assert_eq!(got["temp"], temp, "{what}");
            // A dataset another tool wrote is copied as one, not as a
            // table: its dimension and attributes stay.
            assert_eq!(got["dims"], json!(["obs"]), "{what}");
            assert_eq!(got["title"], json!("stations"), "{what}");
            assert_eq!(got["units"], json!("K"), "{what}");
            let z = seen(&python312(), "zarr", &dst);
            assert_eq!(z["name"]["values"], names, "{what}");
            assert_eq!(z["temp"]["values"], temp, "{what}");
        }
    }
}

#[test]
fn the_records_layout_is_refused_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let src = typed_store(dir.path());
    let dst = dir.path().join("records.zarr");
    let run = convert(&src, &dst, &["--layout", "records"]);
    refused(&run, &dst, &["field `symbol`", "--layout columns"]);
    assert!(!dst.exists());
}

/// argv: store, zip. Zips the store's objects at the zip's root, as
/// zarr-python's `ZipStore` lays them out.
const ZIP_STORE: &str = r#"
import os, sys, zipfile
store, out = sys.argv[1:3]
with zipfile.ZipFile(out, 'w') as z:
    for root, _, files in os.walk(store):
        for f in files:
            p = os.path.join(root, f)
            z.write(p, os.path.relpath(p, store))
print('ok')
"#;

#[test]
fn a_zipped_store_converts_as_the_directory_does() {
    let dir = tempfile::tempdir().unwrap();
    let src = typed_store(dir.path());
    let zip = dir.path().join("trades.zarr.zip");
    run_with(&python312(), ZIP_STORE, &[s(&src), s(&zip)]);
    let dst = dir.path().join("from-zip.zarr");
    converted(convert(&zip, &dst, &[]), "from a zip");
    assert_eq!(ndl_zarr::read::<Trade>(&dst).unwrap(), trades());
}

/// To object storage and back (moto's S3): the store appears whole, and
/// reads back the same records.
#[test]
fn variable_records_go_to_s3_and_back() {
    let moto = common::moto::Moto::start(&python312());
    moto.bucket("data");
    let dir = tempfile::tempdir().unwrap();
    let src = typed_store(dir.path());
    let ndl = |from: &str, to: &str| {
        let out = std::process::Command::new(common::cli::NDL)
            .args(["convert", from, to, "--chunk-len", "2"])
            .envs(moto.env())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{from} -> {to}: {stderr}");
    };
    ndl(s(&src), "s3://data/trades.zarr");
    let back = dir.path().join("back.zarr");
    ndl("s3://data/trades.zarr", s(&back));
    assert_eq!(ndl_zarr::read::<Trade>(&back).unwrap(), trades());
}

/// `--chunk-len` and `--codec` reach every array: the columns, the counts,
/// the strings and the items; nothing hidden is left beside the store.
#[test]
fn chunk_and_codec_settings_reach_every_array() {
    let dir = tempfile::tempdir().unwrap();
    let src = typed_store(dir.path());
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let dst = out.join("v2.zarr");
    let args = ["--zarr-format", "2", "--chunk-len", "2", "--codec", "zlib"];
    converted(convert(&src, &dst, &args), "v2 zlib");
    common::stores::no_partial(&out);
    for array in ["id", "qty", "levels_count", "symbol"] {
        let meta = common::stores::json(&dst.join(array).join(".zarray"));
        assert_eq!(meta["chunks"], json!([2]), "{array}: {meta}");
        assert_eq!(meta["compressor"]["id"], "zlib", "{array}: {meta}");
    }
    for array in ["levels", "tags"] {
        let meta = common::stores::json(&dst.join(array).join(".zarray"));
        assert_eq!(meta["compressor"]["id"], "zlib", "{array}: {meta}");
    }
    assert_eq!(ndl_zarr::read::<Trade>(&dst).unwrap(), trades());
}

/// `ndl describe` of a store of variable records: one array of records,
/// its strings, lists and options named as NDL and datashape spell them.
#[test]
fn variable_stores_are_described_as_records() {
    let dir = tempfile::tempdir().unwrap();
    let src = typed_store(dir.path());
    let ndl = common::cli::ok(common::cli::describe(&src, "ndl", &[]), "ndl");
    for part in ["symbol: {type: string}", "shape: [8]", "vlen", "optional"] {
        assert!(ndl.contains(part), "{part}: {ndl}");
    }
    let datashape = common::cli::ok(common::cli::describe(&src, "datashape", &[]), "datashape");
    assert!(datashape.starts_with("8 * {"), "{datashape}");
    assert!(datashape.contains("symbol: string"), "{datashape}");
}

/// A store xarray wrote of numbers beside fixed-width strings (`<U2`,
/// Zarr v3's `fixed_length_utf32`) is a table: its strings are a column
/// of Parquet strings, not a reason to refuse it.
#[test]
fn fixed_width_strings_of_a_dataset_are_a_column() {
    let dir = tempfile::tempdir().unwrap();
    let (src, dst) = (dir.path().join("u.zarr"), dir.path().join("u.parquet"));
    run_with(
        &python312(),
        r#"
import sys, warnings
warnings.simplefilter('ignore')
import numpy as np, xarray as xr
xr.Dataset({'x': ('time', [1.0, 2.0, 3.0]), 'c': ('time', np.array(['a', 'bé', ''], 'U2'))}).to_zarr(sys.argv[1], consolidated=False)
"#,
        &[s(&src)],
    );
    converted(convert(&src, &dst, &[]), "a table of fixed strings");
    let out = run_with(
        &python312(),
        "import sys, pyarrow.parquet as pq\nprint(pq.read_table(sys.argv[1]).to_pylist())",
        &[s(&dst)],
    );
    assert_eq!(
        out,
        "[{'c': 'a', 'x': 1.0}, {'c': 'bé', 'x': 2.0}, {'c': '', 'x': 3.0}]\n"
    );
}

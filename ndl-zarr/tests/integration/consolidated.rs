//! Consolidated metadata of the columns layout: xarray opens our groups
//! without the "Failed to open Zarr store with consolidated metadata"
//! warning, and the copy follows appends.

use std::path::Path;

use ndl_runtime::NdlType;
use ndl_zarr::{ArrayWriter, Layout, WriteOptions, ZarrFormat};
use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Row {
    id: u32,
    /// Air temperature.
    #[ndl(units = "K")]
    t: f64,
    #[ndl(string)]
    code: [u8; 3],
}

fn rows(range: std::ops::Range<u32>) -> Vec<Row> {
    range
        .map(|i| Row {
            id: i,
            t: f64::from(i) / 2.0,
            code: *b"abc",
        })
        .collect()
}

/// Opens the group with xarray, warnings as errors, both with
/// `consolidated=None` (the default, which warns when there is none) and
/// `consolidated=True`; prints each one's length of `obs` and `id`'s sum.
const XARRAY: &str = "import sys, warnings, xarray as xr\n\
warnings.simplefilter('error')\n\
for c in (None, True):\n\
\x20   ds = xr.open_zarr(sys.argv[1], consolidated=c)\n\
\x20   print(ds.sizes['obs'], int(ds['id'].sum()))\n";

/// Opens the group with zarr-python's `open_consolidated`, warnings as
/// errors, and prints the shape its consolidated copy gives `id`.
const ZARR: &str = "import sys, warnings, zarr\n\
warnings.simplefilter('error')\n\
g = zarr.open_consolidated(sys.argv[1], mode='r')\n\
print(g['id'].shape[0], int(g['id'][:].sum()))\n";

/// The length of column `id` in the group's consolidated metadata.
fn consolidated_len(path: &Path, format: ZarrFormat) -> u64 {
    let (file, pointer) = match format {
        ZarrFormat::V2 => (".zmetadata", "/metadata/id~1.zarray/shape/0"),
        ZarrFormat::V3 => ("zarr.json", "/consolidated_metadata/metadata/id/shape/0"),
    };
    let doc: Value = serde_json::from_slice(&std::fs::read(path.join(file)).unwrap()).unwrap();
    doc.pointer(pointer)
        .and_then(Value::as_u64)
        .unwrap_or_else(|| panic!("no {pointer} in {file}: {doc}"))
}

fn check_consumers(path: &Path, len: u32) {
    let sum: u32 = (0..len).sum();
    let want = format!("{len} {sum}");
    let p = path.to_str().unwrap();
    let seen = ndl_testkit::run_with(&ndl_testkit::python312(), XARRAY, &[p]);
    assert_eq!(seen, format!("{want}\n{want}\n"), "xarray");
    for python in [ndl_testkit::python312(), ndl_testkit::python()] {
        let seen = ndl_testkit::run_with(&python, ZARR, &[p]);
        assert_eq!(seen.trim(), want, "zarr-python of {}", python.display());
    }
}

#[test]
fn columns_stores_are_consolidated_and_stay_so_after_appends() {
    let dir = tempfile::tempdir().unwrap();
    for format in [ZarrFormat::V2, ZarrFormat::V3] {
        let path = dir.path().join(format!("{format:?}.zarr"));
        WriteOptions::new()
            .layout(Layout::Columns)
            .zarr_format(format)
            .chunk_len(4)
            .dimension("obs")
            .write(&path, &rows(0..6))
            .unwrap();
        assert_eq!(consolidated_len(&path, format), 6);
        check_consumers(&path, 6);

        let mut w = ArrayWriter::<Row>::open(&path).unwrap();
        w.append(&rows(6..11)).unwrap();
        w.finish().unwrap();
        assert_eq!(consolidated_len(&path, format), 11, "{format:?}");
        check_consumers(&path, 11);
        assert_eq!(ndl_zarr::read::<Row>(&path).unwrap(), rows(0..11));
    }
}

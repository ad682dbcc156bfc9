//! Bools in the columns layout: `int8` variables of 0 and 1 with the
//! attribute `dtype: bool`, as xarray writes them, which both of xarray's
//! engines (netcdf4 and h5netcdf) decode to bool and our reader reads back
//! as bool, nested fields and bool arrays included. Fails (never skips)
//! without xarray, netCDF4, h5netcdf or ncdump.

use ndl_runtime::NdlType;
use ndl_testkit::python::{python312, run_with};
use ndl_testkit::records::S5;

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Fix {
    x: f64,
    ok: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Station {
    id: u16,
    at: Fix,
    flags: [bool; 2],
    name: S5,
}

fn stations() -> Vec<Station> {
    let name = |s: &[u8]| {
        let mut b = [0u8; 5];
        b[..s.len()].copy_from_slice(s);
        S5(b)
    };
    vec![
        Station {
            id: 7,
            at: Fix { x: 0.5, ok: true },
            flags: [false, true],
            name: name(b"ab"),
        },
        Station {
            id: 8,
            at: Fix { x: -1.5, ok: false },
            flags: [true, true],
            name: name(b"cdefg"),
        },
        Station {
            id: 9,
            at: Fix { x: 1e300, ok: true },
            flags: [false, false],
            name: name(b""),
        },
    ]
}

#[test]
fn bools_in_columns_are_int8_that_both_xarray_engines_decode() {
    let dir = tempfile::tempdir().unwrap();
    let nc = dir.path().join("stations.nc");
    let records = stations();
    ndl_hdf5::write_columns(&nc, &records).unwrap();
    assert_eq!(ndl_hdf5::read_columns::<Station>(&nc).unwrap(), records);
    let header = ndl_testkit::netcdf::ncdump(&["-h"], &nc);
    for line in [
        "byte at.ok(record) ;",
        "at.ok:dtype = \"bool\" ;",
        "flags:dtype = \"bool\" ;",
    ] {
        assert!(header.contains(line), "{line}: {header}");
    }
    assert!(!header.contains("bool_t"), "{header}");
    run_with(
        &python312(),
        r#"
import sys, numpy as np, netCDF4, xarray as xr
with netCDF4.Dataset(sys.argv[1]) as f:
    ok = f.variables["at.ok"]
    assert ok.dtype == np.int8 and ok.getncattr("dtype") == "bool", (ok.dtype, ok.ncattrs())
    assert f.variables["flags"][:].tolist() == [[0, 1], [1, 1], [0, 0]]
for engine in ["netcdf4", "h5netcdf"]:
    with xr.open_dataset(sys.argv[1], engine=engine) as ds:
        assert ds["at.ok"].dtype == bool, (engine, ds["at.ok"].dtype)
        assert ds["at.ok"].values.tolist() == [True, False, True], engine
        assert ds["flags"].dtype == bool, (engine, ds["flags"].dtype)
        assert ds["flags"].values.tolist() == [[False, True], [True, True], [False, False]], engine
        assert ds["id"].values.tolist() == [7, 8, 9], engine
        assert ds["at.x"].values.tolist() == [0.5, -1.5, 1e300], engine
        assert ds["name"].values.tolist() == [b"ab", b"cdefg", b""], (engine, ds["name"].values)
"#,
        &[nc.to_str().unwrap()],
    );
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Flags {
    on: bool,
    value: f32,
}

/// xarray's bools (int8 with `dtype: bool`) and h5py's (its `FALSE`/`TRUE`
/// enum) both read as bool; an int8 that is neither 0 nor 1 is refused,
/// naming the field and record.
#[test]
fn bools_xarray_and_h5py_wrote_read_typed() {
    let dir = tempfile::tempdir().unwrap();
    let xr_nc = dir.path().join("xr.nc");
    let h5 = dir.path().join("h5py.h5");
    let bad = dir.path().join("bad.nc");
    run_with(
        &python312(),
        r#"
import sys, numpy as np, xarray as xr, h5py
value = ("record", np.array([1.5, 2.5, 3.5], "<f4"))
xr.Dataset({"on": ("record", np.array([True, False, True])), "value": value}).to_netcdf(
    sys.argv[1], engine="h5netcdf")
with h5py.File(sys.argv[2], "w") as f:
    f["on"] = np.array([False, True, True])
    f["value"] = np.array([1.5, 2.5, 3.5], "<f4")
xr.Dataset({"on": ("record", np.array([1, 2, 0], "i1")), "value": value}).to_netcdf(sys.argv[3])
"#,
        &[
            xr_nc.to_str().unwrap(),
            h5.to_str().unwrap(),
            bad.to_str().unwrap(),
        ],
    );
    let got = ndl_hdf5::read_columns::<Flags>(&xr_nc).unwrap();
    let on: Vec<bool> = got.iter().map(|f| f.on).collect();
    assert_eq!(on, [true, false, true]);
    assert_eq!(got[2].value, 3.5);
    let got = ndl_hdf5::read_columns::<Flags>(&h5).unwrap();
    let on: Vec<bool> = got.iter().map(|f| f.on).collect();
    assert_eq!(on, [false, true, true]);
    let e = ndl_hdf5::read_columns::<Flags>(&bad).unwrap_err();
    assert!(
        matches!(&e, ndl_hdf5::Error::InvalidValue { field, record: 1, .. } if field == "on"),
        "{e}"
    );
}

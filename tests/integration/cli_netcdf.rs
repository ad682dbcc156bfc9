//! `ndl convert` to netCDF-4 (`.nc`) and back: what NumPy saves becomes
//! a file whose dimensions, types and attributes Debian's `ncdump`,
//! netCDF4-python and xarray read, `ndl describe --format cdl` prints what
//! `ncdump -h` prints, and the `.npy` comes back byte for byte. Also the
//! HDF5 codecs the command offers.

use crate::common;

use std::path::Path;

use common::cli::{convert, converted, describe, ndl, ok, refused};
use common::numpy_kinds::{NETCDF4_FILE, NUMPY_KINDS};
use ndl_testkit::netcdf::ncdump;
use ndl_testkit::python::{python312, run_with};

/// `ncdump -h`'s text without what `ndl describe` leaves out on purpose:
/// our `ndl_datatype` bookkeeping, and a global attributes block that
/// held only that.
fn without_bookkeeping(cdl: &str) -> String {
    let kept: Vec<&str> = cdl
        .lines()
        .filter(|l| !l.contains(":ndl_datatype = "))
        .collect();
    kept.join("\n")
        .replace("\n\n// global attributes:\n}", "\n}")
}

/// Converts `npy` to `.nc` and back, checking the file with ncdump and
/// our CDL against ncdump's.
fn round_trip(d: &Path, name: &str, extra: &[&str]) -> std::path::PathBuf {
    let npy = d.join(format!("{name}.npy"));
    let nc = d.join(format!("{name}.nc"));
    let back = d.join(format!("{name}_back.npy"));
    let run = convert(&npy, &nc, extra);
    assert_eq!(run.code, Some(0), "{name} to .nc: {run:#?}");
    let header = ncdump(&["-h"], &nc);
    assert!(!header.contains("phony_dim"), "{name}: {header}");
    ncdump(&[], &nc);
    let ours = ok(describe(&nc, "cdl", &[]), &format!("describe {name}.nc"));
    assert_eq!(
        ours.trim_end(),
        without_bookkeeping(&header).trim_end(),
        "{name}: our CDL is not ncdump -h's"
    );
    converted(convert(&nc, &back, &[]), &format!("{name} back"));
    assert_eq!(
        std::fs::read(&npy).unwrap(),
        std::fs::read(&back).unwrap(),
        "{name}: the .npy that came back differs"
    );
    nc
}

#[test]
fn npy_to_nc_and_back_is_byte_for_byte_and_ncdump_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run_with(&python312(), NUMPY_KINDS, &[d.to_str().unwrap()]);
    for name in [
        "big", "cube", "scalar", "empty", "complex", "time", "strs", "bools",
    ] {
        round_trip(d, name, &[]);
    }
    let header = ncdump(&["-h"], &d.join("cube.nc"));
    assert!(
        header.contains("ushort cube(dim_0, dim_1, dim_2) ;"),
        "{header}"
    );
    let header = ncdump(&["-h"], &d.join("strs.nc"));
    assert!(
        header.contains("char strs(dim_0, dim_1, string4) ;"),
        "{header}"
    );
    run_with(
        &python312(),
        r#"
import sys, numpy as np, xarray as xr
d = sys.argv[1]
t = xr.open_dataset(f"{d}/time.nc")["time"].values
assert str(t[0]) == "2026-11-25T12:00:00.000000000" and np.isnat(t[1]), t
s = xr.open_dataset(f"{d}/strs.nc")["strs"].values
assert s.tolist() == [[b"ab", b"cdef"], [b"x", b""]], s
c = xr.open_dataset(f"{d}/cube.nc")["cube"]
assert c.dims == ("dim_0", "dim_1", "dim_2") and int(c.sum()) == sum(range(60))
"#,
        &[d.to_str().unwrap()],
    );
}

#[test]
fn records_holding_a_bool_convert_with_a_note_for_netcdf4_python() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run_with(&python312(), NUMPY_KINDS, &[d.to_str().unwrap()]);
    let npy = d.join("recs.npy");
    let nc = d.join("recs.nc");
    let run = convert(&npy, &nc, &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(
        run.stderr.starts_with("ndl: note: ") && run.stderr.contains("--layout columns"),
        "{}",
        run.stderr
    );
    let header = ncdump(&["-h"], &nc);
    assert!(
        header.contains("byte enum bool_t {FALSE = 0, TRUE = 1} ;"),
        "{header}"
    );
    assert!(header.contains("recs_t recs(record) ;"), "{header}");
    assert!(header.contains("char s(5) ;"), "{header}");
    let back = d.join("recs_back.npy");
    converted(convert(&nc, &back, &[]), "recs back");
    assert_eq!(std::fs::read(&npy).unwrap(), std::fs::read(&back).unwrap());
    // What the note says: netCDF4-python skips the variable.
    let skipped = run_with(
        &python312(),
        "import sys, warnings, netCDF4\nwarnings.simplefilter('ignore')\nprint(list(netCDF4.Dataset(sys.argv[1]).variables))",
        &[nc.to_str().unwrap()],
    );
    assert_eq!(
        skipped.trim(),
        "[]",
        "netCDF4-python now reads it: drop the note"
    );
}

#[test]
fn the_columns_layout_is_what_xarray_and_netcdf4_python_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run_with(&python312(), NUMPY_KINDS, &[d.to_str().unwrap()]);
    let nc = round_trip(d, "cols", &["--layout", "columns"]);
    let header = ncdump(&["-h"], &nc);
    for line in [
        "uint id(record) ;",
        "char name(record, name_strlen) ;",
        "double v(record, v_dim0) ;",
        "byte flag(record) ;",
        "flag:dtype = \"bool\" ;",
        "t:units = \"seconds since 1970-01-01 00:00:00\" ;",
        "t:calendar = \"proleptic_gregorian\" ;",
        // Weeks are stored as CF's days, as in Zarr's columns layout.
        "w:units = \"days since 1970-01-01 00:00:00\" ;",
    ] {
        assert!(header.contains(line), "{line}: {header}");
    }
    run_with(
        &python312(),
        r#"
import sys, numpy as np, netCDF4, xarray as xr
want = np.load(sys.argv[2])
with netCDF4.Dataset(sys.argv[1]) as f:
    assert sorted(f.variables) == ["flag", "id", "name", "t", "v", "w"], list(f.variables)
    assert f.variables["flag"].getncattr("dtype") == "bool"
    assert f.variables["flag"][:].tolist() == [1, 0, 1, 0, 1]
for engine in ["netcdf4", "h5netcdf"]:
    ds = xr.open_dataset(sys.argv[1], engine=engine)
    assert ds["name"].values.tolist() == want["name"].tolist(), (engine, ds["name"].values)
    assert (ds["t"].values[[0, 1, 3, 4]] == want["t"][[0, 1, 3, 4]]).all() and np.isnat(ds["t"].values[2])
    assert ds["v"].dims == ("record", "v_dim0")
    assert ds["v"].values.tolist() == want["v"].tolist(), engine
    assert ds["id"].values.tolist() == list(range(5))
    assert ds["flag"].dtype == bool and ds["flag"].values.tolist() == want["flag"].tolist(), engine
    np.testing.assert_array_equal(ds["w"].values, want["w"].astype(ds["w"].dtype))
"#,
        &[nc.to_str().unwrap(), d.join("cols.npy").to_str().unwrap()],
    );
    // A plain array has no fields to split.
    let cube = d.join("cube2.nc");
    refused(
        &convert(&d.join("cube.npy"), &cube, &["--layout", "columns"]),
        &cube,
        &["columns layout", "--layout records"],
    );
}

/// Time arrays of units that are a whole number of a CF unit (weeks, tens
/// of milliseconds) are stored in that unit, as the columns layout stores
/// them: xarray decodes the same instants, and they convert back exactly.
#[test]
fn time_arrays_of_scaled_units_decode_in_xarray_and_come_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run_with(
        &python312(),
        "import sys, numpy as np\n\
         w = np.array([0, 3, -2, 'NaT'], 'M8[W]'); np.save(sys.argv[1] + '/w.npy', w)\n\
         t = np.array([[1, 250], ['NaT', -7]], '>m8[10ms]'); np.save(sys.argv[1] + '/t.npy', t)\n",
        &[d.to_str().unwrap()],
    );
    for (name, units) in [
        ("w", "days since 1970-01-01 00:00:00"),
        ("t", "milliseconds"),
    ] {
        let nc = round_trip(d, name, &[]);
        let header = ncdump(&["-h"], &nc);
        assert!(
            header.contains(&format!(":units = \"{units}\" ;")),
            "{header}"
        );
        run_with(
            &python312(),
            "import sys, numpy as np, xarray as xr\n\
             want = np.load(sys.argv[2])\n\
             ds = xr.open_dataset(sys.argv[1]); got = ds[list(ds.data_vars)[0]].values\n\
             np.testing.assert_array_equal(got, want.astype(got.dtype))\n",
            &[
                nc.to_str().unwrap(),
                d.join(format!("{name}.npy")).to_str().unwrap(),
            ],
        );
    }
}

/// A count of weeks whose days are beyond an int64 cannot be stored in
/// CF units: refused naming the record, with no file left behind.
#[test]
fn a_week_count_beyond_int64_in_days_is_refused_naming_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run_with(
        &python312(),
        "import sys, numpy as np\n\
         a = np.zeros(3, [('id', '<u4'), ('w', '<M8[W]')]); a['w'][2] = 2**62\n\
         np.save(sys.argv[1] + '/big.npy', a); np.save(sys.argv[1] + '/bigw.npy', a['w'])\n",
        &[d.to_str().unwrap()],
    );
    for (name, extra) in [("big", &["--layout", "columns"][..]), ("bigw", &[])] {
        let nc = d.join(format!("{name}.nc"));
        let run = convert(&d.join(format!("{name}.npy")), &nc, extra);
        refused(&run, &nc, &["record 2", "beyond an int64"]);
        assert!(!nc.exists(), "{name}: a file was left behind");
    }
}

#[test]
fn hdf5_takes_deflate_and_shuffle_and_refuses_plugin_codecs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run_with(&python312(), NUMPY_KINDS, &[d.to_str().unwrap()]);
    let npy = d.join("cube.npy");
    let h5 = d.join("cube.h5");
    converted(
        convert(&npy, &h5, &["--codec", "zlib:6", "--shuffle"]),
        "zlib and shuffle",
    );
    run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    d = f["cube"]
    assert d.compression == "gzip" and d.compression_opts == 6, (d.compression, d.compression_opts)
    assert d.shuffle and d.chunks is not None
    assert (d[()] == np.load(sys.argv[2])).all()
"#,
        &[h5.to_str().unwrap(), npy.to_str().unwrap()],
    );
    let back = d.join("cube_back.npy");
    converted(convert(&h5, &back, &[]), "back");
    assert_eq!(std::fs::read(&npy).unwrap(), std::fs::read(&back).unwrap());

    let nc = d.join("gz.nc");
    converted(convert(&npy, &nc, &["--codec", "gzip"]), "gzip to .nc");
    let special = ncdump(&["-hs"], &nc);
    assert!(special.contains("cube:_DeflateLevel = "), "{special}");

    for codec in ["zstd", "bz2", "lz4:1"] {
        let out = d.join(format!("{}.h5", codec.replace(':', "_")));
        refused(
            &convert(&npy, &out, &["--codec", codec]),
            &out,
            &["none, gzip or zlib", "blosc", "hdf5plugin"],
        );
        assert!(!out.exists(), "{codec}");
    }
}

#[test]
fn blosc_goes_both_ways_with_h5py_and_hdf5plugin() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run_with(&python312(), NUMPY_KINDS, &[d.to_str().unwrap()]);
    for (name, codec) in [("cube", "blosc:zstd:5:bitshuffle"), ("recs", "blosc")] {
        let npy = d.join(format!("{name}.npy"));
        let h5 = d.join(format!("{name}.h5"));
        converted(convert(&npy, &h5, &["--codec", codec]), codec);
        let ndl = ok(describe(&h5, "ndl", &[]), codec);
        assert!(ndl.contains("name: blosc"), "{ndl}");
        run_with(
            &python312(),
            r#"
import sys, h5py, hdf5plugin, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    d = f[sys.argv[3]]
    assert "32001" in d._filters, d._filters
    assert d[()].tobytes() == np.load(sys.argv[2]).tobytes()
"#,
            &[h5.to_str().unwrap(), npy.to_str().unwrap(), name],
        );
    }
    // What h5py writes with hdf5plugin's Blosc (zstd inside) reads back.
    let theirs = d.join("theirs.h5");
    run_with(
        &python312(),
        r#"
import sys, h5py, hdf5plugin, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("x", data=np.arange(100000, dtype="<f8"), chunks=(4096,),
                     **hdf5plugin.Blosc(cname="zstd", clevel=3, shuffle=hdf5plugin.Blosc.SHUFFLE))
"#,
        &[theirs.to_str().unwrap()],
    );
    let back = d.join("theirs.npy");
    converted(convert(&theirs, &back, &[]), "blosc from h5py");
    run_with(
        &python312(),
        "import sys, numpy as np; a = np.load(sys.argv[1]); assert (a == np.arange(100000.0)).all()",
        &[back.to_str().unwrap()],
    );
}

#[test]
fn files_netcdf4_python_wrote_describe_as_ncdump_shows_them() {
    let dir = tempfile::tempdir().unwrap();
    let nc = dir.path().join("cf.nc");
    run_with(&python312(), NETCDF4_FILE, &[nc.to_str().unwrap()]);
    let ours = ok(describe(&nc, "cdl", &[]), "describe cf.nc as CDL");
    assert_eq!(ours.trim_end(), ncdump(&["-h"], &nc).trim_end());
    assert!(
        ours.contains("time = UNLIMITED ; // (2 currently)"),
        "{ours}"
    );

    let ndl = ok(describe(&nc, "ndl", &[]), "describe cf.nc");
    let doc: serde_yaml::Value = serde_yaml::from_str(&ndl).unwrap();
    let sub = &doc["/sub"];
    assert_eq!(sub["dimcoords"]["x"]["size"], 4, "{ndl}");
    let factor = &sub["ndarrays"]["w"]["attributes"]["factor"];
    assert_eq!(factor["type"], "float32", "{ndl}");
    assert_eq!(doc["/"]["dimcoords"]["time"]["type"], "float64", "{ndl}");
    assert!(doc["/"]["dimcoords"].get("x").is_none(), "{ndl}");
}

#[test]
fn a_table_xarray_wrote_converts_to_records() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let nc = d.join("table.nc");
    run_with(
        &python312(),
        r#"
import sys, numpy as np, xarray as xr
ds = xr.Dataset(
    {"value": ("obs", np.array([1.5, -2.0, 3.25], "<f4")),
     "station": ("obs", np.array([7, 8, 9], ">i4")),
     "code": ("obs", np.array([b"ab", b"cde", b""], "S5")),
     "m": (("obs", "k"), np.arange(6).reshape(3, 2)),
     "when": ("obs", np.array(["2000-01-01T06", "NaT", "1999-12-31T18"], "M8[s]")),
     "took": ("obs", np.array([90, 60, 30], "m8[s]"))},
    coords={"obs": np.array([10, 20, 30])})
ds.to_netcdf(sys.argv[1], engine="netcdf4")
"#,
        &[nc.to_str().unwrap()],
    );
    let npy = d.join("table.npy");
    converted(convert(&nc, &npy, &[]), "a table to records");
    run_with(
        &python312(),
        r#"
import sys, numpy as np
a = np.load(sys.argv[1])
assert a.dtype.names == ("value", "station", "code", "m", "when", "took", "obs"), a.dtype
w = a["when"].astype("M8[s]")
assert str(w[0]) == "2000-01-01T06:00:00" and np.isnat(w[1]) and str(w[2]) == "1999-12-31T18:00:00", a["when"]
assert a["took"].astype("m8[s]").astype(int).tolist() == [90, 60, 30], a["took"]
assert a["station"].tolist() == [7, 8, 9] and a["station"].dtype == "<i4"
assert a["code"].tolist() == [b"ab", b"cde", b""]
assert a["m"].tolist() == [[0, 1], [2, 3], [4, 5]] and a["obs"].tolist() == [10, 20, 30]
assert a["value"].tolist() == [1.5, -2.0, 3.25]
"#,
        &[npy.to_str().unwrap()],
    );
    // One variable still converts alone, with --member.
    let value = d.join("value.npy");
    converted(convert(&nc, &value, &["--member", "value"]), "one variable");
}

/// netCDF-C stores a variable named like a dimension that is not its
/// coordinate (`y(x, y)`) as `_nc4_non_coord_y`, beside the dimension's
/// scale `y`, which holds no data: `--member y` is the variable, as
/// netCDF4-python reads it, and the CDL calls it `y`, as ncdump does.
#[test]
fn a_variable_named_like_a_dimension_it_is_not_the_coordinate_of_is_itself() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let nc = d.join("non_coord.nc");
    run_with(
        &python312(),
        r#"
import sys, numpy as np, netCDF4
with netCDF4.Dataset(sys.argv[1], "w") as ds:
    ds.createDimension("x", 2)
    ds.createDimension("y", 5)
    ds.createVariable("y", "f8", ("x", "y"))[:] = np.arange(10).reshape(2, 5) + 0.5
    ds.createVariable("x", "i4", ("x",))[:] = [10, 20]
    ds.createVariable("v", "i2", ("y",))[:] = np.arange(5) - 2
"#,
        &[nc.to_str().unwrap()],
    );
    for name in ["y", "x", "v"] {
        let npy = d.join(format!("{name}.npy"));
        converted(convert(&nc, &npy, &["--member", name]), name);
        run_with(
            &python312(),
            r#"
import sys, numpy as np, netCDF4
with netCDF4.Dataset(sys.argv[1]) as ds:
    want = ds[sys.argv[3]][:].data
got = np.load(sys.argv[2])
assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.shape)
assert (got == want).all(), (got, want)
"#,
            &[nc.to_str().unwrap(), npy.to_str().unwrap(), name],
        );
    }
    let cdl = ok(describe(&nc, "cdl", &[]), "describe");
    assert!(!cdl.contains("_nc4_non_coord"), "{cdl}");
    assert!(cdl.contains("double y(x, y) ;"), "{cdl}");
    let header = ncdump(&["-h"], &nc);
    assert!(header.contains("double y(x, y) ;"), "{header}");
}

#[test]
fn the_command_describes_and_converts_a_netcdf3_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let nc = d.join("classic.nc");
    run_with(
        &python312(),
        r#"
import sys, numpy as np, netCDF4
with netCDF4.Dataset(sys.argv[1], "w", format="NETCDF3_64BIT_OFFSET") as ds:
    ds.createDimension("t", None)
    ds.createDimension("x", 2)
    v = ds.createVariable("v", "i4", ("t", "x"))
    v.units = "m"
    v[:] = [[1, -2], [3, 2**31 - 1]]
"#,
        &[nc.to_str().unwrap()],
    );
    let cdl = ok(describe(&nc, "cdl", &[]), "describe a netCDF-3 file");
    assert_eq!(cdl.trim_end(), ncdump(&["-h"], &nc).trim_end());
    let npy = d.join("v.npy");
    converted(
        convert(&nc, &npy, &["--member", "v"]),
        "a netCDF-3 variable",
    );
    run_with(
        &python312(),
        r#"
import sys, numpy as np, netCDF4
a = np.load(sys.argv[1])
with netCDF4.Dataset(sys.argv[2]) as ds:
    want = ds["v"][:]
assert a.dtype == ">i4" and a.tolist() == want.tolist(), (a, want)
"#,
        &[npy.to_str().unwrap(), nc.to_str().unwrap()],
    );
}

/// argv: netCDF-4 file, netCDF-3 file. One variable each, no coordinate
/// variable, and global attributes.
const ONE_VARIABLE: &str = r#"
import sys
import netCDF4
for path, fmt in zip(sys.argv[1:3], ['NETCDF4', 'NETCDF3_CLASSIC']):
    f = netCDF4.Dataset(path, 'w', format=fmt)
    f.title = 'one variable'
    f.Conventions = 'CF-1.8'
    f.createDimension('x', 3)
    v = f.createVariable('v', 'f4', ('x',))
    v[:] = [1, 2, 3]
    v.units = 'K'
    f.close()
"#;

/// A file of one variable keeps its global attributes in a copy to a
/// format that holds a dataset (they were dropped: the variable went
/// alone); to `.npy` it is the variable alone still.
#[test]
fn a_file_of_one_variable_keeps_its_global_attributes() {
    let dir = tempfile::tempdir().unwrap();
    let (nc4, nc3) = (dir.path().join("one4.nc"), dir.path().join("one3.nc"));
    run_with(
        &python312(),
        ONE_VARIABLE,
        &[nc4.to_str().unwrap(), nc3.to_str().unwrap()],
    );
    let check = r#"
import sys, warnings
warnings.simplefilter('ignore')
import xarray as xr
for path in sys.argv[1:]:
    ds = xr.open_zarr(path, consolidated=False) if path.endswith('.zarr') else xr.open_dataset(path)
    assert ds.attrs.get('title') == 'one variable', (path, ds.attrs)
    assert ds.attrs.get('Conventions') == 'CF-1.8', (path, ds.attrs)
    assert ds['v'].attrs['units'] == 'K' and ds['v'].values.tolist() == [1, 2, 3], (path, ds)
print('ok')
"#;
    let mut made = Vec::new();
    for src in [&nc4, &nc3] {
        let stem = src.file_stem().unwrap().to_str().unwrap().to_owned();
        for ext in ["zarr", "nc", "h5"] {
            let dst = dir.path().join(format!("{stem}_copy.{ext}"));
            let run = convert(src, &dst, &[]);
            assert_eq!(run.code, Some(0), "{run:#?}");
            made.push(dst);
        }
        let npy = dir.path().join(format!("{stem}.npy"));
        assert_eq!(convert(src, &npy, &[]).code, Some(0));
    }
    let args: Vec<&str> = made.iter().map(|p| p.to_str().unwrap()).collect();
    assert_eq!(run_with(&python312(), check, &args).trim(), "ok");
}

/// argv: path. Two variables along an unlimited `time` of 5, written
/// only in part (as appending records leaves them): `temp` (a
/// `_FillValue`) its first 2, `count` (netCDF's default fill) its second,
/// `site` (strings) its first.
const PARTLY_WRITTEN: &str = "\
import sys, netCDF4
with netCDF4.Dataset(sys.argv[1], 'w') as f:
    f.createDimension('time', None)
    f.createVariable('time', 'f8', ('time',))[:] = [0, 1, 2, 3, 4]
    f.createVariable('temp', 'f4', ('time',), fill_value=-999.0)[0:2] = [10, 11]
    f.createVariable('count', 'i4', ('time',))[1] = 7
    f.createVariable('site', str, ('time',))[0] = 'north'
";

/// argv: paths. Each as xarray reads it: sizes, values, dimensions.
const SHOW_PARTLY_WRITTEN: &str = "\
import sys, xarray as xr
for p in sys.argv[1:]:
    ds = xr.open_zarr(p, consolidated=False) if p.endswith('.zarr') else xr.open_dataset(p)
    print(dict(ds.sizes), [(v, ds[v].dims, ds[v].values.tolist()) for v in ('temp', 'count')])
    print(ds['site'].dims, [str(v) for v in ds['site'].values])
";

/// Variables along an unlimited dimension shorter than it (HDF5 keeps
/// each one's own extent) are read as netCDF reads them: as long as the
/// dimension, their fill past what was written. They were copied at
/// their own extents: to `.nc` over new dimensions `temp_time`, to Zarr
/// along `time` of another length (which xarray refused), to `.npy` short.
#[test]
fn variables_shorter_than_their_unlimited_dimension_read_as_netcdf_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = d.join("partly.nc");
    run_with(&python312(), PARTLY_WRITTEN, &[src.to_str().unwrap()]);
    let mut paths = vec![src.clone()];
    for (name, extra) in [
        ("copy.nc", &[][..]),
        ("copy.zarr", &[]),
        ("copy2.zarr", &["--zarr-format", "2"]),
    ] {
        let dst = d.join(name);
        converted(convert(&src, &dst, extra), name);
        paths.push(dst);
    }
    let args: Vec<&str> = paths.iter().map(|p| p.to_str().unwrap()).collect();
    let shown = run_with(&python312(), SHOW_PARTLY_WRITTEN, &args);
    let want = "{'time': 5} [('temp', ('time',), [10.0, 11.0, nan, nan, nan]), \
                ('count', ('time',), [-2147483647, 7, -2147483647, -2147483647, -2147483647])]\n\
                ('time',) ['north', '', '', '', '']\n";
    assert_eq!(shown, want.repeat(4), "{shown}");
    let npy = d.join("temp.npy");
    let run = convert(&src, &npy, &["--member", "temp"]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let values = run_with(
        &python312(),
        "import sys, numpy as np\nprint(np.load(sys.argv[1]).tolist())",
        &[npy.to_str().unwrap()],
    );
    // Decoded as xarray decodes it: the fill is NaN.
    assert_eq!(values, "[10.0, 11.0, nan, nan, nan]\n", "{values}");
}

/// argv: path. xarray's file of a float with a `_FillValue` holding -0.0,
/// a bool (int8 with `dtype: bool`) and a timedelta (`dtype:
/// timedelta64[us]`, `units: seconds`).
const XARRAY_ENCODINGS: &str = "\
import sys, numpy as np, pandas as pd, xarray as xr
xr.Dataset({'temp': ('x', np.array([-0.0, 1.0, np.nan], 'f4')),
            'flag': ('x', np.array([True, False, True])),
            'dt': ('x', pd.to_timedelta(['1s', 'NaT', '-3h']))}).to_netcdf(
    sys.argv[1], encoding={'temp': {'_FillValue': -999.0}})
";

/// Decoded as xarray decodes them: -0.0 keeps its sign (it became +0.0
/// through a `+ 0.0`), xarray's bools are bools (they were int8), and a
/// timedelta decoded into a `.nc` is written (it failed on its `dtype`
/// attribute, kept beside the one its encoding writes).
#[test]
fn xarray_encodings_decode_as_xarray_decodes_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = d.join("enc.nc");
    run_with(&python312(), XARRAY_ENCODINGS, &[src.to_str().unwrap()]);
    let (temp, flag) = (d.join("temp.npy"), d.join("flag.parquet"));
    for (dst, member) in [(&temp, "temp"), (&flag, "flag")] {
        let run = convert(&src, dst, &["--member", member]);
        assert_eq!(run.code, Some(0), "{run:#?}");
    }
    let decoded = d.join("decoded.nc");
    let run = convert(&src, &decoded, &["--decode-cf"]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let got = run_with(
        &python312(),
        "import sys, numpy as np, pyarrow.parquet as pq, xarray as xr\n\
         t = np.load(sys.argv[1])\n\
         print(np.signbit(t).tolist(), pq.read_table(sys.argv[2]).column(0).to_pylist())\n\
         ds = xr.open_dataset(sys.argv[3])\n\
         print(ds['dt'].values.astype('m8[s]').astype('i8').tolist()[::2], bool(np.isnat(ds['dt'].values[1])))\n",
        &[
            temp.to_str().unwrap(),
            flag.to_str().unwrap(),
            decoded.to_str().unwrap(),
        ],
    );
    assert_eq!(
        got, "[True, False, False] [True, False, True]\n[1, -10800] True\n",
        "{got}"
    );
}

/// An enum variable's `_FillValue` is of the variable's named type in a
/// copy and in what describe then create makes, as netCDF requires (ncdump
/// shows the fill as `_`): a copy wrote it as `int64`, and create refused
/// it.
#[test]
fn an_enum_variables_fill_keeps_its_type() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = d.join("src.nc");
    run_with(
        &python312(),
        "import sys, netCDF4, numpy as np\n\
         with netCDF4.Dataset(sys.argv[1], 'w') as f:\n\
         \x20   f.createDimension('t', 4)\n\
         \x20   e = f.createEnumType('u1', 'cloud_t', {'clear': 0, 'cumulus': 1, 'missing': 255})\n\
         \x20   f.createVariable('cloud', e, ('t',), fill_value=255)[:] = np.array([0, 1, 0, 255], 'u1')\n",
        &[src.to_str().unwrap()],
    );
    let copy = d.join("copy.nc");
    converted(convert(&src, &copy, &[]), "src.nc to copy.nc");
    let doc = d.join("src.ndl.yaml");
    std::fs::write(&doc, ok(describe(&src, "ndl", &[]), "src.nc")).unwrap();
    let made = d.join("made.nc");
    let run = ndl(&["create", doc.to_str().unwrap(), made.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    for nc in [&copy, &made] {
        let text = ncdump(&[], nc);
        assert!(
            text.contains("cloud_t cloud:_FillValue = missing ;"),
            "{text}"
        );
    }
    let text = ncdump(&[], &copy);
    assert!(
        text.contains("cloud = clear, cumulus, clear, _ ;"),
        "{text}"
    );
}

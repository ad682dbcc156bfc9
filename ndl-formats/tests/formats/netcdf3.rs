//! netCDF-3 files (CDF-1, CDF-2, CDF-5) that netCDF4-python, xarray and
//! `ncgen -k classic` write: described as `ncdump -h` prints them,
//! converted with the values netCDF4-python and xarray read, and bad ones
//! refused with an error naming the file.

use std::path::{Path, PathBuf};

use ndl_formats::{ConvertOptions, Language, ReadOptions, convert, describe};
use ndl_testkit::netcdf::{compile_cdl, ncdump, ncgen};
use ndl_testkit::python::{python312, run_with};

/// Writes `<dir>/<name>.nc` in `format` with netCDF4-python: an unlimited
/// `time` with CF times, a float and a char variable along it, a fixed
/// short variable, global and variable attributes of every classic type;
/// in CDF-5 also an unsigned and a 64-bit variable.
fn netcdf4_python_file(dir: &Path, name: &str, format: &str) -> PathBuf {
    let path = dir.join(format!("{name}.nc"));
    run_with(
        &python312(),
        r#"
import sys, numpy as np, netCDF4
path, fmt = sys.argv[1], sys.argv[2]
with netCDF4.Dataset(path, "w", format=fmt) as ds:
    ds.title = "classic test"
    ds.version = np.int32(3)
    ds.ratio = np.array([0.25, 40.0, 1e300, 1.5e-7, -1.0 / 3])
    ds.createDimension("time", None)
    ds.createDimension("x", 3)
    ds.createDimension("strlen", 4)
    t = ds.createVariable("time", "f8", ("time",))
    t.units = "hours since 2000-01-01 00:00:00"
    t.calendar = "standard"
    temp = ds.createVariable("temp", "f4", ("time", "x"))
    temp.long_name = "temperature"
    temp.factor = np.float32(1.5)
    temp.valid_range = np.array([-5, 40], "i2")
    temp.flags = np.array([1, 2], "i1")
    code = ds.createVariable("code", "S1", ("time", "strlen"))
    level = ds.createVariable("level", "i2", ("x",))
    t[:] = [0.0, 6.0, 30.5]
    temp[:] = np.arange(9, dtype="f4").reshape(3, 3) * 1.25 - 2
    code[:] = netCDF4.stringtochar(np.array([b"ab", b"wxyz", b""], "S4"))
    level[:] = [-300, 7, 32000]
    if fmt == "NETCDF3_64BIT_DATA":
        u = ds.createVariable("big", "u8", ("time",))
        u[:] = [2**63 + 5, 1, 2**64 - 1]
        v = ds.createVariable("small", "i8", ("x",))
        v[:] = [-(2**62), 0, 2**40]
"#,
        &[path.to_str().unwrap(), format],
    );
    path
}

const FORMATS: [(&str, &str); 3] = [
    ("cdf1", "NETCDF3_CLASSIC"),
    ("cdf2", "NETCDF3_64BIT_OFFSET"),
    ("cdf5", "NETCDF3_64BIT_DATA"),
];

fn text(path: &Path, language: Language) -> String {
    describe(path, language, &Default::default())
        .unwrap_or_else(|e| panic!("describe {}: {e}", path.display()))
        .text
}

fn convert_member(nc: &Path, out: &Path, member: Option<&str>) {
    let read = member.map_or_else(ReadOptions::new, |m| ReadOptions::new().member(m));
    let options = ConvertOptions::new().read(read);
    convert(nc, out, &options, &|_| {})
        .unwrap_or_else(|e| panic!("convert {} ({member:?}): {e}", nc.display()));
}

#[test]
fn netcdf3_files_describe_as_ncdump_h_prints_them() {
    let dir = tempfile::tempdir().unwrap();
    for (name, format) in FORMATS {
        let nc = netcdf4_python_file(dir.path(), name, format);
        let header = ncdump(&["-h"], &nc);
        let cdl = text(&nc, Language::Cdl);
        assert_eq!(cdl.trim_end(), header.trim_end(), "{format}");
        assert!(cdl.contains("time = UNLIMITED ; // (3 currently)"), "{cdl}");
        // ncgen compiles it to a file whose header is the same, but for
        // its name and its records (the CDL has no data).
        let again = compile_cdl(&cdl, dir.path(), &format!("{name}_again"));
        let expected = header
            .replacen(
                &format!("netcdf {name} {{"),
                &format!("netcdf {name}_again {{"),
                1,
            )
            .replace("(3 currently)", "(0 currently)");
        assert_eq!(again.trim_end(), expected.trim_end(), "{format}");
        let yaml: serde_yaml::Value = serde_yaml::from_str(&text(&nc, Language::Ndl)).unwrap();
        let dims = &yaml["dimcoords"];
        assert!(
            dims["time"]["size"].is_null() && dims["time"]["type"] == "float64",
            "{yaml:?}"
        );
        assert_eq!(dims["x"]["size"], 3, "{yaml:?}");
        assert_eq!(yaml["attributes"]["title"], "classic test", "{yaml:?}");
        let shape = text(&nc, Language::Datashape);
        assert!(shape.contains("temp: 3 * 3 * float32"), "{shape}");
        for language in [Language::Numpy, Language::Zarr] {
            text(&nc, language);
        }
    }
}

#[test]
fn a_variable_converts_with_the_values_netcdf4_python_reads() {
    let dir = tempfile::tempdir().unwrap();
    for (name, format) in FORMATS {
        let nc = netcdf4_python_file(dir.path(), name, format);
        let mut members = vec!["time", "temp", "code", "level"];
        if format == "NETCDF3_64BIT_DATA" {
            members.extend(["big", "small"]);
        }
        for member in &members {
            let npy = dir.path().join(format!("{name}_{member}.npy"));
            convert_member(&nc, &npy, Some(member));
        }
        // Variables along different dimensions are no table: say which.
        let whole = dir.path().join(format!("{name}.npy"));
        let e = convert(&nc, &whole, &ConvertOptions::default(), &|_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("--member") && e.contains("level"), "{e}");
        let options = ConvertOptions::new().read(ReadOptions::new().member("nothing"));
        let e = convert(&nc, &whole, &options, &|_| {})
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no variable `nothing`") && e.contains("temp"),
            "{e}"
        );
        // Other formats take the big-endian values too.
        let zarr = dir.path().join(format!("{name}_temp.zarr"));
        convert_member(&nc, &zarr, Some("temp"));
        run_with(
            &python312(),
            r#"
import sys, numpy as np, zarr, netCDF4
with netCDF4.Dataset(sys.argv[2]) as ds:
    want = ds["temp"][:]
got = zarr.open_array(sys.argv[1], mode="r")[:]
assert got.shape == (3, 3) and (got == want).all(), (got, want)
"#,
            &[zarr.to_str().unwrap(), nc.to_str().unwrap()],
        );
        run_with(
            &python312(),
            r#"
import sys, numpy as np, netCDF4, xarray as xr
nc, d, name = sys.argv[1], sys.argv[2], sys.argv[3]
with netCDF4.Dataset(nc) as ds:
    ds.set_auto_maskandscale(False)
    for member in sys.argv[4:]:
        v = ds[member]
        v.set_auto_chartostring(False)
        want = v[:]
        got = np.load(f"{d}/{name}_{member}.npy")
        if member == "code":
            want = want.view("S4").reshape(3)
        if member == "time":
            # A CF time alone is read as xarray decodes it.
            want = xr.open_dataset(nc)["time"].values
            got = got.astype(want.dtype)
        assert got.dtype == want.dtype.newbyteorder(">") or got.dtype == want.dtype, (member, got.dtype, want.dtype)
        assert got.shape == want.shape and (got == want).all(), (member, got, want)
"#,
            &[
                &[nc.to_str().unwrap(), dir.path().to_str().unwrap(), name],
                members.as_slice(),
            ]
            .concat(),
        );
    }
}

#[test]
fn a_table_xarray_wrote_converts_to_records_with_its_times() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for format in ["NETCDF3_CLASSIC", "NETCDF3_64BIT_DATA"] {
        let nc = d.join(format!("{format}.nc"));
        run_with(
            &python312(),
            r#"
import sys, numpy as np, xarray as xr
ds = xr.Dataset(
    {"value": ("obs", np.array([1.5, -2.0, 3.25], "<f4")),
     "station": ("obs", np.array([7, -8, 9], "<i2")),
     "code": ("obs", np.array([b"ab", b"cde", b""], "S5")),
     "day": ("obs", np.array(["2000-01-01", "2000-01-03", "1999-12-04"], "M8[D]")),
     "when": ("obs", np.array(["2000-01-01T06", "NaT", "1999-12-31T18"], "M8[s]"))},
    coords={"obs": np.array([10, 20, 30], "i4")})
ds.to_netcdf(sys.argv[1], format=sys.argv[2], unlimited_dims=["obs"], engine="netcdf4")
"#,
            &[nc.to_str().unwrap(), format],
        );
        // Its `_FillValue = NaNf` included.
        let header = ncdump(&["-h"], &nc);
        assert!(header.contains("value:_FillValue = NaNf ;"), "{header}");
        assert_eq!(text(&nc, Language::Cdl).trim_end(), header.trim_end());
        let ndl: serde_yaml::Value = serde_yaml::from_str(&text(&nc, Language::Ndl)).unwrap();
        let fill = &ndl["ndarrays"]["value"]["attributes"]["_FillValue"];
        assert_eq!(fill["type"], "float32", "{fill:?}");
        assert!(
            fill["value"][0].as_f64().is_some_and(f64::is_nan),
            "{fill:?}"
        );
        let npy = d.join(format!("{format}.npy"));
        convert_member(&nc, &npy, None);
        let parquet = d.join(format!("{format}.parquet"));
        convert_member(&nc, &parquet, None);
        run_with(
            &python312(),
            r#"
import sys, pyarrow.parquet as pq, xarray as xr
t = pq.read_table(sys.argv[1])
ds = xr.open_dataset(sys.argv[2])
assert t["station"].to_pylist() == ds["station"].values.tolist(), t
assert t["value"].to_pylist() == ds["value"].values.tolist(), t
"#,
            &[parquet.to_str().unwrap(), nc.to_str().unwrap()],
        );
        run_with(
            &python312(),
            r#"
import sys, numpy as np, xarray as xr
a = np.load(sys.argv[1])
ds = xr.open_dataset(sys.argv[2])
assert ds["day"].encoding["dtype"] == np.int32, ds["day"].encoding
for name in ("value", "station", "code", "day", "when", "obs"):
    want = ds[name].values
    got = a[name]
    if name in ("day", "when"):
        got = got.astype("M8[ns]")
        assert (got == want).sum() == 3 - np.isnat(want).sum() and (np.isnat(got) == np.isnat(want)).all(), (got, want)
    elif name == "code":
        assert got.tolist() == [b"ab", b"cde", b""], got
    else:
        assert got.tolist() == want.tolist() and got.dtype.kind == want.dtype.kind, (name, got, want)
"#,
            &[npy.to_str().unwrap(), nc.to_str().unwrap()],
        );
    }
}

#[test]
fn a_file_ncgen_wrote_from_cdl_converts_along_its_record_dimension() {
    let dir = tempfile::tempdir().unwrap();
    // Two record variables, each record's slab padded to 4 bytes, and a
    // scalar.
    let nc = classic_from_cdl(
        dir.path(),
        "rec",
        "netcdf rec {\ndimensions:\n\tt = UNLIMITED ;\n\tn = 2 ;\nvariables:\n\
         \tbyte b(t) ;\n\tshort s(t, n) ;\n\tdouble x(n) ;\n\tint answer ;\n\
         data:\n b = 1, -2, 3 ;\n s = 1, 2, 3, 4, -5, 6 ;\n x = 0.5, 1e300 ;\n answer = 42 ;\n}\n",
    );
    assert_eq!(
        text(&nc, Language::Cdl).trim_end(),
        ncdump(&["-h"], &nc).trim_end()
    );
    for member in ["b", "s", "x", "answer"] {
        convert_member(&nc, &dir.path().join(format!("{member}.npy")), Some(member));
    }
    // A lone record variable of bytes: its records are not padded.
    let nc = classic_from_cdl(
        dir.path(),
        "lone",
        "netcdf lone {\ndimensions:\n\tt = UNLIMITED ;\nvariables:\n\
         \tbyte only(t) ;\ndata:\n only = 5, -6, 7, 8, 9 ;\n}\n",
    );
    convert_member(&nc, &dir.path().join("only.npy"), None);
    run_with(
        &python312(),
        r#"
import sys, numpy as np
d = sys.argv[1]
assert np.load(f"{d}/b.npy").tolist() == [1, -2, 3]
assert np.load(f"{d}/s.npy").tolist() == [[1, 2], [3, 4], [-5, 6]]
assert np.load(f"{d}/x.npy").tolist() == [0.5, 1e300]
answer = np.load(f"{d}/answer.npy")
assert answer.shape == () and answer == 42, answer
assert np.load(f"{d}/only.npy").tolist() == [5, -6, 7, 8, 9]
"#,
        &[dir.path().to_str().unwrap()],
    );
}

/// `<dir>/<name>.nc` as `ncgen -k classic` compiles `cdl`.
fn classic_from_cdl(dir: &Path, name: &str, cdl: &str) -> PathBuf {
    let src = dir.join(format!("{name}.cdl"));
    std::fs::write(&src, cdl).unwrap();
    let nc = dir.join(format!("{name}.nc"));
    let made = std::process::Command::new(ncgen())
        .args(["-k", "classic", "-o"])
        .arg(&nc)
        .arg(&src)
        .status()
        .unwrap();
    assert!(made.success(), "ncgen -k classic {name}");
    nc
}

#[test]
fn truncated_or_changed_netcdf3_files_are_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let nc = netcdf4_python_file(dir.path(), "good", "NETCDF3_64BIT_DATA");
    let good = std::fs::read(&nc).unwrap();
    let bad = dir.path().join("bad.nc");
    let out = dir.path().join("out.npy");
    let try_all = |bytes: &[u8]| {
        std::fs::write(&bad, bytes).unwrap();
        let described = describe(&bad, Language::Cdl, &Default::default());
        for member in [None, Some("temp"), Some("code")] {
            let _ = std::fs::remove_file(&out);
            let read = member.map_or_else(ReadOptions::new, |m| ReadOptions::new().member(m));
            let options = ConvertOptions::new().read(read);
            if let Err(e) = convert(&bad, &out, &options, &|_| {}) {
                assert!(e.to_string().contains("bad.nc"), "{e}");
            }
        }
        described.map(|_| ())
    };
    for len in 4..good.len() {
        let e = try_all(&good[..len]).expect_err("a truncated file is refused");
        assert!(e.to_string().contains("bad.nc"), "{len}: {e}");
    }
    for at in 4..good.len() {
        for bit in 0..8 {
            let mut changed = good.clone();
            changed[at] ^= 1 << bit;
            if let Err(e) = try_all(&changed) {
                assert!(e.to_string().contains("bad.nc"), "{at}/{bit}: {e}");
            }
        }
    }
}

#[test]
fn a_time_out_of_range_is_refused_naming_the_variable_and_record() {
    let dir = tempfile::tempdir().unwrap();
    let nc = classic_from_cdl(
        dir.path(),
        "badtime",
        "netcdf badtime {\ndimensions:\n\tt = UNLIMITED ;\nvariables:\n\
         \tdouble when(t) ;\n\t\twhen:units = \"hours since 2000-01-01\" ;\n\tint v(t) ;\n\
         data:\n when = 0, 1e300 ;\n v = 1, 2 ;\n}\n",
    );
    let out = dir.path().join("out.npy");
    let e = convert(&nc, &out, &ConvertOptions::default(), &|_| {})
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("badtime.nc") && e.contains("variable `when`") && e.contains("record 1"),
        "{e}"
    );
    assert!(!out.exists());
}

/// CF times stored as `float` and `short` (with a `_FillValue`), as well
/// as `byte` and `double`, come out as the instants xarray decodes, the
/// fill as NaT.
#[test]
fn cf_times_of_every_stored_type_are_the_instants_xarray_decodes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let nc = d.join("times.nc");
    run_with(
        &python312(),
        r#"
import sys, numpy as np, netCDF4
with netCDF4.Dataset(sys.argv[1], "w", format="NETCDF3_CLASSIC") as ds:
    ds.createDimension("t", None)
    f = ds.createVariable("f", "f4", ("t",), fill_value=np.float32(-9999.0))
    f.units = "days since 2000-01-01"
    f[:] = np.array([0.5, -9999.0, -1.25, 3.0], "f4")
    s = ds.createVariable("s", "i2", ("t",), fill_value=np.int16(-1))
    s.units = "hours since 1999-12-31 12:00:00"
    s[:] = np.array([0, 30, -1, -400], "i2")
    b = ds.createVariable("b", "i1", ("t",))
    b.units = "minutes since 2000-01-01T00:00"
    b[:] = np.array([-128, 0, 5, 127], "i1")
    g = ds.createVariable("g", "f8", ("t",))
    g.units = "seconds since 1970-01-01"
    g.calendar = "standard"
    g[:] = [0.25, 1e9, -2.5, 86400.0]
"#,
        &[nc.to_str().unwrap()],
    );
    let npy = d.join("times.npy");
    convert_member(&nc, &npy, None);
    run_with(
        &python312(),
        r#"
import sys, numpy as np, xarray as xr
a = np.load(sys.argv[1])
ds = xr.open_dataset(sys.argv[2])
for name in ("f", "s", "b", "g"):
    want = ds[name].values
    got = a[name]
    assert got.dtype.kind == "M" and want.dtype.kind == "M", (name, got.dtype, want.dtype)
    got = got.astype("M8[ns]")
    assert (np.isnat(got) == np.isnat(want)).all(), (name, got, want)
    assert (got[~np.isnat(got)] == want[~np.isnat(want)]).all(), (name, got, want)
assert np.isnat(a["f"][1]) and np.isnat(a["s"][2]), a
assert a["f"].dtype == "M8[ns]" and a["s"].dtype == "M8[h]", a.dtype
"#,
        &[npy.to_str().unwrap(), nc.to_str().unwrap()],
    );
}

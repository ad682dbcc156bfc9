//! Time fields through `ndl convert` and `ndl describe`: a NumPy file with
//! datetime64 and timedelta64 fields (a multiple, NaT, both kinds) goes to
//! both Zarr formats in the records layout and back to identical bytes, and
//! zarr-python 3.4 reads each store (3.1 the v2 one) to NumPy's exact
//! values.
//!
//! In the columns layout a time is a CF `int64` column: xarray decodes it
//! to the same values, NaT as NaT, and Debian's `ncdump -t` prints ISO
//! times for seconds and days.

use std::path::Path;

use crate::common;

use common::cli::{describe, ndl, ok};

#[test]
fn time_records_convert_exactly_and_zarr_python_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let npy = d.join("t.npy");
    ndl_testkit::run_python(
        "import sys, numpy as np\n\
         dt = np.dtype([('id', '<u4'), ('t', '<M8[ns]'), ('d', '<m8[s]'), ('w', '<M8[10ms]')])\n\
         a = np.zeros(4, dt)\n\
         a['id'] = range(4)\n\
         a['t'] = [0, 1795608000000000001, 'NaT', -1]\n\
         a['d'] = [1, -1, 'NaT', 86400]\n\
         a['w'] = [5, 'NaT', -3, 0]\n\
         np.save(sys.argv[1], a)",
        &[npy.to_str().unwrap()],
    );
    let descr = ok(
        ndl(&["describe", "-f", "numpy", npy.to_str().unwrap()]),
        "describe",
    );
    assert!(descr.contains("('w', '<M8[10ms]')"), "{descr}");
    for (format, layout) in [
        ("2", "records"),
        ("3", "records"),
        ("2", "columns"),
        ("3", "columns"),
    ] {
        let store = d.join(format!("v{format}{layout}.zarr"));
        let back = d.join(format!("v{format}{layout}.npy"));
        let (s, b) = (store.to_str().unwrap(), back.to_str().unwrap());
        ok_quiet(&[
            "convert",
            "--zarr-format",
            format,
            "--layout",
            layout,
            npy.to_str().unwrap(),
            s,
        ]);
        ok_quiet(&["convert", s, b]);
        assert_eq!(
            std::fs::read(&back).unwrap(),
            std::fs::read(&npy).unwrap(),
            "v{format} {layout}"
        );
        if layout == "records" {
            let out = ndl_testkit::run_with(
                &ndl_testkit::python312(),
                "import sys, zarr, numpy as np\n\
                 a = np.load(sys.argv[2])\n\
                 b = zarr.open_array(sys.argv[1], mode='r')[:]\n\
                 assert b.dtype == a.dtype, (b.dtype, a.dtype)\n\
                 assert b.tobytes() == a.tobytes()\n\
                 print(str(b['t'][1]), str(b['w'][1]), str(b['d'][3]))",
                &[s, npy.to_str().unwrap()],
            );
            assert_eq!(
                out.trim(),
                "2026-11-25T12:00:00.000000001 NaT 86400 seconds"
            );
            if format == "2" {
                // zarr-python 3.1 reads v2 structured dtypes, time fields too.
                let out = ndl_testkit::run_python(
                    "import sys, zarr, numpy as np\n\
                     a = np.load(sys.argv[2])\n\
                     b = zarr.open_array(sys.argv[1], mode='r')[:]\n\
                     assert b.dtype == a.dtype and b.tobytes() == a.tobytes(), b.dtype\n\
                     print(zarr.__version__[:3])",
                    &[s, npy.to_str().unwrap()],
                );
                assert_eq!(out.trim(), "3.1");
            }
        }
    }
}

#[test]
fn time_columns_are_cf_for_xarray_and_ncdump() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let npy = d.join("c.npy");
    ndl_testkit::run_python(
        "import sys, numpy as np\n\
         dt = np.dtype([('id', '<u4'), ('t', '<M8[ns]'), ('s', '<M8[s]'), ('day', '<M8[D]'), ('d', '<m8[ms]')])\n\
         a = np.zeros(3, dt)\n\
         a['t'] = [1795608000000000001, 'NaT', -1]\n\
         a['s'] = [1795608000, -1, 'NaT']\n\
         a['day'] = [20782, 'NaT', 0]\n\
         a['d'] = [1500, 'NaT', -1]\n\
         np.save(sys.argv[1], a)",
        &[npy.to_str().unwrap()],
    );
    for format in ["2", "3"] {
        let store = d.join(format!("v{format}.zarr"));
        let s = store.to_str().unwrap();
        ok_quiet(&[
            "convert",
            "--zarr-format",
            format,
            "--layout",
            "columns",
            "--codec",
            "none",
            npy.to_str().unwrap(),
            s,
        ]);
        for field in ["t", "s", "day", "d"] {
            let meta = if format == "2" {
                std::fs::read_to_string(store.join(field).join(".zarray")).unwrap()
            } else {
                std::fs::read_to_string(store.join(field).join("zarr.json")).unwrap()
            };
            assert!(
                !meta.contains("M8") && !meta.contains("datetime64\""),
                "{meta}"
            );
        }
        let out = ndl_testkit::run_with(
            &ndl_testkit::python312(),
            "import sys, warnings, numpy as np, xarray as xr\n\
             warnings.simplefilter('ignore')\n\
             a = np.load(sys.argv[2])\n\
             ds = xr.open_zarr(sys.argv[1], consolidated=False)\n\
             for n in ['t', 's', 'day', 'd']:\n\
             \x20   v = ds[n].values\n\
             \x20   assert v.dtype.kind == a[n].dtype.kind, (n, v.dtype)\n\
             \x20   assert (v.astype(a[n].dtype).view('i8') == a[n].view('i8')).all(), (n, v, a[n])\n\
             print('ok')",
            &[s, npy.to_str().unwrap()],
        );
        assert_eq!(out.trim(), "ok", "v{format}");
    }
    let url = format!("file://{}#mode=nczarr,file", d.join("v2.zarr").display());
    let dump = std::process::Command::new("ncdump")
        .args(["-t", &url])
        .output()
        .unwrap();
    let dump = String::from_utf8(dump.stdout).unwrap();
    assert!(
        dump.contains(" day = \"2026-11-25\", _, \"1970-01-01\" ;"),
        "{dump}"
    );
    assert!(
        dump.contains(" s = \"2026-11-25 12\", \"1969-12-31 23:59:59\", _ ;"),
        "{dump}"
    );
}

#[test]
fn plain_time_arrays_convert_exactly_and_zarr_python_3_1_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, dtype) in [("big", ">M8[10ms]"), ("us", "<m8[us]"), ("days", "<M8[D]")] {
        let npy = d.join(format!("{name}.npy"));
        let n = npy.to_str().unwrap();
        ndl_testkit::run_python(
            &format!(
                "import sys, numpy as np\nnp.save(sys.argv[1], np.array([0, 1, 'NaT', -5], dtype='{dtype}'))"
            ),
            &[n],
        );
        for format in ["2", "3"] {
            let store = d.join(format!("{name}{format}.zarr"));
            let back = d.join(format!("{name}{format}.npy"));
            let (s, b) = (store.to_str().unwrap(), back.to_str().unwrap());
            ok_quiet(&["convert", "--zarr-format", format, n, s]);
            ok_quiet(&["convert", s, b]);
            // The same values and unit; v3 stores little-endian.
            let out = ndl_testkit::run_python(
                "import sys, zarr, numpy as np\n\
                 a = np.load(sys.argv[2])\n\
                 for b in (np.load(sys.argv[3]), zarr.open_array(sys.argv[1], mode='r')[:]):\n\
                 \x20   assert np.datetime_data(b.dtype) == np.datetime_data(a.dtype), (a.dtype, b.dtype)\n\
                 \x20   assert (b.view(b.dtype.str[0] + 'i8') == a.view(a.dtype.str[0] + 'i8')).all()\n\
                 print('ok')",
                &[s, n, b],
            );
            assert_eq!(out.trim(), "ok", "{name} v{format}");
        }
    }
}

/// Exit 0 and no error, whatever it printed.
fn ok_quiet(args: &[&str]) {
    let run = ndl(args);
    assert_eq!(run.code, Some(0), "{args:?}: {run:#?}");
}

/// Stores of time records that zarr-python wrote: 3.4's v3 `struct` with
/// `numpy.datetime64`/`numpy.timedelta64` fields and its v2 structured
/// dtype with `<M8[ns]`/`<m8[s]`, NaT included, convert to a `.npy` that
/// NumPy loads to the very values zarr-python wrote. (zarr-python 3.4
/// writes such a v2 array only uncompressed: numcodecs' compressors
/// refuse a buffer of `M8` fields.)
#[test]
fn time_records_zarr_python_wrote_convert_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let made = ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, numpy as np, zarr\n\
         dt = np.dtype([('t', '<M8[ns]'), ('d', '<m8[s]'), ('x', '<f8')])\n\
         a = np.zeros(5, dt)\n\
         a['t'] = np.array(['2026-11-25T12:00:00.000000001', 'NaT', '1969-12-31T23:59:59', '2262-04-11', '1970-01-01'], 'M8[ns]')\n\
         a['d'] = np.array([1, -2, 'NaT', 86400, 0], 'm8[s]')\n\
         a['x'] = np.arange(5) / 2\n\
         np.save(sys.argv[1] + '/expected.npy', a)\n\
         z = zarr.create_array(sys.argv[1] + '/v3.zarr', shape=a.shape, dtype=dt, chunks=(2,), zarr_format=3)\n\
         z[:] = a\n\
         z = zarr.create_array(sys.argv[1] + '/v2.zarr', shape=a.shape, dtype=dt, chunks=(2,), zarr_format=2, compressors=None)\n\
         z[:] = a\n\
         print('made')",
        &[root.to_str().unwrap()],
    );
    assert_eq!(made.trim(), "made");
    for format in [2, 3] {
        let store = root.join(format!("v{format}.zarr"));
        let back = root.join(format!("v{format}.npy"));
        ok_quiet(&["convert", store.to_str().unwrap(), back.to_str().unwrap()]);
        let same = common::run_python(
            "import sys, numpy as np\n\
             a, b = np.load(sys.argv[1]), np.load(sys.argv[2])\n\
             print(a.dtype == b.dtype, a.tobytes() == b.tobytes())",
            &[
                root.join("expected.npy").to_str().unwrap(),
                back.to_str().unwrap(),
            ],
        );
        assert_eq!(same.trim(), "True True", "v{format}");
    }
}

/// Datashape has no timedelta below nanoseconds: the Datashape of such a
/// field is its `int64` counts, which datashape parses, and the command
/// says on stderr which field lost its meaning and why.
#[test]
fn datashape_says_what_a_picosecond_timedelta_lost() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("fine.npy");
    let n = npy.to_str().unwrap();
    ndl_testkit::run_python(
        "import sys, numpy as np\n\
         dt = np.dtype([('at', '<M8[ns]'), ('took', '<m8[ps]')])\n\
         np.save(sys.argv[1], np.zeros(2, dt))",
        &[n],
    );
    let run = describe(&npy, "datashape", &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert_eq!(run.stdout.trim(), "2 * {at: datetime, took: int64}");
    for words in ["`took`", "below nanoseconds", "does not say it"] {
        assert!(run.stderr.contains(words), "{words}: {}", run.stderr);
    }
    // A datetime in any unit is Datashape's `datetime`: nothing to say.
    let plain = dir.path().join("plain.npy");
    ndl_testkit::run_python(
        "import sys, numpy as np\nnp.save(sys.argv[1], np.zeros(2, '<M8[ps]'))",
        &[plain.to_str().unwrap()],
    );
    assert_eq!(
        ok(describe(&plain, "datashape", &[]), "plain"),
        "2 * datetime\n"
    );
}

/// Writes with xarray, in Python 3.12, a table of CF times as netCDF
/// files and Zarr stores hold them: `int32` days, `int16` minutes with a
/// `_FillValue`, `float32` hours and an `int64` of seconds with NaT, to
/// `argv[1]` (`.nc`, netCDF-4) or a Zarr v2 store; prints nothing.
const XARRAY_CF_TABLE: &str = "\
import sys, numpy as np, xarray as xr
t = np.array(['2000-01-01', '2001-02-03', 'NaT', '1999-12-31'], 'M8[ns]')
ds = xr.Dataset({
    'day': ('obs', t.astype('M8[D]')),
    'minute': ('obs', t + np.timedelta64(5, 'm')),
    'hour': ('obs', t + np.timedelta64(6, 'h')),
    'second': ('obs', t + np.timedelta64(7, 's')),
    'value': ('obs', np.arange(4, dtype='f4')),
})
enc = {
    'day': {'dtype': 'int16', 'units': 'days since 2000-01-01', '_FillValue': -999},
    'minute': {'dtype': 'int32', 'units': 'minutes since 2000-01-01 00:00', '_FillValue': -2147483647},
    'hour': {'dtype': 'float32', 'units': 'hours since 1999-01-01'},
    'second': {'dtype': 'int64', 'units': 'seconds since 1970-01-01', '_FillValue': -1},
}
if sys.argv[1].endswith('.nc'):
    ds.to_netcdf(sys.argv[1], engine='netcdf4', encoding=enc)
else:
    ds.to_zarr(sys.argv[1], zarr_format=2, encoding=enc, consolidated=False)
";

/// CF times stored as `int16` days, `int32` minutes, `float32` hours and
/// `int64` seconds, with their fill values, as xarray writes them to
/// netCDF-4 and to Zarr: `ndl convert` gives the `datetime64` values
/// xarray decodes, the fill as NaT, where it gave plain numbers.
#[test]
fn cf_times_of_every_width_decode_as_xarray_decodes_them() {
    let dir = tempfile::tempdir().unwrap();
    for src in ["table.nc", "table.zarr"] {
        let npy = dir.path().join(format!("{src}.npy"));
        let src = dir.path().join(src);
        let (s, n) = (src.to_str().unwrap(), npy.to_str().unwrap());
        ndl_testkit::run_with(&ndl_testkit::python312(), XARRAY_CF_TABLE, &[s]);
        ok_quiet(&["convert", s, n]);
        let out = ndl_testkit::run_with(
            &ndl_testkit::python312(),
            "import sys, numpy as np, xarray as xr\n\
             ours = np.load(sys.argv[2])\n\
             ds = xr.open_dataset(sys.argv[1], engine='zarr' if sys.argv[1].endswith('.zarr') else 'netcdf4')\n\
             for k in ['day', 'minute', 'hour', 'second']:\n\
             \x20   assert ours.dtype[k].kind == 'M', (k, ours.dtype[k])\n\
             \x20   theirs = ds[k].values\n\
             \x20   assert np.array_equal(ours[k].astype('M8[ns]'), theirs, equal_nan=True), (k, ours[k], theirs)\n\
             \x20   assert np.isnat(ours[k][2]), k\n\
             print(ours.dtype['day'], ours.dtype['minute'], ours.dtype['hour'])",
            &[s, n],
        );
        assert_eq!(out, "datetime64[D] datetime64[m] datetime64[ns]\n", "{s}");
    }
}

/// Units that say `since` but are no CF time are refused, naming the
/// variable, with nothing written: as plain numbers their times would be
/// lost without a word.
#[test]
fn time_units_that_are_not_cf_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (i, units) in [
        "furlongs since 1970-01-01",
        "seconds since yesterday",
        "days since 2000-13-45",
    ]
    .into_iter()
    .enumerate()
    {
        for ending in ["nc", "zarr"] {
            let src = dir.path().join(format!("bad{i}.{ending}"));
            let dst = dir.path().join(format!("bad{i}{ending}.npy"));
            ndl_testkit::run_with(
                &ndl_testkit::python312(),
                "import sys, numpy as np, xarray as xr\n\
                 ds = xr.Dataset({'when': ('obs', np.arange(3, dtype='i4')), 'v': ('obs', np.ones(3))})\n\
                 ds['when'].attrs['units'] = sys.argv[2]\n\
                 if sys.argv[1].endswith('.nc'): ds.to_netcdf(sys.argv[1])\n\
                 else: ds.to_zarr(sys.argv[1], zarr_format=2, consolidated=False)",
                &[src.to_str().unwrap(), units],
            );
            let run = common::cli::convert(&src, &dst, &[]);
            assert_eq!(run.code, Some(1), "{units} {ending}: {run:#?}");
            for words in ["when", "CF time", units] {
                assert!(
                    run.stderr.contains(words),
                    "{units} {ending}: lacks {words:?}: {}",
                    run.stderr
                );
            }
            assert!(!dst.exists(), "{units} {ending}: written");
            // The variable alone is refused too.
            if ending == "nc" {
                let run = common::cli::convert(&src, &dst, &["--member", "when"]);
                assert_eq!(run.code, Some(1), "{units} --member: {run:#?}");
                assert!(run.stderr.contains("variable `when`"), "{}", run.stderr);
                assert!(!dst.exists(), "{units} --member: written");
            }
        }
    }
}

/// One variable of a netCDF-4 and of a netCDF-3 file (`--member`), as
/// netCDF4-python writes them: `time`, `int32` hours with a `_FillValue`,
/// reads as the times xarray decodes, the fill as NaT; `v`, `int16` packed
/// with `scale_factor`, `add_offset` and a `_FillValue`, as the float64
/// values xarray unpacks, the fill as NaN; each with a note. To a `.nc`,
/// which keeps attributes, the variable is copied as stored: its name, its
/// dimensions' names, its values and every attribute, the packing and its
/// fill (of the variable's type) included, so that xarray unpacks it as it
/// unpacked the source; but `coordinates`, naming a variable left
/// behind; no note.
#[test]
fn one_variable_reads_its_cf_times_and_packed_values_as_xarray_does() {
    let dir = tempfile::tempdir().unwrap();
    let script = "\
import sys, numpy as np, netCDF4
for path, fmt in [(sys.argv[1], 'NETCDF4'), (sys.argv[2], 'NETCDF3_CLASSIC')]:
    with netCDF4.Dataset(path, 'w', format=fmt) as f:
        f.createDimension('t', 3); f.createDimension('x', 2)
        tv = f.createVariable('time', 'i4', ('t',), fill_value=-1)
        tv.units = 'hours since 2000-01-01 00:00'
        tv[:] = np.ma.masked_array([0, 6, 12], mask=[0, 1, 0])
        v = f.createVariable('v', 'i2', ('t', 'x'), fill_value=-32767)
        v.scale_factor = 0.01
        v.add_offset = 273.15
        v.units = 'K'
        v.long_name = 'air temperature'
        v.coordinates = 'time'
        v.set_auto_maskandscale(False)
        v[:] = np.array([[0, 1], [-32767, 3], [4, 5]], 'i2')
";
    let (nc4, nc3) = (dir.path().join("f4.nc"), dir.path().join("f3.nc"));
    let paths = [nc4.to_str().unwrap(), nc3.to_str().unwrap()];
    ndl_testkit::run_with(&ndl_testkit::python312(), script, &paths);
    for src in paths {
        let (time, v, v_nc) = (
            format!("{src}.time.npy"),
            format!("{src}.v.npy"),
            format!("{src}.v.nc"),
        );
        for (member, dst, note) in [("time", &time, "read as times"), ("v", &v, "packed values")] {
            let run = ndl(&["convert", src, dst, "--member", member]);
            assert_eq!(run.code, Some(0), "{src} {member}: {run:#?}");
            assert!(
                run.stderr.starts_with("ndl: note: ") && run.stderr.contains(note),
                "{src} {member}: {run:#?}"
            );
        }
        let run = ndl(&["convert", src, &v_nc, "--member", "v"]);
        assert_eq!((run.code, run.stderr.as_str()), (Some(0), ""), "{src}");
        let out = ndl_testkit::run_with(
            &ndl_testkit::python312(),
            "import sys, numpy as np, xarray as xr\n\
             ds = xr.open_dataset(sys.argv[1])\n\
             t, v = np.load(sys.argv[2]), np.load(sys.argv[3])\n\
             assert t.dtype.kind == 'M' and np.array_equal(t.astype('M8[ns]'), ds['time'].values, equal_nan=True), (t, ds['time'].values)\n\
             assert np.isnat(t[1])\n\
             assert v.dtype == ds['v'].dtype and np.allclose(v, ds['v'].values, equal_nan=True), (v, ds['v'].values)\n\
             assert np.isnan(v[1, 0])\n\
             xr.testing.assert_identical(xr.open_dataset(sys.argv[4])['v'].drop_vars('time', errors='ignore'), ds['v'].drop_vars('time'))\n\
             raw, back = xr.open_dataset(sys.argv[1], decode_cf=False)['v'], xr.open_dataset(sys.argv[4], decode_cf=False)['v']\n\
             assert back.dtype == raw.dtype == np.int16 and np.array_equal(back.values, raw.values), (back, raw)\n\
             alone = {k: v for k, v in raw.attrs.items() if k != 'coordinates'}\n\
             assert back.attrs == alone and type(back.attrs['_FillValue']) == type(raw.attrs['_FillValue']), (back.attrs, raw.attrs)\n\
             assert back.dims == ('t', 'x'), back.dims\n\
             print(t.dtype, v.dtype)",
            &[src, &time, &v, &v_nc],
        );
        assert_eq!(out, "datetime64[h] float64\n", "{src}");
    }
}

/// The same for one array of a Zarr store xarray wrote, v2 (the fill is
/// the array's `fill_value`) and v3 (the `_FillValue` attribute).
#[test]
fn one_zarr_array_reads_its_cf_times_and_packed_values_as_xarray_does() {
    let dir = tempfile::tempdir().unwrap();
    let script = "\
import sys, numpy as np, xarray as xr
t = np.array(['2000-01-01T00', 'NaT', '2000-01-01T12'], 'M8[ns]')
ds = xr.Dataset({'time': ('t', t), 'v': (('t', 'x'), np.array([[273.15, 273.16], [np.nan, 273.18], [273.19, 273.2]]))})
enc = {'time': {'dtype': 'int32', 'units': 'hours since 2000-01-01', '_FillValue': -1},
       'v': {'dtype': 'int16', 'scale_factor': 0.01, 'add_offset': 273.15, '_FillValue': -32767}}
for path, fmt in [(sys.argv[1], 2), (sys.argv[2], 3)]:
    ds.to_zarr(path, zarr_format=fmt, encoding=enc, consolidated=False)
";
    let (v2, v3) = (dir.path().join("s2.zarr"), dir.path().join("s3.zarr"));
    let paths = [v2.to_str().unwrap(), v3.to_str().unwrap()];
    ndl_testkit::run_with(&ndl_testkit::python312(), script, &paths);
    for src in paths {
        let (time, v) = (format!("{src}.time.npy"), format!("{src}.v.npy"));
        for (member, dst) in [("time", &time), ("v", &v)] {
            let run = ndl(&["convert", src, dst, "--member", member]);
            assert_eq!(run.code, Some(0), "{src} {member}: {run:#?}");
            assert!(run.stderr.starts_with("ndl: note: "), "{run:#?}");
        }
        let out = ndl_testkit::run_with(
            &ndl_testkit::python312(),
            "import sys, numpy as np, xarray as xr\n\
             ds = xr.open_zarr(sys.argv[1], consolidated=False)\n\
             t, v = np.load(sys.argv[2]), np.load(sys.argv[3])\n\
             assert np.array_equal(t.astype('M8[ns]'), ds['time'].values, equal_nan=True), (t, ds['time'].values)\n\
             assert np.allclose(v, ds['v'].values, equal_nan=True), (v, ds['v'].values)\n\
             assert np.isnat(t[1]) and np.isnan(v[1, 0])\n\
             print(t.dtype, v.dtype)",
            &[src, &time, &v],
        );
        assert_eq!(out, "datetime64[h] float64\n", "{src}");
    }
}

/// A v2 array zarr-python wrote has a `fill_value` for chunks never
/// written, no mark of missing values: its zeros stay integers, where an
/// array xarray wrote (`_ARRAY_DIMENSIONS`) has its `fill_value` masked.
#[test]
fn a_zarr_python_arrays_fill_value_masks_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, cf) = (dir.path().join("plain.zarr"), dir.path().join("cf.zarr"));
    let script = "\
import sys, numpy as np, zarr, xarray as xr
a = zarr.create_array(sys.argv[1], shape=(4,), dtype='i4', fill_value=0, zarr_format=2)
a[:] = [0, 1, 2, 0]
ds = xr.Dataset({'v': ('x', np.array([0.0, 1.0, np.nan, 3.0]))})
ds.to_zarr(sys.argv[2], zarr_format=2, encoding={'v': {'dtype': 'i2', '_FillValue': -9}}, consolidated=False)
";
    let paths = [plain.to_str().unwrap(), cf.to_str().unwrap()];
    ndl_testkit::run_with(&ndl_testkit::python312(), script, &paths);
    let (a, v) = (dir.path().join("a.npy"), dir.path().join("v.npy"));
    let run = common::cli::convert(&plain, &a, &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(!run.stderr.contains("NaN"), "{run:#?}");
    let run = common::cli::convert(&cf, &v, &["--member", "v"]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(run.stderr.contains("are read as NaN"), "{run:#?}");
    let out = ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, numpy as np\n\
         a, v = np.load(sys.argv[1]), np.load(sys.argv[2])\n\
         assert a.dtype == 'i4' and a.tolist() == [0, 1, 2, 0], a\n\
         assert v.dtype == 'f4' and np.isnan(v[2]) and v[3] == 3, v\n\
         print('ok')",
        &[a.to_str().unwrap(), v.to_str().unwrap()],
    );
    assert_eq!(out, "ok\n");
}

/// A table another tool wrote (variables along one dimension) reads as
/// xarray's `to_dataframe` gives it, from netCDF-4, netCDF-3 (whose
/// `uint8` xarray stores as `_Unsigned` bytes) and Zarr v2 and v3: a
/// packed column unpacked, `_FillValue`s as NaN (an integer column then
/// float64), unsigned bytes as unsigned; each column alone (`--member`)
/// the same. A table holding strings keeps its numbers as stored, so a
/// packed column there is refused, naming it and `--member`.
#[test]
fn a_table_reads_its_numbers_as_xarray_to_dataframe_gives_them() {
    let dir = tempfile::tempdir().unwrap();
    let script = "\
import sys, numpy as np, xarray as xr, netCDF4
ds = xr.Dataset({'a': ('obs', np.array([1.5, np.nan, 2.25, 3.0])), 'b': ('obs', np.array([10, 20, 30, 40], 'i4')),
                 'c': ('obs', np.array([0.5, np.nan, -1.0, 2.0], 'f4')), 'u': ('obs', np.array([0, 200, 255, 7], 'u1'))})
enc = {'a': {'dtype': 'int16', 'scale_factor': 0.25, '_FillValue': -1}, 'b': {'_FillValue': -7},
       'c': {'_FillValue': -999.0}}
ds.to_netcdf(sys.argv[1], encoding=enc)
ds.assign(u=ds['u'].astype('i1')).to_netcdf(sys.argv[2], format='NETCDF3_64BIT', encoding=enc)
with netCDF4.Dataset(sys.argv[2], 'a') as f:
    f['u'].setncattr('_Unsigned', 'true')
ds.to_zarr(sys.argv[3], zarr_format=2, encoding=enc, consolidated=False)
ds.to_zarr(sys.argv[4], zarr_format=3, encoding=enc, consolidated=False)
ds.assign(name=('obs', np.array(['w', 'x', 'y', 'z'], dtype=object))).to_netcdf(sys.argv[5], encoding=enc)
";
    let d = dir.path();
    let sources = ["t4.nc", "t3.nc", "t2.zarr", "t3.zarr", "strings.nc"].map(|n| d.join(n));
    let paths: Vec<&str> = sources.iter().map(|p| p.to_str().unwrap()).collect();
    ndl_testkit::run_with(&ndl_testkit::python312(), script, &paths);
    let check = "\
import sys, numpy as np, xarray as xr, pyarrow.parquet as pq
src, table = sys.argv[1], sys.argv[2]
ds = xr.open_zarr(src, consolidated=False) if src.endswith('.zarr') else xr.open_dataset(src)
want = ds.to_dataframe().reset_index(drop=True)
got = pq.read_table(table).to_pandas()
# A Zarr group's arrays have no order; a netCDF file's variables do.
in_order = list if src.endswith('.nc') else sorted
assert in_order(got.columns) == in_order(want.columns), (got.columns, want.columns)
for c in want:
    assert got[c].dtype == want[c].dtype, (c, got[c].dtype, want[c].dtype)
    np.testing.assert_array_equal(got[c].values, want[c].values, err_msg=c)
for c, alone in zip('abcu', sys.argv[3:]):
    a = np.load(alone)
    assert a.dtype == ds[c].dtype, (c, a.dtype, ds[c].dtype)
    np.testing.assert_array_equal(a, ds[c].values, err_msg=c)
print(','.join(str(want[c].dtype) for c in 'abcu'))
";
    for src in &paths[..4] {
        let table = format!("{src}.parquet");
        let run = ndl(&["convert", src, &table]);
        assert_eq!(run.code, Some(0), "{src}: {run:#?}");
        assert!(
            run.stderr.contains("variable `a`: its packed values"),
            "{src}: {run:#?}"
        );
        let mut args = vec![src.to_string(), table];
        for member in ["a", "b", "c", "u"] {
            let alone = format!("{src}.{member}.npy");
            let run = ndl(&["convert", src, &alone, "--member", member]);
            assert_eq!(run.code, Some(0), "{src} {member}: {run:#?}");
            args.push(alone);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = ndl_testkit::run_with(&ndl_testkit::python312(), check, &args);
        assert_eq!(out, "float64,float64,float32,uint8\n", "{src}");
    }
    let dst = format!("{}.parquet", paths[4]);
    let run = ndl(&["convert", paths[4], &dst]);
    assert_eq!(run.code, Some(1), "{run:#?}");
    assert!(
        run.stderr.contains("variable `a` is packed") && run.stderr.contains("--member a"),
        "{run:#?}"
    );
    assert!(!Path::new(&dst).exists());
}

/// A time out of the decoded unit's range is refused, naming the
/// variable and the element, with nothing written.
#[test]
fn a_time_beyond_its_unit_is_refused_naming_variable_and_element() {
    let dir = tempfile::tempdir().unwrap();
    let (src, dst) = (dir.path().join("far.nc"), dir.path().join("far.npy"));
    ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, netCDF4\n\
         with netCDF4.Dataset(sys.argv[1], 'w') as f:\n\
         \x20   f.createDimension('t', 2)\n\
         \x20   v = f.createVariable('when', 'i8', ('t',))\n\
         \x20   v.units = 'days since 2000-01-01'\n\
         \x20   v[:] = [0, 2**63 - 10]",
        &[src.to_str().unwrap()],
    );
    let run = common::cli::convert(&src, &dst, &["--member", "when"]);
    assert_eq!(run.code, Some(1), "{run:#?}");
    assert!(
        run.stderr.contains("variable `when`, element 1")
            && run.stderr.contains("outside the range"),
        "{run:#?}"
    );
    assert!(!dst.exists());
}

/// netCDF-3's `_Unsigned = "true"` bytes read as unsigned, and packed
/// ones unpacked from their unsigned values as xarray unpacks them, a
/// fill given signed matching its unsigned bits (and masked as NaN).
#[test]
fn unsigned_bytes_of_netcdf3_read_as_xarray_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("u.nc");
    let s = src.to_str().unwrap();
    ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, numpy as np, netCDF4\n\
         with netCDF4.Dataset(sys.argv[1], 'w', format='NETCDF3_CLASSIC') as f:\n\
         \x20   f.createDimension('t', 4)\n\
         \x20   for name in ['b', 'p']:\n\
         \x20       v = f.createVariable(name, 'i1', ('t',), fill_value=-1)\n\
         \x20       v._Unsigned = 'true'\n\
         \x20       if name == 'p': v.scale_factor = 0.5\n\
         \x20       v.set_auto_maskandscale(False)\n\
         \x20       v[:] = np.array([1, -56, -1, 127], 'i1')",
        &[s],
    );
    for member in ["b", "p"] {
        let npy = dir.path().join(format!("{member}.npy"));
        let run = common::cli::convert(&src, &npy, &["--member", member]);
        assert_eq!(run.code, Some(0), "{run:#?}");
        let out = ndl_testkit::run_with(
            &ndl_testkit::python312(),
            "import sys, numpy as np, xarray as xr\n\
             ours = np.load(sys.argv[2])\n\
             theirs = xr.open_dataset(sys.argv[1])[sys.argv[3]].values\n\
             assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs, equal_nan=True), (ours, theirs)\n\
             assert np.isnan(ours[2]) and ours[1] in (200, 100)\n\
             print(ours.dtype)",
            &[s, npy.to_str().unwrap(), member],
        );
        // The fill masked makes the bytes floats.
        let want = if member == "b" {
            "float32\n"
        } else {
            "float64\n"
        };
        assert_eq!(out, want, "{member}");
    }
}

/// A 64-bit integer's fill masks that value alone, as netCDF4-python
/// masks it: compared as `f64` (xarray's casting), 2^62 + 1 would be
/// masked with a fill of 2^62 and its datum lost.
#[test]
fn a_64_bit_fill_masks_its_value_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (src, npy) = (dir.path().join("big.nc"), dir.path().join("big.npy"));
    let (s, n) = (src.to_str().unwrap(), npy.to_str().unwrap());
    ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, numpy as np, netCDF4\n\
         with netCDF4.Dataset(sys.argv[1], 'w') as f:\n\
         \x20   f.createDimension('x', 3)\n\
         \x20   b = f.createVariable('big', 'i8', ('x',), fill_value=np.int64(2**62))\n\
         \x20   b.set_auto_mask(False)\n\
         \x20   b[:] = np.array([2**62, 2**62 + 1, 5], 'i8')",
        &[s],
    );
    let run = common::cli::convert(&src, &npy, &["--member", "big"]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(run.stderr.contains("(4611686018427387904)"), "{run:#?}");
    let out = ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, numpy as np, netCDF4\n\
         ours = np.load(sys.argv[2])\n\
         theirs = netCDF4.Dataset(sys.argv[1])['big'][:]\n\
         assert ours.dtype == np.float64 and np.isnan(ours[0]), ours\n\
         assert ours[1:].tolist() == theirs[1:].astype('f8').tolist() and theirs.mask.tolist() == [True, False, False]\n\
         print(ours[1:].tolist())",
        &[s, n],
    );
    assert_eq!(out, "[4.611686018427388e+18, 5.0]\n");
}

/// A netCDF-3 file of one variable converts it as `--member` would: its
/// packed values unpacked and its fill masked, as xarray reads them (it
/// was read raw, its attributes left behind).
#[test]
fn the_only_variable_of_a_netcdf3_file_reads_as_xarray_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let (src, npy) = (dir.path().join("one.nc"), dir.path().join("one.npy"));
    let (s, n) = (src.to_str().unwrap(), npy.to_str().unwrap());
    ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, numpy as np, netCDF4\n\
         with netCDF4.Dataset(sys.argv[1], 'w', format='NETCDF3_CLASSIC') as f:\n\
         \x20   f.createDimension('x', 3)\n\
         \x20   v = f.createVariable('v', 'i2', ('x',), fill_value=-1)\n\
         \x20   v.scale_factor = 0.5\n\
         \x20   v.set_auto_maskandscale(False)\n\
         \x20   v[:] = np.array([2, -1, 5], 'i2')",
        &[s],
    );
    let run = common::cli::convert(&src, &npy, &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(run.stderr.contains("packed values"), "{run:#?}");
    let out = ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, numpy as np, xarray as xr\n\
         ours, theirs = np.load(sys.argv[2]), xr.open_dataset(sys.argv[1])['v'].values\n\
         assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs, equal_nan=True), (ours, theirs)\n\
         print(ours.tolist())",
        &[s, n],
    );
    assert_eq!(out, "[1.0, nan, 2.5]\n");
}

/// CF units whose epoch falls between two of their steps (`hours since
/// 2000-01-01T00:00:00-0330`) decode, as xarray decodes them, to times of
/// a finer unit (minutes): they were refused as "not a whole number of
/// hours".
#[test]
fn an_epoch_between_steps_of_its_unit_decodes_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let nc = dir.path().join("t.nc");
    ndl_testkit::python::run_with(
        &ndl_testkit::python::python312(),
        "import sys, netCDF4\n\
         with netCDF4.Dataset(sys.argv[1], 'w') as f:\n\
         \x20   f.createDimension('t', 2)\n\
         \x20   v = f.createVariable('when', 'i4', ('t',))\n\
         \x20   v.units = 'hours since 2000-01-01T00:00:00-0330'\n\
         \x20   v[:] = [0, 1]\n",
        &[nc.to_str().unwrap()],
    );
    let parquet = dir.path().join("t.parquet");
    let run = common::cli::convert(&nc, &parquet, &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let got = ndl_testkit::python::run_with(
        &ndl_testkit::python::python312(),
        "import sys, pyarrow.parquet as pq, xarray as xr\n\
         print([str(t) for t in pq.read_table(sys.argv[1]).column(0).to_pylist()])\n\
         print([str(t)[:19] for t in xr.open_dataset(sys.argv[2])['when'].values])\n",
        &[parquet.to_str().unwrap(), nc.to_str().unwrap()],
    );
    assert_eq!(
        got,
        "['2000-01-01 03:30:00', '2000-01-01 04:30:00']\n\
         ['2000-01-01T03:30:00', '2000-01-01T04:30:00']\n",
        "{got}"
    );
}

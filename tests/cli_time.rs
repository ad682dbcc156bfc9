//! Time fields through `ndl convert` and `ndl describe`: a NumPy file with
//! datetime64 and timedelta64 fields (a multiple, NaT, both kinds) goes to
//! both Zarr formats in the records layout and back to identical bytes, and
//! zarr-python 3.4 reads each store (3.1 the v2 one) to NumPy's exact
//! values.
//!
//! In the columns layout a time is a CF `int64` column: xarray decodes it
//! to the same values, NaT as NaT, and Debian's `ncdump -t` prints ISO
//! times for seconds and days.

mod common;

use common::cli::{ndl, ok};

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
            &format!("import sys, numpy as np\nnp.save(sys.argv[1], np.array([0, 1, 'NaT', -5], dtype='{dtype}'))"),
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

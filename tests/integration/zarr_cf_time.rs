//! CF time that xarray wrote, read into `DateTime64`/`TimeDelta64` fields
//! with the exact instants: any epoch and unit, integer and float
//! encodings, NaT; calendars whose days are not NumPy's are refused with an
//! error naming the variable and the calendar.
//!
//! Our own columns of a unit CF has no name for, but which is a whole
//! number of one (`W`, `10ms`, `10s`), hold counts of that CF unit:
//! xarray decodes them, `ndl convert` divides back exactly.

use crate::common;

use common::cli::{convert, converted, refused};
use ndl_runtime::NdlType;
use ndl_runtime::time::{DateTime64, Days, Seconds, TimeDelta64};

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Obs {
    t: DateTime64<Seconds>,
    f: DateTime64<Seconds>,
    d: TimeDelta64<Seconds>,
    n: i32,
}

/// xarray writes `t` as int64 hours since 2000-01-01 12:00 (standard
/// calendar), `f` as float64 days since 1970, `d` as int64 minutes.
fn xarray_store(path: &std::path::Path, format: u8, calendar: &str) {
    ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, warnings, numpy as np, xarray as xr\n\
         warnings.simplefilter('ignore')\n\
         t = np.array(['2000-01-01T12', '2000-01-02T13', 'NaT'], dtype='M8[s]')\n\
         f = np.array(['1970-01-01T12', 'NaT', '1969-12-31'], dtype='M8[s]')\n\
         d = np.array([60, -120, 'NaT'], dtype='m8[s]')\n\
         ds = xr.Dataset({'t': ('row', t), 'f': ('row', f), 'd': ('row', d), 'n': ('row', np.arange(3, dtype='i4'))})\n\
         enc = {'t': {'units': 'hours since 2000-01-01 12:00:00', 'calendar': sys.argv[3], 'dtype': 'int64'},\n\
                'f': {'units': 'days since 1970-01-01', 'dtype': 'float64'},\n\
                'd': {'units': 'minutes', 'dtype': 'int64'}}\n\
         ds.to_zarr(sys.argv[1], zarr_format=int(sys.argv[2]), encoding=enc)",
        &[path.to_str().unwrap(), &format.to_string(), calendar],
    );
}

#[test]
fn xarray_cf_time_reads_into_typed_fields() {
    let dir = tempfile::tempdir().unwrap();
    for format in [2, 3] {
        let path = dir.path().join(format!("x{format}.zarr"));
        xarray_store(&path, format, "standard");
        let got: Vec<Obs> = ndl_zarr::read(&path).unwrap();
        let noon = 946_728_000; // 2000-01-01T12:00:00
        assert_eq!(
            got,
            [
                Obs {
                    t: DateTime64::new(noon),
                    f: DateTime64::new(43_200),
                    d: TimeDelta64::new(60),
                    n: 0
                },
                Obs {
                    t: DateTime64::new(noon + 25 * 3600),
                    f: DateTime64::NAT,
                    d: TimeDelta64::new(-120),
                    n: 1
                },
                Obs {
                    t: DateTime64::NAT,
                    f: DateTime64::new(-86_400),
                    d: TimeDelta64::NAT,
                    n: 2
                },
            ],
            "v{format}"
        );
    }
}

#[test]
fn ndl_convert_turns_xarray_cf_time_into_m8_fields() {
    let dir = tempfile::tempdir().unwrap();
    for format in [2, 3] {
        let path = dir.path().join(format!("x{format}.zarr"));
        let npy = dir.path().join(format!("x{format}.npy"));
        xarray_store(&path, format, "standard");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ndl"))
            .args(["convert", path.to_str().unwrap(), npy.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let printed = ndl_testkit::run_python(
            "import sys, numpy as np\n\
             a = np.load(sys.argv[1])\n\
             print(a.dtype.descr)\n\
             print('|'.join(str(a[f][i]) for f in ('t', 'f', 'd') for i in range(3)))",
            &[npy.to_str().unwrap()],
        );
        assert_eq!(
            printed,
            "[('d', '<m8[m]'), ('f', '<M8[ns]'), ('n', '<i4'), ('t', '<M8[h]')]\n\
             2000-01-01T12|2000-01-02T13|NaT|\
             1970-01-01T12:00:00.000000000|NaT|1969-12-31T00:00:00.000000000|\
             1 minutes|-2 minutes|NaT\n",
            "v{format}"
        );
    }
}

#[test]
fn appending_to_time_columns_in_other_units_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.zarr");
    xarray_store(&path, 3, "standard");
    // `t` holds hours since 2000: appending seconds since 1970 would mix
    // two units in one column.
    let err = ndl_zarr::ArrayWriter::<Obs>::open(&path)
        .unwrap_err()
        .to_string();
    assert!(err.contains("field 't'"), "{err}");
    assert!(err.contains("hours since 2000-01-01T12:00:00"), "{err}");
    assert!(err.contains("seconds since 1970-01-01 00:00:00"), "{err}");
}

#[test]
fn other_calendars_and_inexact_units_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("noleap.zarr");
    xarray_store(&path, 3, "noleap");
    let err = ndl_zarr::read::<Obs>(&path).unwrap_err().to_string();
    assert!(err.contains("`t`") || err.contains(" t"), "{err}");
    assert!(err.contains("calendar `noleap`"), "{err}");

    let path = dir.path().join("days.zarr");
    xarray_store(&path, 2, "proleptic_gregorian");
    #[derive(Clone, Copy, Debug, NdlType)]
    #[repr(C)]
    struct InDays {
        t: DateTime64<Days>,
        f: DateTime64<Seconds>,
        d: TimeDelta64<Seconds>,
        n: i32,
    }
    let err = ndl_zarr::read::<InDays>(&path).unwrap_err().to_string();
    assert!(err.contains("not a whole number of days"), "{err}");
}

/// A NumPy file of time fields in units CF has no name for: multiples,
/// weeks, a whole number of nanoseconds in picoseconds, and (kept as plain
/// counts, which xarray shows as numbers, NaT masked as NaN) months and
/// picoseconds.
fn scaled_npy(path: &std::path::Path) {
    ndl_testkit::run_python(
        "import sys, numpy as np\n\
         dt = np.dtype([('id', '<u4'), ('a', '<M8[10ms]'), ('w', '<M8[W]'), ('s', '<M8[10s]'),\n\
                        ('da', '<m8[10ms]'), ('dw', '<m8[W]'), ('ds', '<m8[10s]'),\n\
                        ('p', '<M8[1000ps]'), ('mo', '<M8[M]'), ('ps', '<m8[ps]')])\n\
         a = np.zeros(3, dt)\n\
         a['id'] = range(3)\n\
         a['a'] = [179560800000, 'NaT', -3]\n\
         a['w'] = [2900, -1, 'NaT']\n\
         a['s'] = [179560800, 'NaT', -1]\n\
         a['da'] = [5, -7, 'NaT']\n\
         a['dw'] = [1, 'NaT', -2]\n\
         a['ds'] = [-1, 6, 'NaT']\n\
         a['p'] = [1795608000000000001, 'NaT', -1]\n\
         a['mo'] = [682, 'NaT', -1]\n\
         a['ps'] = [1, -2, 'NaT']\n\
         np.save(sys.argv[1], a)",
        &[path.to_str().unwrap()],
    );
}

#[test]
fn scaled_time_columns_decode_in_xarray_and_convert_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let npy = d.join("a.npy");
    scaled_npy(&npy);
    for format in ["2", "3"] {
        let store = d.join(format!("v{format}.zarr"));
        let back = d.join(format!("v{format}.npy"));
        let columns = [
            "--zarr-format",
            format,
            "--layout",
            "columns",
            "--codec",
            "none",
        ];
        converted(convert(&npy, &store, &columns), "to columns");
        converted(convert(&store, &back, &[]), "back to .npy");
        assert_eq!(
            std::fs::read(&back).unwrap(),
            std::fs::read(&npy).unwrap(),
            "v{format}: .npy -> columns -> .npy"
        );
        let out = ndl_testkit::run_with(
            &ndl_testkit::python312(),
            "import sys, warnings, numpy as np, xarray as xr\n\
             warnings.simplefilter('ignore')\n\
             a = np.load(sys.argv[2])\n\
             ds = xr.open_zarr(sys.argv[1], consolidated=False)\n\
             for n in ['a', 'w', 's', 'da', 'dw', 'ds', 'p']:\n\
             \x20   v = ds[n].values\n\
             \x20   assert v.dtype.kind == a[n].dtype.kind, (n, v.dtype)\n\
             \x20   same = (v == a[n]) | (np.isnat(v) & np.isnat(a[n]))\n\
             \x20   assert same.all() and np.isnat(v).sum() == 1, (n, v, a[n])\n\
             for n in ['mo', 'ps']:\n\
             \x20   v, m = ds[n].values, a[n].view('i8')\n\
             \x20   same = np.where(np.isnat(a[n]), np.isnan(v), v == m)\n\
             \x20   assert v.dtype.kind == 'f' and same.all(), (n, v)\n\
             print('|'.join(ds[n].encoding['units'] for n in ['a', 'w', 's', 'da', 'dw', 'ds', 'p']))\n\
             print(ds['mo'].attrs['comment'])",
            &[store.to_str().unwrap(), npy.to_str().unwrap()],
        );
        assert_eq!(
            out,
            "milliseconds since 1970-01-01 00:00:00|days since 1970-01-01 00:00:00|\
             seconds since 1970-01-01 00:00:00|milliseconds|days|seconds|\
             nanoseconds since 1970-01-01 00:00:00\n\
             counts of NumPy datetime64[M] since 1970-01-01, a unit CF time has not\n",
            "v{format}"
        );
    }
    let url = format!("file://{}#mode=nczarr,file", d.join("v2.zarr").display());
    let dump = std::process::Command::new("ncdump")
        .args(["-t", &url])
        .output()
        .unwrap();
    let dump = String::from_utf8(dump.stdout).unwrap();
    for line in [
        " a = 1795608000000, _, -30 ;",
        " dw = 7, _, -14 ;",
        " w = \"2025-07-31\", \"1969-12-25\", _ ;",
        " s = \"2026-11-25 12\", _, \"1969-12-31 23:59:50\" ;",
        " mo = 682, _, -1 ;",
    ] {
        assert!(dump.contains(line), "{line}\n{dump}");
    }
}

#[test]
fn a_scaled_count_beyond_int64_is_refused_naming_record_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("big.npy");
    ndl_testkit::run_python(
        "import sys, numpy as np\n\
         a = np.zeros(3, [('id', '<u4'), ('w', '<M8[W]')])\n\
         a['w'] = [1, 'NaT', 2**62]\n\
         np.save(sys.argv[1], a)",
        &[npy.to_str().unwrap()],
    );
    let store = dir.path().join("big.zarr");
    let run = convert(&npy, &store, &["--layout", "columns"]);
    refused(
        &run,
        &store,
        &["record 2", "field `w`", "4611686018427387904", "days"],
    );
    assert!(!store.exists(), "a refused conversion leaves no store");
}

#[test]
fn a_stored_count_that_is_no_whole_number_of_the_unit_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("a.npy");
    scaled_npy(&npy);
    let store = dir.path().join("v3.zarr");
    let columns = ["--zarr-format", "3", "--layout", "columns"];
    converted(convert(&npy, &store, &columns), "to columns");
    // Someone else writes 1 ms into a column of tens of milliseconds.
    ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, zarr\n\
         z = zarr.open_array(sys.argv[1] + '/a', mode='r+')\n\
         z[2] = 1",
        &[store.to_str().unwrap()],
    );
    let back = dir.path().join("back.npy");
    let run = convert(&store, &back, &[]);
    refused(
        &run,
        &store,
        &["record 2", "field `a`", "not a whole number of 10ms"],
    );
}

/// The time columns of a v2 columns store written with the default codec
/// (none for v2 columns: Debian's ncdump 4.9 prints compressed chunks as
/// data) print as ISO dates in `ncdump -t`, in NCZarr and Zarr mode, by
/// the library and by `ndl convert` alike.
#[test]
fn ncdump_t_prints_iso_dates_of_default_v2_columns() {
    #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
    #[repr(C)]
    struct Stamp {
        t: DateTime64<Seconds>,
        day: DateTime64<Days>,
        v: f32,
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 2020-01-01, 2021-06-15 12:30, NaT, 1999-12-31 23:59:59.
    let seconds = [1_577_836_800, 1_623_760_200, i64::MIN, 946_684_799];
    let stamps: Vec<Stamp> = seconds
        .iter()
        .zip([18_262, -1, 0, 10_956])
        .map(|(&s, day)| Stamp {
            t: DateTime64::new(s),
            day: DateTime64::new(day),
            v: 0.5,
        })
        .collect();
    let library = d.join("library.zarr");
    ndl_zarr::WriteOptions::new()
        .zarr_format(ndl_zarr::ZarrFormat::V2)
        .layout(ndl_zarr::Layout::Columns)
        .write(&library, &stamps)
        .unwrap();
    let npy = d.join("s.npy");
    ndl_runtime::npy::write_file(&npy, &stamps).unwrap();
    let cli = d.join("cli.zarr");
    let args = ["--zarr-format", "2", "--layout", "columns"];
    converted(convert(&npy, &cli, &args), "to v2 columns");
    for store in [&library, &cli] {
        let zarray: serde_json::Value =
            serde_json::from_slice(&std::fs::read(store.join("t/.zarray")).unwrap()).unwrap();
        assert_eq!(
            zarray["compressor"],
            serde_json::Value::Null,
            "{}",
            store.display()
        );
        for mode in ["nczarr", "zarr"] {
            let url = format!("file://{}#mode={mode},file", store.display());
            let out = std::process::Command::new("ncdump")
                .args(["-t", &url])
                .output()
                .unwrap();
            let dump = String::from_utf8(out.stdout).expect("ncdump -t prints text");
            for line in [
                " t = \"2020-01-01\", \"2021-06-15 12:30\", _, \"1999-12-31 23:59:59\" ;",
                " day = \"2020-01-01\", \"1969-12-31\", \"1970-01-01\", \"1999-12-31\" ;",
                " v = 0.5, 0.5, 0.5, 0.5 ;",
            ] {
                assert!(
                    dump.contains(line),
                    "{mode} {}: {line}\n{dump}",
                    store.display()
                );
            }
        }
    }
}

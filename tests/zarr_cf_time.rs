//! CF time that xarray wrote, read into `DateTime64`/`TimeDelta64` fields
//! with the exact instants: any epoch and unit, integer and float
//! encodings, NaT; calendars whose days are not NumPy's are refused with an
//! error naming the variable and the calendar.

use ndl_runtime::time::{DateTime64, Days, Seconds, TimeDelta64};
use ndl_runtime::NdlType;

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

//! Time datatypes in every description language: NDL YAML (our extension)
//! read back, Datashape checked against the `datashape` package, CDL
//! compiled by `ncgen` and printed back by `ncdump`, whose `-t` turns the
//! CF units into ISO times.
//!
//! Run with `NDL_PYTHON=/path/to/python` (numpy 2.4.6, datashape 0.5.2)
//! and netcdf-bin installed.

use std::process::Command;

use ndl_runtime::lang::cdl::Document;
use ndl_runtime::time::{DateTime64, Days, Millis, Nanos, TimeDelta64};
use ndl_runtime::{Datatype, NdlType, TimeType};
use ndl_testkit::netcdf::{compile_cdl, try_ncgen};

fn time(code: &str) -> Datatype {
    Datatype::Time(code.parse::<TimeType>().unwrap())
}

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Stamp {
    at: DateTime64<Nanos>,
    took: TimeDelta64<Millis>,
    days: [DateTime64<Days>; 2],
}

#[test]
fn ndl_yaml_spells_time_as_the_extension_says() {
    let dt = Stamp::datatype();
    let yaml = serde_yaml::to_string(&dt).unwrap();
    assert!(
        yaml.contains("type:\n      datetime:\n        unit: ns\n"),
        "{yaml}"
    );
    assert!(yaml.contains("timedelta:\n        unit: ms\n"), "{yaml}");
    assert_eq!(serde_yaml::from_str::<Datatype>(&yaml).unwrap(), dt);
    for code in [
        "M8[Y]",
        "m8[M]",
        "M8[W]",
        "m8[10ms]",
        "M8[2147483647as]",
        "m8[D]",
    ] {
        let dt = time(code);
        let yaml = serde_yaml::to_string(&dt).unwrap();
        assert_eq!(
            serde_yaml::from_str::<Datatype>(&yaml).unwrap(),
            dt,
            "{yaml}"
        );
    }
    assert_eq!(
        serde_yaml::from_str::<Datatype>("{timedelta: {unit: 10ms}}").unwrap(),
        time("m8[10ms]")
    );
    for (text, why) in [
        (
            "{datetime: {unit: fortnight}}",
            "unknown NumPy time unit `fortnight`",
        ),
        ("{datetime: {unit: 0s}}", "multiple 0"),
        ("{datetime: {}}", "missing key `unit`"),
        ("{datetime: {unit: s, tz: UTC}}", "unknown key"),
        ("{timedelta: {unit: 5}}", "must be a string"),
    ] {
        let err = serde_yaml::from_str::<Datatype>(text)
            .unwrap_err()
            .to_string();
        assert!(err.contains(why), "{text}: {err}");
    }
}

#[test]
fn datashape_is_what_from_numpy_gives() {
    let codes = [
        "M8[Y]", "M8[M]", "M8[W]", "M8[D]", "M8[h]", "M8[m]", "M8[s]", "M8[ms]", "M8[us]",
        "M8[ns]", "M8[ps]", "M8[10ms]", "m8[Y]", "m8[M]", "m8[W]", "m8[D]", "m8[h]", "m8[m]",
        "m8[s]", "m8[ms]", "m8[us]", "m8[ns]", "m8[10ms]", "m8[7D]",
    ];
    let out = ndl_testkit::run_python(
        "import sys, numpy as np, datashape\n\
         for c in sys.argv[1:]:\n    print(datashape.from_numpy((), np.dtype(c)))",
        &codes,
    );
    for (code, theirs) in codes.iter().zip(out.lines()) {
        assert_eq!(time(code).try_to_datashape().unwrap(), theirs, "{code}");
    }
    // Below nanoseconds Datashape has no timedelta: storage only, or an error.
    assert_eq!(time("m8[ps]").to_datashape(), "int64");
    let err = time("m8[as]").try_to_datashape().unwrap_err().to_string();
    assert!(err.contains("below nanoseconds"), "{err}");
    // A record's Datashape parses, and its NumPy dtype has our kinds.
    let ds = Stamp::datatype().to_datashape();
    assert_eq!(
        ds,
        "{at: datetime, took: timedelta[unit='ms'], days: 2 * date}"
    );
    let dtype = ndl_testkit::run_python(
        "import sys, datashape\nprint(datashape.dshape(sys.argv[1]).measure.to_numpy_dtype())",
        &[&ds],
    );
    // (Datashape's own record-to-dtype drops the `2 *` of a field.)
    assert_eq!(
        dtype.trim(),
        "[('at', '<M8[us]'), ('took', '<m8[ms]'), ('days', '<M8[D]')]"
    );
}

#[test]
fn cdl_time_variables_are_cf_int64s() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = Document::new("times").unwrap();
    doc.add_dimension("n", Some(2)).unwrap();
    doc.add_variable("t", &time("M8[s]"), "t_t", &["n"])
        .unwrap();
    doc.add_variable("d", &time("m8[ns]"), "d_t", &["n"])
        .unwrap();
    doc.add_variable("day", &time("M8[D]"), "day_t", &["n"])
        .unwrap();
    doc.add_variable("rec", &Stamp::datatype(), "stamp_t", &["n"])
        .unwrap();
    let cdl = doc.to_string();
    let expected = "netcdf times {
types:
  compound stamp_t {
    int64 at ;
    int64 took ;
    int64 days(2) ;
  }; // stamp_t
dimensions:
\tn = 2 ;
variables:
\tint64 t(n) ;
\t\tt:units = \"seconds since 1970-01-01 00:00:00\" ;
\t\tt:calendar = \"proleptic_gregorian\" ;
\t\tt:_FillValue = -9223372036854775808LL ;
\tint64 d(n) ;
\t\td:units = \"nanoseconds\" ;
\t\td:dtype = \"timedelta64[ns]\" ;
\t\td:_FillValue = -9223372036854775808LL ;
\tint64 day(n) ;
\t\tday:units = \"days since 1970-01-01 00:00:00\" ;
\t\tday:calendar = \"proleptic_gregorian\" ;
\t\tday:_FillValue = -9223372036854775808LL ;
\tstamp_t rec(n) ;
}
";
    assert_eq!(cdl, expected);
    assert_eq!(compile_cdl(&cdl, dir.path(), "times"), expected);

    // With data, `ncdump -t` prints the seconds and days as ISO times,
    // and NaT as the fill value `_`.
    let with_data = cdl.replace(
        "\tstamp_t rec(n) ;\n}\n",
        "\tstamp_t rec(n) ;\ndata:\n t = 1795608000, _ ;\n d = 1, -1 ;\n day = 20782, -1 ;\n}\n",
    );
    let nc = try_ncgen(&with_data, dir.path(), "data").unwrap();
    let dump = Command::new("ncdump")
        .arg("-t")
        .arg("-v")
        .arg("t,day")
        .arg(&nc)
        .output()
        .unwrap();
    let dump = String::from_utf8(dump.stdout).unwrap();
    assert!(dump.contains(" t = \"2026-11-25 12\", _ ;"), "{dump}");
    assert!(
        dump.contains(" day = \"2026-11-25\", \"1969-12-31\" ;"),
        "{dump}"
    );

    // A later attribute of the same name replaces the implied one.
    let mut doc = Document::new("d").unwrap();
    doc.add_variable("t", &time("M8[s]"), "t_t", &[]).unwrap();
    doc.add_attribute(
        Some("t"),
        "units",
        ndl_runtime::lang::cdl::AttrValue::Text("seconds since 2000-01-01".into()),
    )
    .unwrap();
    let text = doc.to_string();
    assert!(!text.contains("1970"), "{text}");
    assert_eq!(text.matches(":units").count(), 1, "{text}");

    // Units CF has no name for are stored as files store them
    // (`CfEncoding`): multiples in the CF unit, months as counts.
    let mut doc = Document::new("d").unwrap();
    doc.add_variable("t", &time("M8[10ms]"), "t_t", &[])
        .unwrap();
    doc.add_variable("m", &time("M8[M]"), "m_t", &[]).unwrap();
    let text = doc.to_string();
    assert!(
        text.contains("t:units = \"milliseconds since 1970-01-01 00:00:00\" ;"),
        "{text}"
    );
    assert!(
        text.contains("m:comment = \"counts of NumPy datetime64[M]"),
        "{text}"
    );
    assert!(!text.contains("m:units"), "{text}");
}

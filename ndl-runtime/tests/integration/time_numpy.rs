//! Time values print exactly as NumPy's `str()` prints them, and NumPy time
//! codes parse as NumPy reads them: checked against real NumPy over every
//! unit, multiples, negative, pre-1970 and far counts, and NaT.
//!
//! Run with `NDL_PYTHON=/path/to/python` (numpy 2.4.6).

use std::fmt::Write as _;

use ndl_runtime::time::{
    BaseUnit, DateTime64, Days, Hours, Micros, Millis, Minutes, Nanos, NumpyTimeUnit, Seconds,
    TimeDelta64, TimeKind, TimeUnit,
};

/// Asks NumPy for `str()` of each `kind unit count` line of `cases`.
fn numpy_strs(cases: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cases.txt");
    std::fs::write(&path, cases).unwrap();
    let out = ndl_testkit::run_python(
        r#"
import sys
import numpy as np
for line in open(sys.argv[1]):
    kind, unit, count = line.split()
    make = np.datetime64 if kind == "M" else np.timedelta64
    print(str(make(int(count), unit)))
"#,
        &[path.to_str().unwrap()],
    );
    out.lines().map(str::to_owned).collect()
}

/// Counts from 0 to `limit` in magnitude, of both signs: the edges, and a
/// deterministic sweep over every bit length.
fn counts(limit: i64) -> Vec<i64> {
    let mut v = vec![0, 1, -1, limit, -limit, limit / 3, -(limit / 7)];
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for bits in 1..64 {
        for _ in 0..3 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let c = (x >> (64 - bits)) as i64;
            if c <= limit {
                v.extend([c, -c]);
            }
        }
    }
    v
}

/// The largest count NumPy 2.4 prints without wrapping its own `i64`
/// arithmetic (count × multiple, weeks × 7, days shifted by 30 years):
/// beyond it NumPy prints a wrong date, and we print the true one.
fn numpy_safe_limit(unit: NumpyTimeUnit) -> i64 {
    let weeks = if unit.unit() == BaseUnit::Weeks { 7 } else { 1 };
    (i64::MAX - 11_000) / (i64::from(unit.multiple()) * weeks)
}

#[test]
fn every_numpy_unit_and_multiple_prints_as_numpy_does() {
    let mut cases = String::new();
    let mut ours = Vec::new();
    for base in BaseUnit::ALL {
        for multiple in [1, 3, 10, 1000, 86_401] {
            let unit = NumpyTimeUnit::with_multiple(base, multiple).unwrap();
            for count in counts(numpy_safe_limit(unit)) {
                for kind in [TimeKind::DateTime, TimeKind::TimeDelta] {
                    let c = kind.numpy_char();
                    writeln!(cases, "{c} {unit} {count}").unwrap();
                    ours.push(match kind {
                        TimeKind::DateTime => unit.display_datetime(count).to_string(),
                        TimeKind::TimeDelta => unit.display_timedelta(count).to_string(),
                    });
                }
            }
            for kind in ['M', 'm'] {
                writeln!(cases, "{kind} {unit} {}", i64::MIN).unwrap();
                ours.push("NaT".into());
            }
        }
    }
    let theirs = numpy_strs(&cases);
    assert_eq!(theirs.len(), ours.len());
    for ((case, ours), theirs) in cases.lines().zip(&ours).zip(&theirs) {
        assert_eq!(ours, theirs, "np.{case}");
    }
}

#[test]
fn typed_values_print_as_numpy_does() {
    fn check<U: TimeUnit>(cases: &mut String, ours: &mut Vec<String>) {
        let code = U::UNIT.code();
        let limit = numpy_safe_limit(NumpyTimeUnit::new(U::UNIT));
        for count in counts(limit).into_iter().chain([i64::MIN]) {
            writeln!(cases, "M {code} {count}").unwrap();
            ours.push(DateTime64::<U>::new(count).to_string());
            writeln!(cases, "m {code} {count}").unwrap();
            ours.push(TimeDelta64::<U>::new(count).to_string());
        }
    }
    let (mut cases, mut ours) = (String::new(), Vec::new());
    check::<Days>(&mut cases, &mut ours);
    check::<Hours>(&mut cases, &mut ours);
    check::<Minutes>(&mut cases, &mut ours);
    check::<Seconds>(&mut cases, &mut ours);
    check::<Millis>(&mut cases, &mut ours);
    check::<Micros>(&mut cases, &mut ours);
    check::<Nanos>(&mut cases, &mut ours);
    let theirs = numpy_strs(&cases);
    assert_eq!(theirs.len(), ours.len());
    for ((case, ours), theirs) in cases.lines().zip(&ours).zip(&theirs) {
        assert_eq!(ours, theirs, "np.{case}");
    }
}

#[test]
fn only_the_day_counts_numpy_wraps_differ() {
    // Every marker count prints as NumPy does except the lowest 10 957 + 1
    // day counts, where NumPy's shift from 1970 to 2000 wraps.
    assert_eq!(
        numpy_safe_limit(NumpyTimeUnit::new(BaseUnit::Days)),
        i64::MAX - 11_000
    );
    let lowest = DateTime64::<Days>::new(i64::MIN + 1).to_string();
    assert!(lowest.starts_with("-25252734927764"), "{lowest}");
}

#[test]
fn codes_parse_as_numpy_reads_them() {
    let codes = [
        "M8[Y]",
        "M8[M]",
        "m8[W]",
        "M8[D]",
        "M8[h]",
        "m8[m]",
        "M8[s]",
        "M8[ms]",
        "m8[us]",
        "M8[μs]",
        "M8[ns]",
        "M8[ps]",
        "m8[fs]",
        "M8[as]",
        "M8[10ms]",
        "m8[1s]",
        "M8[010s]",
        "M8[2147483647as]",
        "M8[2147483648s]",
        "M8[1000000000000s]",
        "M8[fortnight]",
        "M8[B]",
        "M8[1.5s]",
        "M8[-1s]",
        "M8[10 s]",
        "M8[]",
        "M8[S]",
        "m8[MS]",
        "M8[0s]",
        "M8",
        "M8[ 10s]",
        "M8[+10s]",
        "M8[s/2]",
    ];
    let out = ndl_testkit::run_python(
        r#"
import sys
import numpy as np
for code in sys.argv[1:]:
    try:
        print(np.dtype(code).str)
    except TypeError:
        print("refused")
"#,
        &codes,
    );
    // NumPy reads these, and we refuse them: a multiple of 0 describes no
    // time, a generic unit holds only NaT, and NumPy never writes the
    // spellings with spaces, signs or divisions into a file.
    let we_refuse = ["M8[0s]", "M8", "M8[ 10s]", "M8[+10s]", "M8[s/2]"];
    for (code, numpy) in codes.iter().zip(out.lines()) {
        let ours = NumpyTimeUnit::parse_code(code);
        match ours {
            Ok((kind, unit)) => assert_eq!(format!("<{}", unit.code(kind)), numpy, "{code}"),
            Err(e) if we_refuse.contains(code) => {
                assert_ne!(numpy, "refused", "{code}: {e}")
            }
            Err(e) => assert_eq!(numpy, "refused", "{code}: {e}"),
        }
    }
}

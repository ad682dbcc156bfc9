//! Time values printed as NumPy's `str()` prints them.
//!
//! A datetime is ISO 8601 in the proleptic Gregorian calendar, UTC, to the
//! precision of its unit: `2026` for years, `2026-11` for months, a date
//! for weeks and days, then `T12`, `T12:30`, `T12:30:00` and 3 to 18
//! fraction digits. Years are at least four digits, zero-padded, with a
//! sign when negative (`-001`, year 0 being 1 BC), as C's `%04lld`. A
//! duration is its count in the base unit and the unit's plural name
//! (`1 seconds`). NaT is `NaT`.
//!
//! The arithmetic is in `i128`, so every `i64` count of every unit and
//! multiple prints its true date. NumPy 2.4 computes in `i64` and wraps
//! where a count times its multiple (or weeks times 7, or days shifted to
//! 2000) overflows: there, and only there, the two differ.

use std::fmt;

use super::calendar::civil_from_days;
use super::{BaseUnit, NumpyTimeUnit};

pub(crate) use super::cf::NAT;

/// A datetime count in `unit`, displayed as NumPy does.
pub(crate) struct DateTimeStr {
    pub count: i64,
    pub unit: NumpyTimeUnit,
}

/// A timedelta count in `unit`, displayed as NumPy does.
pub(crate) struct TimeDeltaStr {
    pub count: i64,
    pub unit: NumpyTimeUnit,
}

impl fmt::Display for DateTimeStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.count == NAT {
            return f.pad("NaT");
        }
        // Formatted into a buffer first so that width and alignment
        // (`{:>30}`) apply to the whole value.
        let mut s = String::with_capacity(40);
        write_datetime(&mut s, self.count, self.unit)?;
        f.pad(&s)
    }
}

impl fmt::Display for TimeDeltaStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.count == NAT {
            return f.pad("NaT");
        }
        let total = i128::from(self.count) * i128::from(self.unit.multiple());
        f.pad(&format!("{total} {}", self.unit.unit().name()))
    }
}

fn write_datetime(out: &mut String, count: i64, unit: NumpyTimeUnit) -> fmt::Result {
    use fmt::Write;
    let total = i128::from(count) * i128::from(unit.multiple());
    let per_day: i128 = match unit.unit() {
        BaseUnit::Years => return write_year(out, 1970 + total),
        BaseUnit::Months => {
            write_year(out, 1970 + total.div_euclid(12))?;
            return write!(out, "-{:02}", total.rem_euclid(12) + 1);
        }
        BaseUnit::Weeks => return write_date(out, total * 7),
        BaseUnit::Days => return write_date(out, total),
        BaseUnit::Hours => 24,
        BaseUnit::Minutes => 24 * 60,
        _ => {
            let per_second = 1_000_000_000_000_000_000 / unit.unit().attos().expect("fixed");
            86_400 * per_second
        }
    };
    write_date(out, total.div_euclid(per_day))?;
    let of_day = total.rem_euclid(per_day);
    match unit.unit() {
        BaseUnit::Hours => write!(out, "T{of_day:02}"),
        BaseUnit::Minutes => write!(out, "T{:02}:{:02}", of_day / 60, of_day % 60),
        fine => {
            let per_second = per_day / 86_400;
            let seconds = of_day / per_second;
            let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
            write!(out, "T{h:02}:{m:02}:{s:02}")?;
            let digits = fraction_digits(fine);
            if digits > 0 {
                write!(out, ".{:0digits$}", of_day % per_second)?;
            }
            Ok(())
        }
    }
}

/// The fraction digits NumPy prints for a unit of a second or shorter.
fn fraction_digits(unit: BaseUnit) -> usize {
    match unit {
        BaseUnit::Millis => 3,
        BaseUnit::Micros => 6,
        BaseUnit::Nanos => 9,
        BaseUnit::Picos => 12,
        BaseUnit::Femtos => 15,
        BaseUnit::Attos => 18,
        _ => 0,
    }
}

/// At least four digits, sign-aware zero padding: C's `%04lld`.
fn write_year(out: &mut String, year: i128) -> fmt::Result {
    use fmt::Write;
    write!(out, "{year:04}")
}

/// The proleptic Gregorian date `days` after 1970-01-01, as `YYYY-MM-DD`.
fn write_date(out: &mut String, days: i128) -> fmt::Result {
    use fmt::Write;
    let (year, month, day) = civil_from_days(days);
    write_year(out, year)?;
    write!(out, "-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::calendar::Calendar;

    fn dt(count: i64, unit: &str) -> String {
        let unit = unit.parse().unwrap();
        DateTimeStr { count, unit }.to_string()
    }

    fn td(count: i64, unit: &str) -> String {
        let unit = unit.parse().unwrap();
        TimeDeltaStr { count, unit }.to_string()
    }

    #[test]
    fn every_unit_prints_to_its_precision() {
        assert_eq!(dt(56, "Y"), "2026");
        assert_eq!(dt(-1, "M"), "1969-12");
        assert_eq!(dt(-5, "W"), "1969-11-27");
        assert_eq!(dt(20_417, "D"), "2025-11-25");
        assert_eq!(dt(-1, "h"), "1969-12-31T23");
        assert_eq!(dt(-1, "m"), "1969-12-31T23:59");
        assert_eq!(dt(123_456_789, "s"), "1973-11-29T21:33:09");
        assert_eq!(dt(-1, "ms"), "1969-12-31T23:59:59.999");
        assert_eq!(dt(1, "10ms"), "1970-01-01T00:00:00.010");
        assert_eq!(dt(-123_456_789, "us"), "1969-12-31T23:57:56.543211");
        assert_eq!(dt(i64::MAX, "ns"), "2262-04-11T23:47:16.854775807");
        assert_eq!(dt(-1, "as"), "1969-12-31T23:59:59.999999999999999999");
        assert_eq!(dt(NAT, "D"), "NaT");
        assert_eq!(td(NAT, "s"), "NaT");
        assert_eq!(td(1, "s"), "1 seconds");
        assert_eq!(td(-123, "10ms"), "-1230 milliseconds");
    }

    #[test]
    fn years_pad_like_c() {
        let year = |y: i128| {
            let mut s = String::new();
            write_year(&mut s, y).unwrap();
            s
        };
        assert_eq!(year(0), "0000");
        assert_eq!(year(9), "0009");
        assert_eq!(year(-1), "-001");
        assert_eq!(year(-10), "-010");
        assert_eq!(year(-1000), "-1000");
        assert_eq!(year(123_458_759), "123458759");
    }

    #[test]
    fn wide_counts_print_their_true_date() {
        // NumPy's own i64 arithmetic wraps for these two.
        let days = -i128::from(i64::MAX);
        let (y, m, d) = civil_from_days(days);
        assert_eq!(Calendar::ProlepticGregorian.days_from_date(y, m, d), days);
        assert_eq!(dt(-i64::MAX, "D"), format!("{y}-{m:02}-{d:02}"));
        assert_eq!(dt(i64::MAX, "Y"), (1970 + i128::from(i64::MAX)).to_string());
    }

    #[test]
    fn padding_applies_to_the_whole_value() {
        let v = DateTimeStr {
            count: 0,
            unit: "D".parse().unwrap(),
        };
        assert_eq!(format!("[{v:>12}]"), "[  1970-01-01]");
        assert_eq!(
            format!(
                "[{:<5}]",
                DateTimeStr {
                    count: NAT,
                    unit: v.unit
                }
            ),
            "[NaT  ]"
        );
    }
}

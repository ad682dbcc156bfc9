//! Day counts from 1970-01-01 and calendar dates, both ways: the proleptic
//! Gregorian calendar of NumPy and the Julian calendar that CF's
//! `standard` calendar uses before 1582-10-15.

/// Howard Hinnant's `civil_from_days`: the proleptic Gregorian year, month
/// and day of a day count from 1970-01-01, in 400-year eras of 146 097
/// days. Year 0 is 1 BC.
pub(crate) fn civil_from_days(days: i128) -> (i128, u32, u32) {
    let z = days + 719_468; // days from 0000-03-01
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // day of era, 0..146096
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // 0..399
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // day of year from March 1st
    let mp = (5 * doy + 2) / 153; // month from March, 0..11
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i128::from(month <= 2);
    (year, month, day)
}

/// The calendars a date can be read in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Calendar {
    /// Gregorian rules at every date (NumPy's, CF's `proleptic_gregorian`).
    ProlepticGregorian,
    /// Julian rules at every date.
    Julian,
}

impl Calendar {
    /// The days of `month` in `year`.
    pub(crate) fn month_length(self, year: i128, month: u32) -> u32 {
        let leap = match self {
            Calendar::ProlepticGregorian => {
                year.rem_euclid(4) == 0 && (year.rem_euclid(100) != 0 || year.rem_euclid(400) == 0)
            }
            Calendar::Julian => year.rem_euclid(4) == 0,
        };
        match month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        }
    }

    /// Days from 1970-01-01 (a proleptic Gregorian day count) to the date
    /// `year-month-day` of this calendar, which the caller has checked.
    ///
    /// The Julian Day Number formulas of the Explanatory Supplement to the
    /// Astronomical Almanac, with floor division so that negative years
    /// work; JDN 2 440 588 is 1970-01-01.
    pub(crate) fn days_from_date(self, year: i128, month: u32, day: u32) -> i128 {
        let a = i128::from((14 - month) / 12);
        let y = year + 4800 - a;
        let m = i128::from(month) + 12 * a - 3;
        let common = i128::from(day) + (153 * m + 2) / 5 + 365 * y + y.div_euclid(4);
        let jdn = match self {
            Calendar::ProlepticGregorian => common - y.div_euclid(100) + y.div_euclid(400) - 32_045,
            Calendar::Julian => common - 32_083,
        };
        jdn - 2_440_588
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gregorian_dates_round_trip() {
        let g = Calendar::ProlepticGregorian;
        for days in [
            0,
            1,
            -1,
            59,
            60,
            365,
            -719_468,
            146_097 * 1000 + 17,
            i128::from(i64::MIN) * 7,
            -i128::from(i64::MAX),
        ] {
            let (y, m, d) = civil_from_days(days);
            assert!(d >= 1 && d <= g.month_length(y, m), "{days}");
            assert_eq!(g.days_from_date(y, m, d), days, "{days}");
        }
        assert_eq!(g.days_from_date(2000, 3, 1), 11_017);
        assert_eq!(g.days_from_date(1, 1, 1), -719_162);
    }

    #[test]
    fn the_julian_calendar_meets_the_gregorian_in_1582() {
        // 1582-10-04 Julian is followed by 1582-10-15 Gregorian.
        let j = Calendar::Julian.days_from_date(1582, 10, 4);
        let g = Calendar::ProlepticGregorian.days_from_date(1582, 10, 15);
        assert_eq!(j + 1, g);
        // 0001-01-01 Julian is 0000-12-30 proleptic Gregorian.
        let j = Calendar::Julian.days_from_date(1, 1, 1);
        assert_eq!(civil_from_days(j), (0, 12, 30));
        assert_eq!(Calendar::Julian.month_length(1900, 2), 29);
        assert_eq!(Calendar::ProlepticGregorian.month_length(1900, 2), 28);
    }
}

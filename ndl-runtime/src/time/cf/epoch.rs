//! The epoch of CF time units (`1992-10-8 15:15:42.5 -6:00`), read into
//! attoseconds since 1970-01-01T00:00:00 UTC.

use crate::time::calendar::Calendar;

/// How a CF `calendar` attribute reads dates: CF's `standard` (alias
/// `gregorian`, and the default) is Julian before 1582-10-15 and Gregorian
/// from then; `proleptic_gregorian` is Gregorian throughout, as NumPy is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CfCalendar {
    Standard,
    ProlepticGregorian,
}

impl CfCalendar {
    /// The calendar an attribute names, or `None` for one whose days are
    /// not real days (`noleap`, `360_day`, ...) or that is Julian after
    /// 1582 (`julian`): those do not map onto NumPy's instants.
    pub(super) fn from_attribute(calendar: Option<&str>) -> Option<CfCalendar> {
        match calendar.map(|c| c.trim().to_ascii_lowercase()).as_deref() {
            None | Some("standard" | "gregorian") => Some(CfCalendar::Standard),
            Some("proleptic_gregorian") => Some(CfCalendar::ProlepticGregorian),
            Some(_) => None,
        }
    }

    /// The calendar whose rules read `year-month-day`, or an error for the
    /// ten days the standard calendar skips.
    fn rules(self, year: i128, month: u32, day: u32) -> Result<Calendar, String> {
        if self == CfCalendar::ProlepticGregorian || (year, month, day) >= (1582, 10, 15) {
            Ok(Calendar::ProlepticGregorian)
        } else if (year, month, day) <= (1582, 10, 4) {
            Ok(Calendar::Julian)
        } else {
            Err(format!(
                "{year}-{month:02}-{day:02} is not a date of the standard calendar, \
                 which goes from 1582-10-04 to 1582-10-15"
            ))
        }
    }
}

const ATTOS_PER_SECOND: i128 = 1_000_000_000_000_000_000;

/// Reads `date[( |T)time][ ][zone]` into attoseconds since 1970 UTC.
///
/// - date: `[-]Y-M-D`, with one or more digits each (`1-1-1` is CF's);
/// - time: `h[:m[:s[.fraction]]]`, up to 18 fraction digits;
/// - zone: `Z`, `UTC`, `GMT`, or an offset `±h`, `±hh:mm`, `±hhmm`.
///
/// The error says what is wrong, for the caller to quote with the units.
pub(super) fn parse(text: &str, calendar: CfCalendar) -> Result<i128, String> {
    let mut p = Cursor {
        rest: text.trim(),
        text,
    };
    let negative = p.eat("-");
    let year = p.number(1, 12, "a year")?;
    let year = if negative { -year } else { year };
    p.expect("-")?;
    let month = p.number(1, 2, "a month")?;
    p.expect("-")?;
    let day = p.number(1, 2, "a day")?;
    let (month, day) = (month as u32, day as u32);
    let rules = calendar.rules(year, month, day)?;
    if !(1..=12).contains(&month) || day == 0 || day > rules.month_length(year, month) {
        return Err(format!("{year}-{month:02}-{day:02} is not a date"));
    }
    let mut attos = rules.days_from_date(year, month, day) * 86_400 * ATTOS_PER_SECOND;

    let had_space = p.skip_spaces();
    if p.eat("T") || (had_space && p.peek_digit()) {
        let hour = p.number(1, 2, "an hour")?;
        let (mut minute, mut second, mut fraction) = (0, 0, 0);
        if p.eat(":") {
            minute = p.number(1, 2, "minutes")?;
            if p.eat(":") {
                second = p.number(1, 2, "seconds")?;
                if p.eat(".") {
                    fraction = p.fraction()?;
                }
            }
        }
        if hour > 23 || minute > 59 || second > 59 {
            return Err(format!(
                "{hour}:{minute:02}:{second:02} is not a time of day"
            ));
        }
        attos += ((hour * 60 + minute) * 60 + second) * ATTOS_PER_SECOND + fraction;
        p.skip_spaces();
    }
    attos -= p.zone()? * 60 * ATTOS_PER_SECOND;
    p.skip_spaces();
    if !p.rest.is_empty() {
        return Err(format!("`{}` follows the date", p.rest));
    }
    Ok(attos)
}

/// What is left to read of an epoch.
struct Cursor<'a> {
    rest: &'a str,
    text: &'a str,
}

impl Cursor<'_> {
    fn eat(&mut self, token: &str) -> bool {
        match self.rest.strip_prefix(token) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    fn expect(&mut self, token: &str) -> Result<(), String> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(format!("expected `{token}` in `{}`", self.text.trim()))
        }
    }

    fn skip_spaces(&mut self) -> bool {
        let before = self.rest.len();
        self.rest = self.rest.trim_start();
        self.rest.len() != before
    }

    fn peek_digit(&self) -> bool {
        self.rest.starts_with(|c: char| c.is_ascii_digit())
    }

    /// `min..=max` decimal digits.
    fn number(&mut self, min: usize, max: usize, what: &str) -> Result<i128, String> {
        let n = self.rest.bytes().take_while(u8::is_ascii_digit).count();
        if n < min || n > max {
            return Err(format!("expected {what} in `{}`", self.text.trim()));
        }
        let (digits, rest) = self.rest.split_at(n);
        self.rest = rest;
        Ok(digits.parse().expect("at most 12 digits"))
    }

    /// The digits after a decimal point, in attoseconds.
    fn fraction(&mut self) -> Result<i128, String> {
        let n = self.rest.bytes().take_while(u8::is_ascii_digit).count();
        let digits = self.rest[..n].trim_end_matches('0');
        if n == 0 || digits.len() > 18 {
            return Err(format!(
                "expected 1 to 18 digits of a second in `{}`",
                self.text.trim()
            ));
        }
        self.rest = &self.rest[n..];
        let value: i128 = if digits.is_empty() {
            0
        } else {
            digits.parse().expect("at most 18 digits")
        };
        Ok(value * 10_i128.pow(18 - digits.len() as u32))
    }

    /// A time zone, as minutes east of UTC; none is UTC.
    fn zone(&mut self) -> Result<i128, String> {
        if self.eat("Z") || self.eat("UTC") || self.eat("GMT") {
            return Ok(0);
        }
        let sign = if self.eat("+") {
            1
        } else if self.eat("-") {
            -1
        } else {
            return Ok(0);
        };
        let digits = self.rest.bytes().take_while(u8::is_ascii_digit).count();
        let (hours, minutes) = if digits == 4 {
            let value = self.number(4, 4, "an offset")?;
            (value / 100, value % 100)
        } else {
            let hours = self.number(1, 2, "an offset's hours")?;
            let minutes = if self.eat(":") {
                self.number(2, 2, "an offset's minutes")?
            } else {
                0
            };
            (hours, minutes)
        };
        if hours > 23 || minutes > 59 {
            return Err(format!("{hours}:{minutes:02} is not a time zone offset"));
        }
        Ok(sign * (hours * 60 + minutes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i128 = ATTOS_PER_SECOND;

    fn epoch(text: &str) -> Result<i128, String> {
        parse(text, CfCalendar::Standard)
    }

    #[test]
    fn cf_and_iso_spellings_are_read() {
        for text in [
            "1970-01-01",
            "1970-1-1",
            "1970-01-01 00:00:00",
            "1970-01-01T00:00:00",
            "1970-01-01T00:00:00Z",
            "1970-01-01 00:00:00 UTC",
            "1970-01-01 00:00:00.000000",
            "1970-01-01 00:00",
            "1970-01-01 0",
            "  1970-01-01 00:00:00+00:00 ",
            "1970-01-01 01:00:00 +1",
            "1970-01-01T01:30:00+0130",
        ] {
            assert_eq!(epoch(text), Ok(0), "{text}");
        }
        // CF's own example.
        assert_eq!(
            epoch("1992-10-8 15:15:42.5 -6:00"),
            Ok((718_578_942 * S) + S / 2)
        );
        assert_eq!(epoch("2000-01-01"), Ok(946_684_800 * S));
        assert_eq!(epoch("1969-12-31 23:59:59.999999999999999999"), Ok(-1));
        assert_eq!(
            parse("-0001-12-31", CfCalendar::ProlepticGregorian),
            Ok(-719_529 * 86_400 * S)
        );
    }

    #[test]
    fn the_standard_calendar_is_julian_before_1582() {
        let julian = epoch("0001-01-01").unwrap();
        let proleptic = parse("0001-01-01", CfCalendar::ProlepticGregorian).unwrap();
        // Julian 0001-01-01 is proleptic Gregorian 0000-12-30.
        assert_eq!(proleptic - julian, 2 * 86_400 * S);
        assert_eq!(
            epoch("1582-10-15").unwrap() - epoch("1582-10-04").unwrap(),
            86_400 * S
        );
        let gap = epoch("1582-10-10").unwrap_err();
        assert!(gap.contains("not a date of the standard calendar"), "{gap}");
        assert!(epoch("1900-02-29").is_err());
        assert!(epoch("1500-02-29").is_ok());
        assert!(parse("1500-02-29", CfCalendar::ProlepticGregorian).is_err());
    }

    #[test]
    fn bad_epochs_say_why() {
        for (text, why) in [
            ("", "expected a year"),
            ("yesterday", "expected a year"),
            ("1970", "expected `-`"),
            ("1970-13-01", "is not a date"),
            ("1970-02-30", "is not a date"),
            ("1970-01-01 24:00:00", "is not a time of day"),
            ("1970-01-01 00:00:00.", "digits of a second"),
            (
                "1970-01-01 00:00:00.0000000000000000001",
                "digits of a second",
            ),
            ("1970-01-01 00:00:00 CET", "`CET` follows the date"),
            ("1970-01-01 00:00:00 +25", "not a time zone offset"),
            ("1970-01-01x", "`x` follows the date"),
            ("1234567890123-01-01", "expected a year"),
        ] {
            let err = epoch(text).unwrap_err();
            assert!(err.contains(why), "{text}: {err}");
        }
    }
}

//! CF time: the `units` and `calendar` attributes with which netCDF files
//! and xarray's Zarr stores hold times as plain numbers.
//!
//! An instant is a count of a unit since an epoch (`hours since
//! 2000-01-01 12:00:00`), a duration a count of a unit (`seconds`). The
//! units are days, hours, minutes, seconds, milliseconds, microseconds
//! and nanoseconds (xarray's names, singular or plural, any case, and
//! cftime's short ones such as `sec` and `hrs`). The calendars are
//! `standard` (also `gregorian`, and the default), Julian before
//! 1582-10-15, and `proleptic_gregorian`, NumPy's. Other calendars
//! (`noleap`, `360_day`, `julian`, ...) count days that are not NumPy's and
//! are refused.
//!
//! ```
//! use ndl_runtime::time::{BaseUnit, CfTimeUnits, NumpyTimeUnit};
//!
//! let units = CfTimeUnits::parse("hours since 2000-01-01 12:00:00", Some("standard"))?;
//! let to_seconds = units.decoder(NumpyTimeUnit::new(BaseUnit::Seconds))?;
//! assert_eq!(to_seconds.decode(-12)?, 946_684_800); // 2000-01-01T00:00:00
//! assert_eq!(to_seconds.decode_f64(0.5)?, 946_728_000 + 1800);
//!
//! let ours = CfTimeUnits::datetime(BaseUnit::Nanos)?;
//! assert_eq!(ours.to_string(), "nanoseconds since 1970-01-01 00:00:00");
//!
//! let err = CfTimeUnits::parse("days since 2000-01-01", Some("noleap")).unwrap_err();
//! assert!(err.to_string().contains("calendar `noleap`"));
//! # Ok::<(), ndl_runtime::time::TimeError>(())
//! ```

mod encoding;
mod epoch;
mod values;

use std::fmt;

use super::calendar::civil_from_days;
use super::{BaseUnit, NumpyTimeUnit, TimeError, TimeKind};
use crate::TimeType;
pub use encoding::{CfEncoding, NAT, Unscalable, scale_count};
use epoch::CfCalendar;
pub use values::{CfCounts, CfValues, cf_time_type};

const ATTOS_PER_SECOND: i128 = 1_000_000_000_000_000_000;
const ATTOS_PER_DAY: i128 = 86_400 * ATTOS_PER_SECOND;

/// The CF `units` of a time variable: a unit, and for instants the epoch
/// they count from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CfTimeUnits {
    unit: BaseUnit,
    /// Attoseconds from 1970-01-01T00:00:00 UTC; `None` for durations.
    epoch: Option<i128>,
}

/// The CF name of each unit CF time can have, as xarray writes it, and the
/// other spellings read (xarray's singular, cftime's short ones).
const CF_UNITS: [(BaseUnit, &str, &[&str]); 7] = [
    (BaseUnit::Days, "days", &["day", "d"]),
    (BaseUnit::Hours, "hours", &["hour", "hr", "hrs", "h"]),
    (BaseUnit::Minutes, "minutes", &["minute", "min", "mins"]),
    (
        BaseUnit::Seconds,
        "seconds",
        &["second", "sec", "secs", "s"],
    ),
    (
        BaseUnit::Millis,
        "milliseconds",
        &[
            "millisecond",
            "millisec",
            "millisecs",
            "msec",
            "msecs",
            "ms",
        ],
    ),
    (
        BaseUnit::Micros,
        "microseconds",
        &[
            "microsecond",
            "microsec",
            "microsecs",
            "usec",
            "usecs",
            "us",
        ],
    ),
    (
        BaseUnit::Nanos,
        "nanoseconds",
        &["nanosecond", "nanosec", "nanosecs", "nsec", "nsecs", "ns"],
    ),
];

impl CfTimeUnits {
    /// The calendar of the units this type writes: NumPy's.
    pub const CALENDAR: &'static str = "proleptic_gregorian";

    /// Instants counted in `unit` since 1970-01-01 00:00:00, the CF units
    /// of NumPy's `datetime64` of that unit. Days to nanoseconds only: CF
    /// has no weeks, and xarray nothing finer than nanoseconds; years and
    /// months are not fixed lengths.
    pub fn datetime(unit: BaseUnit) -> Result<CfTimeUnits, TimeError> {
        cf_name(unit)?;
        Ok(CfTimeUnits {
            unit,
            epoch: Some(0),
        })
    }

    /// Durations counted in `unit`, the CF units of NumPy's `timedelta64`
    /// of that unit; days to nanoseconds, as for [`Self::datetime`].
    pub fn timedelta(unit: BaseUnit) -> Result<CfTimeUnits, TimeError> {
        cf_name(unit)?;
        Ok(CfTimeUnits { unit, epoch: None })
    }

    /// The CF units of a time datatype: [`Self::datetime`] or
    /// [`Self::timedelta`] of its unit, which must have a multiple of 1.
    ///
    /// ```
    /// use ndl_runtime::time::CfTimeUnits;
    ///
    /// let units = CfTimeUnits::of("M8[us]".parse()?)?;
    /// assert_eq!(units.to_string(), "microseconds since 1970-01-01 00:00:00");
    /// assert_eq!(CfTimeUnits::of("m8[h]".parse()?)?.to_string(), "hours");
    /// assert!(CfTimeUnits::of("M8[10ms]".parse()?).is_err());
    /// # Ok::<(), ndl_runtime::time::TimeError>(())
    /// ```
    pub fn of(t: TimeType) -> Result<CfTimeUnits, TimeError> {
        match CfTimeUnits::scaled(t)? {
            (units, 1) if t.unit.multiple() == 1 => Ok(units),
            _ => Err(TimeError::NoCfUnits(t.unit)),
        }
    }

    /// The CF units that hold values of a time datatype exactly, and how
    /// many of them one count of it is: the coarsest CF unit of which its
    /// unit is a whole number (`W` is 7 days, `10ms` 10 milliseconds,
    /// `1000ps` 1 nanosecond, `60s` 1 minute), since 1970-01-01 00:00:00
    /// for instants.
    ///
    /// Years and months (no fixed length), and units below nanoseconds
    /// that are no whole number of them (`ps`, `1500ps`), have none.
    ///
    /// ```
    /// use ndl_runtime::time::CfTimeUnits;
    ///
    /// let (units, factor) = CfTimeUnits::scaled("M8[W]".parse()?)?;
    /// assert_eq!((units.to_string().as_str(), factor), ("days since 1970-01-01 00:00:00", 7));
    /// let (units, factor) = CfTimeUnits::scaled("m8[10ms]".parse()?)?;
    /// assert_eq!((units.to_string().as_str(), factor), ("milliseconds", 10));
    /// assert!(CfTimeUnits::scaled("M8[ps]".parse()?).is_err());
    /// assert!(CfTimeUnits::scaled("M8[M]".parse()?).is_err());
    /// # Ok::<(), ndl_runtime::time::TimeError>(())
    /// ```
    pub fn scaled(t: TimeType) -> Result<(CfTimeUnits, i64), TimeError> {
        let (unit, factor) = t
            .unit
            .whole_in(&CF_UNITS.map(|u| u.0))
            .ok_or(TimeError::NoCfUnits(t.unit))?;
        let epoch = match t.kind {
            TimeKind::DateTime => Some(0),
            TimeKind::TimeDelta => None,
        };
        Ok((CfTimeUnits { unit, epoch }, factor))
    }

    /// The `comment` of a time stored as plain counts because CF has no
    /// units for it (years, months, units below nanoseconds).
    ///
    /// ```
    /// use ndl_runtime::time::CfTimeUnits;
    ///
    /// assert_eq!(
    ///     CfTimeUnits::counts_comment("M8[M]".parse()?),
    ///     "counts of NumPy datetime64[M] since 1970-01-01, a unit CF time has not"
    /// );
    /// # Ok::<(), ndl_runtime::time::TimeError>(())
    /// ```
    pub fn counts_comment(t: TimeType) -> String {
        let since = match t.kind {
            TimeKind::DateTime => " since 1970-01-01",
            TimeKind::TimeDelta => "",
        };
        format!(
            "counts of NumPy {}[{}]{since}, a unit CF time has not",
            t.kind.numpy_name(),
            t.unit
        )
    }

    /// Reads a CF `units` attribute, `<unit> since <epoch>` or `<unit>`,
    /// with the variable's `calendar` attribute, if it has one.
    ///
    /// The epoch is `Y-M-D`, then optionally a time `h:m:s.fraction` after
    /// a space or `T`, and a zone (`Z`, `UTC`, `+hh:mm`, `-6:00`, ...).
    pub fn parse(units: &str, calendar: Option<&str>) -> Result<CfTimeUnits, TimeError> {
        let not_cf = |why: &str| TimeError::NotCfUnits {
            units: units.to_owned(),
            why: why.to_owned(),
        };
        let calendar = CfCalendar::from_attribute(calendar)
            .ok_or_else(|| TimeError::Calendar(calendar.unwrap_or_default().trim().to_owned()))?;
        let text = units.trim();
        let (word, since) = match text.split_once(char::is_whitespace) {
            Some((word, rest)) => (word, Some(rest.trim_start())),
            None => (text, None),
        };
        let unit = from_cf_name(word).ok_or_else(|| {
            not_cf(&format!(
                "`{word}` is not a CF time unit (days, hours, minutes, seconds, \
                 milliseconds, microseconds, nanoseconds)"
            ))
        })?;
        let epoch = match since {
            None => None,
            Some(rest) => {
                let epoch = strip_word(rest, "since")
                    .ok_or_else(|| not_cf("expected `since <epoch>` after the unit"))?;
                Some(
                    epoch::parse(epoch, calendar).map_err(|why| TimeError::Epoch {
                        units: units.to_owned(),
                        why,
                    })?,
                )
            }
        };
        Ok(CfTimeUnits { unit, epoch })
    }

    /// Instants or durations.
    pub fn kind(&self) -> TimeKind {
        match self.epoch {
            Some(_) => TimeKind::DateTime,
            None => TimeKind::TimeDelta,
        }
    }

    /// The unit of the counts (days to nanoseconds).
    pub fn unit(&self) -> BaseUnit {
        self.unit
    }

    /// The coarsest unit, these units' own or finer, that both one step
    /// of them and their epoch's distance from 1970 are whole numbers of:
    /// the unit integer counts decode to exactly (`hours since
    /// 2000-01-01T00:00:00-03:30` counts whole minutes).
    pub fn exact_unit(&self) -> BaseUnit {
        use BaseUnit as U;
        let length = self.unit.attos().unwrap_or(1);
        let epoch = self.epoch.unwrap_or(0);
        [
            U::Days,
            U::Hours,
            U::Minutes,
            U::Seconds,
            U::Millis,
            U::Micros,
            U::Nanos,
        ]
        .into_iter()
        .chain([U::Picos, U::Femtos, U::Attos])
        .find(|u| {
            u.attos()
                .is_some_and(|a| a <= length && length % a == 0 && epoch % a == 0)
        })
        .unwrap_or(self.unit)
    }

    /// Converts counts of these units to counts of a NumPy unit, the same
    /// instants or durations. See [`CfDecoder`].
    ///
    /// Years and months, which are not fixed lengths, are refused.
    pub fn decoder(&self, to: NumpyTimeUnit) -> Result<CfDecoder, TimeError> {
        let to_attos = to.attos().ok_or(TimeError::CalendarUnit(to))?;
        let length = self.unit.attos().expect("CF units are fixed lengths");
        let epoch = self.epoch.unwrap_or(0);
        // Reduced by the common factor, so that the per-value arithmetic
        // stays small: counts of days to days multiply by 1.
        let g = gcd(gcd(length, to_attos), epoch);
        Ok(CfDecoder {
            units: *self,
            to,
            scale: length / g,
            offset: epoch / g,
            divisor: to_attos / g,
        })
    }
}

impl fmt::Display for CfTimeUnits {
    /// `seconds since 1970-01-01 00:00:00`, the epoch in UTC, for the
    /// calendar [`CfTimeUnits::CALENDAR`]; `seconds` for durations.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(cf_name(self.unit).expect("CF units have a name"))?;
        let Some(epoch) = self.epoch else {
            return Ok(());
        };
        let (year, month, day) = civil_from_days(epoch.div_euclid(ATTOS_PER_DAY));
        let of_day = epoch.rem_euclid(ATTOS_PER_DAY);
        let seconds = of_day / ATTOS_PER_SECOND;
        let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
        write!(
            f,
            " since {year:04}-{month:02}-{day:02} {h:02}:{m:02}:{s:02}"
        )?;
        let fraction = of_day % ATTOS_PER_SECOND;
        if fraction != 0 {
            let digits = format!("{fraction:018}");
            write!(f, ".{}", digits.trim_end_matches('0'))?;
        }
        Ok(())
    }
}

/// Converts CF counts to counts of a NumPy unit: made once per variable
/// by [`CfTimeUnits::decoder`], used for every value.
///
/// Integers convert exactly: a count that is not a whole number of the
/// target unit, or whose result does not fit an `i64` (or would be NaT),
/// is an error. Floats round to the nearest target count, ties to even;
/// NaN is NaT. Fill values are the caller's: a `_FillValue` maps to NaT
/// before decoding.
#[derive(Clone, Copy, Debug)]
pub struct CfDecoder {
    units: CfTimeUnits,
    to: NumpyTimeUnit,
    /// Counts become `(count * scale + offset) / divisor`.
    scale: i128,
    offset: i128,
    divisor: i128,
}

impl CfDecoder {
    /// The count of the target unit that `count` CF units make.
    pub fn decode(&self, count: i64) -> Result<i64, TimeError> {
        let exact = i128::from(count)
            .checked_mul(self.scale)
            .and_then(|n| n.checked_add(self.offset));
        let Some(n) = exact else {
            return Err(self.out_of_range(&count));
        };
        if n % self.divisor != 0 {
            return Err(TimeError::Inexact {
                value: format!("{count} {}", self.units),
                unit: match self.to.multiple() {
                    1 => self.to.unit().name().to_owned(),
                    _ => self.to.to_string(),
                },
            });
        }
        self.fit(n / self.divisor, &count)
    }

    /// The count of the target unit nearest to `value` CF units; NaN is
    /// NaT.
    pub fn decode_f64(&self, value: f64) -> Result<i64, TimeError> {
        if value.is_nan() {
            return Ok(NAT);
        }
        if !value.is_finite() {
            return Err(self.out_of_range(&value));
        }
        let rounded = self.round_exactly(value).unwrap_or_else(|| {
            // Beyond i128: such counts are far out of any i64 range, or so
            // small that f64 arithmetic rounds them as well.
            let n = value * self.scale as f64 + self.offset as f64;
            (n / self.divisor as f64).round_ties_even() as i128
        });
        self.fit(rounded, &value)
    }

    /// `value * scale + offset` over `divisor`, rounded half to even, in
    /// exact integer arithmetic: an f64 is `mantissa * 2^exponent`.
    fn round_exactly(&self, value: f64) -> Option<i128> {
        let (mantissa, exponent) = decompose(value);
        let (mut n, mut d) = (mantissa.checked_mul(self.scale)?, self.divisor);
        let mut offset = self.offset;
        if exponent >= 0 {
            n = n.checked_mul(power_of_two(exponent.unsigned_abs())?)?;
        } else {
            let shift = power_of_two(exponent.unsigned_abs())?;
            d = d.checked_mul(shift)?;
            offset = offset.checked_mul(shift)?;
        }
        let n = n.checked_add(offset)?;
        let (q, r) = (n.div_euclid(d), n.rem_euclid(d));
        let twice = r.checked_mul(2)?;
        Some(if twice > d || (twice == d && q % 2 != 0) {
            q + 1
        } else {
            q
        })
    }

    fn fit(&self, count: i128, source: &dyn fmt::Display) -> Result<i64, TimeError> {
        match i64::try_from(count) {
            Ok(c) if c != NAT => Ok(c),
            _ => Err(self.out_of_range(source)),
        }
    }

    fn out_of_range(&self, source: &dyn fmt::Display) -> TimeError {
        let kind = self.units.kind();
        TimeError::OutOfRange {
            value: format!("{source} {}", self.units),
            target: format!("{}[{}]", kind.numpy_name(), self.to),
        }
    }
}

/// `value` as `mantissa * 2^exponent`, exactly.
fn decompose(value: f64) -> (i128, i32) {
    let bits = value.to_bits();
    let sign = if bits >> 63 == 0 { 1 } else { -1 };
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = (bits & ((1 << 52) - 1)) as i128;
    let (mantissa, exponent) = if biased == 0 {
        (fraction, -1074) // subnormal
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    if mantissa == 0 {
        return (0, 0);
    }
    // Strip trailing zero bits so that integral values have no negative
    // exponent and the shifts stay small.
    let zeros = mantissa.trailing_zeros() as i32;
    (sign * (mantissa >> zeros), exponent + zeros)
}

/// `2^k`, if an `i128` holds it.
fn power_of_two(k: u32) -> Option<i128> {
    (k < 127).then(|| 1 << k)
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    (a, b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn cf_name(unit: BaseUnit) -> Result<&'static str, TimeError> {
    CF_UNITS
        .iter()
        .find(|u| u.0 == unit)
        .map(|u| u.1)
        .ok_or(TimeError::NoCfUnits(NumpyTimeUnit::new(unit)))
}

fn from_cf_name(word: &str) -> Option<BaseUnit> {
    let word = word.to_ascii_lowercase();
    CF_UNITS
        .iter()
        .find(|u| u.1 == word || u.2.contains(&word.as_str()))
        .map(|u| u.0)
}

/// `text` after the word `word` (any case) and the spaces after it.
fn strip_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let head = text.get(..word.len())?;
    let rest = &text[word.len()..];
    (head.eq_ignore_ascii_case(word) && rest.starts_with(char::is_whitespace))
        .then(|| rest.trim_start())
}

#[cfg(test)]
mod tests;

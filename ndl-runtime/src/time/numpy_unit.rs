//! NumPy's time units as plain data: any of its thirteen base units with a
//! multiple, and the `M8[10ms]` / `m8[s]` codes that name a time type.

use std::fmt;
use std::str::FromStr;

use super::TimeError;

/// One of NumPy's thirteen time units, without a multiple.
///
/// Ordered from the longest to the shortest, as NumPy orders them.
///
/// ```
/// use ndl_runtime::time::BaseUnit;
///
/// assert_eq!(BaseUnit::from_code("us"), Some(BaseUnit::Micros));
/// assert_eq!(BaseUnit::Micros.code(), "us");
/// assert_eq!(BaseUnit::Micros.name(), "microseconds");
/// assert_eq!(BaseUnit::Weeks.attos(), Some(7 * 86_400 * 10_i128.pow(18)));
/// assert_eq!(BaseUnit::Months.attos(), None); // a calendar unit
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BaseUnit {
    /// Calendar years (`Y`).
    Years,
    /// Calendar months (`M`).
    Months,
    /// Weeks of 7 days (`W`).
    Weeks,
    /// Days of 86 400 seconds (`D`).
    Days,
    /// Hours (`h`).
    Hours,
    /// Minutes (`m`).
    Minutes,
    /// Seconds (`s`).
    Seconds,
    /// Milliseconds (`ms`).
    Millis,
    /// Microseconds (`us`).
    Micros,
    /// Nanoseconds (`ns`).
    Nanos,
    /// Picoseconds (`ps`).
    Picos,
    /// Femtoseconds (`fs`).
    Femtos,
    /// Attoseconds (`as`).
    Attos,
}

/// Every unit with its NumPy code and the name NumPy's `str()` of a
/// timedelta64 gives it.
const UNITS: [(BaseUnit, &str, &str); 13] = [
    (BaseUnit::Years, "Y", "years"),
    (BaseUnit::Months, "M", "months"),
    (BaseUnit::Weeks, "W", "weeks"),
    (BaseUnit::Days, "D", "days"),
    (BaseUnit::Hours, "h", "hours"),
    (BaseUnit::Minutes, "m", "minutes"),
    (BaseUnit::Seconds, "s", "seconds"),
    (BaseUnit::Millis, "ms", "milliseconds"),
    (BaseUnit::Micros, "us", "microseconds"),
    (BaseUnit::Nanos, "ns", "nanoseconds"),
    (BaseUnit::Picos, "ps", "picoseconds"),
    (BaseUnit::Femtos, "fs", "femtoseconds"),
    (BaseUnit::Attos, "as", "attoseconds"),
];

const ATTOS_PER_SECOND: i128 = 1_000_000_000_000_000_000;

impl BaseUnit {
    /// Every unit, longest first.
    pub const ALL: [BaseUnit; 13] = [
        BaseUnit::Years,
        BaseUnit::Months,
        BaseUnit::Weeks,
        BaseUnit::Days,
        BaseUnit::Hours,
        BaseUnit::Minutes,
        BaseUnit::Seconds,
        BaseUnit::Millis,
        BaseUnit::Micros,
        BaseUnit::Nanos,
        BaseUnit::Picos,
        BaseUnit::Femtos,
        BaseUnit::Attos,
    ];

    /// NumPy's code: `Y`, `M`, `W`, `D`, `h`, `m`, `s`, `ms`, `us`, `ns`,
    /// `ps`, `fs` or `as`.
    pub const fn code(self) -> &'static str {
        UNITS[self as usize].1
    }

    /// The unit a NumPy code names. NumPy's `μs` is accepted for `us`.
    pub fn from_code(code: &str) -> Option<BaseUnit> {
        let code = if code == "μs" { "us" } else { code };
        UNITS.iter().find(|u| u.1 == code).map(|u| u.0)
    }

    /// The plural English name NumPy prints after a timedelta's count
    /// (`seconds`, even for one).
    pub const fn name(self) -> &'static str {
        UNITS[self as usize].2
    }

    /// The length of one unit in attoseconds, NumPy's shortest unit; `None`
    /// for years and months, whose length depends on the calendar.
    pub const fn attos(self) -> Option<i128> {
        let seconds = match self {
            BaseUnit::Years | BaseUnit::Months => return None,
            BaseUnit::Weeks => 7 * 86_400,
            BaseUnit::Days => 86_400,
            BaseUnit::Hours => 3_600,
            BaseUnit::Minutes => 60,
            BaseUnit::Seconds => 1,
            BaseUnit::Millis => return Some(ATTOS_PER_SECOND / 1_000),
            BaseUnit::Micros => return Some(ATTOS_PER_SECOND / 1_000_000),
            BaseUnit::Nanos => return Some(ATTOS_PER_SECOND / 1_000_000_000),
            BaseUnit::Picos => return Some(1_000_000),
            BaseUnit::Femtos => return Some(1_000),
            BaseUnit::Attos => return Some(1),
        };
        Some(seconds * ATTOS_PER_SECOND)
    }
}

/// Whether a time type holds instants (`datetime64`, NumPy kind `M`) or
/// durations (`timedelta64`, kind `m`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TimeKind {
    /// Instants: NumPy `datetime64`, `M8[...]`.
    DateTime,
    /// Durations: NumPy `timedelta64`, `m8[...]`.
    TimeDelta,
}

impl TimeKind {
    /// NumPy's kind character: `M` or `m`.
    pub const fn numpy_char(self) -> char {
        match self {
            TimeKind::DateTime => 'M',
            TimeKind::TimeDelta => 'm',
        }
    }

    /// The NDL extension's category name: `datetime` or `timedelta`, as in
    /// `{datetime: {unit: ns}}`.
    pub const fn ndl_name(self) -> &'static str {
        match self {
            TimeKind::DateTime => "datetime",
            TimeKind::TimeDelta => "timedelta",
        }
    }

    /// NumPy's type name: `datetime64` or `timedelta64`.
    pub const fn numpy_name(self) -> &'static str {
        match self {
            TimeKind::DateTime => "datetime64",
            TimeKind::TimeDelta => "timedelta64",
        }
    }
}

/// A NumPy time unit: a [`BaseUnit`] and a multiple, as in `M8[10ms]`.
///
/// Any NumPy time dtype has one, including those no
/// [`TimeUnit`](super::TimeUnit) marker types. The multiple is 1 to
/// 2 147 483 647 (NumPy keeps it in a C `int`); NumPy also accepts 0, which
/// describes no time at all, and this type refuses it.
///
/// ```
/// use ndl_runtime::time::{BaseUnit, NumpyTimeUnit, TimeKind};
///
/// let ten_ms = NumpyTimeUnit::with_multiple(BaseUnit::Millis, 10)?;
/// assert_eq!(ten_ms.to_string(), "10ms");
/// assert_eq!("10ms".parse::<NumpyTimeUnit>()?, ten_ms);
/// assert_eq!(ten_ms.code(TimeKind::DateTime), "M8[10ms]");
/// assert_eq!(
///     NumpyTimeUnit::parse_code("m8[s]")?,
///     (TimeKind::TimeDelta, NumpyTimeUnit::new(BaseUnit::Seconds))
/// );
///
/// let err = NumpyTimeUnit::parse_code("M8[fortnight]").unwrap_err();
/// assert!(err.to_string().contains("unknown NumPy time unit `fortnight`"));
/// assert!(NumpyTimeUnit::parse_code("M8[0s]").is_err());
/// # Ok::<(), ndl_runtime::time::TimeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NumpyTimeUnit {
    unit: BaseUnit,
    multiple: u32,
}

impl NumpyTimeUnit {
    /// The largest multiple NumPy reads.
    pub const MAX_MULTIPLE: u32 = i32::MAX as u32;

    /// The unit with multiple 1.
    pub const fn new(unit: BaseUnit) -> NumpyTimeUnit {
        NumpyTimeUnit { unit, multiple: 1 }
    }

    /// The unit with a multiple, which must be 1 to [`Self::MAX_MULTIPLE`].
    pub fn with_multiple(unit: BaseUnit, multiple: u32) -> Result<NumpyTimeUnit, TimeError> {
        if multiple == 0 || multiple > Self::MAX_MULTIPLE {
            return Err(TimeError::Multiple {
                code: format!("{multiple}{}", unit.code()),
                multiple: multiple.to_string(),
            });
        }
        Ok(NumpyTimeUnit { unit, multiple })
    }

    /// The base unit.
    pub const fn unit(self) -> BaseUnit {
        self.unit
    }

    /// How many base units one step is.
    pub const fn multiple(self) -> u32 {
        self.multiple
    }

    /// The length of one step in attoseconds; `None` for years and months.
    pub fn attos(self) -> Option<i128> {
        Some(self.unit.attos()? * i128::from(self.multiple))
    }

    /// The coarsest of `units` that one step of this unit is a whole
    /// number of, and that number: how a format that counts in fewer units
    /// (CF time, Arrow) holds this one exactly. `W` in days is 7 of them,
    /// `10ms` in seconds or milliseconds is 10 milliseconds. `None` when
    /// none of `units` divides a step (or the number is beyond an `i64`),
    /// and for years and months, which have no fixed length.
    ///
    /// ```
    /// use ndl_runtime::time::{BaseUnit, NumpyTimeUnit};
    ///
    /// let cf = [BaseUnit::Days, BaseUnit::Seconds, BaseUnit::Millis, BaseUnit::Nanos];
    /// let unit = |s: &str| s.parse::<NumpyTimeUnit>().unwrap().whole_in(&cf);
    /// assert_eq!(unit("W"), Some((BaseUnit::Days, 7)));
    /// assert_eq!(unit("10ms"), Some((BaseUnit::Millis, 10)));
    /// assert_eq!(unit("1000ps"), Some((BaseUnit::Nanos, 1)));
    /// assert_eq!(unit("ps"), None);
    /// assert_eq!(unit("M"), None);
    /// ```
    pub fn whole_in(self, units: &[BaseUnit]) -> Option<(BaseUnit, i64)> {
        let step = self.attos()?;
        units
            .iter()
            .filter_map(|&u| {
                let length = u.attos()?;
                let count = i64::try_from(step / length).ok()?;
                (step % length == 0).then_some((u, count, length))
            })
            .max_by_key(|&(_, _, length)| length)
            .map(|(u, count, _)| (u, count))
    }

    /// The NumPy code of a time type of this unit, without byte order:
    /// `M8[10ms]`, `m8[s]`.
    pub fn code(self, kind: TimeKind) -> String {
        format!("{}8[{self}]", kind.numpy_char())
    }

    /// Reads a NumPy time type code without byte order, `M8[10ms]` or
    /// `m8[s]`, into its kind and unit.
    ///
    /// Refused, with an error that quotes the code: other codes, a unit
    /// NumPy does not know (`M8[fortnight]`), a multiple of 0 or beyond
    /// [`Self::MAX_MULTIPLE`], and a time type without a unit (NumPy's
    /// generic `M8`, which holds nothing but NaT).
    pub fn parse_code(code: &str) -> Result<(TimeKind, NumpyTimeUnit), TimeError> {
        let kind = match code.get(..2) {
            Some("M8") => TimeKind::DateTime,
            Some("m8") => TimeKind::TimeDelta,
            _ => return Err(TimeError::NotATimeCode(code.to_owned())),
        };
        let rest = &code[2..];
        if rest.is_empty() {
            return Err(TimeError::NoUnit(code.to_owned()));
        }
        let inner = rest
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .ok_or_else(|| TimeError::NotATimeCode(code.to_owned()))?;
        Ok((kind, parse_unit(inner, code)?))
    }
}

impl fmt::Display for NumpyTimeUnit {
    /// NumPy's spelling: `ms`, `10ms` (a multiple of 1 is left out).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.multiple != 1 {
            write!(f, "{}", self.multiple)?;
        }
        f.write_str(self.unit.code())
    }
}

impl FromStr for NumpyTimeUnit {
    type Err = TimeError;

    /// Reads `ms` or `10ms`, the part of a code between the brackets.
    fn from_str(s: &str) -> Result<NumpyTimeUnit, TimeError> {
        parse_unit(s, s)
    }
}

/// Reads `[multiple]unit`; `code` is what the caller was given, quoted in
/// errors.
fn parse_unit(s: &str, code: &str) -> Result<NumpyTimeUnit, TimeError> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = s.split_at(digits);
    let unit = BaseUnit::from_code(unit).ok_or_else(|| TimeError::UnknownUnit {
        code: code.to_owned(),
        unit: unit.to_owned(),
    })?;
    if number.is_empty() {
        return Ok(NumpyTimeUnit::new(unit));
    }
    let out_of_range = || TimeError::Multiple {
        code: code.to_owned(),
        multiple: number.to_owned(),
    };
    // Many digits overflow `u32` parsing: out of range, like a large value.
    let multiple: u32 = number.parse().map_err(|_| out_of_range())?;
    NumpyTimeUnit::with_multiple(unit, multiple).map_err(|_| out_of_range())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for unit in BaseUnit::ALL {
            assert_eq!(BaseUnit::from_code(unit.code()), Some(unit));
            for multiple in [1, 10, NumpyTimeUnit::MAX_MULTIPLE] {
                let u = NumpyTimeUnit::with_multiple(unit, multiple).unwrap();
                for kind in [TimeKind::DateTime, TimeKind::TimeDelta] {
                    assert_eq!(NumpyTimeUnit::parse_code(&u.code(kind)).unwrap(), (kind, u));
                }
            }
        }
    }

    #[test]
    fn numpy_spellings_are_read() {
        let us = NumpyTimeUnit::new(BaseUnit::Micros);
        assert_eq!("μs".parse::<NumpyTimeUnit>().unwrap(), us);
        assert_eq!("1us".parse::<NumpyTimeUnit>().unwrap(), us);
        assert_eq!("010us".parse::<NumpyTimeUnit>().unwrap().multiple(), 10);
    }

    #[test]
    fn bad_codes_say_what_is_wrong() {
        let msg = |code: &str| NumpyTimeUnit::parse_code(code).unwrap_err().to_string();
        assert_eq!(
            msg("M8[fortnight]"),
            "unknown NumPy time unit `fortnight` in `M8[fortnight]`: \
             the units are Y M W D h m s ms us ns ps fs as, with an optional multiple such as `10ms`"
        );
        assert_eq!(
            msg("M8[0s]"),
            "multiple 0 in `M8[0s]` is out of range: a NumPy time unit's multiple is 1 to 2147483647"
        );
        assert!(msg("m8[2147483648s]").contains("multiple 2147483648"));
        assert!(msg("m8[99999999999999999999999s]").contains("out of range"));
        assert!(msg("M8").contains("has no unit"));
        assert!(msg("M8[]").contains("unknown NumPy time unit ``"));
        assert!(msg("M8[s/2]").contains("unknown NumPy time unit `s/2`"));
        assert!(msg("M8[-1s]").contains("unknown NumPy time unit `-1s`"));
        assert!(msg("M8[ 10s]").contains("unknown NumPy time unit ` 10s`"));
        assert!(msg("<M8[s]").contains("not a NumPy time type"));
        assert!(msg("M8[s").contains("not a NumPy time type"));
        assert!(msg("f8").contains("not a NumPy time type"));
        assert!(msg("").contains("not a NumPy time type"));
        assert!(msg("Mé").contains("not a NumPy time type"));
        assert!(NumpyTimeUnit::with_multiple(BaseUnit::Days, 0).is_err());
    }
}

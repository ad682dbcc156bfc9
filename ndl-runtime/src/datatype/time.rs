//! The time datatypes: NumPy's `datetime64` and `timedelta64` of any unit.

use std::fmt;

use super::Datatype;
use crate::time::{BaseUnit, NumpyTimeUnit, TimeError, TimeKind};

/// An extension datatype: a time value stored as a signed 64-bit count of
/// a unit, NumPy's `datetime64` (`M8[ns]`, since 1970-01-01T00:00:00 UTC)
/// or `timedelta64` (`m8[s]`), with `i64::MIN` as NaT.
///
/// Any NumPy unit and multiple can be described, not only those a Rust
/// marker types. Its byte order is a number's: that of the file, or of
/// the field in a `.npy` record of mixed orders.
///
/// ```
/// use ndl_runtime::time::{BaseUnit, NumpyTimeUnit, TimeKind};
/// use ndl_runtime::{Datatype, TimeType};
///
/// let t: TimeType = "M8[10ms]".parse()?;
/// assert_eq!(t.kind, TimeKind::DateTime);
/// assert_eq!(t.unit, NumpyTimeUnit::with_multiple(BaseUnit::Millis, 10)?);
/// assert_eq!(t.to_string(), "M8[10ms]");
/// assert_eq!(Datatype::Time(t).size(), Some(8));
/// # Ok::<(), ndl_runtime::time::TimeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeType {
    /// Instants or durations.
    pub kind: TimeKind,
    /// The unit of the count.
    pub unit: NumpyTimeUnit,
}

impl TimeType {
    /// Instants counted in `unit` since 1970-01-01T00:00:00 UTC.
    pub const fn datetime(unit: NumpyTimeUnit) -> TimeType {
        TimeType {
            kind: TimeKind::DateTime,
            unit,
        }
    }

    /// Durations counted in `unit`.
    pub const fn timedelta(unit: NumpyTimeUnit) -> TimeType {
        TimeType {
            kind: TimeKind::TimeDelta,
            unit,
        }
    }

    /// The datatype of the typed values of a [`TimeUnit`](crate::time::TimeUnit).
    pub(crate) const fn of(kind: TimeKind, unit: BaseUnit) -> Datatype {
        Datatype::Time(TimeType {
            kind,
            unit: NumpyTimeUnit::new(unit),
        })
    }
}

impl fmt::Display for TimeType {
    /// NumPy's code without byte order: `M8[ns]`, `m8[10ms]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}8[{}]", self.kind.numpy_char(), self.unit)
    }
}

impl std::str::FromStr for TimeType {
    type Err = TimeError;

    /// Reads NumPy's code without byte order: `M8[ns]`, `m8[10ms]`.
    fn from_str(code: &str) -> Result<TimeType, TimeError> {
        let (kind, unit) = NumpyTimeUnit::parse_code(code)?;
        Ok(TimeType { kind, unit })
    }
}

impl From<TimeType> for Datatype {
    fn from(t: TimeType) -> Datatype {
        Datatype::Time(t)
    }
}

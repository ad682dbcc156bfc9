//! Which Arrow type holds NumPy's time values, and which time type an
//! Arrow type written by others holds: plain mapping, below the schema
//! and the value conversions (`time.rs`) that both use it.

use arrow_schema::{DataType, TimeUnit};
use ndl_runtime::TimeType;
use ndl_runtime::time::{BaseUnit, NumpyTimeUnit, TimeKind};

use crate::error::Error;

/// Arrow's units, coarsest first, with their NumPy counterparts.
const ARROW_UNITS: [(TimeUnit, BaseUnit); 4] = [
    (TimeUnit::Second, BaseUnit::Seconds),
    (TimeUnit::Millisecond, BaseUnit::Millis),
    (TimeUnit::Microsecond, BaseUnit::Micros),
    (TimeUnit::Nanosecond, BaseUnit::Nanos),
];

/// The Arrow unit values of `t` are written in, and how many of it one
/// step of `t` is; `None` for units no Arrow unit divides.
pub(crate) fn arrow_unit(t: TimeType) -> Option<(TimeUnit, i64)> {
    let (base, factor) = t.unit.whole_in(&ARROW_UNITS.map(|(_, b)| b))?;
    let (unit, _) = ARROW_UNITS.iter().find(|(_, b)| *b == base)?;
    Some((*unit, factor))
}

/// The Arrow type of values of `t`, the column at `path`.
pub(crate) fn data_type(t: TimeType, path: &str) -> Result<DataType, Error> {
    let Some((unit, _)) = arrow_unit(t) else {
        let why = if t.unit.attos().is_none() {
            "calendar years and months have no fixed length, so no Arrow count holds them"
        } else {
            "it is no whole number of nanoseconds, Arrow's finest unit"
        };
        return Err(Error::schema(path, format!("the time type {t}: {why}")));
    };
    Ok(match t.kind {
        TimeKind::DateTime => DataType::Timestamp(unit, None),
        TimeKind::TimeDelta => DataType::Duration(unit),
    })
}

/// Whether the Arrow type of `t` alone gives it back.
pub(crate) fn says_it_all(t: TimeType) -> bool {
    arrow_unit(t).is_some_and(|(_, factor)| factor == 1) && t.unit.multiple() == 1
}

/// The time type of values of an Arrow type written by others.
pub(crate) fn time_type_of(t: &DataType) -> Option<TimeType> {
    let unit = |u: &TimeUnit| {
        let base = ARROW_UNITS.iter().find(|(a, _)| a == u).map(|&(_, b)| b)?;
        Some(NumpyTimeUnit::new(base))
    };
    Some(match t {
        DataType::Timestamp(u, _) => TimeType::datetime(unit(u)?),
        DataType::Duration(u) => TimeType::timedelta(unit(u)?),
        DataType::Date32 => TimeType::datetime(NumpyTimeUnit::new(BaseUnit::Days)),
        DataType::Date64 => TimeType::datetime(NumpyTimeUnit::new(BaseUnit::Millis)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(t: &str) -> Option<(TimeUnit, i64)> {
        arrow_unit(t.parse().unwrap())
    }

    #[test]
    fn each_numpy_unit_has_the_coarsest_arrow_unit_dividing_it() {
        assert_eq!(unit("M8[ns]"), Some((TimeUnit::Nanosecond, 1)));
        assert_eq!(unit("m8[s]"), Some((TimeUnit::Second, 1)));
        assert_eq!(unit("M8[D]"), Some((TimeUnit::Second, 86_400)));
        assert_eq!(unit("M8[W]"), Some((TimeUnit::Second, 7 * 86_400)));
        assert_eq!(unit("M8[10ms]"), Some((TimeUnit::Millisecond, 10)));
        assert_eq!(unit("M8[1500ms]"), Some((TimeUnit::Millisecond, 1500)));
        assert_eq!(unit("M8[1000ps]"), Some((TimeUnit::Nanosecond, 1)));
        assert_eq!(unit("M8[ps]"), None);
        assert_eq!(unit("M8[M]"), None);
        assert_eq!(unit("M8[Y]"), None);
        assert!(says_it_all("M8[us]".parse().unwrap()));
        assert!(!says_it_all("M8[1000ps]".parse().unwrap()));
        assert!(!says_it_all("M8[h]".parse().unwrap()));
    }
}

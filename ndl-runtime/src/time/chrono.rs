//! `chrono` conversions: `DateTime64` to and from `chrono::DateTime<Utc>`,
//! `TimeDelta64` to and from `chrono::TimeDelta`.
//!
//! Both go through an `i128` count of nanoseconds, which holds every value
//! of either side, and check the range of the side they go to.

use ::chrono::{DateTime, TimeDelta, Utc};

use super::{DateTime64, TimeDelta64, TimeError, TimeUnit};

const NANOS_PER_SECOND: i128 = 1_000_000_000;

/// Seconds and the nanoseconds after them, as chrono builds its types.
fn split(nanos: i128) -> Option<(i64, u32)> {
    let seconds = i64::try_from(nanos.div_euclid(NANOS_PER_SECOND)).ok()?;
    let sub = nanos.rem_euclid(NANOS_PER_SECOND) as u32; // 0..1e9: fits
    Some((seconds, sub))
}

/// Exact; NaT and instants beyond chrono's ±262 143 years are errors.
///
/// ```
/// use chrono::{DateTime, Utc};
/// use ndl_runtime::time::{DateTime64, Millis};
///
/// let t = DateTime64::<Millis>::new(1_795_608_000_250);
/// let c = DateTime::<Utc>::try_from(t)?;
/// assert_eq!(c.to_rfc3339(), "2026-11-25T12:00:00.250+00:00");
/// assert_eq!(DateTime64::<Millis>::try_from(c)?, t);
/// assert!(DateTime::<Utc>::try_from(DateTime64::<Millis>::NAT).is_err());
/// # Ok::<(), ndl_runtime::time::TimeError>(())
/// ```
impl<U: TimeUnit> TryFrom<DateTime64<U>> for DateTime<Utc> {
    type Error = TimeError;

    fn try_from(t: DateTime64<U>) -> Result<DateTime<Utc>, TimeError> {
        const TARGET: &str = "chrono::DateTime<Utc>";
        let nanos = t.nanos().ok_or(TimeError::NaT { target: TARGET })?;
        split(nanos)
            .and_then(|(seconds, sub)| DateTime::from_timestamp(seconds, sub))
            .ok_or_else(|| TimeError::OutOfRange {
                value: t.to_string(),
                target: TARGET.to_owned(),
            })
    }
}

/// Exact: an instant between two units (12:00:00.5 to seconds) or beyond
/// the unit's `i64` range is an error. A leap second (chrono's
/// `23:59:60`) counts as the second after it, as in
/// `DateTime::timestamp_nanos_opt`.
impl<U: TimeUnit> TryFrom<DateTime<Utc>> for DateTime64<U> {
    type Error = TimeError;

    fn try_from(t: DateTime<Utc>) -> Result<DateTime64<U>, TimeError> {
        let nanos =
            i128::from(t.timestamp()) * NANOS_PER_SECOND + i128::from(t.timestamp_subsec_nanos());
        DateTime64::from_nanos(nanos, &t)
    }
}

/// Exact; NaT and durations beyond chrono's ±`i64::MAX` milliseconds are
/// errors.
///
/// ```
/// use chrono::TimeDelta;
/// use ndl_runtime::time::{Micros, TimeDelta64};
///
/// let d = TimeDelta64::<Micros>::new(-1_500_000);
/// assert_eq!(TimeDelta::try_from(d)?, TimeDelta::milliseconds(-1500));
/// assert_eq!(TimeDelta64::<Micros>::try_from(TimeDelta::milliseconds(-1500))?, d);
/// # Ok::<(), ndl_runtime::time::TimeError>(())
/// ```
impl<U: TimeUnit> TryFrom<TimeDelta64<U>> for TimeDelta {
    type Error = TimeError;

    fn try_from(d: TimeDelta64<U>) -> Result<TimeDelta, TimeError> {
        const TARGET: &str = "chrono::TimeDelta";
        let nanos = d.nanos().ok_or(TimeError::NaT { target: TARGET })?;
        split(nanos)
            .and_then(|(seconds, sub)| TimeDelta::new(seconds, sub))
            .ok_or_else(|| TimeError::OutOfRange {
                value: d.to_string(),
                target: TARGET.to_owned(),
            })
    }
}

/// Exact: a duration that is not a whole number of units, or beyond the
/// unit's `i64` range, is an error.
impl<U: TimeUnit> TryFrom<TimeDelta> for TimeDelta64<U> {
    type Error = TimeError;

    fn try_from(d: TimeDelta) -> Result<TimeDelta64<U>, TimeError> {
        // `subsec_nanos` has the sign of the whole duration.
        let nanos = i128::from(d.num_seconds()) * NANOS_PER_SECOND + i128::from(d.subsec_nanos());
        TimeDelta64::from_nanos(nanos, &d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{Days, Micros, Nanos, Seconds};

    #[test]
    fn instants_round_trip_at_the_edges_of_nanoseconds() {
        for count in [i64::MIN + 1, -1, 0, 1, i64::MAX] {
            let t = DateTime64::<Nanos>::new(count);
            let c = DateTime::<Utc>::try_from(t).unwrap();
            assert_eq!(c.timestamp_nanos_opt(), Some(count));
            assert_eq!(DateTime64::<Nanos>::try_from(c).unwrap(), t);
        }
    }

    #[test]
    fn nat_and_overflow_are_errors() {
        let nat = DateTime::<Utc>::try_from(DateTime64::<Days>::NAT).unwrap_err();
        assert_eq!(nat.to_string(), "NaT has no chrono::DateTime<Utc> value");
        let far = DateTime::<Utc>::try_from(DateTime64::<Days>::new(i64::MAX)).unwrap_err();
        assert!(matches!(far, TimeError::OutOfRange { .. }), "{far}");
        assert!(TimeDelta::try_from(TimeDelta64::<Seconds>::new(i64::MAX)).is_err());
        assert!(TimeDelta::try_from(TimeDelta64::<Seconds>::NAT).is_err());

        // One nanosecond before i64::MIN ns is beyond the range, and
        // i64::MIN ns itself would be NaT.
        let min = DateTime::from_timestamp_nanos(i64::MIN);
        let err = DateTime64::<Nanos>::try_from(min).unwrap_err();
        assert_eq!(
            err.to_string(),
            "1677-09-21 00:12:43.145224192 UTC is outside the range of DateTime64<Nanos>"
        );
        let err = TimeDelta64::<Nanos>::try_from(TimeDelta::MAX).unwrap_err();
        assert!(matches!(err, TimeError::OutOfRange { .. }), "{err}");
    }

    #[test]
    fn a_value_between_units_is_refused() {
        let half = DateTime::from_timestamp(1, 500_000_000).unwrap();
        let err = DateTime64::<Seconds>::try_from(half).unwrap_err();
        assert_eq!(
            err.to_string(),
            "1970-01-01 00:00:01.500 UTC is not a whole number of seconds"
        );
        let d = TimeDelta::nanoseconds(-1_500);
        assert!(TimeDelta64::<Micros>::try_from(d).is_err());
        assert_eq!(
            TimeDelta64::<Nanos>::try_from(d).unwrap(),
            TimeDelta64::new(-1_500)
        );
    }

    #[test]
    fn negative_durations_keep_their_sign() {
        for nanos in [-1, -999_999_999, -1_000_000_001, 1_000_000_001] {
            let d = TimeDelta64::<Nanos>::new(nanos);
            let c = TimeDelta::try_from(d).unwrap();
            assert_eq!(c.num_nanoseconds(), Some(nanos));
            assert_eq!(TimeDelta64::<Nanos>::try_from(c).unwrap(), d);
        }
    }
}

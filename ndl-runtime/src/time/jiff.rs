//! `jiff` conversions: `DateTime64` to and from `jiff::Timestamp`,
//! `TimeDelta64` to and from `jiff::SignedDuration`.
//!
//! Both go through jiff's `i128` nanosecond counts, which hold every value
//! of either side, and check the range of the side they go to.

use ::jiff::{SignedDuration, Timestamp};

use super::{DateTime64, TimeDelta64, TimeError, TimeUnit};

/// Exact; NaT and instants beyond jiff's years -9999 to 9999 are errors.
///
/// ```
/// use jiff::Timestamp;
/// use ndl_runtime::time::{DateTime64, Micros};
///
/// let t = DateTime64::<Micros>::new(1_795_608_000_000_001);
/// let j = Timestamp::try_from(t)?;
/// assert_eq!(j.to_string(), "2026-11-25T12:00:00.000001Z");
/// assert_eq!(DateTime64::<Micros>::try_from(j)?, t);
/// assert!(Timestamp::try_from(DateTime64::<Micros>::NAT).is_err());
/// # Ok::<(), ndl_runtime::time::TimeError>(())
/// ```
impl<U: TimeUnit> TryFrom<DateTime64<U>> for Timestamp {
    type Error = TimeError;

    fn try_from(t: DateTime64<U>) -> Result<Timestamp, TimeError> {
        const TARGET: &str = "jiff::Timestamp";
        let nanos = t.nanos().ok_or(TimeError::NaT { target: TARGET })?;
        Timestamp::from_nanosecond(nanos).map_err(|_| TimeError::OutOfRange {
            value: t.to_string(),
            target: TARGET.to_owned(),
        })
    }
}

/// Exact: an instant between two units or beyond the unit's `i64` range
/// is an error.
impl<U: TimeUnit> TryFrom<Timestamp> for DateTime64<U> {
    type Error = TimeError;

    fn try_from(t: Timestamp) -> Result<DateTime64<U>, TimeError> {
        DateTime64::from_nanos(t.as_nanosecond(), &t)
    }
}

/// Exact; NaT and durations beyond jiff's ±`i64::MAX` seconds are errors.
///
/// ```
/// use jiff::SignedDuration;
/// use ndl_runtime::time::{Hours, TimeDelta64};
///
/// let d = TimeDelta64::<Hours>::new(-36);
/// assert_eq!(SignedDuration::try_from(d)?, SignedDuration::from_hours(-36));
/// assert_eq!(TimeDelta64::<Hours>::try_from(SignedDuration::from_hours(-36))?, d);
/// # Ok::<(), ndl_runtime::time::TimeError>(())
/// ```
impl<U: TimeUnit> TryFrom<TimeDelta64<U>> for SignedDuration {
    type Error = TimeError;

    fn try_from(d: TimeDelta64<U>) -> Result<SignedDuration, TimeError> {
        const TARGET: &str = "jiff::SignedDuration";
        let nanos = d.nanos().ok_or(TimeError::NaT { target: TARGET })?;
        SignedDuration::try_from_nanos_i128(nanos).ok_or_else(|| TimeError::OutOfRange {
            value: d.to_string(),
            target: TARGET.to_owned(),
        })
    }
}

/// Exact: a duration that is not a whole number of units, or beyond the
/// unit's `i64` range, is an error.
impl<U: TimeUnit> TryFrom<SignedDuration> for TimeDelta64<U> {
    type Error = TimeError;

    fn try_from(d: SignedDuration) -> Result<TimeDelta64<U>, TimeError> {
        TimeDelta64::from_nanos(d.as_nanos(), &d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{Days, Millis, Nanos, Seconds};

    #[test]
    fn instants_round_trip() {
        for count in [i64::MIN + 1, -1, 0, 1, i64::MAX] {
            let t = DateTime64::<Nanos>::new(count);
            let j = Timestamp::try_from(t).unwrap();
            assert_eq!(j.as_nanosecond(), i128::from(count));
            assert_eq!(DateTime64::<Nanos>::try_from(j).unwrap(), t);
        }
        for t in [Timestamp::MIN, Timestamp::MAX] {
            let err = DateTime64::<Nanos>::try_from(t).unwrap_err();
            assert!(matches!(err, TimeError::OutOfRange { .. }), "{err}");
        }
        let err = DateTime64::<Days>::try_from(Timestamp::MIN).unwrap_err();
        assert!(matches!(err, TimeError::Inexact { .. }), "{err}");
        let first_day = (Timestamp::MIN.as_second().div_euclid(86_400) + 1) * 86_400;
        let t = Timestamp::from_second(first_day).unwrap();
        let days = DateTime64::<Days>::try_from(t).unwrap();
        assert_eq!(days.to_string(), "-9999-01-03");
        assert_eq!(Timestamp::try_from(days).unwrap(), t);
    }

    #[test]
    fn nat_overflow_and_fractions_are_errors() {
        let nat = Timestamp::try_from(DateTime64::<Days>::NAT).unwrap_err();
        assert_eq!(nat.to_string(), "NaT has no jiff::Timestamp value");
        let far = Timestamp::try_from(DateTime64::<Days>::new(3_000_000)).unwrap_err();
        assert_eq!(
            far.to_string(),
            "10183-09-21 is outside the range of jiff::Timestamp"
        );
        assert!(SignedDuration::try_from(TimeDelta64::<Days>::new(i64::MAX)).is_err());
        assert!(SignedDuration::try_from(TimeDelta64::<Days>::NAT).is_err());
        let err = TimeDelta64::<Seconds>::try_from(SignedDuration::from_millis(1500)).unwrap_err();
        assert_eq!(err.to_string(), "PT1.5S is not a whole number of seconds");
        assert_eq!(
            TimeDelta64::<Millis>::try_from(SignedDuration::from_millis(-1500)).unwrap(),
            TimeDelta64::new(-1500)
        );
        let err = TimeDelta64::<Nanos>::try_from(SignedDuration::MAX).unwrap_err();
        assert!(matches!(err, TimeError::OutOfRange { .. }), "{err}");
    }
}

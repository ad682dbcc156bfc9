//! Time values as NumPy stores them: [`DateTime64`] (an instant) and
//! [`TimeDelta64`] (a duration), each a count of a unit in an `i64`.
//!
//! The unit is a type: `DateTime64<Seconds>` counts seconds since
//! 1970-01-01T00:00:00 UTC, `TimeDelta64<Nanos>` nanoseconds. The markers
//! are [`Days`], [`Hours`], [`Minutes`], [`Seconds`], [`Millis`],
//! [`Micros`] and [`Nanos`]. NumPy's Not-a-Time, the smallest `i64`, is
//! [`DateTime64::NAT`].
//!
//! ```
//! use ndl_runtime::time::{DateTime64, Nanos, Seconds, TimeDelta64};
//!
//! let t = DateTime64::<Nanos>::new(1_795_608_000_000_000_001);
//! assert_eq!(t.to_string(), "2026-11-25T12:00:00.000000001");
//! assert_eq!(format!("{t:?}"), "DateTime64<Nanos>(2026-11-25T12:00:00.000000001)");
//! assert_eq!(TimeDelta64::<Seconds>::new(90).to_string(), "90 seconds");
//! assert!(DateTime64::<Seconds>::NAT.is_nat());
//! assert_eq!(DateTime64::<Seconds>::NAT.to_string(), "NaT");
//! ```
//!
//! Any NumPy time unit, including those no marker types (years, months,
//! weeks, picoseconds and below) and multiples such as `M8[10ms]`, is
//! described as plain data by a [`NumpyTimeUnit`].
//!
//! With the `chrono` feature, [`DateTime64`] and [`TimeDelta64`] convert
//! both ways to `chrono::DateTime<Utc>` and `chrono::TimeDelta`; with
//! `jiff`, to `jiff::Timestamp` and `jiff::SignedDuration`. The
//! conversions are `TryFrom`, exact or refused: NaT, a value out of the
//! other type's range and a value that is not a whole number of the unit
//! are errors ([`TimeError`]), never a panic, a wrap or a rounding.

mod calendar;
mod cf;
#[cfg(feature = "chrono")]
mod chrono;
mod display;
mod error;
#[cfg(feature = "jiff")]
mod jiff;
mod numpy_unit;
mod unit;

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

pub use cf::{
    CfCounts, CfDecoder, CfEncoding, CfTimeUnits, CfValues, NAT, Unscalable, cf_time_type,
    scale_count,
};
pub use error::TimeError;
pub use numpy_unit::{BaseUnit, NumpyTimeUnit, TimeKind};
pub use unit::{Days, Hours, Micros, Millis, Minutes, Nanos, Seconds, TimeUnit};

use crate::{Datatype, NdlType, TimeType};
use display::{DateTimeStr, TimeDeltaStr};

impl NumpyTimeUnit {
    /// A datetime count of this unit, displayed as NumPy's `str()` of
    /// `np.datetime64(count, unit)`.
    ///
    /// Where NumPy's own `i64` arithmetic overflows (a count times a large
    /// multiple, the lowest day counts) NumPy prints a wrapped date; this
    /// prints the true one.
    ///
    /// ```
    /// use ndl_runtime::time::NumpyTimeUnit;
    ///
    /// let unit: NumpyTimeUnit = "10ms".parse()?;
    /// assert_eq!(unit.display_datetime(-1).to_string(), "1969-12-31T23:59:59.990");
    /// let months: NumpyTimeUnit = "M".parse()?;
    /// assert_eq!(months.display_datetime(682).to_string(), "2026-11");
    /// # Ok::<(), ndl_runtime::time::TimeError>(())
    /// ```
    pub fn display_datetime(self, count: i64) -> impl fmt::Display {
        DateTimeStr { count, unit: self }
    }

    /// A timedelta count of this unit, displayed as NumPy's `str()` of
    /// `np.timedelta64(count, unit)`: the count in the base unit and its
    /// name.
    ///
    /// ```
    /// use ndl_runtime::time::NumpyTimeUnit;
    ///
    /// let unit: NumpyTimeUnit = "10ms".parse()?;
    /// assert_eq!(unit.display_timedelta(-3).to_string(), "-30 milliseconds");
    /// assert_eq!(unit.display_timedelta(i64::MIN).to_string(), "NaT");
    /// # Ok::<(), ndl_runtime::time::TimeError>(())
    /// ```
    pub fn display_timedelta(self, count: i64) -> impl fmt::Display {
        TimeDeltaStr { count, unit: self }
    }
}

/// Both time types: the same `i64` with a different meaning.
macro_rules! time_type {
    (
        $(#[$doc:meta])*
        $name:ident, $kind:ident, $str:ident, $what:literal
    ) => {
        $(#[$doc])*
        #[repr(transparent)]
        pub struct $name<U: TimeUnit> {
            count: i64,
            unit: PhantomData<U>,
        }

        impl<U: TimeUnit> $name<U> {
            /// NumPy's Not-a-Time: `i64::MIN`. It equals itself and sorts
            /// before every other value (NumPy's NaT compares unequal to
            /// everything, and sorts last).
            pub const NAT: $name<U> = $name::new(display::NAT);

            #[doc = concat!("The ", $what, " of `count` units.")]
            /// `i64::MIN` is NaT.
            pub const fn new(count: i64) -> $name<U> {
                $name { count, unit: PhantomData }
            }

            /// The count of units, as stored (`i64::MIN` for NaT).
            pub const fn count(self) -> i64 {
                self.count
            }

            /// Whether this is NaT.
            pub const fn is_nat(self) -> bool {
                self.count == display::NAT
            }

            /// The count in nanoseconds; `None` for NaT.
            #[allow(dead_code)] // used by the optional conversions only
            fn nanos(self) -> Option<i128> {
                (!self.is_nat()).then(|| i128::from(self.count) * i128::from(U::NANOS))
            }

            /// The value `nanos` nanoseconds make; the error says whether
            /// it is not a whole number of units or out of range (which
            /// includes the count that would be NaT). `value` prints the
            /// source value for the error.
            #[allow(dead_code)] // used by the optional conversions only
            fn from_nanos(nanos: i128, value: &dyn fmt::Display) -> Result<$name<U>, TimeError> {
                let unit = i128::from(U::NANOS);
                if nanos % unit != 0 {
                    return Err(TimeError::Inexact {
                        value: value.to_string(),
                        unit: U::UNIT.name().to_owned(),
                    });
                }
                match i64::try_from(nanos / unit) {
                    Ok(count) if count != display::NAT => Ok($name::new(count)),
                    _ => Err(TimeError::OutOfRange {
                        value: value.to_string(),
                        target: format!(concat!(stringify!($name), "<{}>"), U::NAME),
                    }),
                }
            }
        }

        impl<U: TimeUnit> Clone for $name<U> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<U: TimeUnit> Copy for $name<U> {}

        impl<U: TimeUnit> PartialEq for $name<U> {
            fn eq(&self, other: &Self) -> bool {
                self.count == other.count
            }
        }

        impl<U: TimeUnit> Eq for $name<U> {}

        impl<U: TimeUnit> PartialOrd for $name<U> {
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                Some(self.cmp(other))
            }
        }

        impl<U: TimeUnit> Ord for $name<U> {
            fn cmp(&self, other: &Self) -> Ordering {
                self.count.cmp(&other.count)
            }
        }

        impl<U: TimeUnit> Hash for $name<U> {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.count.hash(state);
            }
        }

        impl<U: TimeUnit> fmt::Display for $name<U> {
            /// As NumPy's `str()` prints the same value.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let unit = NumpyTimeUnit::new(U::UNIT);
                fmt::Display::fmt(&$str { count: self.count, unit }, f)
            }
        }

        impl<U: TimeUnit> fmt::Debug for $name<U> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "<{}>({})"), U::NAME, self)
            }
        }

        // SAFETY: `repr(transparent)` over an `i64`, which is what a time
        // datatype describes (8 bytes, 8-aligned); every bit pattern is a
        // valid value.
        unsafe impl<U: TimeUnit> NdlType for $name<U> {
            fn datatype() -> Datatype {
                TimeType::of(TimeKind::$kind, U::UNIT)
            }
        }

        // SAFETY: `repr(transparent)` over an `i64` (the `PhantomData` is a
        // zero-sized, 1-aligned field), every bit pattern of which is a
        // valid value (`i64::MIN` is NaT); all zeros is the epoch or zero.
        unsafe impl<U: TimeUnit> bytemuck::Zeroable for $name<U> {}
        // SAFETY: as above; no padding, no pointers, `Copy + 'static`.
        unsafe impl<U: TimeUnit> bytemuck::Pod for $name<U> {}
    };
}

time_type! {
    /// An instant: a count of `U` since 1970-01-01T00:00:00 UTC, NumPy's
    /// `datetime64` (`M8[s]` for `DateTime64<Seconds>`).
    ///
    /// `#[repr(transparent)]` over `i64`, so a record holds it exactly as
    /// NumPy does. `Display` prints what NumPy's `str()` prints: ISO 8601
    /// to the precision of the unit, a bare date for days, `NaT` for NaT.
    ///
    /// ```
    /// use ndl_runtime::time::{DateTime64, Days, Seconds};
    ///
    /// let noon = DateTime64::<Seconds>::new(1_795_608_000);
    /// assert_eq!(noon.to_string(), "2026-11-25T12:00:00");
    /// assert_eq!(noon.count(), 1_795_608_000);
    /// assert_eq!(DateTime64::<Days>::new(-1).to_string(), "1969-12-31");
    /// assert!(DateTime64::<Days>::NAT < DateTime64::<Days>::new(i64::MIN + 1));
    /// ```
    DateTime64, DateTime, DateTimeStr, "instant"
}

time_type! {
    /// A duration: a count of `U`, NumPy's `timedelta64` (`m8[s]` for
    /// `TimeDelta64<Seconds>`).
    ///
    /// `#[repr(transparent)]` over `i64`. `Display` prints what NumPy's
    /// `str()` prints: the count and the unit's plural name.
    ///
    /// ```
    /// use ndl_runtime::time::{Millis, TimeDelta64};
    ///
    /// let d = TimeDelta64::<Millis>::new(-1500);
    /// assert_eq!(d.to_string(), "-1500 milliseconds");
    /// assert_eq!(format!("{d:?}"), "TimeDelta64<Millis>(-1500 milliseconds)");
    /// assert_eq!(TimeDelta64::<Millis>::NAT.to_string(), "NaT");
    /// ```
    TimeDelta64, TimeDelta, TimeDeltaStr, "duration"
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn layout_is_an_i64() {
        assert_eq!(std::mem::size_of::<DateTime64<Nanos>>(), 8);
        assert_eq!(std::mem::align_of::<TimeDelta64<Days>>(), 8);
        let v = [DateTime64::<Seconds>::new(1), DateTime64::NAT];
        let bytes: &[u8] = bytemuck::cast_slice(&v);
        assert_eq!(&bytes[..8], &1i64.to_ne_bytes());
        assert_eq!(&bytes[8..], &i64::MIN.to_ne_bytes());
        let back: &[DateTime64<Seconds>] = bytemuck::cast_slice(bytes);
        assert_eq!(back, v);
    }

    #[test]
    fn order_equality_and_hash_follow_the_count() {
        let a = TimeDelta64::<Micros>::new(-5);
        let b = TimeDelta64::<Micros>::new(7);
        assert!(TimeDelta64::<Micros>::NAT < a && a < b);
        assert_eq!(a.max(b), b);
        let set: HashSet<_> = [a, b, a, TimeDelta64::NAT, TimeDelta64::NAT].into();
        assert_eq!(set.len(), 3);
        assert_eq!(TimeDelta64::<Micros>::NAT, TimeDelta64::<Micros>::NAT);
    }

    #[test]
    fn debug_names_the_type_and_unit() {
        assert_eq!(
            format!("{:?}", DateTime64::<Days>::new(20_417)),
            "DateTime64<Days>(2025-11-25)"
        );
        assert_eq!(
            format!("{:?}", DateTime64::<Hours>::NAT),
            "DateTime64<Hours>(NaT)"
        );
        assert_eq!(
            format!("{:?}", TimeDelta64::<Minutes>::new(1)),
            "TimeDelta64<Minutes>(1 minutes)"
        );
    }
}

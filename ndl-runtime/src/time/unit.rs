//! The unit markers that type a time value: `DateTime64<Seconds>` counts
//! seconds, `TimeDelta64<Nanos>` nanoseconds.

use std::fmt::Debug;
use std::hash::Hash;

use super::BaseUnit;

/// The unit of a typed time value: one of [`Days`], [`Hours`],
/// [`Minutes`], [`Seconds`], [`Millis`], [`Micros`] and [`Nanos`].
///
/// Sealed: these are the units with a fixed length that `i64` nanosecond
/// arithmetic reaches. NumPy's other units (years and months, which are
/// calendar units, weeks, picoseconds and below) and multiples such as
/// `10ms` are described by a [`NumpyTimeUnit`](super::NumpyTimeUnit), as
/// plain data.
///
/// ```
/// use ndl_runtime::time::{BaseUnit, Millis, TimeUnit};
///
/// assert_eq!(Millis::UNIT, BaseUnit::Millis);
/// assert_eq!(Millis::UNIT.code(), "ms");
/// assert_eq!(Millis::NANOS, 1_000_000);
/// ```
// The supertraits let `#[derive(Clone, PartialEq, ...)]` work on a user's
// struct generic over its unit, and keep the values `Send + Sync`.
pub trait TimeUnit:
    Copy + Debug + Eq + Ord + Hash + Send + Sync + 'static + sealed::Sealed
{
    /// NumPy's unit (its code is [`BaseUnit::code`]: `D`, `h`, `m`, `s`,
    /// `ms`, `us`, `ns`).
    const UNIT: BaseUnit;
    /// The length of one unit in nanoseconds, the base unit of the markers.
    const NANOS: i64;
    /// The marker's Rust name, for `Debug`.
    const NAME: &'static str;
}

mod sealed {
    /// Only this module's markers are units.
    pub trait Sealed {}
}

macro_rules! units {
    ($($(#[$doc:meta])* $name:ident => $unit:ident, $nanos:expr;)*) => {$(
        $(#[$doc])*
        ///
        /// A type, never a value: it is uninhabited.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {}

        impl sealed::Sealed for $name {}

        impl TimeUnit for $name {
            const UNIT: BaseUnit = BaseUnit::$unit;
            const NANOS: i64 = $nanos;
            const NAME: &'static str = stringify!($name);
        }
    )*};
}

units! {
    /// Days of 86 400 seconds (NumPy `D`).
    Days => Days, 86_400_000_000_000;
    /// Hours (NumPy `h`).
    Hours => Hours, 3_600_000_000_000;
    /// Minutes (NumPy `m`).
    Minutes => Minutes, 60_000_000_000;
    /// Seconds (NumPy `s`).
    Seconds => Seconds, 1_000_000_000;
    /// Milliseconds (NumPy `ms`).
    Millis => Millis, 1_000_000;
    /// Microseconds (NumPy `us`).
    Micros => Micros, 1_000;
    /// Nanoseconds (NumPy `ns`).
    Nanos => Nanos, 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_agree_with_the_numpy_units() {
        fn check<U: TimeUnit>() {
            assert_eq!(U::UNIT.attos(), Some(i128::from(U::NANOS) * 1_000_000_000));
            assert_eq!(U::NAME, format!("{:?}", U::UNIT));
        }
        check::<Days>();
        check::<Hours>();
        check::<Minutes>();
        check::<Seconds>();
        check::<Millis>();
        check::<Micros>();
        check::<Nanos>();
    }
}

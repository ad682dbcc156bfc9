//! The one way a time field is stored as CF time, and the one way CF time
//! is read back into a field: every format that writes CF attributes
//! (netCDF-4, Zarr's columns layout) goes through here.

use super::{CfCounts, CfTimeUnits, CfValues};
use crate::time::{TimeError, TimeKind};
use crate::{ByteOrder, Datatype, TimeType};

/// NumPy's Not-a-Time, the smallest `i64`: the `_FillValue` of every time
/// variable written, and the count scaling leaves alone.
pub const NAT: i64 = i64::MIN;

/// How counts of a time type are stored as CF time.
///
/// The rule for units CF cannot name: where the unit is a whole number of
/// a CF unit (`W` is 7 days, `10ms` is 10 milliseconds), the counts are
/// multiplied into that unit, so xarray and netCDF readers decode them,
/// and the multiplication is exact or refused; where it is none (years,
/// months, units below nanoseconds), the counts are kept as they are, with
/// a `comment` naming the NumPy unit.
///
/// ```
/// use ndl_runtime::time::CfEncoding;
/// use ndl_runtime::ByteOrder;
///
/// let weeks = CfEncoding::of("M8[W]".parse()?);
/// assert_eq!(weeks.factor(), 7);
/// assert_eq!(
///     weeks.attributes(),
///     [("calendar", "proleptic_gregorian".to_string()),
///      ("units", "days since 1970-01-01 00:00:00".to_string())]
/// );
/// let mut counts: Vec<u8> = [2i64, i64::MIN].iter().flat_map(|c| c.to_ne_bytes()).collect();
/// weeks.scale(&mut counts, ByteOrder::NATIVE).unwrap();
/// assert_eq!(counts[..8], 14i64.to_ne_bytes()); // NaT stays NaT
///
/// let months = CfEncoding::of("M8[M]".parse()?);
/// assert_eq!((months.factor(), months.attributes()[0].0), (1, "comment"));
/// # Ok::<(), ndl_runtime::time::TimeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CfEncoding {
    time: TimeType,
    /// The CF units and how many of them one count is; `None` where CF
    /// has no unit the counts are a whole number of.
    units: Option<(CfTimeUnits, i64)>,
}

/// A count whose product with an encoding's factor is beyond an `i64`
/// (or would read back as NaT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unscalable {
    /// Its index among the counts scaled.
    pub index: usize,
    /// The count.
    pub count: i64,
}

impl CfEncoding {
    /// The encoding of counts of `time`.
    pub fn of(time: TimeType) -> CfEncoding {
        CfEncoding {
            time,
            units: CfTimeUnits::scaled(time).ok(),
        }
    }

    /// What one stored count is of a field's count: 1 where the counts are
    /// stored as they are.
    pub fn factor(&self) -> i64 {
        self.units.map_or(1, |(_, factor)| factor)
    }

    /// The CF units the counts are stored in, where there are some.
    pub fn units(&self) -> Option<CfTimeUnits> {
        self.units.map(|(units, _)| units)
    }

    /// The variable's text attributes: `units` with `calendar` for
    /// instants (xarray's `dtype` for durations), or, where CF has no
    /// units, a `comment` naming the counts. The `_FillValue` is [`NAT`].
    pub fn attributes(&self) -> Vec<(&'static str, String)> {
        let Some((units, _)) = self.units else {
            return vec![("comment", CfTimeUnits::counts_comment(self.time))];
        };
        let second = match self.time.kind {
            TimeKind::DateTime => ("calendar", CfTimeUnits::CALENDAR.to_string()),
            TimeKind::TimeDelta => ("dtype", format!("timedelta64[{}]", units.unit().code())),
        };
        vec![second, ("units", units.to_string())]
    }

    /// Multiplies the counts (8 bytes each, in `order`) by [`factor`]
    /// in place, NaT staying NaT. Checks every count first, so an error
    /// leaves them all as they were.
    ///
    /// [`factor`]: CfEncoding::factor
    pub fn scale(&self, counts: &mut [u8], order: ByteOrder) -> Result<(), Unscalable> {
        let factor = self.factor();
        if factor == 1 {
            return Ok(());
        }
        let read = |v: &[u8]| order.read_i64(v.try_into().expect("8 bytes"));
        if let Some((index, count)) = counts
            .chunks_exact(8)
            .map(read)
            .enumerate()
            .find(|&(_, c)| scale_count(c, factor).is_none())
        {
            return Err(Unscalable { index, count });
        }
        for v in counts.chunks_exact_mut(8) {
            let scaled = scale_count(read(v), factor).expect("checked above");
            v.copy_from_slice(&order.write_i64(scaled));
        }
        Ok(())
    }

    /// Why `u` cannot be stored, for an error naming its record and field.
    pub fn unscalable_message(&self, u: Unscalable) -> String {
        let units = self.units().map(|u| u.to_string()).unwrap_or_default();
        format!(
            "{} of {} is {} in the variable's CF units ({units}), beyond an int64",
            u.count,
            self.time,
            i128::from(u.count) * i128::from(self.factor()),
        )
    }
}

/// `count` times `factor`, exactly: NaT stays NaT; `None` beyond an `i64`
/// or where the product would read back as NaT.
pub fn scale_count(count: i64, factor: i64) -> Option<i64> {
    if count == NAT {
        return Some(NAT);
    }
    count.checked_mul(factor).filter(|&p| p != NAT)
}

impl CfValues {
    /// How a variable `stored` as `stored`, with the CF attributes `units`,
    /// `calendar` and `fill` (its `_FillValue` or `missing_value`, a list
    /// of one as netCDF-C writes them, too), decodes into a field of
    /// `field`: the counts it is read as, and the decoding, `None` where
    /// the values already are the field's counts (our own, or int64
    /// without `units`: a unit CF has no name for).
    ///
    /// ```
    /// use ndl_runtime::time::{CfCounts, CfValues};
    /// use ndl_runtime::Datatype;
    ///
    /// let (counts, values) =
    ///     CfValues::decoding("M8[s]".parse()?, &Datatype::Int32, Some("days since 2000-01-01"), None, None)?;
    /// assert_eq!(counts, CfCounts::Int(ndl_runtime::IntType::Int32));
    /// assert!(values.is_some());
    /// assert!(CfValues::decoding("M8[s]".parse()?, &Datatype::Float32, None, None, None).is_err());
    /// # Ok::<(), ndl_runtime::time::TimeError>(())
    /// ```
    pub fn decoding(
        field: TimeType,
        stored: &Datatype,
        units: Option<&str>,
        calendar: Option<&str>,
        fill: Option<&serde_json::Value>,
    ) -> Result<(CfCounts, Option<CfValues>), TimeError> {
        let described = || crate::schema::describe(stored);
        let counts = CfCounts::of(stored).ok_or_else(|| TimeError::NotCounts(described()))?;
        let Some(units) = units else {
            if counts != CfCounts::Int(crate::IntType::Int64) {
                return Err(TimeError::NoUnitsAttribute(described()));
            }
            return Ok((counts, None));
        };
        let cf = CfTimeUnits::parse(units, calendar)?;
        let fill = match fill {
            Some(serde_json::Value::Array(one)) if one.len() == 1 => one.first(),
            other => other,
        };
        let values = CfValues::new(
            field,
            &cf,
            counts.is_float(),
            fill.and_then(serde_json::Value::as_f64),
            fill.and_then(serde_json::Value::as_i64),
        )?;
        Ok((counts, values))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(values: &[i64], order: ByteOrder) -> Vec<u8> {
        values.iter().flat_map(|&v| order.write_i64(v)).collect()
    }

    #[test]
    fn scaling_is_exact_keeps_nat_and_refuses_overflow_untouched() {
        let weeks = CfEncoding::of("M8[W]".parse().unwrap());
        for order in [ByteOrder::Little, ByteOrder::Big] {
            let mut values = bytes(&[3, NAT, -2], order);
            weeks.scale(&mut values, order).unwrap();
            assert_eq!(values, bytes(&[21, NAT, -14], order));
            let big = bytes(&[1, i64::MAX / 7 + 1], order);
            let mut scaled = big.clone();
            let err = weeks.scale(&mut scaled, order).unwrap_err();
            assert_eq!(
                err,
                Unscalable {
                    index: 1,
                    count: i64::MAX / 7 + 1
                }
            );
            assert_eq!(scaled, big, "nothing changes on an error");
        }
        // A product of exactly i64::MIN would read back as NaT.
        assert_eq!(scale_count(i64::MIN / 2, 2), None);
    }

    #[test]
    fn durations_say_their_numpy_dtype() {
        let tenths = CfEncoding::of("m8[10ms]".parse().unwrap());
        assert_eq!(tenths.factor(), 10);
        assert_eq!(
            tenths.attributes(),
            [
                ("dtype", "timedelta64[ms]".to_string()),
                ("units", "milliseconds".to_string())
            ]
        );
    }
}

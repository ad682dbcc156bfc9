//! Time values (NumPy's `datetime64` and `timedelta64`) as Arrow
//! `Timestamp` and `Duration`, NaT as null.
//!
//! Arrow counts in seconds, milliseconds, microseconds or nanoseconds. A
//! NumPy unit is written in the coarsest of these that divides it
//! exactly: `s`, `ms`, `us` and `ns` as they are; `D`, `h`, `m`, `W` and
//! multiples such as `10s` as seconds; `10ms` as milliseconds; `1000ps`
//! as nanoseconds. The counts are multiplied exactly, a product beyond an
//! `i64` being an error naming record and column; the field's `ndl.type`
//! keeps the NumPy unit, so reading back restores it exactly. Calendar
//! units (`Y`, `M`) have no fixed length, and `ps`, `fs` and `as` are finer
//! than Arrow counts: both are refused, naming the column.
//!
//! Reading, a `Timestamp` of any unit (with a time zone or without: its
//! counts are UTC either way), a `Date32` or a `Date64` becomes instants
//! and a `Duration` durations, of the records' unit, converted exactly or
//! refused (a value that is no whole number of the unit, or beyond its
//! range); a null becomes NaT.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, PrimitiveArray};
use arrow_buffer::{BooleanBuffer, Buffer, MutableBuffer, NullBuffer, ScalarBuffer};
use arrow_schema::{DataType, TimeUnit};
use ndl_runtime::TimeType;
use ndl_runtime::time::{NAT, TimeKind, scale_count};

use crate::error::Error;
use crate::plan::Leaf;
use crate::time_type::{arrow_unit, time_type_of};

/// The Arrow array of a time leaf's `len` native counts, NaT as null.
pub(crate) fn to_arrow(
    leaf: &Leaf<'_>,
    t: TimeType,
    mut bytes: MutableBuffer,
    len: usize,
) -> Result<ArrayRef, Error> {
    let (unit, factor) = arrow_unit(t).expect("checked by the schema");
    let counts = &mut bytes.typed_data_mut::<i64>()[..len];
    let valid = BooleanBuffer::collect_bool(len, |i| counts[i] != NAT);
    let nulls = Some(NullBuffer::new(valid)).filter(|n| n.null_count() > 0);
    if factor != 1 {
        scale(leaf, t, counts, factor, unit)?;
    }
    let values = ScalarBuffer::<i64>::new(bytes.into(), 0, len);
    Ok(match (t.kind, unit) {
        (TimeKind::DateTime, TimeUnit::Second) => array::<TimestampSecondType>(values, nulls),
        (TimeKind::DateTime, TimeUnit::Millisecond) => {
            array::<TimestampMillisecondType>(values, nulls)
        }
        (TimeKind::DateTime, TimeUnit::Microsecond) => {
            array::<TimestampMicrosecondType>(values, nulls)
        }
        (TimeKind::DateTime, TimeUnit::Nanosecond) => {
            array::<TimestampNanosecondType>(values, nulls)
        }
        (TimeKind::TimeDelta, TimeUnit::Second) => array::<DurationSecondType>(values, nulls),
        (TimeKind::TimeDelta, TimeUnit::Millisecond) => {
            array::<DurationMillisecondType>(values, nulls)
        }
        (TimeKind::TimeDelta, TimeUnit::Microsecond) => {
            array::<DurationMicrosecondType>(values, nulls)
        }
        (TimeKind::TimeDelta, TimeUnit::Nanosecond) => {
            array::<DurationNanosecondType>(values, nulls)
        }
    })
}

fn array<T: ArrowPrimitiveType<Native = i64>>(
    values: ScalarBuffer<i64>,
    nulls: Option<NullBuffer>,
) -> ArrayRef {
    Arc::new(PrimitiveArray::<T>::new(values, nulls))
}

/// Multiplies the counts by `factor` in place, exactly: a product beyond
/// an `i64` (or that would read back as NaT) is an error naming record
/// and column. NaT stays where it is, under a null.
fn scale(
    leaf: &Leaf<'_>,
    t: TimeType,
    counts: &mut [i64],
    factor: i64,
    unit: TimeUnit,
) -> Result<(), Error> {
    for (i, count) in counts.iter_mut().enumerate() {
        let c = *count;
        *count = scale_count(c, factor).ok_or_else(|| Error::InvalidValue {
            record: leaf.record_of(i),
            column: leaf.path_of(i),
            message: format!(
                "{c} of {t} is beyond the range of an Arrow count of {}",
                unit_name(unit)
            ),
        })?;
    }
    Ok(())
}

fn unit_name(unit: TimeUnit) -> &'static str {
    match unit {
        TimeUnit::Second => "seconds",
        TimeUnit::Millisecond => "milliseconds",
        TimeUnit::Microsecond => "microseconds",
        TimeUnit::Nanosecond => "nanoseconds",
    }
}

/// The native counts of `t` of a time array of others, a null as NaT;
/// `Ok(None)` when the array holds no time of `t`'s kind.
pub(crate) fn from_arrow(
    leaf: &Leaf<'_>,
    t: TimeType,
    array: &ArrayRef,
) -> Result<Option<Buffer>, Error> {
    let source = match time_type_of(array.data_type()) {
        Some(s) if s.kind == t.kind => s,
        _ => return Ok(None),
    };
    let counts: Vec<i64> = match array.data_type() {
        DataType::Date32 => array
            .as_primitive::<Date32Type>()
            .values()
            .iter()
            .map(|&d| i64::from(d))
            .collect(),
        // Every other time type holds `i64` counts; their bytes are the
        // same whatever the unit.
        _ => {
            let data = array.to_data();
            let Some(buffer) = data.buffers().first() else {
                return Ok(None);
            };
            ScalarBuffer::<i64>::new(buffer.clone(), data.offset(), data.len()).to_vec()
        }
    };
    let from = source.unit.attos().unwrap_or(1);
    let to = t.unit.attos().expect("checked by the schema");
    let mut out = Vec::with_capacity(counts.len() * 8);
    for (i, &c) in counts.iter().enumerate() {
        let value = if array.is_null(i) {
            NAT
        } else {
            convert(c, from, to).map_err(|why| Error::InvalidValue {
                record: leaf.record_of(i),
                column: leaf.path_of(i),
                message: format!("{c} of {source}: {why} {t}"),
            })?
        };
        out.extend_from_slice(&value.to_ne_bytes());
    }
    Ok(Some(Buffer::from_vec(out)))
}

/// `count` steps of `from` attoseconds as steps of `to`, exactly.
fn convert(count: i64, from: i128, to: i128) -> Result<i64, &'static str> {
    let attos = i128::from(count) * from;
    if attos % to != 0 {
        return Err("not a whole number of steps of");
    }
    match i64::try_from(attos / to) {
        Ok(NAT) => Err("NaT's count (yet not null) in"),
        Ok(v) => Ok(v),
        Err(_) => Err("beyond the range of an i64 count of"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_are_exact_or_refused() {
        let ms = 1_000_000_000_000_000;
        let s = 1_000 * ms;
        assert_eq!(convert(3, s, ms), Ok(3000));
        assert_eq!(convert(-3000, ms, s), Ok(-3));
        assert!(convert(1500, ms, s).is_err());
        assert!(convert(i64::MAX, s, ms).is_err());
        assert!(convert(i64::MIN + 1, ms, ms).is_ok());
    }
}

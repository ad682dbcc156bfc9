//! Stored CF time values turned into the counts of a NumPy time type, as
//! a reader of time columns others wrote needs them: int64 or float64
//! counts of the `units`, with a fill value for NaT.

use super::{CfDecoder, CfTimeUnits};
use crate::time::{TimeError, TimeKind};
use crate::TimeType;

/// How the stored values of a CF time variable become counts of a field's
/// time type.
///
/// ```
/// use ndl_runtime::time::{CfTimeUnits, CfValues};
///
/// let units = CfTimeUnits::parse("hours since 2000-01-01", None)?;
/// let values = CfValues::new("M8[s]".parse()?, &units, false, Some(-1.0), Some(-1))?
///     .expect("hours since 2000 are not seconds since 1970");
/// let mut stored: Vec<u8> = [0i64, 1, -1].iter().flat_map(|v| v.to_ne_bytes()).collect();
/// values.apply(&mut stored).unwrap();
/// let counts: Vec<i64> = stored.chunks(8).map(|b| i64::from_ne_bytes(b.try_into().unwrap())).collect();
/// assert_eq!(counts, [946_684_800, 946_688_400, i64::MIN]); // the fill is NaT
/// # Ok::<(), ndl_runtime::time::TimeError>(())
/// ```
#[derive(Clone, Debug)]
pub struct CfValues {
    decoder: CfDecoder,
    float: bool,
    /// The stored value that means NaT, as a float and as an integer.
    fill: Option<f64>,
    fill_int: Option<i64>,
}

impl CfValues {
    /// The decoding of values stored as `units` (float64 where `float`,
    /// else int64), `fill` meaning NaT, into counts of `field`; `None`
    /// where they already are its counts (int64 in `field`'s own CF units,
    /// NaT as the fill or none). Instants stored as durations, or the
    /// reverse, are an error.
    pub fn new(
        field: TimeType,
        units: &CfTimeUnits,
        float: bool,
        fill: Option<f64>,
        fill_int: Option<i64>,
    ) -> Result<Option<CfValues>, TimeError> {
        if units.kind() != field.kind {
            return Err(TimeError::KindMismatch {
                units: units.to_string(),
                stored: kind_name(units.kind()),
                field: kind_name(field.kind),
            });
        }
        let identity = CfTimeUnits::of(field).is_ok_and(|ours| ours == *units);
        if !float && identity && fill_int.is_none_or(|f| f == i64::MIN) {
            return Ok(None);
        }
        Ok(Some(CfValues {
            decoder: units.decoder(field.unit)?,
            float,
            fill,
            fill_int,
        }))
    }

    /// Decodes native-order stored values in place into the field's
    /// counts; the error gives the index of the value that does not fit.
    pub fn apply(&self, values: &mut [u8]) -> Result<(), (usize, TimeError)> {
        for (i, v) in values.chunks_exact_mut(8).enumerate() {
            let bytes: [u8; 8] = (*v).try_into().expect("8 bytes");
            let count = if self.float {
                let x = f64::from_ne_bytes(bytes);
                if self.fill == Some(x) {
                    i64::MIN
                } else {
                    self.decoder.decode_f64(x).map_err(|e| (i, e))?
                }
            } else {
                let n = i64::from_ne_bytes(bytes);
                if n == i64::MIN || self.fill_int == Some(n) {
                    i64::MIN
                } else {
                    self.decoder.decode(n).map_err(|e| (i, e))?
                }
            };
            v.copy_from_slice(&count.to_ne_bytes());
        }
        Ok(())
    }
}

fn kind_name(kind: TimeKind) -> &'static str {
    match kind {
        TimeKind::DateTime => "instants",
        TimeKind::TimeDelta => "durations",
    }
}

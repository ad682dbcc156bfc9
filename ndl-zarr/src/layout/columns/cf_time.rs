//! Time columns as CF stores them: counts of a unit since an epoch, in
//! integers or floats, with a fill value for NaT. Writing multiplies the
//! counts of a unit CF has no name for into a CF unit (`W` into days);
//! reading decodes them to the field's unit, so a store xarray wrote
//! (`hours since 2000-01-01`) reads into `DateTime64<Seconds>` with the
//! exact instants.

use ndl_runtime::time::{CfCounts, CfTimeUnits, CfValues};
use ndl_runtime::Datatype;
use serde_json::Value;

use super::Column;
use crate::error::{Error, Result};
use crate::metadata::ArrayMeta;
use crate::store::Store;
use crate::ZarrFormat;

/// The decoding the time column `c` needs, or `None` when its values are
/// already the field's counts (ours: `<unit> since 1970-01-01 00:00:00`
/// with NaT as the fill, or, for a unit CF cannot name, no `units` at
/// all) or when it is not a time. Errors name the field: units that are
/// not CF, an epoch that does not parse, a calendar other than standard,
/// gregorian and proleptic_gregorian, an instant stored as a duration.
pub(super) fn time_decoding(
    store: &Store,
    meta: &ArrayMeta,
    c: &Column,
) -> Result<Option<CfValues>> {
    let Datatype::Time(t) = c.leaf else {
        return Ok(None);
    };
    let err = |message: String| Error::TypeMismatch {
        store: store.name.clone(),
        field: c.name.clone(),
        message,
    };
    let text = |key: &str| meta.attributes.get(key).and_then(Value::as_str);
    let Some(counts) = CfCounts::of(&meta.stored) else {
        return Err(err(format!(
            "a time field is stored as integer or float counts, not {}",
            ndl_runtime::schema::describe(&meta.stored)
        )));
    };
    // Narrower counts are widened to these before they are decoded.
    let float = counts.is_float();
    let Some(units) = text("units") else {
        if !counts.is_wide() || float {
            return Err(err(format!(
                "{} counts without CF `units`",
                ndl_runtime::schema::describe(&meta.stored)
            )));
        }
        return Ok(None);
    };
    let cf = CfTimeUnits::parse(units, text("calendar")).map_err(|e| err(e.to_string()))?;
    let fill = cf_fill(meta);
    CfValues::new(
        t,
        &cf,
        float,
        fill.and_then(Value::as_f64),
        fill.and_then(Value::as_i64),
    )
    .map_err(|e| err(e.to_string()))
}

/// The value that marks a missing time, as xarray reads it: the
/// `_FillValue` or `missing_value` attribute, else in a v2 store the
/// array's `fill_value` (where xarray keeps `_FillValue`; a v3 array's
/// `fill_value` is always there, and xarray does not mask with it).
fn cf_fill(meta: &ArrayMeta) -> Option<&Value> {
    ["_FillValue", "missing_value"]
        .iter()
        .find_map(|k| meta.attributes.get(*k))
        .or_else(|| match meta.format {
            ZarrFormat::V2 => meta.document.get("fill_value"),
            ZarrFormat::V3 => None,
        })
}

/// NumPy's Not-a-Time, which scaling leaves alone.
const NAT: i64 = i64::MIN;

/// The first of native-order `values` (and its count) whose product with
/// `factor` is beyond an `i64`, or would read back as NaT.
pub(super) fn first_unscalable(values: &[u8], factor: i64) -> Option<(usize, i64)> {
    values
        .chunks_exact(8)
        .map(|v| i64::from_ne_bytes(v.try_into().expect("8 bytes")))
        .enumerate()
        .find(|&(_, n)| n != NAT && n.checked_mul(factor).is_none_or(|p| p == NAT))
}

/// Multiplies native-order `values` by `factor` in place, NaT staying NaT;
/// [`first_unscalable`] has found none that overflows.
pub(super) fn scale(values: &mut [u8], factor: i64) {
    for v in values.chunks_exact_mut(8) {
        let n = i64::from_ne_bytes((*v).try_into().expect("8 bytes"));
        if n != NAT {
            v.copy_from_slice(&n.wrapping_mul(factor).to_ne_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(values: &[i64]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_ne_bytes()).collect()
    }

    #[test]
    fn scaling_is_exact_and_keeps_nat() {
        let mut values = bytes(&[3, NAT, -2]);
        assert_eq!(first_unscalable(&values, 7), None);
        scale(&mut values, 7);
        assert_eq!(values, bytes(&[21, NAT, -14]));
        let big = bytes(&[1, i64::MAX / 7 + 1]);
        assert_eq!(first_unscalable(&big, 7), Some((1, i64::MAX / 7 + 1)));
        // A product of exactly i64::MIN would read back as NaT.
        assert_eq!(
            first_unscalable(&bytes(&[i64::MIN / 2]), 2),
            Some((0, i64::MIN / 2))
        );
    }
}

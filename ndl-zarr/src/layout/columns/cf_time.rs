//! Time columns as CF stores them: counts of a unit since an epoch, in
//! integers or floats, with a fill value for NaT. Writing multiplies the
//! counts of a unit CF has no name for into a CF unit (`W` into days,
//! [`ndl_runtime::time::CfEncoding`]);
//! reading decodes them to the field's unit, so a store xarray wrote
//! (`hours since 2000-01-01`) reads into `DateTime64<Seconds>` with the
//! exact instants.

use ndl_runtime::Datatype;
use ndl_runtime::time::CfValues;
use serde_json::Value;

use super::Column;
use crate::ZarrFormat;
use crate::error::{Error, Result};
use crate::metadata::ArrayMeta;
use crate::store::Store;

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
    let text = |key: &str| meta.attributes.get(key).and_then(Value::as_str);
    CfValues::decoding(
        t,
        &meta.stored,
        text("units"),
        text("calendar"),
        cf_fill(meta),
    )
    .map(|(_, values)| values)
    .map_err(|e| Error::TypeMismatch {
        store: store.name.clone(),
        field: c.name.clone(),
        message: e.to_string(),
    })
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

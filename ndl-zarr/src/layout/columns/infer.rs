//! The records of a columns group another tool wrote (xarray's, without
//! our `ndl_datatype`): a field per array, CF time as time fields.

use ndl_runtime::time::{TimeError, cf_time_type};
use ndl_runtime::{Compound, Datatype, TimeType};
use serde_json::Value;

use crate::info::ArrayInfo;

/// A record of the group's arrays, by name, when every array holds one
/// number or fixed string per record (the same number of records) or a
/// fixed shape of them: its field is that value, or an array of it.
///
/// A column of integers or floats with CF time `units` (and a `calendar`
/// of `standard`, `gregorian` or `proleptic_gregorian`) is a time field:
/// of the CF unit for integers, of nanoseconds for floats (its values
/// round to nanoseconds, as xarray decodes them). CF time of other
/// calendars stays plain numbers. `Ok(None)` for a group with anything
/// else (variable strings, records, no arrays), which has no record type to read
/// by; an error, with the array's name, for units that say `since` but
/// are no CF time, whose numbers would be read as plain numbers wrongly.
pub(crate) fn infer_record(
    arrays: &[(String, ArrayInfo)],
) -> Result<Option<Datatype>, (String, TimeError)> {
    let Some(len) = arrays.first().and_then(|(_, a)| a.shape().first().copied()) else {
        return Ok(None);
    };
    let mut fields = Vec::with_capacity(arrays.len());
    for (name, info) in arrays {
        let Some((&n, inner)) = info.shape().split_first() else {
            return Ok(None);
        };
        let stored = info.stored_datatype();
        // Numbers, and fixed strings (xarray's `<U1` labels, NumPy's `S`).
        let column = stored.as_int().is_some()
            || matches!(
                stored,
                Datatype::Float32 | Datatype::Float64 | Datatype::Bool | Datatype::FixedString(_)
            );
        if n != len || !column {
            return Ok(None);
        }
        let time = cf_time(info).map_err(|e| (name.clone(), e))?;
        let base = time.map_or_else(|| stored.clone(), Datatype::Time);
        let Some(shape) = inner
            .iter()
            .map(|&d| usize::try_from(d).ok())
            .collect::<Option<Vec<usize>>>()
        else {
            return Ok(None);
        };
        fields.push((name.clone(), base.array_of(&shape)));
    }
    Ok(Compound::c_layout(fields).ok().map(Datatype::Compound))
}

/// The time type of a CF time column, if it is one.
fn cf_time(info: &ArrayInfo) -> Result<Option<TimeType>, TimeError> {
    let text = |key: &str| info.attributes().get(key).and_then(Value::as_str);
    cf_time_type(info.stored_datatype(), text("units"), text("calendar"))
}

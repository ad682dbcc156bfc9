//! The records of a columns group another tool wrote (xarray's, without
//! our `ndl_datatype`): a field per array, CF time as time fields.

use ndl_runtime::time::{BaseUnit, CfTimeUnits, NumpyTimeUnit};
use ndl_runtime::{Compound, Datatype, TimeType};
use serde_json::Value;

use crate::info::ArrayInfo;

/// A record of the group's arrays, by name, when every array holds one
/// number per record (the same number of records) or a fixed shape of
/// numbers: its field is that number, or an array of it.
///
/// An `int64` column with CF time `units` (and a `calendar` of
/// `standard`, `gregorian` or `proleptic_gregorian`) is a time field of
/// the CF unit; a `float64` one a nanosecond time field (its values round
/// to nanoseconds, as xarray decodes them). CF time of other calendars
/// stays plain numbers. `None` for a group with anything else (strings,
/// records, no arrays), which has no record type to read by.
pub(crate) fn infer_record(arrays: &[(String, ArrayInfo)]) -> Option<Datatype> {
    let len = arrays.first()?.1.shape().first().copied()?;
    let mut fields = Vec::with_capacity(arrays.len());
    for (name, info) in arrays {
        let (&n, inner) = info.shape().split_first()?;
        let stored = info.stored_datatype();
        let number = stored.as_int().is_some()
            || matches!(
                stored,
                Datatype::Float32 | Datatype::Float64 | Datatype::Bool
            );
        if n != len || !number {
            return None;
        }
        let base = cf_time(info).unwrap_or_else(|| stored.clone());
        let shape: Vec<usize> = inner
            .iter()
            .map(|&d| usize::try_from(d).ok())
            .collect::<Option<_>>()?;
        fields.push((name.clone(), base.array_of(&shape)));
    }
    Compound::c_layout(fields).ok().map(Datatype::Compound)
}

/// The time field a CF time column becomes, if it is one.
fn cf_time(info: &ArrayInfo) -> Option<Datatype> {
    let text = |key: &str| info.attributes().get(key).and_then(Value::as_str);
    let units = CfTimeUnits::parse(text("units")?, text("calendar")).ok()?;
    let unit = match info.stored_datatype() {
        Datatype::Int64 => units.unit(),
        Datatype::Float64 => BaseUnit::Nanos,
        _ => return None,
    };
    Some(Datatype::Time(TimeType {
        kind: units.kind(),
        unit: NumpyTimeUnit::new(unit),
    }))
}

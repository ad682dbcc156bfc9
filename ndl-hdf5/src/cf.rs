//! CF attributes of netCDF-4 variables, and the attribute `ndl_datatype`
//! that keeps a variable's NDL datatype where netCDF has no type for it.

use hdf5::types::VarLenUnicode;
use ndl_runtime::time::{CfTimeUnits, TimeKind};
use ndl_runtime::{Datatype, TimeType};

/// The attribute holding an NDL datatype as JSON: the record's, at the
/// root of a file in the columns layout; a variable's own, where its
/// stored type says less (time as `int64`).
pub const NDL_DATATYPE: &str = "ndl_datatype";

/// The CF attributes of a variable holding the counts of time type `t`:
/// `units` (`seconds since 1970-01-01 00:00:00`), `calendar` for instants
/// (xarray's `dtype` for durations) and `_FillValue` NaT, which xarray
/// decodes; a unit CF has no name for (`W`, `10ms`, years) keeps its
/// counts, with a `comment` naming it.
pub(crate) fn time_attributes(dataset: &hdf5::Dataset, t: TimeType) -> hdf5::Result<()> {
    dataset
        .new_attr::<i64>()
        .create("_FillValue")?
        .write_scalar(&i64::MIN)?;
    let Ok(units) = CfTimeUnits::of(t) else {
        let since = match t.kind {
            TimeKind::DateTime => " since 1970-01-01",
            TimeKind::TimeDelta => "",
        };
        let comment = format!(
            "counts of NumPy {}[{}]{since}, a unit CF time has not",
            t.kind.numpy_name(),
            t.unit
        );
        return text_attr(dataset, "comment", &comment);
    };
    match t.kind {
        TimeKind::DateTime => text_attr(dataset, "calendar", CfTimeUnits::CALENDAR)?,
        TimeKind::TimeDelta => {
            let dtype = format!("timedelta64[{}]", units.unit().code());
            text_attr(dataset, "dtype", &dtype)?;
        }
    }
    text_attr(dataset, "units", &units.to_string())
}

/// Writes `dt` as the attribute [`NDL_DATATYPE`] of `location`.
pub(crate) fn write_datatype(location: &hdf5::Location, dt: &Datatype) -> hdf5::Result<()> {
    let json = serde_json::to_string(dt).map_err(|e| hdf5::Error::from(e.to_string()))?;
    text_attr(location, NDL_DATATYPE, &json)
}

/// The datatype in the attribute [`NDL_DATATYPE`] of `location`, when
/// it has one that reads.
pub(crate) fn read_datatype(location: &hdf5::Location) -> Option<Datatype> {
    let text = location
        .attr(NDL_DATATYPE)
        .ok()?
        .read_scalar::<VarLenUnicode>()
        .ok()?;
    serde_json::from_str(text.as_str()).ok()
}

/// Writes the text attribute `name` (a netCDF `string`).
pub(crate) fn text_attr(location: &hdf5::Location, name: &str, text: &str) -> hdf5::Result<()> {
    let value: VarLenUnicode = text
        .parse()
        .map_err(|e: hdf5::types::StringError| hdf5::Error::from(e.to_string()))?;
    location
        .new_attr::<VarLenUnicode>()
        .create(name)?
        .write_scalar(&value)
}

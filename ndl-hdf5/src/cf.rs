//! CF attributes of netCDF-4 variables, and the attribute `ndl_datatype`
//! that keeps a variable's NDL datatype where netCDF has no type for it.

use std::ffi::CString;

use hdf5_sys::h5a::{H5Aclose, H5Acreate2, H5Awrite};
use hdf5_sys::h5p::H5P_DEFAULT;
use hdf5_sys::h5s::{H5S_class_t, H5Sclose, H5Screate};
use hdf5_sys::h5t::{
    H5T_cset_t, H5T_str_t, H5Tclose, H5Tcopy, H5Tset_cset, H5Tset_size, H5Tset_strpad,
};
use ndl_runtime::time::{CfEncoding, CfValues, NAT, TimeError};
use ndl_runtime::{ByteOrder, Datatype, TimeType};

/// The attribute holding an NDL datatype as JSON: the record's, at the
/// root of a file in the columns layout; a variable's own, where its
/// stored type says less (time as `int64`).
pub const NDL_DATATYPE: &str = "ndl_datatype";

/// Writes the CF attributes of a variable holding the counts of time
/// type `t` ([`CfEncoding`]: `units`, `calendar` or xarray's `dtype`, or a
/// `comment` where CF has no units), and `_FillValue` NaT, which xarray
/// decodes; gives the encoding, whose factor the counts are scaled by.
pub(crate) fn time_attributes(dataset: &hdf5::Dataset, t: TimeType) -> hdf5::Result<CfEncoding> {
    dataset
        .new_attr::<i64>()
        .create("_FillValue")?
        .write_scalar(&NAT)?;
    let encoding = CfEncoding::of(t);
    for (name, value) in encoding.attributes() {
        text_attr(dataset, name, &value)?;
    }
    Ok(encoding)
}

/// How the time variable `dataset`, read into a field of `t`, is stored
/// and decoded ([`CfValues::decoding`]): as float64 or int64 counts
/// (`true` for float, to which HDF5 converts the stored ones as it reads
/// them), and the decoding where they are not `t`'s own counts.
pub(crate) fn stored_time(
    dataset: &hdf5::Dataset,
    stored: &hdf5::Datatype,
    t: TimeType,
) -> Result<(bool, Option<CfValues>), String> {
    let stored = crate::stored_type::stored_type(stored.id())?.datatype;
    let text = |name: &str| {
        crate::attribute::attribute(dataset, name).and_then(|v| v.as_str().map(str::to_string))
    };
    let fill = ["_FillValue", "missing_value"]
        .iter()
        .find_map(|k| crate::attribute::attribute(dataset, k));
    let (counts, values) = CfValues::decoding(
        t,
        &stored,
        text("units").as_deref(),
        text("calendar").as_deref(),
        fill.as_ref(),
    )
    .map_err(|e| e.to_string())?;
    Ok((counts.is_float(), values))
}

/// Decodes counts in `order` in place into a field's counts, as
/// [`CfValues::apply`] does native ones; the error gives the index of the
/// count that does not fit.
pub(crate) fn decode_counts(
    values: &CfValues,
    counts: &mut [u8],
    order: ByteOrder,
) -> Result<(), (usize, TimeError)> {
    let swap = |counts: &mut [u8]| {
        if order != ByteOrder::NATIVE {
            counts.chunks_exact_mut(8).for_each(<[u8]>::reverse);
        }
    };
    swap(counts);
    let decoded = values.apply(counts);
    swap(counts);
    decoded
}

/// The time type a variable of CF time (integer or float counts with CF
/// `units`) holds: counts of its unit, or nanoseconds for floats; `None`
/// for any other variable, and for units that say `since` but do not
/// parse, which a conversion refuses ([`ndl_runtime::time::cf_time_type`]).
pub fn cf_time_type(
    stored: &Datatype,
    attributes: &serde_json::Map<String, serde_json::Value>,
) -> Option<TimeType> {
    let text = |key: &str| attributes.get(key).and_then(serde_json::Value::as_str);
    ndl_runtime::time::cf_time_type(stored, text("units"), text("calendar"))
        .ok()
        .flatten()
}

/// Writes `dt` as the attribute [`NDL_DATATYPE`] of `location`.
pub(crate) fn write_datatype(location: &hdf5::Location, dt: &Datatype) -> hdf5::Result<()> {
    let json = serde_json::to_string(dt).map_err(|e| hdf5::Error::from(e.to_string()))?;
    text_attr(location, NDL_DATATYPE, &json)
}

/// The datatype in the attribute [`NDL_DATATYPE`] of `location`, when
/// it has one that reads.
pub(crate) fn read_datatype(location: &hdf5::Location) -> Option<Datatype> {
    let text = crate::attribute::attribute(location, NDL_DATATYPE)?;
    serde_json::from_str(text.as_str()?).ok()
}

/// Writes the text attribute `name` as netCDF-C writes text (`char`): a
/// scalar fixed string of the text's length, null-terminated, ASCII or
/// UTF-8. CF readers expect `units` and the like as `char`.
pub(crate) fn text_attr(location: &hdf5::Location, name: &str, text: &str) -> hdf5::Result<()> {
    let c_name = CString::new(name).map_err(|e| hdf5::Error::from(e.to_string()))?;
    let cset = if text.is_ascii() {
        H5T_cset_t::H5T_CSET_ASCII
    } else {
        H5T_cset_t::H5T_CSET_UTF8
    };
    let bytes: &[u8] = if text.is_empty() {
        b"\0"
    } else {
        text.as_bytes()
    };
    hdf5::sync::sync(|| {
        // SAFETY: each handle made here is closed here; `bytes` outlives
        // the write, which reads `bytes.len()` bytes, the type's size.
        unsafe {
            let t = H5Tcopy(*hdf5::globals::H5T_C_S1);
            let space = H5Screate(H5S_class_t::H5S_SCALAR);
            let set = [
                H5Tset_size(t, bytes.len()),
                H5Tset_strpad(t, H5T_str_t::H5T_STR_NULLTERM),
                H5Tset_cset(t, cset),
            ];
            let attr = H5Acreate2(
                location.id(),
                c_name.as_ptr(),
                t,
                space,
                H5P_DEFAULT,
                H5P_DEFAULT,
            );
            let written = if attr >= 0 {
                H5Awrite(attr, t, bytes.as_ptr().cast())
            } else {
                -1
            };
            if attr >= 0 {
                H5Aclose(attr);
            }
            H5Sclose(space);
            H5Tclose(t);
            if t < 0 || space < 0 || set.iter().any(|&s| s < 0) || written < 0 {
                return Err(hdf5::Error::query()
                    .unwrap_or_else(|_| format!("writing the attribute `{name}` failed").into()));
            }
        }
        Ok(())
    })
}

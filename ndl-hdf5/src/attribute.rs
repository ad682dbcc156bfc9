//! Attributes as JSON values: numbers, text and lists of them, whoever
//! wrote them (fixed or variable-length strings, any width of number).

use std::collections::BTreeMap;

use hdf5::types::{VarLenAscii, VarLenUnicode};
use hdf5_sys::h5a::H5Aread;
use ndl_runtime::Datatype;
use serde_json::{Map, Value};

use crate::stored_type::stored_type;

/// The attribute `name` of `location` as JSON, when it has one.
pub(crate) fn attribute(location: &hdf5::Location, name: &str) -> Option<Value> {
    location.attr(name).ok().map(|a| attribute_value(&a))
}

/// The attributes of `location` as JSON (numbers, text, and lists of
/// them), and the stored type of each one's elements.
pub(crate) fn attributes(
    location: &hdf5::Location,
) -> (Map<String, Value>, BTreeMap<String, Datatype>) {
    let mut values = Map::new();
    let mut types = BTreeMap::new();
    let Ok(names) = location.attr_names() else {
        return (values, types);
    };
    for name in names {
        let Ok(attr) = location.attr(&name) else {
            continue;
        };
        if let Some(dt) = attr.dtype().ok().and_then(|t| stored_type(t.id()).ok()) {
            types.insert(name.clone(), dt.datatype);
        }
        values.insert(name, attribute_value(&attr));
    }
    (values, types)
}

/// Stored text as JSON, bytes that are not UTF-8 replaced.
fn text(bytes: &[u8]) -> Value {
    Value::from(String::from_utf8_lossy(bytes).into_owned())
}

fn attribute_value(attr: &hdf5::Attribute) -> Value {
    let Ok(dtype) = attr.dtype() else {
        return Value::Null;
    };
    let kind = stored_type(dtype.id()).map(|s| s.datatype);
    let scalar = attr.ndim() == 0;
    let many = |values: Vec<Value>| {
        if scalar {
            values.into_iter().next().unwrap_or(Value::Null)
        } else {
            Value::Array(values)
        }
    };
    use ndl_runtime::Datatype as D;
    match kind {
        Ok(D::Float16 | D::Float32 | D::Float64) => attr
            .read_raw::<f64>()
            .map(|v| many(v.into_iter().map(float).collect()))
            .unwrap_or(Value::Null),
        Ok(D::UInt8 | D::UInt16 | D::UInt32 | D::UInt64) => attr
            .read_raw::<u64>()
            .map(|v| many(v.into_iter().map(Value::from).collect()))
            .unwrap_or(Value::Null),
        Ok(D::Int8 | D::Int16 | D::Int32 | D::Int64) => attr
            .read_raw::<i64>()
            .map(|v| many(v.into_iter().map(Value::from).collect()))
            .unwrap_or(Value::Null),
        // hdf5-metno's `as_str` trusts the file to hold UTF-8 (it does not
        // check): a damaged file would make an invalid `str`. The bytes are
        // decoded here, checked.
        Ok(D::String) => match attr.read_raw::<VarLenUnicode>() {
            Ok(v) => many(v.iter().map(|s| text(s.as_bytes())).collect()),
            Err(_) => attr
                .read_raw::<VarLenAscii>()
                .map(|v| many(v.iter().map(|s| text(s.as_bytes())).collect()))
                .unwrap_or(Value::Null),
        },
        Ok(D::FixedString(_)) => fixed_strings(attr)
            .map(|v| many(v.into_iter().map(Value::from).collect()))
            .unwrap_or(Value::Null),
        Ok(other) => Value::from(format!(
            "<an attribute of {}>",
            other.keyword().unwrap_or("a datatype JSON cannot hold")
        )),
        Err(why) => Value::from(format!("<{why}>")),
    }
}

/// JSON has no NaN or infinities: those become their names, as text.
fn float(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or_else(|| Value::from(v.to_string()), Value::Number)
}

/// Fixed-length strings, as stored, without their trailing NULs.
fn fixed_strings(attr: &hdf5::Attribute) -> hdf5::Result<Vec<String>> {
    let dtype = attr.dtype()?;
    let size = dtype.size().max(1);
    let n: usize = attr.shape().iter().product::<usize>().max(1);
    let mut bytes = vec![0u8; size * n];
    hdf5::sync::sync(|| {
        // SAFETY: `bytes` has room for the attribute's `n` elements of its
        // own type, which it is read as.
        let status = unsafe { H5Aread(attr.id(), dtype.id(), bytes.as_mut_ptr().cast()) };
        if status < 0 {
            return Err(hdf5::Error::query().unwrap_or_else(|e| e));
        }
        Ok(())
    })?;
    Ok(bytes
        .chunks(size)
        .map(|s| {
            String::from_utf8_lossy(s)
                .trim_end_matches('\0')
                .to_string()
        })
        .collect())
}

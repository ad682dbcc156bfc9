//! The attributes a user gives a new dataset or file, from JSON values:
//! what [`WriteOptions::attribute`](crate::WriteOptions::attribute) adds.

use hdf5::types::VarLenUnicode;
use serde_json::{Map, Value};

use crate::cf::text_attr;

/// Writes each of `attributes` on `location`.
pub(crate) fn write(
    location: &hdf5::Location,
    attributes: &Map<String, Value>,
) -> hdf5::Result<()> {
    for (name, value) in attributes {
        write_one(location, name, value)?;
    }
    Ok(())
}

/// Text as netCDF's `char`, integers as `int64`, other numbers as
/// `double`, bools as `int8`, lists of numbers or of strings as arrays of
/// them, and anything else as its JSON text.
pub(crate) fn write_one(location: &hdf5::Location, name: &str, value: &Value) -> hdf5::Result<()> {
    match value {
        Value::String(text) => text_attr(location, name, text),
        Value::Bool(b) => location
            .new_attr::<i8>()
            .create(name)?
            .write_scalar(&i8::from(*b)),
        // An integer past `i64` is a `u64`'s, not a float's.
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => location.new_attr::<i64>().create(name)?.write_scalar(&i),
            (None, Some(u)) => location.new_attr::<u64>().create(name)?.write_scalar(&u),
            _ => {
                let x = n.as_f64().unwrap_or(f64::NAN);
                location.new_attr::<f64>().create(name)?.write_scalar(&x)
            }
        },
        Value::Array(items) if !items.is_empty() => write_list(location, name, items, value),
        other => text_attr(location, name, &other.to_string()),
    }
}

/// Writes the attribute `name` of `location`, a one-dimensional array of
/// `values`.
fn write_array<T: hdf5::H5Type>(
    location: &hdf5::Location,
    name: &str,
    values: &[T],
) -> hdf5::Result<()> {
    location
        .new_attr::<T>()
        .shape(values.len())
        .create(name)?
        .write(values)
}

/// A list of integers, of numbers or of strings as an array of them; a
/// mixed list as its JSON text.
fn write_list(
    location: &hdf5::Location,
    name: &str,
    items: &[Value],
    value: &Value,
) -> hdf5::Result<()> {
    // Integers of which one is past `i64` are `u64`s, exactly.
    if let Some(ints) = items.iter().map(Value::as_i64).collect::<Option<Vec<_>>>() {
        return write_array(location, name, &ints);
    }
    if let Some(ints) = items.iter().map(Value::as_u64).collect::<Option<Vec<_>>>() {
        return write_array(location, name, &ints);
    }
    if let Some(floats) = items.iter().map(Value::as_f64).collect::<Option<Vec<_>>>() {
        return write_array(location, name, &floats);
    }
    let strings: Option<Vec<VarLenUnicode>> = items
        .iter()
        .map(|v| v.as_str().and_then(|s| s.parse().ok()))
        .collect();
    match strings {
        Some(strings) => location
            .new_attr::<VarLenUnicode>()
            .shape(strings.len())
            .create(name)?
            .write(&strings),
        None => text_attr(location, name, &value.to_string()),
    }
}

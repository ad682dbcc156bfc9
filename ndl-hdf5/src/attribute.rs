//! Attributes as JSON values: numbers, text, records and lists of them,
//! whoever wrote them (fixed or variable-length strings, any width of
//! number, compounds), listed in the order they were made where the file
//! keeps it (netCDF's, which `ncdump` shows).

use std::collections::BTreeMap;
use std::ffi::{CStr, c_char, c_void};

use hdf5::types::{VarLenAscii, VarLenUnicode};
use hdf5_sys::h5::{H5_index_t, H5_iter_order_t, herr_t};
use hdf5_sys::h5a::{H5A_info_t, H5Aiterate2, H5Aread};
use hdf5_sys::h5i::hid_t;
use ndl_runtime::{ByteOrder, Datatype};
use serde_json::{Map, Value};

use crate::stored_type::{StoredType, stored_type};

/// The attribute `name` of `location` as JSON, when it has one.
pub(crate) fn attribute(location: &hdf5::Location, name: &str) -> Option<Value> {
    location.attr(name).ok().map(|a| attribute_value(&a))
}

/// The attributes of `location` as JSON, in creation order where the
/// file tracks it (else in name order), and the stored type of each one's
/// elements. NaN and the infinities are the text `NaN`, `inf`, `-inf`
/// (JSON has no such numbers; the stored type says they are floats); an
/// attribute with a null dataspace (no value at all) is `null`.
pub(crate) fn attributes(
    location: &hdf5::Location,
) -> (Map<String, Value>, BTreeMap<String, Datatype>) {
    let mut values = Map::new();
    let mut types = BTreeMap::new();
    let Some(names) = names_in_creation_order(location).or_else(|| location.attr_names().ok())
    else {
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

/// The names of `location`'s attributes in the order they were made, or
/// `None` where the file does not track that order.
fn names_in_creation_order(location: &hdf5::Location) -> Option<Vec<String>> {
    unsafe extern "C" fn push_name(
        _: hid_t,
        name: *const c_char,
        _: *const H5A_info_t,
        names: *mut c_void,
    ) -> herr_t {
        // SAFETY: `names` is the Vec given to H5Aiterate2 below and `name`
        // a NUL-terminated string the library owns for this call.
        let names = unsafe { &mut *names.cast::<Vec<String>>() };
        names.push(
            unsafe { CStr::from_ptr(name) }
                .to_string_lossy()
                .into_owned(),
        );
        0
    }
    let mut names: Vec<String> = Vec::new();
    let status = hdf5::sync::sync(|| {
        // SAFETY: the callback only pushes onto `names`, which outlives
        // the call.
        unsafe {
            H5Aiterate2(
                location.id(),
                H5_index_t::H5_INDEX_CRT_ORDER,
                H5_iter_order_t::H5_ITER_INC,
                std::ptr::null_mut(),
                Some(push_name),
                (&mut names as *mut Vec<String>).cast(),
            )
        }
    });
    (status >= 0).then_some(names)
}

fn attribute_value(attr: &hdf5::Attribute) -> Value {
    let Ok(dtype) = attr.dtype() else {
        return Value::Null;
    };
    if attr.space().is_ok_and(|s| s.is_null()) {
        return Value::Null;
    }
    let stored = match stored_type(dtype.id()) {
        Ok(stored) => stored,
        Err(why) => return Value::from(format!("<{why}>")),
    };
    let shape = attr.shape();
    let many = |values: Vec<Value>| nested(values, &shape);
    use ndl_runtime::Datatype as D;
    match &stored.datatype {
        D::Float16 | D::Float32 | D::Float64 => attr
            .read_raw::<f64>()
            .map(|v| many(v.into_iter().map(float).collect()))
            .unwrap_or(Value::Null),
        // hdf5-metno's `as_str` trusts the file to hold UTF-8 (it does not
        // check): a damaged file would make an invalid `str`. The bytes are
        // decoded here, checked.
        D::String => match attr.read_raw::<VarLenUnicode>() {
            Ok(v) => many(v.iter().map(|s| text(s.as_bytes())).collect()),
            Err(_) => attr
                .read_raw::<VarLenAscii>()
                .map(|v| many(v.iter().map(|s| text(s.as_bytes())).collect()))
                .unwrap_or(Value::Null),
        },
        other if other.size().is_some() => match raw_bytes(attr, &dtype) {
            Ok((bytes, size)) => many(
                bytes
                    .chunks(size.max(1))
                    .map(|element| decode(element, &stored.datatype, 0, &stored))
                    .collect(),
            ),
            Err(why) => Value::from(format!("<{why}>")),
        },
        other => Value::from(format!(
            "<an attribute of {}>",
            other.keyword().unwrap_or("a datatype JSON cannot hold")
        )),
    }
}

/// `values`, in C order, as nested lists of `shape` (the one value of a
/// scalar).
fn nested(values: Vec<Value>, shape: &[usize]) -> Value {
    match shape {
        [] => values.into_iter().next().unwrap_or(Value::Null),
        [_] => Value::Array(values),
        [_, inner @ ..] => {
            let step = inner.iter().product::<usize>().max(1);
            let mut values = values.into_iter();
            let rows = (0..shape[0])
                .map(|_| nested(values.by_ref().take(step).collect(), inner))
                .collect();
            Value::Array(rows)
        }
    }
}

/// JSON has no NaN or infinities: those become their names, as text.
pub(crate) fn float(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or_else(|| Value::from(v.to_string()), Value::Number)
}

/// The attribute's elements as stored (its own type, its own byte
/// orders), and the size of one.
fn raw_bytes(attr: &hdf5::Attribute, dtype: &hdf5::Datatype) -> hdf5::Result<(Vec<u8>, usize)> {
    let size = dtype.size().max(1);
    let n: usize = attr.space()?.size();
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
    Ok((bytes, size))
}

/// The JSON value of the element of `dt` at byte `at` of `bytes` (one
/// whole stored element of `stored`): numbers in the order `stored` says
/// they are at that byte, fixed strings without their trailing NULs,
/// enums and bools as their numbers, compounds as objects, arrays as
/// lists.
fn decode(bytes: &[u8], dt: &Datatype, at: usize, stored: &StoredType) -> Value {
    let order = stored.byte_order.at(&stored.other_order, at);
    let field = |n: usize| bytes.get(at..at + n);
    use ndl_runtime::Datatype as D;
    match dt {
        D::Bool => field(1).map_or(Value::Null, |b| Value::from(b[0])),
        D::Enum(e) => decode(bytes, &Datatype::from(e.base), at, stored),
        D::Float32 => field(4).map_or(Value::Null, |b| {
            let b: [u8; 4] = b.try_into().expect("4 bytes");
            float(f64::from(match order {
                ByteOrder::Little => f32::from_le_bytes(b),
                ByteOrder::Big => f32::from_be_bytes(b),
            }))
        }),
        D::Float64 => field(8).map_or(Value::Null, |b| {
            let b: [u8; 8] = b.try_into().expect("8 bytes");
            float(match order {
                ByteOrder::Little => f64::from_le_bytes(b),
                ByteOrder::Big => f64::from_be_bytes(b),
            })
        }),
        D::FixedString(s) => field(s.length).map_or(Value::Null, |b| {
            Value::from(String::from_utf8_lossy(b).trim_end_matches('\0'))
        }),
        D::Compound(c) => Value::Object(
            c.members
                .iter()
                .map(|m| {
                    let value = decode(bytes, &m.datatype, at + m.offset, stored);
                    (m.name.clone(), value)
                })
                .collect(),
        ),
        D::Array(a) => {
            let step = a.base.size().unwrap_or(0);
            let n: usize = a.shape.iter().product();
            Value::Array(
                (0..n)
                    .map(|i| decode(bytes, &a.base, at + i * step, stored))
                    .collect(),
            )
        }
        // As NDL writes a complex value: `[real, imaginary]`.
        D::Complex64 | D::Complex128 => {
            let part = match dt {
                D::Complex64 => D::Float32,
                _ => D::Float64,
            };
            let half = part.size().unwrap_or(0);
            Value::Array(vec![
                decode(bytes, &part, at, stored),
                decode(bytes, &part, at + half, stored),
            ])
        }
        other => match other.as_int() {
            Some(t) => field(t.size()).map_or(Value::Null, |b| integer(b, t, order)),
            None => Value::from(format!(
                "<a value of {}>",
                other.keyword().unwrap_or("a datatype JSON cannot hold")
            )),
        },
    }
}

/// The integer of type `t` in `bytes`, stored in `order`.
fn integer(bytes: &[u8], t: ndl_runtime::IntType, order: ByteOrder) -> Value {
    let mut wide = [0u8; 8];
    let n = bytes.len();
    match order {
        ByteOrder::Little => wide[..n].copy_from_slice(bytes),
        ByteOrder::Big => wide[..n]
            .iter_mut()
            .zip(bytes.iter().rev())
            .for_each(|(w, b)| *w = *b),
    }
    let unsigned = u64::from_le_bytes(wide);
    if t.is_signed() {
        // Sign-extend from the top bit of the stored width.
        let shift = 64 - 8 * n as u32;
        Value::from(((unsigned << shift) as i64) >> shift)
    } else {
        Value::from(unsigned)
    }
}

//! Zarr data types read back into [`Datatype`]s: the v2 `.zarray` `dtype`
//! (NumPy's type strings and field lists) and the v3 `data_type` (core
//! names, `struct` and its legacy spelling `structured`).
//!
//! The writing direction is [`data_type`](super::data_type). Records read
//! here are packed: each field follows the one before it without a gap, as
//! both versions store them.

use std::ops::Range;

use serde_json::Value;

use crate::npy::parse_scalar_typestr;
use crate::{ByteOrder, Charset, Compound, Datatype, FixedString, Member, Opaque, TimeType};

/// A v2 `dtype` read: its datatype, packed, and the byte orders its
/// numbers are in.
#[derive(Clone, Debug, PartialEq)]
pub struct V2Dtype {
    /// The datatype, packed.
    pub datatype: Datatype,
    /// The byte order of its numbers (of the first, when fields have
    /// their own): `None` when no number is wider than a byte.
    pub order: Option<ByteOrder>,
    /// The byte ranges, within one element, of the numbers in the order
    /// opposite to `order`: NumPy lets each field have its own, and so
    /// does zarr-python's v2 `dtype`. Empty for one order.
    pub other_order: Vec<Range<usize>>,
}

/// Why a stored data type could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadDataType {
    /// The dotted path of the field (empty for the whole type).
    pub field: String,
    /// What is wrong.
    pub why: String,
}

type Parsed<T> = Result<T, BadDataType>;

fn bad<T>(field: &str, why: impl Into<String>) -> Parsed<T> {
    Err(BadDataType {
        field: field.to_string(),
        why: why.into(),
    })
}

fn join(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}.{name}")
    }
}

/// Reads a Zarr v2 `dtype`: a type string or a list of `[name, dtype]` /
/// `[name, dtype, shape]` fields, nested lists for nested records.
///
/// ```
/// use ndl_runtime::lang::zarr::parse_v2_dtype;
/// use ndl_runtime::{ByteOrder, Datatype};
///
/// let read = parse_v2_dtype(&serde_json::json!(">i2")).unwrap();
/// assert_eq!((read.datatype, read.order), (Datatype::Int16, Some(ByteOrder::Big)));
/// assert_eq!(parse_v2_dtype(&serde_json::json!([["a", "<u4"], ["a", "<u4"]])).unwrap_err().field, "a");
/// let mixed = parse_v2_dtype(&serde_json::json!([["a", "<u8"], ["b", ">f8"]])).unwrap();
/// assert_eq!((mixed.order, mixed.other_order), (Some(ByteOrder::Little), vec![8..16]));
/// ```
pub fn parse_v2_dtype(dtype: &Value) -> Parsed<V2Dtype> {
    let datatype = within_limit(v2(dtype, "")?)?;
    let mut numbers = Vec::new();
    number_orders(dtype, &datatype, 0, &mut numbers)?;
    let order = numbers.first().map(|&(_, o)| o);
    let other_order = numbers
        .into_iter()
        .filter(|&(_, o)| Some(o) != order)
        .map(|(r, _)| r)
        .collect();
    Ok(V2Dtype {
        datatype,
        order,
        other_order,
    })
}

/// The most runs of numbers of one byte order a record read may have:
/// an array of records whose fields alternate orders makes one run per
/// field of each element.
const MAX_ORDER_RUNS: usize = 1 << 12;

/// Adds to `out` the byte ranges of the numbers of `dt`, read from `dtype`
/// and placed at byte `at`, each with its byte order; neighbouring numbers
/// of one order are one range.
fn number_orders(
    dtype: &Value,
    dt: &Datatype,
    at: usize,
    out: &mut Vec<(Range<usize>, ByteOrder)>,
) -> Parsed<()> {
    match (dtype, dt) {
        (Value::Array(fields), Datatype::Compound(c)) => {
            for (field, m) in fields.iter().zip(&c.members) {
                let Some(inner) = field.get(1) else { continue };
                match &m.datatype {
                    // An array of records: each element's numbers, in one
                    // range when they share an order.
                    Datatype::Array(a) if inner.is_array() => {
                        let mut element = Vec::new();
                        number_orders(inner, &a.base, 0, &mut element)?;
                        let size = a.base.size().unwrap_or(0);
                        let count: usize = a.shape.iter().product();
                        let at = at + m.offset;
                        if let [(_, order)] = element[..] {
                            push_run(out, at..at + count * size, order)?;
                            continue;
                        }
                        for k in 0..count {
                            for (r, order) in &element {
                                let shift = at + k * size;
                                push_run(out, r.start + shift..r.end + shift, *order)?;
                            }
                        }
                    }
                    whole => number_orders(inner, whole, at + m.offset, out)?,
                }
            }
        }
        (Value::String(s), _) if dt.has_multibyte_numbers() => {
            let order = parse_scalar_typestr(s)
                .and_then(|(_, o)| o)
                .unwrap_or(ByteOrder::NATIVE);
            push_run(out, at..at + dt.size().unwrap_or(0), order)?;
        }
        _ => {}
    }
    Ok(())
}

/// Adds `range` of numbers in `order` to `out`, joined to the last run
/// when that one is of the same order.
fn push_run(
    out: &mut Vec<(Range<usize>, ByteOrder)>,
    range: Range<usize>,
    order: ByteOrder,
) -> Parsed<()> {
    if let Some((last, o)) = out.last_mut()
        && *o == order
    {
        last.end = range.end;
        return Ok(());
    }
    if out.len() == MAX_ORDER_RUNS {
        return bad(
            "",
            format!("records whose numbers change byte order more than {MAX_ORDER_RUNS} times"),
        );
    }
    out.push((range, order));
    Ok(())
}

/// The largest record read: `i32::MAX` bytes, NumPy's own limit of an
/// item. Metadata claiming more is refused before anything is allocated
/// for it.
const MAX_RECORD: usize = i32::MAX as usize;

fn within_limit(dt: Datatype) -> Parsed<Datatype> {
    match dt.size() {
        Some(n) if n <= MAX_RECORD => Ok(dt),
        n => bad(
            "",
            format!(
                "records of {} bytes: more than the {MAX_RECORD} a record may have",
                n.map_or_else(|| "more than usize".into(), |n| n.to_string())
            ),
        ),
    }
}

fn v2(dtype: &Value, path: &str) -> Parsed<Datatype> {
    match dtype {
        Value::String(s) => {
            let Some((dt, _)) = parse_scalar_typestr(s) else {
                return bad(
                    path,
                    format!("`{s}` is not a NumPy type string of a fixed-size type"),
                );
            };
            Ok(dt)
        }
        Value::Array(fields) => {
            let mut record = Fields::default();
            for field in fields {
                let Some(parts) = field.as_array().filter(|p| (2..=3).contains(&p.len())) else {
                    return bad(
                        path,
                        format!("field {field} is not [name, dtype] or [name, dtype, shape]"),
                    );
                };
                let Some(name) = parts[0].as_str() else {
                    return bad(path, format!("field name {} is not a string", parts[0]));
                };
                let sub = record.field_path(path, name)?;
                let dt = v2(&parts[1], &sub)?;
                record.push(name, dt, parts.get(2), &sub)?;
            }
            record.finish(path, "a structured dtype with no fields")
        }
        other => bad(path, format!("{other} is not a dtype")),
    }
}

/// `dt` as an array field of `shape` (a list of extents; `[]` is a scalar).
fn with_shape(dt: Datatype, shape: &Value, path: &str) -> Parsed<Datatype> {
    let dims = match shape {
        Value::Array(d) => d,
        Value::Number(_) => std::slice::from_ref(shape),
        other => {
            return bad(
                path,
                format!("field shape {other} is not a list of extents"),
            );
        }
    };
    let mut extents = Vec::with_capacity(dims.len());
    for d in dims {
        match d.as_u64().and_then(|d| usize::try_from(d).ok()) {
            Some(d) => extents.push(d),
            None => {
                return bad(
                    path,
                    format!("field extent {d} is not a non-negative integer"),
                );
            }
        }
    }
    if extents.is_empty() {
        return Ok(dt);
    }
    let array = dt.array_of(&extents);
    if array.size().is_none() {
        return bad(path, format!("the field of shape {extents:?} is too large"));
    }
    Ok(array)
}

/// Reads a Zarr v3 `data_type`: a core name, `r<bits>`, a named type with a
/// `length_bytes` configuration, or `struct` / `structured`; a field of a
/// struct may give its array shape as `ndl_shape`.
///
/// ```
/// use ndl_runtime::lang::zarr::parse_v3_data_type;
///
/// let dt = parse_v3_data_type(&serde_json::json!({"name": "struct", "configuration": {"fields": [
///     {"name": "a", "data_type": "uint32"}, {"name": "b", "data_type": "r24"}
/// ]}})).unwrap();
/// assert_eq!(dt.size(), Some(7));
/// ```
pub fn parse_v3_data_type(data_type: &Value) -> Parsed<Datatype> {
    within_limit(v3(data_type, "")?)
}

fn v3(data_type: &Value, path: &str) -> Parsed<Datatype> {
    let (name, configuration) = match data_type {
        Value::String(name) => (name.as_str(), None),
        Value::Object(o) => match o.get("name").and_then(Value::as_str) {
            Some(name) => (name, o.get("configuration")),
            None => return bad(path, format!("data type {data_type} has no name")),
        },
        other => return bad(path, format!("{other} is not a data type")),
    };
    if let Some(dt) = Datatype::from_keyword(name).filter(|dt| dt.size().is_some()) {
        return Ok(dt);
    }
    let length_bytes = || {
        configuration
            .and_then(|c| c.get("length_bytes"))
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| BadDataType {
                field: path.to_string(),
                why: format!("`{name}` needs a configuration with length_bytes"),
            })
    };
    match name {
        "struct" | "structured" => {
            let fields = configuration
                .and_then(|c| c.get("fields"))
                .and_then(Value::as_array);
            match fields {
                Some(fields) => v3_fields(fields, path),
                None => bad(
                    path,
                    format!("`{name}` needs a configuration with a list of fields"),
                ),
            }
        }
        "numpy.datetime64" | "numpy.timedelta64" => time(name, configuration, path),
        "raw_bytes" => Ok(Datatype::Opaque(Opaque {
            size: length_bytes()?,
            tag: None,
        })),
        "null_terminated_bytes" | "fixed_length_bytes" => Ok(Datatype::FixedString(FixedString {
            length: length_bytes()?,
            charset: Charset::Ascii,
        })),
        "fixed_length_utf32" => {
            let n = length_bytes()?;
            if n % 4 != 0 {
                return bad(
                    path,
                    format!("fixed_length_utf32 of {n} bytes is not whole characters"),
                );
            }
            Ok(Datatype::FixedString(FixedString {
                length: n / 4,
                charset: Charset::Utf32,
            }))
        }
        raw if raw.starts_with('r') => {
            let bits = raw[1..]
                .parse::<usize>()
                .ok()
                .filter(|b| b % 8 == 0 && *b > 0);
            match bits {
                Some(bits) => Ok(Datatype::Opaque(Opaque {
                    size: bits / 8,
                    tag: None,
                })),
                None => bad(path, format!("`{raw}` is not a whole number of bytes")),
            }
        }
        other => bad(path, format!("unsupported data type `{other}`")),
    }
}

/// zarr-python's `numpy.datetime64` / `numpy.timedelta64`: a NumPy unit
/// and its multiple, `scale_factor`.
fn time(name: &str, configuration: Option<&Value>, path: &str) -> Parsed<Datatype> {
    let unit = configuration
        .and_then(|c| c.get("unit"))
        .and_then(Value::as_str);
    let scale = configuration
        .and_then(|c| c.get("scale_factor"))
        .and_then(Value::as_u64);
    let (Some(unit), Some(scale)) = (unit, scale) else {
        return bad(
            path,
            format!("`{name}` needs a configuration with a unit and a scale_factor"),
        );
    };
    let code = format!(
        "{}8[{scale}{unit}]",
        if name == "numpy.datetime64" { 'M' } else { 'm' }
    );
    match code.parse::<TimeType>() {
        Ok(t) => Ok(Datatype::Time(t)),
        Err(e) => bad(path, e.to_string()),
    }
}

fn v3_fields(fields: &[Value], path: &str) -> Parsed<Datatype> {
    let mut record = Fields::default();
    for field in fields {
        // The extension's objects, or the legacy `structured` pairs.
        let (name, dt) = match field {
            Value::Object(o) => (o.get("name").and_then(Value::as_str), o.get("data_type")),
            Value::Array(pair) if pair.len() == 2 => (pair[0].as_str(), pair.get(1)),
            _ => (None, None),
        };
        let (Some(name), Some(dt)) = (name, dt) else {
            return bad(
                path,
                format!(
                    "field {field} is neither {{\"name\", \"data_type\"}} nor [name, data_type]"
                ),
            );
        };
        let sub = record.field_path(path, name)?;
        let dt = v3(dt, &sub)?;
        record.push(name, dt, field.get("ndl_shape"), &sub)?;
    }
    record.finish(path, "a struct with no fields")
}

/// The fields of a record being read, each right after the one before.
#[derive(Default)]
struct Fields {
    members: Vec<Member>,
    size: usize,
}

impl Fields {
    /// The path of the field `name`, which must be new and not empty.
    fn field_path(&self, path: &str, name: &str) -> Parsed<String> {
        let sub = join(path, name);
        if name.is_empty() {
            return bad(
                &sub,
                "an unnamed field (NumPy's padding gap) has no place in packed records",
            );
        }
        if self.members.iter().any(|m| m.name == name) {
            return bad(&sub, "the field name occurs twice");
        }
        Ok(sub)
    }

    /// Adds the field `name` of `dt`, an array of `shape` when given.
    fn push(
        &mut self,
        name: &str,
        mut dt: Datatype,
        shape: Option<&Value>,
        sub: &str,
    ) -> Parsed<()> {
        if let Some(shape) = shape {
            dt = with_shape(dt, shape, sub)?;
        }
        let size = dt.size().ok_or_else(|| BadDataType {
            field: sub.to_string(),
            why: "no fixed size".into(),
        })?;
        self.members.push(Member::new(name, self.size, dt));
        self.size = self.size.checked_add(size).ok_or_else(|| BadDataType {
            field: sub.to_string(),
            why: "the record size overflows".into(),
        })?;
        Ok(())
    }

    fn finish(self, path: &str, empty: &str) -> Parsed<Datatype> {
        if self.members.is_empty() {
            return bad(path, empty);
        }
        Ok(Datatype::Compound(Compound {
            size: self.size,
            members: self.members,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn v2_fields_nest_and_take_shapes() {
        let s = parse_v2_dtype(&json!([
            ["id", "<u4"],
            ["p", [["x", "<f8"], ["ok", "|b1"]]],
            ["flags", "|u1", [3]]
        ]))
        .unwrap();
        assert_eq!(s.order, Some(ByteOrder::Little));
        let Datatype::Compound(c) = &s.datatype else {
            panic!()
        };
        assert_eq!(c.size, 4 + 9 + 3);
        assert_eq!(c.members[2].offset, 13);
        assert_eq!(c.members[2].datatype, Datatype::UInt8.array_of(&[3]));
    }

    #[test]
    fn v2_reads_mixed_orders_and_refuses_gaps_and_junk() {
        assert!(
            parse_v2_dtype(&json!([["a", "<u4"], ["", "|V4"]]))
                .unwrap_err()
                .why
                .contains("unnamed")
        );
        let mixed = parse_v2_dtype(&json!([
            ["a", "<u4"],
            ["b", ">u4"],
            ["c", "|u1"],
            ["d", ">u2"]
        ]))
        .unwrap();
        // b to d, the u1 between them in the run.
        assert_eq!(mixed.order, Some(ByteOrder::Little));
        let b_to_d = 4..11;
        assert_eq!(mixed.other_order, [b_to_d]);
        // Nested records in arrays: each element's fields in their orders.
        let nested = json!([["a", [["x", ">u2"], ["y", "<u2"]], [3]]]);
        let nested = parse_v2_dtype(&nested).unwrap();
        assert_eq!(nested.other_order, vec![2..4, 6..8, 10..12]);
        let alternating = json!([["a", [["x", ">u2"], ["y", "<u2"]], [1 << 12]]]);
        assert!(
            parse_v2_dtype(&alternating)
                .unwrap_err()
                .why
                .contains("change byte order")
        );
        assert!(parse_v2_dtype(&json!([["a", "<O"]])).is_err());
        assert!(parse_v2_dtype(&json!([["a"]])).is_err());
        assert!(parse_v2_dtype(&json!([["a", "<u4", [-1]]])).is_err());
        assert!(parse_v2_dtype(&json!([["a", "<u4", [u64::MAX, u64::MAX]]])).is_err());
        assert!(parse_v2_dtype(&json!([["a", "<u4"], ["a", "<u4"]])).is_err());
    }

    #[test]
    fn v3_time_as_zarr_python_writes_it() {
        let t = serde_json::json!({"name": "numpy.datetime64", "configuration": {"unit": "ms", "scale_factor": 10}});
        let dt = parse_v3_data_type(&t).unwrap();
        assert_eq!(dt, Datatype::Time("M8[10ms]".parse().unwrap()));
        assert_eq!(dt.to_zarr_v3_data_type().unwrap(), t);
        let d = serde_json::json!({"name": "numpy.timedelta64", "configuration": {"unit": "s", "scale_factor": 1}});
        assert_eq!(
            parse_v3_data_type(&d).unwrap(),
            Datatype::Time("m8[s]".parse().unwrap())
        );
        for bad in [
            serde_json::json!({"name": "numpy.datetime64", "configuration": {"unit": "fortnight", "scale_factor": 1}}),
            serde_json::json!({"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 0}}),
            serde_json::json!({"name": "numpy.datetime64", "configuration": {"unit": "s"}}),
            serde_json::json!({"name": "numpy.timedelta64"}),
        ] {
            assert!(parse_v3_data_type(&bad).is_err(), "{bad}");
        }
        let v2 = parse_v2_dtype(&serde_json::json!([["t", ">M8[ns]"], ["d", ">m8[s]"]])).unwrap();
        assert_eq!(v2.order, Some(ByteOrder::Big));
    }

    #[test]
    fn v3_struct_both_spellings() {
        let objects = json!({"name": "struct", "configuration": {"fields": [
            {"name": "a", "data_type": "uint32"},
            {"name": "s", "data_type": {"name": "null_terminated_bytes", "configuration": {"length_bytes": 5}}}
        ]}});
        let pairs = json!({"name": "structured", "configuration": {"fields": [["a", "uint32"], ["s", {"name": "null_terminated_bytes", "configuration": {"length_bytes": 5}}]]}});
        assert_eq!(
            parse_v3_data_type(&objects).unwrap(),
            parse_v3_data_type(&pairs).unwrap()
        );
        assert_eq!(parse_v3_data_type(&objects).unwrap().size(), Some(9));
        assert_eq!(parse_v3_data_type(&json!("r24")).unwrap().size(), Some(3));
        assert!(parse_v3_data_type(&json!("string")).is_err());
        assert!(parse_v3_data_type(&json!({"name": "struct"})).is_err());
        assert!(
            parse_v3_data_type(
                &json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 6}})
            )
            .is_err()
        );
    }
}

//! Zarr data types written from [`Datatype`]s: the v2 `dtype`, the v3
//! `data_type`, the v3 zero fill value, and the legacy `structured`
//! spelling.

use std::ops::Range;

use serde_json::{Map, Value, json};

use crate::lang::{LangError, Language, child};
use crate::npy::{ByteOrder, scalar_typestr};
use crate::{Charset, Compound, Datatype};

impl Datatype {
    /// The Zarr v2 `dtype` of this datatype: a type string, or a list of
    /// `[name, dtype]` / `[name, dtype, shape]` entries for a compound.
    ///
    /// ```
    /// use ndl_runtime::npy::ByteOrder;
    /// use ndl_runtime::{Compound, Datatype, Member};
    ///
    /// let rec = Datatype::Compound(Compound {
    ///     size: 16,
    ///     members: vec![
    ///         Member::new("id", 0, Datatype::UInt32),
    ///         Member::new("xy", 4, Datatype::Float32.array_of(&[2])),
    ///         Member::new("ok", 12, Datatype::Bool),
    ///         Member::new("c", 13, Datatype::UInt8.array_of(&[3])),
    ///     ],
    /// });
    /// let dtype = rec.to_zarr_v2_dtype(ByteOrder::Little).unwrap();
    /// assert_eq!(
    ///     dtype.to_string(),
    ///     r#"[["id","<u4"],["xy","<f4",[2]],["ok","|b1"],["c","|u1",[3]]]"#
    /// );
    /// // The C layout of (u8, f64) has 7 bytes of padding: refused.
    /// let padded = Compound::c_layout([("a", Datatype::UInt8), ("b", Datatype::Float64)]).unwrap();
    /// assert!(Datatype::Compound(padded).to_zarr_v2_dtype(ByteOrder::Little).is_err());
    /// ```
    pub fn to_zarr_v2_dtype(&self, order: ByteOrder) -> Result<Value, LangError> {
        self.to_zarr_v2_dtype_mixed(order, &[])
    }

    /// The Zarr v2 `dtype` of this datatype with its numbers in `order`,
    /// but those in the byte ranges `other_order` (within one element) in
    /// the opposite order: each field with its own, as NumPy and
    /// zarr-python allow.
    ///
    /// ```
    /// use ndl_runtime::{ByteOrder, Compound, Datatype};
    ///
    /// let rec = Compound::c_layout([("a", Datatype::UInt64), ("b", Datatype::Float64)]).unwrap();
    /// let dtype = Datatype::Compound(rec).to_zarr_v2_dtype_mixed(ByteOrder::Little, &[8..16]).unwrap();
    /// assert_eq!(dtype.to_string(), r#"[["a","<u8"],["b",">f8"]]"#);
    /// ```
    pub fn to_zarr_v2_dtype_mixed(
        &self,
        order: ByteOrder,
        other_order: &[Range<usize>],
    ) -> Result<Value, LangError> {
        self.validate()?;
        let orders = |at: usize| order.at(other_order, at);
        // Zarr has no array of arrays: NumPy's ('<f8', (5,)) within (2,)
        // is its (2, 5).
        v2_dtype(&self.folded(), &orders, 0, &[])
    }

    /// The Zarr v3 `data_type` of this datatype: a name, a
    /// `{"name", "configuration"}` object, or a `struct` for a packed
    /// compound.
    ///
    /// ```
    /// use ndl_runtime::{Compound, Datatype, Member};
    ///
    /// let rec = Datatype::Compound(Compound {
    ///     size: 12,
    ///     members: vec![
    ///         Member::new("x", 0, Datatype::Float32),
    ///         Member::new("y", 4, Datatype::Float64),
    ///     ],
    /// });
    /// assert_eq!(
    ///     rec.to_zarr_v3_data_type().unwrap(),
    ///     serde_json::json!({"name": "struct", "configuration": {"fields": [
    ///         {"name": "x", "data_type": "float32"},
    ///         {"name": "y", "data_type": "float64"}
    ///     ]}})
    /// );
    /// ```
    pub fn to_zarr_v3_data_type(&self) -> Result<Value, LangError> {
        self.validate()?;
        if *self == Datatype::String {
            return Ok(json!("string"));
        }
        v3_data_type(&self.folded(), &[])
    }
}

/// The Zarr v3 JSON of a zero fill value of `dt`: `0`, `0.0`, `false`,
/// `[0.0, 0.0]` for complex, `""` for strings, base64 zeros for raw bytes,
/// and for a `struct` an object giving every field, as the extension
/// requires.
///
/// ```
/// use ndl_runtime::lang::zarr::v3_fill_value;
/// use ndl_runtime::{Compound, Datatype, Member};
///
/// let rec = Datatype::Compound(Compound {
///     size: 9,
///     members: vec![Member::new("ok", 0, Datatype::Bool), Member::new("z", 1, Datatype::Complex64)],
/// });
/// assert_eq!(v3_fill_value(&rec).unwrap(), serde_json::json!({"ok": false, "z": [0.0, 0.0]}));
/// ```
pub fn v3_fill_value(dt: &Datatype) -> Result<Value, LangError> {
    // Checks that `dt` has a v3 form at all, so the fill cannot describe
    // something the data type does not.
    dt.to_zarr_v3_data_type()?;
    Ok(zero(dt))
}

fn zero(dt: &Datatype) -> Value {
    match dt {
        Datatype::Bool => json!(false),
        Datatype::Float16 | Datatype::Float32 | Datatype::Float64 => json!(0.0),
        Datatype::Complex64 | Datatype::Complex128 => json!([0.0, 0.0]),
        Datatype::FixedString(_) | Datatype::String => json!(""),
        Datatype::Opaque(o) => json!(base64_zeros(o.size)),
        Datatype::Compound(c) => {
            let fields: Map<String, Value> = c
                .members
                .iter()
                .map(|m| (m.name.clone(), zero(&m.datatype)))
                .collect();
            Value::Object(fields)
        }
        // Integers, enums (stored as their base) and times (the epoch or
        // zero; zarr-python reads an integer fill of a time).
        _ => json!(0),
    }
}

/// Base64 of `n` zero bytes: every full group of 3 bytes is `AAAA`, a
/// trailing 1 or 2 bytes `AA==` / `AAA=`.
pub(crate) fn base64_zeros(n: usize) -> String {
    let mut s = "AAAA".repeat(n / 3);
    match n % 3 {
        1 => s.push_str("AA=="),
        2 => s.push_str("AAA="),
        _ => {}
    }
    s
}

/// The legacy `structured` spelling of a v3 record `data_type`, which
/// zarr-python 3.1 reads: fields as `[name, data_type]` pairs, nested
/// records too.
pub(crate) fn legacy_structured(data_type: &Value) -> Value {
    let Some(fields) = data_type
        .pointer("/configuration/fields")
        .and_then(Value::as_array)
    else {
        return data_type.clone();
    };
    let fields: Vec<Value> = fields
        .iter()
        .map(|f| json!([f["name"], legacy_structured(&f["data_type"])]))
        .collect();
    json!({"name": "structured", "configuration": {"fields": fields}})
}

/// The v2 `dtype` of `dt`, placed at byte `at` of an element whose number
/// at byte `x` is in `orders(x)`.
fn v2_dtype(
    dt: &Datatype,
    orders: &dyn Fn(usize) -> ByteOrder,
    at: usize,
    path: &[String],
) -> Result<Value, LangError> {
    match dt {
        Datatype::Compound(c) => {
            check_record(c, Language::ZarrV2, path, dt)?;
            // Zarr's field list is read back to back, as NumPy's descr.
            c.by_offset()
                .into_iter()
                .map(|m| {
                    let p = child(path, &m.name);
                    Ok(match &m.datatype {
                        // Every element of an array is as its first.
                        Datatype::Array(a) => {
                            json!([
                                m.name,
                                v2_dtype(&a.base, orders, at + m.offset, &p)?,
                                a.shape
                            ])
                        }
                        other => json!([m.name, v2_dtype(other, orders, at + m.offset, &p)?]),
                    })
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array)
        }
        Datatype::Array(_) => Err(LangError::unsupported(
            Language::ZarrV2,
            path,
            dt,
            "a Zarr dtype cannot be an array; put the shape into the array's shape \
             (v2_array_metadata does) or make it a compound member",
        )),
        other => scalar_typestr(other, orders(at))
            .map(Value::String)
            .ok_or_else(|| {
                LangError::unsupported(Language::ZarrV2, path, other, no_fixed_size(other))
            }),
    }
}

fn v3_data_type(dt: &Datatype, path: &[String]) -> Result<Value, LangError> {
    let named = |name: &str, length_bytes: usize| json!({"name": name, "configuration": {"length_bytes": length_bytes}});
    Ok(match dt {
        Datatype::Enum(e) => json!(e.base.keyword()),
        Datatype::FixedString(s) => match s.charset {
            Charset::Ascii => named("null_terminated_bytes", s.length),
            Charset::Utf32 => named("fixed_length_utf32", 4 * s.length),
        },
        Datatype::Opaque(o) => named("raw_bytes", o.size),
        // zarr-python's extension (3.1 and later), a multiple as `scale_factor`.
        Datatype::Time(t) => json!({
            "name": format!("numpy.{}", t.kind.numpy_name()),
            "configuration": {"unit": t.unit.unit().code(), "scale_factor": t.unit.multiple()},
        }),
        Datatype::Compound(c) => {
            check_record(c, Language::ZarrV3, path, dt)?;
            // The struct's fields are packed back to back, in offset order.
            let fields = c
                .by_offset()
                .into_iter()
                .map(|m| {
                    let dt = v3_data_type(&m.datatype, &child(path, &m.name))?;
                    Ok(json!({"name": m.name, "data_type": dt}))
                })
                .collect::<Result<Vec<_>, LangError>>()?;
            json!({"name": "struct", "configuration": {"fields": fields}})
        }
        Datatype::Array(_) => {
            return Err(LangError::unsupported(
                Language::ZarrV3,
                path,
                dt,
                "the Zarr v3 struct data type has no subarray fields, and a data type \
                 cannot be an array (put the shape into the array's shape)",
            ));
        }
        Datatype::String
        | Datatype::Vlen(_)
        | Datatype::Optional(_)
        | Datatype::ObjRef
        | Datatype::RegRef(_) => {
            return Err(LangError::unsupported(
                Language::ZarrV3,
                path,
                dt,
                no_fixed_size(dt),
            ));
        }
        // bool, the integers, float16/32/64 and complex64/128 are named
        // like their NDL keywords.
        other => json!(other.keyword().unwrap_or_default()),
    })
}

fn no_fixed_size(dt: &Datatype) -> &'static str {
    match dt {
        Datatype::ObjRef | Datatype::RegRef(_) => "Zarr has no reference type",
        Datatype::Optional(_) => {
            "zarr-python reads no optional data type; use a `fill_value` for the missing values"
        }
        _ => "a Zarr structured or fixed-size dtype cannot hold variable-length data",
    }
}

/// The rules both Zarr versions share for a compound: at least one member,
/// no empty names, no padding.
fn check_record(
    c: &Compound,
    language: Language,
    path: &[String],
    dt: &Datatype,
) -> Result<(), LangError> {
    if c.members.is_empty() {
        return Err(LangError::unsupported(
            language,
            path,
            dt,
            "a Zarr structured dtype needs at least one field",
        ));
    }
    if let Some(m) = c.members.iter().find(|m| m.name.is_empty()) {
        return Err(LangError::BadName {
            language,
            role: "compound member",
            name: m.name.clone(),
            why: "Zarr field names must not be empty (NumPy's list form renames them f<i>)".into(),
        });
    }
    if !c.is_packed() {
        let covered: usize = c.members.iter().filter_map(|m| m.datatype.size()).sum();
        let why = match language {
            Language::ZarrV3 => format!(
                "the record has padding ({} bytes, its members cover {covered}) and the \
                 Zarr v3 struct data type packs fields without gaps; use a packed record",
                c.size
            ),
            _ => format!(
                "the record has padding ({} bytes, its members cover {covered}); zarr-python 2 \
                 writes gaps as [\"\", \"|Vn\"] but reads them back as real fields (issue #1629) \
                 and zarr-python 3.1 repacks the record, so every later field would be misread; \
                 use a packed record",
                c.size
            ),
        };
        return Err(LangError::unsupported(language, path, dt, why));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_of_zeros() {
        assert_eq!(base64_zeros(0), "");
        assert_eq!(base64_zeros(1), "AA==");
        assert_eq!(base64_zeros(2), "AAA=");
        assert_eq!(base64_zeros(3), "AAAA");
        assert_eq!(base64_zeros(4), "AAAAAA==");
    }

    #[test]
    fn packed_records_declared_out_of_offset_order_list_fields_by_offset() {
        let c = Compound {
            size: 12,
            members: vec![
                crate::Member::new("b", 4, Datatype::Float64),
                crate::Member::new("a", 0, Datatype::Int32),
            ],
        };
        let dt = Datatype::Compound(c);
        assert_eq!(
            dt.to_zarr_v2_dtype(ByteOrder::Little).unwrap(),
            serde_json::json!([["a", "<i4"], ["b", "<f8"]])
        );
        let fields = &dt.to_zarr_v3_data_type().unwrap()["configuration"]["fields"];
        assert_eq!(fields[0]["name"], "a");
        assert_eq!(fields[1]["name"], "b");
    }
}

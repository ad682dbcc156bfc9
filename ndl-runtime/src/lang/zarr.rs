//! Zarr: the v2 `.zarray` `dtype` and the v3 `data_type`, plus whole array
//! metadata documents for an uncompressed array.
//!
//! **v2** (`zarr-specs` v2.0, "Data type encoding"): a scalar is its NumPy
//! type string with byte order (`"<f8"`, `"|b1"`, `"|S12"`, `"<U3"`,
//! `"|V16"`); a compound is a list of `[name, dtype]` entries, an array
//! member `[name, dtype, shape]`, a nested compound a nested list.
//!
//! **v3**: the scalar data type names (`bool`, `int8` … `uint64`,
//! `float16/32/64`, `complex64/128`), `null_terminated_bytes`,
//! `fixed_length_utf32` and `raw_bytes` with `length_bytes`, and compounds
//! as the `struct` extension (zarr-extensions `data-types/struct`, the
//! name zarr-python 3.2 writes):
//! `{"name": "struct", "configuration": {"fields": [{"name": ..., "data_type": ...}]}}`.
//!
//! Decisions:
//!
//! * **Padding is an error, in both versions.** v3 `struct` packs fields
//!   without gaps, so a padded layout has no v3 form. In v2 the only
//!   spelling of a gap is NumPy's `["", "|Vn"]` entry, which zarr-python 2
//!   writes but reads back as a real field named `f<i>` (writes then fail,
//!   zarr-python issue #1629) and which zarr-python 3.1 drops, silently
//!   repacking the record. Either reader would misplace every later field,
//!   so a padded compound is refused rather than described wrongly. Use a
//!   packed record (`#[repr(C, packed)]`) for Zarr.
//! * Empty member names are refused: NumPy's list form renames them `f<i>`,
//!   and v3 requires non-empty names.
//! * v3 `struct` has no subarray field, so an array member is an error
//!   there; in v2 it is `[name, dtype, shape]`.
//! * An enum is its base integer type, an opaque is raw bytes (`|Vn` /
//!   `raw_bytes`): the names and the tag are dropped.
//! * A top-level array datatype is no Zarr dtype; the metadata builders
//!   fold its shape into the array's shape, as NumPy does.
//! * Variable-length data (`string`, `vlen`) and references are errors,
//!   except a top-level `string` in v3, which is Zarr's `string` data type
//!   with the `vlen-utf8` codec.

use serde_json::{json, Map, Value};

use crate::lang::{child, LangError, Language};
use crate::npy::{scalar_typestr, ByteOrder};
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
        self.validate()?;
        v2_dtype(self, order, &[])
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
        v3_data_type(self, &[])
    }
}

/// A Zarr v2 `.zarray` document for an uncompressed, C-ordered array of
/// `shape` elements of `dt`, without fill value, in chunks of `chunks`
/// (`None`: one chunk holding the whole array). A top-level array
/// datatype's shape is appended to both, as NumPy does.
///
/// ```
/// use ndl_runtime::lang::zarr::v2_array_metadata;
/// use ndl_runtime::npy::ByteOrder;
/// use ndl_runtime::Datatype;
///
/// let meta = v2_array_metadata(&Datatype::Int16, ByteOrder::Big, &[10], None).unwrap();
/// assert_eq!(meta["dtype"], ">i2");
/// assert_eq!(meta["chunks"], serde_json::json!([10]));
/// assert_eq!(meta["compressor"], serde_json::Value::Null);
/// ```
pub fn v2_array_metadata(
    dt: &Datatype,
    order: ByteOrder,
    shape: &[u64],
    chunks: Option<&[u64]>,
) -> Result<Value, LangError> {
    let (element, shape, chunks) = fold_array(dt, shape, chunks, Language::ZarrV2)?;
    Ok(json!({
        "zarr_format": 2,
        "shape": shape,
        "chunks": chunks,
        "dtype": element.to_zarr_v2_dtype(order)?,
        "compressor": null,
        "fill_value": null,
        "order": "C",
        "filters": null,
        "dimension_separator": ".",
    }))
}

/// A Zarr v3 `zarr.json` document for an uncompressed array of `shape`
/// elements of `dt` stored with byte order `order` (the `bytes` codec's
/// `endian`), fill value zero, in regular chunks of `chunks` (`None`: one
/// chunk holding the whole array). A top-level array datatype's shape is
/// appended to both.
///
/// ```
/// use ndl_runtime::lang::zarr::v3_array_metadata;
/// use ndl_runtime::npy::ByteOrder;
/// use ndl_runtime::Datatype;
///
/// let meta = v3_array_metadata(&Datatype::Float32.array_of(&[3]), ByteOrder::Little, &[4], None).unwrap();
/// assert_eq!(meta["shape"], serde_json::json!([4, 3]));
/// assert_eq!(meta["data_type"], "float32");
/// assert_eq!(meta["fill_value"], 0.0);
/// assert_eq!(meta["codecs"][0]["configuration"]["endian"], "little");
/// ```
pub fn v3_array_metadata(
    dt: &Datatype,
    order: ByteOrder,
    shape: &[u64],
    chunks: Option<&[u64]>,
) -> Result<Value, LangError> {
    let (element, shape, chunks) = fold_array(dt, shape, chunks, Language::ZarrV3)?;
    let data_type = element.to_zarr_v3_data_type()?;
    let (fill, codec) = if *element == Datatype::String {
        (json!(""), json!({"name": "vlen-utf8"}))
    } else {
        (
            v3_fill_value(element)?,
            json!({"name": "bytes", "configuration": {"endian": order.name()}}),
        )
    };
    Ok(json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": shape,
        "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill,
        "codecs": [codec],
        "attributes": {},
    }))
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
        // Integers and enums (stored as their base).
        _ => json!(0),
    }
}

/// Base64 of `n` zero bytes: every full group of 3 bytes is `AAAA`, a
/// trailing 1 or 2 bytes `AA==` / `AAA=`.
fn base64_zeros(n: usize) -> String {
    let mut s = "AAAA".repeat(n / 3);
    match n % 3 {
        1 => s.push_str("AA=="),
        2 => s.push_str("AAA="),
        _ => {}
    }
    s
}

type Folded<'a> = (&'a Datatype, Vec<u64>, Vec<u64>);

/// Splits a top-level array datatype into its element and appends its
/// shape to the array shape and the chunk shape.
fn fold_array<'a>(
    dt: &'a Datatype,
    shape: &[u64],
    chunks: Option<&[u64]>,
    language: Language,
) -> Result<Folded<'a>, LangError> {
    let mut chunks = match chunks {
        Some(c) if c.len() != shape.len() => {
            return Err(LangError::Shape {
                language,
                why: format!(
                    "the chunk shape {c:?} has {} dimensions, the array shape {shape:?} has {}",
                    c.len(),
                    shape.len()
                ),
            })
        }
        Some(c) => c.to_vec(),
        // Zarr chunks must be at least 1 long, even along an empty dimension.
        None => shape.iter().map(|&d| d.max(1)).collect(),
    };
    if chunks.contains(&0) {
        return Err(LangError::Shape {
            language,
            why: format!("chunk shape {chunks:?} has a zero extent"),
        });
    }
    let mut shape = shape.to_vec();
    let element = match dt {
        Datatype::Array(a) => {
            let extra = a.shape.iter().map(|&d| d as u64);
            shape.extend(extra.clone());
            chunks.extend(extra.map(|d| d.max(1)));
            &*a.base
        }
        other => other,
    };
    Ok((element, shape, chunks))
}

fn v2_dtype(dt: &Datatype, order: ByteOrder, path: &[String]) -> Result<Value, LangError> {
    match dt {
        Datatype::Compound(c) => {
            check_record(c, Language::ZarrV2, path, dt)?;
            c.members
                .iter()
                .map(|m| {
                    let p = child(path, &m.name);
                    Ok(match &m.datatype {
                        Datatype::Array(a) => {
                            json!([m.name, v2_dtype(&a.base, order, &p)?, a.shape])
                        }
                        other => json!([m.name, v2_dtype(other, order, &p)?]),
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
        other => scalar_typestr(other, order)
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
        Datatype::Compound(c) => {
            check_record(c, Language::ZarrV3, path, dt)?;
            let fields = c
                .members
                .iter()
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
            ))
        }
        Datatype::String | Datatype::Vlen(_) | Datatype::ObjRef | Datatype::RegRef(_) => {
            return Err(LangError::unsupported(
                Language::ZarrV3,
                path,
                dt,
                no_fixed_size(dt),
            ))
        }
        // bool, the integers, float16/32/64 and complex64/128 are named
        // like their NDL keywords.
        other => json!(other.keyword().unwrap_or_default()),
    })
}

fn no_fixed_size(dt: &Datatype) -> &'static str {
    match dt {
        Datatype::ObjRef | Datatype::RegRef(_) => "Zarr has no reference type",
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
}

//! The array zarrs is handed to encode and decode chunks: the v3 form of
//! every array, which is never stored, with raw bits where zarrs lacks a
//! data type, records as `struct` (array fields included) and v2 fill
//! values in v3 form.

use ndl_runtime::{ByteOrder, Charset, Datatype, FixedString};
use serde_json::{Value, json};
use zarrs::metadata::Endianness;

use crate::struct_type::{self, fill_json};

/// Whether zarrs knows `stored`, a top-level fixed string of bytes or
/// opaque bytes, only as raw bits (zarr-python's names for them are
/// `null_terminated_bytes` and `raw_bytes`).
pub(crate) fn is_raw(stored: &Datatype) -> bool {
    matches!(
        stored,
        Datatype::Opaque(_)
            | Datatype::FixedString(FixedString {
                charset: Charset::Ascii,
                ..
            })
    )
}

/// The data type and fill value zarrs is given for `stored`, which zarrs
/// only encodes and decodes: raw bits of the same size where zarrs lacks
/// the type, records as `struct`, zeros for the fill.
pub(crate) fn data_type(stored: &Datatype) -> Result<(Value, Value), String> {
    let size = stored.size().unwrap_or(0);
    if is_raw(stored) {
        // Its fill is a list of its bytes in the metadata.
        if size > MAX_RAW_BYTES {
            return Err(format!(
                "an element of {size} bytes stored as raw bits: Zarr stores here hold at most {MAX_RAW_BYTES}"
            ));
        }
        return Ok((json!(format!("r{}", 8 * size)), json!(vec![0u8; size])));
    }
    Ok((struct_v3(stored)?, fill_json(stored, &vec![0; size])))
}

/// The largest element stored as raw bits (a fixed string, an opaque
/// value): 16 MiB.
const MAX_RAW_BYTES: usize = 16 << 20;

/// The `struct` data type zarrs is handed for a v2 array: the v3 form, but
/// array fields (which v2 has and the v3 struct has not) carry their shape
/// as `ndl_shape`.
fn struct_v3(dt: &Datatype) -> Result<Value, String> {
    let Datatype::Compound(c) = dt else {
        return dt.to_zarr_v3_data_type().map_err(|e| e.to_string());
    };
    let mut fields = Vec::with_capacity(c.members.len());
    for m in &c.members {
        let field = match &m.datatype {
            Datatype::Array(a) => {
                json!({"name": m.name, "data_type": struct_v3(&a.base)?, "ndl_shape": a.shape})
            }
            other => json!({"name": m.name, "data_type": struct_v3(other)?}),
        };
        fields.push(field);
    }
    Ok(json!({"name": "struct", "configuration": {"fields": fields}}))
}

/// Whether a v3 document's data type is a record.
pub(crate) fn is_struct(doc: &Value) -> bool {
    matches!(
        doc.pointer("/data_type/name").and_then(Value::as_str),
        Some("struct" | "structured")
    )
}

/// Sets `endian: little` on a `bytes` codec that gives none.
pub(crate) fn default_endian(doc: &mut Value) {
    let Some(codecs) = doc.get_mut("codecs").and_then(Value::as_array_mut) else {
        return;
    };
    for codec in codecs {
        if codec.get("name").and_then(Value::as_str) == Some("bytes")
            && codec.pointer("/configuration/endian").is_none()
        {
            *codec = json!({"name": "bytes", "configuration": {"endian": "little"}});
        }
    }
}

/// zarrs' name of a byte order.
pub(crate) fn endianness(order: ByteOrder) -> Endianness {
    match order {
        ByteOrder::Big => Endianness::Big,
        ByteOrder::Little => Endianness::Little,
    }
}

/// The engine's v3 fill value for a v2 `fill_value`: `zeros` for `null` (no
/// fill value: zarr-python reads missing chunks as zeros too), base64 of a
/// record for records, a bool for a number of a bool, the value itself for
/// other scalars.
pub(crate) fn v2_fill(stored: &Datatype, fill: &Value, zeros: Value) -> Result<Value, String> {
    match (stored, fill) {
        // Raw bits: zeros whatever the string says (zarr-python writes `""`).
        (_, Value::Null) => Ok(zeros),
        _ if is_raw(stored) => Ok(zeros),
        // zarr-python 2 wrote `0` for bools and for `U` strings (its
        // default fill); zarr-python reads them as false and "".
        (Datatype::Bool, Value::Number(n)) => Ok(json!(n.as_f64() != Some(0.0))),
        (Datatype::FixedString(_), Value::Number(n)) if n.as_f64() == Some(0.0) => Ok(zeros),
        (Datatype::Compound(_), Value::String(_)) => {
            let bytes = struct_type::fill_bytes(stored, fill)
                .ok_or_else(|| format!("fill_value {fill} does not fit the dtype"))?;
            Ok(fill_json(stored, &bytes))
        }
        (Datatype::Compound(_), other) => Err(format!(
            "fill_value {other} of a structured dtype is not base64"
        )),
        (_, other) => Ok(other.clone()),
    }
}

#[cfg(test)]
mod tests {
    use ndl_runtime::FixedString;

    use super::*;

    #[test]
    fn zarr_python_2_fill_values_of_bools_and_strings_are_read() {
        let zeros = json!("zeros");
        let fill = |dt: &Datatype, v: Value| v2_fill(dt, &v, zeros.clone()).unwrap();
        assert_eq!(fill(&Datatype::Bool, json!(0)), json!(false));
        assert_eq!(fill(&Datatype::Bool, json!(1)), json!(true));
        assert_eq!(fill(&Datatype::Bool, json!(true)), json!(true));
        let u3 = Datatype::FixedString(FixedString {
            charset: Charset::Utf32,
            length: 3,
        });
        assert_eq!(fill(&u3, json!(0)), zeros);
        assert_eq!(fill(&u3, json!("")), json!(""));
        assert_eq!(fill(&Datatype::Int32, json!(0)), json!(0));
    }

    /// A raw element's fill is a list of its bytes: past 16 MiB it is
    /// refused (its bit count overflowed at 2^64 - 1 bytes).
    #[test]
    fn raw_elements_past_16_mib_are_refused() {
        let string = |length| {
            Datatype::FixedString(FixedString {
                length,
                charset: Charset::Ascii,
            })
        };
        assert!(
            data_type(&string(usize::MAX))
                .unwrap_err()
                .contains("at most 16777216")
        );
        let (name, fill) = data_type(&string(3)).unwrap();
        assert_eq!((name, fill), (json!("r24"), json!([0, 0, 0])));
    }
}

//! Stored netCDF-3 values (big-endian) as numbers: widened to 64 bits,
//! or as JSON for attributes.

use serde_json::Value;

use super::header::NcType;

/// One stored big-endian value as 8 native bytes: a double's bits, or an
/// integer widened to int64.
pub(crate) fn widened(kind: NcType, v: &[u8]) -> i64 {
    let mut be = [0u8; 8];
    be[8 - v.len()..].copy_from_slice(v);
    let raw = u64::from_be_bytes(be);
    let bits = 8 * v.len() as u32;
    match kind {
        // Signed: sign-extend from the stored width.
        NcType::Byte | NcType::Short | NcType::Int | NcType::Int64 => {
            ((raw << (64 - bits)) as i64) >> (64 - bits)
        }
        _ => raw as i64,
    }
}

/// Attribute values of a numeric `kind`, stored big-endian, as JSON
/// numbers (a float JSON cannot hold, as its text).
pub(crate) fn numbers(kind: NcType, bytes: &[u8]) -> Vec<Value> {
    bytes
        .chunks_exact(kind.size())
        .map(|v| match kind {
            NcType::Float => float(f64::from(f32::from_be_bytes(
                v.try_into().expect("4 bytes"),
            ))),
            NcType::Double => float(f64::from_be_bytes(v.try_into().expect("8 bytes"))),
            NcType::UInt64 => Value::from(u64::from_be_bytes(v.try_into().expect("8 bytes"))),
            other => Value::from(widened(other, v)),
        })
        .collect()
}

fn float(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or_else(|| Value::from(v.to_string()), Value::Number)
}

/// A `char` attribute's text, without the NULs some writers pad it with
/// (bytes that are not UTF-8 shown as U+FFFD).
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .trim_end_matches('\0')
        .to_string()
}

//! The Zarr `struct` data type (zarr-extensions `data-types/struct`) as a
//! zarrs data type extension, built at run time from the metadata: one
//! implementation serves every record type.
//!
//! Elements are packed records in native byte order. The `bytes` codec
//! turns every number of every field around when the array's `endian` is
//! the other one; the legacy name `structured` (zarr-python 3.1) is read
//! as the same type.

use std::borrow::Cow;
use std::sync::{Arc, Once};

use base64::Engine as _;
use ndl_runtime::lang::zarr::parse_v3_data_type;
use ndl_runtime::records::PackedLayout;
use ndl_runtime::{ByteOrder, Charset, Datatype};
use serde_json::{Map, Value, json};
use zarrs::array::{DataType, DataTypeSize, FillValueMetadata};
use zarrs::metadata::v3::MetadataV3;
use zarrs::metadata::{Configuration, Endianness};
use zarrs::plugin::{PluginCreateError, ZarrVersion};
use zarrs_data_type::codec_traits::bytes::{BytesCodecEndiannessMissingError, BytesDataTypeTraits};
use zarrs_data_type::{
    DataTypeFillValueError, DataTypeFillValueMetadataError, DataTypePluginV3,
    DataTypeRuntimePluginV3, DataTypeTraits, FillValue,
};

use crate::python_json::float_json;

/// A packed record data type.
#[derive(Debug)]
pub(crate) struct StructDataType {
    packed: PackedLayout,
    configuration: Configuration,
}

zarrs::plugin::impl_extension_aliases!(StructDataType, v3: "struct", ["structured"]);

inventory::submit! {
    DataTypePluginV3::new::<StructDataType>()
}

zarrs_data_type::register_data_type_extension_codec!(
    StructDataType,
    zarrs_data_type::codec_traits::bytes::BytesDataTypePlugin,
    zarrs_data_type::codec_traits::bytes::BytesDataTypeTraits
);

/// Registers the data type at run time too: a link-time registration can be
/// dropped by the linker when nothing else in its object file is used.
pub(crate) fn register() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        zarrs_data_type::register_data_type_v3(DataTypeRuntimePluginV3::new(
            |name| name == "struct" || name == "structured",
            <StructDataType as zarrs_data_type::DataTypeTraitsV3>::create,
        ));
    });
}

impl zarrs_data_type::DataTypeTraitsV3 for StructDataType {
    fn create(metadata: &MetadataV3) -> Result<DataType, PluginCreateError> {
        let value =
            serde_json::to_value(metadata).map_err(|e| PluginCreateError::Other(e.to_string()))?;
        let datatype = parse_v3_data_type(&value)
            .map_err(|e| PluginCreateError::Other(format!("field `{}`: {}", e.field, e.why)))?;
        let packed =
            PackedLayout::new(&datatype).map_err(|e| PluginCreateError::Other(e.to_string()))?;
        let configuration = metadata.configuration().cloned().unwrap_or_default();
        Ok(Arc::new(StructDataType {
            packed,
            configuration,
        })
        .into())
    }
}

impl DataTypeTraits for StructDataType {
    fn configuration(&self, _version: ZarrVersion) -> Configuration {
        self.configuration.clone()
    }

    fn size(&self) -> DataTypeSize {
        DataTypeSize::Fixed(self.packed.size())
    }

    fn fill_value(
        &self,
        fill_value_metadata: &FillValueMetadata,
        _version: ZarrVersion,
    ) -> Result<FillValue, DataTypeFillValueMetadataError> {
        let value = serde_json::to_value(fill_value_metadata)
            .map_err(|_| DataTypeFillValueMetadataError)?;
        fill_bytes(self.packed.datatype(), &value)
            .map(FillValue::new)
            .ok_or(DataTypeFillValueMetadataError)
    }

    fn metadata_fill_value(
        &self,
        fill_value: &FillValue,
    ) -> Result<FillValueMetadata, DataTypeFillValueError> {
        let bytes = fill_value.as_ne_bytes();
        if bytes.len() != self.packed.size() {
            return Err(DataTypeFillValueError);
        }
        serde_json::from_value(fill_json(self.packed.datatype(), bytes))
            .map_err(|_| DataTypeFillValueError)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl BytesDataTypeTraits for StructDataType {
    fn encode<'a>(
        &self,
        bytes: Cow<'a, [u8]>,
        endianness: Option<Endianness>,
    ) -> Result<Cow<'a, [u8]>, BytesCodecEndiannessMissingError> {
        self.turn(bytes, endianness)
    }

    fn decode<'a>(
        &self,
        bytes: Cow<'a, [u8]>,
        endianness: Option<Endianness>,
    ) -> Result<Cow<'a, [u8]>, BytesCodecEndiannessMissingError> {
        self.turn(bytes, endianness)
    }
}

impl StructDataType {
    /// Native order to `endianness` and back: the same swaps.
    fn turn<'a>(
        &self,
        bytes: Cow<'a, [u8]>,
        endianness: Option<Endianness>,
    ) -> Result<Cow<'a, [u8]>, BytesCodecEndiannessMissingError> {
        if !self.packed.has_multibyte_numbers() {
            return Ok(bytes);
        }
        let endianness = endianness.ok_or(BytesCodecEndiannessMissingError)?;
        if endianness == Endianness::native() {
            return Ok(bytes);
        }
        let mut bytes = bytes.into_owned();
        self.packed.swap(&mut bytes);
        Ok(Cow::Owned(bytes))
    }
}

/// The packed native-order bytes of a fill value given as JSON: an object
/// with a value per field (the `struct` spelling), or base64 of a whole
/// little-endian record (the legacy `structured` spelling). `None` when it
/// does not fit the datatype.
pub(crate) fn fill_bytes(dt: &Datatype, value: &Value) -> Option<Vec<u8>> {
    if let Value::String(b64) = value
        && matches!(dt, Datatype::Compound(_))
    {
        let mut bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
        if Some(bytes.len()) != dt.size() {
            return None;
        }
        if ByteOrder::NATIVE != ByteOrder::Little {
            PackedLayout::new(dt).ok()?.swap(&mut bytes);
        }
        return Some(bytes);
    }
    let mut out = Vec::with_capacity(dt.size()?);
    put(dt, value, &mut out)?;
    Some(out)
}

fn put(dt: &Datatype, value: &Value, out: &mut Vec<u8>) -> Option<()> {
    macro_rules! int {
        ($t:ty) => {{
            let v = value
                .as_i64()
                .map(i128::from)
                .or_else(|| value.as_u64().map(i128::from))?;
            out.extend_from_slice(&<$t>::try_from(v).ok()?.to_ne_bytes());
        }};
    }
    match dt {
        Datatype::Compound(c) => {
            let fields = value.as_object()?;
            for m in c.by_offset() {
                put(&m.datatype, fields.get(&m.name)?, out)?;
            }
        }
        Datatype::Array(a) => {
            let base = &a.base;
            let n = a.element_count()?;
            match value {
                Value::Array(items) if items.len() == n => {
                    for item in items {
                        put(base, item, out)?;
                    }
                }
                single => {
                    for _ in 0..n {
                        put(base, single, out)?;
                    }
                }
            }
        }
        Datatype::Bool => out.push(u8::from(value.as_bool()?)),
        Datatype::Int8 => int!(i8),
        Datatype::UInt8 => int!(u8),
        Datatype::Int16 => int!(i16),
        Datatype::UInt16 => int!(u16),
        Datatype::Int32 => int!(i32),
        Datatype::UInt32 => int!(u32),
        Datatype::Int64 => int!(i64),
        // zarr-python writes a time's fill as an integer or "NaT".
        Datatype::Time(_) if value.as_str() == Some("NaT") => {
            out.extend_from_slice(&i64::MIN.to_ne_bytes())
        }
        Datatype::Time(_) => int!(i64),
        Datatype::UInt64 => int!(u64),
        Datatype::Enum(e) => put(&Datatype::from(e.base), value, out)?,
        Datatype::Float16 => {
            out.extend_from_slice(&half::f16::from_f64(float(value)?).to_bits().to_ne_bytes())
        }
        Datatype::Float32 => out.extend_from_slice(&(float(value)? as f32).to_ne_bytes()),
        Datatype::Float64 => out.extend_from_slice(&float(value)?.to_ne_bytes()),
        Datatype::Complex64 | Datatype::Complex128 => {
            let [re, im] = value.as_array()?.as_slice() else {
                return None;
            };
            let part = if *dt == Datatype::Complex64 {
                Datatype::Float32
            } else {
                Datatype::Float64
            };
            put(&part, re, out)?;
            put(&part, im, out)?;
        }
        Datatype::FixedString(s) => {
            let width = if s.charset == Charset::Utf32 { 4 } else { 1 };
            let text = value.as_str()?;
            let mut bytes = Vec::with_capacity(s.length * width);
            match s.charset {
                Charset::Ascii => bytes.extend_from_slice(text.as_bytes()),
                Charset::Utf32 => text
                    .chars()
                    .for_each(|c| bytes.extend_from_slice(&(c as u32).to_ne_bytes())),
            }
            if bytes.len() > s.length * width {
                return None;
            }
            bytes.resize(s.length * width, 0);
            out.extend_from_slice(&bytes);
        }
        Datatype::Opaque(o) => {
            let bytes = match value {
                Value::String(b64) => base64::engine::general_purpose::STANDARD.decode(b64).ok()?,
                Value::Array(items) => items
                    .iter()
                    .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                    .collect::<Option<_>>()?,
                _ => return None,
            };
            if bytes.len() != o.size {
                return None;
            }
            out.extend_from_slice(&bytes);
        }
        _ => return None,
    }
    Some(())
}

/// A float given as a number, `"NaN"`, `"Infinity"`, `"-Infinity"` or the
/// hex form of its bits (`"0x3c00"`, `"0x7fc00000"`, 16 digits for float64).
fn float(value: &Value) -> Option<f64> {
    if let Some(f) = value.as_f64() {
        return Some(f);
    }
    match value.as_str()? {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        hex => {
            let digits = hex.strip_prefix("0x")?;
            let bits = u64::from_str_radix(digits, 16).ok()?;
            Some(match digits.len() {
                16 => f64::from_bits(bits),
                4 => half::f16::from_bits(u16::try_from(bits).ok()?).to_f64(),
                8 => f64::from(f32::from_bits(u32::try_from(bits).ok()?)),
                _ => return None,
            })
        }
    }
}

/// The JSON of a packed native-order value of `dt` (the inverse of
/// [`fill_bytes`] for the `struct` spelling).
pub(crate) fn fill_json(dt: &Datatype, bytes: &[u8]) -> Value {
    fn take<const N: usize>(b: &[u8]) -> [u8; N] {
        let mut a = [0; N];
        a.copy_from_slice(&b[..N]);
        a
    }
    match dt {
        Datatype::Compound(c) => {
            let fields: Map<String, Value> = c
                .members
                .iter()
                .map(|m| {
                    let size = m.datatype.size().unwrap_or(0);
                    (
                        m.name.clone(),
                        fill_json(&m.datatype, &bytes[m.offset..m.offset + size]),
                    )
                })
                .collect();
            Value::Object(fields)
        }
        Datatype::Array(a) => {
            let step = a.base.size().unwrap_or(1).max(1);
            let mut elements = bytes.chunks_exact(step);
            // One value for an array of equal elements (a fill of zeros):
            // a field of millions of elements stays one JSON value.
            match elements.next() {
                Some(first) if elements.all(|e| e == first) => fill_json(&a.base, first),
                _ => Value::Array(
                    bytes
                        .chunks_exact(step)
                        .map(|b| fill_json(&a.base, b))
                        .collect(),
                ),
            }
        }
        Datatype::Bool => json!(bytes[0] != 0),
        Datatype::Int8 => json!(i8::from_ne_bytes(take(bytes))),
        Datatype::UInt8 => json!(bytes[0]),
        Datatype::Int16 => json!(i16::from_ne_bytes(take(bytes))),
        Datatype::UInt16 => json!(u16::from_ne_bytes(take(bytes))),
        Datatype::Int32 => json!(i32::from_ne_bytes(take(bytes))),
        Datatype::UInt32 => json!(u32::from_ne_bytes(take(bytes))),
        // A time's fill as zarr-python writes it: an integer, NaT too.
        Datatype::Int64 | Datatype::Time(_) => json!(i64::from_ne_bytes(take(bytes))),
        Datatype::UInt64 => json!(u64::from_ne_bytes(take(bytes))),
        Datatype::Enum(e) => fill_json(&Datatype::from(e.base), bytes),
        Datatype::Float16 => json!(format!("0x{:04x}", u16::from_ne_bytes(take(bytes)))),
        Datatype::Float32 => float_json(f64::from(f32::from_ne_bytes(take(bytes)))),
        Datatype::Float64 => float_json(f64::from_ne_bytes(take(bytes))),
        Datatype::Complex64 => json!([
            float_json(f64::from(f32::from_ne_bytes(take(bytes)))),
            float_json(f64::from(f32::from_ne_bytes(take(&bytes[4..]))))
        ]),
        Datatype::Complex128 => json!([
            float_json(f64::from_ne_bytes(take(bytes))),
            float_json(f64::from_ne_bytes(take(&bytes[8..])))
        ]),
        Datatype::FixedString(s) if s.charset == Charset::Ascii => {
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            json!(String::from_utf8_lossy(&bytes[..end]))
        }
        Datatype::FixedString(_) => {
            let text: String = bytes
                .chunks_exact(4)
                .map(|c| u32::from_ne_bytes(take(c)))
                .take_while(|&c| c != 0)
                .filter_map(char::from_u32)
                .collect();
            json!(text)
        }
        _ => json!(base64::engine::general_purpose::STANDARD.encode(bytes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndl_runtime::{Compound, Member};

    fn record() -> Datatype {
        Datatype::Compound(Compound {
            size: 15,
            members: vec![
                Member::new("a", 0, Datatype::UInt32),
                Member::new("ok", 4, Datatype::Bool),
                Member::new("t", 5, Datatype::Float64),
                Member::new("h", 13, Datatype::Float16),
            ],
        })
    }

    #[test]
    fn fill_values_round_trip() {
        let v = json!({"a": 7, "ok": true, "t": "NaN", "h": 1.0});
        let bytes = fill_bytes(&record(), &v).unwrap();
        assert_eq!(bytes.len(), 15);
        assert_eq!(&bytes[..4], &7u32.to_ne_bytes());
        assert_eq!(u16::from_ne_bytes([bytes[13], bytes[14]]), 0x3c00);
        let back = fill_json(&record(), &bytes);
        assert_eq!(back["a"], 7);
        assert_eq!(back["t"], "NaN");
        assert_eq!(fill_bytes(&record(), &back).unwrap(), bytes);
    }

    #[test]
    fn legacy_base64_fill_is_a_whole_record() {
        assert_eq!(
            fill_bytes(&record(), &json!("AAAAAAAAAAAAAAAA")),
            None,
            "12 bytes, not 15"
        );
        let zeros = base64::engine::general_purpose::STANDARD.encode([0u8; 15]);
        assert_eq!(fill_bytes(&record(), &json!(zeros)).unwrap(), vec![0; 15]);
        assert_eq!(
            fill_bytes(&record(), &json!({"a": -1, "ok": false, "t": 0, "h": 0})),
            None
        );
    }
}

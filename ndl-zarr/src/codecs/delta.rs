//! numcodecs' `delta` filter (v3 `numcodecs.delta`, v2 `delta`), an array
//! to array codec: the first element, then each element minus the one
//! before, in `astype` (default `dtype`); decoding is NumPy's `cumsum` into
//! `dtype`. The chunk is one flat sequence, as numcodecs flattens it.

use serde::Deserialize;
use zarrs::array::codec::api::{CodecPluginV2, CodecPluginV3};
use zarrs::metadata::Configuration;
use zarrs::plugin::PluginCreateError;

use super::numeric::Numeric;

/// The `delta` codec: differences of consecutive elements.
#[derive(Clone, Debug)]
pub(crate) struct DeltaCodec {
    dtype: Numeric,
    astype: Numeric,
    configuration: Configuration,
}

#[derive(Deserialize)]
struct DeltaConfiguration {
    dtype: String,
    astype: Option<String>,
}

zarrs::plugin::impl_extension_aliases!(DeltaCodec, v3: "numcodecs.delta", v2: "delta");

inventory::submit! { CodecPluginV3::new::<DeltaCodec>() }
inventory::submit! { CodecPluginV2::new::<DeltaCodec>() }

impl DeltaCodec {
    fn new(configuration: Configuration) -> Result<DeltaCodec, PluginCreateError> {
        let c: DeltaConfiguration = configuration.to_typed()?;
        let (dtype, astype) = Numeric::pair("delta", &c.dtype, c.astype.as_deref())?;
        Ok(DeltaCodec {
            dtype,
            astype,
            configuration,
        })
    }
}

super::plugin::whole_chunk_codec!(DeltaCodec, ArrayToArray);
super::plugin::numeric_array_codec!(DeltaCodec, "numcodecs.delta");

impl DeltaCodec {
    fn encode_bytes(&self, decoded: &[u8]) -> Vec<u8> {
        encode(self.dtype, self.astype, decoded)
    }

    fn decode_bytes(&self, encoded: &[u8]) -> Vec<u8> {
        decode(self.dtype, self.astype, encoded)
    }
}

/// `decoded` (elements of `dtype`) as differences in `astype`.
fn encode(dtype: Numeric, astype: Numeric, decoded: &[u8]) -> Vec<u8> {
    let n = decoded.len() / dtype.size();
    let mut out = Vec::with_capacity(n * astype.size());
    for i in 0..n {
        let value = dtype.read(decoded, i);
        let delta = match i {
            0 => value,
            _ => dtype.sub(value, dtype.read(decoded, i - 1)),
        };
        astype.write(delta, &mut out);
    }
    out
}

/// The running sums, in `dtype`, of `encoded` (elements of `astype`).
fn decode(dtype: Numeric, astype: Numeric, encoded: &[u8]) -> Vec<u8> {
    let n = encoded.len() / astype.size();
    let mut out = Vec::with_capacity(n * dtype.size());
    let mut sum = None;
    for i in 0..n {
        let value = dtype.cast(astype.read(encoded, i));
        let next = sum.map_or(value, |s| dtype.add(s, value));
        dtype.write(next, &mut out);
        sum = Some(next);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::numcodecs_python::numcodecs_bytes;
    use super::*;

    fn i4s(values: &[i32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_ne_bytes()).collect()
    }

    #[test]
    fn decodes_what_numcodecs_encodes() {
        let values: Vec<i32> = vec![5, 7, 7, -3, i32::MAX, i32::MIN, 0];
        let encoded = numcodecs_bytes(
            "numcodecs.Delta(dtype='<i4')",
            "np.array([5, 7, 7, -3, 2**31 - 1, -2**31, 0], dtype='<i4')",
        );
        let (i4, f8, i2) = (Numeric::Int(4), Numeric::Float(8), Numeric::Int(2));
        assert_eq!(encode(i4, i4, &i4s(&values)), encoded);
        assert_eq!(decode(i4, i4, &encoded), i4s(&values));
        let floats: Vec<u8> = [0.5f64, 1.25, -2.0]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let narrowed = numcodecs_bytes(
            "numcodecs.Delta(dtype='<f8', astype='<i2')",
            "np.array([0.5, 1.25, -2.0])",
        );
        assert_eq!(encode(f8, i2, &floats), narrowed);
        let expected: Vec<u8> = [0.0f64, 0.0, -3.0]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        assert_eq!(decode(f8, i2, &narrowed), expected);
    }

    #[test]
    fn a_dtype_that_is_no_number_is_refused_naming_the_codec() {
        let config = serde_json::json!({"dtype": "|S4"});
        let Ok(serde_json::Value::Object(map)) = serde_json::to_value(config) else {
            unreachable!()
        };
        let e = DeltaCodec::new(map.into()).unwrap_err().to_string();
        assert!(e.contains("delta") && e.contains("|S4"), "{e}");
    }
}

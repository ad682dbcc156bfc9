//! numcodecs' `quantize` filter (v3 `numcodecs.quantize`, v2 `quantize`),
//! an array to array codec: floats rounded to `digits` decimal digits (in
//! binary steps) and cast to `astype` (default `dtype`); decoding only
//! casts back to `dtype`, since the rounding cannot be undone.

use serde::Deserialize;
use zarrs::array::codec::api::{CodecPluginV2, CodecPluginV3};
use zarrs::metadata::Configuration;
use zarrs::plugin::PluginCreateError;

use super::numeric::{Numeric, Scalar};

/// The `quantize` codec: floats kept to a number of decimal digits.
#[derive(Clone, Debug)]
pub(crate) struct QuantizeCodec {
    digits: i32,
    dtype: Numeric,
    astype: Numeric,
    configuration: Configuration,
}

#[derive(Deserialize)]
struct QuantizeConfiguration {
    digits: i32,
    dtype: String,
    astype: Option<String>,
}

zarrs::plugin::impl_extension_aliases!(QuantizeCodec, v3: "numcodecs.quantize", v2: "quantize");

inventory::submit! { CodecPluginV3::new::<QuantizeCodec>() }
inventory::submit! { CodecPluginV2::new::<QuantizeCodec>() }

impl QuantizeCodec {
    fn new(configuration: Configuration) -> Result<QuantizeCodec, PluginCreateError> {
        let c: QuantizeConfiguration = configuration.to_typed()?;
        let (dtype, astype) = Numeric::pair("quantize", &c.dtype, c.astype.as_deref())?;
        if !matches!((dtype, astype), (Numeric::Float(_), Numeric::Float(_))) {
            return Err(PluginCreateError::Other(format!(
                "quantize: dtype `{}` and astype must be float32 or float64",
                c.dtype
            )));
        }
        Ok(QuantizeCodec {
            digits: c.digits,
            dtype,
            astype,
            configuration,
        })
    }
}

super::plugin::whole_chunk_codec!(QuantizeCodec, ArrayToArray);
super::plugin::numeric_array_codec!(QuantizeCodec, "numcodecs.quantize");

impl QuantizeCodec {
    /// Each value kept to `digits` decimal digits in binary steps, as
    /// `astype`.
    fn encode_bytes(&self, decoded: &[u8]) -> Vec<u8> {
        let scale = scale(self.digits);
        let round = |v: Scalar| match v {
            Scalar::Float(f) => Scalar::Float((scale * f).round_ties_even() / scale),
            other => other,
        };
        cast(self.dtype, self.astype, decoded, round)
    }

    fn decode_bytes(&self, encoded: &[u8]) -> Vec<u8> {
        cast(self.astype, self.dtype, encoded, |v| v)
    }
}

/// numcodecs' binary step for `digits` decimal digits: the power of two
/// at least `10^digits`.
fn scale(digits: i32) -> f64 {
    let exp = (10f64.powi(-digits)).log10();
    let exp = if exp < 0.0 { exp.floor() } else { exp.ceil() };
    2f64.powf((10f64.powf(-exp)).log2().ceil())
}

/// Each element of `bytes` (of `from`) changed by `f` and written as `to`.
fn cast(from: Numeric, to: Numeric, bytes: &[u8], f: impl Fn(Scalar) -> Scalar) -> Vec<u8> {
    let n = bytes.len() / from.size();
    let mut out = Vec::with_capacity(n * to.size());
    for i in 0..n {
        to.write(f(from.read(bytes, i)), &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::numcodecs_python::numcodecs_bytes;
    use super::*;

    #[test]
    fn encodes_as_numcodecs_and_decodes_by_a_cast() {
        let values = [0.1f64, -2.345_678, 1e6 + 0.5, 3.0];
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let array = "np.array([0.1, -2.345678, 1e6 + 0.5, 3.0])";
        for (digits, astype) in [(3, Numeric::Float(8)), (1, Numeric::Float(4))] {
            let codec = match astype {
                Numeric::Float(4) => {
                    format!("numcodecs.Quantize({digits}, dtype='<f8', astype='<f4')")
                }
                _ => format!("numcodecs.Quantize({digits}, dtype='<f8')"),
            };
            let expected = numcodecs_bytes(&codec, array);
            let scale = scale(digits);
            let round = |v: Scalar| match v {
                Scalar::Float(f) => Scalar::Float((scale * f).round_ties_even() / scale),
                other => other,
            };
            let encoded = cast(Numeric::Float(8), astype, &bytes, round);
            assert_eq!(encoded, expected, "{codec}");
            let decoded = cast(astype, Numeric::Float(8), &encoded, |v| v);
            assert_eq!(decoded.len(), bytes.len());
        }
    }

    #[test]
    fn the_binary_step_is_a_power_of_two_past_the_digits() {
        assert_eq!(scale(3), 1024.0);
    }
}

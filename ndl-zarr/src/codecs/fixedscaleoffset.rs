//! numcodecs' `fixedscaleoffset` filter (v3 `numcodecs.fixedscaleoffset`,
//! v2 `fixedscaleoffset`), an array to array codec: `round((x - offset) *
//! scale)` stored as `astype`, decoded as `enc / scale + offset` in float64
//! and cast to `dtype`, as numcodecs computes it.
//!
//! zarrs has this codec, but holds `offset` and `scale` as float32 and
//! casts through float32: values then differ from numcodecs' in their last
//! digits. This one replaces it (see [`register`]).

use serde::Deserialize;
use zarrs::array::codec::api::{
    CodecPluginV2, CodecRuntimePluginV3, CodecTraitsV3, register_codec_v3,
};
use zarrs::metadata::Configuration;
use zarrs::plugin::{ExtensionAliasesV2, PluginCreateError};

use super::numeric::{Numeric, Scalar};

/// The `fixedscaleoffset` codec.
#[derive(Clone, Debug)]
pub(crate) struct FixedScaleOffsetCodec {
    offset: f64,
    scale: f64,
    dtype: Numeric,
    astype: Numeric,
    configuration: Configuration,
}

#[derive(Deserialize)]
struct FixedScaleOffsetConfiguration {
    offset: f64,
    scale: f64,
    dtype: String,
    astype: Option<String>,
}

zarrs::plugin::impl_extension_aliases!(FixedScaleOffsetCodec,
    v3: "numcodecs.fixedscaleoffset",
    v2: "fixedscaleoffset"
);

inventory::submit! { CodecPluginV2::new::<FixedScaleOffsetCodec>() }

/// Makes this codec the one zarrs creates for the name, in place of its
/// own: a run-time v3 plugin comes before zarrs' compiled-in ones, and
/// zarrs' v2 name is taken from its codec.
pub(crate) fn register() {
    register_codec_v3(CodecRuntimePluginV3::new(
        |name| name == "numcodecs.fixedscaleoffset",
        <FixedScaleOffsetCodec as CodecTraitsV3>::create,
    ));
    zarrs::array::codec::FixedScaleOffsetCodec::aliases_v2_mut().default_name = "".into();
}

impl FixedScaleOffsetCodec {
    fn new(configuration: Configuration) -> Result<FixedScaleOffsetCodec, PluginCreateError> {
        let c: FixedScaleOffsetConfiguration = configuration.to_typed()?;
        let (dtype, astype) = Numeric::pair("fixedscaleoffset", &c.dtype, c.astype.as_deref())?;
        Ok(FixedScaleOffsetCodec {
            offset: c.offset,
            scale: c.scale,
            dtype,
            astype,
            configuration,
        })
    }

    /// `round((x - offset) * scale)`, in `dtype`'s float (float64 for
    /// integers), as `astype`.
    fn encode_bytes(&self, decoded: &[u8]) -> Vec<u8> {
        let float = match self.dtype {
            Numeric::Float(4) => Numeric::Float(4),
            _ => Numeric::Float(8),
        };
        let n = decoded.len() / self.dtype.size();
        let mut out = Vec::with_capacity(n * self.astype.size());
        for i in 0..n {
            let x = float.cast(self.dtype.read(decoded, i));
            let shifted = float.sub(x, Scalar::Float(self.offset));
            let Scalar::Float(scaled) = float.cast(Scalar::Float(as_f64(shifted) * self.scale))
            else {
                unreachable!("a float type casts to a float")
            };
            self.astype
                .write(Scalar::Float(scaled.round_ties_even()), &mut out);
        }
        out
    }

    /// `enc / scale + offset` in float64, as `dtype`.
    fn decode_bytes(&self, encoded: &[u8]) -> Vec<u8> {
        let n = encoded.len() / self.astype.size();
        let mut out = Vec::with_capacity(n * self.dtype.size());
        for i in 0..n {
            let enc = as_f64(self.astype.read(encoded, i));
            self.dtype
                .write(Scalar::Float(enc / self.scale + self.offset), &mut out);
        }
        out
    }
}

fn as_f64(value: Scalar) -> f64 {
    match value {
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
    }
}

super::plugin::whole_chunk_codec!(FixedScaleOffsetCodec, ArrayToArray);
super::plugin::numeric_array_codec!(FixedScaleOffsetCodec, "numcodecs.fixedscaleoffset");

#[cfg(test)]
mod tests {
    use super::super::numcodecs_python::{numcodecs_bytes, python_bytes};
    use super::*;

    fn codec(offset: f64, scale: f64, dtype: &str, astype: &str) -> FixedScaleOffsetCodec {
        let config =
            serde_json::json!({"offset": offset, "scale": scale, "dtype": dtype, "astype": astype});
        let serde_json::Value::Object(map) = config else {
            unreachable!()
        };
        FixedScaleOffsetCodec::new(map.into()).unwrap()
    }

    #[test]
    fn encodes_and_decodes_as_numcodecs_to_the_last_digit() {
        let array = "np.linspace(-3, 5, 37)";
        let values: Vec<u8> = (0..37)
            .flat_map(|i| (-3.0 + 8.0 * f64::from(i) / 36.0).to_ne_bytes())
            .collect();
        let script = |c: &str| {
            format!(
                "numcodecs.FixedScaleOffset(offset=0.1, scale=1000.3, dtype='<f8', astype='{c}')"
            )
        };
        for astype in ["<i4", "<i2"] {
            let encoded = numcodecs_bytes(&script(astype), array);
            let c = codec(0.1, 1000.3, "<f8", astype);
            assert_eq!(c.encode_bytes(&values), encoded, "{astype}");
            let fso = script(astype);
            let decoded = python_bytes(&format!("{fso}.decode({fso}.encode({array}))"));
            assert_eq!(c.decode_bytes(&encoded), decoded, "{astype}");
        }
    }
}

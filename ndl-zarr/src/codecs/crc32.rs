//! numcodecs' `crc32` (v3 `numcodecs.crc32`, v2 `crc32`), a bytes to bytes
//! codec: zlib's CRC-32 of the bytes, 4 bytes little-endian, at the
//! `location` numcodecs gives it (`start`, the default, or `end`).

use std::borrow::Cow;
use std::sync::Arc;

use serde::Deserialize;
use zarrs::array::ArrayBytesRaw;
use zarrs::array::codec::api::{
    BytesRepresentation, BytesToBytesCodecTraits, CodecError, CodecOptions, CodecPluginV2,
    CodecPluginV3, RecommendedConcurrency,
};
use zarrs::metadata::Configuration;
use zarrs::plugin::PluginCreateError;

/// The `crc32` codec.
#[derive(Clone, Debug)]
pub(crate) struct Crc32Codec {
    at_end: bool,
    configuration: Configuration,
}

#[derive(Deserialize)]
struct Crc32Configuration {
    location: Option<String>,
}

zarrs::plugin::impl_extension_aliases!(Crc32Codec, v3: "numcodecs.crc32", v2: "crc32");

inventory::submit! { CodecPluginV3::new::<Crc32Codec>() }
inventory::submit! { CodecPluginV2::new::<Crc32Codec>() }

const CHECKSUM: usize = 4;

impl Crc32Codec {
    fn new(configuration: Configuration) -> Result<Crc32Codec, PluginCreateError> {
        let c: Crc32Configuration = configuration.to_typed()?;
        let at_end = match c.location.as_deref() {
            None | Some("start") => false,
            Some("end") => true,
            Some(other) => {
                return Err(PluginCreateError::Other(format!(
                    "crc32: location `{other}` is not start or end"
                )));
            }
        };
        Ok(Crc32Codec {
            at_end,
            configuration,
        })
    }
}

super::plugin::whole_chunk_codec!(Crc32Codec, BytesToBytes);

impl BytesToBytesCodecTraits for Crc32Codec {
    fn into_dyn(self: Arc<Self>) -> Arc<dyn BytesToBytesCodecTraits> {
        self
    }

    fn recommended_concurrency(
        &self,
        _decoded_representation: &BytesRepresentation,
    ) -> Result<RecommendedConcurrency, CodecError> {
        Ok(RecommendedConcurrency::new_maximum(1))
    }

    fn encoded_representation(
        &self,
        decoded_representation: &BytesRepresentation,
    ) -> BytesRepresentation {
        match decoded_representation {
            BytesRepresentation::FixedSize(n) => {
                BytesRepresentation::FixedSize(n + CHECKSUM as u64)
            }
            BytesRepresentation::BoundedSize(n) => {
                BytesRepresentation::BoundedSize(n + CHECKSUM as u64)
            }
            BytesRepresentation::UnboundedSize => BytesRepresentation::UnboundedSize,
        }
    }

    fn encode<'a>(
        &self,
        decoded_value: ArrayBytesRaw<'a>,
        _options: &CodecOptions,
    ) -> Result<ArrayBytesRaw<'a>, CodecError> {
        let checksum = crc32fast::hash(&decoded_value).to_le_bytes();
        let mut out = Vec::with_capacity(decoded_value.len() + CHECKSUM);
        if self.at_end {
            out.extend_from_slice(&decoded_value);
            out.extend_from_slice(&checksum);
        } else {
            out.extend_from_slice(&checksum);
            out.extend_from_slice(&decoded_value);
        }
        Ok(Cow::Owned(out))
    }

    fn decode<'a>(
        &self,
        encoded_value: ArrayBytesRaw<'a>,
        _decoded_representation: &BytesRepresentation,
        options: &CodecOptions,
    ) -> Result<ArrayBytesRaw<'a>, CodecError> {
        if encoded_value.len() < CHECKSUM {
            return Err(CodecError::Other(format!(
                "numcodecs.crc32: {} bytes hold no 4-byte checksum",
                encoded_value.len()
            )));
        }
        let (payload, stored) = if self.at_end {
            let (p, c) = encoded_value.split_at(encoded_value.len() - CHECKSUM);
            (p, c)
        } else {
            let (c, p) = encoded_value.split_at(CHECKSUM);
            (p, c)
        };
        if options.validate_checksums() && crc32fast::hash(payload).to_le_bytes() != stored {
            return Err(CodecError::InvalidChecksum);
        }
        Ok(Cow::Owned(payload.to_vec()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::numcodecs_python::numcodecs_bytes;
    use super::*;

    fn codec(location: &str) -> Crc32Codec {
        let Ok(serde_json::Value::Object(c)) =
            serde_json::to_value(serde_json::json!({"location": location}))
        else {
            unreachable!()
        };
        Crc32Codec::new(c.into()).unwrap()
    }

    #[test]
    fn checksums_as_numcodecs_at_either_end() {
        let data: Vec<u8> = (0..=255u8).collect();
        let options = CodecOptions::default();
        let size = BytesRepresentation::FixedSize(256);
        for location in ["start", "end"] {
            let expected = numcodecs_bytes(
                &format!("numcodecs.CRC32(location='{location}')"),
                "np.arange(256, dtype='u1')",
            );
            let c = codec(location);
            let ours = c.encode(Cow::Borrowed(&data), &options).unwrap();
            assert_eq!(ours, expected, "{location}");
            assert_eq!(c.decode(ours, &size, &options).unwrap(), data);
        }
        let mut bad = codec("start")
            .encode(Cow::Borrowed(&data), &options)
            .unwrap()
            .into_owned();
        bad[10] ^= 1;
        let e = codec("start")
            .decode(Cow::Owned(bad), &size, &options)
            .unwrap_err();
        assert!(matches!(e, CodecError::InvalidChecksum), "{e}");
        let short = codec("start").decode(Cow::Borrowed(&[1, 2][..]), &size, &options);
        assert!(short.unwrap_err().to_string().contains("numcodecs.crc32"));
    }
}

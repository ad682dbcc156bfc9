//! The zarrs plumbing every codec of this module shares: created from its
//! v3 or v2 metadata's configuration, which it gives back unchanged, and
//! decoding whole chunks only (numcodecs' codecs work on a whole buffer).

/// Implements `CodecTraitsV3`, `CodecTraitsV2` and `CodecTraits` for
/// `$codec`, a `$kind` codec (`ArrayToArray` or `BytesToBytes`) with a
/// `configuration` field and a `new(Configuration)` constructor.
macro_rules! whole_chunk_codec {
    ($codec:ty, $kind:ident) => {
        impl zarrs::array::codec::api::CodecTraitsV3 for $codec {
            fn create(
                metadata: &zarrs::metadata::v3::MetadataV3,
            ) -> Result<zarrs::array::codec::api::Codec, zarrs::plugin::PluginCreateError> {
                let configuration = metadata.configuration().cloned().unwrap_or_default();
                Ok(zarrs::array::codec::api::Codec::$kind(std::sync::Arc::new(
                    <$codec>::new(configuration)?,
                )))
            }
        }

        impl zarrs::array::codec::api::CodecTraitsV2 for $codec {
            fn create(
                metadata: &zarrs::metadata::v2::MetadataV2,
            ) -> Result<zarrs::array::codec::api::Codec, zarrs::plugin::PluginCreateError> {
                let configuration = metadata.configuration().clone();
                Ok(zarrs::array::codec::api::Codec::$kind(std::sync::Arc::new(
                    <$codec>::new(configuration)?,
                )))
            }
        }

        impl zarrs::array::codec::api::CodecTraits for $codec {
            fn as_any(&self) -> &dyn std::any::Any {
                self
            }

            fn configuration(
                &self,
                _version: zarrs::plugin::ZarrVersion,
                _options: &zarrs::array::codec::api::CodecMetadataOptions,
            ) -> Option<zarrs::metadata::Configuration> {
                Some(self.configuration.clone())
            }

            fn partial_decoder_capability(
                &self,
            ) -> zarrs::array::codec::api::PartialDecoderCapability {
                zarrs::array::codec::api::PartialDecoderCapability {
                    partial_read: false,
                    partial_decode: false,
                }
            }

            fn partial_encoder_capability(
                &self,
            ) -> zarrs::array::codec::api::PartialEncoderCapability {
                zarrs::array::codec::api::PartialEncoderCapability {
                    partial_encode: false,
                }
            }
        }
    };
}

pub(super) use whole_chunk_codec;

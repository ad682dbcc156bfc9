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

/// Implements zarrs' array-to-array traits for `$codec`, a numcodecs
/// codec from its `dtype` to its `astype` (fields of type `Numeric`):
/// the array's data type must be `dtype`, and the chunk's bytes go through
/// `$codec::encode_bytes` / `decode_bytes`, on one thread.
macro_rules! numeric_array_codec {
    ($codec:ty, $name:literal) => {
        impl $codec {
            /// The array's data type, checked to be this codec's `dtype`.
            fn check(
                &self,
                data_type: &zarrs::array::DataType,
            ) -> Result<(), zarrs::array::codec::api::CodecError> {
                if self.dtype.data_type().ok().as_ref() == Some(data_type) {
                    return Ok(());
                }
                Err(zarrs::array::codec::api::CodecError::UnsupportedDataType(
                    data_type.clone(),
                    $name.into(),
                ))
            }
        }

        impl zarrs::array::codec::api::ArrayCodecTraits for $codec {
            fn recommended_concurrency(
                &self,
                _shape: &[std::num::NonZeroU64],
                _data_type: &zarrs::array::DataType,
            ) -> Result<
                zarrs::array::codec::api::RecommendedConcurrency,
                zarrs::array::codec::api::CodecError,
            > {
                Ok(zarrs::array::codec::api::RecommendedConcurrency::new_maximum(1))
            }
        }

        impl zarrs::array::codec::api::ArrayToArrayCodecTraits for $codec {
            fn into_dyn(
                self: std::sync::Arc<Self>,
            ) -> std::sync::Arc<dyn zarrs::array::codec::api::ArrayToArrayCodecTraits> {
                self
            }

            fn encoded_data_type(
                &self,
                decoded_data_type: &zarrs::array::DataType,
            ) -> Result<zarrs::array::DataType, zarrs::array::codec::api::CodecError> {
                self.check(decoded_data_type)?;
                self.astype
                    .data_type()
                    .map_err(|e| zarrs::array::codec::api::CodecError::Other(e.to_string()))
            }

            fn encode<'a>(
                &self,
                bytes: zarrs::array::ArrayBytes<'a>,
                _shape: &[std::num::NonZeroU64],
                data_type: &zarrs::array::DataType,
                _fill_value: &zarrs::array::FillValue,
                _options: &zarrs::array::codec::api::CodecOptions,
            ) -> Result<zarrs::array::ArrayBytes<'a>, zarrs::array::codec::api::CodecError> {
                self.check(data_type)?;
                Ok(self.encode_bytes(&bytes.into_fixed()?).into())
            }

            fn decode<'a>(
                &self,
                bytes: zarrs::array::ArrayBytes<'a>,
                _shape: &[std::num::NonZeroU64],
                data_type: &zarrs::array::DataType,
                _fill_value: &zarrs::array::FillValue,
                _options: &zarrs::array::codec::api::CodecOptions,
            ) -> Result<zarrs::array::ArrayBytes<'a>, zarrs::array::codec::api::CodecError> {
                self.check(data_type)?;
                Ok(self.decode_bytes(&bytes.into_fixed()?).into())
            }
        }
    };
}

pub(super) use numeric_array_codec;
pub(super) use whole_chunk_codec;

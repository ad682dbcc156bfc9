//! The numcodecs names zarr-python 3.4 writes for codecs zarrs has under
//! their core names (`numcodecs.gzip`, `numcodecs.zstd`, `numcodecs.blosc`,
//! `numcodecs.crc32c`): each is registered with zarrs as a plugin that
//! fills in numcodecs' defaults, which zarr-python leaves out of the
//! configuration, and creates zarrs' own codec. In v2, numcodecs' `crc32c`
//! (whose `location` zarrs loses) and `bitround` (which zarrs knows in v3
//! only) are registered the same way.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use zarrs::array::ArrayBytesRaw;
use zarrs::array::codec::api::{
    BytesRepresentation, BytesToBytesCodecTraits, Codec, CodecError, CodecMetadataOptions,
    CodecOptions, CodecPluginV2, CodecRuntimePluginV3, CodecTraits, CodecTraitsV2, CodecTraitsV3,
    PartialDecoderCapability, PartialEncoderCapability, RecommendedConcurrency, register_codec_v3,
};
use zarrs::array::codec::{BitroundCodec, BloscCodec, Crc32cCodec, GzipCodec, ZstdCodec};
use zarrs::metadata::Configuration;
use zarrs::metadata::v2::MetadataV2;
use zarrs::metadata::v3::MetadataV3;
use zarrs::plugin::{ExtensionAliasesV2, PluginCreateError, ZarrVersion};

/// Registers the numcodecs names with zarrs.
pub(crate) fn register() {
    Crc32cCodec::aliases_v2_mut().default_name = "".into();
    register_codec_v3(CodecRuntimePluginV3::new(
        |name| name == "numcodecs.gzip",
        |m| core("gzip", m, |c| c, <GzipCodec as CodecTraitsV3>::create),
    ));
    register_codec_v3(CodecRuntimePluginV3::new(
        |name| name == "numcodecs.zstd",
        |m| core("zstd", m, zstd, <ZstdCodec as CodecTraitsV3>::create),
    ));
    register_codec_v3(CodecRuntimePluginV3::new(
        |name| name == "numcodecs.blosc",
        |m| core("blosc", m, blosc, <BloscCodec as CodecTraitsV3>::create),
    ));
    register_codec_v3(CodecRuntimePluginV3::new(
        |name| name == "numcodecs.crc32c",
        |m| {
            core(
                "numcodecs.crc32c",
                m,
                crc32c,
                <Crc32cCodec as CodecTraitsV3>::create,
            )
        },
    ));
}

/// zarrs' codec `name` (which zarrs' `create` reads) for the numcodecs
/// `metadata`, its configuration
/// changed by `config`.
fn core(
    name: &str,
    metadata: &MetadataV3,
    config: fn(Map<String, Value>) -> Map<String, Value>,
    create: fn(&MetadataV3) -> Result<Codec, PluginCreateError>,
) -> Result<Codec, PluginCreateError> {
    let given: Map<String, Value> = metadata
        .configuration()
        .map(|c| (**c).clone())
        .unwrap_or_default();
    create(&MetadataV3::new_with_configuration(name, config(given)))
}

/// numcodecs' zstd leaves out `checksum` when false.
fn zstd(mut c: Map<String, Value>) -> Map<String, Value> {
    c.entry("checksum").or_insert(json!(false));
    c
}

/// numcodecs' crc32c puts the checksum at the end unless told otherwise.
fn crc32c(mut c: Map<String, Value>) -> Map<String, Value> {
    c.entry("location").or_insert(json!("end"));
    c
}

/// numcodecs' blosc says `shuffle` as a number and has no `typesize`: the
/// core form with no shuffle decodes the same chunks, since each blosc
/// chunk's header says how it was shuffled.
fn blosc(c: Map<String, Value>) -> Map<String, Value> {
    let mut core = Map::new();
    for key in ["cname", "clevel", "blocksize"] {
        if let Some(v) = c.get(key) {
            core.insert(key.into(), v.clone());
        }
    }
    core.entry("blocksize").or_insert(json!(0));
    core.insert("shuffle".into(), json!("noshuffle"));
    core
}

/// numcodecs' v2 `crc32c`: zarrs' codec, which needs a `location`, named
/// `numcodecs.crc32c` in v3 with its configuration, so that a checksum at
/// the start stays there. zarrs' own v2 name converts it to the core
/// `crc32c`, which has the checksum at the end: [`register`] takes that
/// name from it.
#[derive(Debug)]
pub(crate) struct Crc32cV2 {
    inner: Arc<dyn BytesToBytesCodecTraits>,
    configuration: Configuration,
}

zarrs::plugin::impl_extension_aliases!(Crc32cV2, v3: "numcodecs.crc32c", v2: "crc32c");

inventory::submit! { CodecPluginV2::new::<Crc32cV2>() }

impl CodecTraitsV2 for Crc32cV2 {
    fn create(metadata: &MetadataV2) -> Result<Codec, PluginCreateError> {
        let configuration = crc32c(metadata.configuration().clone().into());
        let v3 = MetadataV3::new_with_configuration("numcodecs.crc32c", configuration.clone());
        let Codec::BytesToBytes(inner) = <Crc32cCodec as CodecTraitsV3>::create(&v3)? else {
            return Err(PluginCreateError::Other("crc32c: not a bytes codec".into()));
        };
        Ok(Codec::BytesToBytes(Arc::new(Crc32cV2 {
            inner,
            configuration: configuration.into(),
        })))
    }
}

impl CodecTraits for Crc32cV2 {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn configuration(
        &self,
        _version: ZarrVersion,
        _options: &CodecMetadataOptions,
    ) -> Option<Configuration> {
        Some(self.configuration.clone())
    }

    fn partial_decoder_capability(&self) -> PartialDecoderCapability {
        self.inner.partial_decoder_capability()
    }

    fn partial_encoder_capability(&self) -> PartialEncoderCapability {
        self.inner.partial_encoder_capability()
    }
}

impl BytesToBytesCodecTraits for Crc32cV2 {
    fn into_dyn(self: Arc<Self>) -> Arc<dyn BytesToBytesCodecTraits> {
        self
    }

    fn recommended_concurrency(
        &self,
        decoded_representation: &BytesRepresentation,
    ) -> Result<RecommendedConcurrency, CodecError> {
        self.inner.recommended_concurrency(decoded_representation)
    }

    fn encoded_representation(
        &self,
        decoded_representation: &BytesRepresentation,
    ) -> BytesRepresentation {
        self.inner.encoded_representation(decoded_representation)
    }

    fn encode<'a>(
        &self,
        decoded_value: ArrayBytesRaw<'a>,
        options: &CodecOptions,
    ) -> Result<ArrayBytesRaw<'a>, CodecError> {
        self.inner.encode(decoded_value, options)
    }

    fn decode<'a>(
        &self,
        encoded_value: ArrayBytesRaw<'a>,
        decoded_representation: &BytesRepresentation,
        options: &CodecOptions,
    ) -> Result<ArrayBytesRaw<'a>, CodecError> {
        self.inner
            .decode(encoded_value, decoded_representation, options)
    }
}

/// numcodecs' v2 `bitround`, zarrs' v3 `bitround`.
pub(crate) struct BitroundV2;

zarrs::plugin::impl_extension_aliases!(BitroundV2, v2: "bitround");

inventory::submit! { CodecPluginV2::new::<BitroundV2>() }

impl CodecTraitsV2 for BitroundV2 {
    fn create(metadata: &MetadataV2) -> Result<Codec, PluginCreateError> {
        let v3 = MetadataV3::new_with_configuration("bitround", metadata.configuration().clone());
        <BitroundCodec as CodecTraitsV3>::create(&v3)
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use serde_json::json;
    use zarrs::array::codec::api::{BytesRepresentation, CodecOptions};

    use super::super::numcodecs_python::numcodecs_bytes;
    use super::*;

    /// Decodes `encoded` with the codec of the v3 metadata `codec`.
    fn decode(codec: Value, encoded: Vec<u8>, size: u64) -> Vec<u8> {
        register();
        let metadata: MetadataV3 = serde_json::from_value(codec).unwrap();
        let Ok(Codec::BytesToBytes(codec)) = Codec::from_metadata(&metadata) else {
            panic!("{metadata:?} is no bytes to bytes codec")
        };
        let size = BytesRepresentation::FixedSize(size);
        let options = CodecOptions::default();
        codec
            .decode(Cow::Owned(encoded), &size, &options)
            .unwrap()
            .into_owned()
    }

    #[test]
    fn numcodecs_names_decode_what_numcodecs_encodes_with_its_defaults() {
        let array = "np.arange(100, dtype='<i4')";
        let decoded: Vec<u8> = (0..100i32).flat_map(i32::to_le_bytes).collect();
        for (codec, metadata) in [
            (
                "numcodecs.CRC32C()",
                json!({"name": "numcodecs.crc32c", "configuration": {}}),
            ),
            (
                "numcodecs.Zstd(level=2)",
                json!({"name": "numcodecs.zstd", "configuration": {"level": 2}}),
            ),
            (
                "numcodecs.GZip(level=3)",
                json!({"name": "numcodecs.gzip", "configuration": {"level": 3}}),
            ),
            (
                "numcodecs.Blosc(cname='zstd', clevel=4, shuffle=2)",
                json!({"name": "numcodecs.blosc", "configuration": {"cname": "zstd", "clevel": 4, "shuffle": 2}}),
            ),
        ] {
            let encoded = numcodecs_bytes(codec, array);
            assert_eq!(decode(metadata, encoded, 400), decoded, "{codec}");
        }
    }
}

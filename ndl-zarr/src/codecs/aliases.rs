//! The numcodecs names zarr-python 3.4 writes for codecs zarrs has under
//! their core names (`numcodecs.gzip`, `numcodecs.zstd`, `numcodecs.blosc`,
//! `numcodecs.crc32c`): each is registered with zarrs as a plugin that
//! fills in numcodecs' defaults, which zarr-python leaves out of the
//! configuration, and creates zarrs' own codec. In v2, numcodecs' `crc32c`
//! without `location` and `bitround` (which zarrs knows in v3 only) are
//! registered the same way.

use serde_json::{json, Map, Value};
use zarrs::array::codec::api::{
    register_codec_v3, Codec, CodecPluginV2, CodecRuntimePluginV3, CodecTraitsV2, CodecTraitsV3,
};
use zarrs::array::codec::{BitroundCodec, BloscCodec, Crc32cCodec, GzipCodec, ZstdCodec};
use zarrs::metadata::v2::MetadataV2;
use zarrs::metadata::v3::MetadataV3;
use zarrs::plugin::PluginCreateError;

/// Registers the numcodecs names with zarrs.
pub(crate) fn register() {
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

/// numcodecs' v2 `crc32c`, whose `location` zarrs requires.
pub(crate) struct Crc32cV2;

zarrs::plugin::impl_extension_aliases!(Crc32cV2, v2: "crc32c");

inventory::submit! { CodecPluginV2::new::<Crc32cV2>() }

impl CodecTraitsV2 for Crc32cV2 {
    fn create(metadata: &MetadataV2) -> Result<Codec, PluginCreateError> {
        let v3 = MetadataV3::new_with_configuration(
            "numcodecs.crc32c",
            metadata.configuration().clone(),
        );
        core(
            "numcodecs.crc32c",
            &v3,
            crc32c,
            <Crc32cCodec as CodecTraitsV3>::create,
        )
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

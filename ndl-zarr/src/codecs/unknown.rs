//! The codecs of an array that zarrs, with the codecs of this crate, has no
//! plugin for: found before the array is opened, so that the refusal names
//! the codec rather than the part of the chain it left empty.

use serde_json::Value;
use zarrs::array::codec::api::Codec;
use zarrs::metadata::v2::MetadataV2;
use zarrs::metadata::v3::MetadataV3;
use zarrs::plugin::PluginCreateError;

/// The name of the first codec of a v3 `codecs` list (sharding's inner
/// lists included) that no plugin reads.
pub(crate) fn unknown_v3(codecs: &[Value]) -> Option<String> {
    codecs.iter().find_map(|codec| {
        let name = codec.get("name").and_then(Value::as_str)?;
        if name == "sharding_indexed" {
            let inner = ["/configuration/codecs", "/configuration/index_codecs"];
            return inner.iter().find_map(|at| {
                let list = codec.pointer(at).and_then(Value::as_array)?;
                unknown_v3(list)
            });
        }
        let metadata: MetadataV3 = serde_json::from_value(codec.clone()).ok()?;
        unsupported(Codec::from_metadata(&metadata)).then(|| name.to_string())
    })
}

/// The id of the first v2 filter or compressor that no plugin reads.
pub(crate) fn unknown_v2<'a>(codecs: impl IntoIterator<Item = &'a MetadataV2>) -> Option<String> {
    codecs
        .into_iter()
        .find(|c| unsupported(Codec::from_metadata(*c)))
        .map(|c| c.id().to_string())
}

fn unsupported(created: Result<Codec, PluginCreateError>) -> bool {
    matches!(created, Err(PluginCreateError::Unsupported(_)))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn codecs_without_a_plugin_are_named() {
        let bytes = json!({"name": "bytes", "configuration": {"endian": "little"}});
        let lz4 = json!({"name": "numcodecs.lz4", "configuration": {}});
        assert_eq!(unknown_v3(&[bytes.clone(), lz4.clone()]), None);
        let pcodec = json!({"name": "numcodecs.pcodec", "configuration": {"level": 8}});
        assert_eq!(unknown_v3(&[pcodec]).as_deref(), Some("numcodecs.pcodec"));
        let sharded = json!({"name": "sharding_indexed", "configuration": {
            "chunk_shape": [2], "codecs": [bytes, {"name": "numcodecs.lzma"}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]
        }});
        assert_eq!(unknown_v3(&[sharded]).as_deref(), Some("numcodecs.lzma"));
        let v2: Vec<MetadataV2> =
            serde_json::from_value(json!([{"id": "delta", "dtype": "<i4"}, {"id": "lzma"}]))
                .unwrap();
        assert_eq!(unknown_v2(&v2).as_deref(), Some("lzma"));
        assert_eq!(unknown_v2(&v2[..1]), None);
    }
}

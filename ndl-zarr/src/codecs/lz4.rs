//! numcodecs' `lz4` (v3 `numcodecs.lz4`, v2 `lz4`), a bytes to bytes
//! codec: the decoded size as 4 bytes little-endian, then one LZ4 block,
//! made and read by `lz4_flex`. numcodecs' `acceleration` only trades
//! ratio for speed when compressing: any block is read.

use std::borrow::Cow;
use std::sync::Arc;

use zarrs::array::ArrayBytesRaw;
use zarrs::array::codec::api::{
    BytesRepresentation, BytesToBytesCodecTraits, CodecError, CodecOptions, CodecPluginV2,
    CodecPluginV3, RecommendedConcurrency,
};
use zarrs::metadata::Configuration;
use zarrs::plugin::PluginCreateError;

/// The `lz4` codec.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lz4Codec {
    configuration: Configuration,
}

impl Lz4Codec {
    fn new(configuration: Configuration) -> Result<Lz4Codec, PluginCreateError> {
        Ok(Lz4Codec { configuration })
    }
}

zarrs::plugin::impl_extension_aliases!(Lz4Codec, v3: "numcodecs.lz4", v2: "lz4");

inventory::submit! { CodecPluginV3::new::<Lz4Codec>() }
inventory::submit! { CodecPluginV2::new::<Lz4Codec>() }

super::plugin::whole_chunk_codec!(Lz4Codec, BytesToBytes);

impl BytesToBytesCodecTraits for Lz4Codec {
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
        decoded_representation
            .size()
            .map_or(BytesRepresentation::UnboundedSize, |size| {
                let bound = lz4_flex::block::get_maximum_output_size(size as usize);
                BytesRepresentation::BoundedSize(4 + bound as u64)
            })
    }

    fn encode<'a>(
        &self,
        decoded_value: ArrayBytesRaw<'a>,
        _options: &CodecOptions,
    ) -> Result<ArrayBytesRaw<'a>, CodecError> {
        Ok(Cow::Owned(lz4_flex::block::compress_prepend_size(
            &decoded_value,
        )))
    }

    fn decode<'a>(
        &self,
        encoded_value: ArrayBytesRaw<'a>,
        decoded_representation: &BytesRepresentation,
        _options: &CodecOptions,
    ) -> Result<ArrayBytesRaw<'a>, CodecError> {
        let claimed = encoded_value
            .get(..4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64)
            .ok_or_else(|| CodecError::Other("numcodecs.lz4: no size before the block".into()))?;
        // The size is read before any byte is decoded: an LZ4 block
        // expands at most 255-fold, and a chunk's size is known.
        let most = match decoded_representation.size() {
            Some(size) => size,
            None => (encoded_value.len() as u64).saturating_mul(255),
        };
        if claimed > most {
            return Err(CodecError::Other(format!(
                "numcodecs.lz4: the block claims {claimed} decoded bytes, more than the {most} it can hold"
            )));
        }
        lz4_flex::block::decompress_size_prepended(&encoded_value)
            .map(Cow::Owned)
            .map_err(|e| CodecError::Other(format!("numcodecs.lz4: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::super::numcodecs_python::numcodecs_bytes;
    use super::*;

    #[test]
    fn reads_what_numcodecs_writes_and_back() {
        let array = "np.arange(1000, dtype='<i4') % 7";
        let encoded = numcodecs_bytes("numcodecs.LZ4(acceleration=3)", array);
        let decoded: Vec<u8> = (0..1000i32).flat_map(|i| (i % 7).to_le_bytes()).collect();
        let codec = Lz4Codec::default();
        let options = CodecOptions::default();
        let size = BytesRepresentation::FixedSize(4000);
        let read = codec.decode(Cow::Owned(encoded), &size, &options).unwrap();
        assert_eq!(read, decoded);
        let ours = codec.encode(Cow::Borrowed(&decoded), &options).unwrap();
        assert_eq!(&ours[..4], 4000u32.to_le_bytes());
        let back = codec.decode(ours, &size, &options).unwrap();
        assert_eq!(back, decoded);
        let e = codec
            .decode(Cow::Borrowed(&[9, 0, 0, 0, 0xff][..]), &size, &options)
            .unwrap_err();
        assert!(e.to_string().contains("numcodecs.lz4"), "{e}");
        // A size of 4 GiB is refused before anything is allocated.
        let bomb = [0xff, 0xff, 0xff, 0xff, 0];
        let e = codec
            .decode(Cow::Borrowed(&bomb[..]), &size, &options)
            .unwrap_err();
        assert!(e.to_string().contains("more than the 4000"), "{e}");
        let unknown = BytesRepresentation::UnboundedSize;
        let e = codec
            .decode(Cow::Borrowed(&bomb[..]), &unknown, &options)
            .unwrap_err();
        assert!(e.to_string().contains("claims 4294967295"), "{e}");
    }
}

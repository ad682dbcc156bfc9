//! One array's metadata as plain data: what its documents say (read back
//! from any store, or made for a new array from the write options) and the
//! v3 form zarrs is handed to encode and decode its chunks.
//!
//! This crate writes every metadata document itself, through
//! [`ArrayDocument`], so that it holds only standard keys (zarrs would add
//! `_zarrs` and, in v2, `node_type`) and so that v2 structured dtypes,
//! which zarrs does not know, can be written. The chunks are always encoded
//! by zarrs: a v2 array is handed to it as the equivalent v3 metadata (same
//! codecs, v2 chunk keys), which is never stored.

mod engine;
mod parse;

use std::ops::Range;

use ndl_runtime::Order;
use ndl_runtime::lang::zarr::{ArrayDocument, ZARR_JSON, ZARRAY, ZarrFormat};
use ndl_runtime::{ByteOrder, Datatype};
use serde_json::{Map, Value, json};
use zarrs::array::ArrayMetadataV3;

use crate::error::{Error, Result};
use crate::options::WriteOptions;

pub(crate) use parse::{bad, v2_dimension_names};

/// The attribute holding the records' NDL datatype (enum names,
/// descriptions), which the Zarr data type cannot say.
pub(crate) const NDL_DATATYPE: &str = "ndl_datatype";

/// One array's metadata.
#[derive(Clone, Debug)]
pub(crate) struct ArrayMeta {
    pub format: ZarrFormat,
    pub shape: Vec<u64>,
    /// The chunk grid's chunk shape (with sharding: the shard shape).
    pub chunk_shape: Vec<u64>,
    /// With sharding, the shape of the chunks within a shard.
    pub inner_chunk_shape: Option<Vec<u64>>,
    /// The records' datatype, packed.
    pub stored: Datatype,
    pub order: ByteOrder,
    /// The byte ranges, within one packed record, of the numbers in the
    /// order opposite to `order` (a v2 `dtype` gives each field its own).
    pub other_order: Vec<Range<usize>>,
    /// The order of the elements within a chunk as stored (v2 `order`, a
    /// v3 `transpose`); zarrs decodes chunks to C order whatever it is.
    pub array_order: Order,
    /// The bytes-to-bytes codecs (v3 form), for descriptions.
    pub compressors: Vec<Value>,
    pub attributes: Map<String, Value>,
    pub dimension_names: Option<Vec<Option<String>>>,
    /// The zarrs view of the metadata.
    pub engine: ArrayMetadataV3,
    /// The metadata document as stored (`zarr.json` or `.zarray`): a
    /// rewrite changes only its shape, so whatever another writer put
    /// there stays.
    pub document: Value,
    /// The `.zattrs` of a new v2 array, written before its `.zarray`.
    pub v2_attributes: Option<Value>,
}

impl ArrayMeta {
    /// The metadata of a new array of `shape` elements of `stored`
    /// (packed), written with `options`: chunks of `chunk_len` along the
    /// first dimension, whole along the others; `dims` names the dimensions.
    pub fn new(
        options: &WriteOptions,
        stored: &Datatype,
        shape: Vec<u64>,
        chunk_len: u64,
        attributes: Map<String, Value>,
        dims: Vec<String>,
    ) -> Result<ArrayMeta> {
        let chunks = std::iter::once(chunk_len)
            .chain(shape.iter().skip(1).copied())
            .collect();
        let grid = Grid {
            shape,
            chunks,
            array_order: Order::C,
        };
        ArrayMeta::gridded(options, stored, grid, attributes, dims)
    }

    /// The metadata of a new array of elements of `stored` (packed) on
    /// `grid`, written with `options`; `dims` names the dimensions. With
    /// sharding, a shard holds `shard_len` along the first dimension.
    pub fn gridded(
        options: &WriteOptions,
        stored: &Datatype,
        grid: Grid,
        attributes: Map<String, Value>,
        dims: Vec<String>,
    ) -> Result<ArrayMeta> {
        let Grid {
            shape,
            chunks,
            array_order,
        } = grid;
        // The ranges are of a whole record: a column, or a v3 array whose
        // `bytes` codec gives every number one order, cannot keep them.
        if !options.other_order.is_empty() && !options.keeps_mixed_byte_orders() {
            return Err(unsupported(
                "records whose fields mix byte orders keep them in Zarr v2's records layout only; \
                 write that, or the numbers in one order",
            ));
        }
        let chunk_len = chunks.first().copied().unwrap_or(1);
        let with_first = |first: u64| -> Vec<u64> {
            let mut c = chunks.clone();
            c[0] = first;
            c
        };
        let inner_chunk_shape = match options.shard_len {
            None => None,
            Some(_) if options.format == ZarrFormat::V2 => {
                return Err(unsupported(
                    "sharding is a Zarr v3 feature; write v3 or leave out shard_len",
                ));
            }
            Some(_) if chunks.is_empty() => {
                return Err(unsupported("a 0-dimensional array has no shards"));
            }
            Some(shard) if shard == 0 || shard % chunk_len != 0 => {
                return Err(unsupported(format!(
                    "a shard of {shard} records is not a whole number of chunks of {chunk_len}"
                )));
            }
            Some(_) => Some(chunks.clone()),
        };
        let grid_chunks = match options.shard_len {
            Some(shard) => with_first(shard),
            None => chunks.clone(),
        };
        let doc = ArrayDocument {
            format: options.format,
            shape: shape.clone(),
            chunks: grid_chunks,
            inner_chunks: inner_chunk_shape.clone(),
            datatype: stored.clone(),
            order: options.order(),
            other_order: options.other_order.clone(),
            array_order,
            codec: options.effective_codec(),
            legacy_structured: options.legacy_structured,
            // Left out when empty, as zarr-python leaves them out.
            attributes: (!attributes.is_empty()).then(|| attributes.clone()),
            dimension_names: Some(dims.clone()),
        };
        let (data_type, fill) = engine::data_type(stored).map_err(unsupported)?;
        let engine: ArrayMetadataV3 = serde_json::from_value(doc.v3_with(data_type, fill))
            .map_err(|e| unsupported(e.to_string()))?;
        let lang = |e: ndl_runtime::lang::LangError| unsupported(e.to_string());
        let (document, v2_attributes) = match options.format {
            ZarrFormat::V3 => (doc.v3().map_err(lang)?, None),
            ZarrFormat::V2 => (doc.v2().map_err(lang)?, Some(doc.v2_attributes())),
        };
        Ok(ArrayMeta {
            format: options.format,
            shape,
            chunk_shape: doc.chunks,
            inner_chunk_shape,
            stored: stored.clone(),
            order: doc.order,
            other_order: doc.other_order,
            array_order,
            compressors: options
                .effective_codec()
                .v3_codecs(stored.size().unwrap_or(0)),
            attributes,
            dimension_names: Some(dims.into_iter().map(Some).collect()),
            engine,
            document,
            v2_attributes,
        })
    }

    /// Makes `fill` (Zarr's JSON of one element) the array's `fill_value`,
    /// the engine's too: zarrs skips storing a chunk that is all its fill
    /// value, which readers then fill with the document's.
    pub fn set_fill(&mut self, fill: Value) -> Result<()> {
        self.engine.fill_value = serde_json::from_value(fill.clone())
            .map_err(|e| unsupported(format!("fill_value {fill}: {e}")))?;
        self.document["fill_value"] = fill;
        Ok(())
    }

    /// The metadata with the `fill_value` of `options`, where they give
    /// one: for an array of numbers only.
    pub fn with_options_fill(mut self, options: &WriteOptions) -> Result<ArrayMeta> {
        let Some(fill) = &options.fill_value else {
            return Ok(self);
        };
        if matches!(self.stored, Datatype::Compound(_)) {
            return Err(unsupported(format!(
                "fill_value {fill} is for an array of numbers; an array of records takes none"
            )));
        }
        self.set_fill(fill.clone())?;
        Ok(self)
    }

    /// The key of the array's metadata document.
    pub fn key(&self) -> &'static str {
        match self.format {
            ZarrFormat::V3 => ZARR_JSON,
            ZarrFormat::V2 => ZARRAY,
        }
    }

    /// The number of records along the first dimension.
    pub fn len(&self) -> u64 {
        self.shape.first().copied().unwrap_or(1)
    }

    /// The same array with `len` records.
    pub fn with_len(&self, len: u64) -> ArrayMeta {
        let mut meta = self.clone();
        meta.shape[0] = len;
        meta.engine.shape[0] = len;
        meta.document["shape"][0] = json!(len);
        meta
    }
}

/// The shape of a new array, its chunks and the order of the elements in
/// them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Grid {
    pub shape: Vec<u64>,
    pub chunks: Vec<u64>,
    pub array_order: Order,
}

fn unsupported(message: impl Into<String>) -> Error {
    Error::Unsupported {
        message: message.into(),
    }
}

#[cfg(test)]
mod tests {
    use ndl_runtime::lang::zarr::Codec;
    use ndl_runtime::{Compound, Member};

    use super::*;

    fn record() -> Datatype {
        Datatype::Compound(Compound {
            size: 5,
            members: vec![
                Member::new("id", 0, Datatype::UInt32),
                Member::new("ok", 4, Datatype::Bool),
            ],
        })
    }

    fn new(options: &WriteOptions) -> Result<ArrayMeta> {
        ArrayMeta::new(options, &record(), vec![7], 2, Map::new(), vec!["t".into()])
    }

    /// What a store's reader makes of the document a new array writes.
    fn read_back(meta: &ArrayMeta) -> ArrayMeta {
        match meta.format {
            ZarrFormat::V3 => ArrayMeta::from_v3("s", &meta.document).unwrap(),
            ZarrFormat::V2 => {
                let Some(Value::Object(attributes)) = meta.v2_attributes.clone() else {
                    panic!("a new v2 array has its .zattrs")
                };
                ArrayMeta::from_v2("s", &meta.document, attributes).unwrap()
            }
        }
    }

    #[test]
    fn every_codec_round_trips_through_both_formats() {
        let codecs = [
            Codec::None,
            Codec::Zstd(5),
            Codec::Blosc(2),
            Codec::Gzip(1),
            Codec::Zlib(9),
        ];
        for format in [ZarrFormat::V2, ZarrFormat::V3] {
            for codec in codecs {
                let options = WriteOptions::new()
                    .zarr_format(format)
                    .codec(codec)
                    .byte_order(ByteOrder::Big);
                let meta = new(&options).unwrap();
                let back = read_back(&meta);
                let what = format!("{format:?} {codec:?}");
                assert_eq!(
                    Codec::from_v3_codecs(&back.compressors),
                    Some(codec),
                    "{what}"
                );
                assert_eq!(back.stored, record(), "{what}");
                assert_eq!(back.order, ByteOrder::Big, "{what}");
                assert_eq!((back.shape, back.chunk_shape), (vec![7], vec![2]), "{what}");
                assert_eq!(back.dimension_names, Some(vec![Some("t".into())]), "{what}");
            }
        }
    }

    #[test]
    fn a_grid_in_fortran_order_reads_back_in_it_in_both_formats() {
        for format in [ZarrFormat::V2, ZarrFormat::V3] {
            let grid = Grid {
                shape: vec![4, 6, 5],
                chunks: vec![2, 3, 5],
                array_order: Order::Fortran,
            };
            let options = WriteOptions::new().zarr_format(format);
            let meta = ArrayMeta::gridded(&options, &record(), grid, Map::new(), vec![]).unwrap();
            let back = read_back(&meta);
            assert_eq!(back.array_order, Order::Fortran, "{format:?}");
            assert_eq!(
                (back.shape, back.chunk_shape),
                (vec![4, 6, 5], vec![2, 3, 5]),
                "{format:?}"
            );
        }
        let zero_d = Grid {
            shape: vec![],
            chunks: vec![],
            array_order: Order::C,
        };
        let sharded = WriteOptions::new().shard_len(2);
        let e = ArrayMeta::gridded(&sharded, &record(), zero_d, Map::new(), vec![]).unwrap_err();
        assert!(e.to_string().contains("0-dimensional"), "{e}");
    }

    #[test]
    fn shards_hold_whole_chunks_in_v3_only() {
        let sharded = new(&WriteOptions::new().shard_len(6)).unwrap();
        assert_eq!(
            (sharded.chunk_shape, sharded.inner_chunk_shape),
            (vec![6], Some(vec![2]))
        );
        let back = read_back(&new(&WriteOptions::new().shard_len(6)).unwrap());
        assert_eq!(back.inner_chunk_shape, Some(vec![2]));
        let v2 = WriteOptions::new().zarr_format(ZarrFormat::V2).shard_len(6);
        assert!(
            new(&v2)
                .unwrap_err()
                .to_string()
                .contains("Zarr v3 feature")
        );
        let ragged = new(&WriteOptions::new().shard_len(5)).unwrap_err();
        assert!(ragged.to_string().contains("not a whole number of chunks"));
    }

    #[test]
    fn a_new_length_changes_the_shape_only() {
        let meta = new(&WriteOptions::new()).unwrap();
        let longer = meta.with_len(100);
        assert_eq!((longer.len(), longer.engine.shape[0]), (100, 100));
        assert_eq!(longer.document["shape"], json!([100]));
        let mut unchanged = longer.document.clone();
        unchanged["shape"] = meta.document["shape"].clone();
        assert_eq!(unchanged, meta.document);
    }

    #[test]
    fn documents_that_are_no_array_are_refused_naming_the_key() {
        let group = json!({"zarr_format": 3, "node_type": "group"});
        let e = ArrayMeta::from_v3("s", &group).unwrap_err();
        assert!(
            matches!(e, Error::Metadata { ref key, .. } if key == ZARR_JSON),
            "{e}"
        );
        let fortran = json!({"zarr_format": 2, "shape": [2, 2], "chunks": [1, 1], "dtype": "<u4",
            "compressor": null, "fill_value": null, "order": "K", "filters": null});
        let e = ArrayMeta::from_v2("s", &fortran, Map::new()).unwrap_err();
        assert!(e.to_string().contains("order `K`"), "{e}");
        let bad_dtype =
            json!({"zarr_format": 2, "shape": [2], "chunks": [1], "dtype": [["a", "<O"]]});
        let e = ArrayMeta::from_v2("s", &bad_dtype, Map::new()).unwrap_err();
        assert!(
            matches!(e, Error::DataType { ref field, .. } if field == "a"),
            "{e}"
        );
    }
}

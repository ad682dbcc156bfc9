//! Array metadata read back from its documents, whoever wrote them: a v3
//! `zarr.json`, or a v2 `.zarray` and its `.zattrs`.

use ndl_runtime::ByteOrder;
use ndl_runtime::Order;
use ndl_runtime::lang::zarr::{
    ArrayDocument, BadDataType, V3Codecs, ZARR_JSON, ZARRAY, ZarrFormat, check_grid,
    parse_v2_dtype, parse_v3_data_type, regular_chunks,
};
use serde_json::{Map, Value, json};
use zarrs::array::ArrayMetadataV3;
use zarrs::metadata::v2::{ArrayMetadataV2Order, MetadataV2};
use zarrs::metadata::v3::MetadataV3;

use super::{ArrayMeta, engine};
use crate::error::{Error, Result};

/// A metadata document of `store` at `key` that is not what it should be.
/// The dimension names of a v2 array: its `.zattrs`' `_ARRAY_DIMENSIONS`
/// (xarray's convention), when it has them.
pub(crate) fn v2_dimension_names(attributes: &Map<String, Value>) -> Option<Vec<Option<String>>> {
    let names = attributes.get("_ARRAY_DIMENSIONS")?.as_array()?;
    Some(
        names
            .iter()
            .map(|n| n.as_str().map(str::to_string))
            .collect(),
    )
}

pub(crate) fn bad(store: &str, key: &str, message: impl Into<String>) -> Error {
    Error::Metadata {
        store: store.to_string(),
        key: key.to_string(),
        message: message.into(),
    }
}

/// A codec of `store`'s document at `key` that no one here decodes.
fn unsupported_codec(store: &str, key: &str, codec: String) -> Error {
    Error::UnsupportedCodec {
        store: store.to_string(),
        key: key.to_string(),
        codec,
    }
}

/// A data type of `store`'s document at `key` that cannot be read.
fn bad_type(store: &str, key: &str, e: BadDataType) -> Error {
    Error::DataType {
        store: store.to_string(),
        key: key.to_string(),
        field: e.field,
        message: e.why,
    }
}

impl ArrayMeta {
    /// The array of the `zarr.json` document `doc` of the store `store`.
    pub fn from_v3(store: &str, doc: &Value) -> Result<ArrayMeta> {
        let key = ZARR_JSON;
        if doc.get("node_type").and_then(Value::as_str) != Some("array") {
            return Err(bad(store, key, "not an array (node_type is not \"array\")"));
        }
        let stored = parse_v3_data_type(doc.get("data_type").unwrap_or(&Value::Null))
            .map_err(|e| bad_type(store, key, e))?;
        let document = doc.clone();
        let mut doc = doc.clone();
        let codecs = doc
            .get("codecs")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if let Some(codec) = crate::codecs::unknown_v3(&codecs) {
            return Err(unsupported_codec(store, key, codec));
        }
        let codecs = V3Codecs::read(&codecs).map_err(|m| bad(store, key, m))?;
        if engine::is_struct(&doc) {
            // zarr-python 3.1 writes `bytes` without `endian` for
            // `structured` and means little-endian: the tool wins.
            engine::default_endian(&mut doc);
        }
        if engine::is_raw(&stored) {
            let (data_type, fill) = engine::data_type(&stored).map_err(|m| bad(store, key, m))?;
            doc["data_type"] = data_type;
            doc["fill_value"] = fill;
        }
        let engine: ArrayMetadataV3 = serde_json::from_value(doc.clone())
            .map_err(|e| bad(store, key, format!("not Zarr v3 array metadata: {e}")))?;
        let chunk_shape =
            regular_chunks(&doc).ok_or_else(|| bad(store, key, "the chunk grid is not regular"))?;
        check_grid(&engine.shape, &chunk_shape).map_err(|m| bad(store, key, m))?;
        let dimension_names = engine.dimension_names.as_ref().map(|names| {
            names
                .iter()
                .map(|n| n.as_ref().map(ToString::to_string))
                .collect()
        });
        Ok(ArrayMeta {
            format: ZarrFormat::V3,
            shape: engine.shape.clone(),
            chunk_shape,
            inner_chunk_shape: codecs.inner_chunks,
            stored,
            order: codecs.order,
            other_order: Vec::new(),
            array_order: codecs.array_order,
            compressors: codecs.compressors,
            attributes: engine.attributes.clone(),
            dimension_names,
            engine,
            document,
            v2_attributes: None,
        })
    }

    /// The array of the `.zarray` document `doc` of the store `store`, whose
    /// `.zattrs` holds `attributes`.
    pub fn from_v2(store: &str, doc: &Value, attributes: Map<String, Value>) -> Result<ArrayMeta> {
        let key = ZARRAY;
        let field = |name: &str| {
            doc.get(name)
                .ok_or_else(|| bad(store, key, format!("no `{name}`")))
        };
        let u64s = |name: &str| -> Result<Vec<u64>> {
            serde_json::from_value(field(name)?.clone()).map_err(|_| {
                bad(
                    store,
                    key,
                    format!("`{name}` is not a list of non-negative integers"),
                )
            })
        };
        if doc.get("zarr_format").and_then(Value::as_u64) != Some(2) {
            return Err(bad(store, key, "zarr_format is not 2"));
        }
        let shape = u64s("shape")?;
        let chunk_shape = u64s("chunks")?;
        check_grid(&shape, &chunk_shape).map_err(|m| bad(store, key, m))?;
        let parsed = parse_v2_dtype(field("dtype")?).map_err(|e| bad_type(store, key, e))?;
        let order = parsed.order.unwrap_or(ByteOrder::NATIVE);
        let (stored, other_order) = (parsed.datatype, parsed.other_order);
        let given = |name: &str| match doc.get(name) {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.clone()),
        };
        let compressor: Option<MetadataV2> = given("compressor")
            .map(serde_json::from_value)
            .transpose()
            .map_err(|e| bad(store, key, format!("compressor: {e}")))?;
        let filters: Option<Vec<MetadataV2>> = given("filters")
            .map(serde_json::from_value)
            .transpose()
            .map_err(|e| bad(store, key, format!("filters: {e}")))?;
        let v2_codecs = filters.iter().flatten().chain(&compressor);
        if let Some(codec) = crate::codecs::unknown_v2(v2_codecs) {
            return Err(unsupported_codec(store, key, codec));
        }
        // One dimension reads the same in either order.
        let (array_order, v2_order) = match doc.get("order").and_then(Value::as_str) {
            Some("C") | None => (Order::C, ArrayMetadataV2Order::C),
            Some("F") if shape.len() <= 1 => (Order::C, ArrayMetadataV2Order::C),
            Some("F") => (Order::Fortran, ArrayMetadataV2Order::F),
            Some(other) => return Err(bad(store, key, format!("order `{other}` is not C or F"))),
        };
        let (data_type, zeros) = engine::data_type(&stored).map_err(|m| bad(store, key, m))?;
        let data_type_meta: MetadataV3 = serde_json::from_value(data_type.clone())
            .map_err(|e| bad(store, key, e.to_string()))?;
        let codecs = zarrs::convert::codec_metadata_v2_to_v3(
            v2_order,
            shape.len(),
            &data_type_meta,
            Some(engine::endianness(order)),
            &filters,
            &compressor,
        )
        .map_err(|e| bad(store, key, format!("codecs: {e}")))?;
        let codecs: Vec<Value> = codecs
            .iter()
            .map(|c| serde_json::to_value(c).unwrap_or_default())
            .collect();
        let fill = engine::v2_fill(
            &stored,
            doc.get("fill_value").unwrap_or(&Value::Null),
            zeros,
        )
        .map_err(|m| bad(store, key, m))?;
        let separator = doc
            .get("dimension_separator")
            .and_then(Value::as_str)
            .unwrap_or(".");
        // Read as written: the codecs and chunk keys as they are, not as
        // this crate would write them.
        let mut engine_doc = ArrayDocument::new(
            ZarrFormat::V2,
            stored.clone(),
            shape.clone(),
            chunk_shape.clone(),
        )
        .v3_with(data_type, fill);
        engine_doc["codecs"] = json!(codecs);
        engine_doc["chunk_key_encoding"] =
            json!({"name": "v2", "configuration": {"separator": separator}});
        let engine: ArrayMetadataV3 = serde_json::from_value(engine_doc)
            .map_err(|e| bad(store, key, format!("not Zarr v2 array metadata: {e}")))?;
        let read = V3Codecs::read(&codecs).map_err(|m| bad(store, key, m))?;
        let dimension_names = v2_dimension_names(&attributes);
        Ok(ArrayMeta {
            format: ZarrFormat::V2,
            shape,
            chunk_shape,
            inner_chunk_shape: None,
            stored,
            order,
            other_order,
            array_order,
            compressors: read.compressors,
            attributes,
            dimension_names,
            engine,
            document: doc.clone(),
            v2_attributes: None,
        })
    }
}

//! Array metadata: the documents this crate writes (`zarr.json` for v3,
//! `.zarray` and `.zattrs` for v2) and reads, and the zarrs array that
//! encodes and decodes chunks for them.
//!
//! This crate writes every metadata document itself, so that it holds only
//! standard keys (zarrs would add `_zarrs` and, in v2, `node_type`) and so
//! that v2 structured dtypes, which zarrs does not know, can be written.
//! The chunks are always encoded by zarrs: a v2 array is handed to it as
//! the equivalent v3 metadata (same codecs, v2 chunk keys), which is never
//! stored.

use ndl_runtime::lang::zarr::v3_fill_value;
use ndl_runtime::{ByteOrder, Datatype};
use serde_json::{json, Map, Value};
use zarrs::array::{Array, ArrayMetadata, ArrayMetadataV3};
use zarrs::metadata::v2::{ArrayMetadataV2Order, MetadataV2};
use zarrs::metadata::v3::MetadataV3;
use zarrs::metadata::Endianness;
use zarrs::storage::ReadableWritableListableStorageTraits;

use crate::data_type::{engine_v3, parse_v2, parse_v3, BadDataType};
use crate::error::{Error, Result};
use crate::options::{Codec, WriteOptions, ZarrFormat};
use crate::store::Store;
use crate::struct_type::{self, fill_json};

/// The v3 metadata key.
pub(crate) const ZARR_JSON: &str = "zarr.json";
/// The v2 array metadata key.
pub(crate) const ZARRAY: &str = ".zarray";
/// The v2 attributes key.
pub(crate) const ZATTRS: &str = ".zattrs";
/// The v2 group metadata key.
pub(crate) const ZGROUP: &str = ".zgroup";
/// The attribute holding the records' NDL datatype (enum names,
/// descriptions), which the Zarr data type cannot say.
pub(crate) const NDL_DATATYPE: &str = "ndl_datatype";

/// The zarrs array that encodes and decodes the chunks.
pub(crate) type Engine = Array<dyn ReadableWritableListableStorageTraits>;

/// One array's metadata.
#[derive(Clone, Debug)]
pub(crate) struct ArrayMeta {
    pub format: ZarrFormat,
    pub shape: Vec<u64>,
    /// The chunk grid's chunk shape (with sharding: the shard shape).
    pub chunks: Vec<u64>,
    /// With sharding, the shape of the chunks within a shard.
    pub inner_chunks: Option<Vec<u64>>,
    /// The records' datatype, packed.
    pub stored: Datatype,
    pub order: ByteOrder,
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
}

fn bad(store: &Store, key: &str, message: impl Into<String>) -> Error {
    Error::Metadata {
        store: store.name.clone(),
        key: key.to_string(),
        message: message.into(),
    }
}

fn bad_type(store: &Store, key: &str, e: BadDataType) -> Error {
    Error::DataType {
        store: store.name.clone(),
        key: key.to_string(),
        field: e.field,
        message: e.why,
    }
}

fn json_at(store: &Store, key: &str) -> Result<Option<Value>> {
    let Some(bytes) = store.get(key)? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| bad(store, key, format!("not JSON: {e}")))
}

impl ArrayMeta {
    /// Reads the array at the store's root: `zarr.json`, else `.zarray`.
    pub fn read(store: &Store) -> Result<ArrayMeta> {
        if let Some(doc) = json_at(store, ZARR_JSON)? {
            return ArrayMeta::from_v3(store, &doc);
        }
        if let Some(doc) = json_at(store, ZARRAY)? {
            let attributes = match json_at(store, ZATTRS)? {
                None => Map::new(),
                Some(Value::Object(a)) => a,
                Some(_) => return Err(bad(store, ZATTRS, "not a JSON object")),
            };
            return ArrayMeta::from_v2(store, &doc, attributes);
        }
        Err(Error::NotAnArray {
            store: store.name.clone(),
        })
    }

    fn from_v3(store: &Store, doc: &Value) -> Result<ArrayMeta> {
        let key = ZARR_JSON;
        if doc.get("node_type").and_then(Value::as_str) != Some("array") {
            return Err(bad(store, key, "not an array (node_type is not \"array\")"));
        }
        let stored = parse_v3(doc.get("data_type").unwrap_or(&Value::Null))
            .map_err(|e| bad_type(store, key, e))?;
        let document = doc.clone();
        let mut doc = doc.clone();
        let codecs = doc
            .get("codecs")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let (order, compressors, inner_chunks) =
            pipeline(&codecs).map_err(|m| bad(store, key, m))?;
        if is_struct(&doc) {
            // zarr-python 3.1 writes `bytes` without `endian` for
            // `structured` and means little-endian: the tool wins.
            default_endian(&mut doc);
        }
        if is_raw(&stored) {
            let (data_type, fill) = engine_data_type(&stored).map_err(|m| bad(store, key, m))?;
            doc["data_type"] = data_type;
            doc["fill_value"] = fill;
        }
        let engine: ArrayMetadataV3 = serde_json::from_value(doc.clone())
            .map_err(|e| bad(store, key, format!("not Zarr v3 array metadata: {e}")))?;
        let chunks =
            regular_chunks(&doc).ok_or_else(|| bad(store, key, "the chunk grid is not regular"))?;
        check_grid(&engine.shape, &chunks).map_err(|m| bad(store, key, m))?;
        let dimension_names = engine.dimension_names.as_ref().map(|names| {
            names
                .iter()
                .map(|n| n.as_ref().map(ToString::to_string))
                .collect()
        });
        Ok(ArrayMeta {
            format: ZarrFormat::V3,
            shape: engine.shape.clone(),
            chunks,
            inner_chunks,
            stored,
            order,
            compressors,
            attributes: engine.attributes.clone(),
            dimension_names,
            engine,
            document,
        })
    }

    fn from_v2(store: &Store, doc: &Value, attributes: Map<String, Value>) -> Result<ArrayMeta> {
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
        let chunks = u64s("chunks")?;
        check_grid(&shape, &chunks).map_err(|m| bad(store, key, m))?;
        let parsed = parse_v2(field("dtype")?).map_err(|e| bad_type(store, key, e))?;
        let order = parsed.order.unwrap_or(ByteOrder::NATIVE);
        let stored = parsed.datatype;
        let parse = |name: &str| -> Result<Option<Value>> {
            Ok(match doc.get(name) {
                None | Some(Value::Null) => None,
                Some(v) => Some(v.clone()),
            })
        };
        let compressor: Option<MetadataV2> = parse("compressor")?
            .map(serde_json::from_value)
            .transpose()
            .map_err(|e| bad(store, key, format!("compressor: {e}")))?;
        let filters: Option<Vec<MetadataV2>> = parse("filters")?
            .map(serde_json::from_value)
            .transpose()
            .map_err(|e| bad(store, key, format!("filters: {e}")))?;
        let array_order = match doc.get("order").and_then(Value::as_str) {
            Some("C") | None => ArrayMetadataV2Order::C,
            Some("F") if shape.len() <= 1 => ArrayMetadataV2Order::C,
            Some("F") => {
                return Err(bad(
                    store,
                    key,
                    "Fortran order is not supported for records",
                ))
            }
            Some(other) => return Err(bad(store, key, format!("order `{other}` is not C or F"))),
        };
        let (data_type, zeros) = engine_data_type(&stored).map_err(|m| bad(store, key, m))?;
        let data_type_meta: MetadataV3 = serde_json::from_value(data_type.clone())
            .map_err(|e| bad(store, key, e.to_string()))?;
        let codecs = zarrs::convert::codec_metadata_v2_to_v3(
            array_order,
            shape.len(),
            &data_type_meta,
            Some(endianness(order)),
            &filters,
            &compressor,
        )
        .map_err(|e| bad(store, key, format!("codecs: {e}")))?;
        let codecs: Vec<Value> = codecs
            .iter()
            .map(|c| serde_json::to_value(c).unwrap_or_default())
            .collect();
        let fill = v2_fill(
            &stored,
            doc.get("fill_value").unwrap_or(&Value::Null),
            zeros,
        )
        .map_err(|m| bad(store, key, m))?;
        let separator = doc
            .get("dimension_separator")
            .and_then(Value::as_str)
            .unwrap_or(".");
        let chunk_key_encoding = json!({"name": "v2", "configuration": {"separator": separator}});
        let engine_doc = v3_document(
            &shape,
            data_type,
            &chunks,
            chunk_key_encoding,
            fill,
            &codecs,
        );
        let engine: ArrayMetadataV3 = serde_json::from_value(engine_doc)
            .map_err(|e| bad(store, key, format!("not Zarr v2 array metadata: {e}")))?;
        let (_, compressors, _) = pipeline(&codecs).map_err(|m| bad(store, key, m))?;
        let dimension_names = attributes
            .get("_ARRAY_DIMENSIONS")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .map(|n| n.as_str().map(str::to_string))
                    .collect()
            });
        Ok(ArrayMeta {
            format: ZarrFormat::V2,
            shape,
            chunks,
            inner_chunks: None,
            stored,
            order,
            compressors,
            attributes,
            dimension_names,
            engine,
            document: doc.clone(),
        })
    }

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
        let record = stored.size().unwrap_or(0);
        let whole = |first: u64| -> Vec<u64> {
            std::iter::once(first)
                .chain(shape[1..].iter().copied())
                .collect()
        };
        let order = options.order();
        let compressors = options.codec.v3(record);
        let inner_chunks = match options.shard_len {
            None => None,
            Some(_) if options.format == ZarrFormat::V2 => {
                return Err(Error::Unsupported {
                    message: "sharding is a Zarr v3 feature; write v3 or leave out shard_len"
                        .into(),
                })
            }
            Some(shard) if shard == 0 || shard % chunk_len != 0 => {
                return Err(Error::Unsupported {
                    message: format!(
                        "a shard of {shard} records is not a whole number of chunks of {chunk_len}"
                    ),
                })
            }
            Some(_) => Some(whole(chunk_len)),
        };
        let chunks = whole(options.shard_len.unwrap_or(chunk_len));
        let (data_type, fill) =
            engine_data_type(stored).map_err(|message| Error::Unsupported { message })?;
        let bytes = json!({"name": "bytes", "configuration": {"endian": order.name()}});
        let mut codecs = vec![bytes.clone()];
        codecs.extend(compressors.iter().cloned());
        if let Some(inner) = &inner_chunks {
            codecs = vec![json!({"name": "sharding_indexed", "configuration": {
                "chunk_shape": inner,
                "codecs": codecs,
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
                "index_location": "end",
            }})];
        }
        let chunk_key_encoding = match options.format {
            ZarrFormat::V3 => json!({"name": "default", "configuration": {"separator": "/"}}),
            ZarrFormat::V2 => json!({"name": "v2", "configuration": {"separator": "."}}),
        };
        let mut engine_doc = v3_document(
            &shape,
            data_type,
            &chunks,
            chunk_key_encoding,
            fill,
            &codecs,
        );
        engine_doc["attributes"] = Value::Object(attributes.clone());
        engine_doc["dimension_names"] = json!(dims);
        let engine: ArrayMetadataV3 =
            serde_json::from_value(engine_doc).map_err(|e| Error::Unsupported {
                message: e.to_string(),
            })?;
        let mut meta = ArrayMeta {
            format: options.format,
            shape,
            chunks,
            inner_chunks,
            stored: stored.clone(),
            order,
            compressors,
            attributes,
            dimension_names: Some(dims.into_iter().map(Some).collect()),
            engine,
            document: Value::Null,
        };
        meta.document = match options.format {
            ZarrFormat::V3 => {
                let unsupported = |e: ndl_runtime::lang::LangError| Error::Unsupported {
                    message: e.to_string(),
                };
                let mut doc =
                    serde_json::to_value(&meta.engine).map_err(|e| Error::Unsupported {
                        message: e.to_string(),
                    })?;
                // The names zarr-python reads, where zarrs has others.
                doc["data_type"] = stored.to_zarr_v3_data_type().map_err(unsupported)?;
                doc["fill_value"] = v3_fill_value(stored).map_err(unsupported)?;
                if options.legacy_structured {
                    legacy(&mut doc, stored);
                }
                doc
            }
            ZarrFormat::V2 => meta.v2_document()?,
        };
        Ok(meta)
    }

    /// The zarrs array of this metadata on `store`.
    pub fn engine(&self, store: &Store) -> Result<Engine> {
        struct_type::register();
        Array::new_with_metadata(
            store.storage.clone(),
            &store.node_path(),
            ArrayMetadata::V3(self.engine.clone()),
        )
        .map_err(|e| bad(store, self.key(), format!("cannot be decoded: {e}")))
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

    /// Writes the metadata document. For a new v2 array, `.zattrs` first,
    /// so that the document that makes the array exist comes last.
    pub fn write(&self, store: &Store, new: bool) -> Result<()> {
        if new && self.format == ZarrFormat::V2 {
            let mut attributes = self.attributes.clone();
            if let Some(names) = &self.dimension_names {
                attributes.insert("_ARRAY_DIMENSIONS".into(), json!(names));
            }
            store.set(ZATTRS, pretty(&Value::Object(attributes)))?;
        }
        store.set(self.key(), pretty(&self.document))
    }

    fn v2_document(&self) -> Result<Value> {
        let dtype = self
            .stored
            .to_zarr_v2_dtype(self.order)
            .map_err(|e| Error::Unsupported {
                message: e.to_string(),
            })?;
        let codec = Codec::from_v3(&self.compressors).unwrap_or(Codec::None);
        Ok(json!({
            "zarr_format": 2,
            "shape": self.shape,
            "chunks": self.chunks,
            "dtype": dtype,
            "compressor": codec.v2(),
            "fill_value": null,
            "order": "C",
            "filters": null,
            "dimension_separator": ".",
        }))
    }
}

/// A Zarr v3 array document with a regular chunk grid.
fn v3_document(
    shape: &[u64],
    data_type: Value,
    chunks: &[u64],
    chunk_key_encoding: Value,
    fill: Value,
    codecs: &[Value],
) -> Value {
    json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": shape,
        "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
        "chunk_key_encoding": chunk_key_encoding,
        "fill_value": fill,
        "codecs": codecs,
    })
}

/// A group's format and attributes, if the store's root is a group.
pub(crate) fn read_group(store: &Store) -> Result<Option<(ZarrFormat, Map<String, Value>)>> {
    if let Some(doc) = json_at(store, ZARR_JSON)? {
        if doc.get("node_type").and_then(Value::as_str) != Some("group") {
            return Ok(None);
        }
        let attributes = match doc.get("attributes") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(a)) => a.clone(),
            Some(_) => return Err(bad(store, ZARR_JSON, "attributes is not a JSON object")),
        };
        return Ok(Some((ZarrFormat::V3, attributes)));
    }
    let Some(doc) = json_at(store, ZGROUP)? else {
        return Ok(None);
    };
    if doc.get("zarr_format").and_then(Value::as_u64) != Some(2) {
        return Err(bad(store, ZGROUP, "zarr_format is not 2"));
    }
    let attributes = match json_at(store, ZATTRS)? {
        None => Map::new(),
        Some(Value::Object(a)) => a,
        Some(_) => return Err(bad(store, ZATTRS, "not a JSON object")),
    };
    Ok(Some((ZarrFormat::V2, attributes)))
}

/// Writes the metadata of a group with `attributes` at the store's root.
pub(crate) fn write_group(
    store: &Store,
    format: ZarrFormat,
    attributes: Map<String, Value>,
) -> Result<()> {
    match format {
        ZarrFormat::V3 => store.set(
            ZARR_JSON,
            pretty(&json!({"zarr_format": 3, "node_type": "group", "attributes": attributes})),
        ),
        ZarrFormat::V2 => {
            store.set(ZATTRS, pretty(&Value::Object(attributes)))?;
            store.set(ZGROUP, pretty(&json!({"zarr_format": 2})))
        }
    }
}

fn pretty(doc: &Value) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(doc).unwrap_or_default();
    out.push(b'\n');
    out
}

/// Whether zarrs knows `stored`, a top-level fixed string of bytes or
/// opaque bytes, only as raw bits (zarr-python's names for them are
/// `null_terminated_bytes` and `raw_bytes`).
fn is_raw(stored: &Datatype) -> bool {
    matches!(
        stored,
        Datatype::Opaque(_)
            | Datatype::FixedString(ndl_runtime::FixedString {
                charset: ndl_runtime::Charset::Ascii,
                ..
            })
    )
}

/// The data type and fill value zarrs is given for `stored`, which zarrs
/// only encodes and decodes: raw bits of the same size where zarrs lacks
/// the type, records as `struct`, zeros for the fill.
fn engine_data_type(stored: &Datatype) -> std::result::Result<(Value, Value), String> {
    let size = stored.size().unwrap_or(0);
    if is_raw(stored) {
        return Ok((json!(format!("r{}", 8 * size)), json!(vec![0u8; size])));
    }
    Ok((engine_v3(stored)?, fill_json(stored, &vec![0; size])))
}

fn is_struct(doc: &Value) -> bool {
    matches!(
        doc.pointer("/data_type/name").and_then(Value::as_str),
        Some("struct" | "structured")
    )
}

/// Sets `endian: little` on a `bytes` codec that gives none.
fn default_endian(doc: &mut Value) {
    let Some(codecs) = doc.get_mut("codecs").and_then(Value::as_array_mut) else {
        return;
    };
    for codec in codecs {
        if codec.get("name").and_then(Value::as_str) == Some("bytes")
            && codec.pointer("/configuration/endian").is_none()
        {
            *codec = json!({"name": "bytes", "configuration": {"endian": "little"}});
        }
    }
}

/// The legacy `structured` spelling of a v3 document: pairs, base64 fill.
fn legacy(doc: &mut Value, stored: &Datatype) {
    fn pairs(data_type: &Value) -> Value {
        match data_type
            .pointer("/configuration/fields")
            .and_then(Value::as_array)
        {
            Some(fields) => {
                let fields: Vec<Value> = fields
                    .iter()
                    .map(|f| json!([f["name"], pairs(&f["data_type"])]))
                    .collect();
                json!({"name": "structured", "configuration": {"fields": fields}})
            }
            None => data_type.clone(),
        }
    }
    if !matches!(stored, Datatype::Compound(_)) {
        return;
    }
    doc["data_type"] = pairs(&doc["data_type"]);
    let zeros = vec![0u8; stored.size().unwrap_or(0)];
    doc["fill_value"] = json!(base64::Engine::encode(
        &base64::engine::general_purpose::STANDARD,
        zeros
    ));
}

/// The regular chunk shape of a v3 document.
fn regular_chunks(doc: &Value) -> Option<Vec<u64>> {
    let grid = doc.get("chunk_grid")?;
    if grid.get("name")?.as_str()? != "regular" {
        return None;
    }
    serde_json::from_value(grid.pointer("/configuration/chunk_shape")?.clone()).ok()
}

/// Checks that a chunk grid fits a shape: one extent per dimension, none 0.
fn check_grid(shape: &[u64], chunks: &[u64]) -> std::result::Result<(), String> {
    if shape.len() != chunks.len() {
        return Err(format!(
            "the chunk shape {chunks:?} has {} dimensions, the shape {shape:?} has {}",
            chunks.len(),
            shape.len()
        ));
    }
    if chunks.contains(&0) {
        return Err(format!("the chunk shape {chunks:?} has an extent of 0"));
    }
    if shape
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .is_none()
    {
        return Err(format!(
            "the shape {shape:?} has more elements than a 64-bit count holds"
        ));
    }
    Ok(())
}

/// From a v3 codec list: the byte order, the bytes-to-bytes codecs, and the
/// chunk shape within shards.
type Pipeline = (ByteOrder, Vec<Value>, Option<Vec<u64>>);

fn pipeline(codecs: &[Value]) -> std::result::Result<Pipeline, String> {
    let name = |c: &Value| {
        c.get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let Some(at) = codecs
        .iter()
        .position(|c| name(c) == "bytes" || name(c) == "sharding_indexed")
    else {
        return Err("no bytes or sharding_indexed codec".into());
    };
    if name(&codecs[at]) == "sharding_indexed" {
        let inner = codecs[at]
            .pointer("/configuration/codecs")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let (order, compressors, _) = pipeline(&inner)?;
        let chunk_shape = codecs[at]
            .pointer("/configuration/chunk_shape")
            .cloned()
            .and_then(|c| serde_json::from_value(c).ok());
        return Ok((order, compressors, chunk_shape));
    }
    let order = match codecs[at]
        .pointer("/configuration/endian")
        .and_then(Value::as_str)
    {
        Some("big") => ByteOrder::Big,
        Some("little") => ByteOrder::Little,
        Some(other) => return Err(format!("bytes codec endian `{other}`")),
        // Single-byte data needs no order, and legacy `structured` means little.
        None => ByteOrder::Little,
    };
    Ok((order, codecs[at + 1..].to_vec(), None))
}

fn endianness(order: ByteOrder) -> Endianness {
    match order {
        ByteOrder::Big => Endianness::Big,
        ByteOrder::Little => Endianness::Little,
    }
}

/// The engine's v3 fill value for a v2 `fill_value`: `zeros` for `null` (no
/// fill value: zarr-python reads missing chunks as zeros too), base64 of a
/// record for records, the value itself for scalars.
fn v2_fill(stored: &Datatype, fill: &Value, zeros: Value) -> std::result::Result<Value, String> {
    match (stored, fill) {
        // Raw bits: zeros whatever the string says (zarr-python writes `""`).
        (_, Value::Null) => Ok(zeros),
        _ if is_raw(stored) => Ok(zeros),
        (Datatype::Compound(_), Value::String(_)) => {
            let bytes = struct_type::fill_bytes(stored, fill)
                .ok_or_else(|| format!("fill_value {fill} does not fit the dtype"))?;
            Ok(fill_json(stored, &bytes))
        }
        (Datatype::Compound(_), other) => Err(format!(
            "fill_value {other} of a structured dtype is not base64"
        )),
        (_, other) => Ok(other.clone()),
    }
}

//! The metadata of an array of variable-length strings or byte strings:
//! found in the documents of any store (v3 `string` /
//! `variable_length_bytes`, v2 `|O` with a `vlen-utf8` / `vlen-bytes`
//! filter), or made for a new array; and the v3 form zarrs is handed to
//! encode and decode its chunks.

use ndl_runtime::Datatype;
use ndl_runtime::lang::zarr::{Codec, ZARR_JSON, ZARRAY, ZATTRS, ZarrFormat, regular_chunks};
use serde_json::{Map, Value, json};
use zarrs::array::ArrayMetadataV3;
use zarrs::metadata::v2::{ArrayMetadataV2Order, MetadataV2};
use zarrs::metadata::v3::MetadataV3;

use crate::documents::{json_at, pretty, v2_attributes};
use crate::error::{Error, Result};
use crate::metadata::{bad, v2_dimension_names};
use crate::store::Store;

/// What each element of a variable-length array holds.
///
/// ```
/// use ndl_runtime::Datatype;
/// use ndl_zarr::VlenKind;
///
/// assert_eq!(VlenKind::Text.datatype(), Datatype::String);
/// assert_eq!(VlenKind::Bytes.datatype(), Datatype::Vlen(Box::new(Datatype::UInt8)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VlenKind {
    /// UTF-8 text: v3 `string`, v2 `|O` with `vlen-utf8`.
    Text,
    /// Byte strings: v3 `variable_length_bytes` (zarrs' `bytes`), v2 `|O`
    /// with `vlen-bytes`.
    Bytes,
}

impl VlenKind {
    /// The NDL datatype of an element: `string`, or a vlen of `uint8`.
    pub fn datatype(self) -> Datatype {
        match self {
            VlenKind::Text => Datatype::String,
            VlenKind::Bytes => Datatype::Vlen(Box::new(Datatype::UInt8)),
        }
    }

    /// The v3 `data_type` as zarr-python writes it.
    fn v3_name(self) -> &'static str {
        match self {
            VlenKind::Text => "string",
            VlenKind::Bytes => "variable_length_bytes",
        }
    }

    /// The codec (v3) or filter (v2) that frames the values of a chunk.
    fn codec(self) -> &'static str {
        match self {
            VlenKind::Text => "vlen-utf8",
            VlenKind::Bytes => "vlen-bytes",
        }
    }

    /// The kind whose v3 `data_type` is `name`, if any.
    fn of_v3(name: &str) -> Option<VlenKind> {
        match name {
            "string" => Some(VlenKind::Text),
            "variable_length_bytes" | "bytes" | "binary" => Some(VlenKind::Bytes),
            _ => None,
        }
    }
}

/// One variable-length array's metadata.
#[derive(Clone, Debug)]
pub(crate) struct VlenMeta {
    pub format: ZarrFormat,
    pub kind: VlenKind,
    pub shape: Vec<u64>,
    pub chunk_shape: Vec<u64>,
    /// The metadata document as stored.
    pub document: Value,
    pub attributes: Map<String, Value>,
    pub dimension_names: Option<Vec<Option<String>>>,
    /// The bytes-to-bytes codecs (v3 form), for descriptions.
    pub compressors: Vec<Value>,
    /// The zarrs view of the metadata.
    pub engine: ArrayMetadataV3,
    /// Whether a chunk is the values framed by `vlen-utf8` / `vlen-bytes`
    /// under bytes-to-bytes codecs only, so that its framing can be checked
    /// before zarrs decodes it (zarrs 0.23 panics on lengths that overrun
    /// the chunk).
    pub framed: bool,
    /// Whether a chunk is numcodecs' `json2` (v2 only) under the
    /// bytes-to-bytes codecs, which zarrs does not decode: the engine is
    /// then given `vlen-utf8` in its place, for its chunk keys, fill value
    /// and bytes-to-bytes codecs.
    pub json2: bool,
}

impl VlenMeta {
    /// The variable-length array at the store's node; `None` when the node
    /// holds no array, or an array of fixed-size elements.
    ///
    /// # Errors
    /// A v2 `|O` array of anything but `vlen-utf8` / `vlen-bytes`
    /// (`vlen-array`, `json`, `pickle`...) is refused, naming its codec.
    pub fn probe(store: &Store) -> Result<Option<VlenMeta>> {
        if let Some(doc) = json_at(store, ZARR_JSON)? {
            return from_v3(&store.name, &doc);
        }
        if let Some(doc) = json_at(store, ZARRAY)? {
            return from_v2(&store.name, &doc, v2_attributes(store)?);
        }
        Ok(None)
    }

    /// The metadata of a new array of `kind` of `shape` on `chunks`,
    /// compressed with `codec`; `dims` names the dimensions; `user` are
    /// its attributes beside those the store writes itself. Its
    /// `fill_value` is `fill`: what a chunk never written reads as, the
    /// empty string by default. A v2 array without one has none (`null`,
    /// read as empty), as xarray writes it: xarray takes a v2 array's
    /// `fill_value` for its `_FillValue`, and would read every empty
    /// string as missing.
    pub fn new(
        format: ZarrFormat,
        kind: VlenKind,
        grid: (Vec<u64>, Vec<u64>),
        codec: Codec,
        (dims, user): (Vec<String>, &Map<String, Value>),
        fill: Option<&str>,
    ) -> Result<VlenMeta> {
        let v2_fill = fill.map_or(Value::Null, |f| json!(f));
        let fill = fill.unwrap_or_default();
        let (shape, chunks) = grid;
        let document = match format {
            ZarrFormat::V3 => {
                let mut codecs = vec![json!({"name": kind.codec(), "configuration": {}})];
                codecs.extend(codec.v3_codecs(1));
                json!({
                    "zarr_format": 3,
                    "node_type": "array",
                    "shape": shape,
                    "data_type": kind.v3_name(),
                    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
                    "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                    "fill_value": fill,
                    "codecs": codecs,
                    "attributes": user,
                    "dimension_names": dims,
                })
            }
            // As zarr-python 3 writes it; 2.x reads it too.
            ZarrFormat::V2 => json!({
                "zarr_format": 2,
                "shape": shape,
                "chunks": chunks,
                "dtype": "|O",
                "fill_value": v2_fill,
                "order": "C",
                "filters": [{"id": kind.codec()}],
                "dimension_separator": ".",
                "compressor": codec.v2_compressor(),
            }),
        };
        let mut attributes = user.clone();
        if format == ZarrFormat::V2 {
            attributes.insert("_ARRAY_DIMENSIONS".to_string(), json!(dims));
        }
        let meta = match format {
            ZarrFormat::V3 => from_v3("new", &document)?,
            ZarrFormat::V2 => from_v2("new", &document, attributes)?,
        };
        meta.ok_or_else(|| Error::Unsupported {
            message: "a new variable-length array was not read back as one".into(),
        })
    }

    /// The key of the array's metadata document.
    pub fn key(&self) -> &'static str {
        match self.format {
            ZarrFormat::V3 => ZARR_JSON,
            ZarrFormat::V2 => ZARRAY,
        }
    }

    /// Writes the metadata documents: a v2 array's `.zattrs` first, so
    /// that the document that makes the array exist comes last.
    pub fn write(&self, store: &Store) -> Result<()> {
        if self.format == ZarrFormat::V2 {
            store.set(ZATTRS, pretty(&Value::Object(self.attributes.clone())))?;
        }
        store.set(self.key(), pretty(&self.document))
    }
}

/// The name of a v3 `data_type`: a string, or an object's `name`.
fn type_name(data_type: &Value) -> Option<&str> {
    data_type
        .as_str()
        .or_else(|| data_type.get("name").and_then(Value::as_str))
}

fn from_v3(store: &str, doc: &Value) -> Result<Option<VlenMeta>> {
    let key = ZARR_JSON;
    if doc.get("node_type").and_then(Value::as_str) != Some("array") {
        return Ok(None);
    }
    let Some(kind) = doc
        .get("data_type")
        .and_then(type_name)
        .and_then(VlenKind::of_v3)
    else {
        return Ok(None);
    };
    let engine: ArrayMetadataV3 = serde_json::from_value(doc.clone())
        .map_err(|e| bad(store, key, format!("not Zarr v3 array metadata: {e}")))?;
    let chunk_shape =
        regular_chunks(doc).ok_or_else(|| bad(store, key, "the chunk grid is not regular"))?;
    let codecs = doc
        .get("codecs")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let names: Vec<&str> = codecs.iter().filter_map(type_name).collect();
    let framed = matches!(names.first(), Some(&("vlen-utf8" | "vlen-bytes")));
    let dimension_names = engine.dimension_names.as_ref().map(|names| {
        names
            .iter()
            .map(|n| n.as_ref().map(ToString::to_string))
            .collect()
    });
    Ok(Some(VlenMeta {
        format: ZarrFormat::V3,
        kind,
        shape: engine.shape.clone(),
        chunk_shape,
        document: doc.clone(),
        attributes: engine.attributes.clone(),
        dimension_names,
        compressors: after_framing(&codecs),
        engine,
        framed,
        json2: false,
    }))
}

fn from_v2(store: &str, doc: &Value, attributes: Map<String, Value>) -> Result<Option<VlenMeta>> {
    let key = ZARRAY;
    let is_object = doc
        .get("dtype")
        .and_then(Value::as_str)
        .is_some_and(|d| matches!(d, "|O" | "O" | "<O" | ">O" | "=O"));
    if !is_object || doc.get("zarr_format").and_then(Value::as_u64) != Some(2) {
        return Ok(None);
    }
    let given = |name: &str| match doc.get(name) {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.clone()),
    };
    let filters: Option<Vec<MetadataV2>> = given("filters")
        .map(serde_json::from_value)
        .transpose()
        .map_err(|e| bad(store, key, format!("filters: {e}")))?;
    let compressor: Option<MetadataV2> = given("compressor")
        .map(serde_json::from_value)
        .transpose()
        .map_err(|e| bad(store, key, format!("compressor: {e}")))?;
    let ids: Vec<&str> = filters.iter().flatten().map(MetadataV2::id).collect();
    let kind = object_kind(store, &ids)?;
    let json2 = ids == ["json2"];
    let single = ids.len() == 1;
    let filters = if json2 {
        let vlen = serde_json::from_value(json!({"id": "vlen-utf8"}))
            .map_err(|e| bad(store, key, format!("filters: {e}")))?;
        Some(vec![vlen])
    } else {
        filters
    };
    let u64s = |name: &str| -> Result<Vec<u64>> {
        serde_json::from_value(doc.get(name).cloned().unwrap_or_default()).map_err(|_| {
            bad(
                store,
                key,
                format!("`{name}` is not a list of non-negative integers"),
            )
        })
    };
    let (shape, chunk_shape) = (u64s("shape")?, u64s("chunks")?);
    let order = match doc.get("order").and_then(Value::as_str) {
        Some("F") if shape.len() > 1 => ArrayMetadataV2Order::F,
        _ => ArrayMetadataV2Order::C,
    };
    let data_type = match kind {
        VlenKind::Text => "string",
        VlenKind::Bytes => "bytes",
    };
    let codecs = v2_codecs(
        store,
        (order, shape.len()),
        data_type,
        &filters,
        &compressor,
    )?;
    let separator = doc
        .get("dimension_separator")
        .and_then(Value::as_str)
        .unwrap_or(".");
    let engine_doc = json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": shape,
        "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk_shape}},
        "chunk_key_encoding": {"name": "v2", "configuration": {"separator": separator}},
        "fill_value": v2_fill_value(store, kind, doc.get("fill_value"))?,
        "codecs": codecs,
    });
    let engine: ArrayMetadataV3 = serde_json::from_value(engine_doc)
        .map_err(|e| bad(store, key, format!("not Zarr v2 array metadata: {e}")))?;
    let dimension_names = v2_dimension_names(&attributes);
    Ok(Some(VlenMeta {
        format: ZarrFormat::V2,
        kind,
        shape,
        chunk_shape,
        document: doc.clone(),
        attributes,
        dimension_names,
        compressors: after_framing(&codecs),
        engine,
        framed: !json2 && single && order == ArrayMetadataV2Order::C,
        json2,
    }))
}

/// The engine's (v3) fill value of a v2 object array, the value of an
/// element whose chunk is absent, as zarr-python 3.4 reads it: text is the
/// string given, or the number's decimal form (zarr-python 2 writes `0`,
/// which zarr-python 3 reads as "0"); bytes are given in base64. No fill
/// value, and bytes' `0` (which zarr-python 3.4 refuses), are empty.
fn v2_fill_value(store: &str, kind: VlenKind, fill: Option<&Value>) -> Result<Value> {
    use base64::Engine as _;
    Ok(match (kind, fill) {
        (VlenKind::Text, Some(Value::String(s))) => json!(s),
        (VlenKind::Text, Some(Value::Number(n))) => json!(n.to_string()),
        (VlenKind::Bytes, Some(Value::String(s))) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(s)
                .map_err(|e| {
                    bad(
                        store,
                        ZARRAY,
                        format!("fill_value {s:?} is not base64 bytes: {e}"),
                    )
                })?;
            json!(bytes)
        }
        (VlenKind::Text, _) => json!(""),
        (VlenKind::Bytes, _) => json!([]),
    })
}

/// The bytes-to-bytes codecs of a v3 codec list: those after the one
/// that frames the values.
fn after_framing(codecs: &[Value]) -> Vec<Value> {
    codecs
        .iter()
        .skip_while(|c| !matches!(type_name(c), Some("vlen-utf8" | "vlen-bytes")))
        .skip(1)
        .cloned()
        .collect()
}

/// The v3 codecs of a v2 object array: its filters (the vlen one an
/// array-to-bytes codec), then its compressor. zarrs 0.23's conversion
/// leaves the compressor out when a filter is array-to-bytes, so the two
/// are converted apart and the compressor's placeholder `bytes` dropped.
fn v2_codecs(
    store: &str,
    (order, rank): (ArrayMetadataV2Order, usize),
    data_type: &str,
    filters: &Option<Vec<MetadataV2>>,
    compressor: &Option<MetadataV2>,
) -> Result<Vec<Value>> {
    let data_type = MetadataV3::new(data_type);
    let convert = |order, filters: &Option<Vec<MetadataV2>>, compressor: &Option<MetadataV2>| {
        zarrs::convert::codec_metadata_v2_to_v3(order, rank, &data_type, None, filters, compressor)
            .map_err(|e| bad(store, ZARRAY, format!("codecs: {e}")))
    };
    let framing = convert(order, filters, &None)?;
    let compression = convert(ArrayMetadataV2Order::C, &None, compressor)?;
    Ok(framing
        .iter()
        .chain(compression.iter().skip(1))
        .map(|c| serde_json::to_value(c).unwrap_or_default())
        .collect())
}

/// The kind of a v2 object array, by the object codec among its filters.
fn object_kind(store: &str, filters: &[&str]) -> Result<VlenKind> {
    let refuse = |message: String| Error::DataType {
        store: store.to_string(),
        key: ZARRAY.to_string(),
        field: String::new(),
        message,
    };
    for id in filters {
        match *id {
            "vlen-utf8" => return Ok(VlenKind::Text),
            "vlen-bytes" => return Ok(VlenKind::Bytes),
            "json2" if filters.len() == 1 => return Ok(VlenKind::Text),
            "vlen-array" => {
                return Err(refuse(
                    "`|O` with the `vlen-array` filter (ragged arrays of numbers) is not read: \
                     neither .npy nor the other formats here hold ragged arrays"
                        .into(),
                ));
            }
            _ => {}
        }
    }
    Err(refuse(format!(
        "`|O` (Python objects) is read with a `vlen-utf8` or `vlen-bytes` filter, or \
         `json2` alone (strings); \
         this array's filters are [{}]",
        filters.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_arrays_are_read_back_as_written_in_both_formats() {
        for format in [ZarrFormat::V2, ZarrFormat::V3] {
            for kind in [VlenKind::Text, VlenKind::Bytes] {
                let grid = (vec![5, 3], vec![2, 3]);
                let meta = VlenMeta::new(
                    format,
                    kind,
                    grid,
                    Codec::Zstd(3),
                    (vec!["a".into(), "b".into()], &Map::new()),
                    None,
                )
                .unwrap();
                let store = Store::memory("m");
                meta.write(&store).unwrap();
                let back = VlenMeta::probe(&store).unwrap().unwrap();
                let what = format!("{format:?} {kind:?}");
                assert_eq!((back.format, back.kind), (format, kind), "{what}");
                assert_eq!((back.shape, back.chunk_shape), (vec![5, 3], vec![2, 3]));
                assert!(back.framed, "{what}");
                assert_eq!(
                    back.dimension_names,
                    Some(vec![Some("a".into()), Some("b".into())])
                );
                assert_eq!(
                    Codec::from_v3_codecs(&back.compressors),
                    Some(Codec::Zstd(3))
                );
            }
        }
    }

    #[test]
    fn object_arrays_of_other_codecs_are_refused_by_name() {
        for (filters, says) in [
            (json!([{"id": "vlen-array"}]), "`vlen-array`"),
            (
                json!([{"id": "json2"}, {"id": "pickle"}]),
                "[json2, pickle]",
            ),
            (json!([{"id": "pickle"}]), "[pickle]"),
        ] {
            let store = Store::memory("m");
            let doc = json!({"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "|O",
                "fill_value": 0, "order": "C", "compressor": null, "filters": filters});
            store.set(ZARRAY, pretty(&doc)).unwrap();
            let e = VlenMeta::probe(&store).unwrap_err();
            assert!(matches!(e, Error::DataType { .. }), "{e}");
            assert!(e.to_string().contains(says), "{e}");
        }
    }

    #[test]
    fn fixed_size_arrays_are_not_variable_length() {
        let store = Store::memory("m");
        let doc = json!({"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "<U3",
            "fill_value": "", "order": "C", "compressor": null, "filters": null});
        store.set(ZARRAY, pretty(&doc)).unwrap();
        assert!(VlenMeta::probe(&store).unwrap().is_none());
        assert!(VlenMeta::probe(&Store::memory("empty")).unwrap().is_none());
    }
}

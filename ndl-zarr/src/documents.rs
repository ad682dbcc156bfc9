//! Metadata documents in a store: an array's or a group's, read from and
//! written to the node a [`Store`] points at.

use ndl_runtime::lang::zarr::{v2_group, v3_group, ZarrFormat, ZARRAY, ZARR_JSON, ZATTRS, ZGROUP};
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::metadata::{bad, ArrayMeta};
use crate::store::Store;

/// The JSON document at `key`, `None` when there is none.
fn json_at(store: &Store, key: &str) -> Result<Option<Value>> {
    let Some(bytes) = store.get(key)? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| bad(&store.name, key, format!("not JSON: {e}")))
}

/// The attributes document of a v2 node, empty when there is none.
fn v2_attributes(store: &Store) -> Result<Map<String, Value>> {
    match json_at(store, ZATTRS)? {
        None => Ok(Map::new()),
        Some(Value::Object(a)) => Ok(a),
        Some(_) => Err(bad(&store.name, ZATTRS, "not a JSON object")),
    }
}

/// Bytes of a document as written: pretty, with a final newline.
fn pretty(doc: &Value) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(doc).unwrap_or_default();
    out.push(b'\n');
    out
}

impl ArrayMeta {
    /// Reads the array at the store's node: `zarr.json`, else `.zarray`.
    pub fn read(store: &Store) -> Result<ArrayMeta> {
        if let Some(doc) = json_at(store, ZARR_JSON)? {
            return ArrayMeta::from_v3(&store.name, &doc);
        }
        if let Some(doc) = json_at(store, ZARRAY)? {
            return ArrayMeta::from_v2(&store.name, &doc, v2_attributes(store)?);
        }
        Err(Error::NotAnArray {
            store: store.name.clone(),
        })
    }

    /// Writes the metadata document. For a new v2 array, `.zattrs` first,
    /// so that the document that makes the array exist comes last.
    pub fn write(&self, store: &Store, new: bool) -> Result<()> {
        if let (true, Some(attributes)) = (new, &self.v2_attributes) {
            store.set(ZATTRS, pretty(attributes))?;
        }
        store.set(self.key(), pretty(&self.document))
    }
}

/// A group's format and attributes, if the store's node is a group.
pub(crate) fn read_group(store: &Store) -> Result<Option<(ZarrFormat, Map<String, Value>)>> {
    if let Some(doc) = json_at(store, ZARR_JSON)? {
        if doc.get("node_type").and_then(Value::as_str) != Some("group") {
            return Ok(None);
        }
        let attributes = match doc.get("attributes") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(a)) => a.clone(),
            Some(_) => {
                return Err(bad(
                    &store.name,
                    ZARR_JSON,
                    "attributes is not a JSON object",
                ))
            }
        };
        return Ok(Some((ZarrFormat::V3, attributes)));
    }
    let Some(doc) = json_at(store, ZGROUP)? else {
        return Ok(None);
    };
    if doc.get("zarr_format").and_then(Value::as_u64) != Some(2) {
        return Err(bad(&store.name, ZGROUP, "zarr_format is not 2"));
    }
    Ok(Some((ZarrFormat::V2, v2_attributes(store)?)))
}

/// Writes the metadata of a group with `attributes` at the store's node.
pub(crate) fn write_group(
    store: &Store,
    format: ZarrFormat,
    attributes: Map<String, Value>,
) -> Result<()> {
    match format {
        ZarrFormat::V3 => store.set(ZARR_JSON, pretty(&v3_group(&attributes))),
        ZarrFormat::V2 => {
            store.set(ZATTRS, pretty(&Value::Object(attributes)))?;
            store.set(ZGROUP, pretty(&v2_group()))
        }
    }
}

/// Whether the store's node holds metadata of an array or a group.
pub(crate) fn has_node(store: &Store) -> Result<bool> {
    for key in [ZARR_JSON, ZARRAY, ZGROUP] {
        if store.get(key)?.is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

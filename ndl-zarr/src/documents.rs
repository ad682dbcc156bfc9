//! Metadata documents in a store: an array's or a group's, read from and
//! written to the node a [`Store`] points at.

use ndl_runtime::lang::zarr::{ZARR_JSON, ZARRAY, ZATTRS, ZGROUP, ZarrFormat, v2_group, v3_group};
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::metadata::{ArrayMeta, bad};
use crate::store::Store;

/// The v2 consolidated metadata document of a group.
pub(crate) const ZMETADATA: &str = ".zmetadata";

/// The JSON document at `key`, `None` when there is none; Python's bare
/// `NaN` and infinities are read as strings.
pub(crate) fn json_at(store: &Store, key: &str) -> Result<Option<Value>> {
    let Some(bytes) = store.get(key)? else {
        return Ok(None);
    };
    let mut doc = crate::python_json::parse(&bytes)
        .map_err(|e| bad(&store.name, key, format!("not JSON: {e}")))?;
    // A fill value of NaN is the text `"NaN"` in Zarr's spelling, however
    // it was written.
    if let Some(fill) = doc.get_mut("fill_value") {
        *fill = crate::python_json::unmarked(fill).0;
    }
    Ok(Some(doc))
}

/// The attributes document of a v2 node, empty when there is none.
pub(crate) fn v2_attributes(store: &Store) -> Result<Map<String, Value>> {
    match json_at(store, ZATTRS)? {
        None => Ok(Map::new()),
        Some(Value::Object(a)) => Ok(a),
        Some(_) => Err(bad(&store.name, ZATTRS, "not a JSON object")),
    }
}

/// Bytes of a metadata document as written: pretty, with a final
/// newline, floats JSON has no number for as Python's `json` writes them
/// (see [`attribute_float`](crate::attribute_float)).
pub fn pretty(doc: &Value) -> Vec<u8> {
    let json = serde_json::to_string_pretty(doc).unwrap_or_default();
    let mut out = crate::python_json::bare_words(json).into_bytes();
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
                ));
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

/// Rewrites the consolidated metadata of the group at the store's node from
/// the documents of its arrays `children`, as zarr-python's
/// `consolidate_metadata` lays it out (v2 `.zmetadata`; v3 inline in the
/// group's `zarr.json`): xarray opens a group without it only after a
/// warning, and with it in one read. Called once the arrays' documents are
/// final, so the copy holds their lengths.
pub(crate) fn consolidate<'a>(
    store: &Store,
    format: ZarrFormat,
    children: impl IntoIterator<Item = &'a str>,
) -> Result<()> {
    match format {
        ZarrFormat::V3 => consolidate_v3(store, children),
        ZarrFormat::V2 => consolidate_v2(store, children),
    }
}

fn consolidate_v3<'a>(store: &Store, children: impl IntoIterator<Item = &'a str>) -> Result<()> {
    let Some(Value::Object(mut group)) = json_at(store, ZARR_JSON)? else {
        return Err(bad(
            &store.name,
            ZARR_JSON,
            "the group's document is missing",
        ));
    };
    let mut metadata = Map::new();
    for name in children {
        let child = store.child(name);
        let doc = json_at(&child, ZARR_JSON)?
            .ok_or_else(|| bad(&child.name, ZARR_JSON, "the node's document is missing"))?;
        metadata.insert(name.to_string(), doc);
    }
    group.insert(
        "consolidated_metadata".into(),
        serde_json::json!({"kind": "inline", "must_understand": false, "metadata": metadata}),
    );
    store.set(ZARR_JSON, pretty(&Value::Object(group)))
}

fn consolidate_v2<'a>(store: &Store, children: impl IntoIterator<Item = &'a str>) -> Result<()> {
    let mut metadata = Map::new();
    let mut copy = |node: &Store, prefix: &str, key: &str| -> Result<()> {
        if let Some(doc) = json_at(node, key)? {
            metadata.insert(format!("{prefix}{key}"), doc);
        }
        Ok(())
    };
    copy(store, "", ZGROUP)?;
    copy(store, "", ZATTRS)?;
    for name in children {
        let child = store.child(name);
        // A child is an array, or a group between the group and one.
        copy(&child, &format!("{name}/"), ZARRAY)?;
        copy(&child, &format!("{name}/"), ZGROUP)?;
        copy(&child, &format!("{name}/"), ZATTRS)?;
    }
    let doc = serde_json::json!({"metadata": metadata, "zarr_consolidated_format": 1});
    store.set(ZMETADATA, pretty(&doc))
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

#[cfg(test)]
mod tests {
    use ndl_runtime::Datatype;
    use serde_json::json;

    use super::*;
    use crate::options::WriteOptions;

    #[test]
    fn groups_are_written_and_read_back_in_both_formats() {
        for format in [ZarrFormat::V2, ZarrFormat::V3] {
            let store = Store::memory("m");
            assert_eq!(read_group(&store).unwrap(), None);
            assert!(!has_node(&store).unwrap());
            let attributes: Map<String, Value> =
                [("title".to_string(), json!("t"))].into_iter().collect();
            write_group(&store, format, attributes.clone()).unwrap();
            assert_eq!(read_group(&store).unwrap(), Some((format, attributes)));
            assert!(has_node(&store).unwrap());
        }
    }

    #[test]
    fn a_new_v2_array_writes_its_attributes_and_reads_back() {
        let options = WriteOptions::new().zarr_format(ZarrFormat::V2);
        let meta = ArrayMeta::new(
            &options,
            &Datatype::Int8,
            vec![3],
            2,
            Map::new(),
            vec!["d".into()],
        )
        .unwrap();
        let store = Store::memory("m");
        meta.write(&store, true).unwrap();
        let zattrs: Value = serde_json::from_slice(&store.get(ZATTRS).unwrap().unwrap()).unwrap();
        assert_eq!(zattrs, json!({"_ARRAY_DIMENSIONS": ["d"]}));
        let text = store.get(ZARRAY).unwrap().unwrap();
        assert!(text.ends_with(b"}\n"), "pretty, with a final newline");
        let back = ArrayMeta::read(&store).unwrap();
        assert_eq!(back.dimension_names, Some(vec![Some("d".into())]));
        // An array is not a group.
        assert_eq!(read_group(&store).unwrap(), None);
    }

    #[test]
    fn missing_or_broken_documents_say_so() {
        let store = Store::memory("m");
        assert!(matches!(
            ArrayMeta::read(&store),
            Err(Error::NotAnArray { .. })
        ));
        store.set(ZARR_JSON, b"{".to_vec()).unwrap();
        let e = ArrayMeta::read(&store).unwrap_err();
        assert!(e.to_string().contains("zarr.json: not JSON"), "{e}");
        let v2 = Store::memory("m");
        v2.set(ZGROUP, b"{\"zarr_format\": 2}".to_vec()).unwrap();
        v2.set(ZATTRS, b"[]".to_vec()).unwrap();
        let e = read_group(&v2).unwrap_err();
        assert!(e.to_string().contains(".zattrs: not a JSON object"), "{e}");
    }
}

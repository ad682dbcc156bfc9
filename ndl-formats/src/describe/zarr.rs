//! Zarr metadata: a store's own documents, else the `.zarray` a store
//! holding the array would have.

use std::path::Path;

use ndl_runtime::lang::zarr;
use ndl_runtime::records::PackedLayout;
use serde_json::Value;

use crate::contents::{Arrangement, Contents, Entry};
use crate::error::{Error, Result};
use ndl_runtime::Order;

/// The metadata of a single array; for several, one JSON object of them
/// keyed by array name.
pub(super) fn metadata(path: &Path, contents: &Contents) -> Result<String> {
    let value = match (contents.arrangement, contents.entries.as_slice()) {
        (Arrangement::One, [e]) => one(path, e)?,
        (_, entries) => {
            let mut map = serde_json::Map::new();
            for e in entries {
                map.insert(e.label(), one(path, e)?);
            }
            Value::Object(map)
        }
    };
    let mut text = serde_json::to_string_pretty(&value).expect("JSON values serialise");
    text.push('\n');
    Ok(text)
}

fn one(path: &Path, e: &Entry) -> Result<Value> {
    if let Some(native) = &e.native_metadata {
        return Ok(native.clone());
    }
    // Zarr stores records packed: padding never reaches a store.
    let packed = PackedLayout::new(&e.spec.datatype).map_err(|source| Error::Pack {
        path: path.to_path_buf(),
        source,
    })?;
    let mut meta =
        zarr::v2_array_metadata(packed.datatype(), e.spec.byte_order, &e.spec.shape, None)
            .map_err(super::in_entry(path, e))?;
    if e.spec.order == Order::Fortran {
        meta["order"] = "F".into();
    }
    Ok(meta)
}

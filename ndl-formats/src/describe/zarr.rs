//! Zarr metadata: a store's own documents, else the `.zarray` a store
//! holding the array would have.

use std::path::Path;

use ndl_runtime::Datatype;
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
    // As zarr-python writes it: a float JSON has no number for as the
    // bare word.
    Ok(String::from_utf8_lossy(&ndl_zarr::document_bytes(&value)).into_owned())
}

/// Why Zarr cannot hold the array `e`, where it cannot: references, and
/// variable-length values other than strings and sequences of numbers
/// (v2's `vlen-utf8` and `vlen-array`), such as a record's members (the
/// struct extension forbids them).
pub(super) fn cannot_say(e: &Entry) -> Option<String> {
    if e.native_metadata.is_some() {
        return None;
    }
    let parts = super::object_parts(&e.spec.datatype);
    match (&e.spec.datatype, parts.as_slice()) {
        (_, []) | (Datatype::String, _) => None,
        (Datatype::Vlen(base), _) if is_vlen_array_base(base) => None,
        (dt, _) if super::is_object(dt) => Some(format!("no Zarr data type holds {}", parts[0].1)),
        _ => Some(format!(
            "a Zarr record (struct) cannot hold variable-length or reference members ({}): \
             the struct extension forbids them",
            super::listed_parts(&parts)
        )),
    }
}

fn one(path: &Path, e: &Entry) -> Result<Value> {
    if let Some(native) = &e.native_metadata {
        return Ok(native.clone());
    }
    if let Some(meta) = objects(path, e)? {
        return Ok(meta);
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

/// Whether numcodecs' `vlen-array` holds sequences of `base`: numbers.
fn is_vlen_array_base(base: &Datatype) -> bool {
    base.size().is_some()
        && !matches!(
            base,
            Datatype::Compound(_)
                | Datatype::Array(_)
                | Datatype::Opaque(_)
                | Datatype::FixedString(_)
                | Datatype::Time(_)
        )
}

/// The v2 metadata zarr-python writes for an array of variable-length
/// strings (`|O` with `vlen-utf8`) or sequences of numbers (`|O` with
/// `vlen-array` of their dtype), where `e` is one.
fn objects(path: &Path, e: &Entry) -> Result<Option<Value>> {
    let filter = match &e.spec.datatype {
        Datatype::String => serde_json::json!({"id": "vlen-utf8"}),
        Datatype::Vlen(base) if is_vlen_array_base(base) => {
            let descr = base.numpy_descr_with_order(e.spec.byte_order);
            let Ok(descr) = descr else { return Ok(None) };
            serde_json::json!({"id": "vlen-array", "dtype": descr.trim_matches('\'')})
        }
        _ => return Ok(None),
    };
    let mut meta =
        zarr::v2_array_metadata(&Datatype::UInt8, e.spec.byte_order, &e.spec.shape, None)
            .map_err(super::in_entry(path, e))?;
    meta["dtype"] = "|O".into();
    meta["fill_value"] = Value::Null;
    meta["filters"] = Value::Array(vec![filter]);
    Ok(Some(meta))
}

//! The attributes of one array that a conversion carries to its
//! destination (`units`, `long_name`, CF's others): not the file's
//! bookkeeping, nor what the destination stores its own way or a reading
//! used up.

use std::collections::BTreeMap;

use ndl_runtime::Datatype;
use ndl_runtime::ndl::NameMap;
use serde_json::{Map, Value};

use crate::attribute_json::{attribute, is_hdf5_bookkeeping, is_zarr_bookkeeping};
use crate::source::Source;

/// `source` with the attributes of `attributes` (their elements of
/// `types`, where the format keeps them) that a destination takes, save
/// those named in `used`.
pub(crate) fn with_attributes(
    source: Box<dyn Source>,
    attributes: &Map<String, Value>,
    types: &BTreeMap<String, Datatype>,
    used: &[&str],
) -> Box<dyn Source> {
    let element = source.spec().datatype.clone();
    let scale = attributes.get("CLASS").and_then(Value::as_str) == Some("DIMENSION_SCALE");
    let mut carried = NameMap::new();
    for (name, value) in attributes {
        let left =
            is_bookkeeping(name, value, scale) || is_left_behind(name) || used.contains(&&**name);
        if let Some(a) = attribute(value, &element, types.get(name)).filter(|_| !left) {
            carried.insert(name.clone(), a);
        }
    }
    if carried.is_empty() {
        return source;
    }
    let notes = source.notes().to_vec();
    crate::described::described(source, None, Some(carried), notes)
}

/// The attributes of a group (a file's root) that its copy takes, as
/// JSON: not the file's bookkeeping (netCDF's `_NCProperties`, HDF5's
/// dimension lists, a Zarr store's own).
pub(crate) fn group_attributes(attributes: &Map<String, Value>) -> Map<String, Value> {
    attributes
        .iter()
        .filter(|(name, value)| !is_bookkeeping(name, value, false))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

/// Whether the attribute `name` (of `value`, on a dimension scale where
/// `on_scale`) keeps a format's books, PyTables' `CLASS` included: no
/// destination takes it.
fn is_bookkeeping(name: &str, value: &Value, on_scale: bool) -> bool {
    is_hdf5_bookkeeping(name, value, on_scale) || is_zarr_bookkeeping(name) || name == "CLASS"
}

/// What no destination of one array takes beside the formats'
/// bookkeeping: our `ndl_fills`, a fill (each destination stores one its
/// own way, in the array's type), and `coordinates` (it names variables
/// that do not come along).
fn is_left_behind(name: &str) -> bool {
    matches!(name, "ndl_fills" | "_FillValue" | "coordinates")
}

//! The NDL document of a file: one ndarray per array, in groups for
//! archive member names with `/`, and a dimcoord per named dimension.

use std::path::Path;

use ndl_runtime::ndl::{self, Attribute, DimCoord, Extent, Ndarray, Shape};
use ndl_runtime::Datatype;
use serde_json::Value as J;

use crate::contents::{Arrangement, Contents, Entry};
use crate::error::{Error, Result};

/// Attributes that keep a store's bookkeeping, not the data's meaning.
pub(super) fn is_bookkeeping(name: &str) -> bool {
    matches!(
        name,
        "_ARRAY_DIMENSIONS" | "_NCZARR_ATTR" | "_nczarr_attr" | "ndl_datatype"
    )
}

/// The document of `contents`.
pub(super) fn document(path: &Path, contents: &Contents) -> Result<ndl::File> {
    if let (Arrangement::One, [e]) = (contents.arrangement, contents.entries.as_slice()) {
        return Ok(ndl::File::single_ndarray(e.name.clone(), ndarray(e, None)));
    }
    let mut doc = ndl::File::new();
    let root = doc
        .groups
        .get_mut("/")
        .expect("a new document has its root group");
    for (name, value) in contents
        .attributes
        .iter()
        .filter(|(n, _)| !is_bookkeeping(n))
    {
        if let Some(attr) = attribute(value, &Datatype::String) {
            root.attributes.insert(name, attr);
        }
    }
    let coordinates = if contents.arrangement == Arrangement::Group {
        dimcoords(path, contents, root)?
    } else {
        Vec::new()
    };
    for e in contents
        .entries
        .iter()
        .filter(|e| !coordinates.contains(&e.name))
    {
        let names = dimension_names(e);
        doc.insert_ndarray(&e.group, e.name.clone(), ndarray(e, names.as_deref()))
            .map_err(|source| Error::Description {
                path: path.to_path_buf(),
                message: format!("array `{}`: {source}", e.label()),
            })?;
    }
    Ok(doc)
}

/// Adds a dimcoord for every dimension the group's arrays name: the array
/// of the same name where there is one (a CF coordinate variable), else
/// the dimension's indices, as `uint64`. Returns the names of the arrays
/// that became dimcoords.
fn dimcoords(path: &Path, contents: &Contents, root: &mut ndl::Group) -> Result<Vec<String>> {
    let mut coordinates = Vec::new();
    for e in &contents.entries {
        let Some(names) = dimension_names(e) else {
            continue;
        };
        for (name, &size) in names.iter().zip(&e.spec.shape) {
            if let Some(existing) = root.dimcoords.get(name) {
                if existing.size != nonzero(size) {
                    return Err(Error::Description {
                        path: path.to_path_buf(),
                        message: format!(
                            "`{}`: dimension `{name}` is {size} long here and {} elsewhere",
                            e.name,
                            existing.size.unwrap_or(0)
                        ),
                    });
                }
                continue;
            }
            let coordinate = contents
                .entries
                .iter()
                .find(|c| c.name == *name && c.spec.shape.len() == 1);
            let dimcoord = match coordinate {
                Some(c) => {
                    let mut d = DimCoord::new(nonzero(size), c.spec.datatype.clone())
                        .with_storage(c.storage.clone());
                    for (k, v) in c.attributes.iter().filter(|(n, _)| !is_bookkeeping(n)) {
                        if let Some(attr) = attribute(v, &c.spec.datatype) {
                            d.attributes.insert(k, attr);
                        }
                    }
                    d
                }
                None => DimCoord::new(nonzero(size), Datatype::UInt64),
            };
            root.dimcoords.insert(name.clone(), dimcoord);
            coordinates.extend(coordinate.map(|c| c.name.clone()));
        }
    }
    Ok(coordinates)
}

/// NDL sizes are positive: an empty dimension is an unlimited one holding
/// nothing yet.
fn nonzero(size: u64) -> Option<usize> {
    (size > 0).then_some(size as usize)
}

/// The names of every dimension of `e`, when the format names them all.
fn dimension_names(e: &Entry) -> Option<Vec<String>> {
    e.dimension_names.as_ref()?.iter().cloned().collect()
}

/// The ndarray of `e`; its shape names `dims` where given.
fn ndarray(e: &Entry, dims: Option<&[String]>) -> Ndarray {
    let shape = match dims {
        Some(names) => Shape(names.iter().map(|n| Extent::Dim(n.clone())).collect()),
        None => Shape::from(e.spec.shape.iter().map(|&d| d as usize).collect::<Vec<_>>()),
    };
    let mut nd = Ndarray::new(shape, e.spec.datatype.clone()).with_storage(e.storage.clone());
    for (name, value) in e.attributes.iter().filter(|(n, _)| !is_bookkeeping(n)) {
        if let Some(attr) = attribute(value, &e.spec.datatype) {
            nd.attributes.insert(name, attr);
        }
    }
    nd
}

/// An NDL attribute for a format's attribute: text, a number, or a list of
/// numbers of `element`'s type (the CF flags of a column).
fn attribute(value: &J, element: &Datatype) -> Option<Attribute> {
    match value {
        J::String(s) => Some(Attribute::from(s.as_str())),
        J::Array(items) if element.as_int().is_some() && items.iter().all(J::is_number) => {
            let values: Vec<serde_yaml::Value> = items
                .iter()
                .filter_map(|v| serde_yaml::to_value(v).ok())
                .collect();
            Some(Attribute::long([values.len()], element.clone(), values))
        }
        other => Attribute::new(serde_yaml::to_value(other).ok()?).ok(),
    }
}

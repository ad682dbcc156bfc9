//! The NDL document of a file: one ndarray per array, in groups for
//! archive member names with `/`, and a dimcoord per named dimension.

use std::path::Path;

use ndl_runtime::Datatype;
use ndl_runtime::ndl::{self, DimCoord, Extent, Ndarray, Shape};

use crate::attribute_json::{attribute, is_zarr_bookkeeping};
use crate::contents::{Arrangement, Contents, Entry, ancestors_and_self};
use crate::error::{Error, Result};

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
        .filter(|(n, _)| !is_zarr_bookkeeping(n))
    {
        if let Some(attr) = attribute(
            name,
            value,
            &Datatype::String,
            contents.attribute_types.get(name.as_str()),
        ) {
            root.attributes.insert(name, attr);
        }
    }
    add_groups(contents, &mut doc);
    let coordinates = if contents.arrangement == Arrangement::Group {
        dimcoords(path, contents, &mut doc)?
    } else {
        Vec::new()
    };
    for e in contents
        .entries
        .iter()
        .filter(|e| !coordinates.contains(&e.path()))
    {
        let names = dimension_names(e);
        doc.insert_ndarray(&e.group, e.name.clone(), ndarray(e, names))
            .map_err(|source| Error::Description {
                path: path.to_path_buf(),
                message: format!("array `{}`: {source}", e.label()),
            })?;
    }
    Ok(doc)
}

/// Adds every group the format has of its own, with its attributes,
/// whether or not it holds an array.
fn add_groups(contents: &Contents, doc: &mut ndl::File) {
    for g in &contents.groups {
        doc.form = ndl::FileForm::Grouped;
        let group = doc.groups.get_or_insert_with(&g.path, ndl::Group::default);
        for (name, value) in g.attributes.iter().filter(|(n, _)| !is_zarr_bookkeeping(n)) {
            let element = &Datatype::String;
            if let Some(attr) =
                attribute(name, value, element, g.attribute_types.get(name.as_str()))
            {
                group.attributes.insert(name, attr);
            }
        }
    }
}

/// Adds a dimcoord for every dimension the arrays name, in the group that
/// declares it where the format declares dimensions (netCDF-4), else in
/// the group of the first array that names it unless an ancestor group
/// has it (netCDF's scoping): the array of the same name there where
/// there is one (a CF coordinate variable), else the dimension's indices,
/// as `uint64`. An
/// unlimited dimension has size null. Returns the paths
/// of the arrays that became dimcoords.
fn dimcoords(path: &Path, contents: &Contents, doc: &mut ndl::File) -> Result<Vec<String>> {
    // (group, name, size, unlimited, coordinate), in the order met.
    let mut found: Vec<(String, String, u64, bool, Option<&Entry>)> = Vec::new();
    for e in &contents.entries {
        let Some(names) = dimension_names(e) else {
            continue;
        };
        let visible = ancestors_and_self(&e.group);
        for (k, (name, &size)) in names.iter().zip(&e.spec.shape).enumerate() {
            let Some(name) = name else { continue };
            let unlimited = e.unlimited.get(k).copied().unwrap_or(false);
            // Where the format declares it (netCDF-4's groups: the nearest
            // declaration the array sees), else the array's group.
            let declared = contents
                .declared
                .dimensions
                .iter()
                .filter(|d| d.name == *name && visible.contains(&d.group))
                .max_by_key(|d| d.group.len())
                .map(|d| d.group.clone());
            let is_it = |g: &String| match &declared {
                Some(declared) => g == declared,
                None => visible.contains(g),
            };
            match found.iter_mut().find(|(g, n, ..)| n == name && is_it(g)) {
                Some((_, _, len, grows, _)) if *grows || unlimited => {
                    *grows = true;
                    *len = (*len).max(size);
                }
                Some((_, _, len, ..)) if *len != size => {
                    return Err(Error::Description {
                        path: path.to_path_buf(),
                        message: format!(
                            "`{}`: dimension `{name}` is {size} long here and {len} elsewhere",
                            e.name
                        ),
                    });
                }
                Some(_) => {}
                None => {
                    let group = declared.unwrap_or_else(|| e.group.clone());
                    let coordinate = contents
                        .entries
                        .iter()
                        .find(|c| c.name == *name && c.group == group && c.spec.shape.len() == 1);
                    found.push((group, name.clone(), size, unlimited, coordinate));
                }
            }
        }
    }
    let mut coordinates = Vec::new();
    for (group, name, size, unlimited, coordinate) in found {
        // NDL's size of an unlimited dimension is null, whatever it holds.
        let size = if unlimited { None } else { nonzero(size) };
        let dimcoord = match coordinate {
            Some(c) => {
                let mut d =
                    DimCoord::new(size, c.spec.datatype.clone()).with_storage(c.storage.clone());
                for (k, v) in c.attributes.iter().filter(|(n, _)| !is_zarr_bookkeeping(n)) {
                    if let Some(attr) =
                        attribute(k, v, &c.spec.datatype, c.attribute_types.get(k.as_str()))
                    {
                        d.attributes.insert(k, attr);
                    }
                }
                coordinates.push(c.path());
                d
            }
            None => DimCoord::new(size, Datatype::UInt64),
        };
        doc.insert_dimcoord(&group, name.clone(), dimcoord)
            .map_err(|source| Error::Description {
                path: path.to_path_buf(),
                message: format!("dimension `{name}`: {source}"),
            })?;
    }
    Ok(coordinates)
}

/// NDL sizes are positive: an empty dimension is an unlimited one holding
/// nothing yet.
fn nonzero(size: u64) -> Option<usize> {
    (size > 0).then_some(size as usize)
}

/// The names of the dimensions of `e`, where the format names one (an
/// HDF5 dataset may have a dimension scale on some dimensions only).
fn dimension_names(e: &Entry) -> Option<&[Option<String>]> {
    let names = e.dimension_names.as_deref()?;
    names.iter().any(Option::is_some).then_some(names)
}

/// The ndarray of `e`; its shape names `dims` where given, and gives the
/// size of the others, null where unlimited (an HDF5 dataset's that grows
/// without a dimension scale), its current extents then `storage.shape`.
fn ndarray(e: &Entry, dims: Option<&[Option<String>]>) -> Ndarray {
    let unlimited = |k: usize| e.unlimited.get(k).copied().unwrap_or(false);
    let extent = |k: usize, size: u64| match dims.and_then(|d| d.get(k)?.clone()) {
        Some(name) => Extent::Dim(name),
        None if unlimited(k) => Extent::Unlimited,
        None => Extent::Size(size as usize),
    };
    let shape = Shape(
        e.spec
            .shape
            .iter()
            .enumerate()
            .map(|(k, &d)| extent(k, d))
            .collect(),
    );
    let mut storage = e.storage.clone();
    if shape.0.contains(&Extent::Unlimited) && storage.shape.is_none() {
        storage.shape = Some(e.spec.shape.iter().map(|&d| d as usize).collect());
    }
    let mut nd = Ndarray::new(shape, e.spec.datatype.clone()).with_storage(storage);
    for (name, value) in e.attributes.iter().filter(|(n, _)| !is_zarr_bookkeeping(n)) {
        if let Some(attr) = attribute(
            name,
            value,
            &e.spec.datatype,
            e.attribute_types.get(name.as_str()),
        ) {
            nd.attributes.insert(name, attr);
        }
    }
    nd
}

//! netCDF-4 CDL: a variable per array; an archive's groups as netCDF-4
//! groups, a Zarr group's named dimensions shared as netCDF-C reads them.

use std::path::Path;

use ndl_runtime::lang::cdl;
use ndl_runtime::Datatype;

use super::in_entry;
use crate::contents::{stem, Arrangement, Contents};
use crate::error::{Error, Result};

/// The CDL document of `contents`.
pub(super) fn document(path: &Path, contents: &Contents) -> Result<String> {
    match contents.arrangement {
        Arrangement::Group => group(path, contents),
        Arrangement::One | Arrangement::Archive => archive(path, contents),
    }
}

/// A CDL document with a dimension per axis and a variable per array; an
/// archive's groups become netCDF-4 groups (`group: name { ... }`).
fn archive(path: &Path, contents: &Contents) -> Result<String> {
    let cdl_err = |source| Error::Language {
        path: path.to_path_buf(),
        array: String::new(),
        source: Box::new(source),
    };
    // Group paths in first-seen order, each after its parent.
    let mut groups: Vec<(String, cdl::Document)> = vec![(
        "/".into(),
        cdl::Document::new(&stem(path)).map_err(cdl_err)?,
    )];
    for a in &contents.entries {
        for g in ancestors_and_self(&a.group) {
            if !groups.iter().any(|(p, _)| *p == g) {
                let name = g.rsplit('/').next().unwrap_or_default();
                let doc = cdl::Document::new(name).map_err(|source| Error::Language {
                    path: path.to_path_buf(),
                    array: g.clone(),
                    source: Box::new(source),
                })?;
                groups.push((g, doc));
            }
        }
        let doc = &mut groups
            .iter_mut()
            .find(|(p, _)| *p == a.group)
            .expect("the group was just added")
            .1;
        let at = in_entry(path, a);
        let dims: Vec<String> = (0..a.spec.shape.len())
            .map(|i| format!("{}_dim{i}", a.name))
            .collect();
        for (dim, &size) in dims.iter().zip(&a.spec.shape) {
            // netCDF has no fixed dimension of length 0; an unlimited one
            // holding 0 records says the same.
            let size = (size > 0).then_some(size as usize);
            doc.add_dimension(dim, size).map_err(&at)?;
        }
        let dim_refs: Vec<&str> = dims.iter().map(String::as_str).collect();
        doc.add_variable(
            &a.name,
            &a.spec.datatype,
            &format!("{}_t", a.name),
            &dim_refs,
        )
        .map_err(&at)?;
    }
    Ok(nest(groups).to_string())
}

/// The CDL of a group of arrays as netCDF-C reads a Zarr group: a
/// dimension per dimension name, a variable per array, the attributes as
/// `ncdump -h` shows them (bookkeeping ones too, as text).
fn group(path: &Path, contents: &Contents) -> Result<String> {
    let err = |source| Error::Language {
        path: path.to_path_buf(),
        array: String::new(),
        source: Box::new(source),
    };
    let mut doc = cdl::Document::new(&stem(path)).map_err(err)?;
    let mut dims: Vec<(String, u64)> = Vec::new();
    let mut var_dims = Vec::new();
    for a in &contents.entries {
        let names: Vec<String> = match &a.dimension_names {
            Some(names) => names
                .iter()
                .enumerate()
                .map(|(k, n)| n.clone().unwrap_or_else(|| format!("_zdim_{k}")))
                .collect(),
            None => (0..a.spec.shape.len())
                .map(|k| format!("_zdim_{k}"))
                .collect(),
        };
        for (name, &size) in names.iter().zip(&a.spec.shape) {
            match dims.iter().find(|(n, _)| n == name) {
                Some((_, s)) if *s != size => {
                    return Err(Error::Description {
                        path: path.to_path_buf(),
                        message: format!(
                            "`{}`: dimension `{name}` is {size} long here and {s} elsewhere",
                            a.name
                        ),
                    })
                }
                Some(_) => {}
                None => dims.push((name.clone(), size)),
            }
        }
        var_dims.push(names);
    }
    for (name, size) in &dims {
        doc.add_dimension(name, (*size > 0).then_some(*size as usize))
            .map_err(err)?;
    }
    for (a, names) in contents.entries.iter().zip(&var_dims) {
        let at = in_entry(path, a);
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        doc.add_variable(&a.name, &a.spec.datatype, &format!("{}_t", a.name), &refs)
            .map_err(&at)?;
        for (name, value) in a
            .attributes
            .iter()
            .filter(|(n, _)| n.as_str() != "_ARRAY_DIMENSIONS" && n.as_str() != "_NCZARR_ATTR")
        {
            doc.add_attribute(Some(&a.name), name, attribute(value, &a.spec.datatype))
                .map_err(&at)?;
        }
    }
    for (name, value) in contents
        .attributes
        .iter()
        .filter(|(n, _)| n.as_str() != "_NCZARR_ATTR")
    {
        doc.add_attribute(None, name, attribute(value, &Datatype::String))
            .map_err(err)?;
    }
    Ok(doc.to_string())
}

/// A Zarr attribute as netCDF-C 4.9 types it: text as text, numbers of the
/// variable's integer type (what `_NCZARR_ATTR` says of CF flags), other
/// integers as `int` or `int64`, floats as `double`, anything else as its
/// JSON text.
fn attribute(value: &serde_json::Value, element: &Datatype) -> cdl::AttrValue {
    use serde_json::Value as J;
    let items: Vec<&J> = match value {
        J::Array(items) => items.iter().collect(),
        one => vec![one],
    };
    if let J::String(s) = value {
        return cdl::AttrValue::Text(s.clone());
    }
    if items.iter().all(|v| v.is_i64() || v.is_u64()) && !items.is_empty() {
        let ints: Vec<i128> = items
            .iter()
            .map(|v| {
                v.as_i64()
                    .map(i128::from)
                    .or(v.as_u64().map(i128::from))
                    .unwrap_or(0)
            })
            .collect();
        let t = element
            .as_int()
            .filter(|t| ints.iter().all(|&v| t.contains(v)))
            .unwrap_or(if ints.iter().all(|&v| i32::try_from(v).is_ok()) {
                ndl_runtime::IntType::Int32
            } else {
                ndl_runtime::IntType::Int64
            });
        return cdl::AttrValue::Ints(t, ints);
    }
    if items.iter().all(|v| v.is_number()) && !items.is_empty() {
        return cdl::AttrValue::Doubles(items.iter().filter_map(|v| v.as_f64()).collect());
    }
    cdl::AttrValue::Text(netcdf_json(value))
}

/// JSON as netCDF-C writes it back as text: `", "` between an object's
/// members, `","` between a list's items, `": "` after keys.
fn netcdf_json(value: &serde_json::Value) -> String {
    use serde_json::Value as J;
    match value {
        J::Object(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", J::String(k.clone()), netcdf_json(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        J::Array(items) => {
            let items: Vec<String> = items.iter().map(netcdf_json).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

/// `/a/b` -> `/`, `/a`, `/a/b`.
fn ancestors_and_self(group: &str) -> Vec<String> {
    let mut out = vec!["/".to_string()];
    let mut path = String::new();
    for part in group.split('/').filter(|p| !p.is_empty()) {
        path.push('/');
        path.push_str(part);
        out.push(path.clone());
    }
    out
}

/// The root document with every group added to its parent, deepest first
/// so that each is complete when added; siblings keep their order.
fn nest(mut groups: Vec<(String, cdl::Document)>) -> cdl::Document {
    let depth = |path: &str| path.split('/').filter(|p| !p.is_empty()).count();
    while let Some(deepest) = groups
        .iter()
        .map(|(p, _)| depth(p))
        .max()
        .filter(|&d| d > 0)
    {
        let at = groups
            .iter()
            .position(|(p, _)| depth(p) == deepest)
            .expect("a group of that depth");
        let (path, doc) = groups.remove(at);
        let up = groups
            .iter_mut()
            .find(|(p, _)| p == parent(&path))
            .expect("parents are added before their children");
        up.1.add_group(doc);
    }
    groups.pop().expect("the root group").1
}

/// `/a/b` -> `/a`; `/a` -> `/`.
fn parent(path: &str) -> &str {
    match path.rsplit_once('/') {
        Some(("", _)) | None => "/",
        Some((p, _)) => p,
    }
}

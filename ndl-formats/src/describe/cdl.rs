//! netCDF-4 CDL: a variable per array; an archive's groups as netCDF-4
//! groups, a Zarr group's named dimensions shared as netCDF-C reads them.

use std::path::Path;

use ndl_runtime::Datatype;
use ndl_runtime::lang::cdl;

use super::in_entry;
use crate::contents::{Arrangement, Contents, Entry, NamedType, ancestors_and_self, stem};
use crate::error::{Error, Result};

/// Why netCDF CDL cannot hold the array `e`, where it cannot: references
/// (netCDF-4 has none), and records with variable-length members (which
/// netCDF4-python cannot read either).
pub(super) fn cannot_say(e: &Entry) -> Option<String> {
    let parts = super::object_parts(&e.spec.datatype);
    let references: Vec<_> = parts
        .iter()
        .filter(|(_, what)| what.contains("reference"))
        .cloned()
        .collect();
    match references.as_slice() {
        [] => {}
        [(top, what)] if top.is_empty() => return Some(format!("netCDF-4 has no {what}s")),
        _ => {
            return Some(format!(
                "netCDF-4 has no reference types ({})",
                super::listed_parts(&references)
            ));
        }
    }
    if parts.is_empty() || super::is_object(&e.spec.datatype) {
        return None;
    }
    Some(format!(
        "a compound with variable-length members ({}) is not written here (netCDF4-python \
         cannot read one either)",
        super::listed_parts(&parts)
    ))
}

/// Leaves out of every record the members of Arrow's null type (bytes
/// tagged `arrow:null`, of size 0), each with a warning: a netCDF type
/// holds at least one byte, and a column of nulls holds no value.
pub(super) fn leave_out_nulls(contents: &mut Contents) {
    for e in &mut contents.entries {
        let mut left_out = Vec::new();
        without_nulls(&mut e.spec.datatype, "", &mut left_out);
        if !left_out.is_empty() {
            let names: Vec<String> = left_out.iter().map(|n| format!("`{n}`")).collect();
            contents.warnings.push(format!(
                "`{}`: netCDF CDL: the members {} are of Arrow's null type, which holds no value and has no netCDF type; left out",
                e.label(),
                names.join(", ")
            ));
        }
    }
}

fn without_nulls(dt: &mut Datatype, at: &str, left_out: &mut Vec<String>) {
    let Datatype::Compound(c) = dt else {
        return;
    };
    let path = |name: &str| {
        if at.is_empty() {
            name.to_owned()
        } else {
            format!("{at}.{name}")
        }
    };
    c.members.retain(|m| {
        let null =
            matches!(&m.datatype, Datatype::Opaque(o) if o.tag.as_deref() == Some("arrow:null"));
        if null {
            left_out.push(path(&m.name));
        }
        !null
    });
    for m in &mut c.members {
        without_nulls(&mut m.datatype, &path(&m.name), left_out);
    }
}

/// Describes the `optional` members of every record (a table's columns
/// that hold nulls) as their values' types, with a warning naming them:
/// a netCDF compound's member has no null and no `_FillValue` of its own.
pub(super) fn values_for_nulls(contents: &mut Contents) {
    for e in &mut contents.entries {
        let Datatype::Compound(_) = e.spec.datatype else {
            continue;
        };
        let mut nullable = Vec::new();
        without_options(&mut e.spec.datatype, "", &mut nullable);
        if !nullable.is_empty() {
            let names: Vec<String> = nullable.iter().map(|n| format!("`{n}`")).collect();
            contents.warnings.push(format!(
                "`{}`: netCDF CDL: the members {} hold nulls, which a netCDF compound member cannot; described as their values' types",
                e.label(),
                names.join(", ")
            ));
        }
    }
}

/// `dt` with every `optional` in it replaced by its values' type; the
/// dotted paths of those replaced go to `nullable`.
fn without_options(dt: &mut Datatype, at: &str, nullable: &mut Vec<String>) {
    if let Datatype::Optional(base) = dt {
        // Arrow's null type is left out whole (`leave_out_nulls`).
        let null = matches!(&**base, Datatype::Opaque(o) if o.tag.as_deref() == Some("arrow:null"));
        if !null {
            nullable.push(at.to_owned());
        }
        *dt = std::mem::replace(&mut **base, Datatype::Bool);
    }
    match dt {
        // Null items of a list `l` are `l[]`, apart from a null `l`;
        // the fields of its records keep `--fill`'s names (`l.x`).
        Datatype::Vlen(base) => {
            let items = match **base {
                Datatype::Optional(_) => format!("{at}[]"),
                _ => at.to_owned(),
            };
            without_options(base, &items, nullable)
        }
        Datatype::Compound(c) => {
            for m in &mut c.members {
                let path = match at {
                    "" => m.name.clone(),
                    _ => format!("{at}.{}", m.name),
                };
                without_options(&mut m.datatype, &path, nullable);
            }
            // Plain once its nulls are gone: laid out as C would.
            if c.size == 0 && !c.is_variable() {
                let members = c
                    .members
                    .iter()
                    .map(|m| (m.name.clone(), m.datatype.clone()));
                if let Ok(laid_out) = ndl_runtime::Compound::c_layout(members) {
                    *c = laid_out;
                }
            }
        }
        _ => {}
    }
}

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
    let mut groups = documents(path, contents)?;
    for a in &contents.entries {
        let doc = document_of(&mut groups, &a.group);
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
    every_group_attribute(&mut groups, contents).map_err(|source| Error::Language {
        path: path.to_path_buf(),
        array: String::new(),
        source: Box::new(source),
    })?;
    Ok(nest(groups).to_string())
}

/// An empty document for the root and for every group of `contents` (the
/// format's own, in its order, then those of the entries' paths, and
/// their ancestors), root first, each after its parent.
fn documents(path: &Path, contents: &Contents) -> Result<Vec<(String, cdl::Document)>> {
    let root = cdl::Document::new(&stem(path)).map_err(|source| Error::Language {
        path: path.to_path_buf(),
        array: String::new(),
        source: Box::new(source),
    })?;
    let mut groups = vec![("/".to_string(), root)];
    let paths = contents.groups.iter().map(|g| g.path.as_str());
    for group in paths.chain(contents.entries.iter().map(|a| a.group.as_str())) {
        for g in ancestors_and_self(group) {
            if groups.iter().any(|(p, _)| *p == g) {
                continue;
            }
            let name = g.rsplit('/').next().unwrap_or_default();
            let doc = cdl::Document::new(name).map_err(|source| Error::Language {
                path: path.to_path_buf(),
                array: g.clone(),
                source: Box::new(source),
            })?;
            groups.push((g, doc));
        }
    }
    for t in &contents.declared.types {
        let Some((_, doc)) = groups.iter_mut().find(|(p, _)| *p == t.group) else {
            continue;
        };
        // Defined first, a type names every use of it, a nested member's
        // too. One CDL cannot write (none of netCDF's) is left to the
        // variables that use it, which say why.
        let _ = doc.add_type(&t.name, &t.datatype);
    }
    // Parents come before their children: each sees what all above it
    // define.
    for i in 1..groups.len() {
        let (before, after) = groups.split_at_mut(i);
        let child = &mut after[0];
        if let Some((_, up)) = before.iter().find(|(p, _)| *p == parent(&child.0)) {
            child.1.add_outer_types(up);
        }
    }
    Ok(groups)
}

fn document_of<'a>(
    groups: &'a mut [(String, cdl::Document)],
    group: &str,
) -> &'a mut cdl::Document {
    &mut groups
        .iter_mut()
        .find(|(p, _)| p == group)
        .expect("a document for every group")
        .1
}

/// A named dimension: the group it is declared in, its length (the
/// longest of its variables' where unlimited), and whether it is.
struct Dimension {
    group: String,
    name: String,
    size: u64,
    unlimited: bool,
}

/// The CDL of a group of arrays as netCDF-C reads a Zarr group or an
/// HDF5 file with dimension scales: a dimension per dimension name,
/// declared in the group of its first variable unless an ancestor has it
/// (`UNLIMITED` where the format says so), a variable per array in its
/// group, the attributes as `ncdump -h` shows them (bookkeeping ones too,
/// as text) and of their stored type where the format has one.
fn group(path: &Path, contents: &Contents) -> Result<String> {
    // The dimensions the file declares, each in its own group; those only
    // the variables name after them.
    let mut dims: Vec<Dimension> = contents
        .declared
        .dimensions
        .iter()
        .map(|d| Dimension {
            group: d.group.clone(),
            name: d.name.clone(),
            size: d.size,
            unlimited: d.unlimited,
        })
        .collect();
    let mut var_dims = Vec::new();
    for a in &contents.entries {
        // A dimension without a name is named for its length, as
        // netCDF-C names a Zarr array's (NCZarr's `_Anonymous_Dim_<n>`):
        // arrays of one length share it, others have their own. One that
        // grows is the array's own: its length is no fixed one to share.
        let unlimited = |k: usize| a.unlimited.get(k).copied().unwrap_or(false);
        let given = |k: usize| a.dimension_names.as_ref()?.get(k)?.clone();
        let names: Vec<String> = (0..a.spec.shape.len())
            .map(|k| match given(k) {
                Some(name) => name,
                None if unlimited(k) => format!("{}_{k}", a.name),
                None => format!("_Anonymous_Dim_{}", a.spec.shape[k]),
            })
            .collect();
        let visible = ancestors_and_self(&a.group);
        for (k, (name, &size)) in names.iter().zip(&a.spec.shape).enumerate() {
            let unlimited = a.unlimited.get(k).copied().unwrap_or(false);
            // The nearest declaration: an inner group's hides an outer one's.
            let found = dims
                .iter_mut()
                .filter(|d| d.name == *name && visible.contains(&d.group))
                .max_by_key(|d| d.group.len());
            match found {
                Some(d) if d.unlimited || unlimited => {
                    d.unlimited = true;
                    d.size = d.size.max(size);
                }
                Some(d) if d.size != size => {
                    return Err(Error::Description {
                        path: path.to_path_buf(),
                        message: format!(
                            "`{}`: dimension `{name}` is {size} long here and {} elsewhere",
                            a.name, d.size
                        ),
                    });
                }
                Some(_) => {}
                None => dims.push(Dimension {
                    group: a.group.clone(),
                    name: name.clone(),
                    size,
                    unlimited,
                }),
            }
        }
        var_dims.push(names);
    }
    let mut groups = documents(path, contents)?;
    let err = |source| Error::Language {
        path: path.to_path_buf(),
        array: String::new(),
        source: Box::new(source),
    };
    for d in &dims {
        for (path, doc) in groups.iter_mut() {
            if *path != d.group && ancestors_and_self(path).contains(&d.group) {
                doc.add_outer_dimension(&d.name);
            }
        }
        let doc = document_of(&mut groups, &d.group);
        if d.unlimited {
            doc.add_unlimited_dimension(&d.name, d.size as usize)
        } else {
            doc.add_dimension(&d.name, (d.size > 0).then_some(d.size as usize))
        }
        .map_err(err)?;
    }
    for (a, names) in contents.entries.iter().zip(&var_dims) {
        let at = in_entry(path, a);
        let doc = document_of(&mut groups, &a.group);
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let type_name = a.type_name.clone().unwrap_or(format!("{}_t", a.name));
        doc.add_variable(&a.name, &a.spec.datatype, &type_name, &refs)
            .map_err(&at)?;
        for (name, value) in a
            .attributes
            .iter()
            .filter(|(n, _)| n.as_str() != "_ARRAY_DIMENSIONS" && n.as_str() != "_NCZARR_ATTR")
        {
            let value = attribute(
                value,
                &a.spec.datatype,
                a.attribute_types.get(name),
                (name, &contents.declared.types),
            );
            doc.add_attribute(Some(&a.name), name, value).map_err(&at)?;
        }
    }
    every_group_attribute(&mut groups, contents).map_err(err)?;
    Ok(nest(groups).to_string())
}

/// Adds the attributes of the root and of every group to their documents.
fn every_group_attribute(
    groups: &mut [(String, cdl::Document)],
    contents: &Contents,
) -> std::result::Result<(), ndl_runtime::lang::LangError> {
    let types = &contents.declared.types;
    let root = document_of(groups, "/");
    add_group_attributes(root, &contents.attributes, &contents.attribute_types, types)?;
    for g in &contents.groups {
        let doc = document_of(groups, &g.path);
        add_group_attributes(doc, &g.attributes, &g.attribute_types, types)?;
    }
    Ok(())
}

/// Adds a group's `attributes` to its document, in their order.
fn add_group_attributes(
    doc: &mut cdl::Document,
    attributes: &serde_json::Map<String, serde_json::Value>,
    types: &std::collections::BTreeMap<String, Datatype>,
    named: &[NamedType],
) -> std::result::Result<(), ndl_runtime::lang::LangError> {
    for (name, value) in attributes
        .iter()
        .filter(|(n, _)| n.as_str() != "_NCZARR_ATTR")
    {
        let value = attribute(value, &Datatype::String, types.get(name), (name, named));
        doc.add_attribute(None, name, value)?;
    }
    Ok(())
}

/// An attribute of its `stored` type where the format has one (HDF5),
/// a compound one of the type the file names it by (`named`, else
/// `<attribute>_t`); else a Zarr attribute as netCDF-C 4.9 types it: text
/// as text, numbers of the variable's integer type (what `_NCZARR_ATTR`
/// says of CF flags), other integers as `int` or `int64`, floats as
/// `double`, anything else as its JSON text.
fn attribute(
    value: &serde_json::Value,
    element: &Datatype,
    stored: Option<&Datatype>,
    (name, named): (&str, &[NamedType]),
) -> cdl::AttrValue {
    use serde_json::Value as J;
    // A compound netCDF cannot define (an HDF5 one of half floats) stays
    // JSON text, as other values CDL has no type for.
    let definable = |dt: &Datatype| cdl::type_definitions("t", dt).is_ok();
    if let Some(dt @ Datatype::Compound(_)) = stored.filter(|dt| definable(dt))
        && let Some(records) = records(value, dt)
    {
        let type_name = named
            .iter()
            .find(|t| t.datatype == *dt)
            .map_or_else(|| format!("{name}_t"), |t| t.name.clone());
        return cdl::AttrValue::Compound {
            type_name,
            datatype: dt.clone(),
            records,
        };
    }
    // netCDF attributes are lists: an HDF5 attribute of more dimensions
    // is its elements in C order.
    let mut items: Vec<&J> = Vec::new();
    flatten(value, &mut items);
    let texts = || items.iter().filter_map(|v| v.as_str().map(str::to_string));
    match (value, stored) {
        // netCDF-4's `string`: HDF5's variable-length strings.
        (_, Some(Datatype::String)) => return cdl::AttrValue::Strings(texts().collect()),
        // A float's NaN or infinity is text in JSON.
        (J::String(s), stored)
            if !matches!(stored, Some(Datatype::Float32 | Datatype::Float64)) =>
        {
            return cdl::AttrValue::Text(s.clone());
        }
        _ => {}
    }
    let numbers = || {
        items
            .iter()
            .filter_map(|v| crate::attribute_json::float_of(v))
    };
    match stored {
        Some(Datatype::Float32) => {
            return cdl::AttrValue::Floats(numbers().map(|v| v as f32).collect());
        }
        Some(Datatype::Float64) => return cdl::AttrValue::Doubles(numbers().collect()),
        Some(dt) => {
            if let Some(t) = dt.as_int() {
                let ints = items
                    .iter()
                    .filter_map(|v| v.as_i64().map(i128::from).or(v.as_u64().map(i128::from)));
                return cdl::AttrValue::Ints(t, ints.collect());
            }
        }
        None => {}
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

/// A compound attribute's records (one JSON object, or nested lists of
/// them), where every value has its member's type.
fn records(value: &serde_json::Value, dt: &Datatype) -> Option<Vec<cdl::MemberValue>> {
    let mut items = Vec::new();
    flatten(value, &mut items);
    items.into_iter().map(|v| member_value(v, dt)).collect()
}

/// The JSON the HDF5 reader gives of one value of `dt` as a CDL value:
/// records as objects, arrays as lists, NaN and the infinities as text.
fn member_value(value: &serde_json::Value, dt: &Datatype) -> Option<cdl::MemberValue> {
    use cdl::MemberValue as M;
    use serde_json::Value as J;
    Some(match (dt, value) {
        (Datatype::Compound(c), J::Object(map)) => M::Record(
            c.members
                .iter()
                .map(|m| member_value(map.get(&m.name)?, &m.datatype))
                .collect::<Option<_>>()?,
        ),
        (Datatype::Array(a), J::Array(items)) => M::List(
            items
                .iter()
                .map(|v| member_value(v, &a.base))
                .collect::<Option<_>>()?,
        ),
        (Datatype::FixedString(_), J::String(s)) => M::Text(s.clone()),
        (Datatype::Float32 | Datatype::Float64, v) => M::Float(crate::attribute_json::float_of(v)?),
        (_, v) => M::Int(v.as_i64().map(i128::from).or(v.as_u64().map(i128::from))?),
    })
}

/// The leaves of nested lists, in order.
fn flatten<'a>(value: &'a serde_json::Value, out: &mut Vec<&'a serde_json::Value>) {
    match value {
        serde_json::Value::Array(items) => items.iter().for_each(|v| flatten(v, out)),
        one => out.push(one),
    }
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

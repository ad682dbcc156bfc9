//! The rules a document follows beyond its syntax: names and paths,
//! dimcoord references, storage directives, values against their shape
//! and datatype. Run on every document read, and by [`File::validate`] on
//! documents built by hand.

use serde_yaml::Value;

use super::attribute::Attribute;
use super::document::{DimCoord, File, FileForm, Group, Ndarray};
use super::error::{Ctx, NdlError, NdlErrorKind};
use super::name_map::NameMap;
use super::path::{check_group_path, check_name};
use super::shape::{Extent, Shape, is_dim_reference};
use super::storage::Storage;
use super::values::{check_element, check_value};
use crate::Datatype;

impl File {
    /// Checks the rules of the spec and of our reading of it: group paths,
    /// ndarray and dimcoord names, dimcoord references in shapes, storage
    /// directives where they are allowed and of the right rank, values
    /// following their shape and datatype.
    ///
    /// ```
    /// use ndl_runtime::ndl::{File, Ndarray, Storage};
    /// use ndl_runtime::Datatype;
    ///
    /// let nd = Ndarray::new([10, 20], Datatype::Float64)
    ///     .with_storage(Storage { shape: Some(vec![10, 30]), ..Storage::default() });
    /// let err = File::single_ndarray("z", nd).validate().unwrap_err();
    /// assert_eq!(err.to_string(), "ndarray `z`: storage.shape[1]: 30 exceeds the declared extent 20");
    /// ```
    pub fn validate(&self) -> Result<(), NdlError> {
        file(self)
    }
}

/// Checks every group of `file`.
fn file(file: &File) -> Result<(), NdlError> {
    for (path, g) in file.groups.iter() {
        let ctx = group_ctx(file, path);
        check_group_path(path, &ctx)?;
        if file.form == FileForm::Flat && path != "/" {
            return Err(Ctx::root().err(NdlErrorKind::GroupInFlatFile(path.into())));
        }
        group(g, &ctx, &Scope { file, group: path })?;
    }
    Ok(())
}

/// Locations inside a flat file name no group: there is none in the text.
fn group_ctx(file: &File, path: &str) -> Ctx {
    match file.form {
        FileForm::Flat => Ctx::root(),
        FileForm::Grouped => Ctx::root().at(path),
    }
}

fn group(g: &Group, ctx: &Ctx, scope: &Scope) -> Result<(), NdlError> {
    attributes(&g.attributes, ctx, scope)?;
    for (name, dc) in g.dimcoords.iter() {
        let ctx = ctx.at(format!("dimcoord `{name}`"));
        check_name(name, &ctx)?;
        dimcoord(dc, &ctx, scope)?;
    }
    for (name, nd) in g.ndarrays.iter() {
        let ctx = ctx.at(format!("ndarray `{name}`"));
        check_name(name, &ctx)?;
        ndarray(nd, &ctx, scope)?;
    }
    Ok(())
}

fn ndarray(nd: &Ndarray, ctx: &Ctx, scope: &Scope) -> Result<(), NdlError> {
    let extents = scope.extents(&nd.shape, ctx)?;
    if let Some(dt) = &nd.datatype {
        check_datatype(dt, ctx)?;
    }
    if let Some(v) = &nd.value {
        check_value(v, &extents, nd.datatype.as_ref(), &ctx.at("value"))?;
    }
    attributes(&nd.attributes, ctx, scope)?;
    let entity = Entity::Ndarray;
    check_storage(&nd.storage, ctx, entity, &extents, nd.datatype.as_ref())
}

fn dimcoord(dc: &DimCoord, ctx: &Ctx, scope: &Scope) -> Result<(), NdlError> {
    if dc.size == Some(0) {
        return Err(ctx.at("size").err(NdlErrorKind::ZeroSize));
    }
    check_datatype(&dc.datatype, ctx)?;
    if let Some(v) = &dc.value {
        check_value(v, &[dc.size], Some(&dc.datatype), &ctx.at("value"))?;
    }
    attributes(&dc.attributes, ctx, scope)?;
    let entity = Entity::DimCoord;
    check_storage(&dc.storage, ctx, entity, &[dc.size], Some(&dc.datatype))
}

fn attributes(attrs: &NameMap<Attribute>, ctx: &Ctx, scope: &Scope) -> Result<(), NdlError> {
    attrs
        .iter()
        .try_for_each(|(name, a)| attribute(a, &ctx.at(format!("attribute `{name}`")), scope))
}

fn attribute(a: &Attribute, ctx: &Ctx, scope: &Scope) -> Result<(), NdlError> {
    let extents = scope.extents(&a.shape, ctx)?;
    check_datatype(&a.datatype, ctx)?;
    check_value(&a.value, &extents, Some(&a.datatype), &ctx.at("value"))?;
    let entity = Entity::Attribute;
    check_storage(&a.storage, ctx, entity, &extents, Some(&a.datatype))
}

/// A datatype built by hand may break the datatype rules (e.g. an enum
/// value outside its base); one read from YAML was checked already.
fn check_datatype(dt: &Datatype, ctx: &Ctx) -> Result<(), NdlError> {
    dt.validate()
        .map_err(|e| ctx.at("type").err(NdlErrorKind::Datatype(e.to_string())))
}

/// What a storage directive belongs to; `shape` and `size` are each
/// allowed for one kind only.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Entity {
    Ndarray,
    DimCoord,
    Attribute,
}

/// Checks storage directives against the entity and its declared extents
/// (`None`: unlimited).
fn check_storage(
    s: &Storage,
    ctx: &Ctx,
    entity: Entity,
    extents: &[Option<usize>],
    datatype: Option<&Datatype>,
) -> Result<(), NdlError> {
    let at = |key: &str| ctx.at(format!("storage.{key}"));
    if let Some(shape) = &s.shape {
        if entity != Entity::Ndarray {
            return Err(at("shape").err(NdlErrorKind::DirectiveNotAllowed {
                directive: "shape",
                allowed_for: "ndarrays",
            }));
        }
        check_rank(shape, extents.len(), &at("shape"))?;
        for (i, (&stored, declared)) in shape.iter().zip(extents).enumerate() {
            check_within(stored, *declared, &at("shape").suffixed(format!("[{i}]")))?;
        }
    }
    if let Some(stored) = s.size {
        if entity != Entity::DimCoord {
            return Err(at("size").err(NdlErrorKind::DirectiveNotAllowed {
                directive: "size",
                allowed_for: "dimcoords",
            }));
        }
        // The number of stored values cannot exceed the declared size.
        check_within(stored, extents.first().copied().flatten(), &at("size"))?;
    }
    if let Some(chunk) = &s.chunk {
        check_rank(chunk, extents.len(), &at("chunk"))?;
        if let Some(i) = chunk.iter().position(|&n| n == 0) {
            return Err(at("chunk")
                .suffixed(format!("[{i}]"))
                .expected("a positive number of elements", &Value::from(0)));
        }
    }
    if let Some(fill) = &s.fillvalue {
        check_element(fill, datatype, &at("fillvalue"))?;
    }
    Ok(())
}

fn check_rank(list: &[usize], rank: usize, ctx: &Ctx) -> Result<(), NdlError> {
    if list.len() == rank {
        return Ok(());
    }
    Err(ctx.err(NdlErrorKind::RankMismatch {
        rank,
        found: list.len(),
    }))
}

/// A stored extent is at most the declared one; an unlimited one bounds nothing.
fn check_within(stored: usize, declared: Option<usize>, ctx: &Ctx) -> Result<(), NdlError> {
    match declared {
        Some(declared) if stored > declared => {
            Err(ctx.err(NdlErrorKind::ExceedsExtent { stored, declared }))
        }
        _ => Ok(()),
    }
}

/// Where an entity sits, to resolve dimcoord references in its shape.
struct Scope<'a> {
    file: &'a File,
    group: &'a str,
}

impl Scope<'_> {
    /// The declared size of each dimension: `None` for unlimited ones.
    fn extents(&self, shape: &Shape, ctx: &Ctx) -> Result<Vec<Option<usize>>, NdlError> {
        let at = |i: usize| ctx.at("shape").suffixed(format!("[{i}]"));
        shape
            .0
            .iter()
            .enumerate()
            .map(|(i, e)| match e {
                Extent::Size(n) => Ok(Some(*n)),
                Extent::Unlimited => Ok(None),
                Extent::Dim(r) if !is_dim_reference(r) => {
                    Err(at(i).err(NdlErrorKind::BadDimReference(r.clone())))
                }
                Extent::Dim(r) => self
                    .file
                    .resolve_dimcoord(self.group, r)
                    .map(|(_, dc)| dc.size)
                    .ok_or_else(|| at(i).err(NdlErrorKind::UnresolvedDim(r.clone()))),
            })
            .collect()
    }
}

//! A planned document as an HDF5 or netCDF-4 file: dimcoords as
//! dimension scales (netCDF coordinate variables), ndarrays attached to
//! them; in netCDF-4, an extent given by its size is a dimension of its
//! own (`dim_<size>`, shared in the group, `dim_<size>_2` for the second
//! of one size in an ndarray; `<ndarray>_<k>` when unlimited), as netCDF
//! has no dimension without a name; a dimcoord outside the groups a
//! netCDF variable sees is a dimension of the same name and extent in
//! the variable's group; a dimcoord that is a dimension alone (see
//! [`PlannedArray::is_dimension_only`]) has no variable.

use std::path::Path;

use ndl_hdf5::{DocumentWriter, Elements, NewDataset};
use ndl_runtime::lang::zarr::Codec;
use ndl_runtime::{Charset, Datatype};

use super::plan::{Filter, Plan, PlannedArray, PlannedAttribute, is_number};
use crate::error::{Error, Result};

/// What HDF5 refuses that the document allows: a chunk longer than a
/// dimension of fixed size (HDF5 chunks only what can grow past it); and
/// what netCDF-4 readers do not read: compounds holding variable-length
/// members (netCDF4-python skips them, and xarray with it), names netCDF-C
/// refuses.
pub(super) fn check(plan: &Plan, doc: &Path, netcdf: bool) -> Result<()> {
    if netcdf {
        check_netcdf_names(plan, doc)?;
    }
    if let (true, Some((_, a))) = (netcdf, plan.arrays().find(|(_, a)| a.is_records())) {
        return Err(Error::Document {
            path: doc.to_path_buf(),
            location: format!("{}: type", a.at),
            message: "netCDF4-python reads no compound holding `string` or `vlen` members: \
                      make an .h5 file, or give each member an ndarray of its own"
                .into(),
        });
    }
    for (_, a) in plan.arrays() {
        let foreign = a.filters.iter().enumerate().find_map(|(k, f)| match f {
            Filter::Zarr(codec) if f.hdf5().is_none() => Some((k, *codec)),
            _ => None,
        });
        if let Some((k, codec)) = foreign {
            return Err(Error::Document {
                path: doc.to_path_buf(),
                location: format!("{}: storage.filter[{k}]", a.at),
                message: format!(
                    "{} is a Zarr codec that HDF5 has no filter for here; HDF5 and netCDF-4 files take deflate (gzip, zlib) and shuffle",
                    zarr_codec_name(codec)
                ),
            });
        }
    }
    for (_, a) in plan.arrays() {
        let Some(chunk) = &a.chunk else { continue };
        let fixed = a.max.iter().zip(&a.extents).map(|(max, &e)| max.map(|_| e));
        for (k, (&c, extent)) in chunk.iter().zip(fixed).enumerate() {
            if let Some(extent) = extent.filter(|&e| c > e) {
                return Err(Error::Document {
                    path: doc.to_path_buf(),
                    location: format!("{}: storage.chunk[{k}]", a.at),
                    message: format!(
                        "{c} exceeds the extent {extent}, which HDF5 refuses for a dimension of fixed size"
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Refuses a name of a group, array or attribute that netCDF-C refuses
/// (ncdump stops at a name that begins with a space).
fn check_netcdf_names(plan: &Plan, doc: &Path) -> Result<()> {
    let refuse = |location: String, name: &str, why: &str| Error::Document {
        path: doc.to_path_buf(),
        location,
        message: format!("`{name}` is no netCDF name: {why}"),
    };
    let attributes = |at: &str, attrs: &[PlannedAttribute]| -> Result<()> {
        match attrs
            .iter()
            .find_map(|a| Some((a, netcdf_name_fault(&a.name)?)))
        {
            Some((a, why)) => Err(refuse(format!("{at}attribute `{}`", a.name), &a.name, why)),
            None => Ok(()),
        }
    };
    for g in &plan.groups {
        for segment in g.path.split('/').filter(|s| !s.is_empty()) {
            if let Some(why) = netcdf_name_fault(segment) {
                return Err(refuse(g.path.clone(), segment, why));
            }
        }
        let at = if g.path == "/" {
            String::new()
        } else {
            format!("{}: ", g.path)
        };
        attributes(&at, &g.attributes)?;
    }
    for (_, a) in plan.arrays() {
        if let Some(why) = netcdf_name_fault(&a.name) {
            return Err(refuse(a.at.clone(), &a.name, why));
        }
        attributes(&format!("{}: ", a.at), &a.attributes)?;
    }
    Ok(())
}

/// Why netCDF-C refuses `name` (its `NC_check_name`), if it does: it
/// begins with a letter, digit, `_` or a non-ASCII character, holds no
/// control character or `/`, and ends in no space.
fn netcdf_name_fault(name: &str) -> Option<&'static str> {
    let first = name.chars().next()?;
    if !(first.is_ascii_alphanumeric() || first == '_' || !first.is_ascii()) {
        return Some("netCDF names begin with a letter, a digit, `_` or a non-ASCII character");
    }
    if name.chars().any(|c| c.is_ascii_control() || c == '/') {
        return Some("netCDF names hold no control character or `/`");
    }
    if name.ends_with(|c: char| c.is_ascii_whitespace()) {
        return Some("netCDF names end in no space");
    }
    None
}

/// What the reader of the netCDF-4 file `dest` made of `plan` should know:
/// each variable netCDF4-python (and xarray through it) skips, though
/// ncdump and netCDF-C read it.
pub(super) fn notes(plan: &Plan, dest: &Path, netcdf: bool) -> Vec<String> {
    if !netcdf {
        return Vec::new();
    }
    plan.arrays()
        .filter_map(|(group, a)| {
            let what = netcdf4_python_skips(&a.datatype)?;
            let name = format!("{}/{}", group.trim_end_matches('/'), a.name);
            Some(format!(
                "{}: netCDF4-python (and xarray through it) skips the variable `{name}`, {what}, which ncdump and netCDF-C read; an .h5 file h5py reads holds it",
                dest.display()
            ))
        })
        .collect()
}

/// What of a variable of `dt` makes netCDF4-python skip it, in words.
fn netcdf4_python_skips(dt: &Datatype) -> Option<String> {
    match dt {
        Datatype::Vlen(base) if !is_number(base) => {
            Some("of a `vlen` of other than numbers".into())
        }
        Datatype::Opaque(_) | Datatype::Time(_) => Some("of an opaque type".into()),
        _ => ndl_hdf5::netcdf4_python_skips(dt)
            .map(|member| format!("of a compound holding an enum or bool (`{member}`)")),
    }
}

/// Writes `plan` to a new file at `dest`, published whole.
pub(super) fn write(plan: &Plan, dest: &Path, netcdf: bool) -> Result<()> {
    let wrap = |source| Error::Hdf5 {
        path: dest.to_path_buf(),
        source: Box::new(source),
    };
    let mut w = DocumentWriter::create(dest, netcdf).map_err(wrap)?;
    for g in &plan.groups {
        w.group(&g.path).map_err(wrap)?;
        attributes(&w, &g.path, &g.attributes).map_err(wrap)?;
    }
    for (group, a) in plan.arrays() {
        if netcdf && a.is_dimension_only(group) {
            let (len, unlimited) = (a.extents[0], a.max[0].is_none());
            w.dimension(group, &a.name, len, unlimited).map_err(wrap)?;
            continue;
        }
        array(&mut w, group, a, netcdf).map_err(wrap)?;
    }
    w.finish().map_err(wrap)
}

fn array(
    w: &mut DocumentWriter,
    group: &str,
    a: &PlannedArray,
    netcdf: bool,
) -> ndl_hdf5::Result<()> {
    let flat;
    let a = match (&a.datatype, netcdf) {
        (Datatype::Array(_), true) => {
            // netCDF-4 has no variables of an array type (ncdump and
            // netCDF4-python skip them).
            flat = a.without_array_type();
            &flat
        }
        (Datatype::FixedString(f), true) if f.charset == Charset::Ascii && f.length > 1 => {
            // netCDF's fixed strings: `char` over their length. One of a
            // single character is a `char` itself, as `ndl describe`
            // gives a `char` variable back.
            flat = a.with_extent(f.length as u64);
            &flat
        }
        _ => a,
    };
    let unlimited: Vec<bool> = a.max.iter().map(Option::is_none).collect();
    let filters: Vec<ndl_hdf5::Filter> = a
        .filters
        .iter()
        .filter_map(|f| match f.hdf5()? {
            Filter::Deflate(level) => Some(ndl_hdf5::Filter::Deflate(level)),
            Filter::Shuffle => Some(ndl_hdf5::Filter::Shuffle),
            Filter::Zarr(_) => None,
        })
        .collect();
    let new = NewDataset {
        datatype: &a.datatype,
        extents: &a.extents,
        unlimited: &unlimited,
        chunk: a.chunk.as_deref(),
        filters: &filters,
        byte_order: a.byte_order,
        fill: a.fill.as_deref(),
    };
    w.dataset(&a.path, &new, crate::hdf5_attributes::elements(&a.values))?;
    if let (Some(fill), true, false) = (&a.fill, a.masked, netcdf) {
        // netCDF-4 has its `_FillValue` from the fill; an HDF5 file's
        // readers (xarray, h5netcdf) learn of the nulls from it too.
        w.attribute(
            &a.path,
            "_FillValue",
            &a.datatype,
            &[],
            Elements::Bytes(fill),
        )?;
    }
    let is_coordinate = a
        .dims
        .first()
        .is_some_and(|d| d.as_ref() == Some(&(group.to_string(), a.name.clone())));
    if is_coordinate {
        w.coordinate(&a.path, unlimited[0])?;
    } else {
        for (k, dim) in a.dims.iter().enumerate() {
            match dim {
                Some((g, name)) if !netcdf || in_scope(g, group) => {
                    w.attach(&a.path, k, g, name)?
                }
                Some((_, name)) => {
                    // netCDF-4 sees only the dimensions of a variable's
                    // group and the groups above it: a dimcoord elsewhere
                    // becomes a dimension of its name and extent here.
                    w.dimension(group, name, a.extents[k], unlimited[k])?;
                    w.attach(&a.path, k, group, name)?;
                }
                None if netcdf => {
                    let name = a.anonymous_dimension(k);
                    w.dimension(group, &name, a.extents[k], unlimited[k])?;
                    w.attach(&a.path, k, group, &name)?;
                }
                None => {}
            }
        }
    }
    attributes(w, &a.path, &a.attributes)
}

/// The name a Zarr codec has in a store's metadata (`zstd`).
fn zarr_codec_name(codec: Codec) -> String {
    let codecs = codec.v3_codecs(1);
    let name = codecs.first().and_then(|c| c["name"].as_str());
    name.map_or_else(|| format!("{codec:?}"), |n| format!("`{n}`"))
}

/// Whether the group at `dims` is `group` or one above it.
fn in_scope(dims: &str, group: &str) -> bool {
    dims == "/" || dims == group || group.starts_with(&format!("{dims}/"))
}

fn attributes(
    w: &DocumentWriter,
    object: &str,
    attrs: &[PlannedAttribute],
) -> ndl_hdf5::Result<()> {
    attrs.iter().try_for_each(|a| {
        w.attribute(
            object,
            &a.name,
            &a.datatype,
            &a.shape,
            crate::hdf5_attributes::elements(&a.values),
        )
    })
}

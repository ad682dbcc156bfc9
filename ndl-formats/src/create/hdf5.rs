//! A planned document as an HDF5 or netCDF-4 file: dimcoords as
//! dimension scales (netCDF coordinate variables), ndarrays attached to
//! them; in netCDF-4, an extent given by its size is a dimension of its
//! own (`dim_<size>`, shared in the group; `<ndarray>_<k>` when
//! unlimited), as netCDF has no dimension without a name.

use std::path::Path;

use ndl_hdf5::{DocumentWriter, Elements, NewDataset};

use super::plan::{Filter, Plan, PlannedArray, PlannedAttribute};
use super::values::Values;
use crate::error::{Error, Result};

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
        array(&mut w, group, a, netcdf).map_err(wrap)?;
    }
    w.finish().map_err(wrap)
}

fn array(w: &mut DocumentWriter, group: &str, a: &PlannedArray, netcdf: bool) -> ndl_hdf5::Result<()> {
    let unlimited: Vec<bool> = a.max.iter().map(Option::is_none).collect();
    let filters: Vec<ndl_hdf5::Filter> = a
        .filters
        .iter()
        .map(|f| match f {
            Filter::Deflate(level) => ndl_hdf5::Filter::Deflate(*level),
            Filter::Shuffle => ndl_hdf5::Filter::Shuffle,
        })
        .collect();
    let new = NewDataset {
        datatype: &a.datatype,
        extents: &a.extents,
        unlimited: &unlimited,
        chunk: a.chunk.as_deref(),
        filters: &filters,
        byte_order: a.byte_order,
    };
    w.dataset(&a.path, &new, elements(&a.values))?;
    let is_coordinate = a.dims.first().is_some_and(|d| d.as_ref() == Some(&(group.to_string(), a.name.clone())));
    if is_coordinate {
        w.coordinate(&a.path, unlimited[0])?;
    } else {
        for (k, dim) in a.dims.iter().enumerate() {
            match dim {
                Some((g, name)) => w.attach(&a.path, k, g, name)?,
                None if netcdf => {
                    let name = match a.max[k] {
                        Some(n) => format!("dim_{n}"),
                        None => format!("{}_{k}", a.name),
                    };
                    w.dimension(group, &name, a.extents[k], unlimited[k])?;
                    w.attach(&a.path, k, group, &name)?;
                }
                None => {}
            }
        }
    }
    attributes(w, &a.path, &a.attributes)
}

fn attributes(w: &DocumentWriter, object: &str, attrs: &[PlannedAttribute]) -> ndl_hdf5::Result<()> {
    attrs
        .iter()
        .try_for_each(|a| w.attribute(object, &a.name, &a.datatype, &a.shape, elements(&a.values)))
}

fn elements(values: &Values) -> Elements<'_> {
    match values {
        Values::Fill => Elements::Fill,
        Values::Bytes(b) => Elements::Bytes(b),
        Values::Strings(s) => Elements::Strings(s),
    }
}

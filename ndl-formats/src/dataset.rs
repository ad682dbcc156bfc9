//! A file of several arrays that are no table, converted whole into a
//! Zarr group: an xarray dataset's variables and coordinates, an HDF5
//! file's datasets, an `.npz` archive's members, a Zarr group's arrays.
//!
//! Each array is read as `--member` reads it (CF encodings undone, its
//! dimensions named, its attributes carried) and written as the group's
//! array at the path it has in the file; the file's root attributes, but
//! its bookkeeping, are the group's, and the groups between keep theirs.
//! The group appears whole, with consolidated metadata, so that
//! `xr.open_zarr` opens it as the file's dataset.

use std::path::Path;

use serde_json::{Map, Value};

use crate::attribute_json::zarr_attribute;
use crate::contents::Contents;
use crate::convert::{ConvertOptions, Progress, convert_to};
use crate::error::Result;
use crate::format::Format;

/// Whether a destination of `format` takes a whole file of arrays.
pub(crate) fn takes(format: Format) -> bool {
    format.name() == ZARR.name()
}

/// The format of the group and its arrays.
const ZARR: Format = Format(&crate::zarr::FORMAT);

/// Converts every array of the file at `src` into a new Zarr group at
/// `dst`; returns the number of elements.
///
/// # Errors
/// As a conversion of each array alone (`--member`); nothing appears at
/// `dst` when one fails.
pub(crate) fn convert(
    src: &Path,
    dst: &Path,
    options: &ConvertOptions,
    progress: &dyn Fn(Progress),
) -> Result<u64> {
    let format = Format::of_existing(src)?;
    let contents = format.contents(src, &options.read.limits)?;
    for warning in &contents.warnings {
        progress(Progress::Note(warning.clone()));
    }
    let mut group_options = options.write.zarr.zarr.clone();
    for (name, value) in carried(&contents.attributes) {
        group_options = group_options.attribute(&name, value);
    }
    let mut group = ndl_zarr::GroupWriter::create(dst, &group_options)?;
    for g in contents.groups.iter().filter(|g| g.path != "/") {
        group.group(&g.path, carried(&g.attributes));
    }
    progress(Progress::Total(total(&contents)));
    let mut done = 0;
    for entry in &contents.entries {
        let name = entry.label();
        let at = group.array_location(&name)?;
        let read = options.read.clone().member(&name);
        let this_array = |p: Progress| match p {
            Progress::Total(_) => {}
            Progress::Done(n) => progress(Progress::Done(done + n)),
            note => progress(note),
        };
        done += convert_to(ZARR, (src, &read), &at, options, &this_array)?;
    }
    group.finish()?;
    Ok(done)
}

/// The elements of every array of `contents`.
fn total(contents: &Contents) -> u64 {
    contents
        .entries
        .iter()
        .map(|e| e.spec.len().unwrap_or(0))
        .sum()
}

/// The attributes of a group that its copy takes: not the file's
/// bookkeeping (netCDF's `_NCProperties`, HDF5's dimension lists, a Zarr
/// store's own), as JSON, Zarr's attributes.
fn carried(attributes: &Map<String, Value>) -> Map<String, Value> {
    attributes
        .iter()
        .filter(|(name, value)| {
            !crate::attribute_json::is_hdf5_bookkeeping(name, value, false)
                && !crate::attribute_json::is_zarr_bookkeeping(name)
                && name.as_str() != "CLASS"
        })
        .map(|(name, value)| (name.clone(), zarr_attribute(value.clone())))
        .collect()
}

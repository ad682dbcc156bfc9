//! The attributes a converted array carries into an HDF5 or netCDF-4
//! dataset, each of the type the source gives it (a `short` `valid_range`
//! stays `short`, as netCDF's CF conventions require of it).

use std::path::Path;

use std::collections::BTreeMap;

use ndl_hdf5::{ArrayWriter, DocumentWriter, Elements};
use ndl_runtime::Datatype;
use serde_json::{Map, Value};

use crate::create::plan::attribute as planned;
use crate::create::values::Values;
use crate::error::{Error, Result, in_hdf5};
use crate::source::Source;

/// Writes the attributes `source` carries on the dataset of `writer`, in
/// the file at `path`; but its `_FillValue`, where it is the dataset's fill
/// ([`fill`](crate::carried::fill)), which the writer wrote with it.
///
/// # Errors
/// An attribute of no HDF5 type (a `vlen` one), naming it.
pub(crate) fn write(path: &Path, writer: &ArrayWriter, source: &dyn Source) -> Result<()> {
    let Some(attributes) = source.attributes() else {
        return Ok(());
    };
    let filled = crate::carried::fill(source).is_some();
    for (name, a) in attributes.iter() {
        if name == "_FillValue" && filled {
            continue;
        }
        let a = planned(name, a, &source.array_name()).map_err(unwritable(path))?;
        writer
            .attribute(name, &a.datatype, &a.shape, elements(&a.values))
            .map_err(in_hdf5(path))?;
    }
    Ok(())
}

/// Writes on the group at `group` of `file`, at `path`, the attributes of
/// the source's group that a copy takes ([`group_attributes`]), of their
/// stored `types` where the source's format keeps them.
///
/// [`group_attributes`]: crate::carried::group_attributes
///
/// # Errors
/// As [`write`].
pub(crate) fn write_group(
    path: &Path,
    file: &DocumentWriter,
    group: &str,
    (attributes, types): (&Map<String, Value>, &BTreeMap<String, Datatype>),
) -> Result<()> {
    for (name, value) in crate::carried::group_attributes(attributes) {
        let stored = types.get(&name);
        let Some(a) = crate::attribute_json::attribute(&name, &value, &Datatype::String, stored)
        else {
            continue;
        };
        let a = planned(&name, &a, group).map_err(unwritable(path))?;
        file.attribute(group, &name, &a.datatype, &a.shape, elements(&a.values))
            .map_err(in_hdf5(path))?;
    }
    Ok(())
}

/// The error of an attribute, at `path`, whose values do not make its
/// datatype's.
fn unwritable(path: &Path) -> impl Fn((String, String)) -> Error + '_ {
    move |(at, why)| Error::Unsupported {
        path: path.to_path_buf(),
        message: format!("{at}: {why}"),
    }
}

/// `values` as the HDF5 writers take them.
pub(crate) fn elements(values: &Values) -> Elements<'_> {
    match values {
        Values::Fill => Elements::Fill,
        Values::Bytes(b) => Elements::Bytes(b),
        Values::Strings(s) => Elements::Strings(s),
        Values::Column(c) => Elements::Column(c),
    }
}

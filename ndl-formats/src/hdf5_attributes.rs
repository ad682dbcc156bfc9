//! The attributes a converted array carries into an HDF5 or netCDF-4
//! dataset, each of the type the source gives it (a `short` `valid_range`
//! stays `short`, as netCDF's CF conventions require of it).

use std::collections::BTreeMap;
use std::path::Path;

use ndl_hdf5::{
    ArrayWriter, ColumnsWriter, DocumentWriter, Elements, RecordColumnsWriter, RecordsWriter,
};
use ndl_runtime::Datatype;
use ndl_runtime::ndl::Attribute;
use serde_json::{Map, Value};

use crate::create::plan::{PlannedAttribute, attribute as planned};
use crate::create::values::Values;
use crate::error::{Result, in_hdf5};
use crate::records::RecordSource;
use crate::source::Source;

/// Writes the attributes `source` carries on the dataset of `writer`, in
/// the file at `path`; but its `_FillValue`, where it is the dataset's fill
/// ([`fill`](crate::carried::fill)), which the writer wrote with it.
///
/// # Errors
/// An attribute HDF5 refuses even as JSON, naming it.
pub(crate) fn write(path: &Path, writer: &ArrayWriter, source: &dyn Source) -> Result<()> {
    let Some(attributes) = source.attributes() else {
        return Ok(());
    };
    let filled = crate::carried::fill(source).is_some();
    let carried = attributes.iter();
    write_each(
        path,
        writer,
        carried.filter(|(name, _)| !(filled && *name == "_FillValue")),
    )
}

/// A dataset or file being written, which takes attributes of their own
/// types or from JSON: an array's, variable records', a table's.
pub(crate) trait Attributed {
    fn typed(&self, name: &str, t: &PlannedAttribute) -> ndl_hdf5::Result<()>;
    fn json(&self, name: &str, value: &Value) -> ndl_hdf5::Result<()>;
}

/// Implements [`Attributed`] by a writer's own `attribute` and
/// `json_attribute`, which every HDF5 writer has.
macro_rules! attributed {
    ($($writer:ty),*) => {$(
        impl Attributed for $writer {
            fn typed(&self, name: &str, t: &PlannedAttribute) -> ndl_hdf5::Result<()> {
                self.attribute(name, &t.datatype, &t.shape, elements(&t.values))
            }

            fn json(&self, name: &str, value: &Value) -> ndl_hdf5::Result<()> {
                self.json_attribute(name, value)
            }
        }
    )*};
}

attributed!(
    ArrayWriter,
    RecordsWriter,
    ColumnsWriter,
    RecordColumnsWriter
);

/// Writes each of `attributes` on the dataset of `writer`, in the file
/// at `path` (see [`written`]).
fn write_each<'a>(
    path: &Path,
    writer: &impl Attributed,
    attributes: impl Iterator<Item = (&'a str, &'a Attribute)>,
) -> Result<()> {
    for (name, a) in attributes {
        written(
            name,
            a,
            |t| writer.typed(name, t),
            |json| writer.json(name, json),
        )
        .map_err(in_hdf5(path))?;
    }
    Ok(())
}

/// Writes on the group at `group` of `file`, at `path`, the attributes of
/// the source's group that a copy takes ([`group_attributes`]), of their
/// stored `types` where the source's format keeps them; returns a note
/// for each left out.
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
) -> Result<Vec<String>> {
    let mut notes = Vec::new();
    for (name, value) in crate::carried::group_attributes(attributes) {
        let stored = types.get(&name);
        if let Some(why) = stored.and_then(crate::carried::not_taken) {
            notes.push(format!(
                "attribute `{name}` of group `{group}` is left out: {why}"
            ));
            continue;
        }
        let Some(a) = crate::attribute_json::attribute(&name, &value, &Datatype::String, stored)
        else {
            continue;
        };
        written(
            &name,
            &a,
            |t| file.attribute(group, &name, &t.datatype, &t.shape, elements(&t.values)),
            |json| file.json_attribute(group, &name, json),
        )
        .map_err(in_hdf5(path))?;
    }
    Ok(notes)
}

/// Writes the attributes `source`, of variable records, carries on the
/// dataset (or, columns, the file) of `writer`, in the file at `path`,
/// each of its own type.
///
/// # Errors
/// As [`write`].
pub(crate) fn write_records(
    path: &Path,
    writer: &impl Attributed,
    source: &dyn RecordSource,
) -> Result<()> {
    let carried = source.attributes().into_iter().flat_map(|a| a.iter());
    write_each(path, writer, carried)
}

/// Writes the attributes `source` carries as the file's of the columns
/// `writer`, at `path`: a table's, which the columns layout gives the
/// file, each of its own type.
///
/// # Errors
/// As [`write`].
pub(crate) fn write_table(path: &Path, writer: &ColumnsWriter, source: &dyn Source) -> Result<()> {
    let carried = source.attributes().into_iter().flat_map(|a| a.iter());
    write_each(path, writer, carried)
}

/// Writes the attribute `a` named `name` by `typed`, of its own type,
/// where [`is_typed`] takes it; else, or where the writer refuses it (a
/// `.nc` takes no record, enum or complex attribute), by `json` from its
/// JSON value, as a destination writes a value of no type of its own: a
/// bool as `int8`, a record as its JSON text.
fn written(
    name: &str,
    a: &Attribute,
    typed: impl Fn(&PlannedAttribute) -> ndl_hdf5::Result<()>,
    json: impl Fn(&Value) -> ndl_hdf5::Result<()>,
) -> ndl_hdf5::Result<()> {
    let plan = is_typed(&a.datatype)
        .then(|| planned(name, a, "").ok())
        .flatten();
    if let Some(Ok(())) = plan.as_ref().map(&typed) {
        return Ok(());
    }
    json(&serde_json::to_value(&a.value).unwrap_or(Value::Null))
}

/// Whether attributes of `datatype` are written of their own type:
/// numbers, bools, text, enums and records of them, and arrays of them.
/// (Where netCDF has no such type, the writer refuses it, and the JSON
/// value is written.)
fn is_typed(datatype: &Datatype) -> bool {
    let (element, _) = datatype.innermost();
    match element {
        Datatype::Compound(c) => c.members.iter().all(|m| is_typed(&m.datatype)),
        Datatype::String | Datatype::FixedString(_) | Datatype::Bool | Datatype::Enum(_) => true,
        Datatype::Complex64 | Datatype::Complex128 => true,
        other => crate::create::plan::is_number(other),
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

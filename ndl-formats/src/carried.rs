//! The attributes of one array that a conversion carries to its
//! destination (`units`, `long_name`, CF's others): not the file's
//! bookkeeping, nor what the destination stores its own way or a reading
//! used up.

use std::collections::BTreeMap;

use ndl_runtime::Datatype;
use ndl_runtime::ndl::{Attribute, NameMap};
use serde_json::{Map, Value};

use crate::attribute_json::{attribute, is_hdf5_bookkeeping, is_zarr_bookkeeping};
use crate::options::ReadOptions;
use crate::source::Source;

/// `source` with the attributes of `attributes` (their elements of
/// `types`, where the format keeps them) that a destination takes, save
/// those named in `used`, and `coordinates` unless the array is read as
/// one of a whole file (`options`).
pub(crate) fn with_attributes(
    source: Box<dyn Source>,
    (attributes, types): (&Map<String, Value>, &BTreeMap<String, Datatype>),
    used: &[&str],
    options: &ReadOptions,
) -> Box<dyn Source> {
    carrying(source, attributes, types, |name| {
        is_left_behind(name) || used.contains(&name) || is_alone(name, options)
    })
}

/// `source`, values read as stored, with every attribute of
/// `attributes` but the formats' bookkeeping (and `coordinates` unless
/// the array is read as one of a whole file): its CF encodings
/// (`_FillValue`, `scale_factor`, a time's `units`) come along, for a
/// destination that keeps them as the source does.
pub(crate) fn with_encodings(
    source: Box<dyn Source>,
    (attributes, types): (&Map<String, Value>, &BTreeMap<String, Datatype>),
    options: &ReadOptions,
) -> Box<dyn Source> {
    carrying(source, attributes, types, |name| {
        name == "ndl_fills" || is_alone(name, options)
    })
}

/// Whether `name` is `coordinates` of an array read alone: it names
/// variables that do not come along.
fn is_alone(name: &str, options: &ReadOptions) -> bool {
    name == "coordinates" && !options.whole_file
}

/// `source` with the attributes of `attributes` that are no bookkeeping
/// and not `left`.
fn carrying(
    source: Box<dyn Source>,
    attributes: &Map<String, Value>,
    types: &BTreeMap<String, Datatype>,
    left: impl Fn(&str) -> bool,
) -> Box<dyn Source> {
    let array = source.array_name();
    let (carried, notes) = taken((&array, &source.spec().datatype), (attributes, types), left);
    let notes = [source.notes(), &notes].concat();
    crate::described::described(source, None, carried, notes)
}

/// The attributes of a dataset of variable records that a copy takes, in
/// our model: not the file's bookkeeping, nor the fills the records carry
/// themselves; a note for each left out.
pub(crate) fn records_attributes_taken(
    array: (&str, &Datatype),
    (attributes, types): (&Map<String, Value>, &BTreeMap<String, Datatype>),
) -> (Option<NameMap<Attribute>>, Vec<String>) {
    taken(array, (attributes, types), is_left_behind)
}

/// The attributes of the file or group that holds our records in the
/// columns layout, which a copy of the records takes as theirs (a
/// Parquet file's schema metadata): not the formats' bookkeeping, our
/// `ndl_datatype` among it.
pub(crate) fn table_attributes(
    (attributes, types): (&Map<String, Value>, &BTreeMap<String, Datatype>),
) -> NameMap<Attribute> {
    let (taken, _) = taken(
        ("/", &Datatype::String),
        (attributes, types),
        is_left_behind,
    );
    taken.unwrap_or_default()
}

/// The attributes of the Zarr group `group` that holds our records in the
/// columns layout (see [`table_attributes`]); none for a group another
/// tool wrote, a dataset whose arrays carry their own.
pub(crate) fn zarr_table_attributes(group: &ndl_zarr::GroupInfo) -> NameMap<Attribute> {
    if group.written_datatype().is_none() {
        return NameMap::new();
    }
    let (attributes, types) = crate::attribute_json::from_zarr(group.attributes());
    table_attributes((&attributes, &types))
}

/// The attributes of the array `(name, element)` but those `left` and the
/// formats' bookkeeping, in our model, each of its stored type; a note for
/// each no destination takes.
fn taken(
    (array, element): (&str, &Datatype),
    (attributes, types): (&Map<String, Value>, &BTreeMap<String, Datatype>),
    left: impl Fn(&str) -> bool,
) -> (Option<NameMap<Attribute>>, Vec<String>) {
    let scale = attributes.get("CLASS").and_then(Value::as_str) == Some("DIMENSION_SCALE");
    let (mut carried, mut notes) = (NameMap::new(), Vec::new());
    for (name, value) in attributes {
        if is_bookkeeping(name, value, scale) || left(name) {
            continue;
        }
        if let Some(why) = types.get(name).and_then(not_taken) {
            notes.push(format!(
                "attribute `{name}` of `{array}` is left out: {why}"
            ));
            continue;
        }
        if let Some(a) = attribute(name, value, element, types.get(name)) {
            carried.insert(name.clone(), a);
        }
    }
    ((!carried.is_empty()).then_some(carried), notes)
}

/// Why no destination takes an attribute of `datatype`, if it does not:
/// a reference points into the source file, and no format writes an
/// attribute of variable-length sequences.
pub(crate) fn not_taken(datatype: &Datatype) -> Option<&'static str> {
    match datatype {
        Datatype::ObjRef | Datatype::RegRef(_) => Some("a reference points into the source file"),
        Datatype::Vlen(_) | Datatype::Optional(_) => {
            Some("attributes of variable-length sequences are not written")
        }
        Datatype::Compound(c) => c.members.iter().find_map(|m| not_taken(&m.datatype)),
        Datatype::Array(a) => not_taken(&a.base),
        _ => None,
    }
}

/// The attributes of a group (a file's root) that its copy takes, as
/// JSON: not the file's bookkeeping (netCDF's `_NCProperties`, HDF5's
/// dimension lists, a Zarr store's own).
pub(crate) fn group_attributes(attributes: &Map<String, Value>) -> Map<String, Value> {
    attributes
        .iter()
        .filter(|(name, value)| !is_bookkeeping(name, value, false))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

/// Whether the attribute `name` (of `value`, on a dimension scale where
/// `on_scale`) keeps a format's books, PyTables' `CLASS` included: no
/// destination takes it.
fn is_bookkeeping(name: &str, value: &Value, on_scale: bool) -> bool {
    is_hdf5_bookkeeping(name, value, on_scale) || is_zarr_bookkeeping(name) || name == "CLASS"
}

/// What no destination of decoded values takes beside the formats'
/// bookkeeping: our `ndl_fills`, and a fill (each destination stores one
/// its own way, in the array's type).
fn is_left_behind(name: &str) -> bool {
    matches!(name, "ndl_fills" | "_FillValue")
}

/// The `_FillValue` `source` carries, as one element of its number
/// datatype in native order: what a destination stores as the array's
/// own fill (HDF5's fill value, Zarr's `fill_value`), beside the
/// attribute. `None` where it carries none, or one of another type.
pub(crate) fn fill(source: &dyn Source) -> Option<Vec<u8>> {
    let fill = source.attributes()?.get("_FillValue")?;
    // netCDF and HDF5 hold it as a list of one.
    let value = match &fill.value {
        serde_yaml::Value::Sequence(one) if one.len() == 1 => &one[0],
        one => one,
    };
    element_of(source, value, "_FillValue")
}

/// `value` as one element of `source`'s number datatype in native order;
/// `None` for another datatype, or a value that is none of its (`at`
/// names it in the encoder's error, which is dropped).
fn element_of(source: &dyn Source, value: &serde_yaml::Value, at: &str) -> Option<Vec<u8>> {
    let element = &source.spec().datatype;
    if !crate::create::plan::is_number(element) {
        return None;
    }
    match crate::create::values::encode(value, &[], element, None, at) {
        Ok(crate::create::values::Values::Bytes(bytes)) => Some(bytes),
        _ => None,
    }
}

/// The dataset fill `source`'s storage gives (`storage.fillvalue`: h5py's
/// `fillvalue`, a Zarr array's `fill_value`), where it is a number's: one
/// element in native order. Not a mask: what an element never written
/// reads as.
pub(crate) fn storage_fill(source: &dyn Source) -> Option<Vec<u8>> {
    let value = source.storage()?.fillvalue.as_ref()?;
    element_of(source, value, "fillvalue")
}

//! The attribute `ndl_fills` of a dataset of records: which members are
//! options, and the value standing for their null. HDF5 has no nulls, so
//! a record writer stores an option's fill for `None`; this attribute is
//! what lets a reader without the Rust type give the nulls back.
//!
//! It is a JSON object of text, each member by its dotted path, each fill
//! as [`Column::one_as_text`] writes it: `{"qty": "-1", "venue.name": "?"}`.

use hdf5::types::VarLenUnicode;
use ndl_runtime::Datatype;
use ndl_runtime::record::Column;
use serde_json::{Map, Value};

use crate::record_type::{Node, dotted, variable_compounds};

/// The attribute of a dataset of records that names its options and
/// their fills (see [`records_with_nulls`]).
pub const NDL_FILLS: &str = "ndl_fills";

/// Writes the attribute for the options among `node`'s members (nested
/// records included; options inside lists and arrays are left out), a
/// variable-length UTF-8 string (h5py's `str`); none when there are none.
pub(crate) fn write(dataset: &hdf5::Dataset, node: &Node) -> hdf5::Result<()> {
    let mut fills = Map::new();
    collect(node, "", &mut fills);
    if fills.is_empty() {
        return Ok(());
    }
    let text: VarLenUnicode = Value::Object(fills)
        .to_string()
        .parse()
        .map_err(|e| hdf5::Error::from(format!("`{NDL_FILLS}`: {e}")))?;
    dataset
        .new_attr::<VarLenUnicode>()
        .create(NDL_FILLS)?
        .write_scalar(&text)
}

fn collect(node: &Node, path: &str, out: &mut Map<String, Value>) {
    match node {
        Node::Struct { fields, .. } => {
            for (name, _, field) in fields {
                collect(field, &dotted(path, name), out);
            }
        }
        Node::Optional { fill, .. } => {
            if let Some(text) = fill.one_as_text() {
                out.insert(path.to_string(), Value::String(text));
            }
        }
        _ => {}
    }
}

/// Makes each member the attribute's text `json` names an option of its
/// datatype, in `datatype` and in its column in `template`, with the fill
/// given; with `only_missing`, only options of `template` without a fill
/// take one (a Rust type's own fill wins). Gives what is wrong with the
/// attribute otherwise.
pub(crate) fn apply(
    json: &str,
    datatype: &mut Datatype,
    template: &mut Column,
    only_missing: bool,
) -> Result<(), String> {
    let fills: Map<String, Value> =
        serde_json::from_str(json).map_err(|e| format!("`{NDL_FILLS}` is no JSON object: {e}"))?;
    for (path, text) in &fills {
        let text = text
            .as_str()
            .ok_or_else(|| format!("`{NDL_FILLS}`: the fill of `{path}` is not text"))?;
        let unknown = || format!("`{NDL_FILLS}` names `{path}`, which the records have no member");
        let column = column_at(template, path).ok_or_else(unknown)?;
        match column {
            Column::Nullable { values, fill, .. } => {
                if fill.is_none() || !only_missing {
                    let parsed = Column::parse_one(values, text)
                        .map_err(|e| format!("`{NDL_FILLS}`: the fill of `{path}`: {e}"))?;
                    *fill = Some(Box::new(parsed));
                }
            }
            _ if only_missing => {}
            plain => {
                let parsed = Column::parse_one(plain, text)
                    .map_err(|e| format!("`{NDL_FILLS}`: the fill of `{path}`: {e}"))?;
                *plain = Column::Nullable {
                    validity: Default::default(),
                    values: Box::new(plain.clone()),
                    fill: Some(Box::new(parsed)),
                };
                let member = member_at(datatype, path).ok_or_else(unknown)?;
                *member = Datatype::Optional(Box::new(member.clone()));
            }
        }
    }
    Ok(())
}

/// The records' datatype as the dataset's `ndl_fills` attribute (its
/// text `json`) says it: `datatype`, a compound as the file stores it,
/// with each member it names `optional`, and every compound that then
/// holds one without a layout, as a record type's is. What a reader of the
/// records gives; `None` when the attribute names no member of it.
///
/// ```
/// use ndl_runtime::{Compound, Datatype};
///
/// let stored = Datatype::Compound(Compound::c_layout([("id", Datatype::UInt64), ("qty", Datatype::Int32)]).unwrap());
/// let Some(Datatype::Compound(read)) = ndl_hdf5::records_with_nulls(&stored, r#"{"qty": "-1"}"#) else { panic!() };
/// assert_eq!(read.members[1].datatype, Datatype::Optional(Box::new(Datatype::Int32)));
/// assert_eq!(ndl_hdf5::records_with_nulls(&stored, r#"{"q": "-1"}"#), None);
/// ```
pub fn records_with_nulls(datatype: &Datatype, json: &str) -> Option<Datatype> {
    let fills: Map<String, Value> = serde_json::from_str(json).ok()?;
    let mut out = datatype.clone();
    for path in fills.keys() {
        let member = member_at(&mut out, path)?;
        *member = Datatype::Optional(Box::new(member.clone()));
    }
    Some(variable_compounds(out))
}

/// The column of the member at dotted `path` of a struct column.
fn column_at<'a>(column: &'a mut Column, path: &str) -> Option<&'a mut Column> {
    path.split('.').try_fold(column, |c, name| match c {
        Column::Struct { fields, .. } => fields.iter_mut().find(|(n, _)| n == name).map(|(_, c)| c),
        _ => None,
    })
}

/// The datatype of the member at dotted `path` of a compound.
fn member_at<'a>(datatype: &'a mut Datatype, path: &str) -> Option<&'a mut Datatype> {
    path.split('.').try_fold(datatype, |d, name| match d {
        Datatype::Compound(c) => c
            .members
            .iter_mut()
            .find(|m| m.name == name)
            .map(|m| &mut m.datatype),
        _ => None,
    })
}

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
/// records included, and the items of lists and arrays: `legs.qty` is the
/// `qty` of each item of `legs`), a variable-length UTF-8 string (h5py's
/// `str`); none when there are none.
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
        Node::Vlen(item) | Node::Array { item, .. } => collect(item, path, out),
        _ => {}
    }
}

/// The attribute's fills: each member's dotted path and its fill's text.
pub(crate) struct Fills(Vec<(String, String)>);

impl Fills {
    /// The fills the attribute's text `json` gives, or what is wrong with it.
    pub(crate) fn parse(json: &str) -> Result<Fills, String> {
        let fills: Map<String, Value> = serde_json::from_str(json)
            .map_err(|e| format!("`{NDL_FILLS}` is no JSON object: {e}"))?;
        fills
            .into_iter()
            .map(|(path, text)| match text {
                Value::String(text) => Ok((path, text)),
                _ => Err(format!("`{NDL_FILLS}`: the fill of `{path}` is not text")),
            })
            .collect::<Result<_, _>>()
            .map(Fills)
    }

    /// `datatype`, a compound as the file stores it, with each member
    /// named made `optional`, and every compound that then holds one
    /// without a layout, as a record type's is.
    pub(crate) fn optional(&self, datatype: &Datatype) -> Result<Datatype, String> {
        let mut out = datatype.clone();
        for (path, _) in &self.0 {
            let member = out.member_mut(path).ok_or_else(|| unknown(path))?;
            *member = Datatype::Optional(Box::new(member.clone()));
        }
        Ok(variable_compounds(out))
    }

    /// Gives each option of `template` the attribute names its fill; with
    /// `only_missing`, only those without one (a Rust type's own fill
    /// wins), and members the template does not hold as options are left
    /// as they are.
    pub(crate) fn fill(&self, template: &mut Column, only_missing: bool) -> Result<(), String> {
        for (path, text) in &self.0 {
            let column = template.member_mut(path).ok_or_else(|| unknown(path))?;
            match column {
                Column::Nullable { values, fill, .. } if fill.is_none() || !only_missing => {
                    let parsed = Column::parse_one(values, text)
                        .map_err(|e| format!("`{NDL_FILLS}`: the fill of `{path}`: {e}"))?;
                    *fill = Some(Box::new(parsed));
                }
                _ if only_missing => {}
                _ => return Err(format!("`{NDL_FILLS}` names `{path}`, which is no option")),
            }
        }
        Ok(())
    }
}

fn unknown(path: &str) -> String {
    format!("`{NDL_FILLS}` names `{path}`, which the records have no member")
}

/// The records' datatype as the dataset's `ndl_fills` attribute (its
/// text `json`) says it: `datatype`, a compound as the file stores it,
/// with each member it names `optional`, and every compound that then
/// holds one without a layout, as a record type's is. What a reader of the
/// records gives; `None` when the attribute is damaged or names no member
/// of it.
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
    Fills::parse(json).ok()?.optional(datatype).ok()
}

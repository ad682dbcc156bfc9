//! The arrays a record with variable members is stored in: its fields
//! flattened to leaves (`venue.code`), each fixed-size leaf a column of the
//! record dimension, a string a string array, a list a CF contiguous
//! ragged array.

use base64::Engine as _;
use ndl_runtime::lang::zarr::ZarrFormat;
use ndl_runtime::record::{Column, Values};
use ndl_runtime::schema::describe;
use ndl_runtime::{Datatype, Member};
use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::python_json::float_json;

/// How one leaf field is stored.
#[derive(Clone, Debug)]
pub(super) enum Kind {
    /// A fixed-size value: a column of the record dimension. `fill` is an
    /// option's fill (a one-record column), stored for `None`.
    Fixed {
        datatype: Datatype,
        fill: Option<Column>,
    },
    /// A UTF-8 string: a string array on the record dimension. `fill` is
    /// an option's fill (a one-record column), the array's `fill_value`.
    Text { fill: Option<Column> },
    /// A list: its items back to back on the dimension `<name>_sample`,
    /// numbers (`Some(datatype)`) or strings (`None`), and the count
    /// column `<name>_count`.
    Ragged { items: Option<Datatype> },
}

/// One leaf field: its dotted name and how it is stored.
#[derive(Clone, Debug)]
pub(super) struct Leaf {
    pub name: String,
    pub kind: Kind,
    /// The field's description, its array's `long_name`.
    pub description: Option<String>,
    /// The field's units, its array's `units`.
    pub units: Option<String>,
}

/// The dotted path of the field `field` of the field at `parent` (the
/// record itself when empty).
pub(super) fn dotted(parent: &str, field: &str) -> String {
    if parent.is_empty() {
        field.to_string()
    } else {
        format!("{parent}.{field}")
    }
}

/// The count column of the ragged array `name`.
pub(super) fn count_name(name: &str) -> String {
    format!("{name}_count")
}

/// The dimension of the items of the ragged array `name`.
pub(super) fn sample_dimension(name: &str) -> String {
    format!("{name}_sample")
}

/// The leaves of records of `dt`, whose empty columns are `template` (a
/// [`Column::Struct`]): what each field's values look like, and an
/// option's fill.
pub(super) fn leaves(dt: &Datatype, template: &Column) -> Result<Vec<Leaf>> {
    let mut out = Vec::new();
    walk(("", None), dt, template, &mut out)?;
    Ok(out)
}

fn walk(
    (name, member): (&str, Option<&Member>),
    dt: &Datatype,
    column: &Column,
    out: &mut Vec<Leaf>,
) -> Result<()> {
    let kind = match (dt, column) {
        (Datatype::Compound(c), Column::Struct { fields, .. }) => {
            for (m, (_, field)) in c.members.iter().zip(fields) {
                let path = dotted(name, &m.name);
                walk((&path, Some(m)), &m.datatype, field, out)?;
            }
            return Ok(());
        }
        (Datatype::String, Column::Strings { .. }) => Kind::Text { fill: None },
        (Datatype::Vlen(base), Column::List { values, .. }) => Kind::Ragged {
            items: ragged_items(name, base, values)?,
        },
        (Datatype::Optional(base), Column::Nullable { values, fill, .. }) => {
            let Some(fill) = fill else {
                return Err(refused(format!(
                    "field `{name}` is an Option without a fill, and Zarr has no nulls: add \
                     #[ndl(fill = ...)] to the field (the value stored for None)"
                )));
            };
            if **base == Datatype::String && matches!(**values, Column::Strings { .. }) {
                Kind::Text {
                    fill: Some((**fill).clone()),
                }
            } else if fixed_datatype(base, values).is_none() {
                return Err(refused(format!(
                    "field `{name}` is an option of {}: the columns layout stores options \
                     of fixed-size values and of strings only",
                    describe(base)
                )));
            } else {
                Kind::Fixed {
                    datatype: fixed_datatype(base, values).unwrap_or_else(|| (**base).clone()),
                    fill: Some((**fill).clone()),
                }
            }
        }
        _ => match fixed_datatype(dt, column) {
            Some(datatype) => Kind::Fixed {
                datatype,
                fill: None,
            },
            None => {
                return Err(refused(format!(
                    "field `{name}` of {} has no place in the columns layout",
                    describe(dt)
                )));
            }
        },
    };
    out.push(Leaf {
        name: name.to_string(),
        kind,
        description: member.and_then(|m| m.description.clone()),
        units: member.and_then(|m| m.units.clone()),
    });
    Ok(())
}

impl Leaf {
    /// The array's attributes its field's description and units give:
    /// `long_name` and `units`, as the fixed columns have them.
    pub(super) fn attributes(&self) -> serde_json::Map<String, Value> {
        let mut attributes = serde_json::Map::new();
        if let Some(d) = &self.description {
            attributes.insert("long_name".into(), Value::from(d.as_str()));
        }
        if let Some(u) = &self.units {
            attributes.insert("units".into(), Value::from(u.as_str()));
        }
        attributes
    }
}

/// The items of a ragged array: numbers, or strings.
fn ragged_items(name: &str, base: &Datatype, items: &Column) -> Result<Option<Datatype>> {
    match (base, items) {
        (Datatype::String, Column::Strings { .. }) => Ok(None),
        (_, Column::Values { datatype, .. }) if is_number(datatype) => Ok(Some(datatype.clone())),
        _ => Err(refused(format!(
            "field `{name}` is a vlen of {}: the columns layout stores lists of numbers and \
             of strings",
            describe(base)
        ))),
    }
}

fn is_number(dt: &Datatype) -> bool {
    matches!(
        dt,
        Datatype::Int8
            | Datatype::UInt8
            | Datatype::Int16
            | Datatype::UInt16
            | Datatype::Int32
            | Datatype::UInt32
            | Datatype::Int64
            | Datatype::UInt64
            | Datatype::Float32
            | Datatype::Float64
    )
}

/// The packed datatype of a fixed-size field whose values are `column`.
fn fixed_datatype(dt: &Datatype, column: &Column) -> Option<Datatype> {
    match column {
        Column::Values { datatype, .. } => Some(datatype.clone()),
        Column::Bool(_) => Some(Datatype::Bool),
        Column::Plain { datatype, .. } => Some(datatype.clone()),
        Column::FixedList { values, .. } => {
            fixed_datatype(dt, values)?;
            dt.size().map(|_| dt.clone())
        }
        _ => None,
    }
}

fn refused(message: String) -> Error {
    Error::Unsupported { message }
}

/// The native bytes of a fixed-size column, record after record.
pub(super) fn fixed_bytes(column: &Column) -> Option<Vec<u8>> {
    Some(match column {
        Column::Values { values, .. } => values.as_bytes().to_vec(),
        Column::Bool(bits) => (0..bits.len()).map(|i| u8::from(bits.get(i))).collect(),
        Column::Plain { bytes, .. } => bytes.clone(),
        Column::FixedList { values, .. } => fixed_bytes(values)?,
        Column::Nullable { values, .. } => fixed_bytes(values)?,
        _ => return None,
    })
}

/// A fill, a one-record number column, as a Zarr array's `fill_value` and
/// as the `_FillValue` attribute xarray reads to mask it (in v3 a float's
/// is base64, as xarray writes it): how a store says which values stand
/// for none.
///
/// ```
/// use ndl_runtime::record::{Column, Values};
/// use ndl_runtime::Datatype;
/// use ndl_zarr::{fill_metadata, ZarrFormat};
///
/// let fill = Column::Values { datatype: Datatype::Float64, values: Values::F64(vec![f64::NAN]) };
/// let (fill_value, attribute) = fill_metadata(&fill, ZarrFormat::V3);
/// assert_eq!(fill_value, "NaN");
/// assert_eq!(attribute, "AAAAAAAA+H8=");
/// ```
pub fn fill_metadata(fill: &Column, format: ZarrFormat) -> (Value, Value) {
    (fill_json(fill), fill_attribute(fill, format))
}

/// An option's fill as a Zarr `fill_value` (NaN and infinities as
/// strings, as Zarr's JSON has them).
pub(super) fn fill_json(fill: &Column) -> Value {
    // The columns layout stores a bool as a byte.
    if let Column::Bool(bits) = fill {
        return json!(u8::from(bits.get(0)));
    }
    let Column::Values { values, .. } = fill else {
        return Value::Null;
    };
    match values {
        Values::I8(v) => json!(v.first()),
        Values::I16(v) => json!(v.first()),
        Values::I32(v) => json!(v.first()),
        Values::I64(v) => json!(v.first()),
        Values::U8(v) => json!(v.first()),
        Values::U16(v) => json!(v.first()),
        Values::U32(v) => json!(v.first()),
        Values::U64(v) => json!(v.first()),
        Values::F32(v) => v.first().map_or(Value::Null, |&x| float_json(f64::from(x))),
        Values::F64(v) => v.first().map_or(Value::Null, |&x| float_json(x)),
        _ => Value::Null,
    }
}

/// An option's fill as the `_FillValue` attribute xarray reads: in v3 a
/// float is the base64 of its little-endian `f64` bytes (xarray's
/// `FillValueCoder`, as xarray writes it), else the `fill_value` itself.
pub(super) fn fill_attribute(fill: &Column, format: ZarrFormat) -> Value {
    let float = match fill {
        Column::Values {
            values: Values::F32(v),
            ..
        } => v.first().map(|&x| f64::from(x)),
        Column::Values {
            values: Values::F64(v),
            ..
        } => v.first().copied(),
        _ => None,
    };
    match (format, float) {
        (ZarrFormat::V3, Some(x)) => {
            json!(base64::engine::general_purpose::STANDARD.encode(x.to_le_bytes()))
        }
        _ => fill_json(fill),
    }
}

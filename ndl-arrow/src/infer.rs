//! The datatype of records a file's schema holds: the NDL datatype its
//! metadata keeps, checked against its columns, or else one made of the
//! Arrow types (C layout).

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema};
use ndl_runtime::{Compound, Datatype, Enum, EnumMember, Opaque};

use crate::error::Error;
use crate::options::ReadOptions;
use crate::scatter;
use crate::schema::{DATATYPE_KEY, TYPE_KEY};

/// The datatype of the records of `schema`: the one in its metadata under
/// [`DATATYPE_KEY`] when there is one, else one inferred from the Arrow
/// types, members laid out as a `#[repr(C)]` struct would be.
///
/// # Errors
/// Metadata that is no NDL datatype or does not describe the columns; a
/// column with no fixed-size form (variable-length strings or lists, a
/// dictionary without known members).
///
/// ```
/// use ndl_runtime::{Compound, Datatype};
///
/// let dt = Datatype::Compound(Compound::c_layout([("a", Datatype::UInt8), ("b", Datatype::Float64)])?);
/// let schema = ndl_arrow::schema_of(&dt)?;
/// assert_eq!(ndl_arrow::datatype_of(&schema)?, dt);
/// # Ok::<(), ndl_arrow::Error>(())
/// ```
pub fn datatype_of(schema: &Schema) -> Result<Datatype, Error> {
    let Some(yaml) = schema.metadata().get(DATATYPE_KEY) else {
        let members = schema
            .fields()
            .iter()
            .map(|f| Ok((f.name().clone(), field_datatype(f, f.name())?)))
            .collect::<Result<Vec<_>, Error>>()?;
        return Ok(Datatype::Compound(Compound::c_layout(members)?));
    };
    let metadata = |message: String| Error::Metadata {
        key: DATATYPE_KEY,
        message,
    };
    let dt: Datatype = serde_yaml::from_str(yaml).map_err(|e| metadata(e.to_string()))?;
    dt.validate().map_err(|e| metadata(e.to_string()))?;
    check(&dt, schema, &ReadOptions::default())
        .map_err(|e| metadata(format!("does not describe the columns: {e}")))?;
    Ok(dt)
}

/// Checks that records of `dt` can be read from data of `schema`, before
/// any is read: the names and types of the columns.
pub(crate) fn check(dt: &Datatype, schema: &Schema, options: &ReadOptions) -> Result<(), Error> {
    let plan = crate::batch::plan(dt)?;
    let empty = RecordBatch::new_empty(std::sync::Arc::new(schema.clone()));
    scatter::decode(&plan, dt, &empty, options).map(drop)
}

/// The datatype of one column.
fn field_datatype(field: &Field, path: &str) -> Result<Datatype, Error> {
    if let Some(yaml) = field.metadata().get(TYPE_KEY) {
        if let Ok(dt) = serde_yaml::from_str::<Datatype>(yaml) {
            return Ok(dt);
        }
    }
    let unsupported = |why: &str| Error::schema(path, format!("{} {why}", field.data_type()));
    Ok(match field.data_type() {
        DataType::Int8 => Datatype::Int8,
        DataType::UInt8 => Datatype::UInt8,
        DataType::Int16 => Datatype::Int16,
        DataType::UInt16 => Datatype::UInt16,
        DataType::Int32 => Datatype::Int32,
        DataType::UInt32 => Datatype::UInt32,
        DataType::Int64 => Datatype::Int64,
        DataType::UInt64 => Datatype::UInt64,
        DataType::Float16 => Datatype::Float16,
        DataType::Float32 => Datatype::Float32,
        DataType::Float64 => Datatype::Float64,
        DataType::Boolean => Datatype::Bool,
        DataType::FixedSizeBinary(n) => Datatype::Opaque(Opaque {
            size: usize::try_from(*n).map_err(|_| unsupported("has a negative size"))?,
            tag: None,
        }),
        DataType::FixedSizeList(item, n) => {
            let n = usize::try_from(*n).map_err(|_| unsupported("has a negative size"))?;
            field_datatype(item, path)?.array_of(&[n])
        }
        DataType::Struct(fields) => Datatype::Compound(Compound::c_layout(
            fields
                .iter()
                .map(|f| {
                    Ok((
                        f.name().clone(),
                        field_datatype(f, &format!("{path}.{}", f.name()))?,
                    ))
                })
                .collect::<Result<Vec<_>, Error>>()?,
        )?),
        DataType::Dictionary(_, _) => {
            let members = field
                .metadata()
                .get("_PL_ENUM_VALUES2")
                .and_then(|v| polars_categories(v))
                .ok_or_else(|| {
                    unsupported("has no list of members (an enum's names and values)")
                })?;
            let members = members
                .into_iter()
                .zip(0..)
                .map(|(name, value)| EnumMember::new(name, value))
                .collect();
            Datatype::Enum(Enum::with_inferred_base(members)?)
        }
        DataType::Timestamp(..) | DataType::Duration(_) | DataType::Date32 | DataType::Date64 => {
            Datatype::Time(
                crate::time_type::time_type_of(field.data_type())
                    .ok_or_else(|| unsupported("is time of no NumPy unit"))?,
            )
        }
        _ => {
            return Err(unsupported(
                "has no fixed size, so it has no place in a record",
            ))
        }
    })
}

/// The names in polars' enum metadata: each a byte length, `;`, the name.
fn polars_categories(mut text: &str) -> Option<Vec<String>> {
    let mut names = Vec::new();
    while !text.is_empty() {
        let (len, rest) = text.split_once(';')?;
        let len: usize = len.parse().ok()?;
        names.push(rest.get(..len)?.to_owned());
        text = &rest[len..];
    }
    Some(names)
}

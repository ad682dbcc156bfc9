//! The Arrow schema of variable records, made from the shape of their
//! columns (`T::Columns` of no records) and, for descriptions and units,
//! their datatype.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema};
use ndl_runtime::record::{self, Column};
use ndl_runtime::{Datatype, Member, Record, ndl};

use crate::error::Error;
use crate::schema::{
    DATATYPE_KEY, ITEM, POLARS_ENUM_KEY, TYPE_KEY, VALUE_COLUMN, data_type_of,
    insert_member_metadata, polars_categories, primitive, says_it_all,
};

/// The columns of no records of `T`: the shape every batch of `T` has.
pub(crate) fn template<T: Record>() -> Column {
    record::columns::<T>(&[])
}

/// The top-level columns of records: a struct's fields, or the records
/// themselves as [`VALUE_COLUMN`].
pub(crate) fn top_columns(column: &Column) -> Vec<(&str, &Column)> {
    match column {
        Column::Struct { fields, .. } => fields.iter().map(|(n, c)| (n.as_str(), c)).collect(),
        other => vec![(VALUE_COLUMN, other)],
    }
}

/// The schema of `T`'s records; its metadata keeps `T`'s datatype under
/// [`DATATYPE_KEY`].
pub(crate) fn schema<T: Record>() -> Result<Schema, Error> {
    columns_schema(&T::datatype(), &template::<T>())
}

/// The schema of records of `datatype` held in columns of the shape of
/// `template` ([`Column::template`] of the datatype, or a record type's
/// columns): `Utf8` for strings, `List` for `vlen`, nullable fields for
/// `optional` members only. Its metadata keeps the datatype under
/// [`DATATYPE_KEY`], so that reading the file back gives it exactly.
///
/// # Errors
/// A column with no Arrow form (an option of an option, an array too
/// long), named.
pub fn columns_schema(datatype: &Datatype, template: &Column) -> Result<Schema, Error> {
    let fields = top_columns(template)
        .into_iter()
        .map(|(name, column)| field(name, column, member(Some(datatype), name), name))
        .collect::<Result<Vec<_>, _>>()?;
    let metadata = HashMap::from([(DATATYPE_KEY.to_owned(), ndl::datatype_to_yaml(datatype))]);
    Ok(Schema::new_with_metadata(fields, metadata))
}

/// The member `name` of a compound datatype.
fn member<'a>(dt: Option<&'a Datatype>, name: &str) -> Option<&'a Member> {
    match dt? {
        Datatype::Compound(c) => c.member(name),
        _ => None,
    }
}

/// The field of `column`, named `name`, at `path`.
fn field(name: &str, column: &Column, member: Option<&Member>, path: &str) -> Result<Field, Error> {
    let data_type = data_type(column, member.map(|m| &m.datatype), path)?;
    let mut metadata = leaf_metadata(column);
    if let Some(m) = member {
        insert_member_metadata(&mut metadata, m);
    }
    Ok(Field::new(name, data_type, nullable(column)).with_metadata(metadata))
}

/// Whether values of `column` may be null: an `Option`'s, and time's
/// (NaT), as in plain records.
pub(crate) fn nullable(column: &Column) -> bool {
    matches!(
        column,
        Column::Nullable { .. }
            | Column::Values {
                datatype: Datatype::Time(_),
                ..
            }
    )
}

/// What the Arrow type of a plain value does not say (an enum's values,
/// a time's NumPy unit), as plain records keep it; and polars' list of
/// an enum's names.
fn leaf_metadata(column: &Column) -> HashMap<String, String> {
    let column = match column {
        Column::Nullable { values, .. } => values,
        other => other,
    };
    let mut metadata = HashMap::new();
    let (Column::Values { datatype, .. } | Column::Plain { datatype, .. }) = column else {
        return metadata;
    };
    if !says_it_all(datatype) {
        metadata.insert(
            TYPE_KEY.to_owned(),
            ndl::datatype_to_yaml(datatype).trim_end().to_owned(),
        );
    }
    if let Datatype::Enum(e) = datatype {
        metadata.insert(POLARS_ENUM_KEY.to_owned(), polars_categories(e));
    }
    metadata
}

/// The Arrow type of `column`, whose datatype (for members' metadata) is
/// `dt` if known.
pub(crate) fn data_type(
    column: &Column,
    dt: Option<&Datatype>,
    path: &str,
) -> Result<DataType, Error> {
    Ok(match column {
        Column::Values { datatype, .. } => match primitive(datatype) {
            Some(t) => t,
            None => data_type_of(datatype, path)?,
        },
        Column::Bool(_) => DataType::Boolean,
        Column::Plain { datatype, .. } => data_type_of(datatype, path)?,
        Column::Strings { .. } => DataType::Utf8,
        Column::List { values, .. } => DataType::List(item(values, item_datatype(dt), path)?),
        Column::FixedList { size, values } => {
            let size = i32::try_from(*size)
                .map_err(|_| Error::schema(path, "an array too long for Arrow"))?;
            DataType::FixedSizeList(item(values, item_datatype(dt), path)?, size)
        }
        Column::Struct { fields, .. } => DataType::Struct(
            fields
                .iter()
                .map(|(name, c)| field(name, c, member(dt, name), &format!("{path}.{name}")))
                .collect::<Result<Fields, _>>()?,
        ),
        Column::Nullable { values, .. } => {
            if let Column::Nullable { .. } = values.as_ref() {
                return Err(Error::Unsupported {
                    column: path.to_owned(),
                    datatype: "an `Option` of an `Option` (Arrow has one null per value)"
                        .to_owned(),
                });
            }
            let inner = match dt {
                Some(Datatype::Optional(inner)) => Some(inner.as_ref()),
                _ => None,
            };
            data_type(values, inner, path)?
        }
        _ => {
            return Err(Error::Unsupported {
                column: path.to_owned(),
                datatype: "a kind of column this version of ndl-arrow does not know".to_owned(),
            });
        }
    })
}

/// The datatype of the items of a list or array datatype.
fn item_datatype(dt: Option<&Datatype>) -> Option<&Datatype> {
    match dt? {
        Datatype::Vlen(inner) => Some(inner),
        Datatype::Array(a) if a.shape.len() == 1 => Some(&a.base),
        _ => None,
    }
}

/// The item field of a list of `values`.
fn item(values: &Column, dt: Option<&Datatype>, path: &str) -> Result<Arc<Field>, Error> {
    let t = data_type(values, dt, path)?;
    Ok(Arc::new(
        Field::new(ITEM, t, nullable(values)).with_metadata(leaf_metadata(values)),
    ))
}

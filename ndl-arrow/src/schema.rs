//! The Arrow form of a datatype: the schema every reader sees, and the
//! metadata that lets the exact datatype come back.
//!
//! The mapping (also the table of `docs/arrow-mapping.md`):
//! - integers, floats, `bool` and `float16` are the Arrow primitives of the
//!   same name;
//! - `complex64`/`complex128` are `Struct{re, im}` of `Float32`/`Float64`:
//!   named parts say which is which, and pyarrow, polars and DuckDB all
//!   read a struct, whereas a `FixedSizeList(2)` would look exactly like a
//!   two-element array member;
//! - a compound is a `Struct`, an array a `FixedSizeList` per dimension
//!   (outermost first);
//! - a fixed string is `Utf8`, trailing NULs trimmed;
//! - opaque data is `FixedSizeBinary`;
//! - an enum is `Dictionary(UInt8|UInt16|UInt32, Utf8)` of its member names,
//!   never a `Union`, which polars, DuckDB and Parquet refuse;
//! - time (`datetime64`, `timedelta64`) is `Timestamp(unit, None)` or
//!   `Duration(unit)`, in the coarsest Arrow unit dividing the NumPy unit
//!   (see the `time` module), NaT as null.
//!
//! Only time columns are nullable (NaT); every other record field has a
//! value.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema};
use ndl_runtime::{ByteOrder, Datatype, Enum, Member, ndl};

use crate::error::Error;
use crate::time_type;

/// The schema metadata key of the whole NDL datatype (its YAML), which
/// makes the records' exact layout (offsets, record size, enum values)
/// come back from a file.
pub const DATATYPE_KEY: &str = "ndl.datatype";
/// The schema metadata key of the byte order (`little` or `big`) the
/// records had when a file was written from bytes (by
/// [`ParquetRecordWriter`](crate::ParquetRecordWriter) or
/// [`IpcRecordWriter`](crate::IpcRecordWriter)), so that a conversion back
/// can restore it. Arrow data itself is always little-endian.
pub const BYTE_ORDER_KEY: &str = "ndl.byte_order";
/// The field metadata key of a column's own NDL datatype (its YAML), where
/// the Arrow type does not say it all: enums (base and member values),
/// complex numbers, fixed strings (length and charset), opaque tags.
pub const TYPE_KEY: &str = "ndl.type";
/// The field metadata key of a member's description.
pub const DESCRIPTION_KEY: &str = "description";
/// The field metadata key of a member's units.
pub const UNITS_KEY: &str = "units";
/// The field metadata key of an array member's dimension names,
/// comma-separated.
pub const DIMS_KEY: &str = "dims";
/// The one column of records that are not compounds.
pub const VALUE_COLUMN: &str = "value";
/// The name of the child field of every `FixedSizeList`, as pyarrow names it.
pub const ITEM: &str = "item";
/// polars' field metadata of an `Enum`'s categories: with it polars reads
/// the dictionary column as an `Enum` rather than a `Categorical`.
pub(crate) const POLARS_ENUM_KEY: &str = "_PL_ENUM_VALUES2";

/// The Arrow schema of records of `dt`: a compound's members are the
/// columns; any other datatype is one column, [`VALUE_COLUMN`].
///
/// The schema metadata holds the whole datatype under [`DATATYPE_KEY`].
///
/// ```
/// use arrow_schema::DataType;
/// use ndl_runtime::{Compound, Datatype};
///
/// let dt = Datatype::Compound(Compound::c_layout([
///     ("id", Datatype::UInt32),
///     ("xy", Datatype::Float32.array_of(&[2])),
/// ])?);
/// let schema = ndl_arrow::schema_of(&dt)?;
/// assert_eq!(schema.field(0).data_type(), &DataType::UInt32);
/// assert!(matches!(schema.field(1).data_type(), DataType::FixedSizeList(_, 2)));
/// assert!(schema.metadata().contains_key(ndl_arrow::DATATYPE_KEY));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn schema_of(dt: &Datatype) -> Result<Schema, Error> {
    dt.validate()?;
    let fields = columns(dt)
        .into_iter()
        .map(|(name, dt, member)| field_of(name, dt, member, name))
        .collect::<Result<Vec<_>, _>>()?;
    let metadata = HashMap::from([(DATATYPE_KEY.to_owned(), ndl::datatype_to_yaml(dt))]);
    Ok(Schema::new_with_metadata(fields, metadata))
}

/// [`schema_of`] with the records' byte order in the metadata, under
/// [`BYTE_ORDER_KEY`].
pub(crate) fn schema_with_order(dt: &Datatype, order: ByteOrder) -> Result<Schema, Error> {
    let schema = schema_of(dt)?;
    let mut metadata = schema.metadata().clone();
    metadata.insert(BYTE_ORDER_KEY.to_owned(), order.name().to_owned());
    Ok(schema.with_metadata(metadata))
}

/// The byte order a schema's metadata says the records had, if it says.
pub(crate) fn stored_byte_order(schema: &Schema) -> Option<ByteOrder> {
    schema
        .metadata()
        .get(BYTE_ORDER_KEY)
        .and_then(|name| ByteOrder::from_name(name))
}

/// The columns of records of `dt`: its members, or `dt` itself as
/// [`VALUE_COLUMN`].
pub(crate) fn columns(dt: &Datatype) -> Vec<(&str, &Datatype, Option<&Member>)> {
    match dt {
        Datatype::Compound(c) => c
            .members
            .iter()
            .map(|m| (m.name.as_str(), &m.datatype, Some(m)))
            .collect(),
        other => vec![(VALUE_COLUMN, other, None)],
    }
}

/// A member's description, units and dimension names, as field metadata.
pub(crate) fn insert_member_metadata(metadata: &mut HashMap<String, String>, m: &Member) {
    if let Some(d) = &m.description {
        metadata.insert(DESCRIPTION_KEY.to_owned(), d.clone());
    }
    if let Some(u) = &m.units {
        metadata.insert(UNITS_KEY.to_owned(), u.clone());
    }
    if !m.dims.is_empty() {
        metadata.insert(DIMS_KEY.to_owned(), m.dims.join(","));
    }
}

/// The field of a member (or of the value column), its metadata included.
fn field_of(
    name: &str,
    dt: &Datatype,
    member: Option<&Member>,
    path: &str,
) -> Result<Field, Error> {
    let mut metadata = HashMap::new();
    if !says_it_all(dt) {
        metadata.insert(
            TYPE_KEY.to_owned(),
            ndl::datatype_to_yaml(dt).trim_end().to_owned(),
        );
    }
    if let Datatype::Enum(e) = dt {
        metadata.insert(POLARS_ENUM_KEY.to_owned(), polars_categories(e));
    }
    if let Some(m) = member {
        insert_member_metadata(&mut metadata, m);
    }
    let nullable = matches!(dt, Datatype::Time(_));
    Ok(Field::new(name, data_type_of(dt, path)?, nullable).with_metadata(metadata))
}

/// Whether the Arrow type alone gives back `dt`.
pub(crate) fn says_it_all(dt: &Datatype) -> bool {
    match dt {
        Datatype::Time(t) => time_type::says_it_all(*t),
        _ => {
            dt.as_int().is_some()
                || matches!(
                    dt,
                    Datatype::Float16 | Datatype::Float32 | Datatype::Float64 | Datatype::Bool
                )
        }
    }
}

/// polars' spelling of an enum's categories: each name's byte length, `;`,
/// the name.
pub(crate) fn polars_categories(e: &Enum) -> String {
    e.members
        .iter()
        .map(|m| format!("{};{}", m.name.len(), m.name))
        .collect()
}

/// The Arrow type of values of `dt`, the column at `path`.
pub(crate) fn data_type_of(dt: &Datatype, path: &str) -> Result<DataType, Error> {
    if let Some(t) = primitive(dt) {
        return Ok(t);
    }
    Ok(match dt {
        Datatype::Complex64 => complex(DataType::Float32),
        Datatype::Complex128 => complex(DataType::Float64),
        Datatype::FixedString(_) => DataType::Utf8,
        Datatype::Opaque(o) => DataType::FixedSizeBinary(
            i32::try_from(o.size)
                .map_err(|_| Error::schema(path, "opaque data too long for Arrow"))?,
        ),
        Datatype::Enum(e) => {
            DataType::Dictionary(Box::new(dictionary_key(e)), Box::new(DataType::Utf8))
        }
        Datatype::Time(t) => time_type::data_type(*t, path)?,
        Datatype::Compound(c) => DataType::Struct(
            c.members
                .iter()
                .map(|m| field_of(&m.name, &m.datatype, Some(m), &format!("{path}.{}", m.name)))
                .collect::<Result<Fields, _>>()?,
        ),
        Datatype::Array(a) => {
            let mut t = data_type_of(&a.base, path)?;
            for &d in a.shape.iter().rev() {
                let d = i32::try_from(d)
                    .map_err(|_| Error::schema(path, "array dimension too long for Arrow"))?;
                t = DataType::FixedSizeList(item(t), d);
            }
            t
        }
        other => {
            return Err(Error::Unsupported {
                column: path.to_owned(),
                datatype: ndl::datatype_to_yaml(other).trim_end().to_owned(),
            });
        }
    })
}

/// The item field of a list of values of type `t`: nullable for time
/// (NaT), as its column would be.
pub(crate) fn item(t: DataType) -> Arc<Field> {
    let nullable = matches!(t, DataType::Timestamp(..) | DataType::Duration(_));
    Arc::new(Field::new(ITEM, t, nullable))
}

/// The Arrow primitive of a number or bool datatype.
pub(crate) fn primitive(dt: &Datatype) -> Option<DataType> {
    Some(match dt {
        Datatype::Int8 => DataType::Int8,
        Datatype::UInt8 => DataType::UInt8,
        Datatype::Int16 => DataType::Int16,
        Datatype::UInt16 => DataType::UInt16,
        Datatype::Int32 => DataType::Int32,
        Datatype::UInt32 => DataType::UInt32,
        Datatype::Int64 => DataType::Int64,
        Datatype::UInt64 => DataType::UInt64,
        Datatype::Float16 => DataType::Float16,
        Datatype::Float32 => DataType::Float32,
        Datatype::Float64 => DataType::Float64,
        Datatype::Bool => DataType::Boolean,
        _ => return None,
    })
}

/// The names of a complex number's parts.
pub(crate) const COMPLEX_PARTS: [&str; 2] = ["re", "im"];

fn complex(part: DataType) -> DataType {
    DataType::Struct(
        COMPLEX_PARTS
            .iter()
            .map(|name| Field::new(*name, part.clone(), false))
            .collect(),
    )
}

/// The smallest unsigned key type indexing every member. Unsigned, as
/// polars writes its own enums: polars 2.1 panics ("not implemented") on a
/// Parquet enum nested in a struct whose keys are signed, while pyarrow,
/// pandas and DuckDB take either.
pub(crate) fn dictionary_key(e: &Enum) -> DataType {
    match e.members.len() {
        0..=256 => DataType::UInt8,
        257..=65536 => DataType::UInt16,
        _ => DataType::UInt32,
    }
}

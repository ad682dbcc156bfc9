//! The datatype of records a file's schema holds: the NDL datatype its
//! metadata keeps, checked against its columns, or else one made of the
//! Arrow types (C layout).

use std::path::Path;

use arrow_array::RecordBatch;
use arrow_ipc::reader::{FileReader, StreamReader};
use arrow_schema::{DataType, Field, FieldRef, Schema};
use ndl_runtime::{Compound, Datatype, Enum, EnumMember, Member, Opaque};

use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::error::Error;
use crate::ipc_check::Layout;
use crate::nulls::Nulls;
use crate::options::ReadOptions;
use crate::scatter;
use crate::schema::{DATATYPE_KEY, DESCRIPTION_KEY, DIMS_KEY, TYPE_KEY, UNITS_KEY};

/// The datatype of the records of `schema`: the one in its metadata under
/// [`DATATYPE_KEY`] when there is one, else one inferred from the Arrow
/// types, members laid out as a `#[repr(C)]` struct would be when every
/// column has a fixed size, else a variable compound. Every Arrow type
/// has a description (strings as `string`, lists and binaries as `vlen`,
/// decimals and times of day as tagged opaque bytes: the crate's README
/// lists them all).
///
/// # Errors
/// Metadata that is no NDL datatype or does not describe the columns;
/// fields of one struct that share a name.
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
        return struct_datatype(schema.fields().iter().map(|f| &**f), &[]);
    };
    let metadata = |message: String| Error::Metadata {
        key: DATATYPE_KEY,
        message,
    };
    let dt: Datatype = serde_yaml::from_str(yaml).map_err(|e| metadata(e.to_string()))?;
    dt.validate().map_err(|e| metadata(e.to_string()))?;
    // Fixed-size records are read as bytes, whose plan checks the columns
    // here; variable ones only by a typed reader, which checks them itself.
    if dt.size().is_some() {
        check(&dt, schema, &ReadOptions::default())
            .map_err(|e| metadata(format!("does not describe the columns: {e}")))?;
    }
    Ok(dt)
}

/// The datatype of the records of the Parquet file at `path` and their
/// number, from its footer: a description even of columns that have no
/// fixed-size form (strings, lists, maps), which reading records as
/// bytes refuses. A file without an NDL datatype in its metadata has
/// `optional` columns (and struct fields, and list items) where the data
/// holds nulls (not wherever the nullable flag is set, as pyarrow sets
/// it on every field): a plain column's nulls are those the statistics
/// of every row group count, the others' are counted from the data.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("t.parquet");
/// ndl_arrow::write_parquet(&path, &[1.5f64, 2.5])?;
/// let (dt, rows) = ndl_arrow::describe_parquet(&path)?;
/// assert_eq!(rows, 2);
/// assert_eq!(dt, ndl_runtime::Datatype::Float64);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn describe_parquet(path: &Path) -> Result<(Datatype, u64), Error> {
    parquet_described(path).map_err(Error::in_file(path))
}

fn parquet_described(path: &Path) -> Result<(Datatype, u64), Error> {
    let builder = ParquetRecordBatchReaderBuilder::try_new(crate::file::open(path)?)
        .map_err(Error::parquet("reading the footer"))?;
    let rows = builder.metadata().file_metadata().num_rows();
    let rows = u64::try_from(rows).map_err(|_| Error::Corrupt {
        message: format!("the footer says the file has {rows} rows"),
    })?;
    let schema = intervals_as_bytes(builder.metadata(), builder.schema());
    let dt = match schema.metadata().contains_key(DATATYPE_KEY) {
        true => datatype_of(&schema)?,
        false => {
            let nulls = crate::nulls::parquet(builder)?;
            inferred(&schema, &nulls)?
        }
    };
    Ok((dt, rows))
}

/// `schema` with each column that is a Parquet `INTERVAL` (months, days,
/// milliseconds) as the 12 bytes pyarrow reads it as: the parquet crate
/// reads it as Arrow's `day_time_interval`, which has no months.
fn intervals_as_bytes(
    metadata: &parquet::file::metadata::ParquetMetaData,
    schema: &arrow_schema::SchemaRef,
) -> arrow_schema::SchemaRef {
    let intervals: Vec<String> = metadata
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .filter(|c| c.converted_type() == parquet::basic::ConvertedType::INTERVAL)
        .map(|c| c.path().string())
        .collect();
    if intervals.is_empty() {
        return schema.clone();
    }
    let fields: Vec<FieldRef> = schema
        .fields()
        .iter()
        .map(|f| match intervals.contains(f.name()) {
            true => std::sync::Arc::new(
                Field::new(f.name(), DataType::FixedSizeBinary(12), f.is_nullable())
                    .with_metadata(f.metadata().clone()),
            ),
            false => f.clone(),
        })
        .collect();
    std::sync::Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// The datatype of the records of the Arrow IPC file or stream at `path`
/// and their number, from its schema and its batches' headers (see
/// [`describe_parquet`]); a file without an NDL datatype in its metadata
/// whose fields may be null has its batches read, for their nulls.
pub fn describe_ipc(path: &Path) -> Result<(Datatype, u64), Error> {
    ipc_described(path).map_err(Error::in_file(path))
}

fn ipc_described(path: &Path) -> Result<(Datatype, u64), Error> {
    let (file, layout, rows) = crate::ipc_check::open_checked(path)?;
    let arrow = || Error::arrow("reading the schema");
    let schema = match layout {
        Layout::File => FileReader::try_new(file, None).map_err(arrow())?.schema(),
        Layout::Stream => StreamReader::try_new(file, None).map_err(arrow())?.schema(),
    };
    if schema.metadata().contains_key(DATATYPE_KEY) {
        return Ok((datatype_of(&schema)?, rows));
    }
    let nulls = crate::nulls::ipc(path)?;
    Ok((inferred(&schema, &nulls)?, rows))
}

/// The datatype of the records of `schema`, which has no NDL datatype in
/// its metadata: a nullable column (or struct field, or list item) where
/// `nulls` saw a null is `optional`.
fn inferred(schema: &Schema, nulls: &[Nulls]) -> Result<Datatype, Error> {
    struct_datatype(schema.fields().iter().map(|f| &**f), nulls)
}

/// Checks that records of `dt` can be read from data of `schema`, before
/// any is read: the names and types of the columns.
pub(crate) fn check(dt: &Datatype, schema: &Schema, options: &ReadOptions) -> Result<(), Error> {
    unreadable_as_bytes(dt, schema.fields(), "")?;
    let plan = crate::raw_batch::plan(dt)?;
    let empty = RecordBatch::new_empty(std::sync::Arc::new(schema.clone()));
    scatter::decode(&plan, dt, &empty, options).map(drop)
}

/// Refuses, naming the first, members of `dt` that records read as bytes
/// cannot hold: those without a fixed size (strings, lists, maps) and
/// those described only as tagged bytes (decimals, times of day,
/// intervals), as [`datatype_of`] describes such columns.
fn unreadable_as_bytes(dt: &Datatype, fields: &[FieldRef], at: &str) -> Result<(), Error> {
    let Datatype::Compound(c) = dt else {
        return Ok(());
    };
    for m in &c.members {
        let column = if at.is_empty() {
            m.name.clone()
        } else {
            format!("{at}.{}", m.name)
        };
        let arrow = fields.iter().find(|f| f.name() == &m.name);
        let arrow_type = arrow.map_or_else(
            || ndl_runtime::schema::describe(&m.datatype),
            |f| f.data_type().to_string(),
        );
        if m.datatype.size().is_none() {
            return Err(Error::schema(
                &column,
                format!("{arrow_type} has no fixed size, so it has no place in a record"),
            ));
        }
        if let Datatype::Opaque(Opaque { tag: Some(tag), .. }) = &m.datatype
            && tag.starts_with("arrow:")
        {
            return Err(Error::schema(
                &column,
                format!(
                    "{arrow_type} has no NumPy form (NDL describes it as opaque bytes tagged `{tag}`), so it has no place in a record"
                ),
            ));
        }
        if let Some(DataType::Struct(inner)) = arrow.map(|f| f.data_type()) {
            unreadable_as_bytes(&m.datatype, inner, &column)?;
        }
    }
    Ok(())
}

/// The datatype of one column: every Arrow type has one (see the
/// crate's README, "Describing Arrow types"). The nullable flag alone
/// does not make it `optional`: pyarrow, polars and DuckDB set it on
/// every field whether or not the column holds a null. A nullable column
/// is `optional` where `nulls` (what the data holds) saw a null, unless
/// it is a time, whose null is NaT.
fn field_datatype(field: &Field, nulls: Option<&Nulls>) -> Result<Datatype, Error> {
    let dt = value_datatype(field, nulls)?;
    let optional = field.is_nullable()
        && nulls.is_some_and(|n| n.here)
        && !matches!(dt, Datatype::Time(_) | Datatype::Optional(_));
    Ok(match optional {
        true => Datatype::Optional(Box::new(dt)),
        false => dt,
    })
}

/// The datatype of the values of one column, nulls aside.
fn value_datatype(field: &Field, nulls: Option<&Nulls>) -> Result<Datatype, Error> {
    if let Some(yaml) = field.metadata().get(TYPE_KEY)
        && let Ok(dt) = serde_yaml::from_str::<Datatype>(yaml)
    {
        return Ok(dt);
    }
    if let DataType::Dictionary(_, values) = field.data_type() {
        let Some(members) = field
            .metadata()
            .get("_PL_ENUM_VALUES2")
            .and_then(|v| polars_categories(v))
        else {
            // A dictionary's members are its values, whatever their codes.
            return type_datatype(values, nulls);
        };
        let members = members
            .into_iter()
            .zip(0..)
            .map(|(name, value)| EnumMember::new(name, value))
            .collect();
        return Ok(Datatype::Enum(Enum::with_inferred_base(members)?));
    }
    type_datatype(field.data_type(), nulls)
}

/// The datatype of values of Arrow type `dt`, whose children's nulls are
/// those of `nulls`.
fn type_datatype(dt: &DataType, nulls: Option<&Nulls>) -> Result<Datatype, Error> {
    let item = nulls.and_then(|n| n.children.first());
    let size = |n: i32| usize::try_from(n).unwrap_or(0);
    Ok(match dt {
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
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Datatype::String,
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            Datatype::Vlen(Box::new(Datatype::UInt8))
        }
        DataType::FixedSizeBinary(n) => Datatype::Opaque(Opaque {
            size: size(*n),
            tag: None,
        }),
        DataType::List(field)
        | DataType::LargeList(field)
        | DataType::ListView(field)
        | DataType::LargeListView(field) => Datatype::Vlen(Box::new(field_datatype(field, item)?)),
        // An array's items are no `optional`: every format holds them
        // plain.
        DataType::FixedSizeList(field, n) => field_datatype(field, None)?.array_of(&[size(*n)]),
        DataType::Struct(fields) => {
            let children = nulls.map_or(&[][..], |n| &n.children);
            struct_datatype(fields.iter().map(|f| &**f), children)?
        }
        // A map is a list of its entries, each a `{key, value}` struct.
        DataType::Map(entries, _) => Datatype::Vlen(Box::new(field_datatype(entries, item)?)),
        DataType::Dictionary(_, values) => type_datatype(values, nulls)?,
        DataType::RunEndEncoded(_, values) => field_datatype(values, None)?,
        DataType::Timestamp(..) | DataType::Duration(_) | DataType::Date32 | DataType::Date64 => {
            crate::time_type::time_type_of(dt)
                .map(Datatype::Time)
                .unwrap_or_else(|| tagged(dt))
        }
        other => tagged(other),
    })
}

/// A compound of `fields`, laid out as a `#[repr(C)]` struct when every
/// member has a fixed size, else without layout (a variable compound);
/// `nulls` are those of the fields, in order (none when empty).
fn struct_datatype<'a>(
    fields: impl Iterator<Item = &'a Field>,
    nulls: &[Nulls],
) -> Result<Datatype, Error> {
    let fields: Vec<&Field> = fields.collect();
    let members = fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let dt = field_datatype(f, nulls.get(i))?;
            Ok(Member::new(f.name().clone(), 0, dt))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let mut compound = if members.iter().any(|m| m.datatype.size().is_none()) {
        Compound::variable(members)?
    } else {
        Compound::c_layout(members.into_iter().map(|m| (m.name, m.datatype)))?
    };
    for (member, field) in compound.members.iter_mut().zip(fields) {
        annotate(member, field);
    }
    Ok(Datatype::Compound(compound))
}

/// Gives `member` the description, units and dimension names the
/// metadata of `field` holds, as ours write them (and as others write
/// `units` and `description`).
fn annotate(member: &mut Member, field: &Field) {
    let metadata = field.metadata();
    member.description = metadata.get(DESCRIPTION_KEY).cloned();
    member.units = metadata.get(UNITS_KEY).cloned();
    if let Some(dims) = metadata.get(DIMS_KEY) {
        member.dims = dims.split(',').map(str::to_string).collect();
    }
}

/// An Arrow type with no NDL or NumPy counterpart (decimals, times of
/// day, intervals, nulls, unions): opaque bytes of its width in Arrow
/// memory (0 when it has none), tagged `arrow:` and the type as pyarrow
/// names it (`arrow:decimal128(10, 2)`, `arrow:time64[us]`).
fn tagged(dt: &DataType) -> Datatype {
    Datatype::Opaque(Opaque {
        size: dt.primitive_width().unwrap_or(0),
        tag: Some(format!("arrow:{}", pyarrow_name(dt))),
    })
}

/// The name pyarrow's `str()` gives the type, for the types [`tagged`]
/// describes; Arrow's own display for any other.
fn pyarrow_name(dt: &DataType) -> String {
    use arrow_schema::{IntervalUnit, TimeUnit};
    let unit = |u: &TimeUnit| match u {
        TimeUnit::Second => "s",
        TimeUnit::Millisecond => "ms",
        TimeUnit::Microsecond => "us",
        TimeUnit::Nanosecond => "ns",
    };
    match dt {
        DataType::Null => "null".into(),
        DataType::Decimal32(p, s) => format!("decimal32({p}, {s})"),
        DataType::Decimal64(p, s) => format!("decimal64({p}, {s})"),
        DataType::Decimal128(p, s) => format!("decimal128({p}, {s})"),
        DataType::Decimal256(p, s) => format!("decimal256({p}, {s})"),
        DataType::Time32(u) => format!("time32[{}]", unit(u)),
        DataType::Time64(u) => format!("time64[{}]", unit(u)),
        DataType::Timestamp(u, None) => format!("timestamp[{}]", unit(u)),
        DataType::Timestamp(u, Some(tz)) => format!("timestamp[{}, tz={tz}]", unit(u)),
        DataType::Duration(u) => format!("duration[{}]", unit(u)),
        DataType::Date32 => "date32[day]".into(),
        DataType::Date64 => "date64[ms]".into(),
        DataType::Interval(IntervalUnit::YearMonth) => "month_interval".into(),
        DataType::Interval(IntervalUnit::DayTime) => "day_time_interval".into(),
        DataType::Interval(IntervalUnit::MonthDayNano) => "month_day_nano_interval".into(),
        other => other.to_string(),
    }
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

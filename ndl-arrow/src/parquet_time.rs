//! Parquet has no timestamp of seconds: the parquet crate writes an Arrow
//! `Timestamp(Second)` as a bare `INT64`, which pyarrow, polars and DuckDB
//! read as plain integers. So a Parquet file gets such columns as
//! `Timestamp(Millisecond)`, the counts times 1000, exactly (as pyarrow's
//! own writer does); the field's `ndl.type` and the schema's
//! `ndl.datatype` keep the unit the records have, and reading converts
//! back exactly.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{TimestampMillisecondType, TimestampSecondType};
use arrow_array::{Array, ArrayRef, FixedSizeListArray, PrimitiveArray, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, FieldRef, Fields, Schema, SchemaRef, TimeUnit};
use ndl_runtime::time::{BaseUnit, NumpyTimeUnit};
use ndl_runtime::{ndl, Datatype, TimeType};

use crate::error::Error;
use crate::schema::TYPE_KEY;

/// `schema` as a Parquet file holds it: seconds as milliseconds.
pub(crate) fn schema(schema: SchemaRef) -> SchemaRef {
    if !schema.fields().iter().any(|f| has_seconds(f.data_type())) {
        return schema;
    }
    let fields: Fields = schema.fields().iter().map(field).collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// `batch` as a Parquet file holds it (see [`schema`]); a count beyond the
/// range of milliseconds is an error naming record and column.
pub(crate) fn batch(batch: &RecordBatch) -> Result<RecordBatch, Error> {
    let old = batch.schema();
    if !old.fields().iter().any(|f| has_seconds(f.data_type())) {
        return Ok(batch.clone());
    }
    let columns = old
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(f, a)| array(a, f.name(), 1))
        .collect::<Result<Vec<_>, _>>()?;
    RecordBatch::try_new(schema(old), columns).map_err(Error::arrow("a batch for Parquet"))
}

fn has_seconds(t: &DataType) -> bool {
    match t {
        DataType::Timestamp(TimeUnit::Second, _) => true,
        DataType::Struct(fields) => fields.iter().any(|f| has_seconds(f.data_type())),
        DataType::FixedSizeList(item, _) => has_seconds(item.data_type()),
        _ => false,
    }
}

fn data_type(t: &DataType) -> DataType {
    match t {
        DataType::Timestamp(TimeUnit::Second, tz) => {
            DataType::Timestamp(TimeUnit::Millisecond, tz.clone())
        }
        DataType::Struct(fields) => DataType::Struct(fields.iter().map(field).collect()),
        DataType::FixedSizeList(item, n) => DataType::FixedSizeList(field(item), *n),
        other => other.clone(),
    }
}

/// The field with seconds as milliseconds; a column of seconds itself
/// gains the `ndl.type` that says so.
fn field(f: &FieldRef) -> FieldRef {
    if !has_seconds(f.data_type()) {
        return f.clone();
    }
    let mut metadata = f.metadata().clone();
    if matches!(f.data_type(), DataType::Timestamp(..)) {
        let seconds = TimeType::datetime(NumpyTimeUnit::new(BaseUnit::Seconds));
        let yaml = ndl::datatype_to_yaml(&Datatype::Time(seconds));
        if !metadata.contains_key(TYPE_KEY) {
            metadata.insert(TYPE_KEY.to_owned(), yaml.trim_end().to_owned());
        }
    }
    let new = Field::new(f.name(), data_type(f.data_type()), f.is_nullable());
    Arc::new(new.with_metadata(metadata))
}

/// The array at `path`, `per_record` values a record, with seconds as
/// milliseconds.
fn array(a: &ArrayRef, path: &str, per_record: usize) -> Result<ArrayRef, Error> {
    if !has_seconds(a.data_type()) {
        return Ok(a.clone());
    }
    let context = || Error::arrow(format!("column `{path}`"));
    Ok(match a.data_type() {
        DataType::Struct(fields) => {
            let s = a.as_struct();
            let children = fields
                .iter()
                .zip(s.columns())
                .map(|(f, c)| array(c, &format!("{path}.{}", f.name()), per_record))
                .collect::<Result<Vec<_>, _>>()?;
            let fields: Fields = fields.iter().map(field).collect();
            Arc::new(
                StructArray::try_new_with_length(fields, children, s.nulls().cloned(), s.len())
                    .map_err(context())?,
            )
        }
        DataType::FixedSizeList(item, n) => {
            let list = a.as_fixed_size_list();
            let size = usize::try_from(*n).unwrap_or(0);
            let values = array(list.values(), path, per_record * size.max(1))?;
            Arc::new(
                FixedSizeListArray::try_new(field(item), *n, values, list.nulls().cloned())
                    .map_err(context())?,
            )
        }
        _ => millis(a.as_primitive::<TimestampSecondType>(), path, per_record)?,
    })
}

/// Seconds as milliseconds, exactly.
fn millis(
    a: &PrimitiveArray<TimestampSecondType>,
    path: &str,
    per_record: usize,
) -> Result<ArrayRef, Error> {
    let values = (0..a.len())
        .map(|i| match a.is_null(i) {
            true => Ok(0),
            false => a.value(i).checked_mul(1000).ok_or_else(|| Error::Value {
                record: i / per_record.max(1),
                column: path.to_owned(),
                message: format!(
                    "{} seconds are beyond the range of a Parquet timestamp of milliseconds",
                    a.value(i)
                ),
            }),
        })
        .collect::<Result<Vec<i64>, _>>()?;
    let out = PrimitiveArray::<TimestampMillisecondType>::new(values.into(), a.nulls().cloned())
        .with_timezone_opt(a.timezone());
    Ok(Arc::new(out))
}

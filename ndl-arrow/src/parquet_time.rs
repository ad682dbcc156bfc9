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
use arrow_array::{
    Array, ArrayRef, FixedSizeListArray, PrimitiveArray, RecordBatch, RecordBatchOptions,
    StructArray,
};
use arrow_buffer::{Buffer, MutableBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, FieldRef, Fields, Schema, SchemaRef, TimeUnit};
use ndl_runtime::time::{BaseUnit, NumpyTimeUnit};
use ndl_runtime::{Datatype, TimeType, ndl};

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
pub(crate) fn batch(batch: RecordBatch) -> Result<RecordBatch, Error> {
    let old = batch.schema();
    if !old.fields().iter().any(|f| has_seconds(f.data_type())) {
        return Ok(batch);
    }
    let (_, columns, rows) = batch.into_parts();
    let columns = old
        .fields()
        .iter()
        .zip(columns)
        .map(|(f, a)| array(a, f.name(), 1))
        .collect::<Result<Vec<_>, _>>()?;
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(schema(old), columns, &options)
        .map_err(Error::arrow("a batch for Parquet"))
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
fn array(a: ArrayRef, path: &str, per_record: usize) -> Result<ArrayRef, Error> {
    if !has_seconds(a.data_type()) {
        return Ok(a);
    }
    let context = || Error::arrow(format!("column `{path}`"));
    Ok(match a.data_type() {
        DataType::Struct(fields) => {
            let s = a.as_struct();
            let children = fields
                .iter()
                .zip(s.columns())
                .map(|(f, c)| array(c.clone(), &format!("{path}.{}", f.name()), per_record))
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
            let values = array(list.values().clone(), path, per_record * size.max(1))?;
            Arc::new(
                FixedSizeListArray::try_new(field(item), *n, values, list.nulls().cloned())
                    .map_err(context())?,
            )
        }
        _ => {
            let seconds = a.as_primitive::<TimestampSecondType>().clone();
            drop(a);
            millis(seconds, path, per_record)?
        }
    })
}

/// Seconds as milliseconds, exactly; in place when the array is the only
/// holder of its counts (as a batch made to be written is).
fn millis(
    a: PrimitiveArray<TimestampSecondType>,
    path: &str,
    per_record: usize,
) -> Result<ArrayRef, Error> {
    let timezone = a.timezone().map(str::to_owned);
    let (_, values, nulls) = a.into_parts();
    let mut counts = values
        .into_inner()
        .into_mutable()
        .unwrap_or_else(|shared| MutableBuffer::from(shared.typed_data::<i64>().to_vec()));
    for (i, count) in counts.typed_data_mut::<i64>().iter_mut().enumerate() {
        if nulls.as_ref().is_some_and(|n| n.is_null(i)) {
            *count = 0;
            continue;
        }
        let seconds = *count;
        *count = seconds
            .checked_mul(1000)
            .ok_or_else(|| Error::InvalidValue {
                record: i / per_record.max(1),
                column: path.to_owned(),
                message: format!(
                    "{seconds} seconds are beyond the range of a Parquet timestamp of milliseconds"
                ),
            })?;
    }
    let values = ScalarBuffer::from(Buffer::from(counts));
    let out =
        PrimitiveArray::<TimestampMillisecondType>::new(values, nulls).with_timezone_opt(timezone);
    Ok(Arc::new(out))
}

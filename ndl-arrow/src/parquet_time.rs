//! Parquet has no timestamp of seconds and no date of milliseconds: the
//! parquet crate writes an Arrow `Timestamp(Second)` or `Date64` as a bare
//! `INT64`, which pyarrow, polars and DuckDB read as plain integers. So a
//! Parquet file gets such columns (at any depth of structs, lists and
//! maps) as pyarrow's own writer makes them: seconds as
//! `Timestamp(Millisecond)`, the counts times 1000, and `Date64` as
//! `Date32`, whole days, both exactly. For seconds, the field's `ndl.type`
//! and the schema's `ndl.datatype` keep the unit the records have, and
//! reading converts back exactly.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Date64Type, TimestampMillisecondType, TimestampSecondType};
use arrow_array::{
    Array, ArrayRef, FixedSizeListArray, LargeListArray, ListArray, MapArray, OffsetSizeTrait,
    PrimitiveArray, RecordBatch, RecordBatchOptions, StructArray,
};
use arrow_buffer::{Buffer, MutableBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, FieldRef, Fields, Schema, SchemaRef, TimeUnit};
use ndl_runtime::time::{BaseUnit, NumpyTimeUnit};
use ndl_runtime::{Datatype, TimeType, ndl};

use crate::error::Error;
use crate::schema::TYPE_KEY;

/// `schema` as a Parquet file holds it: seconds as milliseconds.
pub(crate) fn schema(schema: SchemaRef) -> SchemaRef {
    if !schema
        .fields()
        .iter()
        .any(|f| needs_coercion(f.data_type()))
    {
        return schema;
    }
    let fields: Fields = schema.fields().iter().map(field).collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// `batch` as a Parquet file holds it (see [`schema`]); a count beyond the
/// range of milliseconds is an error naming record and column.
pub(crate) fn batch(batch: RecordBatch) -> Result<RecordBatch, Error> {
    let old = batch.schema();
    if !old.fields().iter().any(|f| needs_coercion(f.data_type())) {
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

fn needs_coercion(t: &DataType) -> bool {
    match t {
        DataType::Timestamp(TimeUnit::Second, _) | DataType::Date64 => true,
        DataType::Struct(fields) => fields.iter().any(|f| needs_coercion(f.data_type())),
        DataType::FixedSizeList(item, _)
        | DataType::List(item)
        | DataType::LargeList(item)
        | DataType::Map(item, _) => needs_coercion(item.data_type()),
        _ => false,
    }
}

fn data_type(t: &DataType) -> DataType {
    match t {
        DataType::Timestamp(TimeUnit::Second, tz) => {
            DataType::Timestamp(TimeUnit::Millisecond, tz.clone())
        }
        DataType::Date64 => DataType::Date32,
        DataType::Struct(fields) => DataType::Struct(fields.iter().map(field).collect()),
        DataType::FixedSizeList(item, n) => DataType::FixedSizeList(field(item), *n),
        DataType::List(item) => DataType::List(field(item)),
        DataType::LargeList(item) => DataType::LargeList(field(item)),
        DataType::Map(entries, sorted) => DataType::Map(field(entries), *sorted),
        other => other.clone(),
    }
}

/// The field with seconds as milliseconds; a column of seconds itself
/// gains the `ndl.type` that says so.
fn field(f: &FieldRef) -> FieldRef {
    if !needs_coercion(f.data_type()) {
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
    if !needs_coercion(a.data_type()) {
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
        DataType::List(item) => {
            let list = a.as_list::<i32>();
            let values = list_items(list.values(), list.value_offsets(), path, per_record)?;
            let offsets = list.offsets().clone();
            Arc::new(
                ListArray::try_new(field(item), offsets, values, list.nulls().cloned())
                    .map_err(context())?,
            )
        }
        DataType::LargeList(item) => {
            let list = a.as_list::<i64>();
            let values = list_items(list.values(), list.value_offsets(), path, per_record)?;
            let offsets = list.offsets().clone();
            Arc::new(
                LargeListArray::try_new(field(item), offsets, values, list.nulls().cloned())
                    .map_err(context())?,
            )
        }
        DataType::Map(entries, sorted) => {
            let map = a.as_map();
            let pairs: ArrayRef = Arc::new(map.entries().clone());
            let values = list_items(&pairs, map.value_offsets(), path, per_record)?;
            let offsets = map.offsets().clone();
            let (entries, nulls) = (field(entries), map.nulls().cloned());
            Arc::new(
                MapArray::try_new(entries, offsets, values.as_struct().clone(), nulls, *sorted)
                    .map_err(context())?,
            )
        }
        DataType::Date64 => days(a.as_primitive::<Date64Type>(), path, per_record)?,
        _ => {
            let seconds = a.as_primitive::<TimestampSecondType>().clone();
            drop(a);
            millis(seconds, path, per_record)?
        }
    })
}

/// The items of variable-length lists whose offsets are `offsets`,
/// coerced; an error names the record whose list holds the bad item.
fn list_items<O: OffsetSizeTrait>(
    items: &ArrayRef,
    offsets: &[O],
    path: &str,
    per_record: usize,
) -> Result<ArrayRef, Error> {
    array(items.clone(), path, 1).map_err(|e| match e {
        Error::InvalidValue {
            record: item,
            column,
            message,
        } => {
            let list = offsets
                .partition_point(|o| o.as_usize() <= item)
                .saturating_sub(1);
            Error::InvalidValue {
                record: list / per_record.max(1),
                column,
                message,
            }
        }
        other => other,
    })
}

/// Dates of milliseconds as dates of days, exactly: a count that is not a
/// whole day, or too many days, is an error naming record and column.
fn days(a: &PrimitiveArray<Date64Type>, path: &str, per_record: usize) -> Result<ArrayRef, Error> {
    const DAY: i64 = 86_400_000;
    let bad = |i: usize, message: String| Error::InvalidValue {
        record: i / per_record.max(1),
        column: path.to_owned(),
        message,
    };
    let mut days = Vec::with_capacity(a.len());
    for (i, ms) in a.values().iter().enumerate() {
        if a.is_null(i) {
            days.push(0);
            continue;
        }
        if ms % DAY != 0 {
            return Err(bad(
                i,
                format!("a date64 of {ms} ms is not a whole day, which a Parquet DATE holds"),
            ));
        }
        let day = i32::try_from(ms / DAY)
            .map_err(|_| bad(i, format!("a date64 of {ms} ms is beyond a Parquet DATE")))?;
        days.push(day);
    }
    Ok(Arc::new(PrimitiveArray::<Date32Type>::new(
        ScalarBuffer::from(days),
        a.nulls().cloned(),
    )))
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

#[cfg(test)]
mod tests {
    use arrow_array::{Date32Array, Date64Array};

    use super::*;

    fn dates(values: Vec<Option<i64>>) -> RecordBatch {
        let array: ArrayRef = Arc::new(Date64Array::from(values));
        RecordBatch::try_from_iter([("d", array)]).unwrap()
    }

    #[test]
    fn dates_of_milliseconds_become_days_exactly() {
        let day = 86_400_000;
        let out = batch(dates(vec![Some(0), None, Some(-3 * day)])).unwrap();
        assert_eq!(out.schema().field(0).data_type(), &DataType::Date32);
        let want = Date32Array::from(vec![Some(0), None, Some(-3)]);
        assert_eq!(out.column(0).as_primitive::<Date32Type>(), &want);
    }

    #[test]
    fn a_bad_date_in_a_list_names_the_record_holding_it() {
        let day = 86_400_000;
        let items = Date64Array::from(vec![0, day, 2 * day, 5]);
        let field = Arc::new(Field::new("item", DataType::Date64, false));
        let offsets = arrow_buffer::OffsetBuffer::new(vec![0, 2, 2, 4].into());
        let list = ListArray::try_new(field, offsets, Arc::new(items), None).unwrap();
        let array: ArrayRef = Arc::new(list);
        let e = batch(RecordBatch::try_from_iter([("l", array)]).unwrap()).unwrap_err();
        assert!(
            matches!(&e, Error::InvalidValue { record: 2, column, .. } if column == "l"),
            "{e}"
        );
    }

    #[test]
    fn a_date_that_is_no_whole_day_names_record_and_column() {
        let e = batch(dates(vec![Some(0), Some(1)])).unwrap_err();
        assert!(
            matches!(&e, Error::InvalidValue { record: 1, column, .. } if column == "d"),
            "{e}"
        );
        assert!(e.to_string().contains("not a whole day"), "{e}");
    }
}

//! Records with variable-length and nullable fields (`String`, `Vec`,
//! `Option`, nested `#[derive(Record)]` structs) to Arrow and back,
//! through their neutral columns ([`ndl_runtime::record::Column`]):
//! `String` is `Utf8`, `Vec` a `List`, `[T; N]` a `FixedSizeList`, a
//! nested record a `Struct`, an `Option` a nullable field (and only an
//! `Option`, or time for NaT); numbers, bools, enums, time and other
//! fixed-size values as in plain records.
//!
//! Arrow's `Utf8` and `List` have 32-bit offsets: a batch whose strings
//! or list items pass 2 GiB is refused naming the column
//! ([`Error::TooLarge`]); the file writers split such batches.

mod build;
mod decode;
mod rows;
mod schema;

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::{Schema, SchemaRef};
use ndl_runtime::Record;
use ndl_runtime::record::{self, Column, ColumnReader, RecordError};

use crate::error::Error;
use crate::options::ReadOptions;
use crate::schema::VALUE_COLUMN;
use rows::Place;

pub use schema::columns_schema;
pub(crate) use schema::schema;

/// `records` as one batch of `schema` (which [`schema`] made).
pub(crate) fn to_batch<T: Record>(records: &[T], schema: SchemaRef) -> Result<RecordBatch, Error> {
    columns_to_batch(record::columns(records), records.len(), schema)
}

/// `n` records held in `columns` (a [`Column::Struct`] of the records'
/// members, or the one column of records that are no struct) as one
/// batch of `schema`, which [`columns_schema`] made for their shape. The
/// columns' buffers become the arrays' without a copy.
///
/// # Errors
/// Columns not of the schema's shape, more than 2 GiB of strings or list
/// items in one column ([`Error::TooLarge`]), values the datatype forbids
/// (an enum value that is no member), naming the column and the record
/// in the batch.
pub fn columns_to_batch(
    columns: Column,
    n: usize,
    schema: SchemaRef,
) -> Result<RecordBatch, Error> {
    let columns = match columns {
        Column::Struct { fields, .. } => fields,
        other => vec![(VALUE_COLUMN.to_owned(), other)],
    };
    let arrays = columns
        .into_iter()
        .zip(schema.fields().iter())
        .map(|((name, c), f)| build::array(c, f.data_type(), n, None, &Place::column(&name)))
        .collect::<Result<Vec<_>, _>>()?;
    let options = RecordBatchOptions::new().with_row_count(Some(n));
    RecordBatch::try_new_with_options(schema, arrays, &options)
        .map_err(Error::arrow("assembling the record batch"))
}

/// The records of `batch`, its columns found by name.
pub(crate) fn from_batch<T: Record>(
    batch: &RecordBatch,
    options: &ReadOptions,
) -> Result<Vec<T>, Error> {
    let template = schema::template::<T>();
    let structured = matches!(template, Column::Struct { .. });
    let error = |e: RecordError| record_error(e, structured);
    let decoded = decode::batch(&template, batch, options)?;
    let view = decoded.view().map_err(error)?;
    let reader = T::reader(&view).map_err(error)?;
    let mut records = Vec::new();
    records
        .try_reserve_exact(reader.len())
        .map_err(|_| Error::OutOfMemory(reader.len().saturating_mul(std::mem::size_of::<T>())))?;
    for i in 0..reader.len() {
        records.push(reader.get(i).map_err(error)?);
    }
    Ok(records)
}

/// The records of `batch` as an owned column of the shape of `template`
/// (see [`Column::template`]): a [`Column::Struct`] whose fields are the
/// batch's columns found by name. Strings and lists of any Arrow form
/// (large, views, dictionaries) are taken; a null is refused, naming the
/// column and the record in the batch, where the template has no
/// [`Column::Nullable`].
///
/// # Errors
/// A column missing or of another type than the template's, an extra
/// column (unless the options ignore them), a null where the template
/// takes none.
pub fn columns_from_batch(
    template: &Column,
    batch: &RecordBatch,
    options: &ReadOptions,
) -> Result<Column, Error> {
    let structured = matches!(template, Column::Struct { .. });
    let error = |e: RecordError| record_error(e, structured);
    let decoded = decode::batch(template, batch, options)?;
    let view = decoded.view().map_err(error)?;
    Column::copied(template, &view).map_err(error)
}

/// Checks, before any is read, that records of the shape of `template`
/// can be read from batches of `schema`.
pub(crate) fn check_template(
    template: &Column,
    schema: &Schema,
    options: &ReadOptions,
) -> Result<(), Error> {
    let empty = RecordBatch::new_empty(std::sync::Arc::new(schema.clone()));
    columns_from_batch(template, &empty, options).map(drop)
}

/// Checks, before any is read, that records of `T` can be read from
/// batches of `schema`.
pub(crate) fn check<T: Record>(schema: &Schema, options: &ReadOptions) -> Result<(), Error> {
    let empty = RecordBatch::new_empty(std::sync::Arc::new(schema.clone()));
    from_batch::<T>(&empty, options).map(drop)
}

/// A record reader's error as this crate's: about a record, or about the
/// column as a whole. Fields of records that are no struct are inside
/// their one column.
fn record_error(e: RecordError, structured: bool) -> Error {
    let column = match (structured, e.field()) {
        (true, field) => field,
        (false, field) if field.is_empty() => VALUE_COLUMN.to_owned(),
        (false, field) => format!("{VALUE_COLUMN}.{field}"),
    };
    let message = e.message().to_owned();
    match e.record() {
        Some(record) => Error::InvalidValue {
            record,
            column,
            message,
        },
        None => Error::TypeMismatch { column, message },
    }
}

//! Legacy INT96 timestamps (Spark's, Impala's, Hive's, pyarrow's with
//! `use_deprecated_int96_timestamps`): a Julian day and nanoseconds within
//! it. The parquet crate reads them as `Timestamp(Nanosecond)`, wrapping
//! silently past the years 1677–2262 that an `i64` of nanoseconds reaches
//! (as pyarrow does by default), and so would give a wrong instant.
//!
//! So the columns holding INT96 are read a second time as seconds, which
//! never wrap (a Julian day is an `i32`), and each nanosecond count is
//! checked against them. Where one wrapped, the exact instant is rebuilt
//! from both, and the batch's column is given in the finest coarser unit
//! (microseconds, milliseconds, seconds) that holds every value of it
//! exactly, as pyarrow's `coerce_int96_timestamp_unit` does; records of
//! that unit or a coarser one then get the right instant, and records of
//! nanoseconds are refused by the usual exact conversion. A column whose
//! values fit no unit is refused, naming column and row.

use std::fs::File;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowTimestampType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{
    Array, ArrayRef, FixedSizeListArray, PrimitiveArray, RecordBatch, RecordBatchOptions,
    StructArray,
};
use arrow_buffer::{NullBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, FieldRef, Fields, Schema, TimeUnit};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};
use parquet::basic::Type as PhysicalType;
use parquet::file::metadata::ParquetMetaData;
use parquet::schema::types::SchemaDescriptor;

use crate::error::Error;

const NANOS_PER_SECOND: i128 = 1_000_000_000;

/// The INT96 columns of a Parquet file read as seconds, in step with the
/// batches of the file's main reader.
#[derive(Debug)]
pub(crate) struct Int96Check {
    seconds: ParquetRecordBatchReader,
    /// The file's row of the next batch's first record.
    row: usize,
}

impl Int96Check {
    /// The check for the root columns `wanted` of a file whose reader gives
    /// `schema`, read `batch_size` rows at a time as the main reader is;
    /// `None` when none of them holds INT96.
    pub fn open(
        file: File,
        metadata: Arc<ParquetMetaData>,
        schema: &Schema,
        wanted: &[usize],
        batch_size: usize,
    ) -> Result<Option<Int96Check>, Error> {
        let parquet = metadata.file_metadata().schema_descr_ptr();
        let int96 = int96_leaves(&parquet);
        let roots: Vec<usize> = wanted
            .iter()
            .copied()
            .filter(|&root| {
                int96
                    .iter()
                    .enumerate()
                    .any(|(leaf, &is)| is && parquet.get_column_root_idx(leaf) == root)
            })
            .collect();
        if roots.is_empty() {
            return Ok(None);
        }
        let mut leaves = int96.into_iter();
        let fields: Fields = schema
            .fields()
            .iter()
            .map(|f| in_seconds(f, &mut leaves))
            .collect();
        let seconds = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
        let options = ArrowReaderOptions::new().with_schema(seconds);
        let parquet_error = || Error::parquet("reading its INT96 timestamps");
        let metadata = ArrowReaderMetadata::try_new(metadata, options).map_err(parquet_error())?;
        let seconds = ParquetRecordBatchReaderBuilder::new_with_metadata(file, metadata);
        let mask = ProjectionMask::roots(seconds.parquet_schema(), roots);
        let seconds = seconds
            .with_projection(mask)
            .with_batch_size(batch_size)
            .build()
            .map_err(parquet_error())?;
        Ok(Some(Int96Check { seconds, row: 0 }))
    }

    /// `batch` with every INT96 column checked, and given in a coarser unit
    /// where nanoseconds wrapped.
    pub fn apply(&mut self, batch: RecordBatch) -> Result<RecordBatch, Error> {
        let seconds = self
            .seconds
            .next()
            .transpose()
            .map_err(Error::arrow("reading its INT96 timestamps"))?
            .filter(|s| s.num_rows() == batch.num_rows())
            .ok_or_else(|| Error::Corrupt {
                message: "its INT96 timestamps read as seconds have other rows".to_owned(),
            })?;
        let first = self.row;
        self.row += batch.num_rows();
        let old = batch.schema();
        let (_, mut columns, rows) = batch.into_parts();
        let mut fields: Vec<FieldRef> = old.fields().iter().cloned().collect();
        for (i, field) in old.fields().iter().enumerate() {
            if let Some(s) = seconds.column_by_name(field.name()) {
                let at = Leaf {
                    path: field.name(),
                    per_record: 1,
                    first,
                };
                columns[i] = exact(&columns[i], s, &at)?;
                fields[i] = retyped(field, columns[i].data_type());
            }
        }
        let schema = Arc::new(Schema::new_with_metadata(fields, old.metadata().clone()));
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        RecordBatch::try_new_with_options(schema, columns, &options)
            .map_err(Error::arrow("reading its INT96 timestamps"))
    }
}

/// For each leaf column of the file, in order, whether it holds INT96.
fn int96_leaves(parquet: &SchemaDescriptor) -> Vec<bool> {
    parquet
        .columns()
        .iter()
        .map(|c| c.physical_type() == PhysicalType::INT96)
        .collect()
}

/// `field` with each of its leaves that `leaves` says holds INT96 as
/// seconds; Arrow's leaves come in the order of Parquet's.
fn in_seconds(field: &FieldRef, leaves: &mut impl Iterator<Item = bool>) -> FieldRef {
    let t = match field.data_type() {
        DataType::Struct(fields) => {
            DataType::Struct(fields.iter().map(|f| in_seconds(f, leaves)).collect())
        }
        DataType::List(item) => DataType::List(in_seconds(item, leaves)),
        DataType::LargeList(item) => DataType::LargeList(in_seconds(item, leaves)),
        DataType::FixedSizeList(item, n) => DataType::FixedSizeList(in_seconds(item, leaves), *n),
        DataType::Map(entries, sorted) => DataType::Map(in_seconds(entries, leaves), *sorted),
        DataType::Timestamp(TimeUnit::Nanosecond, tz) if leaves.next() == Some(true) => {
            DataType::Timestamp(TimeUnit::Second, tz.clone())
        }
        DataType::Timestamp(TimeUnit::Nanosecond, _) => return field.clone(),
        _ => {
            leaves.next();
            return field.clone();
        }
    };
    retyped(field, &t)
}

/// `field` holding `t`.
fn retyped(field: &FieldRef, t: &DataType) -> FieldRef {
    if field.data_type() == t {
        return field.clone();
    }
    let new = Field::new(field.name(), t.clone(), field.is_nullable());
    Arc::new(new.with_metadata(field.metadata().clone()))
}

/// Where an array's values are: its column's dotted path, how many values
/// a record has, and the file's row of its first record.
struct Leaf<'a> {
    path: &'a str,
    per_record: usize,
    first: usize,
}

/// `ns`, the array as read in nanoseconds, checked against `s`, the same
/// read in seconds; the arrays are alike but for their INT96 leaves.
fn exact(ns: &ArrayRef, s: &ArrayRef, at: &Leaf<'_>) -> Result<ArrayRef, Error> {
    let context = || Error::arrow(format!("column `{}`", at.path));
    match (ns.data_type(), s.data_type()) {
        (DataType::Struct(fields), DataType::Struct(_)) => {
            let (ns, s) = (ns.as_struct(), s.as_struct());
            let mut children = Vec::with_capacity(fields.len());
            for (i, f) in fields.iter().enumerate() {
                let path = format!("{}.{}", at.path, f.name());
                let child = Leaf { path: &path, ..*at };
                children.push(exact(ns.column(i), s.column(i), &child)?);
            }
            let fields: Fields = fields
                .iter()
                .zip(&children)
                .map(|(f, c)| retyped(f, c.data_type()))
                .collect();
            let array =
                StructArray::try_new_with_length(fields, children, ns.nulls().cloned(), ns.len())
                    .map_err(context())?;
            Ok(Arc::new(array))
        }
        (DataType::FixedSizeList(item, n), DataType::FixedSizeList(..)) => {
            let (ns, s) = (ns.as_fixed_size_list(), s.as_fixed_size_list());
            let size = usize::try_from(*n).unwrap_or(0).max(1);
            let within = Leaf {
                per_record: at.per_record * size,
                ..*at
            };
            let values = exact(ns.values(), s.values(), &within)?;
            let item = retyped(item, values.data_type());
            let array = FixedSizeListArray::try_new(item, *n, values, ns.nulls().cloned())
                .map_err(context())?;
            Ok(Arc::new(array))
        }
        (
            DataType::Timestamp(TimeUnit::Nanosecond, _),
            DataType::Timestamp(TimeUnit::Second, _),
        ) => timestamps(
            ns.as_primitive::<TimestampNanosecondType>(),
            s.as_primitive::<TimestampSecondType>(),
            at,
        ),
        _ => Ok(ns.clone()),
    }
}

/// The instants of `ns`, exact: as they are when no count wrapped, else in
/// the finest coarser unit that holds them all.
fn timestamps(
    ns: &PrimitiveArray<TimestampNanosecondType>,
    s: &PrimitiveArray<TimestampSecondType>,
    at: &Leaf<'_>,
) -> Result<ArrayRef, Error> {
    let instants: Vec<i128> = ns
        .values()
        .iter()
        .zip(s.values().iter())
        .map(|(&ns, &s)| instant(ns, s))
        .collect();
    let valid = |i: &usize| ns.is_valid(*i);
    let wrapped = (0..ns.len())
        .filter(valid)
        .find(|&i| instants[i] != i128::from(ns.value(i)));
    let Some(wrapped) = wrapped else {
        return Ok(Arc::new(ns.clone()));
    };
    let fits = |per_unit: i128| {
        (0..ns.len())
            .filter(valid)
            .all(|i| instants[i] % per_unit == 0 && i64::try_from(instants[i] / per_unit).is_ok())
    };
    let coarser = [
        (TimeUnit::Microsecond, 1_000),
        (TimeUnit::Millisecond, 1_000_000),
        (TimeUnit::Second, NANOS_PER_SECOND),
    ];
    let Some((unit, per_unit)) = coarser.into_iter().find(|&(_, per_unit)| fits(per_unit)) else {
        let instant = instants[wrapped];
        return Err(Error::InvalidValue {
            record: at.first + wrapped / at.per_record.max(1),
            column: at.path.to_owned(),
            message: format!(
                "the INT96 timestamp {}.{:09} s after 1970 is beyond the years 1677-2262 that \
                 nanoseconds reach, and the column's values are not all whole microseconds, \
                 milliseconds or seconds",
                instant.div_euclid(NANOS_PER_SECOND),
                instant.rem_euclid(NANOS_PER_SECOND)
            ),
        });
    };
    // Nulls hold zero; the rest fit, as `fits` said.
    let counts: Vec<i64> = (0..ns.len())
        .map(|i| match ns.is_valid(i) {
            true => i64::try_from(instants[i] / per_unit).unwrap_or(0),
            false => 0,
        })
        .collect();
    let (values, nulls, tz) = (counts.into(), ns.nulls().cloned(), ns.timezone());
    Ok(match unit {
        TimeUnit::Microsecond => timestamp_array::<TimestampMicrosecondType>(values, nulls, tz),
        TimeUnit::Millisecond => timestamp_array::<TimestampMillisecondType>(values, nulls, tz),
        _ => timestamp_array::<TimestampSecondType>(values, nulls, tz),
    })
}

fn timestamp_array<T: ArrowTimestampType>(
    values: ScalarBuffer<i64>,
    nulls: Option<NullBuffer>,
    tz: Option<&str>,
) -> ArrayRef {
    Arc::new(PrimitiveArray::<T>::new(values, nulls).with_timezone_opt(tz.map(Arc::<str>::from)))
}

/// The exact nanoseconds since 1970 of an INT96 value read as `ns`
/// nanoseconds (perhaps wrapped) and as `s` seconds (never wrapped,
/// truncated): the two differ by less than a second but for the wrap, so
/// their difference taken modulo 2^64 is the exact remainder.
fn instant(ns: i64, s: i64) -> i128 {
    let whole = i128::from(s) * NANOS_PER_SECOND;
    // Truncation to 64 bits is the point: it undoes the wrap.
    let remainder = ns.wrapping_sub(whole as i64);
    whole + i128::from(remainder)
}

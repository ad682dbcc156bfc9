//! Records to one record batch and back: the entry points on Rust values
//! and on raw bytes of a datatype.

use std::marker::PhantomData;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::Schema;
use ndl_runtime::record::{PlainVisitor, same_slice, same_vec};
use ndl_runtime::records::{Packer, RecordBuf};
use ndl_runtime::{ByteOrder, NdlType, Record};

use crate::error::Error;
use crate::gather::{self, TypedRecords};
use crate::options::ReadOptions;
use crate::raw_batch::plan;
use crate::scatter;
use crate::schema::schema_of;
use crate::variable;

/// The Arrow schema of `T`'s records (see [`schema_of`] for plain
/// records, and the crate's documentation for `String`, `Vec` and
/// `Option` fields).
///
/// # Panics
/// If `T`'s datatype has no Arrow form: references, an `Option` of an
/// `Option`, time in calendar units.
///
/// ```
/// use ndl_runtime::NdlType;
///
/// #[derive(Clone, Copy, NdlType)]
/// #[repr(C)]
/// struct Point { x: f32, y: f32 }
///
/// let schema = ndl_arrow::schema::<Point>();
/// assert_eq!(schema.field(1).name(), "y");
/// ```
pub fn schema<T: Record>() -> Schema {
    try_schema::<T>().expect("the record type has an Arrow form")
}

/// The Arrow schema of `T`'s records, or why it has none.
pub(crate) fn try_schema<T: Record>() -> Result<Schema, Error> {
    match T::plain() {
        Some(dt) => schema_of(&dt),
        None => variable::schema::<T>(),
    }
}

/// `records` as one Arrow record batch of [`schema::<T>()`](schema).
///
/// Plain records (`#[derive(NdlType)]`) go in one pass over their memory,
/// padding never read. Records with `String`, `Vec` and `Option` fields
/// (`#[derive(Record)]`) are built into columns whose buffers the arrays
/// then own: a `String` is `Utf8`, a `Vec` a `List`, an `Option` a
/// nullable field, a nested record a `Struct`.
///
/// # Errors
/// A `T` whose datatype has no Arrow form, or more than 2 GiB of text (or
/// list items) in one column, which Arrow's 32-bit offsets cannot reach.
///
/// ```
/// use ndl_runtime::Record;
///
/// #[derive(Debug, PartialEq, Record)]
/// struct Trade {
///     id: u64,
///     symbol: String,
///     levels: Vec<f32>,
///     note: Option<String>,
/// }
///
/// let trades = vec![
///     Trade { id: 1, symbol: "ABC".into(), levels: vec![1.5, 1.25], note: None },
///     Trade { id: 2, symbol: "Été".into(), levels: vec![], note: Some("late".into()) },
/// ];
/// let batch = ndl_arrow::to_record_batch(&trades)?;
/// assert_eq!(batch.schema().field(1).data_type().to_string(), "Utf8");
/// assert!(batch.schema().field(3).is_nullable());
/// assert!(!batch.schema().field(1).is_nullable());
/// assert_eq!(ndl_arrow::from_record_batch::<Trade>(&batch)?, trades);
/// # Ok::<(), ndl_arrow::Error>(())
/// ```
pub fn to_record_batch<T: Record>(records: &[T]) -> Result<RecordBatch, Error> {
    if let Some(batch) = T::visit_plain(PlainToBatch(records)).flatten() {
        return batch;
    }
    let schema = Arc::new(variable::schema::<T>()?);
    variable::to_batch(records, schema)
}

/// The batch of plain records: gathered from their memory.
fn plain_to_record_batch<T: NdlType>(records: &[T]) -> Result<RecordBatch, Error> {
    let dt = T::datatype();
    let schema = Arc::new(schema_of(&dt)?);
    let records = TypedRecords {
        records,
        packer: Packer::new()?,
    };
    gather::to_batch(&dt, ByteOrder::NATIVE, &records, schema)
}

/// Hands plain records of `R` to [`plain_to_record_batch`] as the
/// `NdlType` they are.
struct PlainToBatch<'a, R>(&'a [R]);

impl<R: 'static> PlainVisitor for PlainToBatch<'_, R> {
    type Output = Option<Result<RecordBatch, Error>>;

    fn visit<T: NdlType>(self) -> Self::Output {
        same_slice::<R, T>(self.0).map(plain_to_record_batch)
    }
}

/// The records of a record batch, its columns matched to `T`'s members by
/// name, in any order; a batch with columns `T` has no member for is
/// refused (see [`from_record_batch_with`]). Strings may be `Utf8`,
/// `LargeUtf8`, `Utf8View` or dictionaries of them; lists `List`,
/// `LargeList` or `FixedSizeList`.
///
/// # Errors
/// A missing column, one of a wrong type, a null where no `Option` is, an
/// enum name that is no member, a string too long for its field, a list
/// whose length does not fit an array: each names the column (and the
/// record).
pub fn from_record_batch<T: Record>(batch: &RecordBatch) -> Result<Vec<T>, Error> {
    from_record_batch_with(batch, &ReadOptions::default())
}

/// [`from_record_batch`] with options; `options.byte_order` is ignored:
/// Rust values are native.
///
/// ```
/// use ndl_arrow::ReadOptions;
/// use ndl_runtime::NdlType;
///
/// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
/// #[repr(C)]
/// struct Wide { a: u8, b: u16 }
/// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
/// #[repr(C)]
/// struct Narrow { b: u16 }
///
/// let batch = ndl_arrow::to_record_batch(&[Wide { a: 1, b: 2 }])?;
/// let err = ndl_arrow::from_record_batch::<Narrow>(&batch).unwrap_err();
/// assert!(err.to_string().starts_with("column `a`"));
/// let options = ReadOptions::new().ignore_extra_columns(true);
/// assert_eq!(ndl_arrow::from_record_batch_with::<Narrow>(&batch, &options)?, [Narrow { b: 2 }]);
/// # Ok::<(), ndl_arrow::Error>(())
/// ```
pub fn from_record_batch_with<T: Record>(
    batch: &RecordBatch,
    options: &ReadOptions,
) -> Result<Vec<T>, Error> {
    let plain = PlainFromBatch {
        batch,
        options,
        records: PhantomData,
    };
    if let Some(records) = T::visit_plain(plain).flatten() {
        return records;
    }
    variable::from_batch(batch, options)
}

/// Hands the reading of plain records of `R` to
/// [`plain_from_record_batch`] as the `NdlType` they are.
struct PlainFromBatch<'a, R> {
    batch: &'a RecordBatch,
    options: &'a ReadOptions,
    records: PhantomData<fn() -> R>,
}

impl<R: 'static> PlainVisitor for PlainFromBatch<'_, R> {
    type Output = Option<Result<Vec<R>, Error>>;

    fn visit<T: NdlType>(self) -> Self::Output {
        // `T` is `R` itself, or the records take the variable path.
        same_slice::<T, R>(&[])?;
        match plain_from_record_batch::<T>(self.batch, self.options) {
            Ok(records) => same_vec(records).ok().map(Ok),
            Err(e) => Some(Err(e)),
        }
    }
}

/// The plain records of a batch, scattered into their memory.
fn plain_from_record_batch<T: NdlType>(
    batch: &RecordBatch,
    options: &ReadOptions,
) -> Result<Vec<T>, Error> {
    let dt = T::datatype();
    let packer = Packer::<T>::new()?;
    let plan = plan(&dt)?;
    let options = ReadOptions {
        byte_order: ByteOrder::NATIVE,
        ..*options
    };
    let leaves = scatter::decode(&plan, &dt, batch, &options)?;
    let n = batch.num_rows();
    let mut records = RecordBuf::<T>::zeroed(n)
        .map_err(|_| Error::OutOfMemory(n.saturating_mul(std::mem::size_of::<T>())))?;
    for mut part in records.parts_mut(n.max(1)) {
        packer
            .fill(&mut part, |bytes| scatter::fill(&plan, &leaves, bytes))
            .map_err(|bad| Error::InvalidValue {
                record: bad.record,
                column: bad.field,
                message: bad.message,
            })?;
    }
    Ok(records.into_vec().expect("every part was filled"))
}

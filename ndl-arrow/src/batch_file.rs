//! A file of record batches, Parquet or Arrow IPC: what the typed and the
//! raw writers and readers of both formats share. A format gives a
//! [`BatchSink`] (batches into a staged file) and a [`BatchSource`]
//! (checked batches out of a file); records go through them here.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use ndl_runtime::record::Column;
use ndl_runtime::{ByteOrder, Datatype, Record};

use crate::batch::{from_record_batch_with, to_record_batch};
use crate::error::Error;
use crate::file::batch_rows;
use crate::infer::{check, datatype_of};
use crate::options::ReadOptions;
use crate::raw_batch::{from_record_batch_raw, raw_batch};
use crate::schema::schema_with_order;

/// Record batches going into a file that appears only once finished.
pub(crate) trait BatchSink: Sized {
    /// Writes one batch, which is the sink's to reuse.
    fn write(&mut self, batch: RecordBatch) -> Result<(), Error>;
    /// Completes the file and puts it at its path.
    fn finish(self) -> Result<(), Error>;
}

/// Record batches coming out of a file, checked against the datatype of
/// the records they hold.
pub(crate) trait BatchSource {
    /// The next batch; `None` at the end.
    fn next_batch(&mut self) -> Result<Option<RecordBatch>, Error>;
    /// The datatype of the records read.
    fn datatype(&self) -> &Datatype;
}

/// Writes typed `records`, the first of which is record `first` of the
/// file, in batches of about 8 MiB (of `T` itself: its strings and lists
/// aside). A batch whose strings or lists pass Arrow's 2 GiB is split in
/// halves until each fits.
pub(crate) fn append<T: Record>(
    sink: &mut impl BatchSink,
    records: &[T],
    first: u64,
) -> Result<(), Error> {
    let rows = batch_rows(std::mem::size_of::<T>());
    for (i, part) in records.chunks(rows).enumerate() {
        append_part(sink, part, first, i * rows)?;
    }
    Ok(())
}

/// Writes `part`, which starts at record `first + at` of the file.
fn append_part<T: Record>(
    sink: &mut impl BatchSink,
    part: &[T],
    first: u64,
    at: usize,
) -> Result<(), Error> {
    match to_record_batch(part) {
        Ok(batch) => sink.write(batch),
        Err(Error::TooLarge { .. }) if part.len() > 1 => {
            let (a, b) = part.split_at(part.len() / 2);
            append_part(sink, a, first, at)?;
            append_part(sink, b, first, at + a.len())
        }
        Err(e) => Err(counted_from(first, at)(e)),
    }
}

/// Makes an error about record `r` of a batch that starts at record
/// `first + at` of the file about record `first + at + r`: errors name
/// the record in the file, not in the batch.
pub(crate) fn counted_from(first: u64, at: usize) -> impl FnOnce(Error) -> Error {
    move |error| match error {
        Error::InvalidValue {
            record,
            column,
            message,
        } => Error::InvalidValue {
            record: usize::try_from(first)
                .unwrap_or(usize::MAX)
                .saturating_add(at)
                .saturating_add(record),
            column,
            message,
        },
        other => other,
    }
}

/// Reads every record of `source` as `T`.
pub(crate) fn read_all<T: Record>(
    source: &mut impl BatchSource,
    options: &ReadOptions,
) -> Result<Vec<T>, Error> {
    let mut records = Vec::new();
    while let Some(batch) = source.next_batch()? {
        let first = records.len() as u64;
        let part = from_record_batch_with::<T>(&batch, options).map_err(counted_from(first, 0))?;
        if records.is_empty() {
            records = part;
        } else {
            records.extend(part);
        }
    }
    Ok(records)
}

/// What records a reader of a file reads: of the datatype the file says,
/// of a plain datatype, or of a `Record` type with variable fields, whose
/// check is given.
pub(crate) enum Target<'a> {
    /// The file's own datatype (see [`datatype_of`]).
    Stored,
    /// Every column as the file holds it, unchecked: batches copied to
    /// another file, not read as records.
    Whole,
    /// Records of a fixed-size datatype.
    Plain(&'a Datatype),
    /// Records of a datatype with variable fields, and how to check that
    /// the file's columns hold them.
    Variable(&'a Datatype, Check),
    /// Records of a datatype read as columns of the shape of a template.
    Columns(&'a Datatype, &'a Column),
}

/// Checks that the records can be read from a schema.
pub(crate) type Check = fn(&Schema, &ReadOptions) -> Result<(), Error>;

impl Target<'_> {
    /// The target of reading records of `T`.
    pub fn of<T: Record>(dt: &Datatype) -> Target<'_> {
        match T::plain() {
            Some(_) => Target::Plain(dt),
            None => Target::Variable(dt, crate::variable::check::<T>),
        }
    }

    /// The datatype of the records read from data of `schema`, checked
    /// against it before any is read.
    pub fn resolve(&self, schema: &Schema, options: &ReadOptions) -> Result<Datatype, Error> {
        match self {
            Target::Stored => {
                let dt = datatype_of(schema)?;
                check(&dt, schema, options)?;
                Ok(dt)
            }
            Target::Whole => datatype_of(schema),
            Target::Plain(dt) => {
                check(dt, schema, options)?;
                Ok((*dt).clone())
            }
            Target::Variable(dt, check) => {
                check(schema, options)?;
                Ok((*dt).clone())
            }
            Target::Columns(dt, template) => {
                crate::variable::check_template(template, schema, options)?;
                Ok((*dt).clone())
            }
        }
    }
}

/// The next batch of `source` as bytes of its datatype, in the options'
/// byte order; `None` at the end. `read` counts the records read so far.
pub(crate) fn next_records(
    source: &mut impl BatchSource,
    options: &ReadOptions,
    read: &mut u64,
) -> Result<Option<Vec<u8>>, Error> {
    let Some(batch) = source.next_batch()? else {
        return Ok(None);
    };
    let records = from_record_batch_raw(source.datatype(), &batch, options)
        .map_err(counted_from(*read, 0))?;
    *read += batch.num_rows() as u64;
    Ok(Some(records))
}

/// A sink of records of a runtime datatype, handed in as bytes with their
/// numbers in one byte order.
#[derive(Debug)]
pub(crate) struct RawSink<S> {
    sink: S,
    /// The records written so far.
    records: u64,
    datatype: Datatype,
    order: ByteOrder,
    schema: SchemaRef,
}

impl<S: BatchSink> RawSink<S> {
    /// The sink that `create` makes for the schema of `datatype` in
    /// `order`.
    pub fn create(
        datatype: &Datatype,
        order: ByteOrder,
        create: impl FnOnce(SchemaRef) -> Result<S, Error>,
    ) -> Result<RawSink<S>, Error> {
        let schema = Arc::new(schema_with_order(datatype, order)?);
        Ok(RawSink {
            sink: create(schema.clone())?,
            records: 0,
            datatype: datatype.clone(),
            order,
            schema,
        })
    }

    /// Writes whole records laid out as the datatype says, in batches of
    /// about 8 MiB.
    pub fn write(&mut self, records: &[u8]) -> Result<(), Error> {
        let record = self.datatype.size().unwrap_or(0).max(1);
        if !records.len().is_multiple_of(record) {
            return Err(Error::PartialRecord {
                len: records.len(),
                record,
            });
        }
        for part in records.chunks(batch_rows(record) * record) {
            let batch = raw_batch(&self.datatype, self.order, part, self.schema.clone())
                .map_err(counted_from(self.records, 0))?;
            self.sink.write(batch)?;
            self.records += (part.len() / record) as u64;
        }
        Ok(())
    }

    /// Completes the file and puts it at its path; returns the number of
    /// records written.
    pub fn finish(self) -> Result<u64, Error> {
        self.sink.finish()?;
        Ok(self.records)
    }
}

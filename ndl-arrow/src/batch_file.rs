//! A file of record batches, Parquet or Arrow IPC: what the typed and the
//! raw writers and readers of both formats share. A format gives a
//! [`BatchSink`] (batches into a staged file) and a [`BatchSource`]
//! (checked batches out of a file); records go through them here.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use ndl_runtime::{ByteOrder, Datatype, NdlType};

use crate::batch::{from_record_batch_raw, from_record_batch_with, raw_batch, to_record_batch};
use crate::error::Error;
use crate::file::batch_rows;
use crate::options::ReadOptions;
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
/// file, in batches of about 8 MiB.
pub(crate) fn append<T: NdlType>(
    sink: &mut impl BatchSink,
    records: &[T],
    first: u64,
) -> Result<(), Error> {
    let rows = batch_rows(std::mem::size_of::<T>());
    for (i, part) in records.chunks(rows).enumerate() {
        let batch = to_record_batch(part).map_err(counted_from(first, i * rows))?;
        sink.write(batch)?;
    }
    Ok(())
}

/// Makes an error about record `r` of a batch that starts at record
/// `first + at` of the file about record `first + at + r`: errors name
/// the record in the file, not in the batch.
fn counted_from(first: u64, at: usize) -> impl FnOnce(Error) -> Error {
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
pub(crate) fn read_all<T: NdlType>(
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
            records.extend_from_slice(&part);
        }
    }
    Ok(records)
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

//! Records as bytes of a datatype known at run time, to and from a
//! `RecordBatch`: what the typed entry points of plain records, the
//! files' byte readers and writers, and variable records' fixed-size
//! parts all go through.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::Schema;
use ndl_runtime::{ByteOrder, Datatype};

use crate::error::Error;
use crate::gather::{self, RawRecords};
use crate::options::ReadOptions;
use crate::plan::Plan;
use crate::scatter;
use crate::schema::schema_of;

/// Records of `dt` laid out as it says (its offsets and record size,
/// numbers in `order`) as one Arrow record batch of [`schema_of(dt)`](schema_of).
/// Padding is never read.
///
/// # Errors
/// A datatype without an Arrow form, bytes that are not whole records, a
/// bool byte neither 0 nor 1, an enum value that is no member, a string
/// that is not UTF-8: each names the column and the record.
///
/// ```
/// use ndl_runtime::{ByteOrder, Compound, Datatype};
///
/// let dt = Datatype::Compound(Compound::c_layout([("ok", Datatype::Bool), ("n", Datatype::UInt16)])?);
/// let records = [1, 0xAA, 7, 0, /* */ 0, 0xAA, 9, 0];
/// let batch = ndl_arrow::to_record_batch_raw(&dt, ByteOrder::Little, &records)?;
/// assert_eq!(batch.num_rows(), 2);
/// let back = ndl_arrow::from_record_batch_raw(&dt, &batch, &Default::default())?;
/// assert_eq!(back, [1, 0, 7, 0, 0, 0, 9, 0]); // the padding comes back zero
///
/// let err = ndl_arrow::to_record_batch_raw(&dt, ByteOrder::Little, &[2, 0, 0, 0]).unwrap_err();
/// assert_eq!(err.to_string(), "record 0, column `ok`: the bool byte is 2, not 0 or 1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn to_record_batch_raw(
    dt: &Datatype,
    order: ByteOrder,
    records: &[u8],
) -> Result<RecordBatch, Error> {
    raw_batch(dt, order, records, Arc::new(schema_of(dt)?))
}

/// [`to_record_batch_raw`] with `schema`, which [`schema_of`] made of `dt`
/// (and a writer may have added metadata to).
pub(crate) fn raw_batch(
    dt: &Datatype,
    order: ByteOrder,
    records: &[u8],
    schema: Arc<Schema>,
) -> Result<RecordBatch, Error> {
    let record = dt.size().unwrap_or(0);
    // Records of no bytes are only ever no records.
    let whole = match record {
        0 => records.is_empty(),
        _ => records.len().is_multiple_of(record),
    };
    if !whole {
        return Err(Error::PartialRecord {
            len: records.len(),
            record,
        });
    }
    let records = RawRecords {
        bytes: records,
        record,
    };
    gather::to_batch(dt, order, &records, schema)
}

/// The records of `dt` in `batch`, laid out as `dt` says, numbers in
/// `options.byte_order`, padding zero; columns matched by name.
///
/// # Errors
/// As [`from_record_batch`](crate::from_record_batch).
pub fn from_record_batch_raw(
    dt: &Datatype,
    batch: &RecordBatch,
    options: &ReadOptions,
) -> Result<Vec<u8>, Error> {
    let plan = plan(dt)?;
    let leaves = scatter::decode(&plan, dt, batch, options)?;
    let len = batch.num_rows().saturating_mul(plan.record);
    let mut out = Vec::new();
    out.try_reserve_exact(len)
        .map_err(|_| Error::OutOfMemory(len))?;
    out.resize(len, 0);
    scatter::fill(&plan, &leaves, &mut out);
    Ok(out)
}

/// The plan of `dt`, or why it has none.
pub(crate) fn plan(dt: &Datatype) -> Result<Plan<'_>, Error> {
    // The schema names the part without an Arrow form; every datatype
    // with a schema has a fixed size, so a plan.
    schema_of(dt)?;
    Ok(Plan::new(dt).expect("a datatype with an Arrow schema has a plan"))
}

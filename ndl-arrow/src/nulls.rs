//! Where a file's columns hold nulls, so that a description says
//! `optional` where the data needs it rather than wherever a writer set
//! the nullable flag (pyarrow sets it on every field). Parquet's row-group
//! statistics answer for plain columns; the rest is counted from the
//! data, a batch at a time.

use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchReader};
use arrow_buffer::NullBuffer;
use arrow_ipc::reader::{FileReader, StreamReader};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::metadata::ParquetMetaData;

use crate::error::Error;
use crate::ipc_check::Layout;

/// Whether a column holds nulls, and its children (a struct's fields, a
/// list's items) in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Nulls {
    /// A null is met at this level.
    pub here: bool,
    pub children: Vec<Nulls>,
}

impl Nulls {
    /// Takes in the nulls of `array` where `mask` (an enclosing struct's
    /// nulls) has none: values under a null struct are no one's.
    fn observe(&mut self, array: &dyn Array, mask: Option<&NullBuffer>) {
        let nulls = array.logical_nulls();
        let seen = NullBuffer::union(mask, nulls.as_ref());
        let count = |n: Option<&NullBuffer>| n.map_or(0, NullBuffer::null_count);
        self.here |= count(seen.as_ref()) > count(mask);
        let (children, mask): (Vec<ArrayRef>, _) = match array.data_type() {
            DataType::Struct(_) => (array.as_struct().columns().to_vec(), seen),
            DataType::List(_) => (vec![array.as_list::<i32>().values().clone()], None),
            DataType::LargeList(_) => (vec![array.as_list::<i64>().values().clone()], None),
            DataType::Map(..) => (vec![Arc::new(array.as_map().entries().clone())], None),
            _ => return,
        };
        if self.children.len() < children.len() {
            self.children.resize(children.len(), Nulls::default());
        }
        for (n, child) in self.children.iter_mut().zip(&children) {
            n.observe(child.as_ref(), mask.as_ref());
        }
    }
}

/// Whether any field of `field`'s tree is nullable: a column none of
/// whose levels may hold a null need not be looked at.
fn may_hold_nulls(field: &Field) -> bool {
    if field.is_nullable() {
        return true;
    }
    match field.data_type() {
        DataType::Struct(fields) => fields.iter().any(|f| may_hold_nulls(f)),
        DataType::List(f) | DataType::LargeList(f) | DataType::Map(f, _) => may_hold_nulls(f),
        _ => false,
    }
}

/// The nulls of every top-level column of the Parquet file whose reader
/// `builder` is: a plain column's from the statistics of every row group
/// when each has them, the rest counted from the data.
pub(crate) fn parquet(
    builder: ParquetRecordBatchReaderBuilder<std::fs::File>,
) -> Result<Vec<Nulls>, Error> {
    let schema = builder.schema().clone();
    let mut nulls = vec![Nulls::default(); schema.fields().len()];
    let mut scan = Vec::new();
    for (i, field) in schema.fields().iter().enumerate() {
        if !may_hold_nulls(field) {
            continue;
        }
        match counted_nulls(builder.metadata(), field) {
            Some(count) => nulls[i].here = count > 0,
            None => scan.push(i),
        }
    }
    if scan.is_empty() {
        return Ok(nulls);
    }
    let mask = ProjectionMask::roots(builder.parquet_schema(), scan.iter().copied());
    let reader = builder
        .with_projection(mask)
        .build()
        .map_err(Error::parquet("reading the footer"))?;
    for batch in reader {
        let batch = batch.map_err(Error::arrow("reading a row group"))?;
        observe(&mut nulls, &scan, &batch);
    }
    Ok(nulls)
}

/// The nulls of the plain column `field` as the statistics of every row
/// group count them; `None` where a row group has none, or the column is
/// nested (its leaves' counts mix the levels).
fn counted_nulls(metadata: &ParquetMetaData, field: &Field) -> Option<u64> {
    if field.data_type().is_nested() {
        return None;
    }
    let leaf = metadata
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .position(|c| c.path().parts() == [field.name().as_str()])?;
    metadata.row_groups().iter().try_fold(0u64, |sum, group| {
        let count = group.column(leaf).statistics()?.null_count_opt()?;
        Some(sum + count)
    })
}

/// Takes in the nulls of the columns `scan` of the file, which `batch`
/// holds in that order.
fn observe(nulls: &mut [Nulls], scan: &[usize], batch: &RecordBatch) {
    for (&i, column) in scan.iter().zip(batch.columns()) {
        nulls[i].observe(column.as_ref(), None);
    }
}

/// The nulls of every top-level column of the Arrow IPC file or stream at
/// `path`, counted from its batches.
pub(crate) fn ipc(path: &Path) -> Result<Vec<Nulls>, Error> {
    let (file, layout, _) = crate::ipc_check::open_checked(path)?;
    let arrow = || Error::arrow("reading the schema");
    let batches: Box<dyn RecordBatchReader> = match layout {
        Layout::File => Box::new(FileReader::try_new(file, None).map_err(arrow())?),
        Layout::Stream => Box::new(StreamReader::try_new(file, None).map_err(arrow())?),
    };
    let schema: std::sync::Arc<Schema> = batches.schema();
    let mut nulls = vec![Nulls::default(); schema.fields().len()];
    let scan: Vec<usize> = (0..schema.fields().len())
        .filter(|&i| may_hold_nulls(schema.field(i)))
        .collect();
    if scan.is_empty() {
        return Ok(nulls);
    }
    for batch in batches {
        let batch = batch.map_err(Error::arrow("reading a record batch"))?;
        for &i in &scan {
            nulls[i].observe(batch.column(i).as_ref(), None);
        }
    }
    Ok(nulls)
}

//! Conversions between Parquet and Arrow IPC files: the record batches
//! copied as the source holds them, every Arrow type, null and piece of
//! schema metadata included, and encoded as the destination's format
//! does. No NDL records stand between the two: Arrow has types (decimals,
//! times of day, intervals, binary, maps) that only Arrow holds.

use std::path::Path;

use ndl_arrow::{BatchReader, BatchWriter};

use crate::column_file::{ColumnFile, in_file};
use crate::error::Result;
use crate::sink::refuse_existing;

/// Copies the batches of `src`, a `from` file, into a new `to` file at
/// `dst`, which appears only once complete; returns the rows copied.
/// `total` learns how many rows there are, then `done` how many are
/// copied, batch by batch.
pub(crate) fn copy(
    (src, from): (&Path, ColumnFile),
    (dst, to): (&Path, ColumnFile),
    total: &dyn Fn(u64),
    done: &dyn Fn(u64),
) -> Result<u64> {
    refuse_existing(dst)?;
    let mut reader = match from {
        ColumnFile::Parquet => BatchReader::open_parquet(src),
        ColumnFile::Ipc => BatchReader::open_ipc(src),
    }
    .map_err(in_file(src))?;
    let options = ndl_arrow::WriteOptions::new();
    let mut writer = match to {
        ColumnFile::Parquet => BatchWriter::create_parquet(dst, reader.schema(), &options),
        ColumnFile::Ipc => BatchWriter::create_ipc(dst, reader.schema(), &options),
    }
    .map_err(in_file(dst))?;
    total(reader.len());
    let mut copied = 0;
    while let Some(batch) = reader.next_batch().map_err(in_file(src))? {
        copied += batch.num_rows() as u64;
        writer.write(batch).map_err(in_file(dst))?;
        done(copied);
    }
    writer.finish().map_err(in_file(dst))
}

//! Typed records to and from Arrow record batches, Parquet files and
//! Arrow IPC files, with schemas that pyarrow, pandas, polars and DuckDB
//! read.
//!
//! A `#[derive(NdlType)]` record type knows its exact layout, so one call
//! turns a slice of records into a [`RecordBatch`](arrow_array::RecordBatch)
//! (one pass over their memory) or a Parquet file, and back, checked:
//!
//! ```
//! use ndl_runtime::NdlType;
//!
//! #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
//! #[repr(C)]
//! struct Reading {
//!     station: u32,
//!     temperature: f32,
//! }
//!
//! let readings = vec![Reading { station: 7, temperature: 281.5 }];
//! let batch = ndl_arrow::to_record_batch(&readings)?;
//! assert_eq!(ndl_arrow::from_record_batch::<Reading>(&batch)?, readings);
//! # Ok::<(), ndl_arrow::Error>(())
//! ```
//!
//! Records with `String`, `Vec`, `Option` and nested-record fields derive
//! [`Record`](ndl_runtime::Record) instead and go through the same
//! functions: `Utf8`, `List`, nullable fields and `Struct`s (see
//! [`to_record_batch`]).
//!
//! The same works on records held as bytes of a runtime
//! [`Datatype`](ndl_runtime::Datatype) (what `ndl convert` has):
//! [`to_record_batch_raw`], [`from_record_batch_raw`], and the streaming
//! readers and writers of each file format. The mapping of every datatype
//! is in the [`schema`](mod@schema) module and `docs/arrow-mapping.md`.

#![deny(missing_docs)]

mod batch;
mod batch_file;
mod batches;
mod columns_file;
mod dictionary;
mod error;
mod file;
mod gather;
mod infer;
mod ipc;
mod ipc_check;
mod nulls;
mod options;
mod parquet_file;
mod parquet_int96;
mod parquet_sink;
mod parquet_time;
mod plan;
mod raw_batch;
mod record_reader;
mod scatter;
pub mod schema;
mod strings;
mod time;
mod time_type;
mod variable;

pub use batch::{from_record_batch, from_record_batch_with, schema, to_record_batch};
pub use batches::{BatchReader, BatchWriter};
pub use columns_file::{ColumnsReader, ColumnsWriter};
pub use error::{Error, Result};
pub use infer::{datatype_of, describe_ipc, describe_parquet};
pub use ipc::{IpcRecordReader, IpcRecordWriter, IpcWriter, read_ipc, read_ipc_with, write_ipc};
pub use options::{ReadOptions, WriteOptions, default_writer_properties};
pub use parquet_file::{
    ParquetRecordReader, ParquetRecordWriter, ParquetWriter, read_parquet, read_parquet_with,
    write_parquet,
};
pub use raw_batch::{from_record_batch_raw, to_record_batch_raw};
pub use record_reader::RecordReader;
pub use schema::{DATATYPE_KEY, schema_of};
pub use variable::{columns_from_batch, columns_schema, columns_to_batch};

/// The arrow and parquet crates this crate is built on, for their types
/// in its signatures.
pub use {arrow_array, arrow_schema, parquet};

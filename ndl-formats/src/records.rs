//! Records with variable-length and nullable members (strings, lists,
//! options) as a source and a sink: what a [`Source`](crate::Source)'s
//! packed bytes cannot carry. They move as batches of neutral columns
//! ([`Column::Struct`], one field per member), the shape every format
//! crate already turns into its own storage and back, so that no Rust
//! type is needed between two files.

use std::path::Path;

use ndl_runtime::ndl::{Attribute, NameMap};
use ndl_runtime::record::Column;
use ndl_runtime::Datatype;

use crate::error::Result;
use crate::sink::Progress;

/// About this many bytes of values are moved at a time (a batch is at
/// least one record).
pub const RECORD_BATCH_BYTES: usize = 32 << 20;

/// What a [`RecordSource`] reads, and where.
#[derive(Clone, Copy, Debug)]
pub struct RecordOrigin<'a> {
    /// The records' datatype: a compound whose members may be `string`,
    /// `vlen` or `optional`.
    pub datatype: &'a Datatype,
    /// The column shape every batch has ([`Column::template`] of the
    /// datatype, with the fills the source knows for its options).
    pub template: &'a Column,
    /// The number of records, where known before reading them.
    pub len: Option<u64>,
    /// Where the records come from, as errors about them name it.
    pub location: &'a Path,
}

/// Records being read, a batch of columns at a time, in bounded memory.
pub trait RecordSource {
    /// What the records are and where they come from.
    fn origin(&self) -> RecordOrigin<'_>;

    /// The attributes that a conversion carries, where it has some.
    fn attributes(&self) -> Option<&NameMap<Attribute>> {
        None
    }

    /// What the reader should know about how the records were read, one
    /// sentence each.
    fn notes(&self) -> &[String] {
        &[]
    }

    /// The next records, about [`RECORD_BATCH_BYTES`] of them, as a
    /// [`Column::Struct`] of the template's shape; `None` at the end.
    fn next_batch(&mut self) -> Result<Option<Column>>;
}

/// Opens a new [`RecordSource`] on the same records, from the start: for
/// a sink that reads them twice (a `.npy` file sizes its strings first).
pub type Reopen<'a> = &'a dyn Fn() -> Result<Box<dyn RecordSource>>;

/// A destination for records: it takes batches of columns, converts them
/// to what its format stores, and publishes the whole at once.
pub trait RecordSink {
    /// What to know about how the records will be written, one sentence
    /// each.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Writes every record of `source` and publishes them; returns the
    /// number of records. `reopen` gives the same records again from the
    /// start, for a sink that needs a first pass. Nothing appears at the
    /// destination when it fails.
    fn write_from(
        self: Box<Self>,
        source: &mut dyn RecordSource,
        reopen: Reopen<'_>,
        progress: Progress<'_>,
    ) -> Result<u64>;
}

/// How a format opens the member of a file that holds variable records:
/// `None` when the member holds plain elements (its [`Source`](crate::Source)
/// reads them).
pub(crate) type OpenRecords =
    fn(&Path, &crate::ReadOptions) -> Result<Option<Box<dyn RecordSource>>>;

/// How a format makes a sink of records at a path, for a source's records.
pub(crate) type CreateRecords =
    fn(&Path, &dyn RecordSource, &crate::SinkOptions) -> Result<Box<dyn RecordSink>>;

//! Records with variable-length and nullable members (strings, lists,
//! options) as a source and a sink: what a [`Source`](crate::Source)'s
//! packed bytes cannot carry. They move as batches of neutral columns
//! ([`Column::Struct`], one field per member), the shape every format
//! crate already turns into its own storage and back, so that no Rust
//! type is needed between two files.

use std::path::Path;

use ndl_runtime::Datatype;
use ndl_runtime::ndl::{Attribute, NameMap};
use ndl_runtime::record::Column;

use crate::error::{Error, Result};
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

    /// The records' name, as a destination that names its datasets (HDF5)
    /// calls it: the dataset read from a file of several, else the
    /// file's name without its ending (as [`Source::array_name`]).
    ///
    /// [`Source::array_name`]: crate::Source::array_name
    fn array_name(&self) -> String {
        crate::contents::stem(self.origin().location)
    }

    /// What the reader should know about how the records were read, one
    /// sentence each.
    fn notes(&self) -> &[String] {
        &[]
    }

    /// Whether the records are a dataset another tool wrote, read as a
    /// table (xarray's variables along one dimension, strings among
    /// them), as [`Source::is_part_of_dataset`] says of arrays: a
    /// destination that holds a dataset takes it whole, as it is.
    ///
    /// [`Source::is_part_of_dataset`]: crate::Source::is_part_of_dataset
    fn is_part_of_dataset(&self) -> bool {
        false
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

/// Refuses, for a destination at `path` in a format without nulls (`what`:
/// "a `.npy` file"), records with an option that has no fill, naming the
/// first such column and the `--fill` that gives one.
pub(crate) fn require_fills(path: &Path, origin: &RecordOrigin<'_>, what: &str) -> Result<()> {
    let Some(column) = first_unfilled(origin.template) else {
        return Ok(());
    };
    let mut template = origin.template.clone();
    let found = template.member_mut(&column);
    // An option among a list's items: no `--fill` names them.
    let lists = match found.as_deref() {
        Some(Column::Nullable { values, .. }) => Some(&**values),
        other => other,
    };
    if lists.is_some_and(holds_null_items) {
        return Err(Error::Unsupported {
            path: path.to_path_buf(),
            message: format!(
                "the lists of column `{column}` of {} may hold null items, which {what} \
                 cannot hold and no --fill stands for: convert to Parquet or Arrow IPC, \
                 which hold them",
                origin.location.display()
            ),
        });
    }
    let advice = match found {
        Some(Column::Nullable { values, .. }) => match &**values {
            Column::List { .. } => {
                format!("write its nulls as empty lists with `--fill {column}=[]`")
            }
            Column::Struct { fields, .. } => format!(
                "give a value to stand for null in each of its fields, such as `--fill \
                 {column}.{}=VALUE`",
                fields.first().map_or("FIELD", |(name, _)| name.as_str())
            ),
            _ => format!("give a value to stand for null with `--fill {column}=VALUE`"),
        },
        _ => format!("give a value to stand for null with `--fill {column}=VALUE`"),
    };
    Err(Error::Unsupported {
        path: path.to_path_buf(),
        message: format!(
            "column `{column}` of {} may be null, and {what} has no nulls: {advice}",
            origin.location.display()
        ),
    })
}

/// Whether `column` is lists (of lists) whose items may be null.
pub(crate) fn holds_null_items(column: &Column) -> bool {
    match column {
        Column::List { values, .. } | Column::FixedList { values, .. } => {
            matches!(**values, Column::Nullable { .. }) || holds_null_items(values)
        }
        _ => false,
    }
}

/// The dotted path of the first option without a fill in `template`.
pub(crate) fn first_unfilled(template: &Column) -> Option<String> {
    first_where(template, &|c| {
        matches!(c, Column::Nullable { fill: None, .. })
    })
}

/// The dotted path of the first variable-length list in `template`.
pub(crate) fn first_list(template: &Column) -> Option<String> {
    first_where(template, &|c| matches!(c, Column::List { .. }))
}

/// The dotted path of the first column of `template`, fields searched in
/// order and depth first, for which `is` holds.
fn first_where(template: &Column, is: &dyn Fn(&Column) -> bool) -> Option<String> {
    if is(template) {
        return Some(String::new());
    }
    let join = |name: &str, inner: String| match inner.is_empty() {
        true => name.to_owned(),
        false => format!("{name}.{inner}"),
    };
    match template {
        Column::Struct { fields, .. } => fields
            .iter()
            .find_map(|(name, c)| first_where(c, is).map(|inner| join(name, inner))),
        Column::Nullable { values, .. }
        | Column::List { values, .. }
        | Column::FixedList { values, .. } => first_where(values, is),
        _ => None,
    }
}

/// Records held in memory, a batch per slice, for the tests of sinks.
#[cfg(test)]
pub(crate) mod memory {
    use std::collections::VecDeque;
    use std::path::PathBuf;

    use ndl_runtime::record::{Column, Columns};
    use ndl_runtime::{Datatype, Record};

    use super::{RecordOrigin, RecordSource};
    use crate::error::Result;

    /// The batches of typed records, as a source would read them.
    pub(crate) struct MemorySource {
        datatype: Datatype,
        template: Column,
        batches: VecDeque<Column>,
        len: u64,
        location: PathBuf,
    }

    impl MemorySource {
        pub(crate) fn new<T: Record>(batches: &[&[T]]) -> MemorySource {
            let columns = |records: &[T]| {
                let mut c = T::Columns::with_capacity(records.len());
                c.extend(records);
                c.finish()
            };
            MemorySource {
                datatype: T::datatype(),
                template: columns(&[]),
                batches: batches.iter().map(|b| columns(b)).collect(),
                len: batches.iter().map(|b| b.len() as u64).sum(),
                location: PathBuf::from("memory"),
            }
        }
    }

    impl RecordSource for MemorySource {
        fn origin(&self) -> RecordOrigin<'_> {
            RecordOrigin {
                datatype: &self.datatype,
                template: &self.template,
                len: Some(self.len),
                location: &self.location,
            }
        }

        fn next_batch(&mut self) -> Result<Option<Column>> {
            Ok(self.batches.pop_front())
        }
    }
}

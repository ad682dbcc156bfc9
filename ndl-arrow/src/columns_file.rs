//! Parquet and Arrow IPC files of records whose type is known only at
//! run time, read and written as neutral columns
//! ([`Column`](ndl_runtime::record::Column)) a batch at a time: what
//! `ndl convert` moves between formats when records hold strings, lists
//! or nulls.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use ndl_runtime::Datatype;
use ndl_runtime::record::Column;

use crate::batch_file::{BatchSource, Target, counted_from};
use crate::batches::Sink;
use crate::error::Error;
use crate::options::{ReadOptions, WriteOptions};
use crate::variable::{columns_from_batch, columns_schema, columns_to_batch};

/// The records of a Parquet file or an Arrow IPC file or stream, read as
/// columns of the shape [`Column::template`] gives their datatype, about
/// a given number of bytes at a time.
///
/// ```
/// use ndl_runtime::record::Column;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("t.parquet");
/// #[derive(ndl_runtime::Record, Debug, PartialEq)]
/// struct Row { name: String, score: Option<i32> }
/// let rows = [Row { name: "ä".into(), score: None }, Row { name: "".into(), score: Some(3) }];
/// ndl_arrow::write_parquet(&path, &rows)?;
/// let mut reader = ndl_arrow::ColumnsReader::open_parquet(&path, &Default::default(), 1)?;
/// assert_eq!(reader.len(), 2);
/// let first = reader.next_columns()?.unwrap();
/// assert_eq!(first.len(), 1);
/// assert!(reader.next_columns()?.is_some());
/// assert!(reader.next_columns()?.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ColumnsReader {
    batches: Box<dyn BatchSource>,
    datatype: Datatype,
    template: Column,
    options: ReadOptions,
    path: PathBuf,
    len: u64,
    /// What is left of the last batch read.
    pending: Option<RecordBatch>,
    rows_per_batch: usize,
    /// The records read so far.
    read: u64,
}

impl std::fmt::Debug for ColumnsReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ColumnsReader")
            .field("path", &self.path)
            .field("datatype", &self.datatype)
            .field("read", &self.read)
            .finish()
    }
}

impl ColumnsReader {
    /// Opens a Parquet file, whose records' datatype is the one
    /// [`describe_parquet`](crate::describe_parquet) gives (nullable
    /// columns that hold nulls `optional`); batches hold about
    /// `batch_bytes` of records, and at least one.
    ///
    /// # Errors
    /// A file that is no Parquet file, is cut short, or whose columns
    /// have no column form (references).
    pub fn open_parquet(
        path: impl AsRef<Path>,
        options: &ReadOptions,
        batch_bytes: usize,
    ) -> Result<ColumnsReader, Error> {
        let path = path.as_ref();
        let (datatype, _) = crate::describe_parquet(path)?;
        ColumnsReader::open_parquet_as(path, &datatype, options, batch_bytes)
    }

    /// Opens a Parquet file to read records of `datatype` from it (one
    /// [`describe_parquet`](crate::describe_parquet) gave, say), the
    /// columns matched by name.
    ///
    /// # Errors
    /// As [`open_parquet`](Self::open_parquet); columns that do not hold
    /// records of `datatype`.
    pub fn open_parquet_as(
        path: impl AsRef<Path>,
        datatype: &Datatype,
        options: &ReadOptions,
        batch_bytes: usize,
    ) -> Result<ColumnsReader, Error> {
        let path = path.as_ref();
        let open = || {
            let template = template(datatype)?;
            let target = Target::Columns(datatype, &template);
            let reader = crate::parquet_file::Reader::open(path, target, options, 0)?;
            Ok(Opened {
                len: reader.rows,
                row_bytes: reader.record,
                batches: Box::new(reader),
                datatype: datatype.clone(),
                template,
            })
        };
        ColumnsReader::new(path, open(), options, batch_bytes)
    }

    /// Opens an Arrow IPC file or stream (see [`open_parquet`](Self::open_parquet)).
    ///
    /// # Errors
    /// As [`open_parquet`](Self::open_parquet).
    pub fn open_ipc(
        path: impl AsRef<Path>,
        options: &ReadOptions,
        batch_bytes: usize,
    ) -> Result<ColumnsReader, Error> {
        let path = path.as_ref();
        let (datatype, _) = crate::describe_ipc(path)?;
        ColumnsReader::open_ipc_as(path, &datatype, options, batch_bytes)
    }

    /// Opens an Arrow IPC file or stream to read records of `datatype`
    /// (see [`open_parquet_as`](Self::open_parquet_as)).
    ///
    /// # Errors
    /// As [`open_parquet_as`](Self::open_parquet_as).
    pub fn open_ipc_as(
        path: impl AsRef<Path>,
        datatype: &Datatype,
        options: &ReadOptions,
        batch_bytes: usize,
    ) -> Result<ColumnsReader, Error> {
        let path = path.as_ref();
        let open = || {
            let template = template(datatype)?;
            let target = Target::Columns(datatype, &template);
            let reader = crate::ipc::Reader::open(path, target, options)?;
            let size = std::fs::metadata(path).map_err(Error::Io)?.len();
            let len = reader.rows;
            Ok(Opened {
                len,
                row_bytes: usize::try_from(size / len.max(1)).unwrap_or(usize::MAX),
                batches: Box::new(reader),
                datatype: datatype.clone(),
                template,
            })
        };
        ColumnsReader::new(path, open(), options, batch_bytes)
    }

    fn new(
        path: &Path,
        opened: Result<Opened, Error>,
        options: &ReadOptions,
        batch_bytes: usize,
    ) -> Result<ColumnsReader, Error> {
        let opened = opened.map_err(Error::in_file(path))?;
        Ok(ColumnsReader {
            batches: opened.batches,
            datatype: opened.datatype,
            template: opened.template,
            options: *options,
            path: path.to_owned(),
            len: opened.len,
            pending: None,
            rows_per_batch: (batch_bytes / opened.row_bytes.max(1)).max(1),
            read: 0,
        })
    }

    /// The datatype of the records: a compound, unless the file holds one
    /// column named `value`.
    pub fn datatype(&self) -> &Datatype {
        &self.datatype
    }

    /// The shape of every batch ([`Column::template`] of the datatype).
    pub fn template(&self) -> &Column {
        &self.template
    }

    /// The number of records the file says it holds.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file holds no records.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The next records as a column of the template's shape; `None` at
    /// the end.
    ///
    /// # Errors
    /// A damaged file; a value the datatype refuses, naming the column
    /// and the record counted from the start of the file.
    pub fn next_columns(&mut self) -> Result<Option<Column>, Error> {
        self.next_inner().map_err(Error::in_file(&self.path))
    }

    fn next_inner(&mut self) -> Result<Option<Column>, Error> {
        let batch = loop {
            match self.pending.take() {
                Some(b) if b.num_rows() > 0 => break b,
                _ => match self.batches.next_batch()? {
                    Some(b) => self.pending = Some(b),
                    None => return Ok(None),
                },
            }
        };
        let take = self.rows_per_batch.min(batch.num_rows());
        let part = batch.slice(0, take);
        self.pending = Some(batch.slice(take, batch.num_rows() - take));
        let columns = columns_from_batch(&self.template, &part, &self.options)
            .map_err(counted_from(self.read, 0))?;
        self.read += take as u64;
        Ok(Some(columns))
    }
}

/// A file opened for its records' columns.
struct Opened {
    batches: Box<dyn BatchSource>,
    datatype: Datatype,
    template: Column,
    len: u64,
    /// About how many bytes of values a record holds.
    row_bytes: usize,
}

/// The column shape of records of `datatype`.
fn template(datatype: &Datatype) -> Result<Column, Error> {
    Column::template(datatype).map_err(|e| Error::Unsupported {
        column: e.field().to_owned(),
        datatype: e.message().to_owned(),
    })
}

/// A new Parquet file or Arrow IPC file or stream (`.arrows`) of records
/// of a runtime datatype, written from columns of the shape of its
/// template a batch at a time, appearing at its path only once finished.
///
/// ```
/// use ndl_runtime::record::Column;
///
/// #[derive(ndl_runtime::Record, Debug, PartialEq)]
/// struct Row { name: String, tags: Vec<String> }
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("t.arrow");
/// let dt = <Row as ndl_runtime::Record>::datatype();
/// let template = Column::template(&dt)?;
/// let rows = [Row { name: "a".into(), tags: vec!["x".into()] }];
/// let mut writer = ndl_arrow::ColumnsWriter::create_ipc(&path, &dt, &template, &Default::default())?;
/// writer.write(ndl_runtime::record::columns(&rows))?;
/// assert_eq!(writer.finish()?, 1);
/// assert_eq!(ndl_arrow::read_ipc::<Row>(&path)?, rows);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ColumnsWriter {
    sink: Sink,
    schema: SchemaRef,
    path: PathBuf,
    /// The records written so far.
    written: u64,
}

impl std::fmt::Debug for ColumnsWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ColumnsWriter")
            .field("path", &self.path)
            .field("written", &self.written)
            .finish()
    }
}

impl ColumnsWriter {
    /// Starts a Parquet file at `path` (staged beside it) for records of
    /// `datatype` held in columns of the shape of `template`, its schema
    /// [`columns_schema`](crate::columns_schema).
    ///
    /// # Errors
    /// A datatype with no Arrow form; the staged file cannot be made.
    pub fn create_parquet(
        path: impl AsRef<Path>,
        datatype: &Datatype,
        template: &Column,
        options: &WriteOptions,
    ) -> Result<ColumnsWriter, Error> {
        let path = path.as_ref();
        let make = |schema| Sink::create(path, true, schema, options);
        ColumnsWriter::create(path, datatype, template, make)
    }

    /// Starts an Arrow IPC file, or a stream for a path ending `.arrows`
    /// (see [`create_parquet`](Self::create_parquet)).
    ///
    /// # Errors
    /// As [`create_parquet`](Self::create_parquet).
    pub fn create_ipc(
        path: impl AsRef<Path>,
        datatype: &Datatype,
        template: &Column,
        options: &WriteOptions,
    ) -> Result<ColumnsWriter, Error> {
        let path = path.as_ref();
        let make = |schema| Sink::create(path, false, schema, options);
        ColumnsWriter::create(path, datatype, template, make)
    }

    fn create(
        path: &Path,
        datatype: &Datatype,
        template: &Column,
        make: impl FnOnce(SchemaRef) -> Result<Sink, Error>,
    ) -> Result<ColumnsWriter, Error> {
        let made = columns_schema(datatype, template)
            .map(Arc::new)
            .and_then(|schema| Ok((make(schema.clone())?, schema)));
        let (sink, schema) = made.map_err(Error::in_file(path))?;
        Ok(ColumnsWriter {
            sink,
            schema,
            path: path.to_owned(),
            written: 0,
        })
    }

    /// Writes the records held in `columns` (a [`Column::Struct`] of the
    /// template's shape).
    ///
    /// # Errors
    /// Columns not of the template's shape; more than 2 GiB of one
    /// column's strings or list items; values the datatype forbids,
    /// naming the column and the record counted from the start of the
    /// file.
    pub fn write(&mut self, columns: Column) -> Result<(), Error> {
        let n = columns.len();
        let batch = columns_to_batch(columns, n, self.schema.clone())
            .map_err(counted_from(self.written, 0))
            .map_err(Error::in_file(&self.path))?;
        self.sink.write(batch).map_err(Error::in_file(&self.path))?;
        self.written += n as u64;
        Ok(())
    }

    /// Completes the file and puts it at its path; returns the number of
    /// records written.
    ///
    /// # Errors
    /// The file cannot be completed or moved into place.
    pub fn finish(self) -> Result<u64, Error> {
        self.sink.finish().map_err(Error::in_file(&self.path))?;
        Ok(self.written)
    }
}

//! Record batches of Parquet and Arrow IPC files as the files hold them:
//! every column of every Arrow type (decimals, times of day, intervals,
//! binary, maps, dictionaries), nullability and schema metadata
//! included. What a copy from one such file to another moves, where
//! records would be the wrong interchange: no NDL datatype stands
//! between the two.

use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::batch_file::{BatchSink, BatchSource, Target};
use crate::error::Error;
use crate::options::{ReadOptions, WriteOptions};

/// The record batches of a Parquet file, or an Arrow IPC file or stream,
/// as the file holds them.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let (from, to) = (dir.path().join("t.parquet"), dir.path().join("t.arrow"));
/// #[derive(ndl_runtime::Record)]
/// struct Row { name: String, score: Option<i32> }
/// ndl_arrow::write_parquet(&from, &[Row { name: "ä".into(), score: None }])?;
/// let mut reader = ndl_arrow::BatchReader::open_parquet(&from)?;
/// let mut writer = ndl_arrow::BatchWriter::create_ipc(&to, reader.schema(), &Default::default())?;
/// while let Some(batch) = reader.next_batch()? {
///     writer.write(batch)?;
/// }
/// assert_eq!(writer.finish()?, 1);
/// let back: Vec<Row> = ndl_arrow::read_ipc(&to)?;
/// assert_eq!((back[0].name.as_str(), back[0].score), ("ä", None));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct BatchReader {
    batches: Box<dyn BatchSource + Send>,
    schema: SchemaRef,
    rows: u64,
    path: PathBuf,
}

impl std::fmt::Debug for BatchReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchReader")
            .field("path", &self.path)
            .field("rows", &self.rows)
            .finish()
    }
}

impl BatchReader {
    /// Opens a Parquet file, its column chunks checked against its length
    /// first; Spark's INT96 timestamps are read as ndl reads them.
    ///
    /// # Errors
    /// A file that is no Parquet file or is cut short, naming it.
    pub fn open_parquet(path: impl AsRef<Path>) -> Result<BatchReader, Error> {
        let path = path.as_ref();
        let opened = crate::parquet_file::Reader::open(path, Target::Whole, &ReadOptions::new(), 0)
            .map(|r| {
                (
                    r.schema(),
                    r.rows,
                    Box::new(r) as Box<dyn BatchSource + Send>,
                )
            });
        BatchReader::new(path, opened)
    }

    /// Opens an Arrow IPC file or stream (Feather v1 and big-endian files
    /// are refused by name).
    ///
    /// # Errors
    /// As [`open_parquet`](Self::open_parquet).
    pub fn open_ipc(path: impl AsRef<Path>) -> Result<BatchReader, Error> {
        let path = path.as_ref();
        let opened = crate::ipc::Reader::open(path, Target::Whole, &ReadOptions::new()).map(|r| {
            (
                r.schema(),
                r.rows,
                Box::new(r) as Box<dyn BatchSource + Send>,
            )
        });
        BatchReader::new(path, opened)
    }

    fn new(
        path: &Path,
        opened: Result<(SchemaRef, u64, Box<dyn BatchSource + Send>), Error>,
    ) -> Result<BatchReader, Error> {
        let (schema, rows, batches) = opened.map_err(Error::in_file(path))?;
        Ok(BatchReader {
            batches,
            schema,
            rows,
            path: path.to_owned(),
        })
    }

    /// The file's schema, its metadata included.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The rows the file says it holds.
    pub fn len(&self) -> u64 {
        self.rows
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The next batch; `None` at the end.
    ///
    /// # Errors
    /// A batch that cannot be decoded, naming the file.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>, Error> {
        self.batches
            .next_batch()
            .map_err(Error::in_file(&self.path))
    }
}

/// Either file being written.
pub(crate) enum Sink {
    Parquet(crate::parquet_sink::Sink),
    Ipc(crate::ipc::Sink),
}

impl Sink {
    /// A Parquet file, or an IPC file or stream, at `path`, staged beside it.
    pub(crate) fn create(
        path: &Path,
        parquet: bool,
        schema: SchemaRef,
        options: &WriteOptions,
    ) -> Result<Sink, Error> {
        match parquet {
            true => crate::parquet_sink::Sink::create(path, schema, options).map(Sink::Parquet),
            false => crate::ipc::Sink::create(path, schema, options).map(Sink::Ipc),
        }
    }

    pub(crate) fn write(&mut self, batch: RecordBatch) -> Result<(), Error> {
        match self {
            Sink::Parquet(s) => s.write(batch),
            Sink::Ipc(s) => s.write(batch),
        }
    }

    pub(crate) fn finish(self) -> Result<(), Error> {
        match self {
            Sink::Parquet(s) => s.finish(),
            Sink::Ipc(s) => s.finish(),
        }
    }
}

/// A new Parquet file, or Arrow IPC file or stream (`.arrows`), of
/// record batches of one schema, appearing at its path only once
/// finished (see [`BatchReader`]).
pub struct BatchWriter {
    sink: Sink,
    path: PathBuf,
    written: u64,
}

impl std::fmt::Debug for BatchWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchWriter")
            .field("path", &self.path)
            .field("written", &self.written)
            .finish()
    }
}

impl BatchWriter {
    /// Starts a Parquet file of batches of `schema`, with the codec, row
    /// groups and metadata of `options`.
    ///
    /// # Errors
    /// A schema Parquet cannot hold (a union, say); the staged file
    /// cannot be made.
    pub fn create_parquet(
        path: impl AsRef<Path>,
        schema: SchemaRef,
        options: &WriteOptions,
    ) -> Result<BatchWriter, Error> {
        BatchWriter::create(path.as_ref(), true, schema, options)
    }

    /// Starts an Arrow IPC file, or a stream for a path ending `.arrows`.
    ///
    /// # Errors
    /// As [`create_parquet`](Self::create_parquet).
    pub fn create_ipc(
        path: impl AsRef<Path>,
        schema: SchemaRef,
        options: &WriteOptions,
    ) -> Result<BatchWriter, Error> {
        BatchWriter::create(path.as_ref(), false, schema, options)
    }

    fn create(
        path: &Path,
        parquet: bool,
        schema: SchemaRef,
        options: &WriteOptions,
    ) -> Result<BatchWriter, Error> {
        let sink = Sink::create(path, parquet, schema, options).map_err(Error::in_file(path))?;
        Ok(BatchWriter {
            sink,
            path: path.to_owned(),
            written: 0,
        })
    }

    /// Writes one batch, of the schema the file was made for.
    ///
    /// # Errors
    /// A batch of another schema; the file cannot be written.
    pub fn write(&mut self, batch: RecordBatch) -> Result<(), Error> {
        let n = batch.num_rows() as u64;
        self.sink.write(batch).map_err(Error::in_file(&self.path))?;
        self.written += n;
        Ok(())
    }

    /// Completes the file and puts it at its path; returns the rows
    /// written.
    ///
    /// # Errors
    /// The file cannot be completed or moved into place.
    pub fn finish(self) -> Result<u64, Error> {
        self.sink.finish().map_err(Error::in_file(&self.path))?;
        Ok(self.written)
    }
}

//! Arrow IPC files (`.arrow`, `.feather` v2) of records: written a batch at
//! a time through a file that appears only once complete, read back a
//! batch at a time. Arrow IPC streams (`.arrows`, what pyarrow's
//! `ipc.new_stream` writes) are read too, told apart by their first
//! bytes.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_ipc::reader::{FileReader, StreamReader};
use arrow_ipc::writer::{FileWriter, StreamWriter};
use arrow_schema::{ArrowError, SchemaRef};
use ndl_runtime::{ByteOrder, Datatype, Record};

use crate::batch::try_schema;
use crate::batch_file::{BatchSink, BatchSource, RawSink, Target, append, next_records, read_all};
use crate::error::Error;
use crate::file::Staged;
use crate::ipc_check::Layout;
use crate::options::{ReadOptions, WriteOptions};
use crate::schema::stored_byte_order;

/// Writes `records` to a new Arrow IPC file at `path` (replacing any),
/// in batches of about 8 MiB; a path ending `.arrows` gets an Arrow IPC
/// stream instead. The file appears only once complete.
///
/// ```
/// use ndl_runtime::NdlType;
///
/// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
/// #[repr(C)]
/// struct Point { id: u32, x: f64 }
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("points.arrow");
/// let points = vec![Point { id: 1, x: 0.5 }];
/// ndl_arrow::write_ipc(&path, &points)?;
/// assert_eq!(ndl_arrow::read_ipc::<Point>(&path)?, points);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_ipc<T: Record>(path: impl AsRef<Path>, records: &[T]) -> Result<(), Error> {
    let mut writer = IpcWriter::create(path)?;
    writer.append(records)?;
    writer.finish().map(drop)
}

/// Reads every record of an Arrow IPC file or stream, its columns matched
/// to `T`'s members by name; columns `T` has no member for are refused
/// (see [`read_ipc_with`]).
///
/// # Errors
/// As [`read_parquet`](crate::read_parquet); and
/// [`Error::UnsupportedFile`] for a Feather v1 file or big-endian data.
pub fn read_ipc<T: Record>(path: impl AsRef<Path>) -> Result<Vec<T>, Error> {
    read_ipc_with(path, &ReadOptions::default())
}

/// [`read_ipc`] with options.
pub fn read_ipc_with<T: Record>(
    path: impl AsRef<Path>,
    options: &ReadOptions,
) -> Result<Vec<T>, Error> {
    let (path, dt) = (path.as_ref(), T::datatype());
    Reader::open(path, Target::of::<T>(&dt), options)
        .and_then(|mut reader| read_all(&mut reader, options))
        .map_err(Error::in_file(path))
}

/// An Arrow IPC file of `T` records being written: each
/// [`append`](Self::append) goes out in batches of about 8 MiB, and the
/// file appears at its path only on [`finish`](Self::finish). Dropped
/// unfinished, it leaves nothing.
///
/// ```
/// use ndl_runtime::NdlType;
///
/// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
/// #[repr(C)]
/// struct Tick { n: u64 }
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("ticks.feather");
/// let mut writer = ndl_arrow::IpcWriter::<Tick>::create(&path)?;
/// writer.append(&[Tick { n: 1 }, Tick { n: 2 }])?;
/// writer.finish()?;
/// assert_eq!(ndl_arrow::read_ipc::<Tick>(&path)?.len(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct IpcWriter<T> {
    sink: Sink,
    records: u64,
    _records: std::marker::PhantomData<fn(&T)>,
}

impl<T> std::fmt::Debug for IpcWriter<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IpcWriter")
            .field("path", &self.sink.staged.dest())
            .finish()
    }
}

impl<T: Record> IpcWriter<T> {
    /// Starts an Arrow IPC file of `T` records at `path` (a stream for a
    /// path ending `.arrows`), with the default [`WriteOptions`].
    pub fn create(path: impl AsRef<Path>) -> Result<IpcWriter<T>, Error> {
        IpcWriter::create_with(path, &WriteOptions::new())
    }

    /// [`create`](Self::create) with `options` (of which an IPC file
    /// takes [`durable`](WriteOptions::durable)).
    pub fn create_with(
        path: impl AsRef<Path>,
        options: &WriteOptions,
    ) -> Result<IpcWriter<T>, Error> {
        let path = path.as_ref();
        let sink = try_schema::<T>()
            .and_then(|schema| Sink::create(path, Arc::new(schema), options))
            .map_err(Error::in_file(path))?;
        Ok(IpcWriter {
            sink,
            records: 0,
            _records: std::marker::PhantomData,
        })
    }

    /// Writes `records`.
    pub fn append(&mut self, records: &[T]) -> Result<(), Error> {
        append(&mut self.sink, records, self.records)
            .map_err(Error::in_file(self.sink.staged.dest()))?;
        self.records += records.len() as u64;
        Ok(())
    }

    /// Completes the file and puts it at its path; returns the number of
    /// records it holds.
    pub fn finish(self) -> Result<u64, Error> {
        let path = self.sink.staged.dest().to_owned();
        self.sink.finish().map_err(Error::in_file(&path))?;
        Ok(self.records)
    }
}

/// An Arrow IPC file of records of a runtime datatype, handed in as
/// bytes; it appears at its path only on [`finish`](Self::finish), and
/// dropped unfinished leaves nothing.
///
/// ```
/// use ndl_arrow::{IpcRecordReader, IpcRecordWriter, ReadOptions};
/// use ndl_runtime::{ByteOrder, Datatype};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("t.arrow");
/// let mut writer = IpcRecordWriter::create(&path, &Datatype::UInt16, ByteOrder::Little)?;
/// writer.write(&[1, 0, 2, 0])?;
/// writer.finish()?;
///
/// let mut reader = IpcRecordReader::open(&path, &ReadOptions::default())?;
/// assert_eq!(reader.datatype(), &Datatype::UInt16);
/// assert_eq!(reader.next_records()?.unwrap(), [1u16.to_ne_bytes(), 2u16.to_ne_bytes()].concat());
/// assert_eq!(reader.next_records()?, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct IpcRecordWriter {
    raw: RawSink<Sink>,
    path: PathBuf,
}

impl IpcRecordWriter {
    /// Starts an Arrow IPC file at `path` of records of `datatype` whose
    /// numbers are in `order`.
    pub fn create(
        path: impl AsRef<Path>,
        datatype: &Datatype,
        order: ByteOrder,
    ) -> Result<IpcRecordWriter, Error> {
        IpcRecordWriter::create_with(path, datatype, order, &WriteOptions::new())
    }

    /// [`create`](Self::create) with `options` (of which an IPC file takes
    /// [`durable`](WriteOptions::durable) and
    /// [`metadata`](WriteOptions::metadata)).
    pub fn create_with(
        path: impl AsRef<Path>,
        datatype: &Datatype,
        order: ByteOrder,
        options: &WriteOptions,
    ) -> Result<IpcRecordWriter, Error> {
        let path = path.as_ref();
        let raw = RawSink::create(datatype, order, |schema| {
            Sink::create(path, schema, options)
        })
        .map_err(Error::in_file(path))?;
        Ok(IpcRecordWriter {
            raw,
            path: path.to_owned(),
        })
    }

    /// Writes whole records laid out as the datatype says.
    pub fn write(&mut self, records: &[u8]) -> Result<(), Error> {
        self.raw.write(records).map_err(Error::in_file(&self.path))
    }

    /// Completes the file and puts it at its path; returns the number of
    /// records it holds.
    pub fn finish(self) -> Result<u64, Error> {
        self.raw.finish().map_err(Error::in_file(&self.path))
    }
}

/// Reads the records of an Arrow IPC file as bytes of their datatype, a
/// stored batch at a time.
#[derive(Debug)]
pub struct IpcRecordReader {
    reader: Reader,
    options: ReadOptions,
    path: PathBuf,
    /// The records read so far.
    read: u64,
}

impl IpcRecordReader {
    /// Opens an Arrow IPC file; its records' datatype is the one its
    /// metadata keeps, or else one made of its columns (see
    /// [`datatype_of`](crate::datatype_of)).
    pub fn open(path: impl AsRef<Path>, options: &ReadOptions) -> Result<IpcRecordReader, Error> {
        IpcRecordReader::open_checked(path.as_ref(), None, options)
    }

    /// Opens an Arrow IPC file to read records of `datatype` from it, the
    /// columns matched by name.
    pub fn open_as(
        path: impl AsRef<Path>,
        datatype: &Datatype,
        options: &ReadOptions,
    ) -> Result<IpcRecordReader, Error> {
        IpcRecordReader::open_checked(path.as_ref(), Some(datatype), options)
    }

    fn open_checked(
        path: &Path,
        datatype: Option<&Datatype>,
        options: &ReadOptions,
    ) -> Result<IpcRecordReader, Error> {
        Ok(IpcRecordReader {
            reader: Reader::open(
                path,
                datatype.map_or(Target::Stored, Target::Plain),
                options,
            )
            .map_err(Error::in_file(path))?,
            options: *options,
            path: path.to_owned(),
            read: 0,
        })
    }

    /// The number of records in the file, as its record batches' headers
    /// say.
    pub fn len(&self) -> u64 {
        self.reader.rows
    }

    /// Whether the file holds no records.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The datatype of the records read.
    pub fn datatype(&self) -> &Datatype {
        &self.reader.datatype
    }

    /// The file's Arrow schema, its metadata included.
    pub fn schema(&self) -> SchemaRef {
        self.reader.batches.schema()
    }

    /// The byte order the records had when the file was written from
    /// bytes, as its metadata says ([`BYTE_ORDER_KEY`](crate::schema::BYTE_ORDER_KEY)).
    pub fn stored_byte_order(&self) -> Option<ByteOrder> {
        stored_byte_order(&self.reader.batches.schema())
    }

    /// The next records, laid out as [`datatype`](Self::datatype) says, in
    /// the options' byte order; `None` at the end.
    pub fn next_records(&mut self) -> Result<Option<Vec<u8>>, Error> {
        next_records(&mut self.reader, &self.options, &mut self.read)
            .map_err(Error::in_file(&self.path))
    }
}

/// An IPC file writer into a staged file.
pub(crate) struct Sink {
    writer: LayoutWriter,
    staged: Staged,
}

/// A writer of either IPC layout: a stream for a path ending `.arrows`
/// (the ending pyarrow's documentation gives streams), else a file.
enum LayoutWriter {
    File(FileWriter<BufWriter<File>>),
    Stream(StreamWriter<BufWriter<File>>),
}

impl LayoutWriter {
    fn create(path: &Path, out: BufWriter<File>, schema: &SchemaRef) -> Result<Self, ArrowError> {
        Ok(if path.extension().is_some_and(|e| e == "arrows") {
            LayoutWriter::Stream(StreamWriter::try_new(out, schema)?)
        } else {
            LayoutWriter::File(FileWriter::try_new(out, schema)?)
        })
    }

    fn write(&mut self, batch: &RecordBatch) -> Result<(), ArrowError> {
        match self {
            LayoutWriter::File(w) => w.write(batch),
            LayoutWriter::Stream(w) => w.write(batch),
        }
    }

    /// Ends the file or stream; returns what it went into.
    fn finish(self) -> Result<BufWriter<File>, ArrowError> {
        match self {
            LayoutWriter::File(mut w) => w.finish().and_then(|()| w.into_inner()),
            LayoutWriter::Stream(mut w) => w.finish().and_then(|()| w.into_inner()),
        }
    }
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sink")
            .field("path", &self.staged.dest())
            .finish()
    }
}

impl Sink {
    pub(crate) fn create(
        path: &Path,
        schema: SchemaRef,
        options: &WriteOptions,
    ) -> Result<Sink, Error> {
        let staged = Staged::create(path, options.durable)?;
        let schema = options.with_metadata(schema);
        let writer = LayoutWriter::create(path, staged.writer()?, &schema)
            .map_err(Error::arrow("starting the file"))?;
        Ok(Sink { writer, staged })
    }
}

impl BatchSink for Sink {
    fn write(&mut self, batch: RecordBatch) -> Result<(), Error> {
        self.writer
            .write(&batch)
            .map_err(Error::arrow("writing a record batch"))
    }

    fn finish(self) -> Result<(), Error> {
        let Sink { writer, staged } = self;
        let mut file = writer.finish().map_err(Error::arrow("ending the file"))?;
        std::io::Write::flush(&mut file).map_err(Error::Io)?;
        staged.publish()
    }
}

/// Record batches of an IPC file or stream, checked against a datatype
/// before any is read.
pub(crate) struct Reader {
    batches: Box<dyn RecordBatchReader + Send>,
    datatype: Datatype,
    /// The rows of every record batch, as the file's blocks say.
    pub(crate) rows: u64,
}

impl Reader {
    pub(crate) fn open(
        path: &Path,
        target: Target<'_>,
        options: &ReadOptions,
    ) -> Result<Reader, Error> {
        let (file, layout, rows) = crate::ipc_check::open_checked(path)?;
        let arrow = || Error::arrow("reading the schema");
        let batches: Box<dyn RecordBatchReader + Send> = match layout {
            Layout::File => Box::new(FileReader::try_new(file, None).map_err(arrow())?),
            Layout::Stream => Box::new(StreamReader::try_new(file, None).map_err(arrow())?),
        };
        let schema = batches.schema();
        let datatype = target.resolve(&schema, options)?;
        Ok(Reader {
            batches,
            datatype,
            rows,
        })
    }
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("datatype", &self.datatype)
            .field("rows", &self.rows)
            .finish()
    }
}

impl Reader {
    /// The file's schema.
    pub(crate) fn schema(&self) -> SchemaRef {
        self.batches.schema()
    }
}

impl BatchSource for Reader {
    fn next_batch(&mut self) -> Result<Option<RecordBatch>, Error> {
        self.batches
            .next()
            .transpose()
            .map_err(Error::arrow("reading a record batch"))
    }

    fn datatype(&self) -> &Datatype {
        &self.datatype
    }
}

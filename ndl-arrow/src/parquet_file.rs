//! Parquet files of records: written a row group at a time through a file
//! that appears only once complete, read back a batch at a time.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use ndl_runtime::{ByteOrder, Datatype, Record};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::file::metadata::ParquetMetaData;

use crate::batch::try_schema;
use crate::batch_file::{BatchSink, BatchSource, RawSink, Target, append, next_records, read_all};
use crate::error::Error;
use crate::file::{batch_rows, open};
use crate::options::{ReadOptions, WriteOptions};
use crate::parquet_int96::Int96Check;
use crate::parquet_sink::Sink;
use crate::schema::stored_byte_order;

/// Writes `records` to a new Parquet file at `path` (replacing any), with
/// [`default_writer_properties`](crate::default_writer_properties). The file appears only once complete.
///
/// ```
/// use ndl_runtime::NdlType;
///
/// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
/// #[repr(C)]
/// struct Point { id: u32, x: f64 }
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("points.parquet");
/// let points = vec![Point { id: 1, x: 0.5 }, Point { id: 2, x: -1.0 }];
/// ndl_arrow::write_parquet(&path, &points)?;
/// assert_eq!(ndl_arrow::read_parquet::<Point>(&path)?, points);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_parquet<T: Record>(path: impl AsRef<Path>, records: &[T]) -> Result<(), Error> {
    let mut writer = ParquetWriter::create(path)?;
    writer.append(records)?;
    writer.finish().map(drop)
}

/// Reads every record of a Parquet file: its columns matched to `T`'s
/// members by name, in any order, whoever wrote it; a file with columns
/// `T` has no member for is refused (see [`read_parquet_with`]).
///
/// # Errors
/// A file that is no Parquet file, a missing column, a wrong type, a null,
/// an enum name that is no member: each names the column.
pub fn read_parquet<T: Record>(path: impl AsRef<Path>) -> Result<Vec<T>, Error> {
    read_parquet_with(path, &ReadOptions::default())
}

/// [`read_parquet`] with options.
pub fn read_parquet_with<T: Record>(
    path: impl AsRef<Path>,
    options: &ReadOptions,
) -> Result<Vec<T>, Error> {
    let (path, dt) = (path.as_ref(), T::datatype());
    Reader::open(
        path,
        Target::of::<T>(&dt),
        options,
        std::mem::size_of::<T>(),
    )
    .and_then(|mut reader| read_all(&mut reader, options))
    .map_err(Error::in_file(path))
}

/// A Parquet file of `T` records being written: each [`append`](Self::append)
/// goes out in batches of about 8 MiB, row groups are flushed as they
/// fill, and the file appears at its path only on [`finish`](Self::finish).
/// Dropped unfinished, it leaves nothing.
///
/// ```
/// use ndl_runtime::NdlType;
///
/// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
/// #[repr(C)]
/// struct Tick { n: u64 }
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("ticks.parquet");
/// let mut writer = ndl_arrow::ParquetWriter::<Tick>::create(&path)?;
/// for n in 0..3 {
///     writer.append(&[Tick { n }])?;
/// }
/// assert!(!path.exists());
/// writer.finish()?;
/// assert_eq!(ndl_arrow::read_parquet::<Tick>(&path)?.len(), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ParquetWriter<T> {
    sink: Sink,
    records: u64,
    _records: PhantomData<fn(&T)>,
}

impl<T> std::fmt::Debug for ParquetWriter<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetWriter")
            .field("path", &self.sink.dest())
            .finish()
    }
}

impl<T: Record> ParquetWriter<T> {
    /// Starts a Parquet file of `T` records at `path`, with the default
    /// [`WriteOptions`].
    pub fn create(path: impl AsRef<Path>) -> Result<ParquetWriter<T>, Error> {
        ParquetWriter::create_with(path, &WriteOptions::new())
    }

    /// Starts a Parquet file of `T` records at `path` with `options`.
    pub fn create_with(
        path: impl AsRef<Path>,
        options: &WriteOptions,
    ) -> Result<ParquetWriter<T>, Error> {
        let path = path.as_ref();
        let sink = try_schema::<T>()
            .and_then(|schema| Sink::create(path, Arc::new(schema), options))
            .map_err(Error::in_file(path))?;
        Ok(ParquetWriter {
            sink,
            records: 0,
            _records: PhantomData,
        })
    }

    /// Writes `records`.
    pub fn append(&mut self, records: &[T]) -> Result<(), Error> {
        append(&mut self.sink, records, self.records).map_err(Error::in_file(self.sink.dest()))?;
        self.records += records.len() as u64;
        Ok(())
    }

    /// Completes the file and puts it at its path; returns the number of
    /// records it holds.
    pub fn finish(self) -> Result<u64, Error> {
        let path = self.sink.dest().to_owned();
        self.sink.finish().map_err(Error::in_file(&path))?;
        Ok(self.records)
    }
}

/// A Parquet file of records of a runtime datatype, handed in as bytes:
/// the writer `ndl convert` drives. As [`ParquetWriter`], it streams and
/// publishes the file only on [`finish`](Self::finish).
///
/// ```
/// use ndl_arrow::{ParquetRecordReader, ParquetRecordWriter, ReadOptions};
/// use ndl_runtime::{ByteOrder, Datatype};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("t.parquet");
/// let mut writer = ParquetRecordWriter::create(&path, &Datatype::Int16, ByteOrder::Big)?;
/// writer.write(&[0, 1, 0, 2])?;
/// writer.finish()?;
///
/// let mut reader = ParquetRecordReader::open(&path, &ReadOptions::default())?;
/// assert_eq!(reader.datatype(), &Datatype::Int16);
/// assert_eq!(reader.len(), 2);
/// let records = reader.next_records()?.unwrap();
/// assert_eq!(records, [1i16.to_ne_bytes(), 2i16.to_ne_bytes()].concat());
/// assert_eq!(reader.next_records()?, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ParquetRecordWriter {
    raw: RawSink<Sink>,
    path: PathBuf,
}

impl ParquetRecordWriter {
    /// Starts a Parquet file at `path` of records of `datatype` whose
    /// numbers are in `order`, with the default [`WriteOptions`].
    pub fn create(
        path: impl AsRef<Path>,
        datatype: &Datatype,
        order: ByteOrder,
    ) -> Result<ParquetRecordWriter, Error> {
        ParquetRecordWriter::create_with(path, datatype, order, &WriteOptions::new())
    }

    /// [`create`](Self::create) with `options`.
    pub fn create_with(
        path: impl AsRef<Path>,
        datatype: &Datatype,
        order: ByteOrder,
        options: &WriteOptions,
    ) -> Result<ParquetRecordWriter, Error> {
        let path = path.as_ref();
        let raw = RawSink::create(datatype, order, |schema| {
            Sink::create(path, schema, options)
        })
        .map_err(Error::in_file(path))?;
        Ok(ParquetRecordWriter {
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

/// Reads the records of a Parquet file as bytes of their datatype, a
/// batch of about 8 MiB at a time: the reader `ndl convert` drives.
#[derive(Debug)]
pub struct ParquetRecordReader {
    reader: Reader,
    options: ReadOptions,
    path: PathBuf,
    /// The records read so far.
    read: u64,
}

impl ParquetRecordReader {
    /// Opens a Parquet file; its records' datatype is the one its metadata
    /// keeps, or else one made of its columns (see [`datatype_of`](crate::datatype_of)).
    pub fn open(
        path: impl AsRef<Path>,
        options: &ReadOptions,
    ) -> Result<ParquetRecordReader, Error> {
        ParquetRecordReader::open_checked(path.as_ref(), None, options)
    }

    /// Opens a Parquet file to read records of `datatype` from it, the
    /// columns matched by name.
    pub fn open_as(
        path: impl AsRef<Path>,
        datatype: &Datatype,
        options: &ReadOptions,
    ) -> Result<ParquetRecordReader, Error> {
        ParquetRecordReader::open_checked(path.as_ref(), Some(datatype), options)
    }

    fn open_checked(
        path: &Path,
        datatype: Option<&Datatype>,
        options: &ReadOptions,
    ) -> Result<ParquetRecordReader, Error> {
        Ok(ParquetRecordReader {
            reader: Reader::open(
                path,
                datatype.map_or(Target::Stored, Target::Plain),
                options,
                0,
            )
            .map_err(Error::in_file(path))?,
            options: *options,
            path: path.to_owned(),
            read: 0,
        })
    }

    /// The datatype of the records read.
    pub fn datatype(&self) -> &Datatype {
        &self.reader.datatype
    }

    /// The file's Arrow schema, its metadata included.
    pub fn schema(&self) -> SchemaRef {
        self.reader.schema.clone()
    }

    /// The byte order the records had when the file was written from
    /// bytes, as its metadata says ([`BYTE_ORDER_KEY`](crate::schema::BYTE_ORDER_KEY)).
    pub fn stored_byte_order(&self) -> Option<ByteOrder> {
        stored_byte_order(&self.reader.schema)
    }

    /// The number of records the file says it holds.
    pub fn len(&self) -> u64 {
        self.reader.rows
    }

    /// Whether the file holds no records.
    pub fn is_empty(&self) -> bool {
        self.reader.rows == 0
    }

    /// The next records, laid out as [`datatype`](Self::datatype) says, in
    /// the options' byte order; `None` at the end.
    pub fn next_records(&mut self) -> Result<Option<Vec<u8>>, Error> {
        next_records(&mut self.reader, &self.options, &mut self.read)
            .map_err(Error::in_file(&self.path))
    }
}

/// Record batches of a Parquet file, checked against a datatype before any
/// is read, only the columns it needs decoded.
#[derive(Debug)]
pub(crate) struct Reader {
    batches: ParquetRecordBatchReader,
    datatype: Datatype,
    schema: SchemaRef,
    pub(crate) rows: u64,
    /// About how many bytes a record holds: its size, or for variable
    /// records an estimate from the row groups' sizes.
    pub(crate) record: usize,
    int96: Option<Int96Check>,
}

impl Reader {
    /// The file's schema.
    pub(crate) fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    pub(crate) fn open(
        path: &Path,
        target: Target<'_>,
        options: &ReadOptions,
        record: usize,
    ) -> Result<Reader, Error> {
        let file = open(path)?;
        let file_len = file.metadata().map_err(Error::Io)?.len();
        let builder = ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(Error::parquet("reading the footer"))?;
        check_chunks(builder.metadata(), file_len).map_err(|message| Error::Corrupt { message })?;
        let schema = builder.schema().clone();
        let datatype = target.resolve(&schema, options)?;
        let whole = matches!(target, Target::Whole);
        if whole {
            refuse_intervals(builder.metadata())?;
        }
        let wanted: Vec<usize> = schema
            .fields()
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                whole
                    || crate::schema::columns(&datatype)
                        .iter()
                        .any(|(name, _, _)| name == f.name())
            })
            .map(|(i, _)| i)
            .collect();
        let rows = u64::try_from(builder.metadata().file_metadata().num_rows()).unwrap_or(0);
        let record = match (record, datatype.size()) {
            (0, Some(size)) => size,
            (0, None) => row_bytes(builder.metadata(), rows),
            (record, _) => record,
        };
        let batch_size = batch_rows(record);
        let int96 = Int96Check::open(
            open(path)?,
            builder.metadata().clone(),
            &schema,
            &wanted,
            batch_size,
        )?;
        let mask = ProjectionMask::roots(builder.parquet_schema(), wanted);
        let batches = builder
            .with_projection(mask)
            .with_batch_size(batch_size)
            .build()
            .map_err(Error::parquet("reading the footer"))?;
        Ok(Reader {
            batches,
            datatype,
            schema,
            rows,
            record,
            int96,
        })
    }
}

impl BatchSource for Reader {
    fn next_batch(&mut self) -> Result<Option<RecordBatch>, Error> {
        let batch = self
            .batches
            .next()
            .transpose()
            .map_err(Error::arrow("reading a row group"))?;
        match (batch, &mut self.int96) {
            (Some(batch), Some(int96)) => int96.apply(batch).map(Some),
            (batch, _) => Ok(batch),
        }
    }

    fn datatype(&self) -> &Datatype {
        &self.datatype
    }
}

/// About how many bytes of values each of the `rows` rows of a file
/// holds, from its row groups' sizes.
fn row_bytes(metadata: &ParquetMetaData, rows: u64) -> usize {
    let bytes = metadata.row_groups().iter().fold(0u64, |sum, g| {
        sum.saturating_add(u64::try_from(g.total_byte_size()).unwrap_or(0))
    });
    usize::try_from(bytes / rows.max(1))
        .unwrap_or(usize::MAX)
        .max(1)
}

/// Refuses a file with a Parquet `INTERVAL` column (months, days and
/// milliseconds), which the parquet crate reads as Arrow's
/// `day_time_interval` without its months: a copy would lose them.
fn refuse_intervals(metadata: &ParquetMetaData) -> Result<(), Error> {
    let schema = metadata.file_metadata().schema_descr();
    let interval = schema
        .columns()
        .iter()
        .find(|c| c.converted_type() == parquet::basic::ConvertedType::INTERVAL);
    match interval {
        Some(column) => Err(Error::UnsupportedFile {
            message: format!(
                "column `{}` is a Parquet INTERVAL (months, days, milliseconds), which the parquet \
                 crate reads without its months, so it is not copied; pyarrow reads it as \
                 fixed_size_binary[12]",
                column.path().string()
            ),
        }),
        None => Ok(()),
    }
}

/// Checks that every column chunk the footer lists lies within the file
/// (the parquet crate panics on a negative offset), and that row counts
/// are not negative.
fn check_chunks(metadata: &ParquetMetaData, file_len: u64) -> Result<(), String> {
    for (g, group) in metadata.row_groups().iter().enumerate() {
        if group.num_rows() < 0 {
            return Err(format!("row group {g} has {} rows", group.num_rows()));
        }
        for column in group.columns() {
            let start = column
                .dictionary_page_offset()
                .unwrap_or(column.data_page_offset());
            let len = column.compressed_size();
            let within = u64::try_from(start)
                .ok()
                .zip(u64::try_from(len).ok())
                .and_then(|(start, len)| start.checked_add(len))
                .is_some_and(|end| end <= file_len);
            if !within {
                return Err(format!(
                    "row group {g}, column `{}`: {len} bytes at {start}, outside the file of {file_len} bytes",
                    column.column_path()
                ));
            }
        }
    }
    Ok(())
}

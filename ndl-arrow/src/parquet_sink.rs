//! Record batches into a Parquet file with the columns of each row group
//! encoded on two threads: encoding (dictionaries, statistics, the codec)
//! is most of a write, and each column's is its own.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::sync::Mutex;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_writer::{
    ArrowColumnWriter, ArrowLeafColumn, ArrowRowGroupWriterFactory, compute_leaves,
};
use parquet::file::writer::SerializedFileWriter;

use crate::batch_file::BatchSink;
use crate::error::Error;
use crate::file::Staged;
use crate::options::WriteOptions;

/// Threads that encode the columns of a batch.
const ENCODERS: usize = 2;

/// A Parquet file being written into a staged file, a row group at a time.
pub(crate) struct Sink {
    writer: SerializedFileWriter<BufWriter<File>>,
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    /// The column writers of the row group being filled, and its rows.
    row_group: Option<(Vec<ArrowColumnWriter>, usize)>,
    max_rows: usize,
    max_bytes: usize,
    staged: Staged,
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sink")
            .field("path", &self.staged.dest())
            .finish()
    }
}

impl Sink {
    pub fn create(path: &Path, schema: SchemaRef, options: &WriteOptions) -> Result<Sink, Error> {
        for field in schema.fields() {
            refuse_unions(field.name(), field.data_type())?;
        }
        let staged = Staged::create(path, options.durable)?;
        let properties = options.properties.clone();
        let schema = crate::parquet_time::schema(options.with_metadata(schema));
        let max_rows = properties.max_row_group_row_count().unwrap_or(usize::MAX);
        let max_bytes = properties.max_row_group_bytes().unwrap_or(usize::MAX);
        // ArrowWriter lays out the file (schema, its Arrow metadata) and
        // hands over the parts that write row groups.
        let (writer, factory) =
            ArrowWriter::try_new(staged.writer()?, schema.clone(), Some(properties))
                .and_then(ArrowWriter::into_serialized_writer)
                .map_err(Error::parquet("starting the file"))?;
        Ok(Sink {
            writer,
            factory,
            schema,
            row_group: None,
            max_rows: max_rows.max(1),
            max_bytes,
            staged,
        })
    }

    /// Where the file goes.
    pub fn dest(&self) -> &Path {
        self.staged.dest()
    }

    /// Encodes `batch`, which fits the row group being filled, into it.
    fn encode(&mut self, batch: &RecordBatch) -> Result<(), Error> {
        let (writers, rows) = match &mut self.row_group {
            Some(group) => group,
            slot => {
                let index = self.writer.flushed_row_groups().len();
                let writers = self
                    .factory
                    .create_column_writers(index)
                    .map_err(Error::parquet("writing a row group"))?;
                slot.insert((writers, 0))
            }
        };
        let mut leaves: Vec<ArrowLeafColumn> = Vec::with_capacity(writers.len());
        for (field, column) in self.schema.fields().iter().zip(batch.columns()) {
            leaves.extend(
                compute_leaves(field, column).map_err(Error::parquet("writing a row group"))?,
            );
        }
        let work = Mutex::new(writers.iter_mut().zip(&leaves));
        let encode = || -> parquet::errors::Result<()> {
            loop {
                let next = work.lock().unwrap_or_else(|p| p.into_inner()).next();
                let Some((writer, leaf)) = next else {
                    return Ok(());
                };
                writer.write(leaf)?;
            }
        };
        std::thread::scope(|s| {
            let others: Vec<_> = (1..ENCODERS).map(|_| s.spawn(encode)).collect();
            let mine = encode();
            others
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .fold(mine, Result::and)
        })
        .map_err(Error::parquet("writing a row group"))?;
        *rows += batch.num_rows();
        Ok(())
    }

    /// The rows the row group being filled still takes, by its limits of
    /// rows and of bytes: estimated from the rows encoded so far, or for
    /// an empty one from `incoming`'s bytes a row in memory.
    fn room(&self, incoming: &RecordBatch) -> usize {
        let (bytes, rows) = match &self.row_group {
            Some((writers, rows)) => (
                writers.iter().map(|w| w.get_estimated_total_bytes()).sum(),
                *rows,
            ),
            None => (0, 0),
        };
        let left = self.max_rows.saturating_sub(rows);
        if self.max_bytes == usize::MAX {
            return left;
        }
        if bytes >= self.max_bytes {
            return 0;
        }
        let per_row = match rows {
            0 => incoming.get_array_memory_size() / incoming.num_rows().max(1),
            n => bytes / n,
        };
        left.min(((self.max_bytes - bytes) / per_row.max(1)).max(1))
    }

    /// Closes the row group being filled (its columns on both threads)
    /// and writes it to the file.
    fn flush(&mut self) -> Result<(), Error> {
        let Some((writers, _)) = self.row_group.take() else {
            return Ok(());
        };
        let mut slots: Vec<Option<ArrowColumnWriter>> = writers.into_iter().map(Some).collect();
        let chunks = Mutex::new(Vec::with_capacity(slots.len()));
        let work = Mutex::new(slots.iter_mut().enumerate());
        let close = || -> parquet::errors::Result<()> {
            loop {
                let next = work.lock().unwrap_or_else(|p| p.into_inner()).next();
                let Some((i, slot)) = next else {
                    return Ok(());
                };
                let chunk = slot.take().expect("each column closed once").close()?;
                chunks
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((i, chunk));
            }
        };
        std::thread::scope(|s| {
            let others: Vec<_> = (1..ENCODERS).map(|_| s.spawn(close)).collect();
            let mine = close();
            others
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .fold(mine, Result::and)
        })
        .map_err(Error::parquet("writing a row group"))?;
        let mut chunks = chunks.into_inner().unwrap_or_else(|p| p.into_inner());
        chunks.sort_by_key(|(i, _)| *i);
        let mut row_group = self
            .writer
            .next_row_group()
            .map_err(Error::parquet("writing a row group"))?;
        for (_, chunk) in chunks {
            chunk
                .append_to_row_group(&mut row_group)
                .map_err(Error::parquet("writing a row group"))?;
        }
        row_group
            .close()
            .map_err(Error::parquet("writing a row group"))?;
        Ok(())
    }
}

impl BatchSink for Sink {
    fn write(&mut self, batch: RecordBatch) -> Result<(), Error> {
        let mut rest = crate::parquet_time::batch(batch)?;
        while rest.num_rows() > 0 {
            let room = self.room(&rest);
            if room == 0 {
                self.flush()?;
                continue;
            }
            let take = room.min(rest.num_rows());
            self.encode(&rest.slice(0, take))?;
            rest = rest.slice(take, rest.num_rows() - take);
            if take == room {
                self.flush()?;
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Result<(), Error> {
        self.flush()?;
        let Sink { writer, staged, .. } = self;
        let mut file = writer
            .into_inner()
            .map_err(Error::parquet("ending the file"))?;
        std::io::Write::flush(&mut file).map_err(Error::Io)?;
        staged.publish()
    }
}

/// Refuses a union anywhere in the column `column` of type `dt`, before
/// the parquet crate, which has no Parquet form for one, panics on it.
fn refuse_unions(column: &str, dt: &DataType) -> Result<(), Error> {
    let inner = |name: &str, dt: &DataType| refuse_unions(&format!("{column}.{name}"), dt);
    match dt {
        DataType::Union(..) => Err(Error::schema(
            column,
            "a union, which Parquet has no form for; write an Arrow IPC file instead",
        )),
        DataType::Struct(fields) => fields
            .iter()
            .try_for_each(|f| inner(f.name(), f.data_type())),
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::FixedSizeList(f, _)
        | DataType::Map(f, _) => refuse_unions(column, f.data_type()),
        DataType::Dictionary(_, values) => refuse_unions(column, values),
        DataType::RunEndEncoded(_, values) => refuse_unions(column, values.data_type()),
        _ => Ok(()),
    }
}

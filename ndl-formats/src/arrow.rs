//! Parquet and Arrow IPC files as a [`Source`] and a [`Sink`], through
//! ndl-arrow: records become columns and back, with the whole NDL
//! datatype and the records' byte order kept in the file's metadata, so a
//! `.npy` that goes through either comes back byte for byte.

use std::path::{Path, PathBuf};

use ndl_arrow::{
    IpcRecordReader, IpcRecordWriter, ParquetRecordReader, ParquetRecordWriter, RecordReader,
    WriteOptions,
};
use ndl_runtime::ByteOrder;
use ndl_runtime::ndl::{Attribute, NameMap, Storage};

use crate::column_file::{ColumnFile, in_file, metadata_from, source_at_fault};
use crate::contents::{Arrangement, Contents, Entry, stem};
use crate::error::{Error, Result};
use crate::format::FormatInfo;
use crate::sink::refuse_existing;
use crate::sink::{Progress, Sink};
use crate::source::{Handover, Origin, Source, for_each_batch};
use ndl_runtime::ArraySpec;

/// A reader of either file.
struct Reader(Box<dyn RecordReader>);

impl Reader {
    fn open(path: &Path, file: ColumnFile, options: &ndl_arrow::ReadOptions) -> Result<Reader> {
        let reader: Box<dyn RecordReader> = match file {
            ColumnFile::Parquet => {
                Box::new(ParquetRecordReader::open(path, options).map_err(in_file(path))?)
            }
            ColumnFile::Ipc => {
                Box::new(IpcRecordReader::open(path, options).map_err(in_file(path))?)
            }
        };
        Ok(Reader(reader))
    }

    /// Opens the file to read its records in the byte order they were
    /// written in (native for files others wrote).
    fn open_in_stored_order(path: &Path, file: ColumnFile) -> Result<Reader> {
        let first = Reader::open(path, file, &ndl_arrow::ReadOptions::default())?;
        let order = first.stored_byte_order();
        if order == ByteOrder::NATIVE {
            return Ok(first);
        }
        let options = ndl_arrow::ReadOptions::new().byte_order(order);
        Reader::open(path, file, &options)
    }

    fn stored_byte_order(&self) -> ByteOrder {
        self.0.stored_byte_order().unwrap_or(ByteOrder::NATIVE)
    }

    fn next_records(&mut self) -> std::result::Result<Option<Vec<u8>>, ndl_arrow::Error> {
        self.0.next_records()
    }

    fn spec(&self) -> ArraySpec {
        let mut spec = ArraySpec::new(self.0.datatype().clone(), vec![self.0.len()]);
        spec.byte_order = self.stored_byte_order();
        spec
    }
}

/// The records of a Parquet or Arrow IPC file, a row group or record
/// batch at a time.
pub struct ColumnFileSource {
    path: PathBuf,
    spec: ArraySpec,
    reader: Reader,
    pending: Handover,
    /// The schema metadata that others wrote, as attributes.
    attributes: NameMap<Attribute>,
}

impl ColumnFileSource {
    /// Opens the file at `path`.
    pub fn open(path: &Path, file: ColumnFile) -> Result<ColumnFileSource> {
        let reader = Reader::open_in_stored_order(path, file)?;
        Ok(ColumnFileSource {
            path: path.to_path_buf(),
            spec: reader.spec(),
            reader,
            pending: Handover::default(),
            attributes: crate::column_file::attributes_of(path, file)?,
        })
    }
}

impl Source for ColumnFileSource {
    fn origin(&self) -> Origin<'_> {
        Origin::new(&self.spec, &self.path)
    }

    fn attributes(&self) -> Option<&NameMap<Attribute>> {
        Some(&self.attributes).filter(|a| !a.is_empty())
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let size = self.spec.element_size().max(1);
        let (reader, path) = (&mut self.reader, &self.path);
        self.pending
            .fill(buf, size, || reader.next_records().map_err(in_file(path)))
    }
}

/// A new Parquet or Arrow IPC file, appearing only once complete.
pub struct ColumnFileSink {
    path: PathBuf,
    spec: ArraySpec,
    file: ColumnFile,
}

impl ColumnFileSink {
    /// A sink at `path`, which must not exist, for the records of
    /// `source`.
    pub fn create(path: &Path, source: &dyn Source, file: ColumnFile) -> Result<ColumnFileSink> {
        refuse_existing(path)?;
        let spec = source.spec();
        if spec.shape.len() != 1 {
            // The destination refuses what the source holds: both named.
            return Err(Error::Unsupported {
                path: path.to_path_buf(),
                message: format!(
                    "the array of {} has shape {:?}; a table holds one-dimensional arrays of records",
                    source.location().display(),
                    spec.shape
                ),
            });
        }
        Ok(ColumnFileSink {
            path: path.to_path_buf(),
            spec: spec.clone(),
            file,
        })
    }
}

/// The schema metadata of the attributes of `source`.
fn metadata_of(source: &dyn Source) -> WriteOptions {
    metadata_from(source.attributes())
}

/// A writer of either file.
enum Writer {
    Parquet(ParquetRecordWriter),
    Ipc(IpcRecordWriter),
}

impl Writer {
    fn write(&mut self, records: &[u8]) -> std::result::Result<(), ndl_arrow::Error> {
        match self {
            Writer::Parquet(w) => w.write(records),
            Writer::Ipc(w) => w.write(records),
        }
    }

    fn finish(self) -> std::result::Result<u64, ndl_arrow::Error> {
        match self {
            Writer::Parquet(w) => w.finish(),
            Writer::Ipc(w) => w.finish(),
        }
    }
}

impl Sink for ColumnFileSink {
    /// Fixed strings are Arrow `Utf8` and `Binary` values, their padding
    /// trimmed.
    fn variable_strings(&self) -> bool {
        true
    }

    fn write_from(self: Box<Self>, source: &mut dyn Source, progress: Progress<'_>) -> Result<u64> {
        let (path, dt, order) = (&self.path, &self.spec.datatype, self.spec.byte_order);
        let options = metadata_of(source);
        let mut writer = match self.file {
            ColumnFile::Parquet => Writer::Parquet(
                ParquetRecordWriter::create_with(path, dt, order, &options)
                    .map_err(in_file(path))?,
            ),
            ColumnFile::Ipc => Writer::Ipc(
                IpcRecordWriter::create_with(path, dt, order, &options).map_err(in_file(path))?,
            ),
        };
        let from = source.location().to_path_buf();
        let n = for_each_batch(source, |bytes, done| {
            writer
                .write(bytes)
                .map_err(|e| source_at_fault(&from, path, e))?;
            progress(done);
            Ok(())
        })?;
        writer.finish().map_err(in_file(path))?;
        Ok(n)
    }
}

/// The table of the file at `path`, as one array of records. Records
/// that reading as bytes refuses (columns of strings, lists, decimals)
/// and columns that hold nulls (`optional`) are described from the
/// schema and the null counts.
pub fn contents(path: &Path, file: ColumnFile) -> Result<Contents> {
    let described = schema_spec(path, file);
    let variable = described
        .as_ref()
        .is_some_and(|spec| spec.datatype.size().is_none());
    let spec = match (variable, described) {
        (true, Some(spec)) => spec,
        (_, described) => match Reader::open_in_stored_order(path, file) {
            Ok(reader) => reader.spec(),
            Err(refused) => described.ok_or(refused)?,
        },
    };
    let entry = Entry::new("/".into(), stem(path), spec, Storage::default());
    Ok(Contents::new(Arrangement::One, vec![entry]))
}

/// The spec of a file from its schema and null counts, if it has one.
fn schema_spec(path: &Path, file: ColumnFile) -> Option<ArraySpec> {
    let described = match file {
        ColumnFile::Parquet => ndl_arrow::describe_parquet(path),
        ColumnFile::Ipc => ndl_arrow::describe_ipc(path),
    };
    let (datatype, rows) = described.ok()?;
    Some(ArraySpec::new(datatype, vec![rows]))
}

/// Parquet, as the [registry](crate::FORMATS) lists it.
pub(crate) static PARQUET: FormatInfo = FormatInfo {
    name: "parquet",
    noun: "Parquet file",
    endings: &["parquet"],
    members: false,
    sidecar: false,
    crash_prone: false,
    settings: &[],
    recognises: |_, start| Ok(start.starts_with(b"PAR1")),
    configure: |_, _, _| Ok(()),
    open: |path, _| Ok(Box::new(ColumnFileSource::open(path, ColumnFile::Parquet)?)),
    create: Some(|path, source, _| {
        let sink = ColumnFileSink::create(path, source, ColumnFile::Parquet)?;
        Ok(Box::new(sink))
    }),
    open_records: Some(|path, _| crate::arrow_records::open_records(path, ColumnFile::Parquet)),
    create_records: Some(|path, source, _| {
        crate::arrow_records::create_records(path, source, ColumnFile::Parquet)
    }),
    keeps_mixed_byte_orders: |_, _| false,
    contents: |path, _| contents(path, ColumnFile::Parquet),
    batch_file: Some(ColumnFile::Parquet),
};

/// Arrow IPC files (Feather v2) and streams (`.arrows`), as the
/// [registry](crate::FORMATS) lists them. Feather v1 files are taken in
/// too, for ndl-arrow to refuse them by name.
pub(crate) static IPC: FormatInfo = FormatInfo {
    name: "arrow",
    noun: "Arrow IPC file or stream",
    endings: &["arrow", "arrows", "feather"],
    members: false,
    sidecar: false,
    crash_prone: false,
    settings: &[],
    // A stream starts with the continuation marker.
    recognises: |_, start| {
        Ok(start.starts_with(b"ARROW1")
            || start.starts_with(&[0xFF; 4])
            || start.starts_with(b"FEA1"))
    },
    configure: |_, _, _| Ok(()),
    open: |path, _| Ok(Box::new(ColumnFileSource::open(path, ColumnFile::Ipc)?)),
    create: Some(|path, source, _| {
        let sink = ColumnFileSink::create(path, source, ColumnFile::Ipc)?;
        Ok(Box::new(sink))
    }),
    open_records: Some(|path, _| crate::arrow_records::open_records(path, ColumnFile::Ipc)),
    create_records: Some(|path, source, _| {
        crate::arrow_records::create_records(path, source, ColumnFile::Ipc)
    }),
    keeps_mixed_byte_orders: |_, _| false,
    contents: |path, _| contents(path, ColumnFile::Ipc),
    batch_file: Some(ColumnFile::Ipc),
};

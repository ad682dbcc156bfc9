//! Variable records in Parquet and Arrow IPC files: a file of them read
//! as a [`RecordSource`](crate::RecordSource), and written from one.

use std::path::{Path, PathBuf};

use ndl_arrow::{ColumnsReader, ColumnsWriter};
use ndl_runtime::ndl::{Attribute, NameMap};
use ndl_runtime::record::Column;
use ndl_runtime::{Compound, Datatype, Opaque};

use crate::column_file::{ColumnFile, attributes_of, in_file, metadata_from, source_at_fault};
use crate::error::{Error, Result};
use crate::records::{RECORD_BATCH_BYTES, RecordOrigin, RecordSink, RecordSource, Reopen};
use crate::sink::Progress;
use crate::sink::refuse_existing;

/// The records of a Parquet file or Arrow IPC file or stream whose
/// columns hold strings, lists or nulls, a batch at a time.
pub struct ColumnFileRecords {
    reader: ColumnsReader,
    path: PathBuf,
    /// The schema metadata that others wrote, as attributes.
    attributes: NameMap<Attribute>,
}

impl RecordSource for ColumnFileRecords {
    fn origin(&self) -> RecordOrigin<'_> {
        RecordOrigin {
            datatype: self.reader.datatype(),
            template: self.reader.template(),
            len: Some(self.reader.len()),
            location: &self.path,
        }
    }

    fn next_batch(&mut self) -> Result<Option<Column>> {
        self.reader.next_columns().map_err(in_file(&self.path))
    }

    fn attributes(&self) -> Option<&NameMap<Attribute>> {
        Some(&self.attributes).filter(|a| !a.is_empty())
    }
}

/// The records of the file at `path`, read about `batch_bytes` at a
/// time, when a column is a string, a list, or holds nulls (see
/// [`ndl_arrow::describe_parquet`]); `None` when every column is plain,
/// for the byte path to read.
pub fn open(
    path: &Path,
    file: ColumnFile,
    batch_bytes: usize,
) -> Result<Option<ColumnFileRecords>> {
    let described = match file {
        ColumnFile::Parquet => ndl_arrow::describe_parquet(path),
        ColumnFile::Ipc => ndl_arrow::describe_ipc(path),
    };
    let (datatype, _) = described.map_err(in_file(path))?;
    let Datatype::Compound(compound) = &datatype else {
        return Ok(None);
    };
    if datatype.size().is_some() {
        return Ok(None);
    }
    refuse_arrow_only(path, compound, "")?;
    let options = ndl_arrow::ReadOptions::default();
    let reader = match file {
        ColumnFile::Parquet => {
            ColumnsReader::open_parquet_as(path, &datatype, &options, batch_bytes)
        }
        ColumnFile::Ipc => ColumnsReader::open_ipc_as(path, &datatype, &options, batch_bytes),
    };
    Ok(Some(ColumnFileRecords {
        reader: reader.map_err(in_file(path))?,
        path: path.to_path_buf(),
        attributes: attributes_of(path, file)?,
    }))
}

/// Refuses, naming the first, members that only Arrow holds (decimals,
/// times of day, intervals, nulls: opaque bytes tagged `arrow:`), which
/// no other format takes as values.
fn refuse_arrow_only(path: &Path, compound: &Compound, at: &str) -> Result<()> {
    for m in &compound.members {
        let column = match at {
            "" => m.name.clone(),
            _ => format!("{at}.{}", m.name),
        };
        match arrow_only(&m.datatype) {
            Some(Found::Tag(tag)) => {
                return Err(Error::Unsupported {
                    path: path.to_path_buf(),
                    message: format!(
                        "column `{column}` is of Arrow type `{}`, which no other format holds",
                        tag.trim_start_matches("arrow:")
                    ),
                });
            }
            Some(Found::Compound(inner)) => refuse_arrow_only(path, inner, &column)?,
            None => {}
        }
    }
    Ok(())
}

/// What [`arrow_only`] finds inside a datatype.
enum Found<'a> {
    Tag(&'a str),
    Compound(&'a Compound),
}

/// The `arrow:` tag of `dt` or of what it holds, or the compound inside
/// it to look into.
fn arrow_only(dt: &Datatype) -> Option<Found<'_>> {
    match dt {
        Datatype::Opaque(Opaque { tag: Some(tag), .. }) if tag.starts_with("arrow:") => {
            Some(Found::Tag(tag))
        }
        Datatype::Vlen(inner) | Datatype::Optional(inner) => arrow_only(inner),
        Datatype::Array(a) => arrow_only(&a.base),
        Datatype::Compound(c) => Some(Found::Compound(c)),
        _ => None,
    }
}

/// A new Parquet file or Arrow IPC file or stream of variable records:
/// strings as `Utf8`, `vlen` as `List`, nullable fields for `optional`
/// members only.
pub struct ColumnFileRecordSink {
    path: PathBuf,
    file: ColumnFile,
}

impl ColumnFileRecordSink {
    /// A sink at `path`, which must not exist, for the records of
    /// `source`, whose datatype must have an Arrow form.
    pub fn create(
        path: &Path,
        source: &dyn RecordSource,
        file: ColumnFile,
    ) -> Result<ColumnFileRecordSink> {
        refuse_existing(path)?;
        let origin = source.origin();
        ndl_arrow::columns_schema(origin.datatype, origin.template).map_err(in_file(path))?;
        Ok(ColumnFileRecordSink {
            path: path.to_path_buf(),
            file,
        })
    }
}

impl RecordSink for ColumnFileRecordSink {
    fn write_from(
        self: Box<Self>,
        source: &mut dyn RecordSource,
        _reopen: Reopen<'_>,
        progress: Progress<'_>,
    ) -> Result<u64> {
        let path = &self.path;
        let options = metadata_from(source.attributes());
        let origin = source.origin();
        let (datatype, template) = (origin.datatype.clone(), origin.template.clone());
        let from = origin.location.to_path_buf();
        let mut writer = match self.file {
            ColumnFile::Parquet => {
                ColumnsWriter::create_parquet(path, &datatype, &template, &options)
            }
            ColumnFile::Ipc => ColumnsWriter::create_ipc(path, &datatype, &template, &options),
        }
        .map_err(in_file(path))?;
        let mut done = 0u64;
        while let Some(batch) = source.next_batch()? {
            done += batch.len() as u64;
            writer
                .write(batch)
                .map_err(|e| source_at_fault(&from, path, e))?;
            progress(done);
        }
        writer.finish().map_err(in_file(path))
    }
}

/// How the registry opens a Parquet or IPC file's variable records.
pub(crate) fn open_records(path: &Path, file: ColumnFile) -> Result<Option<Box<dyn RecordSource>>> {
    let source = open(path, file, RECORD_BATCH_BYTES)?;
    Ok(source.map(|s| Box::new(s) as Box<dyn RecordSource>))
}

/// How the registry makes a Parquet or IPC sink of variable records.
pub(crate) fn create_records(
    path: &Path,
    source: &dyn RecordSource,
    file: ColumnFile,
) -> Result<Box<dyn RecordSink>> {
    Ok(Box::new(ColumnFileRecordSink::create(path, source, file)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndl_runtime::Record;

    #[derive(Record, Clone, Debug, PartialEq)]
    struct Place {
        name: String,
        depth: Option<f64>,
    }

    #[derive(Record, Clone, Debug, PartialEq)]
    struct Row {
        id: u32,
        label: String,
        levels: Vec<f32>,
        tags: Vec<String>,
        score: Option<i64>,
        note: Option<String>,
        place: Place,
    }

    fn rows() -> Vec<Row> {
        (0..5)
            .map(|i| Row {
                id: i,
                label: ["", "é", "日本語", "x", "long label"][i as usize].into(),
                levels: (0..i).map(|k| k as f32 / 2.0).collect(),
                tags: (0..i % 3).map(|k| format!("t{k}ü")).collect(),
                score: (i % 2 == 0).then_some(i64::from(i) * 10),
                note: (i % 3 == 1).then(|| format!("n{i}")),
                place: Place {
                    name: format!("p{i}"),
                    depth: (i != 2).then_some(f64::from(i)),
                },
            })
            .collect()
    }

    /// Every batch of `source`, checked to hold `per` records at most.
    fn drain(source: &mut dyn RecordSource, per: usize) -> Vec<Column> {
        let mut batches = Vec::new();
        while let Some(batch) = source.next_batch().unwrap() {
            assert!(batch.len() <= per && !batch.is_empty());
            batches.push(batch);
        }
        batches
    }

    #[test]
    fn records_cross_tiny_batches_both_ways_in_both_formats() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src.parquet");
        ndl_arrow::write_parquet(&src, &rows()).unwrap();
        // One byte a batch: one record each, strings and lists cut
        // between records.
        let mut source = open(&src, ColumnFile::Parquet, 1).unwrap().unwrap();
        assert_eq!(source.origin().len, Some(5));
        assert_eq!(drain(&mut source, 1).len(), 5);
        for (name, file) in [
            ("out.parquet", ColumnFile::Parquet),
            ("out.arrow", ColumnFile::Ipc),
            ("out.arrows", ColumnFile::Ipc),
        ] {
            let dest = dir.path().join(name);
            let mut source = open(&src, ColumnFile::Parquet, 1).unwrap().unwrap();
            let sink = Box::new(ColumnFileRecordSink::create(&dest, &source, file).unwrap());
            let reopen = || unreachable!("written in one pass");
            let written = sink.write_from(&mut source, &reopen, &|_| {}).unwrap();
            assert_eq!(written, 5);
            let back: Vec<Row> = match file {
                ColumnFile::Parquet => ndl_arrow::read_parquet(&dest).unwrap(),
                ColumnFile::Ipc => ndl_arrow::read_ipc(&dest).unwrap(),
            };
            assert_eq!(back, rows(), "{name}");
            // Read back from the copy in batches of two records.
            let mut again = open(&dest, file, 1).unwrap().unwrap();
            again.reader = match file {
                ColumnFile::Parquet => ColumnsReader::open_parquet(&dest, &Default::default(), 2),
                ColumnFile::Ipc => ColumnsReader::open_ipc(&dest, &Default::default(), 2),
            }
            .unwrap();
            let total: usize = drain(&mut again, 5).iter().map(Column::len).sum();
            assert_eq!(total, 5);
        }
    }

    #[test]
    fn plain_tables_take_the_byte_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plain.parquet");
        ndl_arrow::write_parquet(&path, &[1.5f64, 2.5]).unwrap();
        assert!(open(&path, ColumnFile::Parquet, 1).unwrap().is_none());
    }

    #[test]
    fn a_sink_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src.parquet");
        ndl_arrow::write_parquet(&src, &rows()).unwrap();
        let source = open(&src, ColumnFile::Parquet, 1).unwrap().unwrap();
        let err = ColumnFileRecordSink::create(&src, &source, ColumnFile::Parquet)
            .err()
            .unwrap();
        assert!(err.to_string().contains("src.parquet"), "{err}");
    }
}

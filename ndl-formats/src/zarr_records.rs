//! Variable records in a Zarr store's columns layout: a store of them
//! read as a [`RecordSource`](crate::RecordSource), and written from one.
//!
//! A group takes this path when its records have a string, list or option
//! (its `ndl_datatype` says so, or, for a group another tool wrote, an
//! array holds strings or is a CF contiguous ragged array). A group of
//! plain columns keeps the packed path, as netCDF columns do, even with
//! `_FillValue`s: its fills stay values. Within a group of variable
//! records, a column with a `_FillValue` is an `optional` field.
//!
//! Variable records are written in the columns layout whatever the
//! layout is by default: the records layout (one array of structs) has
//! no variable members, and `--layout records` is refused naming the
//! field.

use std::path::{Path, PathBuf};

use ndl_runtime::Datatype;
use ndl_runtime::record::Column;
use ndl_zarr::{StoreInfo, VariableRecordsReader, VariableRecordsWriter};

use ndl_runtime::ArraySpec;
use ndl_runtime::ndl::{Attribute, NameMap, Storage};

use crate::contents::{Arrangement, Contents, Entry, stem};
use crate::error::{Error, Result, in_store};
use crate::location::is_remote;
use crate::options::{SinkOptions, ZarrSinkOptions};
use crate::records::{
    RECORD_BATCH_BYTES, RecordOrigin, RecordSink, RecordSource, Reopen, require_fills,
};
use crate::sink::Progress;
use crate::sink::refuse_existing;

/// The records of the store at `path`, when it is a columns group of
/// variable records; `None` for any other store.
pub(crate) fn open_records(path: &Path) -> Result<Option<Box<dyn RecordSource>>> {
    Ok(ZarrRecordSource::open(path, RECORD_BATCH_BYTES)?.map(|s| Box::new(s) as _))
}

/// A sink writing `source`'s records as a columns group at `path`.
pub(crate) fn create_records(
    path: &Path,
    source: &dyn RecordSource,
    options: &SinkOptions,
) -> Result<Box<dyn RecordSink>> {
    Ok(Box::new(ZarrRecordSink::create(
        path,
        source,
        &options.zarr,
    )?))
}

/// A columns group of variable records, as written from them, as one
/// array of them, its datatype with `string`, `vlen` and `optional`
/// members; `None` for any other store. A group another tool wrote is a
/// dataset of its arrays, though they may be read as records.
pub(crate) fn contents(path: &Path) -> Result<Option<Contents>> {
    let ours = match StoreInfo::open(path)? {
        StoreInfo::Group(group) => group.written_datatype().is_some(),
        StoreInfo::Array(_) => false,
    };
    if !ours {
        return Ok(None);
    }
    let Some(reader) = VariableRecordsReader::open(path)? else {
        return Ok(None);
    };
    let spec = ArraySpec::new(reader.datatype().clone(), vec![reader.len()]);
    let entry = Entry::new("/".into(), stem(path), spec, Storage::default());
    Ok(Some(Contents::new(Arrangement::One, vec![entry])))
}

/// The records of a columns group, a batch of about `batch_bytes` at a
/// time.
pub(crate) struct ZarrRecordSource {
    path: PathBuf,
    reader: VariableRecordsReader,
    /// Whether another tool wrote the group.
    foreign: bool,
    /// Why its records cannot be read, if they cannot: a packed or
    /// `_Unsigned` array among them.
    refused: Option<Error>,
    /// Records per batch.
    batch: usize,
    /// The group's attributes, of records we wrote.
    attributes: NameMap<Attribute>,
}

impl ZarrRecordSource {
    /// Opens the records of the store at `path`, `None` when it holds no
    /// variable records.
    pub(crate) fn open(path: &Path, batch_bytes: usize) -> Result<Option<ZarrRecordSource>> {
        let Some(reader) = VariableRecordsReader::open(path)? else {
            return Ok(None);
        };
        // A group another tool wrote (ours of records names their
        // datatype) is a dataset: copied whole, it keeps its encodings, so
        // they are refused only once read as records.
        let (foreign, refused, attributes) = match StoreInfo::open(path)? {
            StoreInfo::Group(group) => (
                group.written_datatype().is_none(),
                crate::cf_table::refuse_encoded_arrays(path, &group).err(),
                crate::carried::zarr_table_attributes(&group),
            ),
            StoreInfo::Array(_) => (false, None, NameMap::new()),
        };
        let record = record_bytes(reader.datatype()).max(1);
        let mut batch = (batch_bytes / record).max(1) as u64;
        // Whole chunks of the fixed columns, where a batch holds one.
        let chunk = reader.chunk_len().max(1);
        if batch >= chunk {
            batch -= batch % chunk;
        }
        Ok(Some(ZarrRecordSource {
            path: path.to_path_buf(),
            reader,
            foreign,
            refused,
            batch: usize::try_from(batch).unwrap_or(usize::MAX),
            attributes,
        }))
    }
}

/// About how many bytes of values a record of `dt` holds: a string or a
/// list counted as a few items.
fn record_bytes(dt: &Datatype) -> usize {
    match dt {
        Datatype::Compound(c) => c.members.iter().map(|m| record_bytes(&m.datatype)).sum(),
        Datatype::String => 32,
        Datatype::Vlen(items) => 8 + 4 * record_bytes(items),
        Datatype::Optional(base) => 1 + record_bytes(base),
        other => other.size().unwrap_or(16),
    }
}

impl RecordSource for ZarrRecordSource {
    fn origin(&self) -> RecordOrigin<'_> {
        RecordOrigin {
            datatype: self.reader.datatype(),
            template: self.reader.template(),
            len: Some(self.reader.len()),
            location: &self.path,
        }
    }

    fn attributes(&self) -> Option<&NameMap<Attribute>> {
        Some(&self.attributes).filter(|a| !a.is_empty())
    }

    fn is_part_of_dataset(&self) -> bool {
        self.foreign
    }

    fn next_batch(&mut self) -> Result<Option<Column>> {
        if let Some(refused) = self.refused.take() {
            return Err(refused);
        }
        Ok(self.reader.next_batch(self.batch)?)
    }
}

/// A new columns group of variable records, published whole.
pub(crate) struct ZarrRecordSink {
    path: PathBuf,
    options: ZarrSinkOptions,
}

impl ZarrRecordSink {
    /// A sink at `path` for `source`'s records, refused before anything
    /// is written when they cannot be stored: the records layout asked
    /// for, an option without a fill.
    pub(crate) fn create(
        path: &Path,
        source: &dyn RecordSource,
        options: &ZarrSinkOptions,
    ) -> Result<ZarrRecordSink> {
        let origin = source.origin();
        let unsupported = |message: String| Error::Unsupported {
            path: path.to_path_buf(),
            message,
        };
        if options.records_layout_said {
            let field = origin.datatype.variable_member().unwrap_or_default();
            return Err(unsupported(format!(
                "field `{field}` is variable-length or optional, which the records layout (one \
                 array of structs) cannot hold: leave out --layout records; variable records are \
                 written in the columns layout (--layout columns)"
            )));
        }
        require_fills(path, &origin, "a Zarr store")?;
        if !is_remote(path) {
            refuse_existing(path)?;
        }
        let mut options = options.clone();
        let attributes = source.attributes().into_iter().flat_map(|a| a.iter());
        for (name, value) in crate::attribute_json::zarr_attributes(attributes) {
            options.zarr = options.zarr.attribute(name, value);
        }
        Ok(ZarrRecordSink {
            path: path.to_path_buf(),
            options,
        })
    }

    fn in_store(&self, e: ndl_zarr::Error) -> Error {
        in_store(&self.path, e)
    }
}

impl RecordSink for ZarrRecordSink {
    fn write_from(
        self: Box<Self>,
        source: &mut dyn RecordSource,
        _reopen: Reopen<'_>,
        progress: Progress<'_>,
    ) -> Result<u64> {
        let origin = source.origin();
        let (datatype, template) = (origin.datatype.clone(), origin.template.clone());
        let mut options = self
            .options
            .zarr
            .clone()
            .layout(ndl_zarr::Layout::Columns)
            .publish_on_finish(true);
        if let Some(n) = origin.len {
            options = options.expected_len(n);
        }
        let mut writer = VariableRecordsWriter::create(&self.path, &options, &datatype, &template)
            .map_err(|e| self.in_store(e))?;
        while let Some(batch) = source.next_batch()? {
            writer.append(&batch).map_err(|e| self.in_store(e))?;
            progress(writer.len());
        }
        writer.finish().map_err(|e| self.in_store(e))
    }
}

#[cfg(test)]
mod tests {
    use ndl_runtime::Record;
    use ndl_runtime::record::{columns, read};
    use ndl_zarr::{Layout, WriteOptions, ZarrFormat};

    use super::*;

    #[derive(Clone, Debug, PartialEq, Record)]
    struct Trade {
        id: u64,
        symbol: String,
        levels: Vec<f32>,
        tags: Vec<String>,
        #[ndl(fill = -1)]
        venue: Option<i32>,
        #[ndl(fill = f64::NAN)]
        fee: Option<f64>,
    }

    fn trades() -> Vec<Trade> {
        (0..7u64)
            .map(|i| Trade {
                id: i,
                symbol: ["", "ABC", "Ünïcødé ✓", "x"][i as usize % 4].into(),
                levels: (0..i % 3).map(|k| k as f32 + 0.5).collect(),
                tags: (0..(i + 1) % 3).map(|k| format!("t{k}é")).collect(),
                venue: (i % 2 == 0).then_some(i as i32),
                fee: (i % 3 != 0).then_some(i as f64 / 4.0),
            })
            .collect()
    }

    fn store(dir: &Path, format: ZarrFormat) -> PathBuf {
        let path = dir.join(format!("{format:?}.zarr"));
        let options = WriteOptions::new()
            .layout(Layout::Columns)
            .zarr_format(format)
            .chunk_len(3);
        options.write(&path, &trades()).unwrap();
        path
    }

    fn read_all(source: &mut dyn RecordSource) -> (Vec<Trade>, usize) {
        let (mut out, mut batches) = (Vec::new(), 0);
        while let Some(batch) = source.next_batch().unwrap() {
            out.extend(read::<Trade>(&batch.view()).unwrap());
            batches += 1;
        }
        (out, batches)
    }

    #[test]
    fn records_strings_and_lists_cross_batch_boundaries() {
        let dir = tempfile::tempdir().unwrap();
        for format in [ZarrFormat::V3, ZarrFormat::V2] {
            let path = store(dir.path(), format);
            for (bytes, batches) in [(1, 7), (2 * record_bytes(&Trade::datatype()), 4)] {
                let mut source = ZarrRecordSource::open(&path, bytes).unwrap().unwrap();
                assert_eq!(source.origin().len, Some(7));
                let Column::Struct { fields, .. } = source.origin().template else {
                    panic!("no struct template");
                };
                let fee = &fields.iter().find(|(n, _)| n == "fee").unwrap().1;
                assert!(matches!(fee, Column::Nullable { fill: Some(_), .. }));
                assert_eq!(read_all(&mut source), (trades(), batches), "{format:?}");
            }
        }
    }

    #[test]
    fn the_sink_writes_columns_a_batch_at_a_time_v3_and_v2() {
        let dir = tempfile::tempdir().unwrap();
        let path = store(dir.path(), ZarrFormat::V3);
        for format in [ZarrFormat::V3, ZarrFormat::V2] {
            let mut source = ZarrRecordSource::open(&path, 1).unwrap().unwrap();
            let dst = dir.path().join(format!("out-{format:?}.zarr"));
            let options = ZarrSinkOptions::new().zarr(WriteOptions::new().zarr_format(format));
            let sink = ZarrRecordSink::create(&dst, &source, &options).unwrap();
            let reopen = || -> Result<Box<dyn RecordSource>> { unreachable!() };
            let n = Box::new(sink)
                .write_from(&mut source, &reopen, &|_| {})
                .unwrap();
            assert_eq!(n, 7);
            assert_eq!(ndl_zarr::read::<Trade>(&dst).unwrap(), trades());
        }
    }

    /// Records of one option without a fill.
    struct Unfilled {
        datatype: Datatype,
        template: Column,
    }

    #[derive(Record)]
    struct Reading {
        value: Option<i32>,
    }

    impl RecordSource for Unfilled {
        fn origin(&self) -> RecordOrigin<'_> {
            RecordOrigin {
                datatype: &self.datatype,
                template: &self.template,
                len: Some(0),
                location: Path::new("in.parquet"),
            }
        }

        fn next_batch(&mut self) -> Result<Option<Column>> {
            Ok(None)
        }
    }

    #[test]
    fn an_option_without_fill_and_the_records_layout_are_refused_naming_the_column() {
        let dir = tempfile::tempdir().unwrap();
        let dst = dir.path().join("out.zarr");
        let source = Unfilled {
            datatype: Reading::datatype(),
            template: columns::<Reading>(&[]),
        };
        let Err(e) = ZarrRecordSink::create(&dst, &source, &ZarrSinkOptions::new()) else {
            panic!("an option without a fill was taken");
        };
        let message = e.to_string();
        assert!(message.contains("column `value`"), "{message}");
        assert!(message.contains("--fill value=VALUE"), "{message}");
        let mut options = ZarrSinkOptions::new();
        options.records_layout_said = true;
        let Err(e) = ZarrRecordSink::create(&dst, &source, &options) else {
            panic!("the records layout was taken");
        };
        let message = e.to_string();
        assert!(message.contains("field `value`"), "{message}");
        assert!(message.contains("--layout columns"), "{message}");
        assert!(!dst.exists());
    }
}

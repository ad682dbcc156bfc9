//! Variable records in an HDF5 compound dataset (see
//! `ndl_hdf5::RecordsWriter`): a dataset of them read as a
//! [`RecordSource`], and written from one, a block at a time.
//!
//! A dataset is read here when it is one-dimensional and its type is a
//! compound holding variable-length strings or sequences (h5py's
//! `string_dtype()` and `vlen_dtype()`), at any depth; any other dataset
//! (plain records, a dataset of strings alone) takes the byte path.

use std::path::{Path, PathBuf};

use ndl_hdf5::{Inventory, RecordsReader, RecordsWriter};
use ndl_runtime::ndl::{Attribute, NameMap};
use ndl_runtime::record::Column;

use crate::contents::join;
use crate::error::{Result, in_hdf5};
use crate::options::SinkOptions;
use crate::records::{
    RECORD_BATCH_BYTES, RecordOrigin, RecordSink, RecordSource, Reopen, require_fills,
};
use crate::sink::Progress;
use crate::sink::refuse_existing;

/// The records of the HDF5 dataset `member`, when its compound holds
/// variable-length members or options; `None` for any other dataset. It
/// is opened alone: a walk of the whole file would read every attribute,
/// and a damaged one elsewhere can make libhdf5 loop.
pub(crate) fn open_member(path: &Path, member: &str) -> Result<Option<Box<dyn RecordSource>>> {
    open_with(path, member, RECORD_BATCH_BYTES)
}

/// As [`open_member`], of the file's only dataset (dimension scales
/// aside) as `inventory` lists it, as the plain source picks it; `None`
/// when it holds another number of them.
pub(crate) fn open_only(
    path: &Path,
    inventory: &Inventory,
) -> Result<Option<Box<dyn RecordSource>>> {
    let mut data = inventory.datasets.iter().filter(|d| !d.is_scale);
    match (data.next(), data.next()) {
        (Some(d), None) => open_member(path, &join(&d.group, &d.name)),
        _ => Ok(None),
    }
}

/// As [`open_member`], reading about `batch_bytes` of records at a time.
fn open_with(
    path: &Path,
    dataset: &str,
    batch_bytes: usize,
) -> Result<Option<Box<dyn RecordSource>>> {
    if !RecordsReader::holds_records(path, dataset).map_err(in_hdf5(path))? {
        return Ok(None);
    }
    let reader = RecordsReader::open(path, dataset)
        .map_err(in_hdf5(path))?
        .with_block_bytes(batch_bytes);
    let name = dataset.rsplit('/').next().unwrap_or(dataset).to_string();
    let found = reader.attributes();
    let (attributes, notes) =
        crate::carried::records_attributes_taken((&name, reader.datatype()), (&found.0, &found.1));
    Ok(Some(Box::new(Hdf5RecordSource {
        reader,
        path: path.to_path_buf(),
        name,
        attributes,
        notes,
    })))
}

/// The records of one dataset, a block of them a batch.
struct Hdf5RecordSource {
    reader: RecordsReader,
    path: PathBuf,
    /// The dataset's name (the last part of its path).
    name: String,
    /// The dataset's attributes a copy takes, and a note of each left out.
    attributes: Option<NameMap<Attribute>>,
    notes: Vec<String>,
}

impl RecordSource for Hdf5RecordSource {
    fn array_name(&self) -> String {
        self.name.clone()
    }

    fn origin(&self) -> RecordOrigin<'_> {
        RecordOrigin {
            datatype: self.reader.datatype(),
            template: self.reader.template(),
            len: Some(self.reader.len()),
            location: &self.path,
        }
    }

    fn attributes(&self) -> Option<&NameMap<Attribute>> {
        self.attributes.as_ref()
    }

    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn next_batch(&mut self) -> Result<Option<Column>> {
        self.reader.next_block().map_err(in_hdf5(&self.path))
    }
}

/// A sink writing `source`'s records as one HDF5 compound dataset at `path`.
pub(crate) fn create_records(
    path: &Path,
    source: &dyn RecordSource,
    options: &SinkOptions,
) -> Result<Box<dyn RecordSink>> {
    refuse_existing(path)?;
    let origin = source.origin();
    require_fills(path, &origin, "an HDF5 file")?;
    let writer = RecordsWriter::create(
        path,
        &source.array_name(),
        origin.datatype,
        origin.template,
        &options.hdf5.options,
    )
    .map_err(in_hdf5(path))?;
    crate::hdf5_attributes::write_records(path, &writer, source)?;
    Ok(Box::new(Hdf5RecordSink {
        writer,
        path: path.to_path_buf(),
    }))
}

/// A new HDF5 file, published once every record is in it.
struct Hdf5RecordSink {
    writer: RecordsWriter,
    path: PathBuf,
}

impl RecordSink for Hdf5RecordSink {
    fn write_from(
        mut self: Box<Self>,
        source: &mut dyn RecordSource,
        _reopen: Reopen<'_>,
        progress: Progress<'_>,
    ) -> Result<u64> {
        while let Some(batch) = source.next_batch()? {
            self.writer.append(&batch).map_err(in_hdf5(&self.path))?;
            progress(self.writer.len());
        }
        self.writer.finish().map_err(in_hdf5(&self.path))
    }
}

#[cfg(test)]
mod tests {
    use ndl_runtime::Record;

    use super::*;

    #[derive(Clone, Debug, PartialEq, Record)]
    struct Venue {
        code: String,
        id: u16,
    }

    #[derive(Clone, Debug, PartialEq, Record)]
    struct Row {
        id: u64,
        name: String,
        levels: Vec<f32>,
        venue: Venue,
    }

    fn rows(n: u64) -> Vec<Row> {
        (0..n)
            .map(|i| Row {
                id: i,
                name: ["", "é", "日本語"][i as usize % 3].repeat(i as usize % 4),
                levels: (0..i % 4).map(|x| x as f32 - 0.5).collect(),
                venue: Venue {
                    code: format!("ü{i}"),
                    id: i as u16,
                },
            })
            .collect()
    }

    #[test]
    fn records_cross_tiny_batches_both_ways() {
        let dir = tempfile::tempdir().unwrap();
        let (src, dst) = (dir.path().join("rows.h5"), dir.path().join("out.h5"));
        let all = rows(40);
        ndl_hdf5::write(&src, "rows", &all).unwrap();
        // Two records a batch (48 bytes each in memory): strings and
        // sequences cross every boundary.
        let mut source = open_with(&src, "rows", 96).unwrap().unwrap();
        assert_eq!(source.origin().len, Some(40));
        let sink = create_records(&dst, source.as_ref(), &SinkOptions::new()).unwrap();
        let reopen = || -> Result<Box<dyn RecordSource>> { unreachable!() };
        let seen = std::cell::RefCell::new(Vec::new());
        let n = sink
            .write_from(source.as_mut(), &reopen, &|done| {
                seen.borrow_mut().push(done)
            })
            .unwrap();
        assert_eq!(n, 40);
        assert_eq!(seen.borrow().len(), 20, "{:?}", seen.borrow());
        assert_eq!(ndl_hdf5::read::<Row>(&dst, "rows").unwrap(), all);
    }

    #[test]
    fn plain_records_take_the_byte_path() {
        #[derive(Clone, Copy, Debug, PartialEq, ndl_runtime::NdlType)]
        #[repr(C)]
        struct Plain {
            id: u64,
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plain.h5");
        ndl_hdf5::write(&path, "plain", &[Plain { id: 1 }]).unwrap();
        let inventory = Inventory::of(&path).unwrap();
        assert!(open_only(&path, &inventory).unwrap().is_none());
        assert!(open_member(&path, "plain").unwrap().is_none());
    }
}

//! Variable records as netCDF-4 columns (see `ndl_hdf5::write_columns`):
//! a file of them read as a [`RecordSource`], and written from one.
//!
//! A file takes this path when its root's variables are a table along one
//! record dimension holding a `string` variable (two or more variables)
//! or a CF contiguous ragged array (a count variable with
//! `sample_dimension`): see `ndl_hdf5::RecordColumnsReader::open`. A
//! table of fixed-size variables alone, `_FillValue`s or not, keeps the
//! packed path (`Hdf5ColumnsSource`), which converts it to every format,
//! `.npy` included, its numbers as xarray reads them (`cf_table`).

use std::path::{Path, PathBuf};

use ndl_hdf5::{Inventory, RecordColumnsReader, RecordColumnsWriter};
use ndl_runtime::Datatype;
use ndl_runtime::ndl::{Attribute, NameMap};
use ndl_runtime::record::Column;

use crate::error::{Error, Result, in_hdf5};
use crate::options::SinkOptions;
use crate::records::{
    RECORD_BATCH_BYTES, RecordOrigin, RecordSink, RecordSource, Reopen, require_fills,
};
use crate::sink::Progress;

/// The records of a netCDF-4 file in the columns layout holding strings
/// or ragged arrays; `None` for any other file.
pub(crate) fn open_records(
    path: &Path,
    inventory: &Inventory,
) -> Result<Option<Box<dyn RecordSource>>> {
    let Some(mut source) = NetcdfColumnsSource::open(path, inventory, RECORD_BATCH_BYTES)? else {
        return Ok(None);
    };
    // Refused once read as records: copied whole, the dataset keeps its
    // encodings.
    source.refused = crate::cf_table::refuse_encoded_variables(path, inventory).err();
    Ok(Some(Box::new(source)))
}

/// A sink writing `source`'s records as netCDF-4 columns at `path`.
pub(crate) fn create_records(
    path: &Path,
    source: &dyn RecordSource,
    options: &SinkOptions,
) -> Result<Box<dyn RecordSink>> {
    let what = match options.hdf5.options.is_netcdf(path) {
        true => "a netCDF-4 file",
        false => "an HDF5 file",
    };
    require_fills(path, &source.origin(), what)?;
    Ok(Box::new(NetcdfColumnsSink {
        path: path.to_path_buf(),
        options: options.hdf5.options.clone(),
    }))
}

/// The records of netCDF-4 columns, read about `batch_bytes` at a time.
struct NetcdfColumnsSource {
    reader: RecordColumnsReader,
    path: PathBuf,
    records_per_batch: usize,
    /// Whether another tool wrote the table (ours says its datatype).
    foreign: bool,
    /// Why its records cannot be read, if they cannot: a packed or
    /// `_Unsigned` variable among them.
    refused: Option<crate::Error>,
    /// The file's attributes.
    attributes: NameMap<Attribute>,
}

impl NetcdfColumnsSource {
    fn open(
        path: &Path,
        inventory: &Inventory,
        batch_bytes: usize,
    ) -> Result<Option<NetcdfColumnsSource>> {
        let opened = RecordColumnsReader::open_in(path, inventory).map_err(in_hdf5(path))?;
        let Some(reader) = opened else {
            return Ok(None);
        };
        let records_per_batch = (batch_bytes as u64 / reader.record_bytes()).max(1) as usize;
        // Another tool's table (variable records do not say their
        // datatype) has the file's attributes too.
        let attributes = inventory.groups.first().map_or_else(NameMap::new, |root| {
            crate::carried::table_attributes((&root.attributes, &root.attribute_types))
        });
        Ok(Some(NetcdfColumnsSource {
            reader,
            path: path.to_path_buf(),
            records_per_batch,
            foreign: !written_as_columns(inventory),
            refused: None,
            attributes,
        }))
    }
}

impl RecordSource for NetcdfColumnsSource {
    fn origin(&self) -> RecordOrigin<'_> {
        RecordOrigin {
            datatype: self.reader.datatype(),
            template: self.reader.template(),
            len: Some(self.reader.len()),
            location: &self.path,
        }
    }

    fn is_part_of_dataset(&self) -> bool {
        self.foreign
    }

    fn attributes(&self) -> Option<&NameMap<Attribute>> {
        Some(&self.attributes).filter(|a| !a.is_empty())
    }

    fn next_batch(&mut self) -> Result<Option<Column>> {
        if let Some(refused) = self.refused.take() {
            return Err(refused);
        }
        self.reader
            .next_block(self.records_per_batch)
            .map_err(in_hdf5(&self.path))
    }
}

/// Writes records as netCDF-4 columns, a batch at a time.
struct NetcdfColumnsSink {
    path: PathBuf,
    options: ndl_hdf5::WriteOptions,
}

impl RecordSink for NetcdfColumnsSink {
    fn write_from(
        self: Box<Self>,
        source: &mut dyn RecordSource,
        _reopen: Reopen<'_>,
        progress: Progress<'_>,
    ) -> Result<u64> {
        let origin = source.origin();
        let (datatype, template) = (origin.datatype.clone(), origin.template.clone());
        if !matches!(datatype, Datatype::Compound(_)) {
            return Err(Error::Unsupported {
                path: self.path,
                message: "netCDF-4 columns hold records (a compound), one variable per field"
                    .into(),
            });
        }
        let path = &self.path;
        let mut options = self.options;
        if let Some(len) = origin.len {
            options = options.expected_len(len);
        }
        let mut writer = RecordColumnsWriter::create(path, &datatype, &template, options)
            .map_err(in_hdf5(path))?;
        crate::hdf5_attributes::write_records(path, &writer, source)?;
        let mut done = 0u64;
        while let Some(batch) = source.next_batch()? {
            writer.append(&batch).map_err(in_hdf5(path))?;
            done += batch.len() as u64;
            progress(done);
        }
        writer.finish().map_err(in_hdf5(path))
    }
}

/// Whether the file holds records we wrote in the columns layout: its
/// root's `ndl_datatype` attribute is a datatype.
pub(crate) fn written_as_columns(inventory: &Inventory) -> bool {
    inventory
        .groups
        .first()
        .and_then(|root| root.attributes.get(ndl_hdf5::NDL_DATATYPE))
        .and_then(serde_json::Value::as_str)
        .is_some_and(|text| serde_json::from_str::<Datatype>(text).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndl_runtime::record::{Bitmap, Values};
    use ndl_runtime::{Compound, Member};

    /// Records that are all sources need: strings, lists, options.
    struct Batches {
        datatype: Datatype,
        template: Column,
        batches: Vec<Column>,
        path: PathBuf,
    }

    impl RecordSource for Batches {
        fn origin(&self) -> RecordOrigin<'_> {
            RecordOrigin {
                datatype: &self.datatype,
                template: &self.template,
                len: None,
                location: &self.path,
            }
        }

        fn next_batch(&mut self) -> Result<Option<Column>> {
            Ok((!self.batches.is_empty()).then(|| self.batches.remove(0)))
        }
    }

    fn datatype() -> Datatype {
        Datatype::Compound(
            Compound::variable([
                Member::new("name", 0, Datatype::String),
                Member::new("levels", 0, Datatype::Vlen(Box::new(Datatype::Float64))),
                Member::new("qty", 0, Datatype::Optional(Box::new(Datatype::Int32))),
            ])
            .unwrap(),
        )
    }

    fn template(fill: Option<i32>) -> Column {
        let mut t = Column::template(&datatype()).unwrap();
        if let Column::Struct { fields, .. } = &mut t
            && let Column::Nullable { fill: f, .. } = &mut fields[2].1
        {
            *f = fill.map(|v| {
                Box::new(Column::Values {
                    datatype: Datatype::Int32,
                    values: Values::I32(vec![v]),
                })
            });
        }
        t
    }

    /// Records `names.len()` long: record `i` has `i % 3` levels and no
    /// qty where `i % 4 == 1`.
    fn batch(names: &[&str], first: usize) -> Column {
        let mut offsets = vec![0i64];
        let mut data = Vec::new();
        let mut lists = vec![0i64];
        let mut levels = Vec::new();
        let mut valid = Bitmap::default();
        let mut qty = Vec::new();
        for (k, n) in names.iter().enumerate() {
            let i = first + k;
            data.extend_from_slice(n.as_bytes());
            offsets.push(data.len() as i64);
            levels.extend((0..i % 3).map(|j| (i * 10 + j) as f64));
            lists.push(levels.len() as i64);
            valid.push(i % 4 != 1);
            qty.push(if i % 4 == 1 { -1 } else { i as i32 });
        }
        let Column::Struct { fields, .. } = template(Some(-1)) else {
            unreachable!()
        };
        let fill = match &fields[2].1 {
            Column::Nullable { fill, .. } => fill.clone(),
            _ => unreachable!(),
        };
        Column::Struct {
            len: names.len(),
            fields: vec![
                ("name".into(), Column::Strings { offsets, data }),
                (
                    "levels".into(),
                    Column::List {
                        offsets: lists,
                        values: Box::new(Column::Values {
                            datatype: Datatype::Float64,
                            values: Values::F64(levels),
                        }),
                    },
                ),
                (
                    "qty".into(),
                    Column::Nullable {
                        validity: valid,
                        values: Box::new(Column::Values {
                            datatype: Datatype::Int32,
                            values: Values::I32(qty),
                        }),
                        fill,
                    },
                ),
            ],
        }
    }

    const NAMES: [&str; 7] = ["α", "", "bb", "日本語", "", "x", "last"];

    fn write(path: &Path) {
        let mut source = Batches {
            datatype: datatype(),
            template: template(Some(-1)),
            batches: vec![
                batch(&NAMES[..2], 0),
                batch(&NAMES[2..3], 2),
                batch(&NAMES[3..], 3),
            ],
            path: "memory".into(),
        };
        let sink = create_records(path, &source, &SinkOptions::new()).unwrap();
        let n = sink
            .write_from(&mut source, &|| unreachable!(), &|_| {})
            .unwrap();
        assert_eq!(n, 7);
    }

    #[test]
    fn records_cross_batch_boundaries_both_ways() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.nc");
        write(&path);
        // 1 byte a batch: a record at a time.
        let inventory = Inventory::of(&path).unwrap();
        let mut source = NetcdfColumnsSource::open(&path, &inventory, 1)
            .unwrap()
            .unwrap();
        assert_eq!(source.origin().datatype, &datatype());
        assert_eq!(source.origin().template, &template(Some(-1)));
        let mut got = Vec::new();
        while let Some(b) = source.next_batch().unwrap() {
            assert_eq!(b.len(), 1);
            got.push(b);
        }
        let want: Vec<Column> = (0..NAMES.len()).map(|i| batch(&NAMES[i..=i], i)).collect();
        assert_eq!(got, want);
        // A bigger batch: three records, lists and strings across them.
        let inventory = Inventory::of(&path).unwrap();
        let mut source = NetcdfColumnsSource::open(&path, &inventory, 1)
            .unwrap()
            .unwrap();
        source.records_per_batch = 3;
        let first = source.next_batch().unwrap().unwrap();
        assert_eq!(first, batch(&NAMES[..3], 0));
    }

    #[test]
    fn an_option_without_a_fill_is_refused_naming_the_column() {
        let source = Batches {
            datatype: datatype(),
            template: template(None),
            batches: Vec::new(),
            path: "memory".into(),
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.nc");
        let Err(e) = create_records(&path, &source, &SinkOptions::new()) else {
            panic!("an option without a fill was taken")
        };
        let text = e.to_string();
        assert!(
            text.contains("column `qty`") && text.contains("--fill qty=VALUE"),
            "{text}"
        );
        assert!(!path.exists());
    }
}

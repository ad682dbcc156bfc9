//! Zarr stores, records or columns, local or in object storage, as a
//! [`Source`] and a [`Sink`].

use std::path::{Path, PathBuf};

use ndl_runtime::records::{PackedLayout, Repacker};
use ndl_runtime::ByteOrder;
use ndl_zarr::{ArrayInfo, StoreInfo, WriteOptions};

use crate::contents::{stem, Arrangement, Contents, Entry};
use crate::error::{Error, Result};
use crate::npy::refuse_existing;
use crate::sink::{Progress, Sink};
use crate::source::{for_each_batch, Source};
use crate::spec::ArraySpec;

/// Whether `path` names a store in object storage (`s3://bucket/prefix`).
pub fn is_remote(path: &Path) -> bool {
    path.to_str().is_some_and(|p| p.starts_with("s3://"))
}

/// The records of a store: its array of records, or the records of a
/// columns group's `ndl_datatype`, packed.
pub struct ZarrSource {
    path: PathBuf,
    spec: ArraySpec,
    /// What turns records read in native order into the spec's order,
    /// when the two differ: made once, not per batch.
    to_spec_order: Option<PackedLayout>,
    /// Records per stored chunk.
    chunk: u64,
    next: u64,
    /// What the reader should know about how the store was read.
    notes: Vec<String>,
}

impl ZarrSource {
    /// Opens the store at `path`.
    pub fn open(path: &Path) -> Result<ZarrSource> {
        let mut notes = Vec::new();
        let (spec, chunk) = match StoreInfo::open(path)? {
            StoreInfo::Array(info) => {
                notes = info.notes().to_vec();
                let chunk = info
                    .inner_chunks()
                    .unwrap_or(info.chunks())
                    .first()
                    .copied();
                let mut spec =
                    ArraySpec::new(info.stored_datatype().clone(), info.shape().to_vec());
                spec.byte_order = info.byte_order();
                (spec, chunk.unwrap_or(1))
            }
            StoreInfo::Group(group) => {
                let datatype = group.datatype().ok_or_else(|| Error::Unsupported {
                    path: path.to_path_buf(),
                    message: "a group whose arrays are not columns of numbers of one length, without an ndl_datatype attribute, has no record type to convert".into(),
                })?;
                let packed = repacker(path, &datatype)?.layout().datatype().clone();
                let mut spec = ArraySpec::new(packed, vec![group.len()]);
                spec.byte_order = ByteOrder::Little;
                let chunk = group.arrays().first().map_or(1, |(_, a)| a.chunks()[0]);
                (spec, chunk)
            }
        };
        one_dimensional(path, &spec)?;
        let to_spec_order = (spec.byte_order != ByteOrder::NATIVE)
            .then(|| repacker(path, &spec.datatype).map(|r| r.layout().clone()))
            .transpose()?;
        Ok(ZarrSource {
            path: path.to_path_buf(),
            spec,
            to_spec_order,
            chunk,
            next: 0,
            notes,
        })
    }
}

impl Source for ZarrSource {
    fn spec(&self) -> &ArraySpec {
        &self.spec
    }

    fn location(&self) -> &Path {
        &self.path
    }

    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn batch_hint(&self) -> u64 {
        self.chunk
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let size = self.spec.element_size().max(1);
        let len = self.spec.len().unwrap_or(0);
        let end = (self.next + (buf.len() / size) as u64).min(len);
        if self.next >= end {
            return Ok(0);
        }
        let mut bytes = ndl_zarr::read_packed(&self.path, self.next..end)?;
        if let Some(layout) = &self.to_spec_order {
            layout.swap(&mut bytes);
        }
        buf[..bytes.len()].copy_from_slice(&bytes);
        let n = (end - self.next) as usize;
        self.next = end;
        Ok(n)
    }
}

/// How a store is written by a [`ZarrSink`].
#[derive(Clone, Debug)]
pub struct ZarrSinkOptions {
    /// The store's options; the sink adds the expected length and
    /// publishing on finish.
    pub zarr: WriteOptions,
    /// Whether the store keeps the source's byte order (the records
    /// layout can; columns are little-endian, as netCDF-C reads them).
    pub keep_byte_order: bool,
}

impl Default for ZarrSinkOptions {
    /// The store's defaults (v3, the records layout, zstd), keeping the
    /// source's byte order.
    fn default() -> ZarrSinkOptions {
        ZarrSinkOptions {
            zarr: WriteOptions::new(),
            keep_byte_order: true,
        }
    }
}

/// A new Zarr store, published whole once complete.
pub struct ZarrSink {
    path: PathBuf,
    spec: ArraySpec,
    options: ZarrSinkOptions,
}

impl ZarrSink {
    /// A sink at `path` for the array of `source`: a local place where
    /// nothing is, or a prefix in object storage.
    pub fn create(path: &Path, source: &dyn Source, options: &ZarrSinkOptions) -> Result<ZarrSink> {
        // Stricter than the library, which fills an empty directory.
        if !is_remote(path) {
            refuse_existing(path)?;
        }
        one_dimensional(source.location(), source.spec())?;
        let mut spec = source.spec().clone();
        // Zarr has no array of arrays; the folded form has the same bytes.
        spec.datatype = spec.datatype.folded();
        Ok(ZarrSink {
            path: path.to_path_buf(),
            spec,
            options: options.clone(),
        })
    }

    /// A store's error, with the destination named where the store's own
    /// message does not name it.
    fn in_store(&self, e: ndl_zarr::Error) -> Error {
        match e {
            ndl_zarr::Error::Unsupported { message } => Error::Unsupported {
                path: self.path.clone(),
                message,
            },
            other => Error::Zarr(other),
        }
    }
}

impl Sink for ZarrSink {
    fn write_from(self: Box<Self>, source: &mut dyn Source, progress: Progress<'_>) -> Result<u64> {
        let repacker = repacker(&self.path, &self.spec.datatype)?;
        let from = source.location().to_path_buf();
        let layout = repacker.layout();
        let mut zarr = self.options.zarr.clone().publish_on_finish(true);
        if let Some(n) = self.spec.len() {
            zarr = zarr.expected_len(n);
        }
        if self.options.keep_byte_order {
            zarr = zarr.byte_order(self.spec.byte_order);
        }
        let mut writer = zarr
            .create_packed(&self.path, &self.spec.datatype)
            .map_err(|e| self.in_store(e))?;
        let (record, packed_size) = (repacker.record_size().max(1), layout.size());
        let swap = self.spec.byte_order != ByteOrder::NATIVE;
        let mut packed = Vec::new();
        let n = for_each_batch(source, |bytes, done| {
            let k = bytes.len() / record;
            packed.resize(k * packed_size, 0);
            repacker.pack(bytes, &mut packed);
            if swap {
                layout.swap(&mut packed);
            }
            layout.check(&packed).map_err(|bad| Error::InvalidValue {
                path: from.clone(),
                record: done - k as u64 + bad.record as u64,
                field: bad.field,
                message: bad.message,
            })?;
            writer.append(&packed).map_err(|e| self.in_store(e))?;
            progress(done);
            Ok(())
        })?;
        writer.finish().map_err(|e| self.in_store(e))?;
        Ok(n)
    }
}

fn repacker(path: &Path, datatype: &ndl_runtime::Datatype) -> Result<Repacker> {
    Repacker::new(datatype).map_err(|source| Error::Pack {
        path: path.to_path_buf(),
        source,
    })
}

/// Stores of records are one-dimensional until arrays of any rank are.
fn one_dimensional(path: &Path, spec: &ArraySpec) -> Result<()> {
    if spec.shape.len() == 1 {
        return Ok(());
    }
    Err(Error::Unsupported {
        path: path.to_path_buf(),
        message: format!(
            "the array has shape {:?}; only one-dimensional arrays of records convert",
            spec.shape
        ),
    })
}

/// The arrays of the store at `path`: one array of records, packed as the
/// store holds them with the enum names and descriptions of its
/// `ndl_datatype` attribute; or the arrays of a group, with the group's
/// attributes.
pub fn contents(path: &Path) -> Result<Contents> {
    let entry = |name: String, info: &ArrayInfo| -> Result<Entry> {
        let datatype = repacker(path, &info.datatype())?
            .layout()
            .datatype()
            .clone();
        let mut spec = ArraySpec::new(datatype, info.shape().to_vec());
        spec.byte_order = info.byte_order();
        let mut entry = Entry::new("/".into(), name, spec, info.storage());
        entry.attributes = info.attributes().clone();
        entry.dimension_names = info.dimension_names().map(<[_]>::to_vec);
        entry.native_metadata = Some(info.metadata().clone());
        Ok(entry)
    };
    Ok(match StoreInfo::open(path)? {
        StoreInfo::Array(info) => Contents {
            arrangement: Arrangement::One,
            entries: vec![entry(stem(path), &info)?],
            attributes: serde_json::Map::new(),
            warnings: info.notes().to_vec(),
        },
        StoreInfo::Group(group) => Contents {
            arrangement: Arrangement::Group,
            entries: group
                .arrays()
                .iter()
                .map(|(name, info)| entry(name.clone(), info))
                .collect::<Result<_>>()?,
            attributes: group.attributes().clone(),
            warnings: Vec::new(),
        },
    })
}

//! Writing one array of records: new stores, and appends to existing ones.

use std::path::{Path, PathBuf};

use ndl_runtime::records::{PackedLayout, Packer};
use ndl_runtime::{Datatype, NdlType};
use serde_json::{json, Map};

use super::{check_type, packer};
use crate::append::Appender;
use crate::chunks::Chunks;
use crate::error::{Error, Result};
use crate::metadata::{ArrayMeta, NDL_DATATYPE};
use crate::options::{Layout, WriteOptions};
use crate::store::Store;

/// Appends records to one array of records, chunk by chunk.
///
/// Full chunks are packed and encoded in parallel as soon as they are
/// complete; the records of a last, partial chunk wait in memory until
/// more arrive or [`finish`](ArrayWriter::finish). The array's length in
/// its metadata changes only in `finish`, after every chunk is stored: a
/// writer that stops before (an error, a crash, a drop without `finish`)
/// leaves the array as it was, with its old length.
///
/// ```
/// use ndl_zarr::{ArrayWriter, WriteOptions};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("t.zarr");
/// let mut w = WriteOptions::new().chunk_len(2).create::<u32>(&path)?;
/// w.append(&[1, 2, 3])?;
/// w.finish()?;
///
/// let mut w = ArrayWriter::<u32>::open(&path)?;
/// w.append(&[4])?;
/// assert_eq!(w.finish()?, 4);
/// assert_eq!(ndl_zarr::read::<u32>(&path)?, [1, 2, 3, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ArrayWriter<T> {
    core: Appender,
    packer: Packer<T>,
}

impl<T> std::fmt::Debug for ArrayWriter<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArrayWriter")
            .field("core", &self.core)
            .finish()
    }
}

impl<T: NdlType + Send + Sync> ArrayWriter<T> {
    pub(crate) fn create(options: &WriteOptions, dir: &Path) -> Result<ArrayWriter<T>> {
        ArrayWriter::create_named(options, dir, dir)
    }

    /// Creates the store in `dir`, its record dimension named after
    /// `named_for` unless the options name it.
    fn create_named(
        options: &WriteOptions,
        dir: &Path,
        named_for: &Path,
    ) -> Result<ArrayWriter<T>> {
        let packer = packer::<T>(&dir.display().to_string())?;
        let core = create(options, dir, named_for, &T::datatype())?;
        Ok(ArrayWriter { core, packer })
    }

    /// The writer that appends to the array of records at `dir`, which must
    /// hold records of `T` (checked as [`read`](crate::read) checks them).
    pub fn open(dir: impl AsRef<Path>) -> Result<ArrayWriter<T>> {
        let store = Store::local(dir.as_ref())?;
        let meta = ArrayMeta::read(&store)?;
        let packer = packer::<T>(&store.name)?;
        check_type(&store, &meta, &packer)?;
        let core = start(store, meta)?;
        Ok(ArrayWriter { core, packer })
    }

    /// The number of records the array holds once finished.
    pub fn len(&self) -> u64 {
        self.core.len
    }

    /// Whether the array holds no records, written or appended.
    pub fn is_empty(&self) -> bool {
        self.core.len == 0
    }

    /// Appends `records`: every chunk they complete is stored now.
    pub fn append(&mut self, records: &[T]) -> Result<()> {
        let packer = &self.packer;
        self.core.append_with(records.len(), &|range, out| {
            packer.pack(&records[range], out)
        })
    }

    /// Stores the last, partial chunk, then the metadata with the new
    /// length; returns the length.
    pub fn finish(self) -> Result<u64> {
        self.core.commit()
    }
}

/// Appends packed records (native byte order) of a datatype known only at
/// run time: what `ndl convert` writes. [`ArrayWriter`] is the typed form.
///
/// ```
/// use ndl_runtime::{Compound, Datatype};
/// use ndl_zarr::WriteOptions;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("p.zarr");
/// let rec = Datatype::Compound(Compound::c_layout([("a", Datatype::UInt8), ("b", Datatype::UInt8)])?);
/// let mut w = WriteOptions::new().create_packed(&path, &rec)?;
/// w.append(&[1, 2, 3, 4])?;
/// assert_eq!(w.finish()?, 2);
/// assert_eq!(ndl_zarr::read_packed(&path, 1..2)?, [3, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct PackedWriter {
    core: Appender,
}

impl PackedWriter {
    pub(crate) fn create(
        options: &WriteOptions,
        dir: &Path,
        datatype: &Datatype,
    ) -> Result<PackedWriter> {
        Ok(PackedWriter {
            core: create(options, dir, dir, datatype)?,
        })
    }

    /// The packed size of a record.
    pub fn record_size(&self) -> usize {
        self.core.record()
    }

    /// The number of records the array holds once finished.
    pub fn len(&self) -> u64 {
        self.core.len
    }

    /// Whether the array holds no records, written or appended.
    pub fn is_empty(&self) -> bool {
        self.core.len == 0
    }

    /// Appends whole packed records in native byte order.
    ///
    /// # Errors
    /// If `packed` is not a whole number of records, or a chunk cannot be
    /// stored.
    pub fn append(&mut self, packed: &[u8]) -> Result<()> {
        let size = self.core.record();
        if size == 0 || !packed.len().is_multiple_of(size) {
            return Err(Error::Unsupported {
                message: format!(
                    "{} bytes are not whole records of {size} bytes",
                    packed.len()
                ),
            });
        }
        self.core.append_with(packed.len() / size, &|range, out| {
            out.copy_from_slice(&packed[range.start * size..range.end * size]);
        })
    }

    /// Stores the last, partial chunk, then the metadata with the new
    /// length; returns the length.
    pub fn finish(self) -> Result<u64> {
        self.core.commit()
    }
}

/// Creates the store in `dir` for records of `datatype` (any layout: it is
/// stored packed), its record dimension named after `named_for` unless the
/// options name it, and the appender of its array.
fn create(
    options: &WriteOptions,
    dir: &Path,
    named_for: &Path,
    datatype: &Datatype,
) -> Result<Appender> {
    if options.layout == Layout::Columns {
        return Err(Error::Unsupported {
            message: "the columns layout is not implemented yet; write Layout::Records".into(),
        });
    }
    let stored = PackedLayout::new(datatype)
        .map_err(|e| Error::Unsupported {
            message: e.to_string(),
        })?
        .datatype()
        .clone();
    check_storable(options, &stored)?;
    prepare_dir(dir)?;
    let store = Store::local(dir)?;
    let mut attributes = Map::new();
    attributes.insert(NDL_DATATYPE.into(), json!(datatype));
    let dimension = options
        .dimension
        .clone()
        .unwrap_or_else(|| dimension_name(named_for));
    let chunk_len = options.chunk_len_for(stored.size().unwrap_or(0))?;
    let meta = ArrayMeta::new(
        options,
        &stored,
        vec![0],
        chunk_len,
        attributes,
        vec![dimension],
    )?;
    meta.write(&store, true)?;
    start(store, meta)
}

/// The appender of the records array `meta` describes.
fn start(store: Store, meta: ArrayMeta) -> Result<Appender> {
    if meta.shape.len() != 1 {
        return Err(Error::Shape {
            store: store.name.clone(),
            message: format!(
                "the array has shape {:?}; records arrays are one-dimensional",
                meta.shape
            ),
        });
    }
    Appender::start(Chunks::new(&store, &meta)?, meta)
}

/// Refuses what the chosen format cannot hold, saying what to do instead.
fn check_storable(options: &WriteOptions, stored: &Datatype) -> Result<()> {
    let result = match options.format {
        crate::ZarrFormat::V3 => stored.to_zarr_v3_data_type().map(drop),
        crate::ZarrFormat::V2 => stored.to_zarr_v2_dtype(options.order()).map(drop),
    };
    result.map_err(|e| Error::Unsupported {
        message: match options.format {
            crate::ZarrFormat::V3 => format!(
                "{e}; store array fields with the columns layout (Layout::Columns), \
                 or as Zarr v2 (ZarrFormat::V2), whose dtype has subarray fields"
            ),
            crate::ZarrFormat::V2 => e.to_string(),
        },
    })
}

/// The record dimension's name: the store's directory name without its
/// extension (`readings` for `readings.zarr`).
fn dimension_name(dir: &Path) -> String {
    dir.file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .unwrap_or("record")
        .to_string()
}

/// Makes `dir` an empty directory, refusing one that holds anything.
fn prepare_dir(dir: &Path) -> Result<()> {
    let io = |source| Error::Io {
        path: dir.to_path_buf(),
        source,
    };
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(Error::Exists {
                    store: dir.display().to_string(),
                });
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir).map_err(io)
        }
        Err(e) => Err(io(e)),
    }
}

/// Writes a new store at `dir`: built in a hidden directory beside it and
/// renamed into place once complete.
pub(crate) fn write_new<T: NdlType + Send + Sync>(
    options: &WriteOptions,
    dir: &Path,
    data: &[T],
) -> Result<()> {
    if dir.exists() {
        return Err(Error::Exists {
            store: dir.display().to_string(),
        });
    }
    let building = building_dir(dir);
    let result = (|| {
        let mut writer = ArrayWriter::<T>::create_named(options, &building, dir)?;
        writer.append(data)?;
        writer.finish()?;
        std::fs::rename(&building, dir).map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&building);
    }
    result
}

/// `.NAME.PID.partial` beside `dir`: hidden, and named for its process so
/// that concurrent writers never share it.
fn building_dir(dir: &Path) -> PathBuf {
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("store");
    dir.with_file_name(format!(".{name}.{}.partial", std::process::id()))
}

//! Writers of either layout: the plain records of [`crate::ArrayWriter`],
//! [`PackedWriter`] for records whose datatype is known only at run time.

use std::ops::Range;
use std::path::Path;

use ndl_runtime::records::{PackedLayout, Packer};
use ndl_runtime::{Datatype, NdlType};

use crate::append::Appender;
use crate::documents::{has_node, read_group};
use crate::error::{Error, Result};
use crate::layout::columns::ColumnsWriter;
use crate::layout::records::{self, check_type, packer};
use crate::lock::AppendLock;
use crate::metadata::ArrayMeta;
use crate::options::{Layout, WriteOptions};
use crate::staging::{Staging, refuse_occupied};
use crate::store::Store;

/// The writer of plain records ([`NdlType`]s), either layout: what
/// [`crate::ArrayWriter`] runs for them.
pub(crate) struct PlainArrayWriter<T> {
    /// The writer of the store's layout.
    core: LayoutWriter,
    packer: Packer<T>,
    /// What the writer holds until `finish`.
    held: Held,
}

/// The writer of one layout.
enum LayoutWriter {
    Records(Box<Appender>),
    Columns(ColumnsWriter),
}

impl std::fmt::Debug for LayoutWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LayoutWriter::Records(a) => a.fmt(f),
            LayoutWriter::Columns(c) => c.fmt(f),
        }
    }
}

impl LayoutWriter {
    fn len(&self) -> u64 {
        match self {
            LayoutWriter::Records(a) => a.len,
            LayoutWriter::Columns(c) => c.len(),
        }
    }

    fn finish(self) -> Result<u64> {
        match self {
            LayoutWriter::Records(a) => a.commit(),
            LayoutWriter::Columns(c) => c.finish(),
        }
    }

    /// Sets the length of a new store, whose records region writers store.
    fn resize(self, len: u64) -> Result<()> {
        match self {
            LayoutWriter::Records(a) => a.resize(len),
            LayoutWriter::Columns(c) => c.resize(len),
        }
    }

    /// Creates a store of either layout at `dir` for records of `datatype`
    /// (in its own layout), described by `title`; its record dimension is
    /// named after `named_for` unless the options name it. A columns store
    /// records `written` as its records' datatype (`datatype` itself, or
    /// the layout packed records were packed from).
    fn create(
        options: &WriteOptions,
        store: Store,
        named_for: &Path,
        (datatype, written): (&Datatype, &Datatype),
        title: Option<&str>,
    ) -> Result<LayoutWriter> {
        let dimension = record_dimension(options, named_for);
        prepare(&store)?;
        Ok(match options.layout {
            Layout::Records => LayoutWriter::Records(Box::new(records::create(
                options, &store, datatype, &dimension,
            )?)),
            Layout::Columns => LayoutWriter::Columns(ColumnsWriter::create(
                options,
                &store,
                (datatype, written),
                title,
                &dimension,
                &Default::default(),
            )?),
        })
    }
}

impl<T> std::fmt::Debug for PlainArrayWriter<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArrayWriter")
            .field("core", &self.core)
            .finish()
    }
}

impl<T: NdlType + Send + Sync> PlainArrayWriter<T> {
    /// [`create`](ArrayWriter::create) with `options`: the layout, chunks,
    /// codecs, format version and durability of the new store.
    pub fn create_with(
        dir: impl AsRef<Path>,
        options: &WriteOptions,
    ) -> Result<PlainArrayWriter<T>> {
        let dir = dir.as_ref();
        let (store, held) = Held::new_store(options, dir)?;
        let packer = packer::<T>(&store.name)?;
        let datatype = T::datatype();
        let core = LayoutWriter::create(
            options,
            store,
            dir,
            (&datatype, &datatype),
            T::description(),
        )?;
        Ok(PlainArrayWriter { core, packer, held })
    }

    /// Creates a store at `dir` (which must not exist, or be an empty
    /// directory) of `len` records of `T`, not yet written: writers of
    /// regions ([`ArrayWriter::region`]) then store them, at once.
    pub fn create_sized(dir: impl AsRef<Path>, len: u64, options: &WriteOptions) -> Result<()> {
        let dir = dir.as_ref();
        let options = options.clone().expected_len(len);
        let writer = PlainArrayWriter::<T>::create_with(dir, &options)?;
        writer.core.resize(len)?;
        writer.held.release()
    }

    /// The writer of records `range` of the store at `dir`, made by
    /// [`ArrayWriter::create_sized`]: many processes (or threads) write
    /// disjoint regions at once, with no coordination beyond the creation.
    /// A region starts on a chunk boundary and ends on one or at the end of
    /// the store, so no two regions share a chunk; any other is refused.
    /// [`finish`](ArrayWriter::finish) stores the last chunk and checks that
    /// the whole region was written; the metadata is not touched.
    ///
    /// ```
    /// use ndl_zarr::{ArrayWriter, WriteOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("r.zarr");
    /// ArrayWriter::<u16>::create_sized(&path, 10, &WriteOptions::new().chunk_len(4))?;
    /// let mut second = ArrayWriter::<u16>::region(&path, 4..10)?;
    /// second.append(&[4, 5, 6, 7, 8, 9])?;
    /// second.finish()?;
    /// let mut first = ArrayWriter::<u16>::region(&path, 0..4)?;
    /// first.append(&[0, 1, 2, 3])?;
    /// first.finish()?;
    /// assert_eq!(ndl_zarr::read::<u16>(&path)?, (0..10).collect::<Vec<_>>());
    /// assert!(ArrayWriter::<u16>::region(&path, 2..6).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn region(dir: impl AsRef<Path>, range: Range<u64>) -> Result<PlainArrayWriter<T>> {
        let store = Store::open(dir.as_ref())?;
        let packer = packer::<T>(&store.name)?;
        if read_group(&store)?.is_some() {
            let core = LayoutWriter::Columns(ColumnsWriter::region(&store, &T::datatype(), range)?);
            return Ok(PlainArrayWriter {
                core,
                packer,
                held: Held::default(),
            });
        }
        let meta = ArrayMeta::read(&store)?;
        check_type(&store, &meta.stored, &packer)?;
        records::check_records(&store, &meta)?;
        let chunks = crate::chunks::ChunkIo::new(&store, &meta)?;
        let core = LayoutWriter::Records(Box::new(Appender::region(chunks, meta, range)?));
        Ok(PlainArrayWriter {
            core,
            packer,
            held: Held::default(),
        })
    }

    /// The writer that appends to the store at `dir`, of either layout,
    /// which must hold records of `T` (checked as [`read`](crate::read)
    /// checks them).
    ///
    /// One appender at a time: the writer takes a lock object
    /// (`.ndl-append.lock`, created only if absent: exclusively on a local
    /// disk, with a conditional PUT on object storage) and a second
    /// appender is refused with [`Error::Locked`] until the first is done.
    /// A lock left by a crashed process of this machine is taken over.
    pub fn open(dir: impl AsRef<Path>) -> Result<PlainArrayWriter<T>> {
        let store = Store::open(dir.as_ref())?;
        let packer = packer::<T>(&store.name)?;
        let group = read_group(&store)?.is_some();
        if !group {
            // Refuse what is no array before taking the lock.
            let meta = ArrayMeta::read(&store)?;
            check_type(&store, &meta.stored, &packer)?;
        }
        let held = Held::locked(&store)?;
        if group {
            let core = LayoutWriter::Columns(ColumnsWriter::open(&store, &T::datatype())?);
            return Ok(PlainArrayWriter { core, packer, held });
        }
        // Read again under the lock: the length may have grown meanwhile.
        let meta = ArrayMeta::read(&store)?;
        let core = LayoutWriter::Records(Box::new(records::start(store, meta)?));
        Ok(PlainArrayWriter { core, packer, held })
    }

    /// The number of records the store holds once finished.
    pub fn len(&self) -> u64 {
        self.core.len()
    }

    /// Appends `records`: every chunk they complete is stored now.
    pub fn append(&mut self, records: &[T]) -> Result<()> {
        let packer = &self.packer;
        match &mut self.core {
            LayoutWriter::Records(a) => a.append_with(records.len(), &|range, out| {
                packer.pack(&records[range], out)
            }),
            LayoutWriter::Columns(c) => c.append_with(records.len(), &|range, fields, outs| {
                packer.gather(&records[range], fields, outs)
            }),
        }
    }

    /// Stores the last, partial chunks, then the metadata with the new
    /// length (and publishes a store built out of sight,
    /// [`WriteOptions::publish_on_finish`]); returns the length.
    pub fn finish(self) -> Result<u64> {
        self.held.check()?;
        let len = self.core.finish()?;
        self.held.release()?;
        Ok(len)
    }
}

/// Appends packed records (native byte order) of a datatype known only at
/// run time: what `ndl convert` writes. [`crate::ArrayWriter`] is the typed form.
///
/// ```
/// use ndl_runtime::{Compound, Datatype};
/// use ndl_zarr::{PackedWriter, WriteOptions};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("p.zarr");
/// let rec = Datatype::Compound(Compound::c_layout([("a", Datatype::UInt8), ("b", Datatype::UInt8)])?);
/// let mut w = PackedWriter::create_with(&path, &rec, &WriteOptions::new())?;
/// w.append(&[1, 2, 3, 4])?;
/// assert_eq!(w.finish()?, 2);
/// assert_eq!(ndl_zarr::read_packed(&path, 1..2)?, [3, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct PackedWriter {
    /// The writer of the store's layout.
    core: LayoutWriter,
    record: usize,
    /// What the writer holds until `finish`.
    held: Held,
}

impl PackedWriter {
    /// Creates a store at `dir` (which must not exist, or be an empty
    /// directory) for records of `datatype`, with `options`, and a writer
    /// that appends packed records to it.
    pub fn create_with(
        dir: impl AsRef<Path>,
        datatype: &Datatype,
        options: &WriteOptions,
    ) -> Result<PackedWriter> {
        let dir = dir.as_ref();
        let packed = PackedLayout::new(datatype).map_err(|e| Error::Unsupported {
            message: e.to_string(),
        })?;
        // Columns gather from the packed records, so they are planned on
        // the packed datatype (which keeps every name and attribute); the
        // group records `datatype`, whose layout readers give back.
        let planned = match options.layout {
            Layout::Records => datatype,
            Layout::Columns => packed.datatype(),
        };
        let (store, held) = Held::new_store(options, dir)?;
        Ok(PackedWriter {
            core: LayoutWriter::create(options, store, dir, (planned, datatype), None)?,
            record: packed.size(),
            held,
        })
    }

    /// The packed size of a record.
    pub fn record_size(&self) -> usize {
        self.record
    }

    /// The number of records the store holds once finished.
    pub fn len(&self) -> u64 {
        self.core.len()
    }

    /// Whether the store holds no records, written or appended.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends whole packed records in native byte order.
    ///
    /// # Errors
    /// If `packed` is not a whole number of records, or a chunk cannot be
    /// stored.
    pub fn append(&mut self, packed: &[u8]) -> Result<()> {
        let size = self.record;
        if size == 0 || !packed.len().is_multiple_of(size) {
            return Err(Error::Unsupported {
                message: format!(
                    "{} bytes are not whole records of {size} bytes",
                    packed.len()
                ),
            });
        }
        let bytes = |range: Range<usize>| &packed[range.start * size..range.end * size];
        match &mut self.core {
            LayoutWriter::Records(a) => a.append_with(packed.len() / size, &|range, out| {
                out.copy_from_slice(bytes(range))
            }),
            LayoutWriter::Columns(c) => {
                c.append_with(packed.len() / size, &|range, fields, outs| {
                    ndl_runtime::records::gather(bytes(range), size, fields, outs)
                })
            }
        }
    }

    /// Stores the last, partial chunks, then the metadata with the new
    /// length (and publishes a store built out of sight,
    /// [`WriteOptions::publish_on_finish`]); returns the length.
    pub fn finish(self) -> Result<u64> {
        self.held.check()?;
        let len = self.core.finish()?;
        self.held.release()?;
        Ok(len)
    }
}

/// The record dimension's name: the store's directory name without its
/// extension (`readings` for `readings.zarr`).
pub(crate) fn dimension_name(dir: &Path) -> String {
    dir.file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .unwrap_or("record")
        .to_string()
}

/// The record dimension of a new store at `dir`: the one `options` name
/// ([`WriteOptions::dimension`], or the only one of
/// [`WriteOptions::dimension_names`]), else [`dimension_name`]'s.
pub(crate) fn record_dimension(options: &WriteOptions, dir: &Path) -> String {
    let only = options.dimension_names.as_ref().filter(|n| n.len() == 1);
    options
        .dimension
        .clone()
        .or_else(|| only.map(|n| n[0].clone()))
        .unwrap_or_else(|| dimension_name(dir))
}

/// The names of the dimensions of a new array of `rank` axes at `dir`:
/// those `options` give, else the record dimension's for one axis, and
/// `<it>_dim<k>` for more.
pub(crate) fn dimension_names(options: &WriteOptions, dir: &Path, rank: usize) -> Vec<String> {
    if let Some(names) = options.dimension_names.as_ref().filter(|n| n.len() == rank) {
        return names.clone();
    }
    let base = record_dimension(options, dir);
    match rank {
        1 => vec![base],
        n => (0..n).map(|d| format!("{base}_dim{d}")).collect(),
    }
}

/// Readies the place of a new store: an empty directory, or a prefix of
/// object storage without a store.
pub(crate) fn prepare(store: &Store) -> Result<()> {
    if let Some(dir) = store.local_dir() {
        refuse_occupied(&dir, &store.name)?;
        let made = std::fs::create_dir_all(&dir).and_then(|()| match dir.parent() {
            Some(parent) if store.is_durable() => ndl_runtime::staging::sync_dir(parent),
            _ => Ok(()),
        });
        return made.map_err(|source| Error::Io { path: dir, source });
    }
    if has_node(store)? {
        return Err(Error::Exists {
            store: store.name.clone(),
        });
    }
    Ok(())
}

/// What a writer holds until `finish`, which releases it.
#[derive(Debug, Default)]
pub(crate) struct Held {
    /// The append lock; on object storage, which has no rename, also the
    /// lock of a store being created in place (to be published, its
    /// metadata last): it keeps a second writer out meanwhile, as a check
    /// for existing metadata alone cannot.
    lock: Option<AppendLock>,
    /// A new store built out of sight, published when released.
    staging: Option<Staging>,
}

impl Held {
    /// What an appender to the existing store `store` holds: its lock.
    pub(crate) fn locked(store: &Store) -> Result<Held> {
        Ok(Held {
            lock: Some(AppendLock::take(store)?),
            staging: None,
        })
    }

    /// The store a new store at `dir` is written to (`dir`'s own, or, to be
    /// published on `finish`, one built out of sight), and what its writer
    /// holds.
    pub(crate) fn new_store(options: &WriteOptions, dir: &Path) -> Result<(Store, Held)> {
        let mut store = Store::open(dir)?;
        if options.durable {
            store = store.durable()?;
        }
        // A zip store is packed once complete: it is always built aside.
        let (store, staging) = if options.publish_on_finish || crate::zip::is_zip_place(dir) {
            Staging::begin(store)?
        } else {
            (store, None)
        };
        let lock = if store.is_remote() {
            Some(AppendLock::take(&store)?)
        } else {
            None
        };
        Ok((store, Held { lock, staging }))
    }

    /// Fails if the lock was broken while held (its lease expired): what
    /// was written must then not be published.
    pub(crate) fn check(&self) -> Result<()> {
        self.lock.as_ref().map_or(Ok(()), AppendLock::check)
    }

    /// Releases the lock and publishes the store built out of sight.
    pub(crate) fn release(self) -> Result<()> {
        drop(self.lock);
        self.staging.map_or(Ok(()), Staging::publish)
    }
}

/// The number of elements of `shape`, which a writer of an array of that
/// fixed shape must have been given before it finishes: `written` `what`
/// short of it is an error naming the store.
pub(crate) fn all_written(store: &Store, written: u64, shape: &[u64], what: &str) -> Result<u64> {
    let total: u64 = shape.iter().product();
    if written != total {
        return Err(Error::Unsupported {
            message: format!(
                "{}: {written} {what} were written, but the array of shape {shape:?} holds {total}",
                store.name
            ),
        });
    }
    Ok(total)
}

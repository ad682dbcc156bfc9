//! Records into a one-dimensional, chunked, extendable dataset: a new file
//! appears whole, once [`finish`](DatasetWriter::finish)ed.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use ndl_runtime::records::Packer;
use ndl_runtime::{ByteOrder, NdlType, Record};

use crate::dimension::Dimensions;
use crate::error::{Error, Result, hdf5_error};
use crate::h5type::{Orders, TypeError, commit_type, netcdf4_python_skips, profile_type};
use crate::lookup::dataset_path;
use crate::object_path::parent;
use crate::options::WriteOptions;
use crate::raw_io;
use crate::staging::Staged;
use crate::stored_type::stored_type;

/// Records staged and written at a time: memory stays bounded whatever
/// the length of an append.
const BLOCK_BYTES: usize = 8 << 20;

/// Writes `records` to a new HDF5 file at `path`, as the one-dimensional
/// dataset `dataset` (`"data"`, or `"/group/data"`, whose groups are
/// made): h5py reads it as the NumPy dtype `np.save` writes for them.
/// The record type is committed to the file under the Rust type's name.
/// A path ending in `.nc` gets netCDF-4's profile (see
/// [`WriteOptions::netcdf`]): the records are a variable over the
/// unlimited dimension `record`. Records holding an enum or a bool are
/// refused there, naming the field: netCDF4-python and xarray skip such a
/// variable; [`write_columns`](crate::write_columns) writes them so that
/// they read them, and [`WriteOptions::netcdf_enum_records`] allows them.
///
/// ```
/// use ndl_runtime::NdlType;
///
/// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
/// #[repr(C)]
/// struct Reading {
///     station: u16,
///     value: f64,
/// }
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("readings.h5");
/// let records = [Reading { station: 7, value: 1.5 }, Reading { station: 9, value: -2.0 }];
/// ndl_hdf5::write(&path, "/site/readings", &records)?;
/// assert_eq!(ndl_hdf5::read::<Reading>(&path, "/site/readings")?, records);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write<T: Record>(path: impl AsRef<Path>, dataset: &str, records: &[T]) -> Result<()> {
    let options = WriteOptions::new().expected_len(records.len() as u64);
    let mut writer = crate::DatasetWriter::<T>::create_with(path, dataset, &options)?;
    writer.append(records)?;
    writer.finish().map(drop)
}

/// Streams plain records (an [`NdlType`]) into a chunked dataset with an
/// unlimited dimension, in bounded memory: the path
/// [`crate::DatasetWriter`] takes for them.
///
/// [`create`](DatasetWriter::create) builds a new file out of sight, next
/// to `path`, and renames it into place in
/// [`finish`](DatasetWriter::finish): a crash leaves no file at `path`,
/// only a hidden `.<name>.*.tmp` beside it. [`open`](DatasetWriter::open)
/// appends to an existing dataset in place: HDF5 has no journal, so a
/// crash during an append can leave that file unreadable;
/// [`open_copy`](DatasetWriter::open_copy) appends to a copy renamed over
/// the file when finished, so a crash leaves it as it was.
pub struct DatasetWriter<T> {
    target: Target,
    dataset: hdf5::Dataset,
    /// The netCDF dimensions that grow with the dataset, and their group.
    dimensions: Option<(Dimensions, String)>,
    memory_type: hdf5::Datatype,
    packer: Packer<T>,
    len: u64,
    path: PathBuf,
    name: String,
    _records: PhantomData<T>,
}

impl<T: NdlType> DatasetWriter<T> {
    /// Starts a new file at `path` holding the empty dataset `dataset`,
    /// chunked, compressed and ordered as `options` say.
    ///
    /// # Errors
    /// [`Error::Type`] for records holding an enum or a bool in a
    /// netCDF-4 file, unless [`WriteOptions::netcdf_enum_records`] allows
    /// them (netCDF4-python and xarray skip such a variable), before any
    /// file is made.
    pub fn create_with(
        path: impl AsRef<Path>,
        dataset: &str,
        options: &WriteOptions,
    ) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let datatype = T::datatype();
        let type_error = |source| Error::Type {
            path: path.clone(),
            dataset: dataset.to_string(),
            source,
        };
        let netcdf = options.is_netcdf(&path);
        if let Some(field) = netcdf
            .then(|| netcdf4_python_skips(&datatype))
            .flatten()
            .filter(|_| !options.netcdf_enum_records)
        {
            return Err(type_error(TypeError {
                field,
                why: "netCDF4-python (and xarray through it) skips a compound variable holding \
                      an enum or a bool, which ncdump and netCDF-C read: write the records with \
                      write_columns, which they all read, or allow this with \
                      WriteOptions::netcdf_enum_records"
                    .into(),
            }));
        }
        let staged = Staged::create(&path, options.durable)?;
        let memory_type =
            profile_type(&datatype, Orders::one(ByteOrder::NATIVE), netcdf).map_err(type_error)?;
        let file_type = commit_type(
            staged.file(),
            &type_name::<T>(),
            &datatype,
            Orders::mixed(options.byte_order, &options.other_order),
            netcdf,
        )
        .map_err(type_error)?;
        if let Some(records) = options.expected_len.filter(|_| options.is_unfiltered()) {
            // The records' bytes as stored: never more than the file will
            // hold, so no reserved block is left past its end.
            staged.reserve(records.saturating_mul(file_type.size() as u64));
        }
        let size = datatype.size().unwrap_or(1).max(1);
        let created = options
            .fixed_size_builder(staged.file(), &file_type, size)
            .create(dataset)
            .map_err(hdf5_error(&path, dataset))?;
        crate::user_attributes::write(&created, &options.attributes)
            .map_err(hdf5_error(&path, dataset))?;
        let dimensions = if netcdf {
            let group = staged
                .file()
                .group(parent(dataset))
                .map_err(hdf5_error(&path, dataset))?;
            let mut dims = Dimensions::default();
            dims.attach(&group, &created, &["record".to_string()], &[0], true)
                .map_err(hdf5_error(&path, dataset))?;
            Some((dims, group.name()))
        } else {
            None
        };
        let mut writer = Self::new(Target::New(staged), created, memory_type, path, dataset)?;
        writer.dimensions = dimensions;
        Ok(writer)
    }

    /// Opens the dataset `dataset` of the file at `path` for appending in
    /// place: its type must be exactly `T`'s, in either byte order. A
    /// crash during the append can leave the file unreadable (HDF5 has no
    /// journal); [`open_copy`](DatasetWriter::open_copy) cannot.
    pub fn open(path: impl AsRef<Path>, dataset: &str) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = crate::file::open_rw(&path)?;
        Self::open_in(Target::Existing(file), path, dataset)
    }

    /// Opens the dataset `dataset` of the file at `path` for appending to
    /// a copy of the file, which [`finish`](DatasetWriter::finish) renames
    /// over it: a crash leaves the file as it was (and a hidden
    /// `.<name>.*.tmp` beside it), at the cost of copying it first. The
    /// file is locked against other writers meanwhile.
    pub fn open_copy(path: impl AsRef<Path>, dataset: &str) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let staged = Staged::copy_of(&path, false)?;
        Self::open_in(Target::New(staged), path, dataset)
    }

    fn open_in(target: Target, path: PathBuf, dataset: &str) -> Result<Self> {
        let file = target.file();
        let stored_at = dataset_path(file, &path, dataset)?;
        let found = file
            .dataset(&stored_at)
            .map_err(hdf5_error(&path, dataset))?;
        let group = file
            .group(parent(dataset))
            .map_err(hdf5_error(&path, dataset))?;
        let dimensions = Dimensions::adopt(&group, "record").map(|d| (d, group.name()));
        let netcdf = dimensions.is_some();
        let type_in = |orders| {
            profile_type(&T::datatype(), orders, netcdf).map_err(|source| Error::Type {
                path: path.clone(),
                dataset: dataset.to_string(),
                source,
            })
        };
        let memory_type = type_in(Orders::one(ByteOrder::NATIVE))?;
        let stored = found.dtype().map_err(hdf5_error(&path, dataset))?;
        // `T` in the stored byte orders, whatever they are.
        let (order, other) = stored_type(stored.id())
            .map(|s| (s.byte_order, s.other_order))
            .unwrap_or((ByteOrder::NATIVE, Vec::new()));
        let as_stored = type_in(Orders::mixed(order, &other))?;
        if stored != as_stored || found.ndim() != 1 {
            return Err(Error::TypeMismatch {
                path,
                dataset: dataset.to_string(),
                field: String::new(),
                message: "appends need a one-dimensional dataset of exactly the record type".into(),
            });
        }
        let mut writer = Self::new(target, found, memory_type, path, dataset)?;
        writer.dimensions = dimensions;
        Ok(writer)
    }

    fn new(
        target: Target,
        dataset: hdf5::Dataset,
        memory_type: hdf5::Datatype,
        path: PathBuf,
        name: &str,
    ) -> Result<Self> {
        let packer = Packer::<T>::new().map_err(|e| Error::TypeMismatch {
            path: path.clone(),
            dataset: name.to_string(),
            field: String::new(),
            message: e.to_string(),
        })?;
        let len = dataset.shape().first().copied().unwrap_or(0) as u64;
        Ok(DatasetWriter {
            target,
            dataset,
            dimensions: None,
            memory_type,
            packer,
            len,
            path,
            name: name.to_string(),
            _records: PhantomData,
        })
    }

    /// Appends `records`, a block at a time: the dataset grows and the
    /// block is written from the records' own memory when `T` has no
    /// padding, else from one copy with the padding zeroed (padding is
    /// never read from memory), made while a second thread writes the
    /// block before (HDF5 runs one call at a time; a copy needs none).
    pub fn append(&mut self, records: &[T]) -> Result<()> {
        let per_block = (BLOCK_BYTES / std::mem::size_of::<T>().max(1)).max(1);
        if !self.packer.is_dense() {
            return self.append_padded(records, per_block);
        }
        for block in records.chunks(per_block) {
            let end = self.len + block.len() as u64;
            self.grow(end)?;
            // SAFETY: `T` has no padding (every byte is a field's), so
            // every byte of live records is initialised; the slice covers
            // exactly the block's memory, borrowed for its life.
            let bytes = unsafe {
                std::slice::from_raw_parts(block.as_ptr().cast(), std::mem::size_of_val(block))
            };
            raw_io::write_rows(&self.dataset, &self.memory_type, &[end], self.len, bytes)
                .map_err(hdf5_error(&self.path, &self.name))?;
            self.len = end;
        }
        Ok(())
    }

    /// [`append`](DatasetWriter::append) of records with padding: this
    /// thread copies each block with its padding zeroed into one of two
    /// buffers, which a second thread writes.
    fn append_padded(&mut self, records: &[T], per_block: usize) -> Result<()> {
        let end = self.len + records.len() as u64;
        self.grow(end)?;
        let (dataset, memory_type) = (&self.dataset, &self.memory_type);
        let written = std::thread::scope(|s| {
            let (full, to_write) = std::sync::mpsc::sync_channel::<(u64, Vec<u8>)>(1);
            let (give_back, spare) = std::sync::mpsc::sync_channel::<Vec<u8>>(2);
            let writer = s.spawn(move || -> hdf5::Result<()> {
                for (first, bytes) in to_write {
                    raw_io::write_rows(dataset, memory_type, &[end], first, &bytes)?;
                    let _ = give_back.send(bytes);
                }
                Ok(())
            });
            let mut fresh = 2;
            let mut first = self.len;
            for block in records.chunks(per_block) {
                let mut buffer = if fresh > 0 {
                    fresh -= 1;
                    Vec::new()
                } else {
                    match spare.recv() {
                        Ok(buffer) => buffer,
                        // The writer stopped: its error is below.
                        Err(_) => break,
                    }
                };
                self.packer.copy_zero_padded(block, &mut buffer);
                if full.send((first, buffer)).is_err() {
                    break;
                }
                first += block.len() as u64;
            }
            drop(full);
            writer
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        if let Err(e) = written {
            // The records not written are not the dataset's.
            let _ = self.grow(self.len);
            return Err(hdf5_error(&self.path, &self.name)(e));
        }
        self.len = end;
        Ok(())
    }

    /// Grows the dataset, and its netCDF dimension, to `len` records.
    fn grow(&self, len: u64) -> Result<()> {
        self.dataset
            .resize(len as usize)
            .map_err(hdf5_error(&self.path, &self.name))?;
        if let Some((dimensions, group)) = &self.dimensions {
            dimensions
                .grow(group, len)
                .map_err(hdf5_error(&self.path, &self.name))?;
        }
        Ok(())
    }

    /// The records the dataset holds.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Flushes and closes the file; a new one is renamed into place.
    /// Returns the number of records the dataset now holds.
    pub fn finish(self) -> Result<u64> {
        drop(self.dataset);
        drop(self.dimensions);
        match self.target {
            Target::New(staged) => staged.publish()?,
            Target::Existing(file) => {
                file.flush().map_err(hdf5_error(&self.path, &self.name))?;
                file.close().map_err(hdf5_error(&self.path, &self.name))?;
            }
        }
        Ok(self.len)
    }
}

/// The file a writer writes: a new one (or a copy) being built, or one
/// appended to in place.
enum Target {
    New(Staged),
    Existing(hdf5::File),
}

impl Target {
    fn file(&self) -> &hdf5::File {
        match self {
            Target::New(staged) => staged.file(),
            Target::Existing(file) => file,
        }
    }
}

/// The name `T`'s type is committed under: its Rust name, without path
/// or generic arguments.
fn type_name<T>() -> String {
    let full = std::any::type_name::<T>();
    let plain = full.split('<').next().unwrap_or(full);
    plain.rsplit("::").next().unwrap_or(plain).to_string()
}

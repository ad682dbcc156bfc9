//! Records into a one-dimensional, chunked, extendable dataset: a new file
//! appears whole, once [`finish`](DatasetWriter::finish)ed.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use ndl_runtime::records::Packer;
use ndl_runtime::{ByteOrder, NdlType};

use crate::error::{hdf5_error, Error, Result};
use crate::h5type::{commit_type, hdf5_type};
use crate::options::WriteOptions;
use crate::raw_io;
use crate::staging::Staged;

/// Records staged and written at a time: memory stays bounded whatever
/// the length of an append.
const BLOCK_BYTES: usize = 8 << 20;

/// Writes `records` to a new HDF5 file at `path`, as the one-dimensional
/// dataset `dataset` (`"data"`, or `"/group/data"`, whose groups are
/// made): h5py reads it as the NumPy dtype `np.save` writes for them.
/// The record type is committed to the file under the Rust type's name.
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
pub fn write<T: NdlType>(path: impl AsRef<Path>, dataset: &str, records: &[T]) -> Result<()> {
    let options = WriteOptions::new().expected_len(records.len() as u64);
    let mut writer = DatasetWriter::<T>::create_with(path, dataset, &options)?;
    writer.append(records)?;
    writer.finish()
}

/// Streams records into a chunked dataset with an unlimited dimension,
/// in bounded memory.
///
/// [`create`](DatasetWriter::create) builds a new file out of sight, next
/// to `path`, and renames it into place in
/// [`finish`](DatasetWriter::finish): a crash leaves no file at `path`,
/// only a hidden `.<name>.*.tmp` beside it. [`open`](DatasetWriter::open)
/// appends to an existing dataset in place: HDF5 has no journal, so a
/// crash during an append can leave that file unreadable; copy it first
/// where that matters.
pub struct DatasetWriter<T> {
    target: Target,
    dataset: hdf5::Dataset,
    memory_type: hdf5::Datatype,
    packer: Packer<T>,
    /// The bytes of each record that no field covers, zeroed before a write.
    padding: Vec<std::ops::Range<usize>>,
    len: u64,
    path: PathBuf,
    name: String,
    _records: PhantomData<T>,
}

impl<T: NdlType> DatasetWriter<T> {
    /// Starts a new file at `path` holding the empty dataset `dataset`,
    /// with the default [`WriteOptions`].
    pub fn create(path: impl AsRef<Path>, dataset: &str) -> Result<Self> {
        Self::create_with(path, dataset, &WriteOptions::new())
    }

    /// Starts a new file at `path` holding the empty dataset `dataset`,
    /// chunked, compressed and ordered as `options` say.
    pub fn create_with(
        path: impl AsRef<Path>,
        dataset: &str,
        options: &WriteOptions,
    ) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let staged = Staged::create(&path)?;
        let datatype = T::datatype();
        let type_error = |source| Error::Type {
            path: path.clone(),
            dataset: dataset.to_string(),
            source,
        };
        let memory_type = hdf5_type(&datatype, ByteOrder::NATIVE).map_err(type_error)?;
        let file_type = commit_type(
            staged.file(),
            &type_name::<T>(),
            &datatype,
            options.byte_order,
        )
        .map_err(type_error)?;
        let size = datatype.size().unwrap_or(1).max(1);
        let created = options
            .builder(staged.file(), &file_type, size)
            .create(dataset)
            .map_err(hdf5_error(&path, dataset))?;
        Self::new(Target::New(staged), created, memory_type, path, dataset)
    }

    /// Opens the dataset `dataset` of the file at `path` for appending: its
    /// type must be exactly `T`'s, in either byte order.
    pub fn open(path: impl AsRef<Path>, dataset: &str) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = crate::file::open_rw(&path)?;
        let found = file.dataset(dataset).map_err(hdf5_error(&path, dataset))?;
        let memory_type =
            hdf5_type(&T::datatype(), ByteOrder::NATIVE).map_err(|source| Error::Type {
                path: path.clone(),
                dataset: dataset.to_string(),
                source,
            })?;
        let swapped =
            hdf5_type(&T::datatype(), ByteOrder::NATIVE.opposite()).map_err(|source| {
                Error::Type {
                    path: path.clone(),
                    dataset: dataset.to_string(),
                    source,
                }
            })?;
        let stored = found.dtype().map_err(hdf5_error(&path, dataset))?;
        if (stored != memory_type && stored != swapped) || found.ndim() != 1 {
            return Err(Error::Mismatch {
                path,
                dataset: dataset.to_string(),
                field: String::new(),
                message: "appends need a one-dimensional dataset of exactly the record type".into(),
            });
        }
        Self::new(Target::Existing(file), found, memory_type, path, dataset)
    }

    fn new(
        target: Target,
        dataset: hdf5::Dataset,
        memory_type: hdf5::Datatype,
        path: PathBuf,
        name: &str,
    ) -> Result<Self> {
        let packer = Packer::<T>::new().map_err(|e| Error::Mismatch {
            path: path.clone(),
            dataset: name.to_string(),
            field: String::new(),
            message: e.to_string(),
        })?;
        let padding = raw_io::padding(&T::datatype());
        let len = dataset.shape().first().copied().unwrap_or(0) as u64;
        Ok(DatasetWriter {
            target,
            dataset,
            memory_type,
            packer,
            padding,
            len,
            path,
            name: name.to_string(),
            _records: PhantomData,
        })
    }

    /// Appends `records`, a block at a time: the dataset grows and the
    /// block is written from the records' own memory when `T` has no
    /// padding, else from one copy with the padding zeroed (padding is
    /// never read from memory). Where the stored type is `T`'s own and no
    /// filter runs, blocks are whole chunks, written as they are, and a
    /// padded type is copied a chunk at a time, so that the copy is still
    /// in cache when it is written.
    pub fn append(&mut self, records: &[T]) -> Result<()> {
        let size = std::mem::size_of::<T>().max(1);
        let direct = raw_io::direct_chunk(&self.dataset, &self.memory_type);
        let (head, per_block, per_piece) = match direct {
            Some(chunk) => {
                let to_boundary = (chunk - self.len % chunk) % chunk;
                let chunks = (BLOCK_BYTES / (chunk as usize * size)).max(1);
                (
                    to_boundary as usize,
                    chunks * chunk as usize,
                    chunk as usize,
                )
            }
            None => (0, (BLOCK_BYTES / size).max(1), usize::MAX),
        };
        let (head, rest) = records.split_at(head.min(records.len()));
        let blocks = std::iter::once(head)
            .filter(|h| !h.is_empty())
            .chain(rest.chunks(per_block));
        let mut staged = Vec::new();
        for block in blocks {
            let end = self.len + block.len() as u64;
            self.dataset
                .resize(end as usize)
                .map_err(hdf5_error(&self.path, &self.name))?;
            let per_piece = if self.packer.is_dense() {
                block.len()
            } else {
                per_piece
            };
            let mut first = self.len;
            for piece in block.chunks(per_piece) {
                let bytes: &[u8] = if self.packer.is_dense() {
                    // SAFETY: `T` has no padding (every byte is a field's),
                    // so every byte of live records is initialised; the
                    // slice covers exactly the piece's memory, borrowed for
                    // its life.
                    unsafe {
                        std::slice::from_raw_parts(
                            piece.as_ptr().cast(),
                            std::mem::size_of_val(piece),
                        )
                    }
                } else {
                    raw_io::zero_padded(piece, &self.padding, &mut staged);
                    &staged
                };
                match direct {
                    Some(chunk) => raw_io::write_rows_direct(
                        &self.dataset,
                        &self.memory_type,
                        end,
                        first,
                        chunk,
                        bytes,
                    ),
                    None => {
                        raw_io::write_rows(&self.dataset, &self.memory_type, &[end], first, bytes)
                    }
                }
                .map_err(hdf5_error(&self.path, &self.name))?;
                first += piece.len() as u64;
            }
            self.len = end;
        }
        Ok(())
    }

    /// The records the dataset holds.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the dataset holds no records.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Flushes and closes the file; a new one is renamed into place.
    pub fn finish(self) -> Result<()> {
        drop(self.dataset);
        match self.target {
            Target::New(staged) => staged.publish(),
            Target::Existing(file) => {
                file.flush().map_err(hdf5_error(&self.path, &self.name))?;
                file.close().map_err(hdf5_error(&self.path, &self.name))
            }
        }
    }
}

/// The file a writer writes: a new one being built, or one appended to.
enum Target {
    New(Staged),
    Existing(hdf5::File),
}

/// The name `T`'s type is committed under: its Rust name, without path
/// or generic arguments.
fn type_name<T>() -> String {
    let full = std::any::type_name::<T>();
    let plain = full.split('<').next().unwrap_or(full);
    plain.rsplit("::").next().unwrap_or(plain).to_string()
}

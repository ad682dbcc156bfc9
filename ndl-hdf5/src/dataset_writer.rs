//! [`DatasetWriter`] of any [`Record`]: plain records (an `NdlType`) go
//! the byte-for-byte path of `write.rs`, records with `String`, `Vec` or
//! `Option` members that of `variable.rs`.

use std::any::TypeId;
use std::marker::PhantomData;
use std::path::Path;

use ndl_runtime::record::{PlainVisitor, same_slice};
use ndl_runtime::{NdlType, Record};

use crate::error::{Error, Result};
use crate::options::WriteOptions;
use crate::record_type::Node;
use crate::staging::Staged;
use crate::variable::RecordsWriter;
use crate::write::DatasetWriter as PlainWriter;

/// Streams records into a chunked dataset with an unlimited dimension,
/// in bounded memory.
///
/// Records of an `NdlType` are written byte for byte as their compound
/// (see [`write()`](crate::write())); records with `String`, `Vec` or
/// `Option` fields (`#[derive(Record)]`) as a compound with
/// variable-length UTF-8 strings and variable-length sequences, as h5py
/// reads and writes them; an `Option` stores its `#[ndl(fill = ...)]` for
/// `None`.
///
/// [`create`](DatasetWriter::create) builds a new file out of sight, next
/// to `path`, and renames it into place in
/// [`finish`](DatasetWriter::finish): a crash leaves no file at `path`,
/// only a hidden `.<name>.*.tmp` beside it. [`open`](DatasetWriter::open)
/// appends to an existing dataset in place: HDF5 has no journal, so a
/// crash during an append can leave that file unreadable;
/// [`open_copy`](DatasetWriter::open_copy) appends to a copy renamed over
/// the file when finished, so a crash leaves it as it was.
///
/// ```
/// use ndl_runtime::Record;
///
/// #[derive(Clone, Debug, PartialEq, Record)]
/// struct Trade {
///     id: u64,
///     symbol: String,
///     levels: Vec<f32>,
///     #[ndl(fill = -1)]
///     venue: Option<i32>,
/// }
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("trades.h5");
/// let first = [Trade { id: 1, symbol: "ABC".into(), levels: vec![1.5], venue: None }];
/// let second = [Trade { id: 2, symbol: "É".into(), levels: vec![], venue: Some(3) }];
/// let mut writer = ndl_hdf5::DatasetWriter::<Trade>::create(&path, "trades")?;
/// writer.append(&first)?;
/// writer.append(&second)?;
/// assert_eq!(writer.finish()?, 2);
/// let back = ndl_hdf5::read::<Trade>(&path, "trades")?;
/// assert_eq!(back, [first, second].concat());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DatasetWriter<T: Record> {
    inner: Inner<T>,
}

enum Inner<T: Record> {
    Plain(Box<dyn PlainAppend<T> + Send>),
    Variable(Box<RecordsWriter>),
}

impl<T: Record> DatasetWriter<T> {
    /// Starts a new file at `path` holding the empty dataset `dataset`,
    /// with the default [`WriteOptions`].
    pub fn create(path: impl AsRef<Path>, dataset: &str) -> Result<Self> {
        Self::create_with(path, dataset, &WriteOptions::new())
    }

    /// Starts a new file at `path` holding the empty dataset `dataset`,
    /// chunked, compressed and ordered as `options` say.
    ///
    /// # Errors
    /// [`Error::Type`] for records holding an enum or a bool in a
    /// netCDF-4 file, unless [`WriteOptions::netcdf_enum_records`] allows
    /// them (netCDF4-python and xarray skip such a variable), and for an
    /// `Option` field without `#[ndl(fill = ...)]` (HDF5 has no nulls),
    /// naming the field, before any file is made.
    pub fn create_with(
        path: impl AsRef<Path>,
        dataset: &str,
        options: &WriteOptions,
    ) -> Result<Self> {
        Self::start(path.as_ref(), dataset, How::Create(options))
    }

    /// Opens the dataset `dataset` of the file at `path` for appending in
    /// place: its type must be `T`'s (for plain records exactly, in either
    /// byte order; for others, every field present by name). A crash
    /// during the append can leave the file unreadable (HDF5 has no
    /// journal); [`open_copy`](DatasetWriter::open_copy) cannot.
    pub fn open(path: impl AsRef<Path>, dataset: &str) -> Result<Self> {
        Self::start(path.as_ref(), dataset, How::Open)
    }

    /// Opens the dataset `dataset` of the file at `path` for appending to
    /// a copy of the file, which [`finish`](DatasetWriter::finish) renames
    /// over it: a crash leaves the file as it was (and a hidden
    /// `.<name>.*.tmp` beside it), at the cost of copying it first. The
    /// file is locked against other writers meanwhile.
    pub fn open_copy(path: impl AsRef<Path>, dataset: &str) -> Result<Self> {
        Self::start(path.as_ref(), dataset, How::OpenCopy)
    }

    fn start(path: &Path, dataset: &str, how: How<'_>) -> Result<Self> {
        let visitor = Start::<T> {
            path,
            dataset,
            how,
            _records: PhantomData,
        };
        if let Some(plain) = T::visit_plain(visitor) {
            return Ok(DatasetWriter {
                inner: Inner::Plain(plain?),
            });
        }
        let node = Node::of::<T>().map_err(|source| Error::Type {
            path: path.to_path_buf(),
            dataset: dataset.to_string(),
            source,
        })?;
        let writer = match how {
            How::Create(options) => RecordsWriter::create_node(path, dataset, node, options)?,
            How::Open => {
                let file = crate::file::open_rw(path)?;
                RecordsWriter::open(None, Some(file), path, dataset, node)?
            }
            How::OpenCopy => {
                let staged = Staged::copy_of(path, false)?;
                RecordsWriter::open(Some(staged), None, path, dataset, node)?
            }
        };
        Ok(DatasetWriter {
            inner: Inner::Variable(Box::new(writer)),
        })
    }

    /// Appends `records`, a block at a time. A record with `Some` of its
    /// field's fill (it would read back as `None`) or a string holding a
    /// NUL character is an [`Error::InvalidValue`] naming record and
    /// field; the blocks before it are written, its own is not.
    pub fn append(&mut self, records: &[T]) -> Result<()> {
        match &mut self.inner {
            Inner::Plain(plain) => plain.append(records),
            Inner::Variable(writer) => writer.append_records(records),
        }
    }

    /// The records the dataset holds.
    pub fn len(&self) -> u64 {
        match &self.inner {
            Inner::Plain(plain) => plain.len(),
            Inner::Variable(writer) => writer.len(),
        }
    }

    /// Whether the dataset holds no records.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Flushes and closes the file; a new one is renamed into place.
    /// Returns the number of records the dataset now holds.
    pub fn finish(self) -> Result<u64> {
        match self.inner {
            Inner::Plain(plain) => plain.finish(),
            Inner::Variable(writer) => writer.finish(),
        }
    }
}

#[derive(Clone, Copy)]
enum How<'a> {
    Create(&'a WriteOptions),
    Open,
    OpenCopy,
}

/// Starts the plain writer of `T` as the `NdlType` it is.
struct Start<'a, T> {
    path: &'a Path,
    dataset: &'a str,
    how: How<'a>,
    _records: PhantomData<fn(&T)>,
}

impl<T: Record> PlainVisitor for Start<'_, T> {
    type Output = Result<Box<dyn PlainAppend<T> + Send>>;

    fn visit<U: NdlType>(self) -> Self::Output {
        // `Send` for `DatasetWriter<T>` rests on this: the plain writer is
        // one of `T` itself.
        if TypeId::of::<U>() != TypeId::of::<T>() {
            return Err(visited_as_another());
        }
        let writer = match self.how {
            How::Create(options) => PlainWriter::<U>::create_with(self.path, self.dataset, options),
            How::Open => PlainWriter::<U>::open(self.path, self.dataset),
            How::OpenCopy => PlainWriter::<U>::open_copy(self.path, self.dataset),
        }?;
        Ok(Box::new(PlainAs(writer)))
    }
}

/// The plain writer of an `NdlType` `U`, taking the records as `T`, the
/// same type.
trait PlainAppend<T> {
    fn append(&mut self, records: &[T]) -> Result<()>;
    fn len(&self) -> u64;
    fn finish(self: Box<Self>) -> Result<u64>;
}

struct PlainAs<U: NdlType>(PlainWriter<U>);

impl<T: 'static, U: NdlType> PlainAppend<T> for PlainAs<U> {
    fn append(&mut self, records: &[T]) -> Result<()> {
        match same_slice::<T, U>(records) {
            Some(records) => self.0.append(records),
            None => Err(visited_as_another()),
        }
    }

    fn len(&self) -> u64 {
        self.0.len()
    }

    fn finish(self: Box<Self>) -> Result<u64> {
        self.0.finish()
    }
}

fn visited_as_another() -> Error {
    Error::TypeMismatch {
        path: Default::default(),
        dataset: String::new(),
        field: String::new(),
        message: "a plain record visited as another type".into(),
    }
}

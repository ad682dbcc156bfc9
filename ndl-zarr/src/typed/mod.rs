//! The typed entry points over [`Record`]: plain records ([`NdlType`]s)
//! take the zero-copy paths of either layout through a [`PlainVisitor`];
//! records with `String`, `Vec` or `Option` fields go to the columns
//! layout's variable writer and reader.

mod read_plain;

use std::marker::PhantomData;
use std::ops::Range;
use std::path::Path;

use ndl_runtime::record::{PlainVisitor, same_slice};
use ndl_runtime::{NdlType, Record};

use crate::error::{Error, Result};
use crate::layout::columns::variable::VariableWriter;
use crate::options::{Layout, WriteOptions};
use crate::writer::PlainArrayWriter;

pub(crate) use read_plain::read_plain;

/// Appends records to a store, chunk by chunk: one array of records, or
/// one array per field.
///
/// Full chunks are encoded as soon as they are complete; the records of a
/// last, partial chunk wait in memory until more arrive or
/// [`finish`](ArrayWriter::finish). The array's length in its metadata
/// changes only in `finish`, after every chunk is stored: a writer that
/// stops before (an error, a crash, a drop without `finish`) leaves the
/// array as it was, with its old length.
///
/// Records with `String`, `Vec` or `Option` fields (`#[derive(Record)]`)
/// are written in the columns layout only ([`Layout::Columns`]): the
/// records layout's struct data type cannot hold variable-length members,
/// and is refused naming the first such field. See the
/// [crate docs](crate#records-with-strings-lists-and-options).
///
/// ```
/// use ndl_zarr::{ArrayWriter, WriteOptions};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("t.zarr");
/// let mut w = ArrayWriter::<u32>::create_with(&path, &WriteOptions::new().chunk_len(2))?;
/// w.append(&[1, 2, 3])?;
/// w.finish()?;
///
/// let mut w = ArrayWriter::<u32>::open(&path)?;
/// w.append(&[4])?;
/// assert_eq!(w.finish()?, 4);
/// assert_eq!(ndl_zarr::read::<u32>(&path)?, [1, 2, 3, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ArrayWriter<T: Record> {
    inner: Inner<T>,
}

enum Inner<T: Record> {
    Plain(Box<dyn PlainAppend<T> + Send>),
    Variable(Box<VariableWriter>),
}

impl<T: Record> std::fmt::Debug for ArrayWriter<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let layout = match &self.inner {
            Inner::Plain(_) => "plain",
            Inner::Variable(_) => "variable",
        };
        f.debug_struct("ArrayWriter")
            .field("records", &layout)
            .finish()
    }
}

impl<T: Record + Send + Sync> ArrayWriter<T> {
    /// Creates a store at `dir` (which must not exist, or be an empty
    /// directory) holding no records yet, with the default
    /// [`WriteOptions`], and a writer that appends to it.
    pub fn create(dir: impl AsRef<Path>) -> Result<ArrayWriter<T>> {
        ArrayWriter::create_with(dir, &WriteOptions::new())
    }

    /// [`create`](ArrayWriter::create) with `options`: the layout, chunks,
    /// codecs, format version and durability of the new store.
    ///
    /// # Errors
    /// For a record with `String`, `Vec` or `Option` fields: the records
    /// layout, naming the field; an `Option` without `#[ndl(fill = ...)]`,
    /// naming the field.
    pub fn create_with(dir: impl AsRef<Path>, options: &WriteOptions) -> Result<ArrayWriter<T>> {
        let dir = dir.as_ref();
        match T::visit_plain(Start::new(dir, How::Create(options))) {
            Some(plain) => Ok(ArrayWriter::plain(plain?)),
            None => {
                refuse_records_layout::<T>(options)?;
                let writer = VariableWriter::of::<T>(dir, options)?;
                Ok(ArrayWriter {
                    inner: Inner::Variable(Box::new(writer)),
                })
            }
        }
    }

    /// Creates a store at `dir` (which must not exist, or be an empty
    /// directory) of `len` records of `T`, not yet written: writers of
    /// regions ([`ArrayWriter::region`]) then store them, at once. Plain
    /// records only.
    pub fn create_sized(dir: impl AsRef<Path>, len: u64, options: &WriteOptions) -> Result<()> {
        let sized = Sized {
            dir: dir.as_ref(),
            len,
            options,
        };
        T::visit_plain(sized).unwrap_or_else(|| Err(plain_only::<T>("create_sized")))
    }

    /// The writer of records `range` of the store at `dir`, made by
    /// [`ArrayWriter::create_sized`]: many processes (or threads) write
    /// disjoint regions at once. A region starts on a chunk boundary and
    /// ends on one or at the end of the store; any other is refused. Plain
    /// records only.
    pub fn region(dir: impl AsRef<Path>, range: Range<u64>) -> Result<ArrayWriter<T>> {
        let start = Start::new(dir.as_ref(), How::Region(range));
        match T::visit_plain(start) {
            Some(plain) => Ok(ArrayWriter::plain(plain?)),
            None => Err(plain_only::<T>("region")),
        }
    }

    /// The writer that appends to the store at `dir`, of either layout,
    /// which must hold records of `T` (checked as [`read`](crate::read)
    /// checks them): records with `String`, `Vec` or `Option` fields too,
    /// in the columns layout.
    ///
    /// One appender at a time: the writer takes a lock object
    /// (`.ndl-append.lock`) and a second appender is refused with
    /// [`Error::Locked`] until the first is done.
    pub fn open(dir: impl AsRef<Path>) -> Result<ArrayWriter<T>> {
        let dir = dir.as_ref();
        match T::visit_plain(Start::new(dir, How::Open)) {
            Some(plain) => Ok(ArrayWriter::plain(plain?)),
            None => Ok(ArrayWriter {
                inner: Inner::Variable(Box::new(VariableWriter::open::<T>(dir)?)),
            }),
        }
    }

    fn plain(plain: Box<dyn PlainAppend<T> + Send>) -> ArrayWriter<T> {
        ArrayWriter {
            inner: Inner::Plain(plain),
        }
    }

    /// The number of records the store holds once finished.
    pub fn len(&self) -> u64 {
        match &self.inner {
            Inner::Plain(p) => p.len(),
            Inner::Variable(v) => v.len(),
        }
    }

    /// Whether the store holds no records, written or appended.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends `records`: every chunk they complete is stored now.
    ///
    /// # Errors
    /// A `Some(fill)` in an `Option` field (it would read back as `None`),
    /// naming the record and field; nothing of `records` is written then.
    pub fn append(&mut self, records: &[T]) -> Result<()> {
        match &mut self.inner {
            Inner::Plain(p) => p.append(records),
            Inner::Variable(v) => v.append(records),
        }
    }

    /// Stores the last, partial chunks, then the metadata with the new
    /// length (and publishes a store built out of sight,
    /// [`WriteOptions::publish_on_finish`]); returns the length.
    pub fn finish(self) -> Result<u64> {
        match self.inner {
            Inner::Plain(p) => p.finish(),
            Inner::Variable(v) => v.finish(),
        }
    }
}

/// The refusal of a writer only plain records have.
fn plain_only<T: Record>(what: &str) -> Error {
    let field = T::datatype().variable_member().unwrap_or_default();
    Error::Unsupported {
        message: format!(
            "{what} writes plain records only, and field `{field}` is variable-length or \
             optional: write the records with ArrayWriter::create_with and Layout::Columns"
        ),
    }
}

/// Refuses the records layout for records of variable or optional
/// members: Zarr's struct data type has no variable-length fields.
fn refuse_records_layout<T: Record>(options: &WriteOptions) -> Result<()> {
    if options.layout == Layout::Columns {
        return Ok(());
    }
    let field = T::datatype().variable_member().unwrap_or_default();
    Err(Error::Unsupported {
        message: format!(
            "field `{field}` is variable-length or optional, which the records layout (one array \
             of structs) cannot hold: write with WriteOptions::layout(Layout::Columns)"
        ),
    })
}

/// How a plain writer starts.
enum How<'a> {
    Create(&'a WriteOptions),
    Region(Range<u64>),
    Open,
}

/// Starts the plain writer of the `NdlType` a `Record` is.
struct Start<'a, T> {
    dir: &'a Path,
    how: How<'a>,
    record: PhantomData<fn() -> T>,
}

impl<'a, T> Start<'a, T> {
    fn new(dir: &'a Path, how: How<'a>) -> Start<'a, T> {
        Start {
            dir,
            how,
            record: PhantomData,
        }
    }
}

impl<T: Record + Send + Sync> PlainVisitor for Start<'_, T> {
    type Output = Result<Box<dyn PlainAppend<T> + Send>>;

    fn visit<U: NdlType>(self) -> Self::Output {
        let writer = match self.how {
            How::Create(options) => PlainArrayWriter::<U>::create_with(self.dir, options),
            How::Region(range) => PlainArrayWriter::<U>::region(self.dir, range),
            How::Open => PlainArrayWriter::<U>::open(self.dir),
        }?;
        Ok(Box::new(PlainAs(writer)))
    }
}

/// [`ArrayWriter::create_sized`] of a plain record.
struct Sized<'a> {
    dir: &'a Path,
    len: u64,
    options: &'a WriteOptions,
}

impl PlainVisitor for Sized<'_> {
    type Output = Result<()>;

    fn visit<U: NdlType>(self) -> Result<()> {
        PlainArrayWriter::<U>::create_sized(self.dir, self.len, self.options)
    }
}

/// The plain writer of an `NdlType` `U`, taking the records as `T`, the
/// same type.
trait PlainAppend<T> {
    fn append(&mut self, records: &[T]) -> Result<()>;
    fn len(&self) -> u64;
    fn finish(self: Box<Self>) -> Result<u64>;
}

struct PlainAs<U: NdlType>(PlainArrayWriter<U>);

impl<T: 'static, U: NdlType> PlainAppend<T> for PlainAs<U> {
    fn append(&mut self, records: &[T]) -> Result<()> {
        let Some(records) = same_slice::<T, U>(records) else {
            unreachable!("visit_plain visits the record type itself")
        };
        self.0.append(records)
    }

    fn len(&self) -> u64 {
        self.0.len()
    }

    fn finish(self: Box<Self>) -> Result<u64> {
        self.0.finish()
    }
}

/// The one-shot write.
impl WriteOptions {
    /// Writes `data` as a new store at `dir` (which must not exist, or be an
    /// empty directory): a local store appears there only once complete
    /// (see [`publish_on_finish`](WriteOptions::publish_on_finish)).
    ///
    /// Plain records ([`NdlType`]s) go to either layout; records with
    /// `String`, `Vec` or `Option` fields only to [`Layout::Columns`]
    /// (see [`ArrayWriter`]).
    pub fn write<T: Record + Send + Sync>(&self, dir: impl AsRef<Path>, data: &[T]) -> Result<()> {
        let options = self
            .clone()
            .expected_len(data.len() as u64)
            .publish_on_finish(true);
        let mut writer = ArrayWriter::<T>::create_with(dir, &options)?;
        writer.append(data)?;
        writer.finish().map(drop)
    }
}

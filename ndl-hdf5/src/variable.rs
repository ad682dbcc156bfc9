//! Records with variable-length members (strings, sequences, options
//! with a fill) in a one-dimensional, chunked, extendable dataset of the
//! compound [`Node`] lays out; plain records never come here.
//!
//! The core is untyped: [`RecordsWriter`] and [`RecordsReader`] move
//! batches of neutral [`Column`]s, laid out by a template column (what
//! `ndl convert` has, with no Rust type). The typed
//! [`DatasetWriter`](crate::DatasetWriter) and [`read`](crate::read())
//! build the template from the record type and use the same core.

use std::os::raw::c_void;
use std::path::{Path, PathBuf};

use hdf5_sys::h5d::{H5Dget_space, H5Dread};
use hdf5_sys::h5s::{H5S_seloper_t, H5Sclose, H5Screate_simple};
use ndl_runtime::record::{self, Column, Columns, RecordError};
use ndl_runtime::{Compound, Datatype, Member, Record};

use crate::error::{Error, Result, hdf5_error};
use crate::h5type::TypeError;
use crate::lookup::dataset_path;
use crate::null_fills::{self, Fills, NDL_FILLS};
use crate::options::WriteOptions;
use crate::raw_io::{self, failed, select_box};
use crate::record_io::{Arena, Budget, Buffer, Reclaim, Transfer, decode, encode};
use crate::record_type::{Node, dotted, variable_compounds};
use crate::staging::Staged;

/// Records encoded, written or read at a time: about this many bytes of
/// HDF5's memory form, at most [`MAX_BLOCK`] records.
const BLOCK_BYTES: usize = 4 << 20;
const MAX_BLOCK: usize = 1 << 16;

fn type_error<'a>(path: &'a Path, dataset: &'a str) -> impl Fn(TypeError) -> Error + 'a {
    let dataset = dataset.to_string();
    move |source| Error::Type {
        path: path.to_path_buf(),
        dataset: dataset.clone(),
        source,
    }
}

/// Streams records, as batches of columns, into a new chunked dataset
/// with an unlimited dimension whose type is a compound holding
/// variable-length UTF-8 strings and `H5T_VLEN` sequences, as h5py's
/// `string_dtype()` and `vlen_dtype()` make them.
///
/// The file is built out of sight, next to `path`, and renamed into place
/// by [`finish`](RecordsWriter::finish): nothing appears at `path` if
/// writing fails (or the writer is dropped).
///
/// ```
/// use ndl_runtime::record::{Column, Values};
/// use ndl_runtime::{Compound, Datatype, Member};
///
/// let datatype = Datatype::Compound(Compound::variable([
///     Member::new("name", 0, Datatype::String),
///     Member::new("levels", 0, Datatype::Vlen(Box::new(Datatype::Float32))),
/// ])?);
/// let template = Column::template(&datatype)?;
/// let batch = Column::Struct {
///     len: 2,
///     fields: vec![
///         ("name".into(), Column::Strings { offsets: vec![0, 2, 2], data: "Ü".into() }),
///         ("levels".into(), Column::List {
///             offsets: vec![0, 0, 1],
///             values: Box::new(Column::Values {
///                 datatype: Datatype::Float32,
///                 values: Values::F32(vec![1.5]),
///             }),
///         }),
///     ],
/// };
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("t.h5");
/// let mut writer = ndl_hdf5::RecordsWriter::create(
///     &path, "t", &datatype, &template, &ndl_hdf5::WriteOptions::new(),
/// )?;
/// writer.append(&batch)?;
/// assert_eq!(writer.finish()?, 2);
///
/// let mut reader = ndl_hdf5::RecordsReader::open(&path, "t")?;
/// assert_eq!(reader.len(), 2);
/// assert_eq!(reader.next_block()?, Some(batch));
/// assert_eq!(reader.next_block()?, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RecordsWriter {
    staged: Option<Staged>,
    file: Option<hdf5::File>,
    dataset: hdf5::Dataset,
    node: Node,
    memory_type: hdf5::Datatype,
    len: u64,
    path: PathBuf,
    name: String,
}

impl RecordsWriter {
    /// A new file at `path` (published by `finish`) holding the empty
    /// dataset `dataset` of records of `datatype`, a compound, laid out as
    /// `template` (its [`Column::template`], with a fill for every
    /// option: HDF5 stores the fill for a null, and the dataset's
    /// attribute `ndl_fills`, a JSON object of each option member's fill
    /// as text, tells readers which values are nulls).
    ///
    /// # Errors
    /// [`Error::Type`] naming the member, before any file is made, for an
    /// option without a fill (`ndl convert --fill MEMBER=VALUE` gives
    /// one), a `datatype` that is no compound, a value HDF5 does not hold,
    /// or a netCDF-4 path (netCDF4-python reads no such compound: write
    /// such records there as columns).
    pub fn create(
        path: impl AsRef<Path>,
        dataset: &str,
        datatype: &Datatype,
        template: &Column,
        options: &WriteOptions,
    ) -> Result<RecordsWriter> {
        let path = path.as_ref();
        let node = RecordsWriter::layout(path, dataset, (datatype, template), false)?;
        RecordsWriter::create_node(path, dataset, node, options)
    }

    /// As [`create`](RecordsWriter::create), for a layout already made.
    pub(crate) fn create_node(
        path: &Path,
        dataset: &str,
        node: Node,
        options: &WriteOptions,
    ) -> Result<RecordsWriter> {
        if options.is_netcdf(path) {
            return Err(type_error(path, dataset)(no_netcdf_records()));
        }
        let staged = Staged::create(path, options.durable)?;
        let mut writer = RecordsWriter::create_in((staged.file(), path), dataset, node, options)?;
        writer.staged = Some(staged);
        Ok(writer)
    }

    /// The writer of the new empty dataset `dataset` (its groups made) of
    /// records laid out as `node`, in `file` at `path`, which its owner
    /// publishes.
    pub(crate) fn create_in(
        (file, path): (&hdf5::File, &Path),
        dataset: &str,
        node: Node,
        options: &WriteOptions,
    ) -> Result<RecordsWriter> {
        let memory_type = node.memory_type().map_err(type_error(path, dataset))?;
        let file_type = Node::file_type(&memory_type).map_err(hdf5_error(path, dataset))?;
        let created = options
            .builder(file, &file_type, file_type.size())
            .create(dataset)
            .map_err(hdf5_error(path, dataset))?;
        crate::user_attributes::write(&created, &options.attributes)
            .map_err(hdf5_error(path, dataset))?;
        null_fills::write(&created, &node).map_err(hdf5_error(path, dataset))?;
        Ok(RecordsWriter {
            staged: None,
            file: None,
            dataset: created,
            node,
            memory_type,
            len: 0,
            path: path.to_path_buf(),
            name: dataset.to_string(),
        })
    }

    /// Checks that records of `datatype` laid out as `template` can be
    /// written to the file at `path` (see [`create`](Self::create)), and
    /// gives their layout.
    pub(crate) fn layout(
        path: &Path,
        dataset: &str,
        (datatype, template): (&Datatype, &Column),
        netcdf: bool,
    ) -> Result<Node> {
        let refuse = type_error(path, dataset);
        if !matches!(datatype, Datatype::Compound(_)) || !matches!(template, Column::Struct { .. })
        {
            return Err(refuse(TypeError {
                field: String::new(),
                why: "records are a compound of members; this datatype is not one".into(),
            }));
        }
        if netcdf {
            return Err(refuse(no_netcdf_records()));
        }
        refuse_missing_fills(template, "").map_err(&refuse)?;
        Node::from_column(template, "").map_err(&refuse)
    }

    /// Appends in place to the dataset `dataset` of `file` (or of the
    /// copy `staged`), whose members must be those of `node`.
    pub(crate) fn open(
        staged: Option<Staged>,
        file: Option<hdf5::File>,
        path: &Path,
        dataset: &str,
        node: Node,
    ) -> Result<RecordsWriter> {
        let memory_type = node.memory_type().map_err(type_error(path, dataset))?;
        let opened = staged.as_ref().map(Staged::file).or(file.as_ref());
        let Some(handle) = opened else {
            unreachable!("a file or a copy to open the dataset in")
        };
        let stored_at = dataset_path(handle, path, dataset)?;
        let found = handle
            .dataset(&stored_at)
            .map_err(hdf5_error(path, dataset))?;
        check_dataset(path, dataset, &found, &node)?;
        let len = found.shape().first().copied().unwrap_or(0) as u64;
        Ok(RecordsWriter {
            staged,
            file,
            dataset: found,
            node,
            memory_type,
            len,
            path: path.to_path_buf(),
            name: dataset.to_string(),
        })
    }

    /// Appends the records of `batch`, a [`Column::Struct`] of the
    /// template's shape: checked (a present value equal to its option's
    /// fill, a string holding NUL) and encoded before the dataset grows
    /// for them; a null is stored as its option's fill.
    ///
    /// # Errors
    /// [`Error::InvalidValue`] naming the record, counted from the start
    /// of the dataset, and the member; the batch is then not written.
    pub fn append(&mut self, batch: &Column) -> Result<()> {
        let first = self.len;
        self.append_column(batch, first)
    }

    /// Appends `records` a block at a time, each built into columns;
    /// errors count records from the start of `records`.
    pub(crate) fn append_records<T: Record>(&mut self, records: &[T]) -> Result<()> {
        let size = self.node.size().max(1);
        let per_block = (BLOCK_BYTES / size).clamp(1, MAX_BLOCK);
        for (b, block) in records.chunks(per_block).enumerate() {
            self.append_column(&record::columns(block), (b * per_block) as u64)?;
        }
        Ok(())
    }

    /// Appends `column`, whose errors name records from `first`.
    fn append_column(&mut self, column: &Column, first: u64) -> Result<()> {
        let rows = column.len();
        if rows == 0 {
            return Ok(());
        }
        let size = self.node.size();
        let mut buf = Buffer::zeroed(rows * size);
        let mut arena = Arena::default();
        let slots: Vec<usize> = (0..rows).map(|i| i * size).collect();
        encode(&self.node, column, buf.bytes_mut(), &slots, &mut arena)
            .map_err(|e| self.invalid(e, first))?;
        let end = self.len + rows as u64;
        self.dataset
            .resize(end as usize)
            .map_err(hdf5_error(&self.path, &self.name))?;
        let bytes = &buf.bytes()[..rows * size];
        raw_io::write_rows(&self.dataset, &self.memory_type, &[end], self.len, bytes)
            .map_err(hdf5_error(&self.path, &self.name))?;
        self.len = end;
        Ok(())
    }

    fn invalid(&self, e: RecordError, first: u64) -> Error {
        Error::InvalidValue {
            path: self.path.clone(),
            dataset: self.name.clone(),
            record: first + e.record().unwrap_or(0) as u64,
            field: e.field(),
            offset: field_offset(&self.node, &e.field()),
            message: e.message().to_string(),
        }
    }

    /// The records the dataset holds.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the dataset holds no records.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Writes the attribute `name` of the dataset, `values` of
    /// `datatype` in `shape`, of their own type (a `short` stays
    /// `short`), as [`ArrayWriter::attribute`](crate::ArrayWriter::attribute)
    /// does.
    ///
    /// ```
    /// use ndl_hdf5::{Elements, RecordsWriter, WriteOptions};
    /// use ndl_runtime::record::Column;
    /// use ndl_runtime::{Compound, Datatype, Member};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("r.h5");
    /// let name = Member::new("name", 0, Datatype::String);
    /// let datatype = Datatype::Compound(Compound::variable(vec![name])?);
    /// let w = RecordsWriter::create(&path, "r", &datatype, &Column::template(&datatype)?,
    ///     &WriteOptions::new())?;
    /// w.attribute("scale", &Datatype::Int16, &[], Elements::Bytes(&3i16.to_ne_bytes()))?;
    /// w.finish()?;
    /// let file = hdf5::File::open(&path)?;
    /// assert_eq!(file.dataset("r")?.attr("scale")?.read_scalar::<i16>()?, 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn attribute(
        &self,
        name: &str,
        datatype: &Datatype,
        shape: &[u64],
        values: crate::Elements<'_>,
    ) -> Result<()> {
        crate::typed_attribute::write(&self.dataset, (name, datatype, shape), values, false)
            .map_err(|f| f.at(&self.path, &format!("{}@{name}", self.name)))
    }

    /// Writes the attribute `name` of the dataset from a JSON value, as
    /// [`ArrayWriter::json_attribute`](crate::ArrayWriter::json_attribute)
    /// does: for a value that has no type of its own.
    ///
    /// ```
    /// use ndl_hdf5::{RecordsWriter, WriteOptions};
    /// use ndl_runtime::record::Column;
    /// use ndl_runtime::{Compound, Datatype, Member};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("r.h5");
    /// let name = Member::new("name", 0, Datatype::String);
    /// let datatype = Datatype::Compound(Compound::variable(vec![name])?);
    /// let w = RecordsWriter::create(&path, "r", &datatype, &Column::template(&datatype)?,
    ///     &WriteOptions::new())?;
    /// w.json_attribute("bbox", &serde_json::json!([0.5, 10.0]))?;
    /// w.finish()?;
    /// let file = hdf5::File::open(&path)?;
    /// assert_eq!(file.dataset("r")?.attr("bbox")?.read_1d::<f64>()?.to_vec(), [0.5, 10.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn json_attribute(&self, name: &str, value: &serde_json::Value) -> Result<()> {
        crate::user_attributes::write_one(&self.dataset, name, value)
            .map_err(hdf5_error(&self.path, &format!("{}@{name}", self.name)))
    }

    /// Flushes and closes the file; a new one is renamed into place.
    /// Returns the number of records the dataset holds.
    pub fn finish(self) -> Result<u64> {
        drop(self.dataset);
        if let Some(staged) = self.staged {
            staged.publish()?;
        }
        if let Some(file) = self.file {
            file.flush().map_err(hdf5_error(&self.path, &self.name))?;
            file.close().map_err(hdf5_error(&self.path, &self.name))?;
        }
        Ok(self.len)
    }
}

/// Why records with variable-length members are no netCDF-4 dataset.
fn no_netcdf_records() -> TypeError {
    TypeError {
        field: String::new(),
        why: "netCDF4-python reads no compound holding variable-length members: write \
              records with `String`, `Vec` or `Option` fields to netCDF-4 with \
              write_columns, as one variable per field"
            .into(),
    }
}

/// Refuses an option of `template` without a fill, naming it: HDF5 has
/// no nulls, so it stores the fill for one.
fn refuse_missing_fills(template: &Column, path: &str) -> std::result::Result<(), TypeError> {
    match template {
        Column::Nullable { fill: None, .. } => Err(TypeError {
            field: path.to_string(),
            why: format!(
                "an optional value needs a value to stand for null in HDF5, which has no \
                 nulls: `ndl convert --fill {}=VALUE` gives one",
                if path.is_empty() { "MEMBER" } else { path }
            ),
        }),
        Column::Nullable { values, .. }
        | Column::List { values, .. }
        | Column::FixedList { values, .. } => refuse_missing_fills(values, path),
        Column::Struct { fields, .. } => fields
            .iter()
            .try_for_each(|(name, c)| refuse_missing_fills(c, &dotted(path, name))),
        _ => Ok(()),
    }
}

/// The byte offset, in HDF5's memory form, of the dotted field `field`.
pub(crate) fn field_offset(node: &Node, field: &str) -> usize {
    let mut offset = 0;
    let mut at = node;
    for name in field.split('.').filter(|n| !n.is_empty()) {
        let Node::Struct { fields, .. } = at else {
            break;
        };
        let Some((_, o, inner)) = fields.iter().find(|(n, _, _)| n == name) else {
            break;
        };
        offset += o;
        at = inner;
    }
    offset
}

/// Refuses a dataset that is not one-dimensional or lacks a member of
/// `node`, naming the field.
fn check_dataset(path: &Path, dataset: &str, found: &hdf5::Dataset, node: &Node) -> Result<()> {
    let mismatch = |field: String, message: String| Error::TypeMismatch {
        path: path.to_path_buf(),
        dataset: dataset.to_string(),
        field,
        message,
    };
    if found.ndim() != 1 {
        return Err(mismatch(
            String::new(),
            format!(
                "the dataset has shape {:?}; records are one-dimensional",
                found.shape()
            ),
        ));
    }
    let stored = found.dtype().map_err(hdf5_error(path, dataset))?;
    node.check_stored(stored.id())
        .map_err(|(field, why)| mismatch(field, why))
}

/// The one member of the records of a dataset of sequences, as ndl-arrow
/// names the one column of records that are not compounds.
pub const VALUE_MEMBER: &str = "value";

/// Reads the records of a one-dimensional dataset whose type is a
/// compound holding variable-length strings and sequences (as h5py's
/// `string_dtype()` and `vlen_dtype()` write them), a block at a time, as
/// batches of [`Column`]s in the shape of [`template`](RecordsReader::template).
///
/// Memory stays bounded by the block: before any value is read, every
/// variable-length length stored plainly in the file is checked to fit
/// the file, and every allocation HDF5 makes for a block's values is
/// held within a budget derived from the file's size, so a damaged length
/// is an [`Error::InvalidValue`] naming record and member, or a failed
/// read, never an allocation of what it claims. See
/// [`RecordsWriter`] for an example.
pub struct RecordsReader {
    _file: hdf5::File,
    found: hdf5::Dataset,
    node: Node,
    /// Whether the dataset holds lists rather than compounds: each block
    /// read is the one member [`VALUE_MEMBER`] of its records.
    bare: bool,
    memory_type: hdf5::Datatype,
    datatype: Datatype,
    template: Column,
    len: u64,
    next: u64,
    per_block: u64,
    file_len: usize,
    path: PathBuf,
    name: String,
}

impl RecordsReader {
    /// Opens the dataset `dataset` of the file at `path`: its records'
    /// datatype is the file's compound (strings as `string`, sequences as
    /// `vlen`; HDF5 having no nulls, the members the dataset's `ndl_fills`
    /// attribute names are `optional`, a value equal to the fill a null),
    /// their template that datatype's [`Column::template`]. A dataset of
    /// sequences (h5py's `vlen_dtype()` alone) is records of one member,
    /// [`VALUE_MEMBER`].
    ///
    /// # Errors
    /// A dataset that is not one-dimensional, of a type no column holds
    /// (references), whose `ndl_fills` names no member or a fill of
    /// another type, compressed with a filter this build lacks, or whose
    /// extent or variable-length lengths claim more than the file holds.
    pub fn open(path: impl AsRef<Path>, dataset: &str) -> Result<RecordsReader> {
        let path = path.as_ref();
        let (file, found) = open_found(path, dataset)?;
        let stored = found.dtype().map_err(hdf5_error(path, dataset))?;
        let stored = crate::stored_type::stored_type(stored.id())
            .map_err(record_mismatch(path, dataset))?
            .datatype;
        let bare = matches!(stored, Datatype::Vlen(_));
        let stored = match bare {
            true => Datatype::Compound(
                Compound::variable([Member::new(VALUE_MEMBER, 0, stored)])
                    .map_err(|e| record_mismatch(path, dataset)(e.to_string()))?,
            ),
            false => stored,
        };
        let fills = fills(path, dataset, &found)?;
        // A compound that holds options or variable members has no layout
        // of its own.
        let datatype = match &fills {
            Some(fills) => fills
                .optional(&stored)
                .map_err(record_mismatch(path, dataset))?,
            None => variable_compounds(stored),
        };
        let mut template = Column::template(&datatype).map_err(|e| Error::TypeMismatch {
            path: path.to_path_buf(),
            dataset: dataset.to_string(),
            field: e.field(),
            message: e.message().to_string(),
        })?;
        if let Some(fills) = fills {
            fills
                .fill(&mut template, false)
                .map_err(record_mismatch(path, dataset))?;
        }
        RecordsReader::start(path, dataset, (file, found), datatype, template, bare)
    }

    /// Whether the dataset `dataset` of the file at `path` holds variable
    /// records, which [`open`](RecordsReader::open) reads: it is
    /// one-dimensional, and its compound holds a variable-length string or
    /// sequence and no reference, or it holds sequences alone. Only the
    /// dataset is opened (no walk of the file, whose other objects may be
    /// damaged).
    ///
    /// # Errors
    /// If the file or the dataset cannot be opened.
    pub fn holds_records(path: impl AsRef<Path>, dataset: &str) -> Result<bool> {
        let path = path.as_ref();
        let (_file, found) = open_found(path, dataset)?;
        let stored = found.dtype().map_err(hdf5_error(path, dataset))?;
        let Ok(stored) = crate::stored_type::stored_type(stored.id()) else {
            return Ok(false);
        };
        let any = |is: &dyn Fn(&Datatype) -> bool| any_part(&stored.datatype, is);
        let variable = any(&|t| matches!(t, Datatype::String | Datatype::Vlen(_)));
        let options = found.attr(NDL_FILLS).is_ok();
        let sequences = matches!(stored.datatype, Datatype::Vlen(_));
        let compound = matches!(stored.datatype, Datatype::Compound(_));
        Ok(found.ndim() == 1
            && (sequences || compound && (variable || options))
            && !any(&|t| matches!(t, Datatype::ObjRef | Datatype::RegRef(_))))
    }

    /// Opens `dataset` to read records of `T`, members matched by name.
    pub(crate) fn open_as<T: Record>(path: &Path, dataset: &str) -> Result<RecordsReader> {
        let opened = open_found(path, dataset)?;
        let mut template = T::Columns::with_capacity(0).finish();
        if let Some(fills) = fills(path, dataset, &opened.1)? {
            fills
                .fill(&mut template, true)
                .map_err(record_mismatch(path, dataset))?;
        }
        RecordsReader::start(path, dataset, opened, T::datatype(), template, false)
    }

    fn start(
        path: &Path,
        dataset: &str,
        (file, found): (hdf5::File, hdf5::Dataset),
        datatype: Datatype,
        template: Column,
        bare: bool,
    ) -> Result<RecordsReader> {
        let read = match (&template, bare) {
            (Column::Struct { fields, .. }, true) => fields.first().map_or(&template, |(_, c)| c),
            _ => &template,
        };
        let node = Node::from_column(read, "").map_err(type_error(path, dataset))?;
        let stored = found.dtype().map_err(hdf5_error(path, dataset))?;
        let memory_type = node.reading(&stored).map_err(type_error(path, dataset))?;
        crate::filters::check_available(path, dataset, &found)?;
        check_dataset(path, dataset, &found, &node)?;
        let len = found.shape()[0] as u64;
        let stored_size = found.dtype().map_err(hdf5_error(path, dataset))?.size() as u64;
        crate::extent::check_extent(path, dataset, &found, len, stored_size, node.size() as u64)?;
        let file_len = std::fs::metadata(path)
            .map_err(|source| Error::Io {
                path: path.to_path_buf(),
                source,
            })?
            .len() as usize;
        crate::vlen_check::check(path, dataset, &found, file_len as u64)?;
        let mut reader = RecordsReader {
            _file: file,
            found,
            node,
            bare,
            memory_type,
            datatype,
            template,
            len,
            next: 0,
            per_block: 1,
            file_len,
            path: path.to_path_buf(),
            name: dataset.to_string(),
        };
        reader.set_block_bytes(BLOCK_BYTES);
        Ok(reader)
    }

    /// Reads blocks of about `bytes` of HDF5's memory form for the
    /// records (their fixed part: the values of strings and sequences
    /// come on top), at least one record.
    pub fn with_block_bytes(mut self, bytes: usize) -> RecordsReader {
        self.set_block_bytes(bytes);
        self
    }

    fn set_block_bytes(&mut self, bytes: usize) {
        self.per_block = (bytes / self.node.size().max(1)).clamp(1, MAX_BLOCK) as u64;
    }

    /// The records' datatype.
    pub fn datatype(&self) -> &Datatype {
        &self.datatype
    }

    /// The dataset's attributes as JSON and the stored type of each, as
    /// [`ArrayReader::attributes`](crate::ArrayReader::attributes) gives
    /// them.
    pub fn attributes(
        &self,
    ) -> (
        serde_json::Map<String, serde_json::Value>,
        std::collections::BTreeMap<String, Datatype>,
    ) {
        crate::attribute::attributes(&self.found)
    }

    /// The empty column every block has the shape of.
    pub fn template(&self) -> &Column {
        &self.template
    }

    /// The number of records.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the dataset holds no records.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The index of the first record the next block holds.
    pub fn position(&self) -> u64 {
        self.next
    }

    /// The next block of records, as a [`Column::Struct`]; `None` after
    /// the last.
    ///
    /// # Errors
    /// [`Error::InvalidValue`] for a string that is not UTF-8, naming the
    /// record (counted from the start of the dataset) and the member; an
    /// HDF5 error for a value the library cannot read (a damaged length
    /// the budget refuses).
    pub fn next_block(&mut self) -> Result<Option<Column>> {
        let first = self.next;
        if first >= self.len {
            return Ok(None);
        }
        let rows = self.per_block.min(self.len - first);
        let column = read_block(
            &self.found,
            &self.node,
            &self.memory_type,
            (first, rows),
            self.file_len,
        )
        .map_err(hdf5_error(&self.path, &self.name))?;
        check_utf8(&column).map_err(|e| self.invalid(e, first))?;
        self.next = first + rows;
        Ok(Some(match self.bare {
            true => Column::Struct {
                len: rows as usize,
                fields: vec![(VALUE_MEMBER.to_string(), column)],
            },
            false => column,
        }))
    }

    fn invalid(&self, e: RecordError, first: u64) -> Error {
        Error::InvalidValue {
            path: self.path.clone(),
            dataset: self.name.clone(),
            record: first + e.record().unwrap_or(0) as u64,
            field: e.field(),
            offset: field_offset(&self.node, &e.field()),
            message: e.message().to_string(),
        }
    }
}

/// The fills of the dataset's `ndl_fills` attribute, where it has one.
fn fills(path: &Path, dataset: &str, found: &hdf5::Dataset) -> Result<Option<Fills>> {
    let Some(json) = crate::attribute::attribute(found, NDL_FILLS) else {
        return Ok(None);
    };
    let fills = match json.as_str() {
        Some(text) => Fills::parse(text),
        None => Err(format!("`{NDL_FILLS}` is not text")),
    };
    fills.map(Some).map_err(record_mismatch(path, dataset))
}

/// A type mismatch of the whole record, saying `message`.
fn record_mismatch<'a>(path: &'a Path, dataset: &'a str) -> impl Fn(String) -> Error + 'a {
    move |message| Error::TypeMismatch {
        path: path.to_path_buf(),
        dataset: dataset.to_string(),
        field: String::new(),
        message,
    }
}

/// The file at `path` and its dataset `dataset`, opened for reading.
fn open_found(path: &Path, dataset: &str) -> Result<(hdf5::File, hdf5::Dataset)> {
    let file = crate::file::open(path)?;
    let stored_at = dataset_path(&file, path, dataset)?;
    let found = raw_io::open_uncached(&file, &stored_at).map_err(hdf5_error(path, dataset))?;
    Ok((file, found))
}

/// Whether `datatype` or any part of it (member, array item, sequence
/// item) is one `is` holds for.
fn any_part(datatype: &Datatype, is: &dyn Fn(&Datatype) -> bool) -> bool {
    if is(datatype) {
        return true;
    }
    match datatype {
        Datatype::Compound(c) => c.members.iter().any(|m| any_part(&m.datatype, is)),
        Datatype::Array(a) => any_part(&a.base, is),
        Datatype::Vlen(item) => any_part(item, is),
        _ => false,
    }
}

/// Refuses a string of `column` that is not UTF-8, naming its record and
/// field.
fn check_utf8(column: &Column) -> std::result::Result<(), RecordError> {
    match column {
        Column::Strings { offsets, data } => {
            if std::str::from_utf8(data).is_ok() {
                return Ok(());
            }
            let bad = offsets
                .windows(2)
                .position(|w| std::str::from_utf8(&data[w[0] as usize..w[1] as usize]).is_err());
            Err(RecordError::new("the string is not UTF-8").at(bad.unwrap_or(0)))
        }
        Column::List { offsets, values } => check_utf8(values).map_err(|e| match e.record() {
            Some(j) => e.at(offsets
                .partition_point(|&o| o as usize <= j)
                .saturating_sub(1)),
            None => e,
        }),
        Column::FixedList { size, values } => check_utf8(values).map_err(|e| match e.record() {
            Some(j) => e.at(j / (*size).max(1)),
            None => e,
        }),
        Column::Nullable { values, .. } => check_utf8(values),
        Column::Struct { fields, .. } => fields
            .iter()
            .try_for_each(|(name, c)| check_utf8(c).map_err(|e| e.in_field(name))),
        _ => Ok(()),
    }
}

/// Reads the records of `T` from the one-dimensional dataset `dataset`,
/// its members matched by name.
pub(crate) fn read<T: Record>(path: &Path, dataset: &str) -> Result<Vec<T>> {
    let mut reader = RecordsReader::open_as::<T>(path, dataset)?;
    let mut records = Vec::new();
    loop {
        let first = reader.position();
        let Some(column) = reader.next_block()? else {
            return Ok(records);
        };
        let block = record::read::<T>(&column.view()).map_err(|e| reader.invalid(e, first))?;
        records.extend(block);
    }
}

/// Rows `first..first + rows` as a column, HDF5's memory for them freed
/// before returning.
pub(crate) fn read_block(
    found: &hdf5::Dataset,
    node: &Node,
    memory_type: &hdf5::Datatype,
    (first, rows): (u64, u64),
    file_len: usize,
) -> hdf5::Result<ndl_runtime::record::Column> {
    let size = node.size();
    let mut buf = Buffer::zeroed(rows as usize * size);
    // The values of a block hold no more than the file does, in memory
    // at most 8 times over (a compound of a byte and an 8-byte number is
    // 9 bytes stored, 16 in memory), plus a NUL per string.
    let budget = Budget::new(file_len.saturating_mul(8).saturating_add(1 << 20));
    let transfer = Transfer::new(&budget)?;
    let out = buf.bytes_mut().as_mut_ptr().cast::<c_void>();
    let _reclaim = Reclaim {
        memory_type: memory_type.id(),
        transfer: &transfer,
        n: rows,
        buf: out,
    };
    hdf5::sync::sync(|| {
        // SAFETY: `found` is open; the spaces are ours, closed below.
        unsafe {
            let file_space = H5Dget_space(found.id());
            if file_space < 0 {
                return Err(failed());
            }
            let selected = select_box(file_space, H5S_seloper_t::H5S_SELECT_SET, &[first], &[rows]);
            let memory_space = H5Screate_simple(1, &rows, std::ptr::null());
            let status = match selected {
                Ok(()) if memory_space >= 0 => H5Dread(
                    found.id(),
                    memory_type.id(),
                    memory_space,
                    file_space,
                    transfer.id(),
                    out,
                ),
                _ => -1,
            };
            H5Sclose(file_space);
            if memory_space >= 0 {
                H5Sclose(memory_space);
            }
            if status < 0 {
                return Err(failed());
            }
            Ok(())
        }
    })?;
    let base = buf.bytes().as_ptr();
    // SAFETY: row `i` is at `i * size` of `buf`, filled by the read (or
    // zero), its pointers NULL or HDF5's, freed only when `_reclaim` drops
    // after the column is copied out.
    let slots: Vec<*const u8> = (0..rows as usize)
        .map(|i| unsafe { base.add(i * size) })
        .collect();
    // SAFETY: as above.
    Ok(unsafe { decode(node, &slots) })
}

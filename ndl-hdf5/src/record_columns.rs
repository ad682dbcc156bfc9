//! Records with `String`, `Vec` and `Option` fields as netCDF-4 columns:
//! one variable per field over the dimension `record`, as netCDF4-python
//! and xarray read them (netCDF4-python reads no compound holding a
//! variable-length member). Typed records (`write_columns`) and records
//! known only by their datatype and column template (`ndl convert`) go
//! through one [`RecordColumnsWriter`], which appends a batch of columns
//! at a time: `record` and every `<field>_sample` are unlimited, and the
//! file is staged, appearing whole when finished.
//!
//! - A `String` is a `string` variable (`NC_STRING`: a variable-length
//!   UTF-8 string).
//! - A `Vec` is a CF contiguous ragged array (CF §9.3): its items, all
//!   records' back to back, are the variable `<field>` over the dimension
//!   `<field>_sample`, and the `int64` count variable `<field>_count`
//!   over `record`, whose attribute `sample_dimension` names that
//!   dimension, says how many each record has.
//! - A nested record is flattened: its fields are `<field>.<member>`.
//! - `[T; N]` of numbers is a variable over `record` and `<field>_len`.
//! - An `Option` stores its fill (`#[ndl(fill = ...)]`, or the template's)
//!   for `None`, which is the number variable's `_FillValue`, so
//!   netCDF4-python and xarray mask it.
//! - A `bool` is an `int8` with the attribute `dtype: bool`, as xarray
//!   writes one.
//!
//! Other shapes (a `Vec` of records or of `Vec`s, a packed `NdlType`
//! struct) are refused naming the field: the HDF5 records layout
//! ([`write()`](crate::write())) holds them.

use std::os::raw::c_void;
use std::path::{Path, PathBuf};

use hdf5::types::VarLenUnicode;
use hdf5_sys::h5a::{H5Aclose, H5Acreate2, H5Awrite};
use hdf5_sys::h5p::H5P_DEFAULT;
use ndl_runtime::record::{self, Column, Columns, RecordError, Values};
use ndl_runtime::time::{CfEncoding, NAT};
use ndl_runtime::{ByteOrder, Datatype, Member, Record, TimeType};

use crate::dimension::Dimensions;
use crate::error::{Error, Result, hdf5_error};
use crate::h5type::{FileTypes, TypeError};
use crate::options::WriteOptions;
use crate::raw_io::{failed, write_rows};
use crate::record_columns_reader::RecordColumnsReader;
use crate::record_io::{Arena, Buffer, encode};
use crate::record_type::{Node, dotted, element, leaf_of, memory_type};
use crate::staging::Staged;

const RECORD: &str = "record";

/// Records gathered and written at a time by [`write`]: each block's
/// columns are built and appended, so memory holds one block's.
const TYPED_BLOCK: usize = 1 << 16;

/// Writes `records` to a new netCDF-4 file at `path` as columns.
pub(crate) fn write<T: Record>(path: &Path, records: &[T]) -> Result<()> {
    let template = T::Columns::with_capacity(0).finish();
    let mut writer = RecordColumnsWriter::start(
        path,
        &T::datatype(),
        &template,
        WriteOptions::new().expected_len(records.len() as u64),
        "add `#[ndl(fill = ...)]` to the field",
    )?;
    for block in records.chunks(TYPED_BLOCK) {
        writer.append(&record::columns(block))?;
    }
    writer.finish().map(drop)
}

/// Refuses, naming the field, a shape the columns do not hold; `fill_hint`
/// says how to give an option without a fill one.
fn check_shape(column: &Column, name: &str, fill_hint: &str) -> Result<(), TypeError> {
    let refuse = |why: &str| {
        Err(TypeError {
            field: name.to_string(),
            why: format!("{why}; the HDF5 records layout (ndl_hdf5::write) holds it"),
        })
    };
    match column {
        Column::Struct { fields, .. } => fields
            .iter()
            .try_for_each(|(f, c)| check_shape(c, &dotted(name, f), fill_hint)),
        Column::List { values, .. } if is_leaf(values) => check_fills(values, name, fill_hint),
        Column::List { .. } => refuse("netCDF columns hold lists of numbers, bools and strings"),
        Column::FixedList { values, .. } if is_number(values) => Ok(()),
        Column::FixedList { .. } => refuse("netCDF columns hold fixed arrays of numbers only"),
        c if is_leaf(c) => check_fills(c, name, fill_hint),
        _ => refuse("netCDF columns do not hold this kind of value"),
    }
}

/// Refuses an option without a value to stand for `None`.
fn check_fills(column: &Column, name: &str, fill_hint: &str) -> Result<(), TypeError> {
    match column {
        Column::Nullable { fill: None, .. } => Err(TypeError {
            field: name.to_string(),
            why: format!(
                "an `Option` needs a value to stand for `None` in netCDF, which has no nulls: \
                 {fill_hint}"
            ),
        }),
        _ => Ok(()),
    }
}

fn is_number(column: &Column) -> bool {
    matches!(column, Column::Values { .. } | Column::Bool(_))
}

/// A value one variable element holds: a number, a string, or either
/// of those as an option's.
fn is_leaf(column: &Column) -> bool {
    match column {
        Column::Values { .. } | Column::Bool(_) | Column::Strings { .. } => true,
        Column::Nullable { values, .. } => {
            is_number(values) || matches!(**values, Column::Strings { .. })
        }
        _ => false,
    }
}

/// Records written as netCDF-4 columns, one variable per field as
/// [`write_columns`](crate::write_columns) lays them out, a batch at a
/// time: every variable grows along the unlimited dimension
/// `record` (a list's items along its own unlimited `<field>_sample`),
/// and the file appears at its path only when [`finish`](Self::finish)
/// publishes it whole.
///
/// ```
/// use ndl_runtime::record::Column;
/// use ndl_runtime::{Compound, Datatype, Member};
///
/// let datatype = Datatype::Compound(Compound::variable([
///     Member::new("name", 0, Datatype::String),
///     Member::new("levels", 0, Datatype::Vlen(Box::new(Datatype::Float32))),
/// ])?);
/// let template = Column::template(&datatype)?;
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("t.nc");
/// let mut writer =
///     ndl_hdf5::RecordColumnsWriter::create(&path, &datatype, &template, Default::default())?;
/// let batch = Column::Struct {
///     len: 2,
///     fields: vec![
///         ("name".into(), Column::Strings { offsets: vec![0, 2, 2], data: b"ab".to_vec() }),
///         ("levels".into(), Column::List {
///             offsets: vec![0, 1, 3],
///             values: Box::new(Column::Values {
///                 datatype: Datatype::Float32,
///                 values: ndl_runtime::record::Values::F32(vec![1.0, 2.0, 3.0]),
///             }),
///         }),
///     ],
/// };
/// writer.append(&batch)?;
/// assert_eq!(writer.finish()?, 2);
/// let mut reader = ndl_hdf5::RecordColumnsReader::open(&path)?.expect("records in columns");
/// assert_eq!(reader.datatype(), &datatype);
/// assert_eq!(reader.next_block(100)?, Some(batch));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RecordColumnsWriter {
    staged: Staged,
    path: PathBuf,
    variables: Vec<Variable>,
    len: u64,
}

/// One field's variables.
struct Variable {
    /// Where its column is in a batch: the field names from the root.
    field: Vec<String>,
    name: String,
    kind: Kind,
}

enum Kind {
    /// Values over `record` (and `<field>_len` for a fixed array).
    Values(Out),
    /// A ragged array: items over `sample`, counts over `record`.
    List {
        items: Out,
        counts: Out,
        sample: String,
        samples: u64,
    },
}

/// A variable being appended to.
struct Out {
    dataset: hdf5::Dataset,
    node: Node,
    memory_type: hdf5::Datatype,
    inner: Vec<u64>,
}

impl RecordColumnsWriter {
    /// Starts a new netCDF-4 file for `path` holding records of
    /// `datatype` (a compound) in the columns of `template`'s shape
    /// ([`Column::template`] of it, with each option's fill); `options`
    /// give the codec, shuffle, records per chunk and the file's
    /// attributes.
    ///
    /// # Errors
    /// A field the columns do not hold (a list of lists or of records, an
    /// option without a fill), named by its dotted path, or what HDF5
    /// says when the file cannot be made.
    pub fn create(
        path: impl AsRef<Path>,
        datatype: &Datatype,
        template: &Column,
        options: WriteOptions,
    ) -> Result<RecordColumnsWriter> {
        RecordColumnsWriter::start(
            path.as_ref(),
            datatype,
            template,
            options,
            "give the column a fill value",
        )
    }

    fn start(
        path: &Path,
        datatype: &Datatype,
        template: &Column,
        options: WriteOptions,
        fill_hint: &str,
    ) -> Result<RecordColumnsWriter> {
        check_shape(template, "", fill_hint).map_err(|source| Error::Type {
            path: path.to_path_buf(),
            dataset: source.field.clone(),
            source,
        })?;
        let staged = Staged::create(path, options.durable)?;
        crate::user_attributes::write(staged.file(), &options.attributes)
            .map_err(hdf5_error(path, ""))?;
        let mut made = Made {
            file: staged.file(),
            types: FileTypes::new(staged.file()),
            dimensions: Dimensions::default(),
            options: options.netcdf(true),
            path,
            variables: Vec::new(),
        };
        made.field(&[], template, Some(datatype), None)?;
        let variables = made.variables;
        Ok(RecordColumnsWriter {
            staged,
            path: path.to_path_buf(),
            variables,
            len: 0,
        })
    }

    /// Writes the file's attribute `name`, `values` of `datatype` in
    /// `shape`, of their own type, as
    /// [`ArrayWriter::attribute`](crate::ArrayWriter::attribute) does for
    /// a dataset's.
    ///
    /// ```
    /// use ndl_hdf5::{Elements, RecordColumnsWriter, WriteOptions};
    /// use ndl_runtime::record::Column;
    /// use ndl_runtime::{Compound, Datatype, Member};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("r.nc");
    /// let name = Member::new("name", 0, Datatype::String);
    /// let datatype = Datatype::Compound(Compound::variable(vec![name])?);
    /// let w = RecordColumnsWriter::create(&path, &datatype, &Column::template(&datatype)?,
    ///     WriteOptions::new())?;
    /// w.attribute("version", &Datatype::Int16, &[], Elements::Bytes(&3i16.to_ne_bytes()))?;
    /// w.finish()?;
    /// let file = hdf5::File::open(&path)?;
    /// assert_eq!(file.attr("version")?.read_scalar::<i16>()?, 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn attribute(
        &self,
        name: &str,
        datatype: &Datatype,
        shape: &[u64],
        values: crate::Elements<'_>,
    ) -> Result<()> {
        crate::typed_attribute::write(self.staged.file(), (name, datatype, shape), values, true)
            .map_err(|f| f.at(&self.path, &format!("/@{name}")))
    }

    /// Writes the file's attribute `name` from a JSON value, as
    /// [`ArrayWriter::json_attribute`](crate::ArrayWriter::json_attribute)
    /// does: for a value that has no type of its own.
    ///
    /// ```
    /// use ndl_hdf5::{RecordColumnsWriter, WriteOptions};
    /// use ndl_runtime::record::Column;
    /// use ndl_runtime::{Compound, Datatype, Member};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("r.nc");
    /// let name = Member::new("name", 0, Datatype::String);
    /// let datatype = Datatype::Compound(Compound::variable(vec![name])?);
    /// let w = RecordColumnsWriter::create(&path, &datatype, &Column::template(&datatype)?,
    ///     WriteOptions::new())?;
    /// w.json_attribute("bbox", &serde_json::json!([0.5, 10.0]))?;
    /// w.finish()?;
    /// let file = hdf5::File::open(&path)?;
    /// assert_eq!(file.attr("bbox")?.read_1d::<f64>()?.to_vec(), [0.5, 10.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn json_attribute(&self, name: &str, value: &serde_json::Value) -> Result<()> {
        crate::user_attributes::write_one(self.staged.file(), name, value)
            .map_err(hdf5_error(&self.path, &format!("/@{name}")))
    }

    /// Appends the records of `batch`, a [`Column::Struct`] of the
    /// template's shape (fields found by name).
    ///
    /// # Errors
    /// A field missing from the batch or of another shape, a list whose
    /// offsets do not match its items, or what HDF5 says.
    pub fn append(&mut self, batch: &Column) -> Result<()> {
        let n = batch.len() as u64;
        if n == 0 {
            return Ok(());
        }
        for v in &mut self.variables {
            let column = find(batch, &v.field).ok_or_else(|| Error::TypeMismatch {
                path: self.path.clone(),
                dataset: v.name.clone(),
                field: v.name.clone(),
                message: "the batch has no such field".into(),
            })?;
            if column.len() as u64 != n {
                return Err(Error::TypeMismatch {
                    path: self.path.clone(),
                    dataset: v.name.clone(),
                    field: v.name.clone(),
                    message: format!("{} values in a batch of {n} records", column.len()),
                });
            }
            v.append(column, self.len, &self.path)?;
        }
        self.len += n;
        Ok(())
    }

    /// Sizes the dimensions and publishes the file; returns the number of
    /// records.
    ///
    /// # Errors
    /// What HDF5 or the file system says.
    pub fn finish(self) -> Result<u64> {
        let file = self.staged.file();
        let grow = |name: &str, len: u64| {
            file.dataset(name)
                .and_then(|d| d.resize(len as usize))
                .map_err(hdf5_error(&self.path, name))
        };
        grow(RECORD, self.len)?;
        for v in &self.variables {
            if let Kind::List {
                sample, samples, ..
            } = &v.kind
            {
                grow(sample, *samples)?;
            }
        }
        drop(self.variables);
        self.staged.publish()?;
        Ok(self.len)
    }
}

/// The column at the field path `field` of `batch`.
fn find<'c>(batch: &'c Column, field: &[String]) -> Option<&'c Column> {
    field.iter().try_fold(batch, |column, name| match column {
        Column::Struct { fields, .. } => fields.iter().find(|(f, _)| f == name).map(|(_, c)| c),
        _ => None,
    })
}

impl Variable {
    /// Appends `column`'s values, records `first..` of the file.
    fn append(&mut self, column: &Column, first: u64, path: &Path) -> Result<()> {
        let name = &self.name;
        match &mut self.kind {
            Kind::Values(out) => out.put(column, first, path, name, first),
            Kind::List {
                items,
                counts,
                samples,
                ..
            } => {
                let Column::List { offsets, values } = column else {
                    return Err(mismatch(path, name, "the batch's column is not a list"));
                };
                let (start, end) = (offsets[0], offsets[offsets.len() - 1]);
                if start != 0 || end as usize != values.len() {
                    return Err(mismatch(
                        path,
                        name,
                        "the list's offsets do not span its items from the first",
                    ));
                }
                items.put(values, *samples, path, name, first)?;
                let c: Vec<i64> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
                let c = Column::Values {
                    datatype: Datatype::Int64,
                    values: Values::I64(c),
                };
                counts.put(&c, first, path, &format!("{name}_count"), first)?;
                *samples += values.len() as u64;
                Ok(())
            }
        }
    }
}

fn mismatch(path: &Path, name: &str, message: &str) -> Error {
    Error::TypeMismatch {
        path: path.to_path_buf(),
        dataset: name.to_string(),
        field: name.to_string(),
        message: message.to_string(),
    }
}

impl Out {
    /// Writes `column`'s values as rows `at..` of the variable, growing
    /// it; errors count records from `record`.
    fn put(&self, column: &Column, at: u64, path: &Path, name: &str, record: u64) -> Result<()> {
        let n = column.len();
        if n == 0 {
            return Ok(());
        }
        let size = self.node.size();
        let mut buf = Buffer::zeroed(n * size);
        let mut arena = Arena::default();
        let slots: Vec<usize> = (0..n).map(|i| i * size).collect();
        encode(&self.node, column, buf.bytes_mut(), &slots, &mut arena)
            .map_err(|e| invalid(path, name, e, record))?;
        let mut shape = vec![at + n as u64];
        shape.extend(&self.inner);
        let at_hdf5 = hdf5_error(path, name);
        let extents: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
        self.dataset.resize(extents).map_err(&at_hdf5)?;
        write_rows(
            &self.dataset,
            &self.memory_type,
            &shape,
            at,
            &buf.bytes()[..n * size],
        )
        .map_err(&at_hdf5)
    }
}

/// The file being made: its variables, as they are created.
struct Made<'a> {
    file: &'a hdf5::File,
    types: FileTypes,
    dimensions: Dimensions,
    options: WriteOptions,
    path: &'a Path,
    variables: Vec<Variable>,
}

impl Made<'_> {
    /// Creates the variables of the field at `field` (names from the
    /// root), of `datatype`, whose member (with its doc comment and
    /// units) is `member`.
    fn field(
        &mut self,
        field: &[String],
        column: &Column,
        datatype: Option<&Datatype>,
        member: Option<&Member>,
    ) -> Result<()> {
        let name = field.join(".");
        let kind = match column {
            Column::Struct { fields, .. } => {
                let members = match datatype {
                    Some(Datatype::Compound(c)) => &c.members[..],
                    _ => &[],
                };
                for (f, c) in fields {
                    let m = members.iter().find(|m| &m.name == f);
                    let mut inner = field.to_vec();
                    inner.push(f.clone());
                    self.field(&inner, c, m.map(|m| &m.datatype), m)?;
                }
                return Ok(());
            }
            Column::List { values, .. } => {
                let sample = format!("{name}_sample");
                let items = self.variable(&name, values, std::slice::from_ref(&sample))?;
                self.describe(&items.dataset, &name, member)?;
                let counts = Column::Values {
                    datatype: Datatype::Int64,
                    values: Values::I64(Vec::new()),
                };
                let counts = self.variable(&format!("{name}_count"), &counts, &[RECORD.into()])?;
                crate::cf::text_attr(&counts.dataset, "sample_dimension", &sample)
                    .map_err(hdf5_error(self.path, &name))?;
                Kind::List {
                    items,
                    counts,
                    sample,
                    samples: 0,
                }
            }
            Column::FixedList { .. } => {
                let dims = [RECORD.into(), format!("{name}_len")];
                let v = self.variable(&name, column, &dims)?;
                self.describe(&v.dataset, &name, member)?;
                Kind::Values(v)
            }
            _ => {
                let v = self.variable(&name, column, &[RECORD.into()])?;
                self.describe(&v.dataset, &name, member)?;
                Kind::Values(v)
            }
        };
        self.variables.push(Variable {
            field: field.to_vec(),
            name,
            kind,
        });
        Ok(())
    }

    /// The CF `long_name` (the field's doc comment) and `units` of the
    /// variable of the field `name`.
    fn describe(
        &self,
        variable: &hdf5::Dataset,
        name: &str,
        member: Option<&Member>,
    ) -> Result<()> {
        let Some(member) = member else {
            return Ok(());
        };
        let at = hdf5_error(self.path, name);
        if let Some(d) = &member.description {
            crate::cf::text_attr(variable, "long_name", d).map_err(&at)?;
        }
        // A time's CF `units` are written already, and say what its
        // counts are.
        let has_units = variable.attr("units").is_ok();
        if let Some(u) = member.units.as_ref().filter(|_| !has_units) {
            crate::cf::text_attr(variable, "units", u).map_err(&at)?;
        }
        Ok(())
    }

    /// The empty variable `name` over `dims`, the first unlimited, of
    /// `column`'s values.
    fn variable(&mut self, name: &str, column: &Column, dims: &[String]) -> Result<Out> {
        let type_error = |source: TypeError| Error::Type {
            path: self.path.to_path_buf(),
            dataset: name.to_string(),
            source,
        };
        let node = Node::from_column(column, name).map_err(type_error)?;
        let leaf = leaf_of(&node);
        let memory_type = memory_type(leaf).map_err(type_error)?;
        let file_type = match leaf {
            Node::Fixed { datatype, .. } => self
                .types
                .netcdf(&element(datatype), ByteOrder::NATIVE, name)
                .map_err(type_error)?,
            _ => memory_type.clone(),
        };
        let inner: Vec<u64> = match &node {
            Node::Array { len, .. } => vec![*len as u64],
            _ => Vec::new(),
        };
        let at = hdf5_error(self.path, name);
        let dataset = self
            .options
            .extendable_builder(self.file, &file_type, node.size(), &inner)
            .create(name)
            .map_err(&at)?;
        let mut lens = vec![0];
        lens.extend(&inner);
        self.dimensions
            .attach(self.file, &dataset, dims, &lens, true)
            .map_err(&at)?;
        if let Node::Fixed {
            datatype: Datatype::Bool,
            ..
        } = leaf
        {
            crate::cf::text_attr(&dataset, "dtype", "bool").map_err(&at)?;
        }
        if let Node::Fixed {
            datatype: Datatype::Time(t),
            ..
        } = leaf
        {
            let fill = !matches!(node, Node::Optional { .. });
            time_attributes(&dataset, *t, fill).map_err(&at)?;
        }
        if let Node::Optional { value, fill } = &node {
            match **value {
                Node::Fixed { .. } => {
                    fill_value(&dataset, value, fill, &file_type, &memory_type).map_err(&at)?
                }
                Node::String => string_fill(&dataset, fill).map_err(&at)?,
                _ => {}
            }
        }
        Ok(Out {
            dataset,
            node,
            memory_type,
            inner,
        })
    }
}

/// The CF attributes of a time variable whose counts need no scaling
/// (seconds, days, ... since 1970-01-01), and NaT as its `_FillValue`
/// when `fill` (an option's fill is its own): xarray then decodes it.
/// Counts CF names no unit for are left as numbers.
fn time_attributes(dataset: &hdf5::Dataset, t: TimeType, fill: bool) -> hdf5::Result<()> {
    let encoding = CfEncoding::of(t);
    if encoding.factor() != 1 || encoding.units().is_none() {
        return Ok(());
    }
    if fill {
        dataset
            .new_attr::<i64>()
            .create("_FillValue")?
            .write_scalar(&NAT)?;
    }
    for (name, value) in encoding.attributes() {
        crate::cf::text_attr(dataset, name, &value)?;
    }
    Ok(())
}

/// Writes the `_FillValue` of a `string` variable: a scalar `NC_STRING`,
/// the type netCDF-C wants a string variable's fill to be.
fn string_fill(dataset: &hdf5::Dataset, fill: &Column) -> hdf5::Result<()> {
    let Column::Strings { offsets, data } = fill else {
        return Err("a string's fill is not a string".into());
    };
    let text = data
        .get(offsets[0] as usize..offsets[1] as usize)
        .and_then(|b| std::str::from_utf8(b).ok())
        .ok_or("the fill is not UTF-8")?;
    let value: VarLenUnicode = text
        .parse()
        .map_err(|e| hdf5::Error::from(format!("the fill {text:?}: {e}")))?;
    dataset
        .new_attr::<VarLenUnicode>()
        .create("_FillValue")?
        .write_scalar(&value)
}

/// Writes the `_FillValue` attribute of `dataset`: `fill` as its type.
fn fill_value(
    dataset: &hdf5::Dataset,
    value: &Node,
    fill: &Column,
    file_type: &hdf5::Datatype,
    memory_type: &hdf5::Datatype,
) -> hdf5::Result<()> {
    let mut one = Buffer::zeroed(value.size());
    encode(value, fill, one.bytes_mut(), &[0], &mut Arena::default())
        .map_err(|e| hdf5::Error::from(e.to_string()))?;
    hdf5::sync::sync(|| {
        // SAFETY: a scalar attribute we create and close; `one` holds one
        // value of `memory_type`.
        unsafe {
            let space = hdf5_sys::h5s::H5Screate(hdf5_sys::h5s::H5S_class_t::H5S_SCALAR);
            let attr = H5Acreate2(
                dataset.id(),
                c"_FillValue".as_ptr(),
                file_type.id(),
                space,
                H5P_DEFAULT,
                H5P_DEFAULT,
            );
            hdf5_sys::h5s::H5Sclose(space);
            if attr < 0 {
                return Err(failed());
            }
            let status = H5Awrite(
                attr,
                memory_type.id(),
                one.bytes().as_ptr().cast::<c_void>(),
            );
            H5Aclose(attr);
            if status < 0 {
                return Err(failed());
            }
            Ok(())
        }
    })
}

/// A value that does not encode, at record `first` + its index in the
/// batch.
fn invalid(path: &Path, name: &str, e: RecordError, first: u64) -> Error {
    let field = dotted(name, &e.field());
    Error::InvalidValue {
        path: path.to_path_buf(),
        dataset: name.to_string(),
        record: first + e.record().unwrap_or(0) as u64,
        field: field.trim_end_matches('.').to_string(),
        offset: 0,
        message: e.message().to_string(),
    }
}

/// Reads the records of `T` from the columns of the file at `path`, a
/// block at a time.
pub(crate) fn read<T: Record>(path: &Path) -> Result<Vec<T>> {
    let template = T::Columns::with_capacity(0).finish();
    let mut reader = RecordColumnsReader::open_as(path, &T::datatype(), &template)?;
    let mut records = Vec::with_capacity(reader.len() as usize);
    let mut first = 0u64;
    while let Some(block) = reader.next_block(TYPED_BLOCK)? {
        let n = block.len() as u64;
        let read = record::read::<T>(&block.view()).map_err(|e| {
            let field = e.field();
            Error::InvalidValue {
                path: path.to_path_buf(),
                dataset: field.clone(),
                record: first + e.record().unwrap_or(0) as u64,
                field,
                offset: 0,
                message: e.message().to_string(),
            }
        })?;
        records.extend(read);
        first += n;
    }
    Ok(records)
}

//! Records with `String`, `Vec` and `Option` fields as netCDF-4 columns:
//! one variable per field over the dimension `record`, as netCDF4-python
//! and xarray read them (netCDF4-python reads no compound holding a
//! variable-length member).
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
//! - An `Option` stores its `#[ndl(fill = ...)]` for `None`, which is the
//!   number variable's `_FillValue`, so netCDF4-python and xarray mask it.
//! - A `bool` is an `int8` with the attribute `dtype: bool`, as xarray
//!   writes one.
//!
//! Other shapes (a `Vec` of records or of `Vec`s, a packed `NdlType`
//! struct) are refused naming the field: the HDF5 records layout
//! ([`write()`](crate::write())) holds them.

use std::os::raw::c_void;
use std::path::Path;

use hdf5_sys::h5a::{H5Aclose, H5Acreate2, H5Awrite};
use hdf5_sys::h5p::H5P_DEFAULT;
use ndl_runtime::record::{self, Column, Columns, RecordError, Values};
use ndl_runtime::{ByteOrder, Datatype, Member, Record};

use crate::dimension::Dimensions;
use crate::error::{hdf5_error, Error, Result};
use crate::h5type::{profile_type, FileTypes, Orders, TypeError};
use crate::options::WriteOptions;
use crate::raw_io::{failed, read_rows, write_rows};
use crate::record_io::{decode, encode, Arena, Buffer};
use crate::record_type::{dotted, Node};
use crate::staging::Staged;

const RECORD: &str = "record";

/// Writes `records` to a new netCDF-4 file at `path` as columns.
pub(crate) fn write<T: Record>(path: &Path, records: &[T]) -> Result<()> {
    let template = T::Columns::with_capacity(0).finish();
    check_shape(&template, "").map_err(|source| Error::Type {
        path: path.to_path_buf(),
        dataset: source.field.clone(),
        source,
    })?;
    let column = record::columns(records);
    let staged = Staged::create(path, false)?;
    let mut out = Out {
        file: staged.file(),
        types: FileTypes::new(staged.file()),
        dimensions: Dimensions::default(),
        options: WriteOptions::new().netcdf(true),
        path,
    };
    out.field("", &column, Some(&T::datatype()), None)?;
    drop(out);
    staged.publish()
}

/// Refuses, naming the field, a shape the columns do not hold.
fn check_shape(column: &Column, name: &str) -> Result<(), TypeError> {
    let refuse = |why: &str| {
        Err(TypeError {
            field: name.to_string(),
            why: format!("{why}; the HDF5 records layout (ndl_hdf5::write) holds it"),
        })
    };
    match column {
        Column::Struct { fields, .. } => fields
            .iter()
            .try_for_each(|(f, c)| check_shape(c, &dotted(name, f))),
        Column::List { values, .. } if is_leaf(values) => Ok(()),
        Column::List { .. } => refuse("netCDF columns hold lists of numbers, bools and strings"),
        Column::FixedList { values, .. } if is_number(values) => Ok(()),
        Column::FixedList { .. } => refuse("netCDF columns hold fixed arrays of numbers only"),
        Column::Nullable { fill: None, .. } => Err(TypeError {
            field: name.to_string(),
            why: "an `Option` needs a value to stand for `None` in netCDF, which has no nulls: \
                  add `#[ndl(fill = ...)]` to the field"
                .into(),
        }),
        c if is_leaf(c) => Ok(()),
        _ => refuse("netCDF columns do not hold this kind of value"),
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

/// The file being written.
struct Out<'a> {
    file: &'a hdf5::File,
    types: FileTypes,
    dimensions: Dimensions,
    options: WriteOptions,
    path: &'a Path,
}

impl Out<'_> {
    /// Writes the variables of the field `name`, of `datatype`, whose
    /// member (with its doc comment and units) is `member`.
    fn field(
        &mut self,
        name: &str,
        column: &Column,
        datatype: Option<&Datatype>,
        member: Option<&Member>,
    ) -> Result<()> {
        match column {
            Column::Struct { fields, .. } => {
                let members = match datatype {
                    Some(Datatype::Compound(c)) => &c.members[..],
                    _ => &[],
                };
                for (f, c) in fields {
                    let m = members.iter().find(|m| &m.name == f);
                    self.field(&dotted(name, f), c, m.map(|m| &m.datatype), m)?;
                }
                Ok(())
            }
            Column::List { offsets, values } => {
                let sample = format!("{name}_sample");
                let items = self.variable(name, values, std::slice::from_ref(&sample))?;
                self.describe(&items, name, member)?;
                let counts: Vec<i64> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
                let counts = Column::Values {
                    datatype: Datatype::Int64,
                    values: Values::I64(counts),
                };
                let count = self.variable(&format!("{name}_count"), &counts, &[RECORD.into()])?;
                crate::cf::text_attr(&count, "sample_dimension", &sample)
                    .map_err(hdf5_error(self.path, name))
            }
            Column::FixedList { .. } => {
                let v = self.variable(name, column, &[RECORD.into(), format!("{name}_len")])?;
                self.describe(&v, name, member)
            }
            _ => {
                let v = self.variable(name, column, &[RECORD.into()])?;
                self.describe(&v, name, member)
            }
        }
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
        if let Some(u) = &member.units {
            crate::cf::text_attr(variable, "units", u).map_err(&at)?;
        }
        Ok(())
    }

    /// The variable `name` over `dims` holding `column`'s values.
    fn variable(&mut self, name: &str, column: &Column, dims: &[String]) -> Result<hdf5::Dataset> {
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
        let n = column.len();
        let mut shape = vec![n as u64];
        if let Node::Array { len, .. } = &node {
            shape.push(*len as u64);
        }
        let size = node.size();
        let mut buf = Buffer::zeroed(n * size);
        let mut arena = Arena::default();
        let slots: Vec<usize> = (0..n).map(|i| i * size).collect();
        encode(&node, column, buf.bytes_mut(), &slots, &mut arena)
            .map_err(|e| invalid(self.path, name, e))?;
        let at = hdf5_error(self.path, name);
        let dataset = self
            .options
            .fixed_builder(self.file, &file_type, file_type.size(), &shape)
            .create(name)
            .map_err(&at)?;
        self.dimensions
            .attach(self.file, &dataset, dims, &shape, false)
            .map_err(&at)?;
        write_rows(&dataset, &memory_type, &shape, 0, &buf.bytes()[..n * size]).map_err(&at)?;
        if let Node::Fixed {
            datatype: Datatype::Bool,
            ..
        } = leaf
        {
            crate::cf::text_attr(&dataset, "dtype", "bool").map_err(&at)?;
        }
        if let Node::Optional { value, fill } = &node {
            if matches!(**value, Node::Fixed { .. }) {
                fill_value(&dataset, value, fill, &file_type, &memory_type).map_err(&at)?;
            }
        }
        Ok(dataset)
    }
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

/// The node of one element of a variable: an option's value, an array's
/// item.
fn leaf_of(node: &Node) -> &Node {
    match node {
        Node::Optional { value, .. } => leaf_of(value),
        Node::Array { item, .. } => leaf_of(item),
        other => other,
    }
}

/// The memory type of one element: a bool as the `int8` it is stored as.
fn memory_type(leaf: &Node) -> Result<hdf5::Datatype, TypeError> {
    match leaf {
        Node::Fixed { datatype, .. } => {
            profile_type(&element(datatype), Orders::one(ByteOrder::NATIVE), true)
        }
        other => other.memory_type(),
    }
}

fn element(datatype: &Datatype) -> Datatype {
    match datatype {
        Datatype::Bool => Datatype::Int8,
        Datatype::Time(_) => Datatype::Int64,
        other => other.clone(),
    }
}

fn invalid(path: &Path, name: &str, e: RecordError) -> Error {
    let field = dotted(name, &e.field());
    Error::InvalidValue {
        path: path.to_path_buf(),
        dataset: name.to_string(),
        record: e.record().unwrap_or(0) as u64,
        field: field.trim_end_matches('.').to_string(),
        offset: 0,
        message: e.message().to_string(),
    }
}

/// Reads the records of `T` from the columns of the file at `path`.
pub(crate) fn read<T: Record>(path: &Path) -> Result<Vec<T>> {
    let template = T::Columns::with_capacity(0).finish();
    let file = crate::file::open(path)?;
    let file_len = std::fs::metadata(path)
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?
        .len() as usize;
    let input = In {
        file: &file,
        path,
        file_len,
    };
    let column = input.field("", &template)?;
    record::read::<T>(&column.view()).map_err(|e| {
        let field = e.field();
        Error::InvalidValue {
            path: path.to_path_buf(),
            dataset: field.clone(),
            record: e.record().unwrap_or(0) as u64,
            field,
            offset: 0,
            message: e.message().to_string(),
        }
    })
}

/// The file being read.
struct In<'a> {
    file: &'a hdf5::File,
    path: &'a Path,
    file_len: usize,
}

impl In<'_> {
    fn field(&self, name: &str, template: &Column) -> Result<Column> {
        match template {
            Column::Struct { fields, .. } => {
                let fields = fields
                    .iter()
                    .map(|(f, c)| Ok((f.clone(), self.field(&dotted(name, f), c)?)))
                    .collect::<Result<Vec<_>>>()?;
                let len = fields.first().map_or(0, |(_, c)| c.len());
                Ok(Column::Struct { len, fields })
            }
            Column::List { values, .. } => {
                let counts = Column::Values {
                    datatype: Datatype::Int64,
                    values: Values::I64(Vec::new()),
                };
                let Column::Values {
                    values: Values::I64(counts),
                    ..
                } = self.variable(&format!("{name}_count"), &counts, None)?
                else {
                    unreachable!("an int64 template reads as int64 values")
                };
                let mut offsets = Vec::with_capacity(counts.len() + 1);
                offsets.push(0i64);
                for (i, c) in counts.iter().enumerate() {
                    let last = offsets[offsets.len() - 1];
                    let next = (*c >= 0).then(|| last.checked_add(*c)).flatten();
                    let Some(next) = next else {
                        return Err(self
                            .mismatch(name, format!("record {i}: the count {c} is not a length")));
                    };
                    offsets.push(next);
                }
                let total = offsets[offsets.len() - 1] as u64;
                let values = self.variable(name, values, Some(total))?;
                Ok(Column::List {
                    offsets,
                    values: Box::new(values),
                })
            }
            _ => self.variable(name, template, None),
        }
    }

    fn mismatch(&self, name: &str, message: String) -> Error {
        Error::TypeMismatch {
            path: self.path.to_path_buf(),
            dataset: name.to_string(),
            field: name.to_string(),
            message,
        }
    }

    /// The values of the variable `name`, `expected` of them if given.
    fn variable(&self, name: &str, template: &Column, expected: Option<u64>) -> Result<Column> {
        let node = Node::from_column(template, name).map_err(|source| Error::Type {
            path: self.path.to_path_buf(),
            dataset: name.to_string(),
            source,
        })?;
        let leaf = leaf_of(&node);
        let memory_type = memory_type(leaf).map_err(|source| Error::Type {
            path: self.path.to_path_buf(),
            dataset: name.to_string(),
            source,
        })?;
        let stored_at = crate::lookup::dataset_path(self.file, self.path, name)?;
        let found = self
            .file
            .dataset(&stored_at)
            .map_err(hdf5_error(self.path, name))?;
        crate::filters::check_available(self.path, name, &found)?;
        let shape: Vec<u64> = found.shape().iter().map(|&d| d as u64).collect();
        let inner: Vec<u64> = match &node {
            Node::Array { len, .. } => vec![*len as u64],
            _ => Vec::new(),
        };
        let n = shape.first().copied().unwrap_or(0);
        if shape.get(1..) != Some(&inner[..]) || expected.is_some_and(|e| e != n) {
            return Err(self.mismatch(
                name,
                format!(
                    "the variable has shape {shape:?}, not {} values of {inner:?}",
                    expected.map_or("n".to_string(), |e| e.to_string())
                ),
            ));
        }
        if !matches!(leaf, Node::Fixed { .. }) {
            let stored = found.dtype().map_err(hdf5_error(self.path, name))?;
            leaf.check_stored(stored.id())
                .map_err(|(_, why)| self.mismatch(name, why))?;
        }
        let stored_size = found.dtype().map_err(hdf5_error(self.path, name))?.size() as u64;
        crate::extent::check_extent(self.path, name, &found, n, stored_size, node.size() as u64)?;
        crate::vlen_check::check(self.path, name, &found, self.file_len as u64)?;
        if inner.is_empty() {
            return crate::variable::read_block(&found, &node, &memory_type, (0, n), self.file_len)
                .map_err(hdf5_error(self.path, name));
        }
        // A fixed array of numbers: no variable-length value to free.
        let size = node.size();
        let mut buf = Buffer::zeroed(n as usize * size);
        read_rows(
            &found,
            &memory_type,
            &shape,
            0,
            &mut buf.bytes_mut()[..n as usize * size],
        )
        .map_err(hdf5_error(self.path, name))?;
        let base = buf.bytes().as_ptr();
        // SAFETY: value `i` is the `size` bytes at `i * size` of `buf`,
        // which the read filled; numbers hold no pointers.
        let slots: Vec<*const u8> = (0..n as usize)
            .map(|i| unsafe { base.add(i * size) })
            .collect();
        // SAFETY: as above.
        Ok(unsafe { decode(&node, &slots) })
    }
}

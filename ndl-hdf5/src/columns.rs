//! The columns layout of a netCDF-4 file: one variable per leaf field of
//! a record, all over the dimension `record`, which netCDF4-python and
//! xarray read (they skip a compound variable that holds an enum or a
//! bool, which the records layout writes).
//!
//! - The columns are [`ndl_runtime::columns`]' (dotted names, array and
//!   string dimensions), each a netCDF variable in the file's root.
//! - An enum is a netCDF enum type of its base and members, complex
//!   numbers nc-complex's compound: every such type committed once.
//! - A bool is an `int8` of 0 or 1 with the attribute `dtype: bool`, as
//!   xarray writes bools and decodes them back: xarray's h5netcdf engine
//!   fails on a variable of h5py's `FALSE`/`TRUE` enum (h5py reads it as
//!   NumPy's bool, without the enum's members that h5netcdf asks for).
//! - A fixed string is netCDF `char` over `<field>_strlen`, opaque bytes
//!   `ubyte` over `<field>_bytes`.
//! - A time is an `int64` with CF `units` (`seconds since 1970-01-01
//!   00:00:00`), `calendar` for instants (xarray's `dtype` for durations)
//!   and `_FillValue` NaT, which xarray decodes. A unit that is a whole
//!   number of a CF unit (`W`, `10ms`) is stored in it, its counts
//!   multiplied exactly; one that is none (years, months) keeps its counts,
//!   with a `comment` naming it ([`ndl_runtime::time::CfEncoding`]).
//! - Doc comments are `long_name`, `#[ndl(units = "K")]` is `units`; the
//!   root attribute `ndl_datatype` is the record's NDL datatype (JSON), by
//!   which the columns read back into exactly the records written.

use std::ops::Range;
use std::path::{Path, PathBuf};

use hdf5::types::TypeDescriptor;
use ndl_runtime::columns::{Column, plan};
use ndl_runtime::time::{CfEncoding, CfValues};
use ndl_runtime::{ByteOrder, Datatype};

use crate::cf::{self, NDL_DATATYPE};
use crate::dimension::Dimensions;
use crate::error::{Error, Result, hdf5_error};
use crate::h5type::{FileTypes, Orders, TypeError, netcdf_char, profile_type};
use crate::lookup::dataset_path;
use crate::options::WriteOptions;
use crate::raw_io::{read_rows, read_rows_padded, write_rows};
use crate::shape_check::compare;
use crate::staging::Staged;

/// The name of the record dimension.
const RECORD: &str = "record";

/// One column's variable and the type its values move in.
struct Variable {
    column: Column,
    dataset: hdf5::Dataset,
    memory_type: hdf5::Datatype,
    /// How a time column read is decoded from its CF counts, where it is.
    time: Option<CfValues>,
    /// How a time column written is scaled into its CF units, where it is.
    scale: Option<CfEncoding>,
    /// The variable's extents: the records, then the column's own.
    shape: Vec<u64>,
    /// What a read gives past its records, where it has fewer than the
    /// table along their unlimited dimension (netCDF reads its fill).
    fill: Option<Vec<u8>>,
}

impl Variable {
    fn field(&self) -> Range<usize> {
        self.column.offset..self.column.offset + self.column.size
    }
}

/// A new netCDF-4 file of records split into columns, written from whole
/// records and renamed into place by [`finish`](ColumnsWriter::finish).
pub struct ColumnsWriter {
    staged: Staged,
    variables: Vec<Variable>,
    record_size: usize,
    /// The byte order of the numbers of the records written.
    byte_order: ByteOrder,
    next_row: u64,
}

impl ColumnsWriter {
    /// Starts a new file at `path` with a variable of `len` values for
    /// each column of records of `record`, written from records whose
    /// numbers are in `byte_order`; `options` give the stored order,
    /// codec and chunks.
    pub fn create(
        path: impl AsRef<Path>,
        record: &Datatype,
        byte_order: ByteOrder,
        len: u64,
        options: &WriteOptions,
    ) -> Result<ColumnsWriter> {
        let staged = Staged::create(path.as_ref(), options.durable)?;
        let path = staged.path().to_path_buf();
        let columns = plan(record).map_err(|e| Error::TypeMismatch {
            path: path.clone(),
            dataset: String::new(),
            field: String::new(),
            message: e.0,
        })?;
        cf::write_datatype(staged.file(), record)
            .and_then(|()| crate::user_attributes::write(staged.file(), &options.attributes))
            .map_err(hdf5_error(&path, ""))?;
        let mut types = FileTypes::new(staged.file());
        let mut dimensions = Dimensions::default();
        let mut variables = Vec::new();
        for column in columns {
            let name = column.name.clone();
            let at = hdf5_error(&path, &name);
            let type_error = |source| Error::Type {
                path: path.clone(),
                dataset: name.clone(),
                source,
            };
            let element = element(&column.base);
            let memory_type = value_type(&element, byte_order).map_err(type_error)?;
            let file_type = match element {
                Datatype::FixedString(_) => netcdf_char(),
                _ => types.netcdf(&element, options.byte_order, &name),
            }
            .map_err(type_error)?;
            let mut shape = vec![len];
            shape.extend(&column.inner);
            let dataset = options
                .fixed_builder(staged.file(), &file_type, file_type.size(), &shape)
                .create(name.as_str())
                .map_err(&at)?;
            let mut names = vec![RECORD.to_string()];
            names.extend(column.dims.iter().cloned());
            dimensions
                .attach(staged.file(), &dataset, &names, &shape, false)
                .map_err(&at)?;
            let encoding = cf_attributes(&dataset, &column).map_err(&at)?;
            variables.push(Variable {
                column,
                dataset,
                memory_type,
                time: None,
                scale: encoding.filter(|e| e.factor() != 1),
                shape,
                fill: None,
            });
        }
        Ok(ColumnsWriter {
            staged,
            variables,
            record_size: record.size().unwrap_or(0),
            byte_order,
            next_row: 0,
        })
    }

    /// Writes the file's attribute `name`, `values` of `datatype` in
    /// `shape`, of their own type (a `short` `valid_range` stays `short`),
    /// as [`ArrayWriter::attribute`](crate::ArrayWriter::attribute) does
    /// for a dataset's.
    ///
    /// ```
    /// use ndl_hdf5::{ColumnsWriter, Elements, WriteOptions};
    /// use ndl_runtime::{ByteOrder, Compound, Datatype};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("c.nc");
    /// let record = Datatype::Compound(Compound::c_layout([("x", Datatype::Float64)])?);
    /// let w = ColumnsWriter::create(&path, &record, ByteOrder::NATIVE, 0, &WriteOptions::new())?;
    /// w.attribute("missing", &Datatype::Float64, &[], Elements::Bytes(&f64::NAN.to_ne_bytes()))?;
    /// w.finish()?;
    /// let file = hdf5::File::open(&path)?;
    /// assert!(file.attr("missing")?.read_scalar::<f64>()?.is_nan());
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
            .map_err(|f| f.at(self.staged.path(), &format!("/@{name}")))
    }

    /// Writes the file's attribute `name` from a JSON value, as
    /// [`ArrayWriter::json_attribute`](crate::ArrayWriter::json_attribute)
    /// does: for a value that has no type of its own.
    ///
    /// ```
    /// use ndl_hdf5::{ColumnsWriter, WriteOptions};
    /// use ndl_runtime::{ByteOrder, Compound, Datatype};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("c.nc");
    /// let record = Datatype::Compound(Compound::c_layout([("x", Datatype::Float64)])?);
    /// let w = ColumnsWriter::create(&path, &record, ByteOrder::NATIVE, 0, &WriteOptions::new())?;
    /// w.json_attribute("bbox", &serde_json::json!([0.5, 10.0]))?;
    /// w.finish()?;
    /// let file = hdf5::File::open(&path)?;
    /// assert_eq!(file.attr("bbox")?.read_1d::<f64>()?.to_vec(), [0.5, 10.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn json_attribute(&self, name: &str, value: &serde_json::Value) -> Result<()> {
        crate::user_attributes::write_one(self.staged.file(), name, value)
            .map_err(hdf5_error(self.staged.path(), &format!("/@{name}")))
    }

    /// The bytes of one record.
    pub fn record_size(&self) -> usize {
        self.record_size
    }

    /// Writes the next whole records, each field to its column.
    pub fn write_records(&mut self, records: &[u8]) -> Result<()> {
        let size = self.record_size;
        let n = records.len().checked_div(size).unwrap_or(0);
        self.write_gathered(n, |field, values| {
            ndl_runtime::records::gather(records, size, &[field], &mut [values]);
        })
    }

    /// Writes the next `n` records, whose field at each byte range
    /// `gather` copies into a column of `n` values.
    pub(crate) fn write_gathered(
        &mut self,
        n: usize,
        mut gather: impl FnMut(Range<usize>, &mut [u8]),
    ) -> Result<()> {
        let mut values = Vec::new();
        for v in &self.variables {
            values.resize(n * v.column.size, 0);
            gather(v.field(), &mut values);
            if let Some(encoding) = &v.scale {
                self.scale_times(v, encoding, &mut values)?;
            }
            write_rows(&v.dataset, &v.memory_type, &v.shape, self.next_row, &values)
                .map_err(hdf5_error(self.staged.path(), &v.column.name))?;
        }
        self.next_row += n as u64;
        Ok(())
    }

    /// Multiplies the time counts of `v` into its CF units; an overflow is
    /// an error naming the record and field.
    fn scale_times(&self, v: &Variable, encoding: &CfEncoding, values: &mut [u8]) -> Result<()> {
        encoding
            .scale(values, self.byte_order)
            .map_err(|u| Error::InvalidValue {
                path: self.staged.path().to_path_buf(),
                dataset: v.column.name.clone(),
                record: self.next_row + (u.index / (v.column.size / 8).max(1)) as u64,
                field: v.column.name.clone(),
                offset: v.column.offset,
                message: encoding.unscalable_message(u),
            })
    }

    /// Closes the file and renames it into place.
    pub fn finish(self) -> Result<()> {
        drop(self.variables);
        self.staged.publish()
    }
}

/// The records of a netCDF-4 file in the columns layout, read a block
/// at a time.
pub struct ColumnsReader {
    _file: hdf5::File,
    record: Datatype,
    variables: Vec<Variable>,
    len: u64,
    next_row: u64,
    path: PathBuf,
}

impl ColumnsReader {
    /// Opens the columns of the file at `path`, to read its records (of
    /// its `ndl_datatype`) with every number in native byte order.
    pub fn open(path: impl AsRef<Path>) -> Result<ColumnsReader> {
        let path = path.as_ref().to_path_buf();
        let file = crate::file::open(&path)?;
        let record = cf::read_datatype(&file).ok_or_else(|| Error::TypeMismatch {
            path: path.clone(),
            dataset: String::new(),
            field: String::new(),
            message: format!("no readable `{NDL_DATATYPE}` attribute: not records in columns"),
        })?;
        Self::open_in(file, path, record, false)
    }

    /// Opens the columns of the file at `path` as fields of records of
    /// `record`, whoever wrote them: each column is the variable named by
    /// its field's dotted path, its values converted by HDF5 (numbers to
    /// the field's type and native order, enums by member name).
    pub fn open_as(path: impl AsRef<Path>, record: &Datatype) -> Result<ColumnsReader> {
        let path = path.as_ref().to_path_buf();
        let file = crate::file::open(&path)?;
        let netcdf = file.attr("_NCProperties").is_ok();
        Self::open_in(file, path, record.clone(), netcdf)
    }

    /// Opens the columns of `file` as fields of `record`: in a netCDF-4
    /// file another tool wrote (`grows`), a variable shorter than the
    /// unlimited dimension is read as long, as netCDF reads it; in ours,
    /// columns of other lengths are damage.
    fn open_in(
        file: hdf5::File,
        path: PathBuf,
        record: Datatype,
        grows: bool,
    ) -> Result<ColumnsReader> {
        let mismatch = |field: &str, message: String| Error::TypeMismatch {
            path: path.clone(),
            dataset: field.to_string(),
            field: field.to_string(),
            message,
        };
        let columns = plan(&record).map_err(|e| mismatch("", e.0))?;
        let mut opened = Vec::new();
        for column in columns {
            let name = column.name.clone();
            let stored_at = dataset_path(&file, &path, &name)?;
            let dataset = file.dataset(&stored_at).map_err(hdf5_error(&path, &name))?;
            crate::filters::check_available(&path, &name, &dataset)?;
            opened.push((column, dataset));
        }
        // Along an unlimited dimension, netCDF reads every variable as
        // long as the longest.
        let extent = |d: &hdf5::Dataset| d.shape().first().map_or(0, |&n| n as u64);
        let len = opened.iter().map(|(_, d)| extent(d)).max().unwrap_or(0);
        let mut variables = Vec::new();
        for (column, dataset) in opened {
            let name = column.name.clone();
            let shape: Vec<u64> = dataset.shape().iter().map(|&d| d as u64).collect();
            let n = shape.first().copied().unwrap_or(0);
            let unlimited = dataset
                .space()
                .is_ok_and(|s| s.maxdims().first().is_some_and(Option::is_none));
            if shape[1.min(shape.len())..] != column.inner[..]
                || (n != len && !(grows && unlimited))
            {
                return Err(mismatch(
                    &name,
                    format!(
                        "the variable has shape {shape:?}, not {len} records of {:?}",
                        column.inner
                    ),
                ));
            }
            let stored = dataset.dtype().map_err(hdf5_error(&path, &name))?;
            let (wanted, time) = match column.base {
                // An enum (h5py's bool, in files we wrote before bools
                // were int8) is read as the bool its members name.
                Datatype::Bool if is_enum(&stored) => (Datatype::Bool, None),
                Datatype::Time(t) => {
                    let (float, time) = cf::stored_time(&dataset, &stored, t)
                        .map_err(|message| mismatch(&name, message))?;
                    let counts = if float {
                        Datatype::Float64
                    } else {
                        Datatype::Int64
                    };
                    (counts, time)
                }
                _ => {
                    let wanted = element(&column.base);
                    compare(&stored, &wanted).map_err(|(_, message)| mismatch(&name, message))?;
                    (wanted, None)
                }
            };
            let memory_type =
                value_type(&wanted, ByteOrder::NATIVE).map_err(|source| Error::Type {
                    path: path.clone(),
                    dataset: name.clone(),
                    source,
                })?;
            let fill = (n < len).then(|| match (&time, &wanted) {
                // NaT, which the decoding keeps.
                (Some(_), Datatype::Int64) => i64::MIN.to_ne_bytes().to_vec(),
                (Some(_), _) => f64::NAN.to_ne_bytes().to_vec(),
                _ => crate::fill::read_fill(&dataset, &memory_type, &wanted, ByteOrder::NATIVE),
            });
            variables.push(Variable {
                column,
                dataset,
                memory_type,
                time,
                scale: None,
                shape,
                fill,
            });
        }
        Ok(ColumnsReader {
            _file: file,
            record,
            variables,
            len,
            next_row: 0,
            path,
        })
    }

    /// The records' datatype, in native byte order.
    pub fn record(&self) -> &Datatype {
        &self.record
    }

    /// The number of records.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are no records.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Fills the front of `buf` with the next whole records, padding
    /// zeroed; returns how many. 0 only at the end.
    pub fn read_records(&mut self, buf: &mut [u8]) -> Result<usize> {
        let size = self.record.size().unwrap_or(0);
        let Some(fit) = buf.len().checked_div(size) else {
            return Ok(0);
        };
        let n = (fit as u64).min(self.len - self.next_row) as usize;
        let records = &mut buf[..n * size];
        records.fill(0);
        let mut values = Vec::new();
        for v in &self.variables {
            values.resize(n * v.column.size, 0);
            let first = self.next_row;
            match &v.fill {
                Some(fill) => {
                    let mut grown = v.shape.clone();
                    grown[0] = self.len;
                    let shapes = (&v.shape[..], &grown[..]);
                    read_rows_padded(&v.dataset, &v.memory_type, shapes, first, &mut values, fill)
                }
                None => read_rows(&v.dataset, &v.memory_type, &v.shape, first, &mut values),
            }
            .map_err(hdf5_error(&self.path, &v.column.name))?;
            if let Some(time) = &v.time {
                time.apply(&mut values)
                    .map_err(|(i, e)| Error::InvalidValue {
                        path: self.path.clone(),
                        dataset: v.column.name.clone(),
                        record: self.next_row + (i * 8 / v.column.size.max(1)) as u64,
                        field: v.column.name.clone(),
                        offset: v.column.offset,
                        message: e.to_string(),
                    })?;
            }
            ndl_runtime::records::scatter(&[&values], &[v.field()], records, size);
        }
        self.next_row += n as u64;
        Ok(n)
    }
}

/// What a column's values are stored as: time as its counts, opaque
/// bytes as bytes, a bool as the int8 of its byte, anything else as
/// itself.
fn element(base: &Datatype) -> Datatype {
    match base {
        Datatype::Time(_) => Datatype::Int64,
        Datatype::Bool => Datatype::Int8,
        Datatype::Opaque(_) => Datatype::UInt8,
        other => other.clone(),
    }
}

/// The memory type of one value of `element`: a string's characters one
/// by one, as the variable holds them.
fn value_type(element: &Datatype, order: ByteOrder) -> Result<hdf5::Datatype, TypeError> {
    match element {
        Datatype::FixedString(_) => netcdf_char(),
        other => profile_type(other, Orders::one(order), true),
    }
}

fn is_enum(stored: &hdf5::Datatype) -> bool {
    matches!(
        stored.to_descriptor(),
        Ok(TypeDescriptor::Boolean | TypeDescriptor::Enum(_))
    )
}

/// The variable's CF attributes, and xarray's `dtype` of a bool; a time
/// column's encoding.
fn cf_attributes(dataset: &hdf5::Dataset, column: &Column) -> hdf5::Result<Option<CfEncoding>> {
    if let Some(d) = &column.description {
        cf::text_attr(dataset, "long_name", d)?;
    }
    if column.base == Datatype::Bool {
        cf::text_attr(dataset, "dtype", "bool")?;
    }
    match (&column.base, &column.units) {
        (Datatype::Time(t), _) => return cf::time_attributes(dataset, *t).map(Some),
        (_, Some(units)) => cf::text_attr(dataset, "units", units)?,
        (_, None) => {}
    }
    Ok(None)
}

//! Reading netCDF-4 columns back as records, a block at a time: those
//! [`RecordColumnsWriter`](crate::RecordColumnsWriter) writes, and those
//! netCDF4-python or xarray write in the same conventions.
//!
//! Without a Rust type, the record is the file's (see
//! [`RecordColumnsReader::open`]); with one, the variables are found by
//! the names the writer gives its fields.

use std::os::raw::c_void;
use std::path::{Path, PathBuf};

use hdf5::types::VarLenUnicode;
use hdf5_sys::h5a::H5Aread;
use ndl_runtime::record::{Column, Values};
use ndl_runtime::time::{CfEncoding, CfValues, NAT};
use ndl_runtime::{Compound, Datatype, Member, TimeType};

use crate::error::{Error, Result, hdf5_error};
use crate::inventory::{DatasetInfo, Inventory};
use crate::raw_io::{failed, read_rows};

use crate::record_io::{Buffer, decode};
use crate::record_type::{Node, dotted, leaf_of, memory_type};

/// Counts read at a time when checking that a ragged array's counts add
/// up to its items.
const COUNT_BLOCK: u64 = 1 << 20;

/// Records read from netCDF-4 columns, a block at a time: a file's own
/// ([`open`](Self::open) says how its variables become fields), or a
/// Rust type's (what [`read_columns`](crate::read_columns) reads).
pub struct RecordColumnsReader {
    path: PathBuf,
    file_len: u64,
    datatype: Datatype,
    template: Column,
    plan: Plan,
    len: u64,
    next: u64,
}

/// Where each field's values are.
enum Layout {
    Struct(Vec<(String, Layout)>),
    /// A variable over the record dimension.
    Values(String),
    /// A CF time variable over the record dimension, in units of its own:
    /// its values decoded into counts of the field's time type.
    Time(String, TimeDecoding),
    /// A ragged array: `counts` over the record dimension, `items` over
    /// the sample dimension it names.
    List {
        counts: String,
        items: String,
    },
}

/// The open variables of each field.
enum Plan {
    Struct(Vec<(String, Plan)>),
    Values(In),
    Time(In, TimeDecoding),
    List {
        counts: In,
        items: In,
        next_item: u64,
    },
}

/// How the values of a CF time variable another tool wrote (xarray's
/// `hours since 2020-01-01`, NaT its smallest `int64`) become counts of
/// the field's time type, as xarray decodes them.
#[derive(Clone, Debug)]
struct TimeDecoding {
    /// `None` where the values are the field's counts already.
    values: Option<CfValues>,
    /// Whether the values are read as `float64` (else `int64`).
    float: bool,
    field: TimeType,
}

/// An open variable.
struct In {
    name: String,
    dataset: hdf5::Dataset,
    node: Node,
    memory_type: hdf5::Datatype,
    shape: Vec<u64>,
}

impl RecordColumnsReader {
    /// Opens the netCDF-4 file at `path` as records of the variables of
    /// its root group, when it holds a ragged array, or two or more
    /// variables of which one is a string, and every variable is over one
    /// record dimension or a sample dimension, none in a group: `None`
    /// for any other file.
    ///
    /// The record dimension is the one a count variable (an integer
    /// variable with the CF attribute `sample_dimension`) is over, else
    /// the first dimension of the first variable. Each variable over it
    /// is a field, in the file's order: a `string` variable a string, an
    /// `int8` with `dtype: bool` a bool, a number or enum itself, a 2-D
    /// number variable a fixed array, and one with `_FillValue` an
    /// `optional` whose `None` is that value (as netCDF4-python and
    /// xarray mask it). A variable over a sample dimension is a `vlen`
    /// field of its type, its lengths the counts of the variable naming
    /// that dimension (which is no field itself). Dotted names
    /// (`venue.code`) nest. `long_name` and `units` are the member's
    /// description and units.
    ///
    /// # Errors
    /// A variable of a type no column holds, counts that are negative or
    /// do not add up to their sample dimension, each naming the variable;
    /// what HDF5 says when the file does not open.
    pub fn open(path: impl AsRef<Path>) -> Result<Option<RecordColumnsReader>> {
        let path = path.as_ref();
        RecordColumnsReader::open_in(path, &Inventory::of(path)?)
    }

    /// As [`open`](RecordColumnsReader::open), with the file's
    /// [`Inventory`] taken already: a caller that looks at the file in
    /// other ways too walks it once.
    ///
    /// # Errors
    /// As [`open`](RecordColumnsReader::open).
    pub fn open_in(path: &Path, inventory: &Inventory) -> Result<Option<RecordColumnsReader>> {
        let Some(found) = Inferred::of(inventory) else {
            return Ok(None);
        };
        let file = crate::file::open(path)?;
        let (datatype, template, layout) = found.build(path, &file)?;
        RecordColumnsReader::with(file, path, datatype, template, &layout).map(Some)
    }

    /// Opens the file at `path` as records of `datatype` in columns of
    /// `template`'s shape, each field the variable the writer names it
    /// (`<field>`, and `<field>_count` for a list).
    pub(crate) fn open_as(
        path: &Path,
        datatype: &Datatype,
        template: &Column,
    ) -> Result<RecordColumnsReader> {
        let layout = named(template, "");
        let file = crate::file::open(path)?;
        let mut template = template.clone();
        set_fills(path, &file, &mut template, "")?;
        RecordColumnsReader::with(file, path, datatype.clone(), template, &layout)
    }

    fn with(
        file: hdf5::File,
        path: &Path,
        datatype: Datatype,
        template: Column,
        layout: &Layout,
    ) -> Result<RecordColumnsReader> {
        let file_len = std::fs::metadata(path)
            .map_err(|source| Error::Io {
                path: path.to_path_buf(),
                source,
            })?
            .len();
        let mut opener = Opener {
            file: &file,
            path,
            file_len,
            len: None,
        };
        let plan = opener.plan(layout, &template)?;
        let len = opener.len.unwrap_or(0);
        Ok(RecordColumnsReader {
            path: path.to_path_buf(),
            file_len,
            datatype,
            template,
            plan,
            len,
            next: 0,
        })
    }

    /// The records' datatype: a compound.
    pub fn datatype(&self) -> &Datatype {
        &self.datatype
    }

    /// The shape of every block: [`Column::template`] of the datatype,
    /// each option's fill its variable's `_FillValue`.
    pub fn template(&self) -> &Column {
        &self.template
    }

    /// The number of records.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are no records.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// About how many bytes of values a record holds, to size blocks by:
    /// the file's size over its records.
    pub fn record_bytes(&self) -> u64 {
        (self.file_len / self.len.max(1)).max(1)
    }

    /// The next `records` records (fewer at the end) as a
    /// [`Column::Struct`] of the template's shape; `None` after the last.
    ///
    /// # Errors
    /// What HDF5 says, a count that is negative or runs past its items,
    /// naming the variable and record.
    pub fn next_block(&mut self, records: usize) -> Result<Option<Column>> {
        let rows = (records.max(1) as u64).min(self.len - self.next);
        if rows == 0 {
            return Ok(None);
        }
        let reading = Reading {
            path: &self.path,
            file_len: self.file_len,
        };
        let block = reading.plan(&mut self.plan, self.next, rows)?;
        self.next += rows;
        Ok(Some(block))
    }
}

/// The layout the writer gives `template`'s fields, named from `name`.
fn named(template: &Column, name: &str) -> Layout {
    match template {
        Column::Struct { fields, .. } => Layout::Struct(
            fields
                .iter()
                .map(|(f, c)| (f.clone(), named(c, &dotted(name, f))))
                .collect(),
        ),
        Column::List { .. } => Layout::List {
            counts: format!("{name}_count"),
            items: name.to_string(),
        },
        _ => Layout::Values(name.to_string()),
    }
}

/// Gives each option of `column` (the field at the dotted path `name`)
/// that has no fill its variable's `_FillValue`, where it has one: a
/// Rust type's `Option` without `#[ndl(fill)]` reads the file's nulls as
/// the file says them (xarray's NaN, netCDF's fills).
fn set_fills(path: &Path, file: &hdf5::File, column: &mut Column, name: &str) -> Result<()> {
    match column {
        Column::Struct { fields, .. } => fields
            .iter_mut()
            .try_for_each(|(f, c)| set_fills(path, file, c, &dotted(name, f))),
        Column::Nullable { values, fill, .. } if fill.is_none() => {
            let stored_at = crate::lookup::dataset_path(file, path, name)?;
            let names = file
                .dataset(&stored_at)
                .and_then(|d| d.attr_names())
                .map_err(hdf5_error(path, name))?;
            if !names.iter().any(|n| n == "_FillValue") {
                return Ok(());
            }
            let found = match values.as_ref() {
                Column::Strings { .. } => string_fill(path, file, name)?,
                like => fill_value(path, file, name, like)?,
            };
            *fill = Some(Box::new(found));
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Opens the variables of a layout, checking their lengths agree.
struct Opener<'a> {
    file: &'a hdf5::File,
    path: &'a Path,
    file_len: u64,
    /// The record dimension's length, from the first variable over it.
    len: Option<u64>,
}

impl Opener<'_> {
    fn plan(&mut self, layout: &Layout, template: &Column) -> Result<Plan> {
        match (layout, template) {
            (
                Layout::Struct(fields),
                Column::Struct {
                    fields: columns, ..
                },
            ) => fields
                .iter()
                .zip(columns)
                .map(|((name, l), (_, c))| Ok((name.clone(), self.plan(l, c)?)))
                .collect::<Result<Vec<_>>>()
                .map(Plan::Struct),
            (Layout::List { counts, items }, Column::List { values, .. }) => {
                let count_template = Column::Values {
                    datatype: Datatype::Int64,
                    values: Values::I64(Vec::new()),
                };
                let counts = self.record_variable(counts, &count_template)?;
                let items = self.open(items, values)?;
                check_counts(self.path, &counts, &items, self.file_len)?;
                Ok(Plan::List {
                    counts,
                    items,
                    next_item: 0,
                })
            }
            (Layout::Values(name), _) => Ok(Plan::Values(self.record_variable(name, template)?)),
            (Layout::Time(name, decoding), _) => {
                let stored = match decoding.float {
                    true => Datatype::Float64,
                    false => Datatype::Int64,
                };
                let read_as = Column::template(&stored)
                    .map_err(|e| mismatch(self.path, name, e.message()))?;
                let found = self.record_variable(name, &read_as)?;
                Ok(Plan::Time(found, decoding.clone()))
            }
            (_, _) => Err(mismatch(self.path, "", "the layout is not the template's")),
        }
    }

    /// The variable `name` over the record dimension.
    fn record_variable(&mut self, name: &str, template: &Column) -> Result<In> {
        let found = self.open(name, template)?;
        let n = found.shape[0];
        match self.len {
            Some(len) if len != n => Err(mismatch(
                self.path,
                name,
                &format!("the variable has {n} records where the others have {len}"),
            )),
            _ => {
                self.len = Some(n);
                Ok(found)
            }
        }
    }

    /// The variable `name`, holding values of `template`'s shape.
    fn open(&self, name: &str, template: &Column) -> Result<In> {
        let path = self.path;
        let type_error = |source| Error::Type {
            path: path.to_path_buf(),
            dataset: name.to_string(),
            source,
        };
        let node = Node::from_column(template, name).map_err(type_error)?;
        let stored_at = crate::lookup::dataset_path(self.file, path, name)?;
        let dataset = self
            .file
            .dataset(&stored_at)
            .map_err(hdf5_error(path, name))?;
        crate::filters::check_available(path, name, &dataset)?;
        let memory_type = match leaf_of(&node) {
            // In the character set it is stored in (see `Node::reading`).
            Node::String => {
                let stored = dataset.dtype().map_err(hdf5_error(path, name))?;
                Node::String.reading(&stored)
            }
            leaf => memory_type(leaf),
        }
        .map_err(type_error)?;
        let shape: Vec<u64> = dataset.shape().iter().map(|&d| d as u64).collect();
        let inner: Vec<u64> = match &node {
            Node::Array { len, .. } => vec![*len as u64],
            _ => Vec::new(),
        };
        if shape.is_empty() || shape[1..] != inner[..] {
            return Err(mismatch(
                path,
                name,
                &format!("the variable has shape {shape:?}, not n values of {inner:?}"),
            ));
        }
        let stored = dataset.dtype().map_err(hdf5_error(path, name))?;
        let leaf = leaf_of(&node);
        if !matches!(leaf, Node::Fixed { .. }) {
            leaf.check_stored(stored.id())
                .map_err(|(_, why)| mismatch(path, name, &why))?;
        }
        let (stored_size, size) = (stored.size() as u64, node.size() as u64);
        crate::extent::check_extent(path, name, &dataset, shape[0], stored_size, size)?;
        crate::vlen_check::check(path, name, &dataset, self.file_len)?;
        Ok(In {
            name: name.to_string(),
            dataset,
            node,
            memory_type,
            shape,
        })
    }
}

/// Refuses counts that are negative or do not add up to the items.
fn check_counts(path: &Path, counts: &In, items: &In, file_len: u64) -> Result<()> {
    let mut total: u64 = 0;
    let mut first = 0;
    while first < counts.shape[0] {
        let rows = COUNT_BLOCK.min(counts.shape[0] - first);
        let block = counts.read(path, first, rows, file_len)?;
        let Column::Values {
            values: Values::I64(block),
            ..
        } = block
        else {
            return Err(mismatch(
                path,
                &counts.name,
                "the counts do not read as integers",
            ));
        };
        for (i, &c) in block.iter().enumerate() {
            let sum = u64::try_from(c).ok().and_then(|c| total.checked_add(c));
            let Some(sum) = sum else {
                return Err(bad_count(path, &counts.name, first + i as u64, c));
            };
            total = sum;
        }
        first += rows;
    }
    if total != items.shape[0] {
        return Err(mismatch(
            path,
            &counts.name,
            &format!(
                "the counts add up to {total}, but `{}` holds {} items along its sample dimension",
                items.name, items.shape[0]
            ),
        ));
    }
    Ok(())
}

fn bad_count(path: &Path, name: &str, record: u64, count: i64) -> Error {
    Error::InvalidValue {
        path: path.to_path_buf(),
        dataset: name.to_string(),
        record,
        field: name.to_string(),
        offset: 0,
        message: format!("the count {count} is not a length"),
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

/// Reads blocks of a plan.
struct Reading<'a> {
    path: &'a Path,
    file_len: u64,
}

impl Reading<'_> {
    fn plan(&self, plan: &mut Plan, first: u64, rows: u64) -> Result<Column> {
        match plan {
            Plan::Struct(fields) => {
                let fields = fields
                    .iter_mut()
                    .map(|(name, p)| Ok((name.clone(), self.plan(p, first, rows)?)))
                    .collect::<Result<Vec<_>>>()?;
                Ok(Column::Struct {
                    len: rows as usize,
                    fields,
                })
            }
            Plan::Values(v) => v.read(self.path, first, rows, self.file_len),
            Plan::Time(v, decoding) => {
                let stored = v.read(self.path, first, rows, self.file_len)?;
                decoded_times(self.path, (&v.name, first), stored, decoding)
            }
            Plan::List {
                counts,
                items,
                next_item,
            } => {
                let Column::Values {
                    values: Values::I64(c),
                    ..
                } = counts.read(self.path, first, rows, self.file_len)?
                else {
                    return Err(mismatch(self.path, &counts.name, "counts not integers"));
                };
                let mut offsets = Vec::with_capacity(c.len() + 1);
                offsets.push(0i64);
                for (i, &n) in c.iter().enumerate() {
                    let last = offsets[offsets.len() - 1];
                    let next = (n >= 0).then(|| last.checked_add(n)).flatten();
                    let Some(next) = next else {
                        return Err(bad_count(self.path, &counts.name, first + i as u64, n));
                    };
                    offsets.push(next);
                }
                let total = offsets[offsets.len() - 1] as u64;
                if *next_item + total > items.shape[0] {
                    return Err(mismatch(
                        self.path,
                        &counts.name,
                        &format!(
                            "the counts run past the {} items of `{}`",
                            items.shape[0], items.name
                        ),
                    ));
                }
                let values = items.read(self.path, *next_item, total, self.file_len)?;
                *next_item += total;
                Ok(Column::List {
                    offsets,
                    values: Box::new(values),
                })
            }
        }
    }
}

impl In {
    /// Rows `first..first + rows` of the variable; an option's column
    /// carries its fill, as the template's does.
    fn read(&self, path: &Path, first: u64, rows: u64, file_len: u64) -> Result<Column> {
        let mut column = self.read_values(path, first, rows, file_len)?;
        if let (Column::Nullable { fill, .. }, Node::Optional { fill: kept, .. }) =
            (&mut column, &self.node)
        {
            *fill = Some(kept.clone());
        }
        Ok(column)
    }

    fn read_values(&self, path: &Path, first: u64, rows: u64, file_len: u64) -> Result<Column> {
        let at = hdf5_error(path, &self.name);
        if rows == 0 {
            // SAFETY: no value is read.
            return Ok(unsafe { decode(&self.node, &[]) });
        }
        if self.shape.len() == 1 {
            return crate::variable::read_block(
                &self.dataset,
                &self.node,
                &self.memory_type,
                (first, rows),
                file_len as usize,
            )
            .map_err(at);
        }
        // A fixed array of numbers: no variable-length value to free.
        let size = self.node.size();
        let n = rows as usize;
        let mut buf = Buffer::zeroed(n * size);
        read_rows(
            &self.dataset,
            &self.memory_type,
            &self.shape,
            first,
            &mut buf.bytes_mut()[..n * size],
        )
        .map_err(at)?;
        let base = buf.bytes().as_ptr();
        // SAFETY: value `i` is the `size` bytes at `i * size` of `buf`,
        // which the read filled; numbers hold no pointers.
        let slots: Vec<*const u8> = (0..n).map(|i| unsafe { base.add(i * size) }).collect();
        // SAFETY: as above.
        Ok(unsafe { decode(&self.node, &slots) })
    }
}

/// The counts of `decoding`'s time type that the values `stored` (of
/// variable `name`, from record `first`) are.
fn decoded_times(
    path: &Path,
    (name, first): (&str, u64),
    stored: Column,
    decoding: &TimeDecoding,
) -> Result<Column> {
    let mut counts: Vec<i64> = match stored {
        Column::Values {
            values: Values::I64(v),
            ..
        } => v,
        // Each float's bits, which `apply` reads as the float it is.
        Column::Values {
            values: Values::F64(v),
            ..
        } => v.iter().map(|x| x.to_bits() as i64).collect(),
        _ => return Err(mismatch(path, name, "CF times that are not numbers")),
    };
    if let Some(values) = &decoding.values {
        values
            .apply(bytemuck::cast_slice_mut(&mut counts))
            .map_err(|(i, e)| mismatch(path, name, &format!("record {}: {e}", first + i as u64)))?;
    }
    Ok(Column::Values {
        datatype: Datatype::Time(decoding.field),
        values: Values::I64(counts),
    })
}

/// A file's fields as read off its inventory: names, datatypes and
/// where their values are.
struct Inferred<'a> {
    /// `(dotted name, variable, counts of a list)`, in the file's order.
    fields: Vec<(&'a str, &'a DatasetInfo, Option<&'a DatasetInfo>)>,
}

/// The names of a variable's dimensions, where it has them all.
fn dimensions(d: &DatasetInfo) -> Option<Vec<&str>> {
    d.dimension_names
        .as_ref()?
        .iter()
        .map(|n| n.as_deref())
        .collect()
}

fn text<'a>(d: &'a DatasetInfo, key: &str) -> Option<&'a str> {
    d.attributes.get(key).and_then(serde_json::Value::as_str)
}

impl<'a> Inferred<'a> {
    /// The fields of the root group's variables, or `None` when they are
    /// not records in columns (see [`RecordColumnsReader::open`]).
    fn of(inventory: &'a Inventory) -> Option<Inferred<'a>> {
        let variables: Vec<&DatasetInfo> = inventory
            .datasets
            .iter()
            .filter(|d| !d.is_dimension_only)
            .collect();
        // Variables in groups would be left behind; those shorter than
        // an unlimited dimension (netCDF reads them as long) are read
        // array by array, which makes them as long.
        if variables
            .iter()
            .any(|d| d.group != "/" || d.null_space || d.shape != d.extents)
        {
            return None;
        }
        let mut dims = Vec::with_capacity(variables.len());
        for d in &variables {
            match dimensions(d) {
                Some(names) if !names.is_empty() => dims.push(names),
                _ => return None,
            }
        }
        let is_counts =
            |d: &DatasetInfo| d.shape.len() == 1 && d.stored.datatype.as_int().is_some();
        let counts: Vec<(usize, &str)> = (0..variables.len())
            .filter(|&i| is_counts(variables[i]))
            .filter_map(|i| Some((i, text(variables[i], "sample_dimension")?)))
            .collect();
        let record = counts
            .first()
            .map_or_else(|| dims.first().map(|d| d[0]), |&(i, _)| Some(dims[i][0]));
        let record = record?;
        let count_of = |sample: &str| counts.iter().find(|(_, s)| *s == sample).map(|&(i, _)| i);
        // `(variable, its count variable)` by index.
        let mut found = Vec::new();
        for (i, d) in variables.iter().enumerate() {
            if dims[i][0] == record {
                found.push((i, None));
                continue;
            }
            match count_of(dims[i][0]) {
                Some(c) if d.shape.len() == 1 => found.push((i, Some(c))),
                _ => return None,
            }
        }
        // A count variable naming the sample dimension of a field is that
        // field's lengths, no field itself.
        let counted: Vec<usize> = found.iter().filter_map(|&(_, c)| c).collect();
        let fields: Vec<_> = found
            .into_iter()
            .filter(|(i, _)| !counted.contains(i))
            .map(|(i, c)| {
                let d = variables[i];
                (d.name.as_str(), d, c.map(|c| variables[c]))
            })
            .collect();
        let strings = fields
            .iter()
            .any(|(_, d, _)| d.stored.datatype == Datatype::String);
        let lists = fields.iter().any(|(_, _, c)| c.is_some());
        if !(lists || strings && fields.len() >= 2) {
            return None;
        }
        // A variable no column holds (netCDF `char` text, a compound)
        // makes the file no table but variables, each read alone.
        if !fields.iter().all(|(_, d, _)| is_column(d)) {
            return None;
        }
        Some(Inferred { fields })
    }

    /// The records' datatype, template and layout.
    fn build(&self, path: &Path, file: &hdf5::File) -> Result<(Datatype, Column, Layout)> {
        let mut root = Tree::default();
        for &(name, d, counts) in &self.fields {
            let decoding = counts.is_none().then(|| time_decoding(d)).flatten();
            let (datatype, template) = match &decoding {
                Some(t) => {
                    let datatype = Datatype::Time(t.field);
                    let template = Column::template(&datatype)
                        .map_err(|e| mismatch(path, &d.name, e.message()))?;
                    (datatype, template)
                }
                None => field(path, file, d)?,
            };
            let is_time = matches!(datatype, Datatype::Time(_)) || our_time(d).is_some();
            let (datatype, template, layout) = match counts {
                Some(c) => (
                    Datatype::Vlen(Box::new(datatype)),
                    Column::List {
                        offsets: vec![0],
                        values: Box::new(template),
                    },
                    Layout::List {
                        counts: c.name.clone(),
                        items: d.name.clone(),
                    },
                ),
                None => match decoding {
                    Some(t) => (datatype, template, Layout::Time(d.name.clone(), t)),
                    None => (datatype, template, Layout::Values(d.name.clone())),
                },
            };
            let member = Member {
                description: text(d, "long_name").map(str::to_string),
                // A time's `units` are its datatype's.
                units: text(d, "units").filter(|_| !is_time).map(str::to_string),
                ..Member::new(name, 0, datatype)
            };
            let leaf = Leaf {
                template,
                layout,
                member,
            };
            let parts: Vec<&str> = name.split('.').collect();
            root.insert(&parts, leaf)
                .map_err(|why| mismatch(path, &d.name, &why))?;
        }
        root.finish().map_err(|why| mismatch(path, "", &why))
    }
}

/// Whether the variable `d` holds what a column of records does.
fn is_column(d: &DatasetInfo) -> bool {
    column_type(d).is_ok()
}

/// The datatype of a record's value of the variable `d` (see
/// [`RecordColumnsReader::open`]): a string, number, enum, bool (xarray's
/// `int8` with `dtype: bool`) or time of ours, one a record or a row of
/// fixed-size ones; else why it is no column.
fn column_type(d: &DatasetInfo) -> std::result::Result<Datatype, String> {
    let stored = &d.stored.datatype;
    let element = match (stored, our_time(d)) {
        (_, Some(t)) => Datatype::Time(t),
        (Datatype::Int8, None) if text(d, "dtype") == Some("bool") => Datatype::Bool,
        (Datatype::String | Datatype::Float32 | Datatype::Float64 | Datatype::Enum(_), None) => {
            stored.clone()
        }
        (other, None) if other.as_int().is_some() => stored.clone(),
        (other, None) => {
            return Err(format!(
                "a variable of {} is no records column (they hold numbers, enums, bools and \
                 strings)",
                ndl_runtime::schema::describe(other)
            ));
        }
    };
    match d.shape.get(1..) {
        Some([]) => Ok(element),
        Some([n]) if element.size().is_some() => Ok(element.array_of(&[*n as usize])),
        _ => Err(format!(
            "a variable of shape {:?} is no records column",
            d.shape
        )),
    }
}

/// The datatype and empty column of one element of the variable `d`.
fn field(path: &Path, file: &hdf5::File, d: &DatasetInfo) -> Result<(Datatype, Column)> {
    let time = our_time(d);
    let datatype = column_type(d).map_err(|why| mismatch(path, &d.name, &why))?;
    let template = Column::template(&datatype).map_err(|e| mismatch(path, &d.name, e.message()))?;
    let nat_fill = time.is_some() && d.attributes.get("_FillValue") == Some(&NAT.into());
    if !d.attributes.contains_key("_FillValue") || d.shape.len() > 1 || nat_fill {
        return Ok((datatype, template));
    }
    let fill = match datatype {
        Datatype::String => string_fill(path, file, &d.name)?,
        _ => fill_value(path, file, &d.name, &template)?,
    };
    Ok((
        Datatype::Optional(Box::new(datatype)),
        Column::Nullable {
            validity: Default::default(),
            values: Box::new(template),
            fill: Some(Box::new(fill)),
        },
    ))
}

/// How the values of `d`, a CF time variable of one value a record
/// another tool wrote (not in the form [`our_time`] reads), are decoded,
/// as the library's typed reads decode them ([`CfValues::decoding`]): its
/// `_FillValue` or `missing_value` (NaN for xarray's floats), and the
/// smallest `int64` (xarray's NaT), are NaT. `None` for any other
/// variable, and for one whose `units` or `calendar` no decoder takes:
/// its numbers stay.
fn time_decoding(d: &DatasetInfo) -> Option<TimeDecoding> {
    let field = d
        .cf_time
        .filter(|_| our_time(d).is_none() && d.shape.len() == 1)?;
    let fill = ["_FillValue", "missing_value"]
        .iter()
        .find_map(|k| d.attributes.get(*k));
    let (counts, values) = CfValues::decoding(
        field,
        &d.stored.datatype,
        text(d, "units"),
        text(d, "calendar"),
        fill,
    )
    .ok()?;
    Some(TimeDecoding {
        values,
        float: counts.is_float(),
        field,
    })
}

/// The time type of an `int64` variable whose CF attributes are those the
/// writer gives counts of it that need no scaling (since 1970-01-01):
/// its values are that type's counts. Other CF times stay numbers.
fn our_time(d: &DatasetInfo) -> Option<TimeType> {
    let t = d.cf_time?;
    let encoding = CfEncoding::of(t);
    let ours = d.stored.datatype == Datatype::Int64
        && encoding.factor() == 1
        && encoding.units().is_some()
        && encoding
            .attributes()
            .iter()
            .all(|(name, value)| text(d, name) == Some(value.as_str()));
    ours.then_some(t)
}

/// A `string` variable's `_FillValue` (a scalar `NC_STRING`), as a
/// one-record column.
fn string_fill(path: &Path, file: &hdf5::File, name: &str) -> Result<Column> {
    let stored_at = crate::lookup::dataset_path(file, path, name)?;
    let text = file
        .dataset(&stored_at)
        .and_then(|v| v.attr("_FillValue"))
        .and_then(|a| a.read_scalar::<VarLenUnicode>())
        .map_err(|e| {
            mismatch(
                path,
                name,
                &format!("its `_FillValue` is not one variable-length string: {e}"),
            )
        })?;
    let data = text.as_str().as_bytes().to_vec();
    Ok(Column::Strings {
        offsets: vec![0, data.len() as i64],
        data,
    })
}

/// The variable's `_FillValue`, as a one-record column of `template`.
fn fill_value(path: &Path, file: &hdf5::File, name: &str, template: &Column) -> Result<Column> {
    let at = hdf5_error(path, name);
    let type_error = |source| Error::Type {
        path: path.to_path_buf(),
        dataset: name.to_string(),
        source,
    };
    let node = Node::from_column(template, name).map_err(type_error)?;
    let memory_type = memory_type(&node).map_err(type_error)?;
    let stored_at = crate::lookup::dataset_path(file, path, name)?;
    let attr = file
        .dataset(&stored_at)
        .and_then(|v| v.attr("_FillValue"))
        .map_err(&at)?;
    if attr.size() != 1 {
        return Err(mismatch(path, name, "its `_FillValue` is not one value"));
    }
    let mut one = Buffer::zeroed(node.size());
    hdf5::sync::sync(|| {
        // SAFETY: `one` holds one value of `memory_type`, a number type
        // (no pointer to free), and the attribute holds one value.
        let status = unsafe {
            H5Aread(
                attr.id(),
                memory_type.id(),
                one.bytes_mut().as_mut_ptr().cast::<c_void>(),
            )
        };
        if status < 0 {
            return Err(failed());
        }
        Ok(())
    })
    .map_err(&at)?;
    // SAFETY: `one` holds the value the read filled.
    Ok(unsafe { decode(&node, &[one.bytes().as_ptr()]) })
}

/// One field found: its datatype, empty column and variables.
struct Leaf {
    template: Column,
    layout: Layout,
    member: Member,
}

/// Fields nested by their dotted names, in the order first met.
#[derive(Default)]
struct Tree {
    children: Vec<(String, Entry)>,
}

enum Entry {
    Leaf(Box<Leaf>),
    Tree(Tree),
}

impl Tree {
    fn insert(&mut self, parts: &[&str], leaf: Leaf) -> std::result::Result<(), String> {
        let Some((first, rest)) = parts.split_first() else {
            return Err("an empty variable name".into());
        };
        let found = self.children.iter_mut().find(|(n, _)| n == first);
        match (found, rest.is_empty()) {
            (None, true) => {
                let name = first.to_string();
                self.children.push((
                    name.clone(),
                    Entry::Leaf(Box::new(Leaf {
                        member: Member {
                            name,
                            ..leaf.member
                        },
                        ..leaf
                    })),
                ));
                Ok(())
            }
            (None, false) => {
                let mut tree = Tree::default();
                tree.insert(rest, leaf)?;
                self.children.push((first.to_string(), Entry::Tree(tree)));
                Ok(())
            }
            (Some((_, Entry::Tree(tree))), false) => tree.insert(rest, leaf),
            (Some(_), _) => Err(format!(
                "`{first}` is both a field and a record of fields (a dotted name)"
            )),
        }
    }

    fn finish(self) -> std::result::Result<(Datatype, Column, Layout), String> {
        let mut members = Vec::new();
        let mut columns = Vec::new();
        let mut layouts = Vec::new();
        for (name, entry) in self.children {
            let (member, column, layout) = match entry {
                Entry::Leaf(l) => (l.member, l.template, l.layout),
                Entry::Tree(t) => {
                    let (datatype, column, layout) = t.finish()?;
                    (Member::new(name.clone(), 0, datatype), column, layout)
                }
            };
            members.push(member);
            columns.push((name.clone(), column));
            layouts.push((name, layout));
        }
        let datatype = compound(members).map_err(|e| e.to_string())?;
        let template = Column::Struct {
            len: 0,
            fields: columns,
        };
        Ok((datatype, template, Layout::Struct(layouts)))
    }
}

/// A compound of `members`, laid out as C does when all are of fixed
/// size, else [`Compound::variable`].
fn compound(members: Vec<Member>) -> std::result::Result<Datatype, ndl_runtime::DatatypeError> {
    if members.iter().any(|m| m.datatype.size().is_none()) {
        return Compound::variable(members).map(Datatype::Compound);
    }
    let laid = Compound::c_layout(members.iter().map(|m| (m.name.clone(), m.datatype.clone())))?;
    let members = laid
        .members
        .into_iter()
        .zip(members)
        .map(|(l, m)| Member {
            offset: l.offset,
            ..m
        })
        .collect();
    Ok(Datatype::Compound(Compound {
        size: laid.size,
        members,
    }))
}

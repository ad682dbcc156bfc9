//! HDF5 files (`.h5`, `.hdf5`, and netCDF-4's `.nc`, which are HDF5) as a
//! [`Source`] and a [`Sink`], through ndl-hdf5: one dataset each, of any
//! rank, in C order.

use std::path::{Path, PathBuf};

use ndl_hdf5::{
    ArrayReader, ArrayWriter, ColumnsReader, ColumnsWriter, Inventory, STRING_BATCH, StringReader,
    Strings, WriteOptions,
};
use ndl_runtime::Datatype;
use ndl_runtime::ndl::{Attribute, NameMap, Storage};

use crate::attribute_json::is_hdf5_bookkeeping;
use crate::contents::{Arrangement, Contents, Declared, Dimension, Entry, GroupEntry};
use crate::error::{Error, Result, in_hdf5};
use crate::format::FormatInfo;
use crate::netcdf_columns::written_as_columns;
use crate::options::{Hdf5SinkOptions, Layout, ReadOptions, Setting, WriteSettings};
use crate::sink::refuse_existing;
use crate::sink::{Progress, Sink};
use crate::source::{Origin, Source, for_each_batch};
use crate::zarr_strings::{Widest, fixed_strings, pad};
use ndl_runtime::{ArraySpec, Order};

/// The first bytes of an HDF5 file (its superblock signature).
pub(crate) const SIGNATURE: &[u8] = b"\x89HDF\r\n\x1a\n";

/// Whether the HDF5 signature is where a user block of 512, 1024, 2048
/// ... bytes ends (HDF5 looks there, as h5py's `userblock_size` writes
/// it), within the file at `path`: one short read per power of two.
pub(crate) fn signature_after_user_block(path: &Path) -> Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut at = 512u64;
    let mut start = [0u8; 8];
    while at + SIGNATURE.len() as u64 <= len {
        file.seek(SeekFrom::Start(at)).map_err(io)?;
        file.read_exact(&mut start).map_err(io)?;
        if start == SIGNATURE {
            return Ok(true);
        }
        at *= 2;
    }
    Ok(false)
}

/// The HDF5 file at `path` as a source: the member `options` name where
/// they name one; else its records in columns, or its only dataset. The
/// file's inventory is taken once, for both questions.
pub(crate) fn open(path: &Path, options: &ReadOptions) -> Result<Box<dyn Source>> {
    if let Some(member) = &options.member {
        return open_member(path, member, options);
    }
    let inventory = Inventory::of(path).map_err(in_hdf5(path))?;
    if let Some(columns) = Hdf5ColumnsSource::probe(path, &inventory)? {
        return match written_as_columns(&inventory) {
            true => Ok(Box::new(columns)),
            false => crate::cf_table::decoded(Box::new(columns), root_columns(&inventory)),
        };
    }
    let dataset = only_dataset(path, &inventory)?;
    // Its netCDF shape from this walk, not another.
    let mut read = options.clone();
    read.shape = inventory_shape(&inventory, &dataset);
    let source = open_member(path, &dataset, &read)?;
    // Coordinate variables hold data too, and the file's own attributes
    // (a title, its conventions) say what the data is: a dataset is more
    // than the one.
    let coordinates = inventory
        .datasets
        .iter()
        .any(|d| d.is_scale && !d.is_dimension_only);
    Ok(match coordinates || is_described(&inventory) {
        true => Box::new(WithCoordinates(source)),
        false => source,
    })
}

/// Whether a group of the file has attributes of its own (a title, its
/// conventions), which a copy of the file's one variable keeps.
pub(crate) fn is_described(inventory: &Inventory) -> bool {
    inventory
        .groups
        .iter()
        .any(|g| !crate::carried::group_attributes(&g.attributes).is_empty())
}

/// `source`, the only data variable of a file, as part of the file's
/// dataset: a destination that holds datasets takes the whole file.
pub(crate) fn part_of_dataset(source: Box<dyn Source>) -> Box<dyn Source> {
    Box::new(WithCoordinates(source))
}

/// The only data variable of a file, its coordinate variables or the
/// file's attributes beside it.
struct WithCoordinates(Box<dyn Source>);

impl Source for WithCoordinates {
    fn origin(&self) -> Origin<'_> {
        self.0.origin()
    }

    fn wrapped(&self) -> Option<&dyn Source> {
        Some(&*self.0)
    }

    fn is_part_of_dataset(&self) -> bool {
        true
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        self.0.read(buf)
    }
}

/// The dataset `name` of the file at `path` as a source: its elements,
/// or, for variable-length strings, their values padded to a fixed width;
/// its CF encodings undone as `options` ask.
fn open_member(path: &Path, name: &str, options: &ReadOptions) -> Result<Box<dyn Source>> {
    let reader = ArrayReader::open(path, name).map_err(in_hdf5(path))?;
    let shape = netcdf_shape(path, name, &reader, options.shape.as_deref())?;
    let (attributes, types) = reader.attributes();
    if reader.stored().datatype == Datatype::String {
        let dimensions = reader.dimension_names();
        drop(reader);
        let mut source = Hdf5StringSource::open(path, name)?;
        if let Some(shape) = shape {
            source = source.grown_to(shape)?;
        }
        source.dimensions = dimensions.filter(|d| d.len() == source.spec.shape.len());
        return Ok(crate::carried::with_attributes(
            Box::new(source),
            (&attributes, &types),
            &[],
            options,
        ));
    }
    let reader = match shape {
        Some(shape) => reader.grown_to(&shape).map_err(in_hdf5(path))?,
        None => reader,
    };
    let source = Box::new(Hdf5Source::from_reader(path, name, reader)?);
    let name = name.trim_start_matches('/');
    crate::cf_decoded::as_asked(source, name, (&attributes, &types), options)
}

/// The shape netCDF reads the dataset `name` of `reader` as, where it is
/// longer than its own: as long as the longest variable along each
/// unlimited dimension it lies along. `known` is its shape where a walk
/// of the whole file gave it; else, for a dataset along an unlimited
/// dimension, the file's inventory gives it.
fn netcdf_shape(
    path: &Path,
    name: &str,
    reader: &ArrayReader,
    known: Option<&[u64]>,
) -> Result<Option<Vec<u64>>> {
    let named = reader.dimension_names().is_some();
    if !named || !reader.unlimited().contains(&true) {
        return Ok(None);
    }
    let shape = match known {
        Some(shape) => shape.to_vec(),
        None => {
            let inventory = Inventory::of(path).map_err(in_hdf5(path))?;
            let Some(shape) = inventory_shape(&inventory, name) else {
                return Ok(None);
            };
            shape
        }
    };
    let rank = reader.shape().len();
    Ok(shape
        .get(..rank)
        .filter(|grown| *grown != reader.shape())
        .map(<[u64]>::to_vec))
}

/// The shape `inventory` gives the dataset at `path` (`temp`, `/obs/temp`):
/// netCDF's.
fn inventory_shape(inventory: &Inventory, path: &str) -> Option<Vec<u64>> {
    let wanted = path.trim_start_matches('/');
    let at = |d: &&ndl_hdf5::DatasetInfo| {
        crate::contents::join(&d.group, &d.name).trim_start_matches('/') == wanted
    };
    inventory.datasets.iter().find(at).map(|d| d.shape.clone())
}

/// The last part of the dataset path `dataset` (`/obs/temp`: `temp`).
fn base_name(dataset: &str) -> String {
    dataset.rsplit('/').next().unwrap_or(dataset).to_string()
}

/// The only dataset of numbers or records of the file at `path`.
fn only_dataset(path: &Path, inventory: &Inventory) -> Result<String> {
    let data: Vec<String> = inventory
        .datasets
        .iter()
        .filter(|d| !d.is_scale)
        .map(|d| crate::contents::join(&d.group, &d.name))
        .collect();
    match data.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(Error::Unsupported {
            path: path.to_path_buf(),
            message: "the file holds no dataset".into(),
        }),
        many => Err(Error::SeveralArrays {
            path: path.to_path_buf(),
            what: format!("the file holds {} datasets", many.len()),
            names: many.to_vec(),
        }),
    }
}

/// The elements of one dataset, read a block of rows at a time.
pub struct Hdf5Source {
    reader: ArrayReader,
    spec: ArraySpec,
    path: PathBuf,
    /// The dataset's name in its group.
    name: String,
    /// Its dimension scales' names, one per axis, where it has them.
    dimensions: Option<Vec<String>>,
    /// Its chunks and filters.
    storage: Storage,
    unlimited_first: bool,
    rows_left: u64,
    /// Elements per row, and bytes per element.
    row: (u64, usize),
    /// Rows read but not handed out yet, when a row is more than a read
    /// asks for.
    pending: crate::source::Handover,
}

impl Hdf5Source {
    /// Opens `member` of the HDF5 file at `path`, or its only dataset.
    pub fn open(path: &Path, member: Option<&str>) -> Result<Hdf5Source> {
        match member {
            Some(member) => Self::open_dataset(path, member),
            None => {
                let inventory = Inventory::of(path).map_err(in_hdf5(path))?;
                Self::open_dataset(path, &only_dataset(path, &inventory)?)
            }
        }
    }

    fn open_dataset(path: &Path, dataset: &str) -> Result<Hdf5Source> {
        let reader = ArrayReader::open(path, dataset).map_err(in_hdf5(path))?;
        Self::from_reader(path, dataset, reader)
    }

    fn from_reader(path: &Path, dataset: &str, reader: ArrayReader) -> Result<Hdf5Source> {
        let stored = reader.stored().clone();
        let shape = reader.shape().to_vec();
        // A netCDF `char` variable's last dimension is its strings' length.
        let dimensions = reader
            .dimension_names()
            .filter(|names| names.len() >= shape.len())
            .map(|mut names| {
                names.truncate(shape.len());
                names
            });
        let mut spec = ArraySpec::new(stored.datatype, shape.clone());
        spec.byte_order = stored.byte_order;
        spec.other_order = stored.other_order;
        refuse_objects(path, dataset, &spec.datatype)?;
        let per_row: u64 = shape.iter().skip(1).product();
        let storage = Storage {
            fillvalue: reader
                .dataset_fill()
                .as_ref()
                .and_then(crate::attribute_json::fillvalue),
            ..storage_of(reader.chunks(), &reader.filters(), reader.stored())
        };
        Ok(Hdf5Source {
            unlimited_first: reader.is_unlimited_first(),
            storage,
            rows_left: shape.first().copied().unwrap_or(1),
            row: (per_row, spec.element_size()),
            reader,
            spec,
            path: path.to_path_buf(),
            name: base_name(dataset),
            dimensions,
            pending: Default::default(),
        })
    }
}

impl Source for Hdf5Source {
    fn origin(&self) -> Origin<'_> {
        Origin::new(&self.spec, &self.path)
    }

    fn array_name(&self) -> String {
        self.name.clone()
    }

    fn dimension_names(&self) -> Option<Vec<String>> {
        self.dimensions.clone()
    }

    fn storage(&self) -> Option<&Storage> {
        Some(&self.storage)
    }

    fn is_unlimited_first(&self) -> bool {
        self.unlimited_first
    }

    fn batch_hint(&self) -> u64 {
        self.row.0.max(1)
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let (per_row, size) = self.row;
        let row_bytes = per_row as usize * size;
        let (reader, rows_left, path) = (&mut self.reader, &mut self.rows_left, &self.path);
        self.pending.fill(buf, size.max(1), || {
            if *rows_left == 0 || row_bytes == 0 {
                return Ok(None);
            }
            let rows = ((crate::source::BATCH_BYTES / row_bytes).max(1) as u64).min(*rows_left);
            let mut block = vec![0; rows as usize * row_bytes];
            let got = reader.read_rows(&mut block).map_err(in_hdf5(path))?;
            *rows_left -= got as u64;
            block.truncate(got * row_bytes);
            Ok((got > 0).then_some(block))
        })
    }
}

/// An error naming what `datatype`, of `dataset`, holds that no
/// fixed-size array holds: variable-length sequences and references, as
/// elements or as a record's members (whose bytes in the file are only
/// pointers into its heap).
fn refuse_objects(path: &Path, dataset: &str, datatype: &Datatype) -> Result<()> {
    let parts = crate::describe::object_parts(datatype);
    let message = match parts.as_slice() {
        [] => return Ok(()),
        [(top, what)] if top.is_empty() => format!(
            "dataset `{dataset}` holds values of {what}, which no fixed-size array holds: \
             they do not convert (h5py reads them as Python objects)"
        ),
        _ => format!(
            "dataset `{dataset}`: its records' members {} are variable-length or references, \
             which no fixed-size record holds: the records do not convert (h5py reads those \
             members as Python objects; a dataset of strings alone converts)",
            crate::describe::listed_parts(&parts)
        ),
    };
    Err(Error::Unsupported {
        path: path.to_path_buf(),
        message,
    })
}

/// The values of a dataset of variable-length strings (h5py's
/// `string_dtype()`, netCDF-4's `string`), padded to the narrowest fixed
/// width that holds them all: `U<n>` for UTF-8, `S<n>` for ASCII, as Zarr's
/// variable-length strings are. A first pass over the values finds the
/// widest; a second hands them out, a batch at a time.
pub struct Hdf5StringSource {
    path: PathBuf,
    /// The dataset's name in its group.
    name: String,
    /// Its dimension scales' names, one per axis, where it has them.
    dimensions: Option<Vec<String>>,
    spec: ArraySpec,
    reader: StringReader,
    narrowed: String,
    /// The batch being handed out, and the next of its values.
    batch: Option<(Strings, usize)>,
    /// The empty strings still to hand out past the dataset's own, where
    /// netCDF reads it longer ([`grown_to`](Hdf5StringSource::grown_to)).
    padding: u64,
}

impl Hdf5StringSource {
    /// Opens the dataset `name` of the file at `path`, and reads every
    /// value once to find the widest.
    ///
    /// # Errors
    /// When the dataset holds no variable-length strings, a value of a
    /// UTF-8 dataset is not UTF-8 (the error names the element), or the
    /// width would make the padded values out of proportion to the values
    /// (more than 256 times, and 1 GiB beyond, their bytes).
    pub fn open(path: &Path, name: &str) -> Result<Hdf5StringSource> {
        let mut reader = StringReader::open(path, name).map_err(in_hdf5(path))?;
        let text = reader.is_text();
        let (mut len, mut at, mut total_bytes) = (0u64, 0u64, 0u64);
        while let Some(batch) = reader.next_batch().map_err(in_hdf5(path))? {
            for i in 0..batch.len() {
                let value = batch.get(i);
                total_bytes += value.len() as u64;
                let n = if text {
                    String::from_utf8_lossy(value).chars().count()
                } else {
                    value.len()
                } as u64;
                if n > len {
                    (len, at) = (n, batch.first() + i as u64);
                }
            }
        }
        reader.rewind();
        let widest = Widest {
            len,
            at: format!("dataset `{name}`, element {:?}", reader.index_of(at)),
            total_bytes,
        };
        let (spec, note) = fixed_strings(path, text, &widest, reader.shape().to_vec())?;
        Ok(Hdf5StringSource {
            path: path.to_path_buf(),
            name: base_name(name),
            dimensions: None,
            spec,
            reader,
            narrowed: note,
            batch: None,
            padding: 0,
        })
    }

    /// The source of the strings as netCDF reads a variable shorter than
    /// the unlimited dimension it lies along: as `shape`, the strings past
    /// its own empty (netCDF's fill of a string).
    ///
    /// # Errors
    /// A `shape` longer than the dataset's in any but its first
    /// dimension, which the strings are not padded along.
    fn grown_to(mut self, shape: Vec<u64>) -> Result<Hdf5StringSource> {
        let own = &self.spec.shape;
        if shape.len() != own.len() || shape.get(1..) != own.get(1..) || shape < *own {
            return Err(Error::Unsupported {
                path: self.path.clone(),
                message: format!(
                    "dataset `{}` of strings has shape {own:?} where netCDF reads {shape:?}: \
                     strings are made as long only along the first dimension",
                    self.name
                ),
            });
        }
        let elements = |s: &[u64]| s.iter().product::<u64>();
        self.padding = elements(&shape) - elements(own);
        self.spec.shape = shape;
        Ok(self)
    }
}

impl Source for Hdf5StringSource {
    fn origin(&self) -> Origin<'_> {
        Origin::new(&self.spec, &self.path)
    }

    fn array_name(&self) -> String {
        self.name.clone()
    }

    fn dimension_names(&self) -> Option<Vec<String>> {
        self.dimensions.clone()
    }

    fn batch_hint(&self) -> u64 {
        STRING_BATCH as u64
    }

    fn narrowed_strings(&self) -> Option<&str> {
        Some(&self.narrowed)
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let size = self.spec.element_size().max(1);
        let text = self.reader.is_text();
        let mut n = 0;
        'elements: for out in buf.chunks_exact_mut(size) {
            loop {
                if let Some((batch, at)) = &mut self.batch
                    && *at < batch.len()
                {
                    pad(batch.get(*at), out, text);
                    (*at, n) = (*at + 1, n + 1);
                    continue 'elements;
                }
                match self.reader.next_batch().map_err(in_hdf5(&self.path))? {
                    Some(batch) => self.batch = Some((batch, 0)),
                    None if self.padding > 0 => {
                        out.fill(0);
                        (self.padding, n) = (self.padding - 1, n + 1);
                        continue 'elements;
                    }
                    None => break 'elements,
                }
            }
        }
        Ok(n)
    }
}

/// A new HDF5 file holding one dataset named after the source, or its
/// records split into columns.
pub struct Hdf5Sink {
    path: PathBuf,
    spec: ArraySpec,
    options: Hdf5SinkOptions,
}

impl Hdf5Sink {
    /// A sink for an array of `spec` at `path`, which must not exist.
    /// HDF5 has no Fortran order: such an array is refused, as are
    /// columns of anything but a list of records.
    pub fn create(path: &Path, spec: &ArraySpec, options: &Hdf5SinkOptions) -> Result<Hdf5Sink> {
        refuse_existing(path)?;
        refuse_fortran_order(path, spec)?;
        if options.columns
            && (spec.shape.len() != 1 || !matches!(spec.datatype, Datatype::Compound(_)))
        {
            return Err(Error::Unsupported {
                path: path.to_path_buf(),
                message:
                    "the columns layout splits a one-dimensional array of records into its fields; \
                          this array is not one (use --layout records)"
                        .into(),
            });
        }
        let mut options = options.clone();
        options.options = in_byte_orders(options.options, spec);
        Ok(Hdf5Sink {
            path: path.to_path_buf(),
            spec: spec.clone(),
            options,
        })
    }

    fn write_columns(&self, source: &mut dyn Source, progress: Progress<'_>) -> Result<u64> {
        let spec = &self.spec;
        let len = spec.shape.first().copied().unwrap_or(0);
        let mut writer = ColumnsWriter::create(
            &self.path,
            &spec.datatype,
            spec.byte_order,
            len,
            &self.options.options,
        )
        .map_err(in_hdf5(&self.path))?;
        crate::hdf5_attributes::write_table(&self.path, &writer, source)?;
        let record = writer.record_size().max(1);
        self.stream(source, record, progress, |bytes| {
            writer.write_records(bytes)
        })?;
        writer.finish().map_err(in_hdf5(&self.path))?;
        Ok(len)
    }

    fn write_array(&self, source: &mut dyn Source, progress: Progress<'_>) -> Result<u64> {
        let name = source.array_name();
        let spec = &self.spec;
        let mut writer = ArrayWriter::create(
            &self.path,
            &name,
            &spec.datatype,
            spec.byte_order,
            &spec.shape,
            &format!("{name}_t"),
            &self.options.options,
        )
        .map_err(in_hdf5(&self.path))?;
        crate::hdf5_attributes::write(&self.path, &writer, source)?;
        let n = write_rows(&self.path, source, &mut writer, progress)?;
        writer.finish().map_err(in_hdf5(&self.path))?;
        Ok(n)
    }

    fn stream(
        &self,
        source: &mut dyn Source,
        unit: usize,
        progress: Progress<'_>,
        write: impl FnMut(&[u8]) -> ndl_hdf5::Result<()>,
    ) -> Result<u64> {
        stream(&self.path, source, unit, progress, write)
    }
}

/// Writes every element of `source` through `writer`, a dataset of the
/// file at `path`, a block of rows at a time; returns how many.
pub(crate) fn write_rows(
    path: &Path,
    source: &mut dyn Source,
    writer: &mut ArrayWriter,
    progress: Progress<'_>,
) -> Result<u64> {
    let row = writer.row_bytes().max(1);
    stream(path, source, row, progress, |bytes| {
        writer.write_rows(bytes)
    })
}

/// Hands `write` every whole unit of `unit` bytes of `source`; a unit cut
/// by a batch waits for the next.
fn stream(
    path: &Path,
    source: &mut dyn Source,
    unit: usize,
    progress: Progress<'_>,
    mut write: impl FnMut(&[u8]) -> ndl_hdf5::Result<()>,
) -> Result<u64> {
    let mut carry: Vec<u8> = Vec::new();
    let n = for_each_batch(source, |bytes, done| {
        carry.extend_from_slice(bytes);
        let whole = carry.len() / unit * unit;
        write(&carry[..whole]).map_err(in_hdf5(path))?;
        carry.drain(..whole);
        progress(done);
        Ok(())
    })?;
    if !carry.is_empty() {
        return Err(Error::EndsEarly {
            path: source.location().to_path_buf(),
            record: n,
        });
    }
    Ok(n)
}

/// Refuses an array HDF5 cannot store as it is: Fortran order, of 2 or
/// more dimensions.
pub(crate) fn refuse_fortran_order(path: &Path, spec: &ArraySpec) -> Result<()> {
    if spec.order == Order::Fortran && spec.shape.len() > 1 {
        return Err(Error::Unsupported {
            path: path.to_path_buf(),
            message: "HDF5 stores arrays in C order only; a Fortran-order array of 2 or more \
                      dimensions does not convert to it"
                .into(),
        });
    }
    Ok(())
}

/// `options` for elements in the byte orders of `spec`.
fn in_byte_orders(options: ndl_hdf5::WriteOptions, spec: &ArraySpec) -> ndl_hdf5::WriteOptions {
    options
        .byte_order(spec.byte_order)
        .mixed_byte_orders(spec.other_order.clone())
}

/// The options of the dataset `source` is written to: the file's
/// `options` with its fill, its dimensions' names, its byte orders, and,
/// unless the options give their own, how the source stores it (its
/// chunks, deflate and shuffle; an unlimited first dimension). Its
/// attributes are written typed, once it is made
/// ([`hdf5_attributes::write`]).
///
/// [`hdf5_attributes::write`]: crate::hdf5_attributes::write
pub(crate) fn dataset_options(source: &dyn Source, options: &Hdf5SinkOptions) -> WriteOptions {
    let mut written = options.options.clone();
    if let Some(fill) = crate::carried::fill(source) {
        written = written.fill(fill);
    }
    if let Some(names) = source.dimension_names() {
        written = written.dimension_names(names);
    }
    if let (false, Some(storage)) = (options.storage_said, source.storage()) {
        written = stored_as(written, storage);
    }
    if let Some(fill) = crate::carried::storage_fill(source) {
        written = written.dataset_fill(fill);
    }
    if source.is_unlimited_first() {
        written = written.unlimited_first(true);
    }
    in_byte_orders(written, source.spec())
}

impl Sink for Hdf5Sink {
    /// `U` strings, which HDF5 has no type for, are stored variable-length.
    fn variable_strings(&self) -> bool {
        ArrayWriter::writes_variable_text(&self.spec.datatype)
    }

    fn notes(&self) -> Vec<String> {
        let netcdf = self.options.options.is_netcdf(&self.path);
        let skipped = ndl_hdf5::netcdf4_python_skips(&self.spec.datatype).is_some();
        if !netcdf || self.options.columns || !skipped {
            return Vec::new();
        }
        vec![format!(
            "{}: netCDF4-python (and xarray through it) skips a compound variable holding an enum \
             or a bool, which ncdump and netCDF-C read; write --layout columns for them",
            self.path.display()
        )]
    }

    fn write_from(self: Box<Self>, source: &mut dyn Source, progress: Progress<'_>) -> Result<u64> {
        if self.options.columns {
            return self.write_columns(source, progress);
        }
        self.write_array(source, progress)
    }
}

/// The record whose fields are the variables of the root group of a file
/// that is a table: two or more, all along one first dimension, of
/// numbers, enums, bools, CF times or netCDF text (strings of their last
/// dimension).
pub(crate) fn inferred_record(path: &Path, inventory: &Inventory) -> Result<Option<Datatype>> {
    for d in inventory.datasets.iter().filter(|d| d.group == "/") {
        refuse_bad_time_units(path, d)?;
    }
    Ok(table_record(inventory))
}

/// The root group's variables, each a table's column: its name and
/// attributes.
pub(crate) fn root_columns(
    inventory: &Inventory,
) -> impl Iterator<Item = crate::cf_table::ColumnAttributes<'_>> {
    inventory
        .datasets
        .iter()
        .filter(|d| d.group == "/")
        .map(|d| (d.name.as_str(), &d.attributes, &d.attribute_types))
}

/// An error for a variable whose `units` say it counts time since an
/// epoch, but not in a form CF defines: converted as plain numbers, its
/// times would be silently lost.
fn refuse_bad_time_units(path: &Path, d: &ndl_hdf5::DatasetInfo) -> Result<()> {
    let text = |key: &str| d.attributes.get(key).and_then(serde_json::Value::as_str);
    match ndl_runtime::time::cf_time_type(&d.stored.datatype, text("units"), text("calendar")) {
        Ok(_) => Ok(()),
        Err(e) => Err(Error::Unsupported {
            path: path.to_path_buf(),
            message: format!(
                "variable `{}`: its units read as CF time but are not: {e}; nothing was written",
                d.name
            ),
        }),
    }
}

/// The record of a table's variables, as [`inferred_record`] says.
fn table_record(inventory: &Inventory) -> Option<Datatype> {
    let variables: Vec<&ndl_hdf5::DatasetInfo> = inventory
        .datasets
        .iter()
        .filter(|d| d.group == "/" && !d.is_dimension_only)
        .collect();
    if variables.len() < 2 {
        return None;
    }
    let first_dim = |d: &ndl_hdf5::DatasetInfo| {
        let name = d
            .dimension_names
            .as_ref()
            .and_then(|n| n.first().cloned().flatten());
        (d.shape.first().copied(), name)
    };
    let along = first_dim(variables[0]);
    along.0?;
    let mut fields = Vec::with_capacity(variables.len());
    for d in variables {
        if first_dim(d) != along {
            return None;
        }
        let stored = &d.stored.datatype;
        let inner: Vec<usize> = d.shape[1..].iter().map(|&n| n as usize).collect();
        let field = match stored {
            Datatype::FixedString(s) if s.length == 1 && !inner.is_empty() => {
                let (length, outer) = inner.split_last()?;
                Datatype::FixedString(ndl_runtime::FixedString {
                    length: *length,
                    charset: ndl_runtime::Charset::Ascii,
                })
                .array_of(outer)
            }
            _ if d.cf_time.is_some() => Datatype::Time(d.cf_time?).array_of(&inner),
            Datatype::Enum(_) | Datatype::Bool | Datatype::Float32 | Datatype::Float64 => {
                stored.clone().array_of(&inner)
            }
            other if other.as_int().is_some() => stored.clone().array_of(&inner),
            _ => return None,
        };
        fields.push((d.name.clone(), field));
    }
    ndl_runtime::Compound::c_layout(fields)
        .ok()
        .map(Datatype::Compound)
}

/// The records of a file in the columns layout (see
/// [`ColumnsReader`]), read a block at a time.
pub struct Hdf5ColumnsSource {
    reader: ColumnsReader,
    spec: ArraySpec,
    path: PathBuf,
    /// Whether the records were inferred from variables another tool
    /// wrote, not read as ndl wrote them.
    inferred: bool,
    /// The file's attributes.
    attributes: NameMap<Attribute>,
}

impl Hdf5ColumnsSource {
    /// Opens the columns of the file at `path` as records, when it holds
    /// records in that layout (its `ndl_datatype` attribute), or when its
    /// root holds two or more variables, all along one first dimension,
    /// of numbers, enums, bools or netCDF text (as xarray writes a table):
    /// a field per variable, in the file's order. `None` otherwise.
    /// `inventory` is the file's.
    pub fn probe(path: &Path, inventory: &Inventory) -> Result<Option<Hdf5ColumnsSource>> {
        let inferred = !written_as_columns(inventory);
        let reader = if !inferred {
            ColumnsReader::open(path)
        } else {
            let Some(record) = inferred_record(path, inventory)? else {
                return Ok(None);
            };
            ColumnsReader::open_as(path, &record)
        }
        .map_err(in_hdf5(path))?;
        let spec = ArraySpec::new(reader.record().clone(), vec![reader.len()]);
        // Another tool's table has the file's attributes too (a title).
        let attributes = inventory.groups.first().map_or_else(NameMap::new, |root| {
            crate::carried::table_attributes((&root.attributes, &root.attribute_types))
        });
        Ok(Some(Hdf5ColumnsSource {
            reader,
            spec,
            path: path.to_path_buf(),
            inferred,
            attributes,
        }))
    }
}

impl Source for Hdf5ColumnsSource {
    fn origin(&self) -> Origin<'_> {
        Origin::new(&self.spec, &self.path)
    }

    fn is_part_of_dataset(&self) -> bool {
        self.inferred
    }

    fn attributes(&self) -> Option<&NameMap<Attribute>> {
        Some(&self.attributes).filter(|a| !a.is_empty())
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        self.reader.read_records(buf).map_err(in_hdf5(&self.path))
    }
}

/// Every dataset of the HDF5 file at `path`, in its groups.
pub fn contents(path: &Path) -> Result<Contents> {
    Ok(contents_of(
        path,
        &Inventory::of(path).map_err(in_hdf5(path))?,
    ))
}

/// The contents an inventory lists: an HDF5 file's, or a netCDF-3
/// file's header put in the same terms.
pub(crate) fn contents_of(path: &Path, inventory: &Inventory) -> Contents {
    let mut entries = Vec::new();
    let mut warnings = Vec::new();
    for d in inventory.datasets.iter().filter(|d| !d.is_dimension_only) {
        let at = crate::contents::join(&d.group, &d.name);
        if d.null_space {
            // No shape to give: not even a scalar's.
            warnings.push(format!(
                "{}: dataset `{at}` has a null dataspace (H5S_NULL: no elements and no shape, \
                 h5py's Empty) of {}; left out",
                path.display(),
                ndl_runtime::schema::describe(&d.stored.datatype)
            ));
            continue;
        }
        if let Some(why) = &d.no_numpy_type {
            warnings.push(format!(
                "{}: dataset `{at}`: {why}; described as opaque bytes of its size, and does not convert",
                path.display()
            ));
        }
        // Records whose `ndl_fills` names their options read with nulls:
        // described so, the attribute being ours.
        let with_nulls = d
            .attributes
            .get(ndl_hdf5::NDL_FILLS)
            .and_then(|v| v.as_str())
            .and_then(|fills| ndl_hdf5::records_with_nulls(&d.stored.datatype, fills));
        let nulls_said = with_nulls.is_some();
        let datatype = with_nulls.unwrap_or_else(|| d.stored.datatype.clone());
        let mut spec = ArraySpec::new(datatype, d.shape.clone());
        spec.byte_order = d.stored.byte_order;
        spec.other_order = d.stored.other_order.clone();
        let mut entry = Entry::new(d.group.clone(), d.name.clone(), spec, storage(d));
        entry.attributes = d.attributes.clone();
        let ours = |name: &str| nulls_said && name == ndl_hdf5::NDL_FILLS;
        entry
            .attributes
            .retain(|name, value| !(is_hdf5_bookkeeping(name, value, d.is_scale) || ours(name)));
        entry.attribute_types = d.attribute_types.clone();
        entry.unlimited = d.max_shape.iter().map(Option::is_none).collect();
        entry.dimension_names = d.dimension_names.clone();
        entry.type_name = d.type_name.clone();
        entries.push(entry);
    }
    let mut attributes = inventory
        .groups
        .first()
        .map(|g| g.attributes.clone())
        .unwrap_or_default();
    attributes.retain(|name, value| !is_hdf5_bookkeeping(name, value, false));
    let groups = inventory
        .groups
        .iter()
        .skip(1)
        .map(|g| {
            let mut attributes = g.attributes.clone();
            attributes.retain(|name, value| !is_hdf5_bookkeeping(name, value, false));
            GroupEntry {
                path: g.path.clone(),
                attributes,
                attribute_types: g.attribute_types.clone(),
            }
        })
        .collect();
    let attribute_types = inventory
        .groups
        .first()
        .map(|g| g.attribute_types.clone())
        .unwrap_or_default();
    let declared = declared(inventory);
    // A file that declares dimensions shares them, even where only scalar
    // variables are left to use them (a netCDF-4 file's).
    let shared = entries.iter().any(|e| e.dimension_names.is_some());
    let arrangement = if shared || !declared.dimensions.is_empty() {
        Arrangement::Group
    } else {
        Arrangement::Archive
    };
    Contents {
        arrangement,
        entries,
        attributes,
        warnings,
        attribute_types,
        groups,
        declared,
    }
}

/// What a file declares beside its datasets: its committed types, and a
/// dimension per dimension scale, in the scale's group (where netCDF-4
/// declares it), ordered by `_Netcdf4Dimid` (scales without one after
/// those with, in the file's order).
fn declared(inventory: &Inventory) -> Declared {
    let types = inventory.types.clone();
    let mut scales: Vec<&ndl_hdf5::DatasetInfo> = inventory
        .datasets
        .iter()
        .filter(|d| d.is_scale && d.shape.len() == 1)
        .collect();
    scales.sort_by_key(|d| {
        d.attributes
            .get("_Netcdf4Dimid")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(u64::MAX)
    });
    let dimensions = scales
        .into_iter()
        .map(|d| Dimension {
            group: d.group.clone(),
            name: d.name.clone(),
            size: d.shape[0],
            unlimited: d.max_shape.first().is_some_and(Option::is_none),
        })
        .collect();
    Declared { types, dimensions }
}

/// A dataset's chunks, filters, byte order and fill as NDL storage
/// directives.
fn storage(d: &ndl_hdf5::DatasetInfo) -> Storage {
    Storage {
        fillvalue: d.fill.as_ref().and_then(crate::attribute_json::fillvalue),
        ..storage_of(d.chunks.clone(), &d.filters, &d.stored)
    }
}

/// The storage directives of a dataset of `chunks` and `filters` holding
/// elements `stored` so.
fn storage_of(
    chunks: Option<Vec<u64>>,
    filters: &[serde_json::Value],
    stored: &ndl_hdf5::StoredType,
) -> Storage {
    Storage {
        chunk: chunks.map(|c| c.iter().map(|&c| c as usize).collect()),
        filter: (!filters.is_empty()).then(|| {
            filters
                .iter()
                .filter_map(|f| serde_yaml::to_value(f).ok())
                .collect()
        }),
        endian: stored
            .datatype
            .has_multibyte_numbers()
            .then_some(stored.byte_order),
        ..Storage::default()
    }
}

/// `options` with the chunks of `storage`, a source dataset's, and its
/// deflate and shuffle, which every netCDF-4 reader decodes (another
/// source's codec, zstd or Blosc, is not carried, as xarray carries none).
fn stored_as(mut options: WriteOptions, storage: &Storage) -> WriteOptions {
    if let Some(chunk) = &storage.chunk {
        options = options.chunk_shape(chunk.iter().map(|&c| c as u64).collect());
    }
    for filter in storage.filter.iter().flatten() {
        let name = filter.get("name").and_then(serde_yaml::Value::as_str);
        let level = filter
            .get("configuration")
            .and_then(|c| c.get("level"))
            .and_then(serde_yaml::Value::as_u64);
        options = match (name, level) {
            (Some("shuffle"), _) => options.shuffle(true),
            (Some("deflate" | "gzip" | "zlib"), Some(level)) => {
                options.codec(ndl_hdf5::Codec::Deflate(level.min(9) as u8))
            }
            _ => options,
        };
    }
    options
}

/// HDF5 and netCDF-4, as the [registry](crate::FORMATS) lists them: read
/// in a child process by the command, since a damaged file can crash the
/// C library.
pub(crate) static FORMAT: FormatInfo = FormatInfo {
    name: "hdf5",
    noun: "HDF5 or netCDF-4 file",
    endings: &["h5", "hdf5", "nc"],
    members: true,
    sidecar: false,
    crash_prone: true,
    settings: &[
        Setting::Layout,
        Setting::ChunkLen,
        Setting::Codec,
        Setting::Shuffle,
    ],
    recognises: |path, start| Ok(start == SIGNATURE || signature_after_user_block(path)?),
    configure: |settings, path, options| {
        options.hdf5 = sink_options(settings, path)?;
        Ok(())
    },
    open,
    create: Some(|path, source, options| {
        let mut options = options.hdf5.clone();
        options.options = dataset_options(source, &options);
        Ok(Box::new(Hdf5Sink::create(path, source.spec(), &options)?))
    }),
    // netCDF-4 columns are the whole file; an HDF5 dataset of variable
    // records is one member.
    open_records: Some(|path, options| {
        let Some(member) = &options.member else {
            // One walk of the file serves both looks.
            let inventory = Inventory::of(path).map_err(in_hdf5(path))?;
            if let Some(source) = crate::netcdf_columns::open_records(path, &inventory)? {
                return Ok(Some(source));
            }
            return crate::hdf5_records::open_only(path, &inventory);
        };
        crate::hdf5_records::open_member(path, member)
    }),
    // netCDF4-python reads no compound holding a variable-length member,
    // so a `.nc` file takes variable records as columns.
    create_records: Some(|path, source, options| {
        if options.hdf5.columns || options.hdf5.options.is_netcdf(path) {
            crate::netcdf_columns::create_records(path, source, options)
        } else {
            crate::hdf5_records::create_records(path, source, options)
        }
    }),
    keeps_mixed_byte_orders: |path, options| {
        !options.hdf5.columns && !options.hdf5.options.is_netcdf(path)
    },
    contents: |path, _| contents(path),
    batch_file: None,
};

/// The file options the command line's `settings` say, for a file at
/// `path`: the codecs HDF5 has without plugins, others refused by name.
pub(crate) fn sink_options(settings: &WriteSettings, path: &Path) -> Result<Hdf5SinkOptions> {
    use ndl_runtime::lang::zarr::Codec;
    let codec = match settings.codec {
        None | Some(Codec::None) => ndl_hdf5::Codec::None,
        Some(Codec::Gzip(level) | Codec::Zlib(level)) => {
            ndl_hdf5::Codec::Deflate(level.min(9) as u8)
        }
        Some(Codec::Blosc(clevel)) => ndl_hdf5::Codec::Blosc(ndl_runtime::codec::Blosc {
            clevel,
            ..ndl_runtime::codec::Blosc::default()
        }),
        Some(Codec::BloscWith(blosc)) => ndl_hdf5::Codec::Blosc(blosc),
        Some(_) => {
            return Err(Error::Unsupported {
                path: path.to_path_buf(),
                message: "HDF5 and netCDF-4 files take --codec none, gzip or zlib (HDF5's \
                          deflate), or blosc with any compressor (blosc:zstd:5, which h5py \
                          reads through hdf5plugin)"
                    .into(),
            });
        }
    };
    let mut options = WriteOptions::new().codec(codec).shuffle(settings.shuffle);
    if let Some(n) = settings.chunk_len {
        options = options.chunk(n as usize);
    }
    Ok(Hdf5SinkOptions {
        options,
        columns: settings.layout() == Layout::Columns,
        storage_said: settings.codec.is_some() || settings.shuffle || settings.chunk_len.is_some(),
    })
}

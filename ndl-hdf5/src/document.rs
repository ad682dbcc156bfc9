//! A new file built object by object, as a description (an NDL document)
//! says, or as the arrays of another file come: groups at any depth,
//! datasets of any fixed-size datatype, of strings or of variable-length
//! sequences with their values and fills, datasets streamed a block of
//! rows at a time, dimension scales and attributes. The file
//! is built under a hidden name and renamed into place by
//! [`DocumentWriter::finish`]; dropped before, it leaves nothing.

use std::path::Path;

use hdf5::types::VarLenUnicode;
use hdf5::{Extent, Extents, SimpleExtents};
use ndl_runtime::record::Column;
use ndl_runtime::{ByteOrder, Datatype};

use crate::array_io::ArrayWriter;
use crate::dimension::Dimensions;
use crate::elements::{Elements, to_unicode};
use crate::error::{Error, Result, hdf5_error};
use crate::fill::{with_fill, with_netcdf_default};
use crate::h5type::{
    Orders, commit_type, is_user_defined, netcdf_char, profile_type, well_known_name,
};
use crate::object_path::{leaf, parent};
use crate::options::CHUNK_BYTES;
use crate::options::WriteOptions;
use crate::raw_io::write_rows;
use crate::record_io::{Arena, Buffer, encode};
use crate::record_type::Node;
use crate::staging::Staged;
use crate::typed_attribute::{self, raw_attribute};
use crate::variable::RecordsWriter;

/// A filter of a new dataset's chunks, in the order given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    /// zlib's deflate at a level from 0 to 9 (h5py's `gzip`).
    Deflate(u8),
    /// The byte shuffle.
    Shuffle,
}

/// A dataset to make: its datatype, extents and how it is stored.
#[derive(Clone, Copy, Debug)]
pub struct NewDataset<'a> {
    /// The elements' datatype: any fixed-size one, `string`, a `vlen`, or
    /// (HDF5 only) a compound holding `string` and `vlen` members.
    pub datatype: &'a Datatype,
    /// The extents it is made with (0 for an unlimited dimension left
    /// empty); none for a scalar. In netCDF-4 an ASCII fixed string is
    /// `char` over a last dimension of its length, as xarray writes it:
    /// that length is the last extent given.
    pub extents: &'a [u64],
    /// Per dimension, whether it grows without limit.
    pub unlimited: &'a [bool],
    /// Elements per chunk along each dimension; chunked anyway where a
    /// dimension is unlimited or a filter is given.
    pub chunk: Option<&'a [u64]>,
    /// The filters of its chunks.
    pub filters: &'a [Filter],
    /// The byte order its numbers are stored in.
    pub byte_order: ByteOrder,
    /// The value standing for none, one element of a number datatype in
    /// native order: the dataset's fill, and in netCDF-4 its `_FillValue`
    /// attribute, which netCDF readers and xarray mask. Without one, a
    /// netCDF-4 variable of numbers has netCDF-C's default fill, as
    /// netCDF-C makes it.
    pub fill: Option<&'a [u8]>,
}

/// A new HDF5 (or, with `netcdf`, netCDF-4) file being built.
pub struct DocumentWriter {
    staged: Staged,
    netcdf: bool,
    dimensions: Dimensions,
}

impl DocumentWriter {
    /// Starts the file that will be `destination`; netCDF-4's profile
    /// (named dimensions, committed types) with `netcdf`.
    pub fn create(destination: &Path, netcdf: bool) -> Result<DocumentWriter> {
        crate::filters::register();
        Ok(DocumentWriter {
            staged: Staged::create(destination, false)?,
            netcdf,
            dimensions: Dimensions::default(),
        })
    }

    /// Starts the file that will be `destination`, as `options` say:
    /// netCDF-4's profile for a `.nc` path or
    /// [`WriteOptions::netcdf`](crate::WriteOptions::netcdf), flushed to
    /// the disk if [`durable`](crate::WriteOptions::durable).
    ///
    /// A file of several datasets, each streamed by the [`ArrayWriter`]
    /// [`array`](Self::array) gives, is made so: in netCDF-4 they share
    /// their dimensions by name, as netCDF-C's. A one-dimensional dataset
    /// whose dimension is named as itself is that dimension's coordinate
    /// variable (write it before the datasets over its dimension); every
    /// other dimension is made once, by the first dataset over it, in its
    /// group unless a group above holds it.
    ///
    /// ```
    /// use ndl_hdf5::{DocumentWriter, WriteOptions};
    /// use ndl_runtime::{ByteOrder, Datatype};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("two.nc");
    /// let mut file = DocumentWriter::create_with(&path, &WriteOptions::new())?;
    /// let x = WriteOptions::new().dimension_names(vec!["x".into()]);
    /// let mut w = file.array("x", (&Datatype::Float64, ByteOrder::NATIVE, &[2]), &x)?;
    /// w.write_rows(bytemuck::cast_slice(&[0.5f64, 1.5]))?;
    /// w.finish()?;
    /// let mut w = file.array("v", (&Datatype::Int32, ByteOrder::NATIVE, &[2]), &x)?;
    /// w.write_rows(bytemuck::cast_slice(&[7i32, 8]))?;
    /// w.finish()?;
    /// file.finish()?;
    /// let inventory = ndl_hdf5::Inventory::of(&path)?;
    /// let v = inventory.datasets.iter().find(|d| d.name == "v").unwrap();
    /// assert_eq!(v.dimension_names, Some(vec![Some("x".to_string())]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_with(destination: &Path, options: &WriteOptions) -> Result<DocumentWriter> {
        crate::filters::register();
        let staged = Staged::create(destination, options.durable)?;
        Ok(DocumentWriter {
            netcdf: options.is_netcdf(staged.path()),
            staged,
            dimensions: Dimensions::default(),
        })
    }

    /// The writer of the new dataset `dataset` (`temp`, `obs/temp`: its
    /// groups are made) of `shape` elements of `datatype`, written from
    /// `byte_order` a block of rows at a time, as [`ArrayWriter::create`]
    /// makes one: its dimensions named by `options`, which also give its
    /// attributes and storage. The file is published by
    /// [`finish`](Self::finish), not the writer's.
    ///
    /// # Errors
    /// As [`ArrayWriter::create`].
    pub fn array(
        &mut self,
        dataset: &str,
        (datatype, byte_order, shape): (&Datatype, ByteOrder, &[u64]),
        options: &WriteOptions,
    ) -> Result<ArrayWriter> {
        let dataset = dataset.trim_start_matches('/');
        ArrayWriter::create_in(
            (self.staged.file(), self.staged.path(), self.netcdf),
            &mut self.dimensions,
            dataset,
            (datatype, byte_order, shape),
            &format!("{}_t", leaf(dataset)),
            options,
        )
    }

    /// The writer of the new empty dataset `dataset` (`obs`, `g/obs`: its
    /// groups are made) of variable records of `datatype` laid out as
    /// `template`, as [`RecordsWriter::create`](crate::RecordsWriter::create)
    /// makes one, but in this file, which [`finish`](Self::finish)
    /// publishes.
    ///
    /// # Errors
    /// As [`RecordsWriter::create`]: a netCDF-4 file is refused
    /// (netCDF4-python reads no compound holding variable-length members).
    ///
    /// ```
    /// use ndl_hdf5::{DocumentWriter, WriteOptions};
    /// use ndl_runtime::Record;
    /// use ndl_runtime::record::{Column, Columns};
    ///
    /// #[derive(Record)]
    /// struct Obs { id: u32, note: String }
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("d.h5");
    /// let mut file = DocumentWriter::create_with(&path, &WriteOptions::new())?;
    /// let mut w = file.records("obs", &Obs::datatype(), &Column::template(&Obs::datatype())?,
    ///     &WriteOptions::new())?;
    /// let mut columns = <Obs as Record>::Columns::with_capacity(1);
    /// columns.push(&Obs { id: 7, note: "ok".into() });
    /// w.append(&columns.finish())?;
    /// assert_eq!(w.finish()?, 1);
    /// file.finish()?;
    /// let back: Vec<Obs> = ndl_hdf5::read(&path, "obs")?;
    /// assert_eq!(back[0].note, "ok");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn records(
        &mut self,
        dataset: &str,
        datatype: &Datatype,
        template: &Column,
        options: &WriteOptions,
    ) -> Result<RecordsWriter> {
        let dataset = dataset.trim_start_matches('/');
        let path = self.staged.path();
        let node = RecordsWriter::layout(path, dataset, (datatype, template), self.netcdf)?;
        RecordsWriter::create_in((self.staged.file(), path), dataset, node, options)
    }

    /// Makes the group at `path` and every group above it not made yet.
    pub fn group(&self, path: &str) -> Result<()> {
        let file = self.staged.file();
        let mut at = String::new();
        for segment in path.split('/').filter(|s| !s.is_empty()) {
            at = format!("{at}/{segment}");
            if !file.link_exists(&at) {
                file.create_group(&at).map_err(self.error(&at))?;
            }
        }
        Ok(())
    }

    /// Makes the dataset at `path` (its group made before) with `values`.
    ///
    /// A compound holding `string` or `vlen` members is laid out as h5py
    /// lays out such records, its `values` a [`Column::Struct`] (or
    /// [`Elements::Fill`]); a netCDF-4 file refuses it, as
    /// [`records`](Self::records) does.
    pub fn dataset(
        &mut self,
        path: &str,
        new: &NewDataset<'_>,
        values: Elements<'_>,
    ) -> Result<()> {
        if matches!(new.datatype, Datatype::Compound(c) if c.is_variable()) {
            return self.records_dataset(path, new, values);
        }
        let (memory_type, file_type) = self.types(path, new.datatype, new.byte_order)?;
        self.check_count(path, new, &values, memory_type.size())?;
        let mut builder = with_fill(self.builder(&file_type, new), new.datatype, new.fill)
            .map_err(|e| self.type_error(path, e))?;
        if new.fill.is_none() && self.netcdf {
            builder = with_netcdf_default(builder, new.datatype);
        }
        let dataset = builder.create(path).map_err(self.error(path))?;
        if let (Some(fill), true) = (new.fill, self.netcdf) {
            let at = format!("{path}@_FillValue");
            raw_attribute(&dataset, "_FillValue", &memory_type, &[], fill)
                .map_err(self.error(&at))?;
        }
        let written = match values {
            Elements::Fill => Ok(()),
            Elements::Bytes(bytes) => write_rows(&dataset, &memory_type, new.extents, 0, bytes),
            Elements::Strings(strings) => to_unicode(strings).and_then(|s| dataset.write_raw(&s)),
            Elements::Column(column) => return self.write_column(&dataset, path, new, column),
        };
        written.map_err(self.error(path))
    }

    /// Makes the dataset at `path` of a compound holding variable-length
    /// members, laid out as h5py lays out such records (see
    /// [`records`](Self::records)), with `values`, a [`Column::Struct`].
    fn records_dataset(
        &mut self,
        path: &str,
        new: &NewDataset<'_>,
        values: Elements<'_>,
    ) -> Result<()> {
        // The values' own column carries their options' fills, which the
        // datatype does not.
        let made;
        let template = match values {
            Elements::Column(column) => column,
            _ => {
                made = Column::template(new.datatype)
                    .map_err(|e| self.refused(path, e.to_string()))?;
                &made
            }
        };
        let node = RecordsWriter::layout(
            self.staged.path(),
            path,
            (new.datatype, template),
            self.netcdf,
        )?;
        self.check_count(path, new, &values, node.size())?;
        let memory_type = node.memory_type().map_err(|e| self.type_error(path, e))?;
        let file_type = Node::file_type(&memory_type).map_err(self.error(path))?;
        let dataset = self
            .builder(&file_type, new)
            .create(path)
            .map_err(self.error(path))?;
        crate::null_fills::write(&dataset, &node).map_err(self.error(path))?;
        match values {
            Elements::Fill => Ok(()),
            Elements::Column(column) => self.write_column(&dataset, path, new, column),
            Elements::Bytes(_) | Elements::Strings(_) => Err(self.refused(
                path,
                "records holding variable-length members are written from a column".into(),
            )),
        }
    }

    /// Checks that the extents of `new` multiply to a count, and that
    /// `values` are as many elements (of `size` bytes, where given as
    /// bytes) as they hold.
    fn check_count(
        &self,
        path: &str,
        new: &NewDataset<'_>,
        values: &Elements<'_>,
        size: usize,
    ) -> Result<()> {
        // The library multiplies the extents, a 0 among them too.
        let extents = new.extents;
        if extents
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d.max(1)))
            .is_none()
        {
            return Err(self.refused(path, format!("extents {extents:?} multiply past 2^64")));
        }
        let wanted = extents.iter().product::<u64>();
        let given = match values {
            Elements::Fill => return Ok(()),
            Elements::Bytes(bytes) if size == 0 || bytes.len() % size != 0 => {
                let why = format!(
                    "{} bytes, not whole elements of {size}, given for the {wanted} elements \
                     of extents {extents:?}",
                    bytes.len()
                );
                return Err(self.refused(path, why));
            }
            Elements::Bytes(bytes) => bytes.len() / size,
            Elements::Strings(strings) => strings.len(),
            Elements::Column(column) => column.len(),
        };
        if given as u64 == wanted {
            return Ok(());
        }
        let why = format!("{given} values given for the {wanted} elements of extents {extents:?}");
        Err(self.refused(path, why))
    }

    /// Writes the variable-length values `column` holds, laid out in
    /// memory as HDF5 reads them (`hvl_t`, `char*`) for the one call.
    fn write_column(
        &self,
        dataset: &hdf5::Dataset,
        path: &str,
        new: &NewDataset<'_>,
        column: &Column,
    ) -> Result<()> {
        let node = Node::from_column(column, "").map_err(|e| self.type_error(path, e))?;
        let memory_type = node.memory_type().map_err(|e| self.type_error(path, e))?;
        let n = column.len();
        let mut buffer = Buffer::zeroed(n * node.size());
        let slots: Vec<usize> = (0..n).map(|i| i * node.size()).collect();
        let mut arena = Arena::default();
        encode(&node, column, buffer.bytes_mut(), &slots, &mut arena).map_err(|e| {
            Error::InvalidValue {
                path: self.staged.path().to_path_buf(),
                dataset: path.to_string(),
                record: e.record().unwrap_or(0) as u64,
                field: e.field(),
                offset: 0,
                message: e.message().to_string(),
            }
        })?;
        let bytes = &buffer.bytes()[..n * node.size()];
        write_rows(dataset, &memory_type, new.extents, 0, bytes).map_err(self.error(path))
    }

    /// Makes the dataset at `path` the dimension named as it is, and its
    /// coordinate variable.
    pub fn coordinate(&mut self, path: &str, unlimited: bool) -> Result<()> {
        let file = self.staged.file();
        let (group, name) = (parent(path), leaf(path));
        let mut run = || -> hdf5::Result<()> {
            let g = file.group(group)?;
            let variable = file.dataset(path)?;
            self.dimensions
                .coordinate(&g, name, variable, unlimited, self.netcdf)
        };
        run().map_err(hdf5_error(self.staged.path(), path))
    }

    /// Makes the dimension `name` of the group at `group`, of `len`, which
    /// no variable holds coordinates of (netCDF-4's for a dimension given
    /// by its size only), unless it is made already.
    pub fn dimension(&mut self, group: &str, name: &str, len: u64, unlimited: bool) -> Result<()> {
        let file = self.staged.file();
        let at = format!("{}/{name}", group.trim_end_matches('/'));
        let mut run = || -> hdf5::Result<()> {
            let g = file.group(group)?;
            self.dimensions.dimension_only(&g, name, len, unlimited)
        };
        run().map_err(hdf5_error(self.staged.path(), &at))
    }

    /// Attaches dimension `k` of the dataset at `path` to the dimension
    /// `name` of the group at `group`.
    pub fn attach(&self, path: &str, k: usize, group: &str, name: &str) -> Result<()> {
        let run = || -> hdf5::Result<()> {
            let variable = self.staged.file().dataset(path)?;
            self.dimensions.attach_one(&variable, k, group, name)
        };
        run().map_err(self.error(path))
    }

    /// Writes the attribute `name` of the group or dataset at `object`:
    /// a scalar string as netCDF's text in netCDF-4 (CF readers expect
    /// `char`), strings otherwise as variable-length UTF-8 ones (h5py's
    /// `str`), anything else of its datatype.
    pub fn attribute(
        &self,
        object: &str,
        name: &str,
        datatype: &Datatype,
        shape: &[u64],
        values: Elements<'_>,
    ) -> Result<()> {
        let location = self.location(object)?;
        typed_attribute::write(&location, (name, datatype, shape), values, self.netcdf)
            .map_err(|f| f.at(self.staged.path(), &format!("{object}@{name}")))
    }

    /// Writes the attribute `name` of the group or dataset at `object`
    /// from a JSON value, as
    /// [`WriteOptions::attribute`](crate::WriteOptions::attribute) takes
    /// them: for a value that has no type of its own (a Zarr store's).
    ///
    /// ```
    /// use ndl_hdf5::{DocumentWriter, WriteOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("d.nc");
    /// let file = DocumentWriter::create_with(&path, &WriteOptions::new())?;
    /// file.json_attribute("/", "qc_applied", &serde_json::json!(true))?;
    /// file.finish()?;
    /// let file = hdf5::File::open(&path)?;
    /// assert_eq!(file.attr("qc_applied")?.read_scalar::<i8>()?, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn json_attribute(
        &self,
        object: &str,
        name: &str,
        value: &serde_json::Value,
    ) -> Result<()> {
        let location = self.location(object)?;
        crate::user_attributes::write_one(&location, name, value)
            .map_err(self.error(&format!("{object}@{name}")))
    }

    /// Closes the file and renames it into place.
    pub fn finish(self) -> Result<()> {
        drop(self.dimensions);
        self.staged.publish()
    }

    /// The memory and file types of the dataset at `path`: compounds and
    /// enums (netCDF-4: every user-defined type) committed, as h5py and
    /// netCDF-C name them.
    fn types(
        &self,
        path: &str,
        datatype: &Datatype,
        order: ByteOrder,
    ) -> Result<(hdf5::Datatype, hdf5::Datatype)> {
        let type_error = |source| self.type_error(path, source);
        if let (true, Datatype::FixedString(f)) = (self.netcdf, datatype)
            && f.charset == ndl_runtime::Charset::Ascii
        {
            let t = netcdf_char().map_err(type_error)?;
            return Ok((t.clone(), t));
        }
        if *datatype == Datatype::String {
            let t = hdf5::Datatype::from_type::<VarLenUnicode>().map_err(self.error(path))?;
            return Ok((t.clone(), t));
        }
        let memory = profile_type(datatype, Orders::one(ByteOrder::NATIVE), self.netcdf)
            .map_err(type_error)?;
        let named = if self.netcdf {
            is_user_defined(datatype)
        } else {
            matches!(datatype, Datatype::Compound(_) | Datatype::Enum(_))
        };
        let file = if named {
            let name = self.type_name(path, datatype);
            commit_type(
                self.staged.file(),
                &name,
                datatype,
                Orders::one(order),
                self.netcdf,
            )
        } else {
            profile_type(datatype, Orders::one(order), self.netcdf)
        }
        .map_err(type_error)?;
        Ok((memory, file))
    }

    /// A name for the type of the dataset at `path` that no link of the
    /// root group holds yet: `<name>_t`, then `<name>_2_t` …
    fn type_name(&self, path: &str, datatype: &Datatype) -> String {
        if let Some(known) = well_known_name(datatype) {
            return known.to_string();
        }
        let file = self.staged.file();
        let base = leaf(path);
        (1..)
            .map(|n| match n {
                1 => format!("{base}_t"),
                n => format!("{base}_{n}_t"),
            })
            .find(|name| !file.link_exists(name))
            .expect("a free name")
    }

    fn builder(
        &self,
        file_type: &hdf5::Datatype,
        new: &NewDataset<'_>,
    ) -> hdf5::DatasetBuilderEmptyShape {
        let extents: Vec<Extent> = new
            .extents
            .iter()
            .zip(new.unlimited)
            .map(|(&d, &unlimited)| match unlimited {
                true => Extent::resizable(d as usize),
                false => Extent::fixed(d as usize),
            })
            .collect();
        let extents = match extents.is_empty() {
            true => Extents::Scalar,
            false => Extents::Simple(SimpleExtents::from_vec(extents)),
        };
        let mut builder = self
            .staged
            .file()
            .new_dataset_builder()
            .empty_as(file_type)
            .shape(extents);
        let Some(chunk) = chunk_of(new, file_type.size()) else {
            return builder;
        };
        builder = builder.chunk(chunk);
        for filter in new.filters {
            builder = match filter {
                Filter::Deflate(level) => builder.deflate(*level),
                Filter::Shuffle => builder.shuffle(),
            };
        }
        builder
    }

    /// The group or dataset at `object`.
    fn location(&self, object: &str) -> Result<hdf5::Location> {
        let file = self.staged.file();
        Ok(match file.group(object) {
            Ok(g) => (*g).clone(),
            Err(_) => (**file.dataset(object).map_err(self.error(object))?).clone(),
        })
    }

    fn error<'a>(&'a self, object: &'a str) -> impl Fn(hdf5::Error) -> Error + 'a {
        hdf5_error(self.staged.path(), object)
    }

    /// [`type_error`](Self::type_error) of the whole datatype of `object`.
    fn refused(&self, object: &str, why: String) -> Error {
        let field = String::new();
        self.type_error(object, crate::TypeError { field, why })
    }

    fn type_error(&self, object: &str, source: crate::TypeError) -> Error {
        Error::Type {
            path: self.staged.path().to_path_buf(),
            dataset: object.to_string(),
            source,
        }
    }
}

/// The chunk of a new dataset: the one given, else, where it must be
/// chunked (an unlimited dimension, a filter), about [`CHUNK_BYTES`] along
/// its first dimension and whole along the others; none for contiguous.
fn chunk_of(new: &NewDataset<'_>, size: usize) -> Option<Vec<usize>> {
    if let Some(chunk) = new.chunk {
        return Some(chunk.iter().map(|&c| c as usize).collect());
    }
    let must = new.unlimited.contains(&true) || !new.filters.is_empty();
    if !must || new.extents.is_empty() {
        return None;
    }
    // Saturating: extents are the document's word, not bounded by memory.
    let row = new.extents[1..]
        .iter()
        .fold(size.max(1), |n, &d| n.saturating_mul((d as usize).max(1)));
    let first = (CHUNK_BYTES / row).max(1);
    let first = match new.unlimited[0] {
        true => first,
        false => first.min((new.extents[0] as usize).max(1)),
    };
    Some(
        std::iter::once(first)
            .chain(new.extents[1..].iter().map(|&d| (d as usize).max(1)))
            .collect(),
    )
}

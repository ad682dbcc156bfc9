//! Datasets of any rank as bytes: elements laid out as their datatype
//! says, all numbers in one byte order, in C order, a block of rows at a
//! time. What format-agnostic code (conversion) reads and writes.

use std::path::{Path, PathBuf};

use ndl_runtime::time::{CfEncoding, CfValues};
use ndl_runtime::{ByteOrder, Charset, Datatype};

use crate::cf;
use crate::dimension::Dimensions;
use crate::elements::Elements;
use crate::error::hdf5_error;
use crate::error::{Error, Result};
use crate::fill::with_fill;
use crate::h5type::{
    Orders, commit_type, is_user_defined, netcdf_char, profile_type, variable_utf8, well_known_name,
};
use crate::lookup::open_dataset;
use crate::object_path::{leaf, parent};
use crate::options::WriteOptions;
use crate::raw_io::{
    has_null_space, read_rows, read_rows_padded, row_bytes, row_elements, write_rows,
};
use crate::staging::Staged;
use crate::stored_type::{StoredType, is_char, stored_type};
use crate::typed_attribute;
use crate::utf32_values;

/// A dataset opened to read its elements as bytes.
pub struct ArrayReader {
    _file: hdf5::File,
    dataset: hdf5::Dataset,
    memory_type: hdf5::Datatype,
    stored: StoredType,
    /// The dataset's extents, as read and written.
    extents: Vec<u64>,
    /// Its extents in elements of `stored` (one fewer for netCDF text).
    shape: Vec<u64>,
    /// How time counts stored in CF units are decoded, where they are.
    time: Option<CfValues>,
    /// The extents the dataset is read as, past its own, and the element
    /// they are filled with there (see [`ArrayReader::grown_to`]).
    grown: Option<(Vec<u64>, Vec<u8>)>,
    next_row: u64,
    path: PathBuf,
    name: String,
}

impl ArrayReader {
    /// Opens `dataset` of the file at `path`. Its elements are read in
    /// their stored layout, every number in the order of the first (see
    /// [`StoredType`]); variable-length and reference types are refused.
    pub fn open(path: impl AsRef<Path>, dataset: &str) -> Result<ArrayReader> {
        let path = path.as_ref().to_path_buf();
        let (file, found) = open_dataset(&path, dataset)?;
        let dtype = found.dtype().map_err(hdf5_error(&path, dataset))?;
        let not_an_array = |message: String| Error::NotAnArray {
            path: path.clone(),
            dataset: dataset.to_string(),
            message,
        };
        if has_null_space(&found) {
            return Err(not_an_array(
                "the dataset has a null dataspace (H5S_NULL): no elements and no shape, \
                 which h5py reads as h5py.Empty; there is no array to convert"
                    .into(),
            ));
        }
        let mut stored = stored_type(dtype.id())
            .map_err(|why| not_an_array(format!("{why}; the dataset does not convert")))?;
        let mut time = None;
        if let Some(dt) = cf::read_datatype(&found).filter(|dt| dt.size() == stored.datatype.size())
        {
            // What the stored type cannot say (a time's unit), and how the
            // counts it holds instead decode.
            time = time_decoding(&found, &dtype, &stored.datatype, &dt).map_err(|message| {
                Error::TypeMismatch {
                    path: path.clone(),
                    dataset: dataset.to_string(),
                    field: String::new(),
                    message,
                }
            })?;
            stored.datatype = dt;
        }
        let extents: Vec<u64> = found.shape().iter().map(|&d| d as u64).collect();
        let mut shape = extents.clone();
        let memory_type = if is_netcdf_text(&found, &dtype, &extents) {
            // netCDF's strings: `char` over a last dimension of their
            // length, read as NumPy's `S<length>` (the same bytes).
            let length = shape.pop().unwrap_or(1) as usize;
            stored.datatype = Datatype::FixedString(ndl_runtime::FixedString {
                length,
                charset: Charset::Ascii,
            });
            dtype
        } else {
            // The file's own type: elements as stored, in the orders
            // `stored` gives, with no conversion (which could also
            // rewrite characters).
            dtype
        };
        let elements = extents.iter().fold(1u64, |n, &d| n.saturating_mul(d));
        let size = memory_type.size() as u64;
        crate::extent::check_extent(&path, dataset, &found, elements, size, size)?;
        Ok(ArrayReader {
            _file: file,
            dataset: found,
            memory_type,
            stored,
            extents,
            shape,
            time,
            grown: None,
            next_row: 0,
            path,
            name: dataset.to_string(),
        })
    }

    /// The reader of the dataset as netCDF reads a variable shorter than
    /// an unlimited dimension it lies along, which another variable has
    /// grown: as `shape`, each element past its own extents the
    /// variable's fill (its `_FillValue`, else its dataset fill, else
    /// netCDF's default). `shape` counts elements as
    /// [`shape`](ArrayReader::shape) does (netCDF text without its
    /// strings' length); [`DatasetInfo::shape`](crate::DatasetInfo::shape)
    /// gives it.
    ///
    /// # Errors
    /// A shape of another rank or smaller than the dataset's, values of
    /// variable length, or more fill than a dataset may claim
    /// ([`MAX_FILL_BYTES`](crate::MAX_FILL_BYTES)).
    pub fn grown_to(mut self, shape: &[u64]) -> Result<ArrayReader> {
        if shape == self.shape {
            return Ok(self);
        }
        if self.stored.datatype.size().is_none() {
            return Err(Error::NotAnArray {
                path: self.path.clone(),
                dataset: self.name.clone(),
                message: "values of variable length are not read past their extents".into(),
            });
        }
        let fits = shape.len() == self.shape.len()
            && shape.iter().zip(&self.shape).all(|(g, own)| g >= own);
        if !fits {
            return Err(Error::NotAnArray {
                path: self.path.clone(),
                dataset: self.name.clone(),
                message: format!("cannot be read as shape {shape:?}: it has {:?}", self.shape),
            });
        }
        // netCDF text keeps its strings' length, the last extent.
        let mut extents = shape.to_vec();
        extents.extend(self.extents.get(shape.len()..).into_iter().flatten());
        // What is past its extents is fill alone, bounded as a dataset's.
        let elements = extents.iter().fold(1u64, |n, &d| n.saturating_mul(d));
        let size = self.memory_type.size() as u64;
        crate::extent::check_extent(&self.path, &self.name, &self.dataset, elements, size, size)?;
        let fill = crate::fill::read_fill(
            &self.dataset,
            &self.memory_type,
            &self.stored.datatype,
            self.stored.byte_order,
        );
        self.shape = shape.to_vec();
        self.grown = Some((extents, fill));
        Ok(self)
    }

    /// The fill a writer set for its elements never written (h5py's
    /// `fillvalue`), as [`DatasetInfo::fill`](crate::DatasetInfo::fill)
    /// gives it: where it says more than its `_FillValue`.
    pub fn dataset_fill(&self) -> Option<serde_json::Value> {
        let said = self.dataset.attr("_FillValue").is_ok();
        crate::inventory::set_fill(&self.dataset, &self.stored.datatype).filter(|_| !said)
    }

    /// Which of its dimensions grow without limit (netCDF's unlimited
    /// dimensions).
    pub fn unlimited(&self) -> Vec<bool> {
        let max = self
            .dataset
            .space()
            .map(|s| s.maxdims())
            .unwrap_or_default();
        max.iter().map(Option::is_none).collect()
    }

    /// The dataset's attributes as JSON (see [`DatasetInfo::attributes`](crate::DatasetInfo)),
    /// and the stored type of each one's elements.
    pub fn attributes(
        &self,
    ) -> (
        serde_json::Map<String, serde_json::Value>,
        std::collections::BTreeMap<String, Datatype>,
    ) {
        crate::attribute::attributes(&self.dataset)
    }

    /// The names of the dimension scales attached to the dataset's
    /// dimensions (netCDF's dimensions), when each has one; a
    /// one-dimensional dimension scale's (netCDF's coordinate variable)
    /// is its own name.
    pub fn dimension_names(&self) -> Option<Vec<String>> {
        crate::inventory::scale_names(&self.dataset).or_else(|| {
            let class = crate::attribute::attribute(&self.dataset, "CLASS")?;
            let own = self.dataset.name();
            (class == "DIMENSION_SCALE" && self.shape.len() == 1)
                .then(|| vec![leaf(&own).to_string()])
        })
    }

    /// Elements per chunk along each dimension, where the dataset is
    /// chunked.
    pub fn chunks(&self) -> Option<Vec<u64>> {
        let chunk = self.dataset.chunk()?;
        Some(chunk.iter().map(|&c| c as u64).collect())
    }

    /// The dataset's filters in the order they run when writing, each as
    /// [`DatasetInfo::filters`](crate::DatasetInfo::filters) names them
    /// (`{"name": "deflate", "configuration": {"level": 4}}`).
    pub fn filters(&self) -> Vec<serde_json::Value> {
        let filters = self.dataset.filters();
        filters.iter().map(crate::inventory::filter_name).collect()
    }

    /// Whether the first dimension grows without limit (netCDF's
    /// unlimited dimension).
    pub fn is_unlimited_first(&self) -> bool {
        let max = self.dataset.space().map(|s| s.maxdims());
        max.is_ok_and(|m| m.first().is_some_and(Option::is_none))
    }

    /// The elements' type.
    pub fn stored(&self) -> &StoredType {
        &self.stored
    }

    /// The dataset's extents in elements (empty for a scalar): a netCDF
    /// `char` variable of two or more dimensions is strings of its last.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// The bytes of one row: the elements after the first dimension.
    pub fn row_bytes(&self) -> usize {
        row_bytes(&self.memory_type, self.read_extents())
    }

    /// The extents the dataset is read as: its own, or those it was
    /// [grown to](ArrayReader::grown_to).
    fn read_extents(&self) -> &[u64] {
        self.grown
            .as_ref()
            .map_or(&self.extents, |(extents, _)| extents)
    }

    /// Fills the front of `buf` with the next whole rows (a scalar is one
    /// row); returns how many. 0 only at the end.
    pub fn read_rows(&mut self, buf: &mut [u8]) -> Result<usize> {
        let total = self.read_extents().first().copied().unwrap_or(1);
        let row = self.row_bytes();
        if row == 0 {
            return Ok(0);
        }
        let rows = ((buf.len() / row) as u64).min(total - self.next_row) as usize;
        let out = &mut buf[..rows * row];
        match &self.grown {
            Some((extents, fill)) => read_rows_padded(
                &self.dataset,
                &self.memory_type,
                (&self.extents, extents),
                self.next_row,
                out,
                fill,
            ),
            None => read_rows(
                &self.dataset,
                &self.memory_type,
                &self.extents,
                self.next_row,
                out,
            ),
        }
        .map_err(hdf5_error(&self.path, &self.name))?;
        if let Some(time) = &self.time {
            cf::decode_counts(time, &mut buf[..rows * row], self.stored.byte_order).map_err(
                |(i, e)| Error::InvalidValue {
                    path: self.path.clone(),
                    dataset: self.name.clone(),
                    record: self.next_row + (i * 8 / row) as u64,
                    field: String::new(),
                    offset: i * 8 % row,
                    message: e.to_string(),
                },
            )?;
        }
        self.next_row += rows as u64;
        Ok(rows)
    }
}

/// How the counts of a dataset stored as `own` whose `ndl_datatype` is
/// `datatype` are decoded from the CF units they are stored in, where
/// those are not its own.
fn time_decoding(
    dataset: &hdf5::Dataset,
    dtype: &hdf5::Datatype,
    own: &Datatype,
    datatype: &Datatype,
) -> std::result::Result<Option<CfValues>, String> {
    // A time the file's own type says is one holds the field's counts.
    let (Datatype::Time(t), false) = (datatype, matches!(own, Datatype::Time(_))) else {
        return Ok(None);
    };
    match cf::stored_time(dataset, dtype, *t)? {
        (true, _) => Err("a time is stored as float counts, not ours".into()),
        (false, time) => Ok(time),
    }
}

/// Whether `dataset` is netCDF text: `char` over two or more dimensions,
/// the last each string's length, with dimension scales attached.
fn is_netcdf_text(dataset: &hdf5::Dataset, dtype: &hdf5::Datatype, shape: &[u64]) -> bool {
    shape.len() >= 2
        && hdf5::sync::sync(|| is_char(dtype.id()))
        && dataset
            .attr_names()
            .is_ok_and(|names| names.iter().any(|n| n == "DIMENSION_LIST"))
}

/// A new dataset of any rank, written from bytes: alone in a new file,
/// renamed into place by [`finish`](ArrayWriter::finish), or one of a
/// [`DocumentWriter`](crate::DocumentWriter)'s, which publishes its file.
pub struct ArrayWriter {
    /// Its own file, published by `finish`; `None` in a `DocumentWriter`'s.
    staged: Option<Staged>,
    /// The file's path, as errors name it.
    path: PathBuf,
    dataset: hdf5::Dataset,
    memory_type: hdf5::Datatype,
    shape: Vec<u64>,
    /// How time counts are scaled into their CF units, and their order.
    scale: Option<(CfEncoding, ByteOrder)>,
    /// For `U` values, stored as variable-length UTF-8: their characters
    /// and the order of their code units.
    utf32: Option<(usize, ByteOrder)>,
    next_row: u64,
    name: String,
    /// Whether the file is netCDF-4, whose text attributes are `char`.
    netcdf: bool,
}

impl ArrayWriter {
    /// Starts a new file at `path` with the dataset `dataset` of `shape`
    /// elements of `datatype`, written from elements in `byte_order`.
    /// A named datatype (compound, enum) is committed as `type_name`.
    /// NumPy's `U` strings, for which HDF5 has no type, are stored as
    /// variable-length UTF-8 strings (h5py's `string_dtype()`, netCDF-4's
    /// `string`), their padding dropped.
    pub fn create(
        path: impl AsRef<Path>,
        dataset: &str,
        datatype: &Datatype,
        byte_order: ByteOrder,
        shape: &[u64],
        type_name: &str,
        options: &WriteOptions,
    ) -> Result<ArrayWriter> {
        let staged = Staged::create(path.as_ref(), options.durable)?;
        let netcdf = options.is_netcdf(staged.path());
        let target = (staged.file(), staged.path(), netcdf);
        let element = (datatype, byte_order, shape);
        let mut writer = Self::create_in(
            target,
            &mut Dimensions::default(),
            dataset,
            element,
            type_name,
            options,
        )?;
        writer.staged = Some(staged);
        Ok(writer)
    }

    /// The dataset `dataset` (its groups made before) of `shape`
    /// elements of `datatype` written from `byte_order`, in `file` at
    /// `path` (netCDF-4's profile with `netcdf`), its dimensions among
    /// `dimensions`; see [`create`](Self::create).
    pub(crate) fn create_in(
        (file, path, netcdf): (&hdf5::File, &Path, bool),
        dimensions: &mut Dimensions,
        dataset: &str,
        (datatype, byte_order, shape): (&Datatype, ByteOrder, &[u64]),
        type_name: &str,
        options: &WriteOptions,
    ) -> Result<ArrayWriter> {
        let path = path.to_path_buf();
        let type_error = |source| Error::Type {
            path: path.clone(),
            dataset: dataset.to_string(),
            source,
        };
        let mut shape = shape.to_vec();
        // A dimension named as the dataset is would be netCDF's coordinate
        // variable, whose scale is the dataset itself; one named twice
        // (a matrix over `x`, `x`) would be one scale of two lengths.
        let base_name = leaf(dataset).to_string();
        // netCDF's coordinate variable: one dimension, named as itself.
        let coordinate = netcdf
            && shape.len() == 1
            && options.dimension_names.as_deref() == Some(std::slice::from_ref(&base_name));
        let usable = |names: &Vec<String>| {
            let distinct: std::collections::BTreeSet<&String> = names.iter().collect();
            names.len() == shape.len()
                && distinct.len() == names.len()
                && !distinct.contains(&base_name)
        };
        let mut names = options
            .dimension_names
            .clone()
            .filter(usable)
            .unwrap_or_else(|| dimension_names(shape.len()));
        // A dimension of the file of another length is another dimension:
        // this dataset's own.
        let group_path = format!("/{}", parent(dataset).trim_start_matches('/'));
        let clash = |(name, len): (&String, &u64)| {
            dimensions
                .length(&group_path, name)
                .is_some_and(|l| l != *len)
        };
        if names.iter().zip(&shape).any(clash) {
            names = names.iter().map(|n| format!("{base_name}_{n}")).collect();
        }
        let utf32 = utf32_length(datatype).map(|chars| (chars, byte_order));
        let (memory_type, file_type) = match datatype {
            Datatype::FixedString(_) if utf32.is_some() => {
                let text = variable_utf8().map_err(type_error)?;
                (text.clone(), text)
            }
            // A netCDF string is an array of `char` over a last dimension
            // of its length, as xarray writes it.
            Datatype::FixedString(s) if netcdf && s.charset == Charset::Ascii => {
                shape.push(s.length as u64);
                names.push(format!("string{}", s.length));
                let char_type = netcdf_char().map_err(type_error)?;
                (char_type.clone(), char_type)
            }
            // A netCDF time is its counts, with CF attributes.
            Datatype::Time(_) if netcdf => (
                profile_type(&Datatype::Int64, Orders::one(byte_order), true)
                    .map_err(type_error)?,
                profile_type(&Datatype::Int64, Orders::one(options.byte_order), true)
                    .map_err(type_error)?,
            ),
            _ => {
                let memory = Orders::mixed(byte_order, &options.other_order);
                let stored = Orders::mixed(options.byte_order, &options.other_order);
                let memory_type = profile_type(datatype, memory, netcdf).map_err(type_error)?;
                let named = if netcdf {
                    is_user_defined(datatype)
                } else {
                    matches!(datatype, Datatype::Compound(_) | Datatype::Enum(_))
                };
                let file_type = if named {
                    commit_type(
                        file,
                        well_known_name(datatype).unwrap_or(type_name),
                        datatype,
                        stored,
                        netcdf,
                    )
                } else {
                    profile_type(datatype, stored, netcdf)
                }
                .map_err(type_error)?;
                (memory_type, file_type)
            }
        };
        let size = file_type.size().max(1);
        let unlimited = options.unlimited_first && !shape.is_empty();
        let builder = match unlimited {
            true => options.extendable_builder(file, &file_type, size, &shape[1..]),
            false => options.fixed_builder(file, &file_type, size, &shape),
        };
        let fill = options.fill.as_ref().or(options.dataset_fill.as_ref());
        let builder = with_fill(builder, datatype, fill.map(Vec::as_slice)).map_err(type_error)?;
        let created = match unlimited {
            true => builder
                .create(dataset)
                .and_then(|d| d.resize(shape_of(&shape)).map(|()| d)),
            false => builder.create(dataset),
        }
        .map_err(hdf5_error(&path, dataset))?;
        if let Some(bytes) = &options.fill {
            let fill = ("_FillValue", datatype, &[][..]);
            typed_attribute::write(&created, fill, Elements::Bytes(bytes), netcdf)
                .map_err(|f| f.at(&path, &format!("{dataset}@_FillValue")))?;
        }
        crate::user_attributes::write(&created, &options.attributes)
            .map_err(hdf5_error(&path, dataset))?;
        let mut scale = None;
        if let (true, Datatype::Time(t)) = (netcdf, datatype) {
            let encoding = cf::time_attributes(&created, *t)
                .and_then(|e| cf::write_datatype(&created, datatype).map(|()| e))
                .map_err(hdf5_error(&path, dataset))?;
            scale = Some((encoding, byte_order)).filter(|(e, _)| e.factor() != 1);
        }
        if netcdf && !shape.is_empty() {
            let group = file
                .group(parent(dataset))
                .map_err(hdf5_error(&path, dataset))?;
            match coordinate {
                true => dimensions.coordinate(&group, &base_name, created.clone(), unlimited, true),
                false => dimensions.attach(&group, &created, &names, &shape, unlimited),
            }
            .map_err(hdf5_error(&path, dataset))?;
        }
        Ok(ArrayWriter {
            staged: None,
            path,
            dataset: created,
            memory_type,
            shape,
            scale,
            utf32,
            next_row: 0,
            name: dataset.to_string(),
            netcdf,
        })
    }

    /// Whether elements of `datatype` are stored as variable-length UTF-8
    /// strings: NumPy's `U`, which HDF5 has no type for.
    ///
    /// ```
    /// use ndl_runtime::{Charset, Datatype, FixedString};
    ///
    /// let u = Datatype::FixedString(FixedString { length: 3, charset: Charset::Utf32 });
    /// assert!(ndl_hdf5::ArrayWriter::writes_variable_text(&u));
    /// assert!(!ndl_hdf5::ArrayWriter::writes_variable_text(&Datatype::Float32));
    /// ```
    pub fn writes_variable_text(datatype: &Datatype) -> bool {
        utf32_length(datatype).is_some()
    }

    /// Writes the attribute `name` of the dataset, of `shape` elements of
    /// `datatype`, as [`DocumentWriter::attribute`](crate::DocumentWriter::attribute)
    /// does: typed as given, so that a copy keeps a source's `short`
    /// `valid_range` a `short`.
    ///
    /// ```
    /// use ndl_hdf5::{ArrayWriter, Elements, WriteOptions};
    /// use ndl_runtime::{ByteOrder, Datatype};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("t.nc");
    /// let mut w = ArrayWriter::create(&path, "t", &Datatype::Int16, ByteOrder::NATIVE, &[1],
    ///     "t_t", &WriteOptions::new())?;
    /// let range: Vec<u8> = [-100i16, 100].iter().flat_map(|v| v.to_ne_bytes()).collect();
    /// w.attribute("valid_range", &Datatype::Int16, &[2], Elements::Bytes(&range))?;
    /// w.write_rows(bytemuck::cast_slice(&[7i16]))?;
    /// w.finish()?;
    /// let file = hdf5::File::open(&path)?;
    /// let range = file.dataset("t")?.attr("valid_range")?.read_1d::<i16>()?;
    /// assert_eq!(range.to_vec(), [-100, 100]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn attribute(
        &self,
        name: &str,
        datatype: &Datatype,
        shape: &[u64],
        values: Elements<'_>,
    ) -> Result<()> {
        typed_attribute::write(&self.dataset, (name, datatype, shape), values, self.netcdf)
            .map_err(|f| f.at(&self.path, &format!("{}@{name}", self.name)))
    }

    /// Writes the attribute `name` of the dataset from a JSON value, as
    /// [`WriteOptions::attribute`](crate::WriteOptions::attribute) takes
    /// them: for a value that has no type of its own (a Zarr store's).
    ///
    /// ```
    /// use ndl_hdf5::{ArrayWriter, WriteOptions};
    /// use ndl_runtime::{ByteOrder, Datatype};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("t.h5");
    /// let w = ArrayWriter::create(&path, "t", &Datatype::Int8, ByteOrder::NATIVE, &[0],
    ///     "t_t", &WriteOptions::new())?;
    /// w.json_attribute("bbox", &serde_json::json!([0.5, 10.0]))?;
    /// w.finish()?;
    /// let file = hdf5::File::open(&path)?;
    /// assert_eq!(file.dataset("t")?.attr("bbox")?.read_1d::<f64>()?.to_vec(), [0.5, 10.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn json_attribute(&self, name: &str, value: &serde_json::Value) -> Result<()> {
        crate::user_attributes::write_one(&self.dataset, name, value)
            .map_err(hdf5_error(&self.path, &format!("{}@{name}", self.name)))
    }

    /// The bytes of one row: the elements after the first dimension.
    pub fn row_bytes(&self) -> usize {
        match self.utf32 {
            Some((chars, _)) => chars * 4 * row_elements(&self.shape),
            None => row_bytes(&self.memory_type, &self.shape),
        }
    }

    /// Writes the next whole rows.
    pub fn write_rows(&mut self, bytes: &[u8]) -> Result<()> {
        let row = self.row_bytes().max(1);
        let scaled;
        let bytes = match &self.scale {
            Some((encoding, order)) => {
                let mut counts = bytes.to_vec();
                encoding
                    .scale(&mut counts, *order)
                    .map_err(|u| Error::InvalidValue {
                        path: self.path.clone(),
                        dataset: self.name.clone(),
                        record: self.next_row + (u.index * 8 / row) as u64,
                        field: String::new(),
                        offset: u.index * 8 % row,
                        message: encoding.unscalable_message(u),
                    })?;
                scaled = counts;
                &scaled
            }
            None => bytes,
        };
        if let Some((chars, order)) = self.utf32 {
            return self.write_text_rows(bytes, chars, order);
        }
        write_rows(
            &self.dataset,
            &self.memory_type,
            &self.shape,
            self.next_row,
            bytes,
        )
        .map_err(hdf5_error(&self.path, &self.name))?;
        self.next_row += (bytes.len() / row) as u64;
        Ok(())
    }

    /// Writes whole rows of `U` values of `chars` characters in `order`
    /// as variable-length UTF-8 strings.
    fn write_text_rows(&mut self, bytes: &[u8], chars: usize, order: ByteOrder) -> Result<()> {
        let row = self.row_bytes().max(1);
        let strings = utf32_values::c_strings(bytes, chars, order).map_err(|bad| {
            let at = bad.element * chars * 4 + bad.offset;
            Error::InvalidValue {
                path: self.path.clone(),
                dataset: self.name.clone(),
                record: self.next_row + (at / row) as u64,
                field: String::new(),
                offset: at % row,
                message: bad.message,
            }
        })?;
        // HDF5 reads each string through its pointer during the write:
        // `strings` outlives it.
        let pointers = utf32_values::addresses(&strings);
        write_rows(
            &self.dataset,
            &self.memory_type,
            &self.shape,
            self.next_row,
            bytemuck::cast_slice(&pointers),
        )
        .map_err(hdf5_error(&self.path, &self.name))?;
        self.next_row += (bytes.len() / row) as u64;
        Ok(())
    }

    /// Closes the dataset, and its own file, which is renamed into place.
    pub fn finish(self) -> Result<()> {
        drop(self.dataset);
        match self.staged {
            Some(staged) => staged.publish(),
            None => Ok(()),
        }
    }
}

/// `shape` as HDF5's extents.
fn shape_of(shape: &[u64]) -> Vec<usize> {
    shape.iter().map(|&d| d as usize).collect()
}

/// The characters of NumPy's `U` values of `datatype`, if it is one.
fn utf32_length(datatype: &Datatype) -> Option<usize> {
    match datatype {
        Datatype::FixedString(s) if s.charset == Charset::Utf32 => Some(s.length),
        _ => None,
    }
}

/// The netCDF dimensions of a new array of `rank` dimensions: `record` for
/// a list of records, `dim_0`, `dim_1` ... (xarray's names) otherwise.
fn dimension_names(rank: usize) -> Vec<String> {
    if rank == 1 {
        return vec!["record".to_string()];
    }
    (0..rank).map(|k| format!("dim_{k}")).collect()
}

//! How a new dataset is stored: plain data, read by the writers.

use ndl_runtime::ByteOrder;
use ndl_runtime::codec::{Blosc, BloscCname, BloscShuffle};

/// About this many bytes of records per chunk of a new dataset, unless
/// [`WriteOptions::chunk`] says otherwise.
pub const CHUNK_BYTES: usize = 1 << 20;

/// The compression of each chunk, with the filters that stock h5py reads
/// without plugins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Codec {
    /// Stored as is.
    #[default]
    None,
    /// HDF5's deflate (zlib) at a level from 0 to 9.
    Deflate(u8),
    /// Blosc (HDF5 filter 32001) with its compressor (zstd, lz4, ...),
    /// level and shuffle: h5py reads it through the `hdf5plugin` package
    /// (`import hdf5plugin`), netCDF-C where `HDF5_PLUGIN_PATH` has it.
    Blosc(Blosc),
}

/// How [`DatasetWriter::create_with`](crate::DatasetWriter::create_with)
/// stores a new dataset.
///
/// ```
/// use ndl_hdf5::{Codec, WriteOptions};
/// use ndl_runtime::ByteOrder;
///
/// let options = WriteOptions::new().codec(Codec::Deflate(4)).shuffle(true).chunk(4096);
/// assert_eq!(options.chunk_records(24), 4096);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct WriteOptions {
    /// Each chunk's compression (default none).
    pub(crate) codec: Codec,
    /// Whether HDF5's byte shuffle runs before the codec (default off).
    pub(crate) shuffle: bool,
    /// Records per chunk; `None`: about [`CHUNK_BYTES`], or fewer when
    /// [`expected_len`](WriteOptions::expected_len) says the dataset holds fewer.
    pub(crate) chunk: Option<usize>,
    /// Elements per chunk along each dimension of an array, where given.
    pub(crate) chunk_shape: Option<Vec<u64>>,
    /// How many records the dataset will likely hold, for the chunk size.
    pub(crate) expected_len: Option<u64>,
    /// The byte order of the stored numbers (default native); reads
    /// convert them back.
    pub(crate) byte_order: ByteOrder,
    /// The byte ranges, within one element, of the numbers stored in the
    /// order opposite to `byte_order` (default none): a compound's members
    /// may each have their own, as NumPy's `[('a', '<u8'), ('b', '>f8')]`.
    /// An [`ArrayWriter`](crate::ArrayWriter) takes its elements with the
    /// same ranges in the opposite of its own order.
    pub(crate) other_order: Vec<std::ops::Range<usize>>,
    /// Whether the file is netCDF-4 (see [`netcdf`](WriteOptions::netcdf));
    /// `None` (the default): when its name ends in `.nc`.
    pub(crate) netcdf: Option<bool>,
    /// Whether a [`DatasetWriter`](crate::DatasetWriter) writes records
    /// holding an enum or a bool to a netCDF-4 file (default off: refused),
    /// which netCDF4-python and xarray skip (see
    /// [`netcdf4_python_skips`](crate::netcdf4_python_skips)).
    pub(crate) netcdf_enum_records: bool,
    /// Whether the file and its directory entry reach the disk before
    /// the writer returns.
    pub(crate) durable: bool,
    /// The user's attributes of the dataset (of the file, in the columns
    /// layout).
    pub(crate) attributes: serde_json::Map<String, serde_json::Value>,
    /// The names of an array's dimensions, where given.
    pub(crate) dimension_names: Option<Vec<String>>,
    /// Whether an array's first dimension grows without limit.
    pub(crate) unlimited_first: bool,
    /// An array's fill: one element of its number datatype, native order.
    pub(crate) fill: Option<Vec<u8>>,
    /// An array's dataset fill alone, without a `_FillValue` attribute.
    pub(crate) dataset_fill: Option<Vec<u8>>,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            codec: Codec::None,
            shuffle: false,
            chunk: None,
            chunk_shape: None,
            expected_len: None,
            byte_order: ByteOrder::NATIVE,
            other_order: Vec::new(),
            netcdf: None,
            netcdf_enum_records: false,
            durable: false,
            attributes: serde_json::Map::new(),
            dimension_names: None,
            unlimited_first: false,
            fill: None,
            dataset_fill: None,
        }
    }
}

impl WriteOptions {
    /// The defaults: uncompressed chunks of about a MiB, native order.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the codec.
    pub fn codec(mut self, codec: Codec) -> Self {
        self.codec = codec;
        self
    }

    /// Sets whether to shuffle bytes before the codec.
    pub fn shuffle(mut self, shuffle: bool) -> Self {
        self.shuffle = shuffle;
        self
    }

    /// Sets the records per chunk.
    pub fn chunk(mut self, records: usize) -> Self {
        self.chunk = Some(records.max(1));
        self
    }

    /// Elements per chunk along each dimension of an
    /// [`ArrayWriter`](crate::ArrayWriter)'s array (a source's chunks, as
    /// `nccopy` keeps them), each at most the dimension's extent; in
    /// place of [`chunk`](Self::chunk), and chunked even without a filter.
    /// A shape of another rank than the array's is not used.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("t.h5");
    /// let options = ndl_hdf5::WriteOptions::new().chunk_shape(vec![2, 3]);
    /// let mut w = ndl_hdf5::ArrayWriter::create(&path, "t", &ndl_runtime::Datatype::Int8,
    ///     ndl_runtime::ByteOrder::NATIVE, &[4, 5], "t_t", &options)?;
    /// w.write_rows(&[0u8; 20])?;
    /// w.finish()?;
    /// let file = hdf5::File::open(&path)?;
    /// assert_eq!(file.dataset("t")?.chunk(), Some(vec![2, 3]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn chunk_shape(mut self, extents: Vec<u64>) -> Self {
        self.chunk_shape = Some(extents);
        self
    }

    /// Says how many records the dataset will likely hold.
    pub fn expected_len(mut self, records: u64) -> Self {
        self.expected_len = Some(records);
        self
    }

    /// Sets the stored byte order.
    pub fn byte_order(mut self, order: ByteOrder) -> Self {
        self.byte_order = order;
        self
    }

    /// Stores the numbers in the byte ranges `other` of each element in
    /// the order opposite to [`byte_order`](WriteOptions::byte_order).
    ///
    /// ```
    /// use ndl_runtime::{ByteOrder, NdlType};
    ///
    /// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
    /// #[repr(C)]
    /// struct P {
    ///     a: u32,
    ///     b: f32,
    /// }
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("mixed.h5");
    /// let options = ndl_hdf5::WriteOptions::new()
    ///     .byte_order(ByteOrder::Little)
    ///     .mixed_byte_orders(vec![4..8]);
    /// let mut w = ndl_hdf5::DatasetWriter::<P>::create_with(&path, "p", &options)?;
    /// w.append(&[P { a: 1, b: 2.5 }])?;
    /// w.finish()?;
    /// let stored = ndl_hdf5::Inventory::of(&path)?.datasets[0].stored.clone();
    /// assert_eq!((stored.byte_order, stored.other_order), (ByteOrder::Little, vec![4..8]));
    /// assert_eq!(ndl_hdf5::read::<P>(&path, "p")?, [P { a: 1, b: 2.5 }]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mixed_byte_orders(mut self, other: Vec<std::ops::Range<usize>>) -> Self {
        self.other_order = other;
        self
    }

    /// Writes the netCDF-4 profile, which `ncdump`, netCDF4-python and
    /// xarray read: every dimension a named dimension scale (a dataset's
    /// first one `record`, unlimited when it grows), every user type
    /// committed, fixed strings inside records as arrays of netCDF
    /// `char`, and no 16-bit floats, which netCDF has no type for.
    pub fn netcdf(mut self, netcdf: bool) -> Self {
        self.netcdf = Some(netcdf);
        self
    }

    /// Writes records holding an enum or a bool to a netCDF-4 file all the
    /// same: `ncdump` and netCDF-C read them, netCDF4-python and xarray
    /// skip the variable. [`write_columns`](crate::write_columns) writes
    /// records they all read.
    pub fn netcdf_enum_records(mut self, allow: bool) -> Self {
        self.netcdf_enum_records = allow;
        self
    }

    /// Whether the data and the file's directory entry are flushed to the
    /// disk (`fsync`) before `finish` or a one-shot write returns: then a
    /// power loss, not only a crash, leaves the old file or the new one.
    /// Default: `false`, as h5py.
    pub fn durable(mut self, durable: bool) -> Self {
        self.durable = durable;
        self
    }

    /// Adds the attribute `name` to the new dataset (to the file's root
    /// group in the columns layout, where netCDF readers see it as a
    /// global attribute): a string is text (netCDF `char`), an integer an
    /// `int64`, another number a `double`, a bool an `int8`, a list of
    /// numbers or of strings an array of them; anything else is stored as
    /// its JSON text.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("t.h5");
    /// let options = ndl_hdf5::WriteOptions::new().attribute("units", "K".into());
    /// let mut w = ndl_hdf5::DatasetWriter::<f64>::create_with(&path, "t", &options)?;
    /// w.append(&[280.5])?;
    /// w.finish()?;
    /// let file = hdf5::File::open(&path)?;
    /// let units = file.dataset("t")?.attr("units")?.read_scalar::<hdf5::types::FixedAscii<1>>()?;
    /// assert_eq!(units.as_str(), "K");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn attribute(mut self, name: &str, value: serde_json::Value) -> Self {
        self.attributes.insert(name.to_string(), value);
        self
    }

    /// The value standing for none in an [`ArrayWriter`](crate::ArrayWriter)'s
    /// array of numbers: one element of its datatype, in native order. It
    /// is the dataset's fill (what an element never written reads as) and
    /// its `_FillValue` attribute, of the dataset's type, which netCDF
    /// readers, h5netcdf and xarray mask.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("t.nc");
    /// let options = ndl_hdf5::WriteOptions::new().fill((-1i16).to_ne_bytes().to_vec());
    /// let mut w = ndl_hdf5::ArrayWriter::create(&path, "t", &ndl_runtime::Datatype::Int16,
    ///     ndl_runtime::ByteOrder::NATIVE, &[2], "t_t", &options)?;
    /// w.write_rows(bytemuck::cast_slice(&[5i16, -1]))?;
    /// w.finish()?;
    /// let file = hdf5::File::open(&path)?;
    /// let fill = file.dataset("t")?.attr("_FillValue")?.read_scalar::<i16>()?;
    /// assert_eq!(fill, -1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fill(mut self, element: Vec<u8>) -> Self {
        self.fill = Some(element);
        self
    }

    /// The dataset fill alone of an [`ArrayWriter`](crate::ArrayWriter)'s
    /// array of numbers (h5py's `fillvalue`): what an element never
    /// written reads as, one element of its datatype in native order,
    /// without the `_FillValue` attribute [`fill`](Self::fill) adds, so
    /// that readers mask no value. A [`fill`](Self::fill) comes first.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("t.h5");
    /// let options = ndl_hdf5::WriteOptions::new().dataset_fill((-7i32).to_ne_bytes().to_vec());
    /// let w = ndl_hdf5::ArrayWriter::create(&path, "t", &ndl_runtime::Datatype::Int32,
    ///     ndl_runtime::ByteOrder::NATIVE, &[0], "t_t", &options)?;
    /// w.finish()?;
    /// let file = hdf5::File::open(&path)?;
    /// let t = file.dataset("t")?;
    /// assert_eq!(t.dcpl()?.fill_value_as::<i32>(), Some(-7));
    /// assert!(t.attr("_FillValue").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dataset_fill(mut self, element: Vec<u8>) -> Self {
        self.dataset_fill = Some(element);
        self
    }

    /// Names the dimensions of an [`ArrayWriter`](crate::ArrayWriter)'s
    /// array, one per axis (netCDF's dimensions, HDF5's dimension scales):
    /// `time`, `lat`, `lon` rather than `dim_0`, `dim_1`, `dim_2`. A
    /// one-dimensional dataset named as its dimension is netCDF's
    /// coordinate variable: that dimension's scale. Names of another
    /// number than the array has axes are not used, nor a name given
    /// twice, nor the dataset's own among several.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("t.nc");
    /// let options = ndl_hdf5::WriteOptions::new().dimension_names(vec!["y".into(), "x".into()]);
    /// let mut w = ndl_hdf5::ArrayWriter::create(&path, "t", &ndl_runtime::Datatype::Float32,
    ///     ndl_runtime::ByteOrder::NATIVE, &[2, 1], "t_t", &options)?;
    /// w.write_rows(&[0u8; 8])?;
    /// w.finish()?;
    /// let file = hdf5::File::open(&path)?;
    /// assert_eq!(file.dataset("y")?.shape(), vec![2]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dimension_names(mut self, names: Vec<String>) -> Self {
        self.dimension_names = Some(names);
        self
    }

    /// Makes an array's first dimension grow without limit (netCDF's
    /// unlimited dimension, `UNLIMITED` in `ncdump -h`; default: fixed):
    /// its dataset is chunked along it, whatever the codec.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("t.nc");
    /// let options = ndl_hdf5::WriteOptions::new()
    ///     .dimension_names(vec!["time".into()])
    ///     .unlimited_first(true);
    /// let mut w = ndl_hdf5::ArrayWriter::create(&path, "time", &ndl_runtime::Datatype::Float64,
    ///     ndl_runtime::ByteOrder::NATIVE, &[2], "time_t", &options)?;
    /// w.write_rows(bytemuck::cast_slice(&[0.0f64, 6.0]))?;
    /// w.finish()?;
    /// let time = hdf5::File::open(&path)?.dataset("time")?;
    /// assert!(time.is_resizable());
    /// assert_eq!(time.shape(), vec![2]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn unlimited_first(mut self, unlimited: bool) -> Self {
        self.unlimited_first = unlimited;
        self
    }

    /// Whether the netCDF-4 profile was asked for ([`netcdf`](Self::netcdf));
    /// `None` where the file's name decides.
    ///
    /// ```
    /// use ndl_hdf5::WriteOptions;
    ///
    /// assert_eq!(WriteOptions::new().netcdf_said(), None);
    /// assert_eq!(WriteOptions::new().netcdf(false).netcdf_said(), Some(false));
    /// ```
    pub fn netcdf_said(&self) -> Option<bool> {
        self.netcdf
    }

    /// Whether a file at `path` gets the netCDF-4 profile.
    pub fn is_netcdf(&self, path: &std::path::Path) -> bool {
        self.netcdf
            .unwrap_or_else(|| path.extension().is_some_and(|e| e == "nc"))
    }

    /// Records per chunk for records of `size` bytes.
    pub fn chunk_records(&self, size: usize) -> usize {
        let default = (CHUNK_BYTES / size.max(1)).max(1);
        let hinted = self
            .expected_len
            .map_or(default, |n| default.min(n.max(1) as usize));
        self.chunk.unwrap_or(hinted)
    }

    /// The builder of a new empty, extendable dataset of `file_type`.
    pub(crate) fn builder(
        &self,
        file: &hdf5::File,
        file_type: &hdf5::Datatype,
        size: usize,
    ) -> hdf5::DatasetBuilderEmptyShape {
        self.extendable_builder(file, file_type, size, &[])
    }

    /// [`builder`](Self::builder) for rows of `inner` values of `size`
    /// bytes each: extendable along the first dimension only.
    pub(crate) fn extendable_builder(
        &self,
        file: &hdf5::File,
        file_type: &hdf5::Datatype,
        size: usize,
        inner: &[u64],
    ) -> hdf5::DatasetBuilderEmptyShape {
        let inner: Vec<usize> = inner.iter().map(|&d| d as usize).collect();
        let row = inner.iter().product::<usize>().max(1) * size;
        let mut chunk = vec![self.chunk_records(row)];
        chunk.extend(&inner);
        if let Some(given) = self.chunk_shape_of(chunk.len()) {
            chunk[0] = given[0].max(1);
            for (c, (&g, &d)) in chunk[1..].iter_mut().zip(given[1..].iter().zip(&inner)) {
                *c = g.clamp(1, d.max(1));
            }
        }
        let mut extents = vec![hdf5::Extent::resizable(0)];
        extents.extend(inner.iter().map(|&d| hdf5::Extent::from(d)));
        let builder = file
            .new_dataset_builder()
            .empty_as(file_type)
            .chunk(chunk)
            .shape(extents)
            .create_intermediate_group(true);
        self.filtered(builder)
    }

    /// The chunk shape given, where it has `rank` dimensions.
    fn chunk_shape_of(&self, rank: usize) -> Option<Vec<usize>> {
        let given = self.chunk_shape.as_ref().filter(|c| c.len() == rank)?;
        Some(given.iter().map(|&c| c as usize).collect())
    }

    /// Whether chunks are stored as they are (no codec, no shuffle).
    pub(crate) fn is_unfiltered(&self) -> bool {
        self.codec == Codec::None && !self.shuffle
    }

    /// [`builder`](Self::builder) for records of a fixed size (HDF5
    /// refuses to leave unfilled a dataset of variable-length values).
    pub(crate) fn fixed_size_builder(
        &self,
        file: &hdf5::File,
        file_type: &hdf5::Datatype,
        size: usize,
    ) -> hdf5::DatasetBuilderEmptyShape {
        let builder = self.builder(file, file_type, size);
        if !self.is_unfiltered() {
            return builder;
        }
        // Unfiltered whole chunks then go from the caller's memory
        // straight to the file. HDF5 otherwise stages each new chunk in
        // its cache (ours, of about `CHUNK_BYTES`, fit its 1 MiB),
        // zero-filled first, and writes it from there: two more passes
        // over the data. Every record of the extent is written by us, so
        // no reader sees an unfilled element; only a dataset grown by
        // another tool without writing would show what the chunk's file
        // space held.
        builder
            .fill_time(hdf5::plist::dataset_create::FillTime::Never)
            .chunk_cache(0, 0, 1.0)
    }

    /// `builder` with the shuffle and the codec.
    fn filtered(
        &self,
        mut builder: hdf5::DatasetBuilderEmptyShape,
    ) -> hdf5::DatasetBuilderEmptyShape {
        if self.shuffle {
            builder = builder.shuffle();
        }
        match self.codec {
            Codec::None => builder,
            Codec::Deflate(level) => builder.deflate(level.min(9)),
            Codec::Blosc(b) => {
                use hdf5::filters::{Blosc as C, BloscShuffle as S};
                let compressor = match b.cname {
                    BloscCname::BloscLz => C::BloscLZ,
                    BloscCname::Lz4 => C::LZ4,
                    BloscCname::Lz4hc => C::LZ4HC,
                    BloscCname::Zlib => C::ZLib,
                    BloscCname::Zstd => C::ZStd,
                };
                let shuffle = match b.shuffle {
                    BloscShuffle::NoShuffle => S::None,
                    BloscShuffle::Shuffle => S::Byte,
                    BloscShuffle::BitShuffle => S::Bit,
                };
                builder.blosc(compressor, b.clevel.min(9), shuffle)
            }
        }
    }

    /// The builder of a new dataset of fixed `shape`: contiguous when
    /// nothing filters it, else chunked by rows of about [`CHUNK_BYTES`].
    pub(crate) fn fixed_builder(
        &self,
        file: &hdf5::File,
        file_type: &hdf5::Datatype,
        size: usize,
        shape: &[u64],
    ) -> hdf5::DatasetBuilderEmptyShape {
        let extents: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
        let filtered = self.shuffle || self.codec != Codec::None;
        let builder = file
            .new_dataset_builder()
            .empty_as(file_type)
            .shape(extents.clone())
            .create_intermediate_group(true);
        if extents.is_empty() || extents.contains(&0) {
            return builder;
        }
        if let Some(given) = self.chunk_shape_of(extents.len()) {
            let chunk: Vec<usize> = given
                .iter()
                .zip(&extents)
                .map(|(&g, &d)| g.clamp(1, d))
                .collect();
            return self.filtered(builder.chunk(chunk));
        }
        if !filtered {
            return builder;
        }
        let row: usize = extents[1..].iter().product::<usize>().max(1) * size.max(1);
        let mut chunk = extents.clone();
        chunk[0] = self
            .chunk
            .unwrap_or((CHUNK_BYTES / row).max(1))
            .min(extents[0]);
        self.filtered(builder.chunk(chunk))
    }
}

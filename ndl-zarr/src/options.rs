//! How a store is written: Zarr format, layout, chunking, codec, byte order.

use std::ops::Range;

use ndl_runtime::ByteOrder;
use ndl_runtime::lang::zarr::{Codec, ZarrFormat};
use ndl_runtime::ndl::Storage;
use serde_json::Value;

use crate::chunk_shape::{self, default_chunk_shape};
use crate::error::{Error, Result};

/// How records are laid out in a store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Layout {
    /// One array of records.
    #[default]
    Records,
    /// One array per leaf field, in a group (xarray's and netCDF's view).
    Columns,
}

/// How to write a store (see the [crate docs](crate)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteOptions {
    pub(crate) format: ZarrFormat,
    pub(crate) layout: Layout,
    pub(crate) chunk_len: Option<u64>,
    pub(crate) chunks: Option<Vec<u64>>,
    pub(crate) shard_len: Option<u64>,
    /// The codec given; `None` for the default ([`WriteOptions::effective_codec`]).
    pub(crate) codec: Option<Codec>,
    pub(crate) byte_order: Option<ByteOrder>,
    pub(crate) other_order: Vec<Range<usize>>,
    pub(crate) legacy_structured: bool,
    pub(crate) dimension: Option<String>,
    pub(crate) dimension_names: Option<Vec<String>>,
    pub(crate) chars_as_u1: bool,
    pub(crate) expected_len: Option<u64>,
    pub(crate) publish_on_finish: bool,
    pub(crate) durable: bool,
    /// The user's attributes of the array (of the group, in the columns
    /// layout).
    pub(crate) attributes: serde_json::Map<String, serde_json::Value>,
    /// The array's `fill_value`, where given.
    pub(crate) fill_value: Option<serde_json::Value>,
}

impl WriteOptions {
    /// Zarr v3, one array of records, zstd level 3, little-endian, chunks
    /// of about 2 MiB.
    pub fn new() -> WriteOptions {
        WriteOptions::default()
    }

    /// The Zarr format (default v3).
    pub fn zarr_format(mut self, format: ZarrFormat) -> WriteOptions {
        self.format = format;
        self
    }

    /// The Zarr format written.
    ///
    /// ```
    /// use ndl_zarr::{WriteOptions, ZarrFormat};
    /// assert_eq!(WriteOptions::new().format(), ZarrFormat::V3);
    /// ```
    pub fn format(&self) -> ZarrFormat {
        self.format
    }

    /// One array of records (default) or one array per field.
    pub fn layout(mut self, layout: Layout) -> WriteOptions {
        self.layout = layout;
        self
    }

    /// Adds the attribute `name` to the new array (v3 `attributes`, v2
    /// `.zattrs`), or to its group in the columns layout, where xarray
    /// reads it as the dataset's. The names the store writes itself
    /// (`ndl_datatype`, `_ARRAY_DIMENSIONS`) win over these.
    ///
    /// ```
    /// use ndl_zarr::{ArrayInfo, WriteOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("t.zarr");
    /// WriteOptions::new().attribute("units", "K".into()).write(&path, &[280.5f64])?;
    /// assert_eq!(ArrayInfo::open(&path)?.attributes()["units"], "K");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn attribute(mut self, name: &str, value: serde_json::Value) -> WriteOptions {
        self.attributes.insert(name.to_string(), value);
        self
    }

    /// Records per chunk (default: about 2 MiB of packed records).
    pub fn chunk_len(mut self, records: u64) -> WriteOptions {
        self.chunk_len = Some(records);
        self
    }

    /// The chunk shape, one extent per dimension of the array (default:
    /// [`default_chunk_shape`](crate::default_chunk_shape)). For a
    /// one-dimensional array, `[n]` is [`chunk_len(n)`](WriteOptions::chunk_len).
    ///
    /// ```
    /// use ndl_runtime::{Datatype, Order};
    /// use ndl_zarr::{GridWriter, WriteOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let (a, b) = (dir.path().join("a.zarr"), dir.path().join("b.zarr"));
    /// let options = WriteOptions::new().chunks(&[2, 2]);
    /// let w = GridWriter::create_with(&a, &Datatype::Int8, &[4, 4], Order::C, &options)?;
    /// assert_eq!(w.chunk_shape(), [2, 2]);
    /// let e = GridWriter::create_with(&b, &Datatype::Int8, &[4], Order::C, &options);
    /// assert!(e.unwrap_err().to_string().contains("2 dimensions"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn chunks(mut self, extents: &[u64]) -> WriteOptions {
        self.chunks = Some(extents.to_vec());
        self
    }

    /// These options for an array of `rank` dimensions: a chunk shape given
    /// of another rank is dropped for the default rule, as a copy of a
    /// whole group chunks the arrays of the rank given so and the others
    /// (1-dimensional coordinates beside a 3-dimensional variable) by
    /// default.
    ///
    /// ```
    /// use ndl_runtime::{Datatype, Order};
    /// use ndl_zarr::{GridWriter, WriteOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let options = WriteOptions::new().chunks(&[2, 2]);
    /// let path = dir.path().join("a.zarr");
    /// let w = GridWriter::create_with(&path, &Datatype::Int8, &[4], Order::C,
    ///     &options.clone().chunks_for_rank(1))?;
    /// assert_eq!(w.chunk_shape(), [4]);
    /// let path = dir.path().join("b.zarr");
    /// let w = GridWriter::create_with(&path, &Datatype::Int8, &[4, 4], Order::C,
    ///     &options.chunks_for_rank(2))?;
    /// assert_eq!(w.chunk_shape(), [2, 2]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn chunks_for_rank(mut self, rank: usize) -> WriteOptions {
        if self.chunks.as_ref().is_some_and(|c| c.len() != rank) {
            self.chunks = None;
        }
        self
    }

    /// The chunk shape of a new array of `shape` elements of `element`
    /// packed bytes: the one given, checked, else the default rule.
    pub(crate) fn chunk_shape_for(&self, shape: &[u64], element: usize) -> Result<Vec<u64>> {
        let given = match (&self.chunks, self.chunk_len) {
            (Some(chunks), _) => Some(chunks.clone()),
            (None, Some(n)) if shape.len() == 1 => Some(vec![n]),
            _ => None,
        };
        let Some(chunks) = given else {
            return Ok(default_chunk_shape(shape, element));
        };
        chunk_shape::check(shape, &chunks).map_err(|message| Error::Unsupported { message })?;
        Ok(chunks)
    }

    /// Zarr v3 sharding: `records` per shard (one stored object), a
    /// multiple of the chunk length; chunks stay the unit of compression.
    pub fn shard_len(mut self, records: u64) -> WriteOptions {
        self.shard_len = Some(records);
        self
    }

    /// The compression of each chunk (default zstd level 3; none for the
    /// columns layout in Zarr v2, which is written for netCDF-C: Debian's
    /// ncdump 4.9 prints the compressed bytes of any compressor as data).
    pub fn codec(mut self, codec: Codec) -> WriteOptions {
        self.codec = Some(codec);
        self
    }

    /// The codec chunks are written with: the one given, else the
    /// default of the format and layout (see [`codec`](Self::codec)).
    pub(crate) fn effective_codec(&self) -> Codec {
        match (self.codec, self.layout, self.format) {
            (Some(codec), _, _) => codec,
            (None, Layout::Columns, ZarrFormat::V2) => Codec::None,
            (None, _, _) => Codec::default(),
        }
    }

    /// The byte order of numbers in the store (default little).
    pub fn byte_order(mut self, order: ByteOrder) -> WriteOptions {
        self.byte_order = Some(order);
        self
    }

    /// Stores the numbers in the byte ranges `other` of each packed record
    /// in the order opposite to [`byte_order`](WriteOptions::byte_order),
    /// as NumPy lets each field have its own (`[('a', '<u8'), ('b',
    /// '>f8')]`): Zarr v2 only, whose `dtype` says each field's order.
    /// Records are given and read back in native order all the same.
    ///
    /// ```
    /// use ndl_zarr::{WriteOptions, ZarrFormat};
    ///
    /// #[derive(Clone, Copy, Debug, PartialEq, ndl_runtime::NdlType)]
    /// #[repr(C)]
    /// struct P {
    ///     a: u32,
    ///     b: f32,
    /// }
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("mixed.zarr");
    /// let v2 = WriteOptions::new().zarr_format(ZarrFormat::V2);
    /// assert!(v2.keeps_mixed_byte_orders());
    /// let p = [P { a: 1, b: 2.5 }];
    /// v2.mixed_byte_orders(vec![4..8]).write(&path, &p)?;
    /// let zarray: serde_json::Value = serde_json::from_slice(&std::fs::read(path.join(".zarray"))?)?;
    /// assert_eq!(zarray["dtype"], serde_json::json!([["a", "<u4"], ["b", ">f4"]]));
    /// assert_eq!(ndl_zarr::read::<P>(&path)?, p);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mixed_byte_orders(mut self, other: Vec<Range<usize>>) -> WriteOptions {
        self.other_order = other;
        self
    }

    /// Whether a store written with these options can keep each field of a
    /// record in its own byte order: Zarr v2's records layout.
    pub fn keeps_mixed_byte_orders(&self) -> bool {
        self.writes_v2_records()
    }

    /// Whether these options write Zarr v2's records layout: the only one
    /// with subarray fields, which zarr-python 3 cannot read.
    pub fn writes_v2_records(&self) -> bool {
        self.format == ZarrFormat::V2 && self.layout == Layout::Records
    }

    /// The name of the record dimension (`dimension_names` in v3,
    /// `_ARRAY_DIMENSIONS` in v2), which xarray needs. Default: the store's
    /// directory name without its extension (`readings` for `readings.zarr`).
    pub fn dimension(mut self, name: impl Into<String>) -> WriteOptions {
        self.dimension = Some(name.into());
        self
    }

    /// Names the dimensions of an array of any rank, one per axis
    /// (`dimension_names` in v3, `_ARRAY_DIMENSIONS` in v2): `time`,
    /// `lat`, `lon` rather than `<store>_dim0`... Names of another number
    /// than the array has axes are not used.
    ///
    /// ```
    /// use ndl_zarr::WriteOptions;
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("grid.zarr");
    /// let options = WriteOptions::new().dimension_names(vec!["y".into(), "x".into()]);
    /// ndl_zarr::write_ndarray(&path, &ndarray::array![[1.5f32], [2.5]], &options)?;
    /// let meta = std::fs::read_to_string(path.join("zarr.json"))?;
    /// assert!(meta.contains("\"y\""), "{meta}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dimension_names(mut self, names: Vec<String>) -> WriteOptions {
        self.dimension_names = Some(names);
        self
    }

    /// The `fill_value` of an array of numbers, as Zarr's JSON holds it
    /// (`-32767`, `"NaN"`), in place of zero: what an element never
    /// written reads as, and, in a v2 array with named dimensions, what
    /// xarray masks as missing (its `_FillValue`). An array of records
    /// takes none.
    ///
    /// ```
    /// use ndl_zarr::{ArrayInfo, WriteOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("t.zarr");
    /// WriteOptions::new().fill_value((-1).into()).write(&path, &[5i16, -1])?;
    /// assert_eq!(ArrayInfo::open(&path)?.metadata()["fill_value"], -1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fill_value(mut self, fill: serde_json::Value) -> WriteOptions {
        self.fill_value = Some(fill);
        self
    }

    /// The number of records the store will hold, when known before
    /// writing: default chunks are then no longer than the array (netCDF-C
    /// 4.9 fails to open a store whose chunks are longer than their
    /// dimension). [`write`](WriteOptions::write) sets it itself.
    pub fn expected_len(mut self, records: u64) -> WriteOptions {
        self.expected_len = Some(records);
        self
    }

    /// Whether a store that [`ArrayWriter::create_with`](crate::ArrayWriter::create_with) or
    /// [`PackedWriter::create_with`](crate::PackedWriter::create_with) makes appears only
    /// once its writer's `finish` succeeds (default: no, it appears at once,
    /// empty, and grows with each `finish`).
    ///
    /// A local store is then built in a hidden directory beside its place
    /// (`.NAME.PID.N.partial`; missing parent directories are made) and
    /// renamed into it by `finish`: readers see no store or a complete one,
    /// and a writer that fails or is dropped removes what it built. The
    /// writer holds a lock (`flock`) on that directory, which the kernel
    /// releases however the process ends: the next publishing writer of
    /// that name removes directories whose lock it can take, the leftovers
    /// of crashed writers. `finish` refuses to publish a directory that was
    /// removed during the write. Object storage has no
    /// rename: there the store is written in place, its metadata last, by
    /// `finish`; until then readers find no array. (Any writer creating a
    /// store there holds the lock object `.ndl-append.lock`, a conditional
    /// PUT, until `finish`; one left by a crashed process is stale once
    /// its lease expires, and [`break_stale_lock`](crate::break_stale_lock)
    /// removes it, as an appender's.) [`write`](WriteOptions::write) always
    /// works so, and so does every writer of a new zip store (a name
    /// ending in `.zip`, `obs.zarr.zip`): it is built aside, then packed
    /// into its place as zarr-python's `ZipStore` writes one.
    ///
    /// ```
    /// use ndl_zarr::{ArrayWriter, WriteOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("s.zarr");
    /// let options = WriteOptions::new().publish_on_finish(true);
    /// let mut w = ArrayWriter::<u32>::create_with(&path, &options)?;
    /// w.append(&[1, 2, 3])?;
    /// assert!(!path.exists());
    /// w.finish()?;
    /// assert_eq!(ndl_zarr::read::<u32>(&path)?, [1, 2, 3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn publish_on_finish(mut self, publish: bool) -> WriteOptions {
        self.publish_on_finish = publish;
        self
    }

    /// Whether a local store survives a power loss once its writer's
    /// `finish` has returned (default: no; the operating system writes
    /// files to the disk in its own time, and a power loss may lose or
    /// empty files written seconds before).
    ///
    /// Each object is then flushed to the disk (`fsync`) before it is
    /// renamed into place, and its directory after; a store published on
    /// `finish` has its directories flushed before its rename and its
    /// parent directory after. That costs a disk flush per chunk. Object
    /// storage needs none of this: an object is durable once its PUT
    /// succeeds, and this option changes nothing there.
    ///
    /// ```
    /// use ndl_zarr::WriteOptions;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("s.zarr");
    /// WriteOptions::new().durable(true).write(&path, &[1u32, 2, 3])?;
    /// assert_eq!(ndl_zarr::read::<u32>(&path)?, [1, 2, 3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn durable(mut self, durable: bool) -> WriteOptions {
        self.durable = durable;
        self
    }

    /// The columns layout: store fixed strings as `|u1` arrays of shape
    /// `(n, length)` rather than `|S1` (the netCDF character convention).
    /// Debian's ncdump 4.9 crashes on any `S` dtype; xarray then reads
    /// numbers, not strings.
    pub fn chars_as_u1(mut self, u1: bool) -> WriteOptions {
        self.chars_as_u1 = u1;
        self
    }

    /// Zarr v3 only: name the data type `structured`, with fields as
    /// `[name, data_type]` pairs and a base64 fill value, the legacy form
    /// zarr-python 3.1 reads (it cannot read `struct`). The zarr-extensions
    /// spec says `structured` may be read but not written: use it only for
    /// readers that need it.
    pub fn legacy_structured(mut self, legacy: bool) -> WriteOptions {
        self.legacy_structured = legacy;
        self
    }

    /// The options that write a store with the layout of an NDL ndarray's
    /// `storage` directives: `chunk` (one extent: the chunk length; more:
    /// the [`chunks`](WriteOptions::chunks) of an array of that rank),
    /// `filter` (the codec, as `ndl describe` prints it) and `endian`.
    ///
    /// ```
    /// use ndl_runtime::ndl::Storage;
    /// use ndl_runtime::ByteOrder;
    /// use ndl_zarr::{Codec, WriteOptions};
    ///
    /// let storage = Storage {
    ///     chunk: Some(vec![1000]),
    ///     endian: Some(ByteOrder::Big),
    ///     ..Storage::default()
    /// };
    /// let options = WriteOptions::from_storage(&storage)?;
    /// assert_eq!(options, WriteOptions::new().chunk_len(1000).byte_order(ByteOrder::Big).codec(Codec::None));
    /// # Ok::<(), ndl_zarr::Error>(())
    /// ```
    pub fn from_storage(storage: &Storage) -> Result<WriteOptions> {
        let mut options = WriteOptions::new();
        match storage.chunk.as_deref() {
            Some(&[n]) => options.chunk_len = Some(n as u64),
            Some(extents) => options.chunks = Some(extents.iter().map(|&n| n as u64).collect()),
            None => {}
        }
        let filter = storage.filter.clone().unwrap_or_default();
        let codecs: Vec<Value> = filter
            .iter()
            .map(serde_json::to_value)
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| Error::Unsupported {
                message: format!("filter: {e}"),
            })?;
        options.codec = Some(Codec::from_v3_codecs(&codecs).ok_or_else(|| Error::Unsupported {
            message: format!(
                "filter {}: only none, or one zstd, gzip, numcodecs.zlib, numcodecs.bz2, numcodecs.lz4, crc32c or blosc codec, can be written",
                Value::Array(codecs.clone())
            ),
        })?);
        options.byte_order = storage.endian;
        Ok(options)
    }

    pub(crate) fn order(&self) -> ByteOrder {
        self.byte_order.unwrap_or(ByteOrder::Little)
    }

    /// The chunk length for records of `record` packed bytes.
    pub(crate) fn chunk_len_for(&self, record: usize) -> Result<u64> {
        let default = || {
            let len = self.expected_len.unwrap_or(u64::MAX);
            default_chunk_shape(&[len], record)[0]
        };
        let given = match self.chunks.as_deref() {
            Some(&[n]) => Some(n),
            Some(other) => {
                return Err(Error::Unsupported {
                    message: format!(
                        "chunks {other:?} have {} dimensions, but a records array has 1",
                        other.len()
                    ),
                });
            }
            None => self.chunk_len,
        };
        let len = given.unwrap_or_else(default);
        if len == 0 {
            return Err(Error::Unsupported {
                message: "a chunk must hold at least one record".into(),
            });
        }
        Ok(len)
    }
}

/// How to read records: exactly as `T` (the default), or by field name.
///
/// ```
/// use ndl_runtime::NdlType;
/// use ndl_zarr::{ReadOptions, WriteOptions};
///
/// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
/// #[repr(C)]
/// struct Full { id: u32, x: f32, y: f32 }
///
/// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
/// #[repr(C)]
/// struct Ys { y: f32, id: u32 }
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("full.zarr");
/// WriteOptions::new().write(&path, &[Full { id: 7, x: 1.0, y: 2.0 }])?;
/// assert!(ndl_zarr::read::<Ys>(&path).is_err()); // not the stored fields
/// let ys = ReadOptions::new().by_name(true).read::<Ys>(&path)?;
/// assert_eq!(ys, [Ys { y: 2.0, id: 7 }]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    pub(crate) by_name: bool,
}

impl ReadOptions {
    /// Exact reads: the stored records must be `T`'s fields, in order.
    pub fn new() -> ReadOptions {
        ReadOptions::default()
    }

    /// Whether `T`'s fields are matched to the stored fields by name
    /// (nested too): `T` may hold some of them, in any order. Stored fields
    /// `T` lacks are skipped; a field of `T` that is not stored, or is
    /// stored with another type, is an error naming it. Bools and enums
    /// are checked as in exact reads.
    ///
    /// A columns store is always read by name: only the columns of `T`'s
    /// fields are read.
    pub fn by_name(mut self, by_name: bool) -> ReadOptions {
        self.by_name = by_name;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_chunks_hold_about_2_mib_and_no_more_than_the_array() {
        let options = WriteOptions::new();
        assert_eq!(options.chunk_len_for(16).unwrap(), (2 << 20) / 16);
        assert_eq!(options.chunk_len_for(0).unwrap(), 2 << 20);
        assert_eq!(options.chunk_len_for(8 << 20).unwrap(), 1);
        let short = WriteOptions::new().expected_len(10);
        assert_eq!(short.chunk_len_for(16).unwrap(), 10);
        assert_eq!(
            WriteOptions::new()
                .expected_len(0)
                .chunk_len_for(16)
                .unwrap(),
            1
        );
        assert_eq!(short.chunk_len(100).chunk_len_for(16).unwrap(), 100);
        let e = WriteOptions::new()
            .chunk_len(0)
            .chunk_len_for(16)
            .unwrap_err();
        assert!(e.to_string().contains("at least one record"), "{e}");
    }

    #[test]
    fn storage_directives_are_written_or_refused() {
        let chunked = Storage {
            chunk: Some(vec![10, 2]),
            ..Storage::default()
        };
        let options = WriteOptions::from_storage(&chunked).unwrap();
        assert_eq!(options.chunks, Some(vec![10, 2]));
        let e = options.chunk_len_for(8).unwrap_err();
        assert!(e.to_string().contains("a records array has 1"), "{e}");
        assert_eq!(options.chunk_shape_for(&[30, 4], 8).unwrap(), [10, 2]);
        let lz4: serde_yaml::Value = serde_yaml::from_str("{name: numcodecs.lzma}").unwrap();
        let filtered = Storage {
            filter: Some(vec![lz4]),
            ..Storage::default()
        };
        let e = WriteOptions::from_storage(&filtered).unwrap_err();
        assert!(e.to_string().contains("only none, or one zstd"), "{e}");
        assert!(e.to_string().contains("numcodecs.lzma"), "{e}");
        let zlib: serde_yaml::Value =
            serde_yaml::from_str("{name: numcodecs.zlib, configuration: {level: 2}}").unwrap();
        let zlib = Storage {
            filter: Some(vec![zlib]),
            ..Storage::default()
        };
        assert_eq!(
            WriteOptions::from_storage(&zlib).unwrap().codec,
            Some(Codec::Zlib(2))
        );
    }
}

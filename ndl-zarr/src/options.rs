//! How a store is written: Zarr format, layout, chunking, codec, byte order.

use ndl_runtime::ndl::Storage;
use ndl_runtime::ByteOrder;
use serde_json::{json, Value};

use crate::error::{Error, Result};

/// The Zarr format version of a store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ZarrFormat {
    /// Zarr v2: `.zarray`, the records' dtype as NumPy's field list.
    V2,
    /// Zarr v3: `zarr.json`, the records' data type as `struct`.
    #[default]
    V3,
}

/// How records are laid out in a store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Layout {
    /// One array of records.
    #[default]
    Records,
    /// One array per leaf field, in a group (xarray's and netCDF's view).
    Columns,
}

/// The compression of each chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Codec {
    /// No compression.
    None,
    /// Zstandard at a level (1 to 22; negative levels are faster).
    Zstd(i32),
    /// Blosc with LZ4 at a level (0 to 9), with a byte shuffle whose element
    /// is the whole packed record, so byte `k` of every record is stored
    /// together.
    Blosc(u8),
    /// gzip at a level (0 to 9).
    Gzip(u32),
    /// zlib at a level (0 to 9): numcodecs' `zlib` (v3 `numcodecs.zlib`),
    /// the deflate that netCDF-C reads from Zarr v2 (it fails on gzip).
    Zlib(u32),
}

impl Default for Codec {
    /// zstd at level 3, zstd's own default.
    fn default() -> Codec {
        Codec::Zstd(3)
    }
}

impl std::str::FromStr for Codec {
    type Err = String;

    /// `none`, `zstd`, `zstd:LEVEL`, `blosc`, `blosc:LEVEL`, `gzip`,
    /// `gzip:LEVEL`, `zlib`, `zlib:LEVEL`.
    ///
    /// ```
    /// use ndl_zarr::Codec;
    /// assert_eq!("zstd:7".parse(), Ok(Codec::Zstd(7)));
    /// assert_eq!("gzip".parse(), Ok(Codec::Gzip(6)));
    /// assert_eq!("zlib:1".parse(), Ok(Codec::Zlib(1)));
    /// assert!("lzma".parse::<Codec>().is_err());
    /// ```
    fn from_str(s: &str) -> std::result::Result<Codec, String> {
        let (name, level) = match s.split_once(':') {
            Some((n, l)) => (n, Some(l)),
            None => (s, None),
        };
        let parse_level = |default: i64,
                           range: std::ops::RangeInclusive<i64>|
         -> std::result::Result<i64, String> {
            let Some(l) = level else { return Ok(default) };
            l.parse::<i64>()
                .ok()
                .filter(|l| range.contains(l))
                .ok_or_else(|| {
                    format!(
                        "{name} level `{l}` is not in {}..={}",
                        range.start(),
                        range.end()
                    )
                })
        };
        match name {
            "none" if level.is_none() => Ok(Codec::None),
            "zstd" => Ok(Codec::Zstd(parse_level(3, -131_072..=22)? as i32)),
            "blosc" => Ok(Codec::Blosc(parse_level(5, 0..=9)? as u8)),
            "gzip" => Ok(Codec::Gzip(parse_level(6, 0..=9)? as u32)),
            "zlib" => Ok(Codec::Zlib(parse_level(6, 0..=9)? as u32)),
            _ => Err(format!(
                "unknown codec `{s}`: use none, zstd[:LEVEL], blosc[:LEVEL], gzip[:LEVEL] or zlib[:LEVEL]"
            )),
        }
    }
}

impl Codec {
    /// The Zarr v3 bytes-to-bytes codecs (empty for none). `record` is the
    /// packed record size, blosc's shuffle element.
    pub(crate) fn v3(self, record: usize) -> Vec<Value> {
        match self {
            Codec::None => vec![],
            Codec::Zstd(level) => {
                vec![json!({"name": "zstd", "configuration": {"level": level, "checksum": false}})]
            }
            Codec::Blosc(level) => vec![json!({"name": "blosc", "configuration": {
                "cname": "lz4", "clevel": level, "shuffle": "shuffle", "typesize": record, "blocksize": 0
            }})],
            Codec::Gzip(level) => vec![json!({"name": "gzip", "configuration": {"level": level}})],
            Codec::Zlib(level) => {
                vec![json!({"name": "numcodecs.zlib", "configuration": {"level": level}})]
            }
        }
    }

    /// The Zarr v2 `compressor` (numcodecs' form); blosc's shuffle takes
    /// the dtype's item size, the packed record.
    pub(crate) fn v2(self) -> Value {
        match self {
            Codec::None => Value::Null,
            Codec::Zstd(level) => json!({"id": "zstd", "level": level}),
            Codec::Blosc(level) => {
                json!({"id": "blosc", "cname": "lz4", "clevel": level, "shuffle": 1, "blocksize": 0})
            }
            Codec::Gzip(level) => json!({"id": "gzip", "level": level}),
            Codec::Zlib(level) => json!({"id": "zlib", "level": level}),
        }
    }

    /// The codec that a v3 bytes-to-bytes codec list describes, if it is
    /// one this crate writes exactly so (every setting as [`Codec::v3`]
    /// writes it, blosc's `typesize` aside, which is the record's).
    pub(crate) fn from_v3(codecs: &[Value]) -> Option<Codec> {
        let [c] = codecs else {
            return codecs.is_empty().then_some(Codec::None);
        };
        let config = c.get("configuration")?.as_object()?;
        let level = config.get("level").and_then(Value::as_i64);
        let codec = match c.get("name")?.as_str()? {
            "zstd" => Codec::Zstd(i32::try_from(level?).ok()?),
            "gzip" => Codec::Gzip(u32::try_from(level?).ok()?),
            "numcodecs.zlib" => Codec::Zlib(u32::try_from(level?).ok()?),
            "blosc" => Codec::Blosc(u8::try_from(config.get("clevel")?.as_u64()?).ok()?),
            _ => return None,
        };
        let record = config.get("typesize").and_then(Value::as_u64).unwrap_or(0) as usize;
        let mut written = codec.v3(record).pop()?;
        let written = written.get_mut("configuration")?.as_object_mut()?;
        if !config.contains_key("typesize") {
            written.remove("typesize");
        }
        (written == config).then_some(codec)
    }
}

/// How to write a store (see the [crate docs](crate)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteOptions {
    pub(crate) format: ZarrFormat,
    pub(crate) layout: Layout,
    pub(crate) chunk_len: Option<u64>,
    pub(crate) shard_len: Option<u64>,
    pub(crate) codec: Codec,
    pub(crate) byte_order: Option<ByteOrder>,
    pub(crate) legacy_structured: bool,
    pub(crate) dimension: Option<String>,
    pub(crate) chars_as_u1: bool,
    pub(crate) expected_len: Option<u64>,
    pub(crate) publish_on_finish: bool,
}

/// About 2 MiB of packed records per chunk when no length is given.
const DEFAULT_CHUNK_BYTES: u64 = 2 << 20;

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

    /// One array of records (default) or one array per field.
    pub fn layout(mut self, layout: Layout) -> WriteOptions {
        self.layout = layout;
        self
    }

    /// Records per chunk (default: about 2 MiB of packed records).
    pub fn chunk_len(mut self, records: u64) -> WriteOptions {
        self.chunk_len = Some(records);
        self
    }

    /// Zarr v3 sharding: `records` per shard (one stored object), a
    /// multiple of the chunk length; chunks stay the unit of compression.
    pub fn shard_len(mut self, records: u64) -> WriteOptions {
        self.shard_len = Some(records);
        self
    }

    /// The compression of each chunk (default zstd level 3).
    pub fn codec(mut self, codec: Codec) -> WriteOptions {
        self.codec = codec;
        self
    }

    /// The byte order of numbers in the store (default little).
    pub fn byte_order(mut self, order: ByteOrder) -> WriteOptions {
        self.byte_order = Some(order);
        self
    }

    /// The name of the record dimension (`dimension_names` in v3,
    /// `_ARRAY_DIMENSIONS` in v2), which xarray needs. Default: the store's
    /// directory name without its extension (`readings` for `readings.zarr`).
    pub fn dimension(mut self, name: impl Into<String>) -> WriteOptions {
        self.dimension = Some(name.into());
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

    /// Whether a store that [`create`](WriteOptions::create) or
    /// [`create_packed`](WriteOptions::create_packed) makes appears only
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
    /// PUT, until `finish`; one left by a crashed process must be removed
    /// by hand, as an appender's.) [`write`](WriteOptions::write) always
    /// works so.
    ///
    /// ```
    /// use ndl_zarr::WriteOptions;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("s.zarr");
    /// let mut w = WriteOptions::new().publish_on_finish(true).create::<u32>(&path)?;
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
    /// `storage` directives: `chunk` (its first extent is the chunk length),
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
        if let Some(chunk) = &storage.chunk {
            match chunk.as_slice() {
                [n] => options.chunk_len = Some(*n as u64),
                other => {
                    return Err(Error::Unsupported {
                        message: format!(
                            "chunk {other:?}: a records array is chunked along one dimension"
                        ),
                    })
                }
            }
        }
        let filter = storage.filter.clone().unwrap_or_default();
        let codecs: Vec<Value> = filter
            .iter()
            .map(serde_json::to_value)
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| Error::Unsupported {
                message: format!("filter: {e}"),
            })?;
        options.codec = Codec::from_v3(&codecs).ok_or_else(|| Error::Unsupported {
            message: format!(
                "filter {}: only none, or one zstd, gzip or lz4 blosc codec, can be written",
                Value::Array(codecs.clone())
            ),
        })?;
        options.byte_order = storage.endian;
        Ok(options)
    }

    pub(crate) fn order(&self) -> ByteOrder {
        self.byte_order.unwrap_or(ByteOrder::Little)
    }

    /// The chunk length for records of `record` packed bytes.
    pub(crate) fn chunk_len_for(&self, record: usize) -> Result<u64> {
        let default = || {
            let len = (DEFAULT_CHUNK_BYTES / record.max(1) as u64).max(1);
            self.expected_len.map_or(len, |n| len.min(n.max(1)))
        };
        let len = self.chunk_len.unwrap_or_else(default);
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

    /// Every name `ndl convert --codec` offers, with and without a level.
    const OFFERED: [(&str, Codec); 9] = [
        ("none", Codec::None),
        ("zstd", Codec::Zstd(3)),
        ("zstd:-5", Codec::Zstd(-5)),
        ("blosc", Codec::Blosc(5)),
        ("blosc:9", Codec::Blosc(9)),
        ("gzip", Codec::Gzip(6)),
        ("gzip:1", Codec::Gzip(1)),
        ("zlib", Codec::Zlib(6)),
        ("zlib:4", Codec::Zlib(4)),
    ];

    #[test]
    fn every_offered_codec_parses_and_round_trips_through_its_metadata() {
        for (name, codec) in OFFERED {
            assert_eq!(name.parse::<Codec>(), Ok(codec), "{name}");
            assert_eq!(Codec::from_v3(&codec.v3(12)), Some(codec), "{name}");
        }
    }

    #[test]
    fn a_bad_codec_is_refused_naming_it() {
        for bad in [
            "lzma", "none:1", "zstd:23", "gzip:10", "zlib:x", "blosc:-1", "",
        ] {
            let message = bad.parse::<Codec>().unwrap_err();
            let (name, level) = bad.split_once(':').unwrap_or((bad, ""));
            assert!(
                message.contains(&format!("`{bad}`"))
                    || message.contains(&format!("{name} level `{level}`")),
                "{bad}: {message}"
            );
        }
    }
}

//! The compression of each chunk, and its Zarr forms: the v3 codecs after
//! `bytes`, and the v2 `compressor` (numcodecs' form).

use serde_json::{Value, json};

use crate::ByteOrder;
use crate::Order;
use crate::codec::{Blosc, BloscCname, BloscShuffle};

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
    /// Blosc with any compressor and shuffle (the shuffle's element is the
    /// packed record).
    BloscWith(Blosc),
    /// bzip2 at a level (1 to 9): numcodecs' `bz2` (v3 `numcodecs.bz2`).
    Bz2(u32),
    /// LZ4 at an acceleration (1 and up: faster and larger): numcodecs'
    /// `lz4` (v3 `numcodecs.lz4`), its size then one LZ4 block.
    Lz4(u32),
    /// No compression, a CRC-32C checksum after each chunk (v3 `crc32c`,
    /// v2 numcodecs' `crc32c`), which readers check.
    Crc32c,
}

impl Default for Codec {
    /// zstd at level 3, zstd's own default.
    fn default() -> Codec {
        Codec::Zstd(3)
    }
}

impl std::str::FromStr for Codec {
    type Err = String;

    /// `none`, `zstd[:LEVEL]`, `gzip[:LEVEL]`, `zlib[:LEVEL]`,
    /// `bz2[:LEVEL]`, `lz4[:ACCELERATION]`, `crc32c`, and `blosc`, then
    /// optionally a level, a compressor and a shuffle in any order
    /// (`blosc:zstd:7:bitshuffle`, see [`Blosc`]).
    ///
    /// ```
    /// use ndl_runtime::codec::{Blosc, BloscCname, BloscShuffle};
    /// use ndl_runtime::lang::zarr::Codec;
    /// assert_eq!("zstd:7".parse(), Ok(Codec::Zstd(7)));
    /// assert_eq!("gzip".parse(), Ok(Codec::Gzip(6)));
    /// assert_eq!("zlib:1".parse(), Ok(Codec::Zlib(1)));
    /// assert_eq!("blosc:3".parse(), Ok(Codec::Blosc(3)));
    /// let zstd = Blosc { cname: BloscCname::Zstd, clevel: 5, shuffle: BloscShuffle::NoShuffle };
    /// assert_eq!("blosc:zstd:noshuffle".parse(), Ok(Codec::BloscWith(zstd)));
    /// assert_eq!("lz4".parse(), Ok(Codec::Lz4(1)));
    /// assert!("lzma".parse::<Codec>().is_err());
    /// ```
    fn from_str(s: &str) -> std::result::Result<Codec, String> {
        if let Some(settings) = s.strip_prefix("blosc:") {
            return settings
                .parse::<Blosc>()
                .map(Codec::from_blosc)
                .map_err(|e| format!("codec `{s}`: {e}"));
        }
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
            "bz2" => Ok(Codec::Bz2(parse_level(1, 1..=9)? as u32)),
            "lz4" => Ok(Codec::Lz4(parse_level(1, 1..=65_537)? as u32)),
            "crc32c" if level.is_none() => Ok(Codec::Crc32c),
            _ => Err(format!(
                "unknown codec `{s}`: use none, zstd[:LEVEL], gzip[:LEVEL], zlib[:LEVEL], \
                 bz2[:LEVEL], lz4[:ACCELERATION], crc32c or blosc[:LEVEL][:COMPRESSOR][:SHUFFLE]"
            )),
        }
    }
}

impl Codec {
    /// `blosc` as a codec: [`Codec::Blosc`] for LZ4 with a byte shuffle,
    /// else [`Codec::BloscWith`].
    pub fn from_blosc(blosc: Blosc) -> Codec {
        let default = Blosc::default();
        if (blosc.cname, blosc.shuffle) == (default.cname, default.shuffle) {
            Codec::Blosc(blosc.clevel)
        } else {
            Codec::BloscWith(blosc)
        }
    }

    /// The Zarr v3 bytes-to-bytes codecs (empty for none). `record` is the
    /// packed record size, blosc's shuffle element.
    pub fn v3_codecs(self, record: usize) -> Vec<Value> {
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
            Codec::BloscWith(b) => vec![json!({"name": "blosc", "configuration": {
                "cname": b.cname.name(), "clevel": b.clevel, "shuffle": b.shuffle.name(),
                "typesize": record, "blocksize": 0
            }})],
            Codec::Bz2(level) => {
                vec![json!({"name": "numcodecs.bz2", "configuration": {"level": level}})]
            }
            Codec::Lz4(acceleration) => vec![json!({
                "name": "numcodecs.lz4", "configuration": {"acceleration": acceleration}
            })],
            Codec::Crc32c => vec![json!({"name": "crc32c"})],
        }
    }

    /// The Zarr v2 `compressor` (numcodecs' form); blosc's shuffle takes
    /// the dtype's item size, the packed record.
    pub fn v2_compressor(self) -> Value {
        match self {
            Codec::None => Value::Null,
            Codec::Zstd(level) => json!({"id": "zstd", "level": level}),
            Codec::Blosc(level) => {
                json!({"id": "blosc", "cname": "lz4", "clevel": level, "shuffle": 1, "blocksize": 0})
            }
            Codec::Gzip(level) => json!({"id": "gzip", "level": level}),
            Codec::Zlib(level) => json!({"id": "zlib", "level": level}),
            Codec::BloscWith(b) => json!({
                "id": "blosc", "cname": b.cname.name(), "clevel": b.clevel,
                "shuffle": b.shuffle.number(), "blocksize": 0
            }),
            Codec::Bz2(level) => json!({"id": "bz2", "level": level}),
            Codec::Lz4(acceleration) => json!({"id": "lz4", "acceleration": acceleration}),
            Codec::Crc32c => json!({"id": "crc32c"}),
        }
    }

    /// The codec that a v3 bytes-to-bytes codec list describes, if it is
    /// one written exactly so (every setting as [`Codec::v3_codecs`]
    /// writes it, blosc's `typesize` aside, which is the record's).
    pub fn from_v3_codecs(codecs: &[Value]) -> Option<Codec> {
        let [c] = codecs else {
            return codecs.is_empty().then_some(Codec::None);
        };
        let empty = serde_json::Map::new();
        let config = match c.get("configuration") {
            None => &empty,
            Some(config) => config.as_object()?,
        };
        let level = config.get("level").and_then(Value::as_i64);
        let codec = match c.get("name")?.as_str()? {
            "zstd" => Codec::Zstd(i32::try_from(level?).ok()?),
            "gzip" => Codec::Gzip(u32::try_from(level?).ok()?),
            "numcodecs.zlib" => Codec::Zlib(u32::try_from(level?).ok()?),
            "numcodecs.bz2" => Codec::Bz2(u32::try_from(level?).ok()?),
            "numcodecs.lz4" => {
                Codec::Lz4(u32::try_from(config.get("acceleration")?.as_u64()?).ok()?)
            }
            "crc32c" => Codec::Crc32c,
            "blosc" => Codec::from_blosc(Blosc {
                cname: BloscCname::from_name(config.get("cname")?.as_str()?)?,
                clevel: u8::try_from(config.get("clevel")?.as_u64()?).ok()?,
                shuffle: BloscShuffle::from_name(config.get("shuffle")?.as_str()?)?,
            }),
            _ => return None,
        };
        let record = config.get("typesize").and_then(Value::as_u64).unwrap_or(0) as usize;
        let mut written = codec.v3_codecs(record).pop()?;
        let Some(written) = written.get_mut("configuration") else {
            return config.is_empty().then_some(codec);
        };
        let written = written.as_object_mut()?;
        if !config.contains_key("typesize") {
            written.remove("typesize");
        }
        (written == config).then_some(codec)
    }
}

/// What a v3 codec list says: the order of the elements (a `transpose`
/// before `bytes`), the byte order (the `bytes` codec's), the
/// bytes-to-bytes codecs after it, and, with sharding, the chunk shape
/// within a shard.
#[derive(Clone, Debug, PartialEq)]
pub struct V3Codecs {
    /// Fortran order when the codecs before `bytes` are one `transpose`
    /// that reverses two or more dimensions, as zarr-python writes an
    /// array in Fortran order; else C (zarrs decodes any other transpose to
    /// the array's own, C, order).
    pub array_order: Order,
    /// The byte order of numbers in the chunks.
    pub order: ByteOrder,
    /// The codecs after `bytes` (the compression).
    pub compressors: Vec<Value>,
    /// With sharding, the shape of the chunks within a shard.
    pub inner_chunks: Option<Vec<u64>>,
}

impl V3Codecs {
    /// Reads a v3 `codecs` list: `bytes` (or `sharding_indexed`, whose own
    /// list is read), then the compression.
    ///
    /// ```
    /// use ndl_runtime::lang::zarr::V3Codecs;
    /// use ndl_runtime::ByteOrder;
    ///
    /// let codecs = serde_json::json!([
    ///     {"name": "bytes", "configuration": {"endian": "big"}},
    ///     {"name": "gzip", "configuration": {"level": 1}}
    /// ]);
    /// let read = V3Codecs::read(codecs.as_array().unwrap()).unwrap();
    /// assert_eq!(read.order, ByteOrder::Big);
    /// assert_eq!(read.compressors.len(), 1);
    /// ```
    pub fn read(codecs: &[Value]) -> Result<V3Codecs, String> {
        let name = |c: &Value| {
            c.get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let Some(at) = codecs
            .iter()
            .position(|c| name(c) == "bytes" || name(c) == "sharding_indexed")
        else {
            let names: Vec<String> = codecs.iter().map(name).collect();
            return Err(format!(
                "no bytes or sharding_indexed codec among the codecs [{}]",
                names.join(", ")
            ));
        };
        if name(&codecs[at]) == "sharding_indexed" {
            let inner = codecs[at]
                .pointer("/configuration/codecs")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let within = V3Codecs::read(&inner)?;
            let inner_chunks = codecs[at]
                .pointer("/configuration/chunk_shape")
                .cloned()
                .and_then(|c| serde_json::from_value(c).ok());
            let array_order = match array_order(&codecs[..at]) {
                Order::C => within.array_order,
                outer => outer,
            };
            return Ok(V3Codecs {
                inner_chunks,
                array_order,
                ..within
            });
        }
        let order = match codecs[at]
            .pointer("/configuration/endian")
            .and_then(Value::as_str)
        {
            Some("big") => ByteOrder::Big,
            Some("little") => ByteOrder::Little,
            Some(other) => return Err(format!("bytes codec endian `{other}`")),
            // Single-byte data needs no order, and legacy `structured` means little.
            None => ByteOrder::Little,
        };
        Ok(V3Codecs {
            array_order: array_order(&codecs[..at]),
            order,
            compressors: codecs[at + 1..].to_vec(),
            inner_chunks: None,
        })
    }
}

/// The order that the array-to-array codecs before `bytes` store the
/// elements of a chunk in: Fortran for one `transpose` that reverses two or
/// more dimensions.
fn array_order(before_bytes: &[Value]) -> Order {
    let [codec] = before_bytes else {
        return Order::C;
    };
    let order: Option<Vec<usize>> = codec
        .pointer("/configuration/order")
        .cloned()
        .and_then(|o| serde_json::from_value(o).ok());
    match order {
        Some(order)
            if codec.get("name").and_then(Value::as_str) == Some("transpose")
                && order.len() > 1
                && order.iter().rev().copied().eq(0..order.len()) =>
        {
            Order::Fortran
        }
        _ => Order::C,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name `ndl convert --codec` offers, with and without a level.
    const OFFERED: [(&str, Codec); 16] = [
        ("none", Codec::None),
        ("zstd", Codec::Zstd(3)),
        ("zstd:-5", Codec::Zstd(-5)),
        ("blosc", Codec::Blosc(5)),
        ("blosc:9", Codec::Blosc(9)),
        ("gzip", Codec::Gzip(6)),
        ("gzip:1", Codec::Gzip(1)),
        ("zlib", Codec::Zlib(6)),
        ("zlib:4", Codec::Zlib(4)),
        ("bz2", Codec::Bz2(1)),
        ("bz2:9", Codec::Bz2(9)),
        ("lz4", Codec::Lz4(1)),
        ("lz4:8", Codec::Lz4(8)),
        ("crc32c", Codec::Crc32c),
        ("blosc:lz4:shuffle:2", Codec::Blosc(2)),
        (
            "blosc:bitshuffle:zstd",
            Codec::BloscWith(Blosc {
                cname: BloscCname::Zstd,
                clevel: 5,
                shuffle: BloscShuffle::BitShuffle,
            }),
        ),
    ];

    #[test]
    fn every_offered_codec_parses_and_round_trips_through_its_metadata() {
        for (name, codec) in OFFERED {
            assert_eq!(name.parse::<Codec>(), Ok(codec), "{name}");
            assert_eq!(
                Codec::from_v3_codecs(&codec.v3_codecs(12)),
                Some(codec),
                "{name}"
            );
        }
    }

    #[test]
    fn a_bad_codec_is_refused_naming_it() {
        for bad in [
            "lzma",
            "none:1",
            "zstd:23",
            "gzip:10",
            "zlib:x",
            "blosc:-1",
            "",
            "bz2:0",
            "lz4:0",
            "crc32c:1",
            "blosc:lzma",
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

    #[test]
    fn a_v3_codec_list_is_read_through_sharding() {
        let bytes = |endian: &str| json!({"name": "bytes", "configuration": {"endian": endian}});
        let gzip = json!({"name": "gzip", "configuration": {"level": 1}});
        let plain = V3Codecs::read(&[bytes("big"), gzip.clone()]).unwrap();
        assert_eq!(
            plain,
            V3Codecs {
                array_order: Order::C,
                order: ByteOrder::Big,
                compressors: vec![gzip.clone()],
                inner_chunks: None
            }
        );
        let sharded = json!({"name": "sharding_indexed", "configuration": {
            "chunk_shape": [4], "codecs": [bytes("little"), gzip.clone()]
        }});
        let read = V3Codecs::read(&[sharded]).unwrap();
        assert_eq!(
            (read.order, read.inner_chunks),
            (ByteOrder::Little, Some(vec![4]))
        );
        let e = V3Codecs::read(&[gzip]).unwrap_err();
        assert!(e.contains("no bytes") && e.contains("[gzip]"), "{e}");
        assert!(
            V3Codecs::read(&[bytes("middle")])
                .unwrap_err()
                .contains("middle")
        );
        let no_endian = V3Codecs::read(&[json!({"name": "bytes"})]).unwrap();
        assert_eq!(no_endian.order, ByteOrder::Little);
    }

    #[test]
    fn a_transpose_that_reverses_the_dimensions_is_fortran_order() {
        let bytes = json!({"name": "bytes", "configuration": {"endian": "little"}});
        let transpose =
            |order: Value| json!({"name": "transpose", "configuration": {"order": order}});
        let order_of = |codecs: &[Value]| V3Codecs::read(codecs).unwrap().array_order;
        assert_eq!(
            order_of(&[transpose(json!([2, 1, 0])), bytes.clone()]),
            Order::Fortran
        );
        for other in [json!([1, 0, 2]), json!([0]), json!("F")] {
            assert_eq!(
                order_of(&[transpose(other.clone()), bytes.clone()]),
                Order::C,
                "{other}"
            );
        }
        let sharded = json!({"name": "sharding_indexed", "configuration": {
            "chunk_shape": [2, 2], "codecs": [transpose(json!([1, 0])), bytes.clone()]
        }});
        assert_eq!(order_of(&[sharded]), Order::Fortran);
    }

    #[test]
    fn codec_lists_not_written_so_are_no_codec() {
        let zstd = |config: Value| vec![json!({"name": "zstd", "configuration": config})];
        assert_eq!(
            Codec::from_v3_codecs(&zstd(json!({"level": 3, "checksum": false}))),
            Some(Codec::Zstd(3))
        );
        assert_eq!(
            Codec::from_v3_codecs(&zstd(json!({"level": 3, "checksum": true}))),
            None
        );
        assert_eq!(Codec::from_v3_codecs(&[json!({"name": "lz4"})]), None);
        let two = [Codec::Gzip(1).v3_codecs(1), Codec::Gzip(1).v3_codecs(1)].concat();
        assert_eq!(Codec::from_v3_codecs(&two), None);
    }
}

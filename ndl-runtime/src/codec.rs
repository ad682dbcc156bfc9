//! Codec settings every format shares, as plain data: Blosc's compressor,
//! level and shuffle, with their names in Zarr v3 (`"bitshuffle"`) and
//! numcodecs' numbers (v2's `shuffle: 2`), which HDF5's Blosc filter
//! takes too.

/// A Blosc configuration: the compressor inside Blosc, its level and the
/// shuffle done first.
///
/// ```
/// use ndl_runtime::codec::{Blosc, BloscCname, BloscShuffle};
///
/// let b: Blosc = "zstd:7:bitshuffle".parse()?;
/// assert_eq!(b, Blosc { cname: BloscCname::Zstd, clevel: 7, shuffle: BloscShuffle::BitShuffle });
/// assert_eq!("".parse::<Blosc>()?, Blosc::default());
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Blosc {
    /// The compressor inside Blosc.
    pub cname: BloscCname,
    /// The compression level, 0 (none) to 9.
    pub clevel: u8,
    /// The shuffle before compression, whose element is the packed record.
    pub shuffle: BloscShuffle,
}

impl Default for Blosc {
    /// LZ4 at level 5 with a byte shuffle, numcodecs' default.
    fn default() -> Blosc {
        Blosc {
            cname: BloscCname::Lz4,
            clevel: 5,
            shuffle: BloscShuffle::Shuffle,
        }
    }
}

/// The compressors inside Blosc.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BloscCname {
    /// BloscLZ, Blosc's own.
    BloscLz,
    /// LZ4.
    Lz4,
    /// LZ4 HC, slower and smaller.
    Lz4hc,
    /// zlib.
    Zlib,
    /// Zstandard.
    Zstd,
}

/// The shuffles Blosc does before compressing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BloscShuffle {
    /// None.
    NoShuffle,
    /// Byte `k` of every element together.
    Shuffle,
    /// Bit `k` of every element together.
    BitShuffle,
}

impl BloscCname {
    const ALL: [BloscCname; 5] = [
        BloscCname::BloscLz,
        BloscCname::Lz4,
        BloscCname::Lz4hc,
        BloscCname::Zlib,
        BloscCname::Zstd,
    ];

    /// The name in Zarr and numcodecs (`"blosclz"`, `"lz4hc"`).
    pub fn name(self) -> &'static str {
        match self {
            BloscCname::BloscLz => "blosclz",
            BloscCname::Lz4 => "lz4",
            BloscCname::Lz4hc => "lz4hc",
            BloscCname::Zlib => "zlib",
            BloscCname::Zstd => "zstd",
        }
    }

    /// The compressor named `name`.
    pub fn from_name(name: &str) -> Option<BloscCname> {
        BloscCname::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl BloscShuffle {
    const ALL: [BloscShuffle; 3] = [
        BloscShuffle::NoShuffle,
        BloscShuffle::Shuffle,
        BloscShuffle::BitShuffle,
    ];

    /// The name in Zarr v3 (`"noshuffle"`, `"shuffle"`, `"bitshuffle"`).
    pub fn name(self) -> &'static str {
        match self {
            BloscShuffle::NoShuffle => "noshuffle",
            BloscShuffle::Shuffle => "shuffle",
            BloscShuffle::BitShuffle => "bitshuffle",
        }
    }

    /// The number in numcodecs (v2): 0, 1 or 2.
    pub fn number(self) -> u8 {
        match self {
            BloscShuffle::NoShuffle => 0,
            BloscShuffle::Shuffle => 1,
            BloscShuffle::BitShuffle => 2,
        }
    }

    /// The shuffle named `name` in Zarr v3.
    pub fn from_name(name: &str) -> Option<BloscShuffle> {
        BloscShuffle::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl std::str::FromStr for Blosc {
    type Err = String;

    /// Settings after `blosc:`, separated by colons, in any order: a
    /// compressor (`blosclz`, `lz4`, `lz4hc`, `zlib`, `zstd`), a level (0
    /// to 9) and a shuffle (`noshuffle`, `shuffle`, `bitshuffle`); those
    /// left out are [`Blosc::default`]'s.
    fn from_str(s: &str) -> Result<Blosc, String> {
        let mut blosc = Blosc::default();
        for part in s.split(':').filter(|p| !p.is_empty()) {
            if let Some(cname) = BloscCname::from_name(part) {
                blosc.cname = cname;
            } else if let Some(shuffle) = BloscShuffle::from_name(part) {
                blosc.shuffle = shuffle;
            } else if let Some(level) = part.parse::<u8>().ok().filter(|l| *l <= 9) {
                blosc.clevel = level;
            } else {
                return Err(format!(
                    "blosc setting `{part}` is no compressor (blosclz, lz4, lz4hc, zlib, zstd), \
                     level (0 to 9) or shuffle (noshuffle, shuffle, bitshuffle)"
                ));
            }
        }
        Ok(blosc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers_round_trip() {
        for c in BloscCname::ALL {
            assert_eq!(BloscCname::from_name(c.name()), Some(c));
        }
        for s in BloscShuffle::ALL {
            assert_eq!(BloscShuffle::from_name(s.name()), Some(s));
        }
        assert_eq!(BloscShuffle::BitShuffle.number(), 2);
        let e = "zstd:lzma".parse::<Blosc>().unwrap_err();
        assert!(e.contains("`lzma`"), "{e}");
        assert!("10".parse::<Blosc>().is_err());
    }
}

//! The numcodecs codecs that zarr-python reads and zarrs lacks, as zarrs
//! codec extensions: [`lz4`], [`crc32`], [`delta`] and [`quantize`], each
//! registered with zarrs (v3 `numcodecs.<name>` and v2 `<name>`) so that
//! zarrs' codec chains decode them like its own; and [`fixedscaleoffset`],
//! which zarrs has but computes in float32, in its place.
//!
//! zarr-python 3.4 also writes the numcodecs names of codecs zarrs has
//! under their core names: [`aliases`] makes zarrs read those. What is
//! still unread is named by [`unknown_v3`] and [`unknown_v2`].

mod aliases;
mod crc32;
mod delta;
mod fixedscaleoffset;
mod lz4;
#[cfg(test)]
mod numcodecs_python;
mod numeric;
mod plugin;
mod quantize;
mod unknown;

use std::sync::Once;

/// Registers with zarrs what its codec registry needs at run time (see the
/// module docs); the codecs of this module register themselves.
pub(crate) fn register() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        aliases::register();
        fixedscaleoffset::register();
    });
}

/// The name of the first codec of a v3 `codecs` list (sharding's inner
/// lists included) that zarrs, with this module's codecs, cannot read.
pub(crate) fn unknown_v3(codecs: &[serde_json::Value]) -> Option<String> {
    register();
    unknown::unknown_v3(codecs)
}

/// The id of the first v2 filter or compressor that zarrs, with this
/// module's codecs, cannot read.
pub(crate) fn unknown_v2<'a>(
    codecs: impl IntoIterator<Item = &'a zarrs::metadata::v2::MetadataV2>,
) -> Option<String> {
    register();
    unknown::unknown_v2(codecs)
}

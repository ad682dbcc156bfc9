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
mod numeric;
mod quantize;
mod unknown;

pub(crate) use unknown::{unknown_v2, unknown_v3};

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

#[cfg(test)]
pub(crate) mod tests {
    /// The bytes numcodecs (of zarr-python 3.4's venv) encodes the NumPy
    /// array `array` to with `codec` (both Python expressions).
    pub(crate) fn numcodecs_bytes(codec: &str, array: &str) -> Vec<u8> {
        python_bytes(&format!("{codec}.encode({array})"))
    }

    /// The bytes of the Python expression `expr` (numpy as `np` and
    /// numcodecs imported), evaluated in zarr-python 3.4's venv.
    pub(crate) fn python_bytes(expr: &str) -> Vec<u8> {
        let script = format!("import numcodecs, numpy as np\nprint(bytes({expr}).hex())");
        let hex = ndl_testkit::python::run_with(&ndl_testkit::python::python312(), &script, &[]);
        let hex = hex.trim();
        (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex from python"))
            .collect()
    }
}

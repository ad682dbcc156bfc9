//! [`FixedStr`]: a string field of a fixed number of bytes, padded with
//! NULs, as NumPy's `S<n>` holds text.

use std::fmt;
use std::str::{FromStr, Utf8Error};

use crate::{Charset, Datatype, FixedString, NdlType};

/// A string of at most `N` bytes stored in exactly `N`, padded with NULs:
/// NumPy's `S<N>`, NDL's `{string: {length: N, charset: ascii}}`, a field
/// of a `#[derive(NdlType)]` record like any other.
///
/// The text is read back with its trailing NULs trimmed, as NumPy trims
/// them; its bytes are kept as they are (UTF-8 text is stored as its
/// bytes, as NumPy's `S` holds any bytes).
///
/// ```
/// use ndl_runtime::{npy, FixedStr, NdlType};
///
/// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
/// #[repr(C)]
/// struct Station {
///     code: FixedStr<4>,
///     height: f32,
/// }
///
/// let s = Station { code: "EGLL".parse()?, height: 25.0 };
/// let short = Station { code: "KA".parse()?, ..s };
/// assert_eq!(short.code.as_str()?, "KA");
/// assert_eq!(short.code.as_bytes_padded(), b"KA\0\0");
/// assert!("TOOLONG".parse::<FixedStr<4>>().is_err());
///
/// let mut file = Vec::new();
/// npy::write(&mut file, &[s, short])?;
/// assert_eq!(npy::read::<Station, _>(&file[..])?, [s, short]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct FixedStr<const N: usize>([u8; N]);

/// A text longer than the [`FixedStr`] that was to hold it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a text of {len} bytes does not fit a fixed string of {capacity}")]
pub struct TooLong {
    /// The text's length in bytes.
    pub len: usize,
    /// The fixed string's length in bytes.
    pub capacity: usize,
}

impl<const N: usize> FixedStr<N> {
    /// The string of these `N` bytes, NULs included, as stored.
    pub const fn from_bytes_padded(bytes: [u8; N]) -> FixedStr<N> {
        FixedStr(bytes)
    }

    /// The bytes up to the trailing NULs.
    pub fn as_bytes(&self) -> &[u8] {
        let len = self.0.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        &self.0[..len]
    }

    /// All `N` bytes as stored, NUL padding included.
    pub const fn as_bytes_padded(&self) -> &[u8; N] {
        &self.0
    }

    /// The text up to the trailing NULs, if it is UTF-8.
    pub fn as_str(&self) -> Result<&str, Utf8Error> {
        std::str::from_utf8(self.as_bytes())
    }

    /// Whether it holds no text (all NULs).
    pub fn is_empty(&self) -> bool {
        self.as_bytes().is_empty()
    }
}

impl<const N: usize> Default for FixedStr<N> {
    fn default() -> FixedStr<N> {
        FixedStr([0; N])
    }
}

impl<const N: usize> FromStr for FixedStr<N> {
    type Err = TooLong;

    /// The text padded with NULs to `N` bytes; longer ones are an error
    /// rather than cut (a cut could split a character).
    fn from_str(text: &str) -> Result<FixedStr<N>, TooLong> {
        FixedStr::try_from(text.as_bytes())
    }
}

impl<const N: usize> TryFrom<&[u8]> for FixedStr<N> {
    type Error = TooLong;

    /// The bytes padded with NULs to `N`; more than `N` is an error.
    fn try_from(bytes: &[u8]) -> Result<FixedStr<N>, TooLong> {
        if bytes.len() > N {
            return Err(TooLong {
                len: bytes.len(),
                capacity: N,
            });
        }
        let mut padded = [0; N];
        padded[..bytes.len()].copy_from_slice(bytes);
        Ok(FixedStr(padded))
    }
}

impl<const N: usize> PartialEq<str> for FixedStr<N> {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl<const N: usize> PartialEq<&str> for FixedStr<N> {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl<const N: usize> fmt::Display for FixedStr<N> {
    /// The text, with bytes that are not UTF-8 replaced.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(self.as_bytes()))
    }
}

impl<const N: usize> fmt::Debug for FixedStr<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FixedStr<{N}>({:?})",
            String::from_utf8_lossy(self.as_bytes())
        )
    }
}

// SAFETY: `repr(transparent)` over `[u8; N]`: N bytes without padding, any
// of whose values is valid, which is what a fixed string of N one-byte
// characters describes.
unsafe impl<const N: usize> NdlType for FixedStr<N> {
    fn datatype() -> Datatype {
        Datatype::FixedString(FixedString {
            length: N,
            charset: Charset::Ascii,
        })
    }
}

// SAFETY: `repr(transparent)` over `[u8; N]`, which is `Zeroable` and `Pod`.
unsafe impl<const N: usize> bytemuck::Zeroable for FixedStr<N> {}
// SAFETY: as above.
unsafe impl<const N: usize> bytemuck::Pod for FixedStr<N> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_padded_and_trimmed() {
        let s: FixedStr<6> = "ab".parse().unwrap();
        assert_eq!(s.as_bytes_padded(), b"ab\0\0\0\0");
        assert_eq!(s.as_str(), Ok("ab"));
        assert_eq!(s, "ab");
        assert_eq!(s.to_string(), "ab");
        // Inner NULs are text; only trailing ones are padding.
        let inner = FixedStr::from_bytes_padded(*b"a\0b\0");
        assert_eq!(inner.as_bytes(), b"a\0b");
        assert!(FixedStr::<3>::default().is_empty());
        // Exactly full, and one byte over.
        assert_eq!(
            "abcdef".parse::<FixedStr<6>>().unwrap().as_bytes(),
            b"abcdef"
        );
        assert_eq!(
            "abcdefg".parse::<FixedStr<6>>(),
            Err(TooLong {
                len: 7,
                capacity: 6
            })
        );
        // Not UTF-8: an error from as_str, replaced in Display.
        let latin1 = FixedStr::from_bytes_padded([0xe9, 0]);
        assert!(latin1.as_str().is_err());
        assert_eq!(latin1.to_string(), "\u{fffd}");
    }

    #[test]
    fn the_datatype_is_numpys_s() {
        assert_eq!(FixedStr::<5>::datatype().size(), Some(5));
        let header = crate::npy::Header::new(FixedStr::<5>::datatype(), vec![1]);
        assert_eq!(header.descr().unwrap(), "'|S5'");
        assert_eq!(std::mem::align_of::<FixedStr<5>>(), 1);
    }
}

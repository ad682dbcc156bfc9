//! The byte order of stored numbers, shared by `.npy` headers and NDL's
//! `endian` storage directive.

use std::ops::Range;

/// The byte order of multi-byte numbers in a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ByteOrder {
    /// Least significant byte first (`<`).
    Little,
    /// Most significant byte first (`>`).
    Big,
}

impl ByteOrder {
    /// The byte order of the machine running this code.
    pub const NATIVE: ByteOrder = if cfg!(target_endian = "big") {
        ByteOrder::Big
    } else {
        ByteOrder::Little
    };
    /// The `i64` whose bytes in this order are `bytes`.
    pub fn read_i64(self, bytes: [u8; 8]) -> i64 {
        match self {
            ByteOrder::Little => i64::from_le_bytes(bytes),
            ByteOrder::Big => i64::from_be_bytes(bytes),
        }
    }

    /// The bytes of `value` in this order.
    pub fn write_i64(self, value: i64) -> [u8; 8] {
        match self {
            ByteOrder::Little => value.to_le_bytes(),
            ByteOrder::Big => value.to_be_bytes(),
        }
    }

    /// The other byte order.
    ///
    /// ```
    /// use ndl_runtime::ByteOrder;
    /// assert_eq!(ByteOrder::Little.opposite(), ByteOrder::Big);
    /// ```
    pub fn opposite(self) -> ByteOrder {
        match self {
            ByteOrder::Little => ByteOrder::Big,
            ByteOrder::Big => ByteOrder::Little,
        }
    }

    /// The order of the number at byte `offset` of an element whose
    /// numbers are in this order but those in the byte ranges `other`,
    /// which are in the opposite one (NumPy lets each field of a record
    /// have its own).
    ///
    /// ```
    /// use ndl_runtime::ByteOrder;
    /// assert_eq!(ByteOrder::Little.at(&[8..16], 8), ByteOrder::Big);
    /// assert_eq!(ByteOrder::Little.at(&[8..16], 0), ByteOrder::Little);
    /// ```
    pub fn at(self, other: &[Range<usize>], offset: usize) -> ByteOrder {
        match other.iter().any(|r| r.contains(&offset)) {
            true => self.opposite(),
            false => self,
        }
    }

    /// NumPy's character for it: `<` or `>`.
    pub fn numpy_char(self) -> char {
        match self {
            ByteOrder::Little => '<',
            ByteOrder::Big => '>',
        }
    }

    /// The NDL `endian` storage directive value: `little` or `big`.
    ///
    /// ```
    /// use ndl_runtime::ByteOrder;
    /// assert_eq!(ByteOrder::Big.name(), "big");
    /// assert_eq!(ByteOrder::from_name("little"), Some(ByteOrder::Little));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            ByteOrder::Little => "little",
            ByteOrder::Big => "big",
        }
    }

    /// The byte order an NDL `endian` value names.
    pub fn from_name(name: &str) -> Option<ByteOrder> {
        match name {
            "little" => Some(ByteOrder::Little),
            "big" => Some(ByteOrder::Big),
            _ => None,
        }
    }
}

//! The integer datatypes, the bases of enums.

use std::fmt;

use super::Datatype;

/// The integer datatypes, the possible bases of an [`Enum`](crate::Enum).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntType {
    /// `int8`
    Int8,
    /// `uint8`
    UInt8,
    /// `int16`
    Int16,
    /// `uint16`
    UInt16,
    /// `int32`
    Int32,
    /// `uint32`
    UInt32,
    /// `int64`
    Int64,
    /// `uint64`
    UInt64,
}

impl IntType {
    /// The native-order integer of this type that `bytes` (exactly
    /// [`size`](IntType::size) of them) hold.
    ///
    /// ```
    /// use ndl_runtime::IntType;
    /// assert_eq!(IntType::Int16.read_ne(&(-3i16).to_ne_bytes()), -3);
    /// assert_eq!(IntType::UInt64.read_ne(&u64::MAX.to_ne_bytes()), i128::from(u64::MAX));
    /// ```
    pub fn read_ne(self, bytes: &[u8]) -> i128 {
        fn array<const N: usize>(bytes: &[u8]) -> [u8; N] {
            bytes
                .try_into()
                .expect("as many bytes as the integer type's size")
        }
        match self {
            IntType::Int8 => i128::from(i8::from_ne_bytes(array(bytes))),
            IntType::UInt8 => i128::from(u8::from_ne_bytes(array(bytes))),
            IntType::Int16 => i128::from(i16::from_ne_bytes(array(bytes))),
            IntType::UInt16 => i128::from(u16::from_ne_bytes(array(bytes))),
            IntType::Int32 => i128::from(i32::from_ne_bytes(array(bytes))),
            IntType::UInt32 => i128::from(u32::from_ne_bytes(array(bytes))),
            IntType::Int64 => i128::from(i64::from_ne_bytes(array(bytes))),
            IntType::UInt64 => i128::from(u64::from_ne_bytes(array(bytes))),
        }
    }

    /// All integer types, from the smallest value set up, unsigned before signed of the same width.
    pub const ALL: [IntType; 8] = [
        IntType::UInt8,
        IntType::Int8,
        IntType::UInt16,
        IntType::Int16,
        IntType::UInt32,
        IntType::Int32,
        IntType::UInt64,
        IntType::Int64,
    ];

    /// Size in bytes.
    pub fn size(self) -> usize {
        match self {
            IntType::Int8 | IntType::UInt8 => 1,
            IntType::Int16 | IntType::UInt16 => 2,
            IntType::Int32 | IntType::UInt32 => 4,
            IntType::Int64 | IntType::UInt64 => 8,
        }
    }

    /// Whether negative values are representable.
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            IntType::Int8 | IntType::Int16 | IntType::Int32 | IntType::Int64
        )
    }

    /// The smallest and largest representable value.
    pub fn range(self) -> (i128, i128) {
        let bits = 8 * self.size() as u32;
        if self.is_signed() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        }
    }

    /// Whether `value` is representable.
    pub fn contains(self, value: i128) -> bool {
        let (lo, hi) = self.range();
        (lo..=hi).contains(&value)
    }

    /// The NDL keyword, e.g. `uint8`.
    pub fn keyword(self) -> &'static str {
        Datatype::from(self)
            .keyword()
            .expect("integers have keywords")
    }

    /// The smallest integer type holding every value, unsigned when none is
    /// negative: the NDL rule for an enum without `base`.
    ///
    /// ```
    /// use ndl_runtime::IntType;
    /// assert_eq!(IntType::smallest_for([0, 1, 255]), Some(IntType::UInt8));
    /// assert_eq!(IntType::smallest_for([0, 25, -120]), Some(IntType::Int8));
    /// ```
    pub fn smallest_for(values: impl IntoIterator<Item = i128> + Clone) -> Option<IntType> {
        let any_negative = values.clone().into_iter().any(|v| v < 0);
        IntType::ALL
            .into_iter()
            .filter(|t| t.is_signed() == any_negative)
            .find(|t| values.clone().into_iter().all(|v| t.contains(v)))
    }
}

impl fmt::Display for IntType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

impl From<IntType> for Datatype {
    fn from(t: IntType) -> Datatype {
        match t {
            IntType::Int8 => Datatype::Int8,
            IntType::UInt8 => Datatype::UInt8,
            IntType::Int16 => Datatype::Int16,
            IntType::UInt16 => Datatype::UInt16,
            IntType::Int32 => Datatype::Int32,
            IntType::UInt32 => Datatype::UInt32,
            IntType::Int64 => Datatype::Int64,
            IntType::UInt64 => Datatype::UInt64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Enum, EnumMember};

    #[test]
    fn smallest_base_follows_the_spec() {
        assert_eq!(IntType::smallest_for([0, 1, 255]), Some(IntType::UInt8));
        assert_eq!(IntType::smallest_for([0, 256]), Some(IntType::UInt16));
        assert_eq!(IntType::smallest_for([-1, 128]), Some(IntType::Int16));
        assert_eq!(
            IntType::smallest_for([i128::from(u64::MAX)]),
            Some(IntType::UInt64)
        );
        assert_eq!(IntType::smallest_for([-1, i128::from(u64::MAX)]), None);
        let members = vec![
            EnumMember::new("a", i128::from(u64::MAX)),
            EnumMember::new("b", -1),
        ];
        let err = Enum::with_inferred_base(members).unwrap_err();
        assert_eq!(
            err.to_string(),
            "no integer type holds all enum values from -1 to 18446744073709551615"
        );
    }
}

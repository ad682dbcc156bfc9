//! The datatype model: every NDL datatype, plus the documented extensions
//! that Rust and NumPy need (bool, float16, complex, fixed-length strings).

use std::collections::HashSet;
use std::fmt;

/// A datatype: the NDL categories and the extensions listed in the README.
///
/// Fixed-size datatypes know their size ([`Datatype::size`]) and their C
/// alignment ([`Datatype::alignment`]); a compound carries every member's
/// byte offset and its record size, so a layout is never lost.
///
/// ```
/// use ndl_runtime::{Compound, Datatype};
///
/// let point = Compound::c_layout([("id", Datatype::UInt32), ("t", Datatype::Float64)]).unwrap();
/// assert_eq!(point.size, 16);
/// assert_eq!(point.members[1].offset, 8);
/// assert_eq!(Datatype::Compound(point).size(), Some(16));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Datatype {
    /// NDL `string`: a variable-length sequence of Unicode characters.
    String,
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
    /// `float32`: IEEE 754 single precision.
    Float32,
    /// `float64`: IEEE 754 double precision.
    Float64,
    /// Extension `bool`: one byte holding 0 or 1 (NumPy `|b1`).
    Bool,
    /// Extension `float16`: IEEE 754 half precision (NumPy `<f2`).
    Float16,
    /// Extension `complex64`: two `float32`, real then imaginary (NumPy `<c8`).
    Complex64,
    /// Extension `complex128`: two `float64`, real then imaginary (NumPy `<c16`).
    Complex128,
    /// Extension: a fixed-length string (NumPy `S<n>` or `U<n>`).
    FixedString(FixedString),
    /// `opaque`: a fixed-length sequence of uninterpreted bytes.
    Opaque(Opaque),
    /// `enum`: named integer constants.
    Enum(Enum),
    /// `objref`: a reference to another object in the same file.
    ObjRef,
    /// `regref`: a reference to a selection of one ndarray's elements.
    RegRef(Selection),
    /// `compound`: named members at byte offsets within a record.
    Compound(Compound),
    /// `vlen`: a variable-length sequence of another datatype.
    Vlen(Box<Datatype>),
    /// `array`: a fixed-shape array of another datatype.
    Array(Array),
}

/// The integer datatypes, the possible bases of an [`Enum`].
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

/// A fixed-length string (extension): `length` characters stored in
/// `length * charset.width()` bytes, padded with NULs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FixedString {
    /// Number of characters (NumPy's `n` in `S<n>`/`U<n>`).
    pub length: usize,
    /// How characters are stored.
    pub charset: Charset,
}

/// The storage of a [`FixedString`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Charset {
    /// One byte per character (NumPy `S`, Datashape `'A'`); NDL name `ascii`.
    Ascii,
    /// Four bytes per character, UTF-32 (NumPy `U`); NDL name `utf-32`.
    Utf32,
}

/// An opaque datatype: `size` bytes, with an optional descriptive tag.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Opaque {
    /// Size in bytes.
    pub size: usize,
    /// Description of the bytes, e.g. a MIME type.
    pub tag: Option<String>,
}

/// An enum datatype: an integer base and named values.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Enum {
    /// The integer datatype of the values.
    pub base: IntType,
    /// The members, in declaration order.
    pub members: Vec<EnumMember>,
}

/// One named constant of an [`Enum`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EnumMember {
    /// The member's name.
    pub name: String,
    /// The member's value; it fits the enum's base.
    pub value: i128,
}

/// The kind of selection a region reference points to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Selection {
    /// Contiguous blocks given by two opposite corners.
    Block,
    /// Individual elements.
    Element,
}

/// A compound datatype: named members at byte offsets within a record.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Compound {
    /// Record size in bytes, padding included.
    pub size: usize,
    /// Members in offset order.
    pub members: Vec<Member>,
}

/// One member of a [`Compound`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Member {
    /// The member's name.
    pub name: String,
    /// Byte offset within the record.
    pub offset: usize,
    /// The member's datatype.
    pub datatype: Datatype,
    /// A description (from the Rust field's doc comment).
    pub description: Option<String>,
    /// The units of the member's values (`#[ndl(units = "K")]`), as CF's
    /// `units` attribute says them.
    pub units: Option<String>,
    /// The names of an array member's dimensions, one per axis
    /// (`#[ndl(dims = ["row", "col"])]`); empty when unnamed.
    pub dims: Vec<String>,
}

/// An array datatype: `shape` elements of `base`, in C order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Array {
    /// The element datatype, never itself an array (nested arrays fold).
    pub base: Box<Datatype>,
    /// The extent of each dimension.
    pub shape: Vec<usize>,
}

/// Why a datatype is not well formed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DatatypeError {
    /// Two members of one compound share a name.
    #[error("compound member name `{0}` occurs more than once")]
    DuplicateMember(String),
    /// Two members of one enum share a name.
    #[error("enum member name `{0}` occurs more than once")]
    DuplicateEnumMember(String),
    /// An enum value does not fit the base.
    #[error("enum member `{name}` = {value} does not fit the base {base}")]
    EnumValueOutOfRange {
        /// The member.
        name: String,
        /// Its value.
        value: i128,
        /// The enum's base.
        base: IntType,
    },
    /// No integer type holds every value of an enum without `base`.
    #[error("no integer type holds all enum values from {lowest} to {highest}")]
    NoEnumBase {
        /// The smallest value.
        lowest: i128,
        /// The largest value.
        highest: i128,
    },
    /// A compound member has no fixed size.
    #[error(
        "compound member `{0}` has a variable-length datatype; it has no place in a fixed record"
    )]
    VariableMember(String),
    /// A compound member starts before the previous one ends.
    #[error("compound member `{name}` at offset {offset} overlaps the member before it, which ends at {previous_end}")]
    Overlap {
        /// The member.
        name: String,
        /// Its offset.
        offset: usize,
        /// Where the previous member ends.
        previous_end: usize,
    },
    /// A compound member ends after the record.
    #[error("compound member `{name}` ends at byte {end}, past the record size {size}")]
    PastEnd {
        /// The member.
        name: String,
        /// Where it ends.
        end: usize,
        /// The record size.
        size: usize,
    },
    /// An array dimension or a size overflows `usize`.
    #[error("datatype size overflows")]
    Overflow,
    /// An array must have at least one dimension.
    #[error("an array datatype needs at least one dimension")]
    EmptyArrayShape,
    /// A member's dimension names do not fit its datatype.
    #[error("compound member `{name}` names {names} dimensions, but {why}")]
    Dims {
        /// The member.
        name: String,
        /// How many dimension names it has.
        names: usize,
        /// What they should be.
        why: String,
    },
}

impl IntType {
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

impl Charset {
    /// Bytes per character.
    pub fn width(self) -> usize {
        match self {
            Charset::Ascii => 1,
            Charset::Utf32 => 4,
        }
    }

    /// The name used in NDL YAML (`ascii`, `utf-32`).
    pub fn name(self) -> &'static str {
        match self {
            Charset::Ascii => "ascii",
            Charset::Utf32 => "utf-32",
        }
    }
}

/// The datatypes written as a bare keyword in NDL YAML.
const KEYWORDS: [(&str, Datatype); 16] = [
    ("string", Datatype::String),
    ("int8", Datatype::Int8),
    ("uint8", Datatype::UInt8),
    ("int16", Datatype::Int16),
    ("uint16", Datatype::UInt16),
    ("int32", Datatype::Int32),
    ("uint32", Datatype::UInt32),
    ("int64", Datatype::Int64),
    ("uint64", Datatype::UInt64),
    ("float32", Datatype::Float32),
    ("float64", Datatype::Float64),
    ("objref", Datatype::ObjRef),
    ("bool", Datatype::Bool),
    ("float16", Datatype::Float16),
    ("complex64", Datatype::Complex64),
    ("complex128", Datatype::Complex128),
];

impl Datatype {
    /// The bare NDL keyword of a parameterless datatype (`float64`, `bool`, ...).
    pub fn keyword(&self) -> Option<&'static str> {
        KEYWORDS.iter().find(|(_, t)| t == self).map(|(k, _)| *k)
    }

    /// The parameterless datatype named by an NDL keyword.
    ///
    /// ```
    /// use ndl_runtime::Datatype;
    /// assert_eq!(Datatype::from_keyword("uint16"), Some(Datatype::UInt16));
    /// assert_eq!(Datatype::from_keyword("float128"), None);
    /// ```
    pub fn from_keyword(word: &str) -> Option<Datatype> {
        KEYWORDS
            .iter()
            .find(|(k, _)| *k == word)
            .map(|(_, t)| t.clone())
    }

    /// The integer type, if this is an integer datatype.
    pub fn as_int(&self) -> Option<IntType> {
        IntType::ALL
            .into_iter()
            .find(|t| Datatype::from(*t) == *self)
    }

    /// Size in bytes of one value, or `None` for variable-length datatypes
    /// (`string`, `vlen`) and references, whose storage depends on the file format.
    pub fn size(&self) -> Option<usize> {
        Some(match self {
            Datatype::String | Datatype::Vlen(_) | Datatype::ObjRef | Datatype::RegRef(_) => {
                return None
            }
            Datatype::Bool => 1,
            Datatype::Float16 => 2,
            Datatype::Float32 => 4,
            Datatype::Float64 | Datatype::Complex64 => 8,
            Datatype::Complex128 => 16,
            Datatype::FixedString(s) => s.length.checked_mul(s.charset.width())?,
            Datatype::Opaque(o) => o.size,
            Datatype::Enum(e) => e.base.size(),
            Datatype::Compound(c) => c.size,
            Datatype::Array(a) => a.element_count()?.checked_mul(a.base.size()?)?,
            other => other.as_int()?.size(),
        })
    }

    /// The alignment a `#[repr(C)]` Rust type of this datatype has on
    /// common 64-bit targets: what C layout places members by.
    pub fn alignment(&self) -> usize {
        match self {
            Datatype::Complex64 => 4,
            Datatype::Complex128 => 8,
            Datatype::FixedString(s) => s.charset.width(),
            Datatype::Opaque(_) | Datatype::Bool => 1,
            Datatype::Enum(e) => e.base.size(),
            Datatype::Compound(c) => c
                .members
                .iter()
                .map(|m| m.datatype.alignment())
                .max()
                .unwrap_or(1),
            Datatype::Array(a) => a.base.alignment(),
            other => other.size().unwrap_or(8),
        }
    }

    /// Checks the rules a datatype must follow, recursively: unique names,
    /// enum values within the base, compound members in order, without
    /// overlap and within the record.
    pub fn validate(&self) -> Result<(), DatatypeError> {
        match self {
            Datatype::Enum(e) => e.validate(),
            Datatype::Compound(c) => c.validate(),
            Datatype::Vlen(base) => base.validate(),
            Datatype::Array(a) => {
                if a.shape.is_empty() {
                    return Err(DatatypeError::EmptyArrayShape);
                }
                a.element_count().ok_or(DatatypeError::Overflow)?;
                a.base.validate()?;
                if a.base.size().is_some() && self.size().is_none() {
                    return Err(DatatypeError::Overflow);
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Whether any value holds a number wider than one byte, so that byte
    /// order matters for storing it.
    pub fn has_multibyte_numbers(&self) -> bool {
        match self {
            Datatype::Compound(c) => c.members.iter().any(|m| m.datatype.has_multibyte_numbers()),
            Datatype::Array(a) => a.base.has_multibyte_numbers(),
            Datatype::Vlen(base) => base.has_multibyte_numbers(),
            Datatype::Enum(e) => e.base.size() > 1,
            Datatype::FixedString(s) => s.charset.width() > 1,
            Datatype::Opaque(_) | Datatype::Bool | Datatype::String => false,
            Datatype::ObjRef | Datatype::RegRef(_) => false,
            other => other.size().is_some_and(|n| n > 1),
        }
    }

    /// Whether `self` and `other` store values the same way: the same
    /// members at the same offsets, of the same sizes and kinds. Enum member
    /// names, descriptions and opaque tags, which a `.npy` file cannot hold,
    /// do not count: an enum matches its base integer type.
    ///
    /// ```
    /// use ndl_runtime::{Datatype, Enum, EnumMember, IntType};
    ///
    /// let e = Datatype::Enum(Enum { base: IntType::UInt8, members: vec![EnumMember::new("A", 0)] });
    /// assert!(e.same_layout(&Datatype::UInt8));
    /// assert!(!e.same_layout(&Datatype::Int8));
    /// ```
    pub fn same_layout(&self, other: &Datatype) -> bool {
        self.storage_form() == other.storage_form()
    }

    /// `self` with what only describes values, not their storage, removed.
    fn storage_form(&self) -> Datatype {
        match self {
            Datatype::Enum(e) => Datatype::from(e.base),
            Datatype::Opaque(o) => Datatype::Opaque(Opaque {
                size: o.size,
                tag: None,
            }),
            Datatype::Compound(c) => Datatype::Compound(Compound {
                size: c.size,
                members: c
                    .members
                    .iter()
                    .map(|m| Member::new(m.name.clone(), m.offset, m.datatype.storage_form()))
                    .collect(),
            }),
            Datatype::Array(a) => Datatype::Array(Array {
                base: Box::new(a.base.storage_form()),
                shape: a.shape.clone(),
            }),
            Datatype::Vlen(base) => Datatype::Vlen(Box::new(base.storage_form())),
            other => other.clone(),
        }
    }

    /// Wraps `self` in an array of `shape`, folding into an existing array
    /// datatype so `[[f32; 3]; 2]` becomes one `array {base: float32, shape: [2, 3]}`.
    pub fn array_of(self, shape: &[usize]) -> Datatype {
        if shape.is_empty() {
            return self;
        }
        match self {
            Datatype::Array(inner) => {
                let mut full = shape.to_vec();
                full.extend(inner.shape);
                Datatype::Array(Array {
                    base: inner.base,
                    shape: full,
                })
            }
            base => Datatype::Array(Array {
                base: Box::new(base),
                shape: shape.to_vec(),
            }),
        }
    }
}

impl Enum {
    /// An enum whose base is the smallest integer type holding every value
    /// (unsigned when none is negative), as NDL assumes when `base` is missing.
    pub fn with_inferred_base(members: Vec<EnumMember>) -> Result<Enum, DatatypeError> {
        let values: Vec<i128> = members.iter().map(|m| m.value).collect();
        let base = IntType::smallest_for(values.clone()).ok_or_else(|| {
            let (lowest, highest) = values.iter().fold((i128::MAX, i128::MIN), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
            DatatypeError::NoEnumBase { lowest, highest }
        })?;
        let e = Enum { base, members };
        e.validate()?;
        Ok(e)
    }

    /// The member with this value, if any.
    pub fn member_by_value(&self, value: i128) -> Option<&EnumMember> {
        self.members.iter().find(|m| m.value == value)
    }

    fn validate(&self) -> Result<(), DatatypeError> {
        let mut seen = HashSet::new();
        for m in &self.members {
            if !seen.insert(m.name.as_str()) {
                return Err(DatatypeError::DuplicateEnumMember(m.name.clone()));
            }
            if !self.base.contains(m.value) {
                return Err(DatatypeError::EnumValueOutOfRange {
                    name: m.name.clone(),
                    value: m.value,
                    base: self.base,
                });
            }
        }
        Ok(())
    }
}

impl EnumMember {
    /// A member named `name` with `value`.
    pub fn new(name: impl Into<String>, value: i128) -> EnumMember {
        EnumMember {
            name: name.into(),
            value,
        }
    }
}

impl Compound {
    /// Lays `members` out as a `#[repr(C)]` struct would: each at the next
    /// offset that is a multiple of its alignment, the record size rounded
    /// up to the largest alignment.
    pub fn c_layout<N: Into<String>>(
        members: impl IntoIterator<Item = (N, Datatype)>,
    ) -> Result<Compound, DatatypeError> {
        let mut offset = 0usize;
        let mut align = 1usize;
        let mut laid = Vec::new();
        for (name, datatype) in members {
            let name = name.into();
            let size = datatype
                .size()
                .ok_or_else(|| DatatypeError::VariableMember(name.clone()))?;
            let a = datatype.alignment();
            align = align.max(a);
            offset = round_up(offset, a).ok_or(DatatypeError::Overflow)?;
            laid.push(Member::new(name, offset, datatype));
            offset = offset.checked_add(size).ok_or(DatatypeError::Overflow)?;
        }
        let size = round_up(offset, align).ok_or(DatatypeError::Overflow)?;
        let c = Compound {
            size,
            members: laid,
        };
        c.validate()?;
        Ok(c)
    }

    /// The member named `name`, if any.
    pub fn member(&self, name: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.name == name)
    }

    /// Whether the members cover every byte of the record.
    pub fn is_packed(&self) -> bool {
        let mut end = 0;
        for m in &self.members {
            if m.offset != end {
                return false;
            }
            end += m.datatype.size().unwrap_or(0);
        }
        end == self.size
    }

    fn validate(&self) -> Result<(), DatatypeError> {
        let mut seen = HashSet::new();
        let mut end = 0usize;
        for m in &self.members {
            if !seen.insert(m.name.as_str()) {
                return Err(DatatypeError::DuplicateMember(m.name.clone()));
            }
            m.datatype.validate()?;
            m.validate_dims()?;
            let size = m
                .datatype
                .size()
                .ok_or_else(|| DatatypeError::VariableMember(m.name.clone()))?;
            if m.offset < end {
                return Err(DatatypeError::Overlap {
                    name: m.name.clone(),
                    offset: m.offset,
                    previous_end: end,
                });
            }
            end = m.offset.checked_add(size).ok_or(DatatypeError::Overflow)?;
            if end > self.size {
                return Err(DatatypeError::PastEnd {
                    name: m.name.clone(),
                    end,
                    size: self.size,
                });
            }
        }
        Ok(())
    }
}

impl Member {
    /// Checks that dimension names, if any, name each axis of an array
    /// member once.
    fn validate_dims(&self) -> Result<(), DatatypeError> {
        if self.dims.is_empty() {
            return Ok(());
        }
        let error = |why: String| DatatypeError::Dims {
            name: self.name.clone(),
            names: self.dims.len(),
            why,
        };
        let Datatype::Array(a) = &self.datatype else {
            return Err(error("the member is not an array".into()));
        };
        if a.shape.len() != self.dims.len() {
            return Err(error(format!("the array has {} axes", a.shape.len())));
        }
        let unique: HashSet<&String> = self.dims.iter().collect();
        if unique.len() != self.dims.len() || self.dims.iter().any(String::is_empty) {
            return Err(error("names must be distinct and not empty".into()));
        }
        Ok(())
    }

    /// A member without description.
    pub fn new(name: impl Into<String>, offset: usize, datatype: Datatype) -> Member {
        Member {
            name: name.into(),
            offset,
            datatype,
            description: None,
            units: None,
            dims: Vec::new(),
        }
    }
}

impl Array {
    /// The number of elements, or `None` on overflow.
    pub fn element_count(&self) -> Option<usize> {
        self.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
    }
}

fn round_up(n: usize, align: usize) -> Option<usize> {
    n.checked_add(align - 1).map(|v| v / align * align)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_layout_pads_like_repr_c() {
        let c = Compound::c_layout([
            ("a", Datatype::UInt8),
            ("b", Datatype::Float64),
            ("c", Datatype::UInt16),
        ])
        .unwrap();
        let offsets: Vec<_> = c.members.iter().map(|m| m.offset).collect();
        assert_eq!(offsets, [0, 8, 16]);
        assert_eq!(c.size, 24);
        assert!(!c.is_packed());
    }

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

    #[test]
    fn overlap_and_duplicates_are_rejected() {
        let c = Compound {
            size: 8,
            members: vec![
                Member::new("a", 0, Datatype::UInt32),
                Member::new("b", 2, Datatype::UInt32),
            ],
        };
        assert!(matches!(c.validate(), Err(DatatypeError::Overlap { .. })));
        let d = Compound::c_layout([("a", Datatype::UInt8), ("a", Datatype::UInt8)]);
        assert_eq!(d, Err(DatatypeError::DuplicateMember("a".into())));
    }

    #[test]
    fn arrays_fold() {
        let dt = Datatype::Float32.array_of(&[3]).array_of(&[2]);
        assert_eq!(
            dt,
            Datatype::Array(Array {
                base: Box::new(Datatype::Float32),
                shape: vec![2, 3]
            })
        );
        assert_eq!(dt.size(), Some(24));
    }
}

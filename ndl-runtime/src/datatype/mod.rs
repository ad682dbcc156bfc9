//! The datatype model: every NDL datatype, plus the documented extensions
//! that Rust and NumPy need (bool, float16, complex, fixed-length strings,
//! time).

mod compound;
mod enumeration;
mod error;
mod int;
mod named;
mod time;

pub use compound::{Compound, Member};
pub use enumeration::{Enum, EnumMember};
pub use error::DatatypeError;
pub use int::IntType;
pub use named::NamedType;
pub use time::TimeType;

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
    /// Extension: a time value, NumPy's `datetime64` or `timedelta64` of
    /// a unit (`M8[ns]`, `m8[10ms]`): a signed 64-bit count, NaT `i64::MIN`.
    Time(TimeType),
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
    /// Extension `optional`: a value of the base datatype, or none (an
    /// Arrow null; a fill value where a format has no nulls). It has no
    /// fixed size: storing "none" is the format's business, so it has no
    /// place in a fixed record. NDL YAML `{optional: {base: int32}}`.
    Optional(Box<Datatype>),
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

/// The kind of selection a region reference points to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Selection {
    /// Contiguous blocks given by two opposite corners.
    Block,
    /// Individual elements.
    Element,
}

/// An array datatype: `shape` elements of `base`, in C order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Array {
    /// The element datatype. [`Datatype::array_of`] folds nested arrays into
    /// one; a NumPy subarray of a subarray (`('c', ('<f8', (5,)), (2,))`)
    /// keeps its nesting, and [`Datatype::folded`] gives its folded form.
    pub base: Box<Datatype>,
    /// The extent of each dimension.
    pub shape: Vec<usize>,
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

    /// The element datatype under any arrays, and the arrays' dimensions,
    /// outermost first; the datatype itself and none where it is no
    /// array.
    ///
    /// ```
    /// use ndl_runtime::Datatype;
    ///
    /// let grid = Datatype::Int16.array_of(&[3]).array_of(&[2]);
    /// assert_eq!(grid.innermost(), (&Datatype::Int16, vec![2, 3]));
    /// assert_eq!(Datatype::Bool.innermost(), (&Datatype::Bool, vec![]));
    /// ```
    pub fn innermost(&self) -> (&Datatype, Vec<usize>) {
        match self {
            Datatype::Array(a) => {
                let (base, inner) = a.base.innermost();
                (base, [a.shape.clone(), inner].concat())
            }
            other => (other, Vec::new()),
        }
    }

    /// Size in bytes of one value, or `None` for variable-length datatypes
    /// (`string`, `vlen`) and references, whose storage depends on the file format.
    pub fn size(&self) -> Option<usize> {
        Some(match self {
            Datatype::String
            | Datatype::Vlen(_)
            | Datatype::Optional(_)
            | Datatype::ObjRef
            | Datatype::RegRef(_) => return None,
            Datatype::Bool => 1,
            Datatype::Float16 => 2,
            Datatype::Float32 => 4,
            Datatype::Float64 | Datatype::Complex64 | Datatype::Time(_) => 8,
            Datatype::Complex128 => 16,
            Datatype::FixedString(s) => s.length.checked_mul(s.charset.width())?,
            Datatype::Opaque(o) => o.size,
            Datatype::Enum(e) => e.base.size(),
            Datatype::Compound(c) if c.is_variable() => return None,
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
            Datatype::Vlen(base) | Datatype::Optional(base) => base.validate(),
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
            Datatype::Vlen(base) | Datatype::Optional(base) => base.has_multibyte_numbers(),
            Datatype::Enum(e) => e.base.size() > 1,
            Datatype::FixedString(s) => s.charset.width() > 1,
            Datatype::Opaque(_) | Datatype::Bool | Datatype::String => false,
            Datatype::ObjRef | Datatype::RegRef(_) => false,
            other => other.size().is_some_and(|n| n > 1),
        }
    }

    /// Whether `self` and `other` store values the same way: the same
    /// members at the same offsets, of the same sizes and kinds, in
    /// whatever order each declares them. Enum member
    /// names, descriptions and opaque tags, which a `.npy` file cannot hold,
    /// do not count: an enum matches its base integer type.
    ///
    /// ```
    /// use ndl_runtime::{Datatype, Enum, EnumMember, IntType};
    ///
    /// let e = Datatype::Enum(Enum { base: IntType::UInt8, members: vec![EnumMember::new("A", 0)] });
    /// assert!(e.same_layout(&Datatype::UInt8));
    /// assert!(!e.same_layout(&Datatype::Int8));
    ///
    /// use ndl_runtime::{Compound, Member};
    /// let b_first = Compound {
    ///     size: 16,
    ///     members: vec![Member::new("b", 8, Datatype::Float64), Member::new("a", 0, Datatype::Int32)],
    /// };
    /// let a_first = Compound { members: b_first.members.iter().rev().cloned().collect(), ..b_first.clone() };
    /// assert!(Datatype::Compound(b_first).same_layout(&Datatype::Compound(a_first)));
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
                    .by_offset()
                    .into_iter()
                    .map(|m| Member::new(m.name.clone(), m.offset, m.datatype.storage_form()))
                    .collect(),
            }),
            Datatype::Array(a) => Datatype::Array(Array {
                base: Box::new(a.base.storage_form()),
                shape: a.shape.clone(),
            }),
            Datatype::Vlen(base) => Datatype::Vlen(Box::new(base.storage_form())),
            Datatype::Optional(base) => Datatype::Optional(Box::new(base.storage_form())),
            other => other.clone(),
        }
    }

    /// `self` with every array of arrays folded into one array, as
    /// [`Datatype::array_of`] builds them: the same bytes, described the
    /// way a Rust type's datatype describes them.
    ///
    /// ```
    /// use ndl_runtime::{Array, Datatype};
    ///
    /// let nested = Datatype::Array(Array { base: Box::new(Datatype::Float64.array_of(&[5])), shape: vec![2] });
    /// assert_eq!(nested.folded(), Datatype::Float64.array_of(&[2, 5]));
    /// ```
    pub fn folded(&self) -> Datatype {
        match self {
            Datatype::Array(a) => a.base.folded().array_of(&a.shape),
            Datatype::Compound(c) => Datatype::Compound(Compound {
                size: c.size,
                members: c
                    .members
                    .iter()
                    .map(|m| Member {
                        datatype: m.datatype.folded(),
                        ..m.clone()
                    })
                    .collect(),
            }),
            Datatype::Vlen(base) => Datatype::Vlen(Box::new(base.folded())),
            Datatype::Optional(base) => Datatype::Optional(Box::new(base.folded())),
            other => other.clone(),
        }
    }

    /// The dotted path of the first member that no fixed-size layout holds
    /// (a `string`, `vlen` or `optional`, at any depth): empty when `self`
    /// is one, `None` when every member has a fixed size.
    ///
    /// ```
    /// use ndl_runtime::{Datatype, Record};
    ///
    /// #[derive(Record)]
    /// struct Venue { code: u16, name: String }
    /// #[derive(Record)]
    /// struct Trade { id: u64, venue: Venue }
    ///
    /// assert_eq!(Trade::datatype().variable_member().as_deref(), Some("venue.name"));
    /// assert_eq!(Datatype::Float64.variable_member(), None);
    /// ```
    pub fn variable_member(&self) -> Option<String> {
        match self {
            Datatype::String | Datatype::Vlen(_) | Datatype::Optional(_) => Some(String::new()),
            Datatype::Compound(c) => c.members.iter().find_map(|m| {
                m.datatype
                    .variable_member()
                    .map(|rest| match rest.is_empty() {
                        true => m.name.clone(),
                        false => format!("{}.{rest}", m.name),
                    })
            }),
            Datatype::Array(a) => a.base.variable_member(),
            _ => None,
        }
    }

    /// The datatype of the member at dotted `path` (`venue.code`) of a
    /// compound, through options, lists and arrays of compounds as
    /// [`Column::member_mut`](crate::record::Column::member_mut) finds its
    /// column (a list of records' `legs.qty` is the `qty` of its items);
    /// `None` when there is none.
    ///
    /// ```
    /// use ndl_runtime::{Datatype, Record};
    ///
    /// #[derive(Record)]
    /// struct Leg { qty: Option<i32> }
    /// #[derive(Record)]
    /// struct Trip { legs: Vec<Leg> }
    ///
    /// let mut trip = Trip::datatype();
    /// let qty = trip.member_mut("legs.qty").unwrap();
    /// assert_eq!(*qty, Datatype::Optional(Box::new(Datatype::Int32)));
    /// assert_eq!(trip.member_mut("legs.price"), None);
    /// ```
    pub fn member_mut(&mut self, path: &str) -> Option<&mut Datatype> {
        path.split('.').try_fold(self, |datatype, name| {
            let Datatype::Compound(compound) = datatype.items_mut() else {
                return None;
            };
            compound
                .members
                .iter_mut()
                .find(|m| m.name == name)
                .map(|m| &mut m.datatype)
        })
    }

    /// The datatype below every option, list and array around this one.
    fn items_mut(&mut self) -> &mut Datatype {
        match self {
            Datatype::Optional(inner) | Datatype::Vlen(inner) => inner.items_mut(),
            Datatype::Array(array) => array.base.items_mut(),
            other => other,
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

impl Array {
    /// The number of elements, or `None` on overflow.
    pub fn element_count(&self) -> Option<usize> {
        self.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

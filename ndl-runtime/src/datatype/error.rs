//! Why a datatype is not well formed.

use super::IntType;

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
    /// [`Compound::variable`](crate::Compound::variable) was given only
    /// fixed-size members.
    #[error(
        "a variable-size compound needs a variable-length member; lay fixed members out with `Compound::c_layout`"
    )]
    NotVariable,
    /// A member of a variable-size compound has an offset.
    #[error(
        "compound member `{0}` has an offset, but its compound has a variable-length member and so no layout; build it with `Compound::variable`"
    )]
    VariableOffset(String),
    /// A variable-size compound has a size.
    #[error(
        "a compound with a variable-length member has no size, but it says {0}; build it with `Compound::variable`"
    )]
    VariableSize(usize),
    /// A compound member starts before the member below it (by offset)
    /// ends.
    #[error(
        "compound member `{name}` at offset {offset} overlaps the member below it, which ends at {previous_end}"
    )]
    Overlap {
        /// The member.
        name: String,
        /// Its offset.
        offset: usize,
        /// Where the member below it ends.
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

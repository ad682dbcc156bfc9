//! Enums: named constants of an integer base.

use std::collections::HashSet;

use super::{DatatypeError, IntType};

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

    pub(super) fn validate(&self) -> Result<(), DatatypeError> {
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

//! Compounds: named members at byte offsets within a record.

use std::collections::HashSet;

use super::{Datatype, DatatypeError};

/// A compound datatype: named members at byte offsets within a record.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Compound {
    /// Record size in bytes, padding included.
    pub size: usize,
    /// Members in their declared order: a file's compound keeps the order
    /// its writer gave (h5py's member-index order), and NumPy's dtypes
    /// allow the same, so offsets need not ascend. Members never overlap.
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

    /// A compound of variable size, such as a `#[derive(Record)]` struct
    /// with a `String`, `Vec` or `Option` field: at least one member has no
    /// fixed size, so the record has none either. Its layout is each
    /// format's business, so it carries none: every offset and the `size`
    /// are 0, and [`Datatype::size`] is `None`. Members keep their order,
    /// names, descriptions and units.
    ///
    /// This is the only way to build a valid compound with a
    /// variable-length member; a compound of fixed members is laid out
    /// with [`Compound::c_layout`] or given explicit offsets.
    ///
    /// ```
    /// use ndl_runtime::{Compound, Datatype, Member};
    ///
    /// let c = Compound::variable([
    ///     Member::new("id", 0, Datatype::UInt64),
    ///     Member::new("name", 0, Datatype::String),
    /// ])
    /// .unwrap();
    /// assert!(c.is_variable());
    /// assert_eq!(Datatype::Compound(c).size(), None);
    /// ```
    pub fn variable(members: impl IntoIterator<Item = Member>) -> Result<Compound, DatatypeError> {
        let members: Vec<Member> = members
            .into_iter()
            .map(|m| Member { offset: 0, ..m })
            .collect();
        let c = Compound { size: 0, members };
        if !c.is_variable() {
            return Err(DatatypeError::NotVariable);
        }
        c.validate()?;
        Ok(c)
    }

    /// Whether a member has no fixed size, so the record has none (see
    /// [`Compound::variable`]).
    pub fn is_variable(&self) -> bool {
        self.members.iter().any(|m| m.datatype.size().is_none())
    }

    /// The member named `name`, if any.
    pub fn member(&self, name: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.name == name)
    }

    /// The members by ascending offset (ties in declared order): the order
    /// of formats whose field lists are read back to back, such as NumPy's
    /// `descr`, which cannot say any other.
    pub fn by_offset(&self) -> Vec<&Member> {
        let mut sorted: Vec<&Member> = self.members.iter().collect();
        sorted.sort_by_key(|m| m.offset);
        sorted
    }

    /// Whether the members cover every byte of the record, in whatever
    /// order they are declared.
    pub fn is_packed(&self) -> bool {
        let mut end = 0;
        for m in self.by_offset() {
            if m.offset != end {
                return false;
            }
            end += m.datatype.size().unwrap_or(0);
        }
        end == self.size
    }

    pub(super) fn validate(&self) -> Result<(), DatatypeError> {
        let mut seen = HashSet::new();
        for m in &self.members {
            if !seen.insert(m.name.as_str()) {
                return Err(DatatypeError::DuplicateMember(m.name.clone()));
            }
            m.datatype.validate()?;
            m.validate_dims()?;
        }
        if self.is_variable() {
            return self.validate_variable();
        }
        let mut end = 0usize;
        for m in self.by_offset() {
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

    /// A variable compound has no layout: a member at an offset, or a
    /// size, would claim one that no format keeps.
    fn validate_variable(&self) -> Result<(), DatatypeError> {
        if let Some(m) = self.members.iter().find(|m| m.offset != 0) {
            return Err(DatatypeError::VariableOffset(m.name.clone()));
        }
        if self.size != 0 {
            return Err(DatatypeError::VariableSize(self.size));
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
    fn members_out_of_offset_order_are_valid_and_can_be_packed() {
        let c = Compound {
            size: 12,
            members: vec![
                Member::new("b", 4, Datatype::Float64),
                Member::new("a", 0, Datatype::Int32),
            ],
        };
        assert_eq!(c.validate(), Ok(()));
        assert!(c.is_packed());
        let names: Vec<_> = c.by_offset().iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
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
        let reversed = Compound {
            size: 8,
            members: c.members.into_iter().rev().collect(),
        };
        assert!(matches!(
            reversed.validate(),
            Err(DatatypeError::Overlap { .. })
        ));
        let d = Compound::c_layout([("a", Datatype::UInt8), ("a", Datatype::UInt8)]);
        assert_eq!(d, Err(DatatypeError::DuplicateMember("a".into())));
    }
}

//! The packed form of a datatype: its fields back to back, no gaps.

use crate::record_plan::{BadValue, RecordPlan};
use crate::{Array, ByteOrder, Compound, Datatype, Member};

/// The packed form of a fixed-size datatype: every compound's members back
/// to back with no gaps, nested compounds and arrays of compounds too.
///
/// It knows how to byte-swap every number of a packed record and how to
/// check its bools and enums.
#[derive(Clone, Debug)]
pub struct PackedLayout {
    datatype: Datatype,
    /// The plan of `datatype` in the opposite byte order: its swaps turn
    /// every number around; its checks do not depend on the order.
    plan: RecordPlan,
}

/// Why a datatype cannot be packed or a type cannot be packed with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PackError {
    /// Variable-length data or references have no fixed-size record.
    #[error("the datatype has no fixed size (variable-length data or references)")]
    NotFixedSize,
    /// The type's datatype does not describe its size (a wrong `NdlType` impl).
    #[error(
        "the type's datatype is {datatype} bytes but the type is {size} (a wrong NdlType impl)"
    )]
    WrongSize {
        /// The datatype's size.
        datatype: usize,
        /// `size_of::<T>()`.
        size: usize,
    },
}

/// A bool or enum value in packed bytes that its datatype does not admit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("record {record}, field `{field}` (byte {offset} of the packed record): {message}")]
pub struct InvalidValue {
    /// The record's index within the bytes checked.
    pub record: usize,
    /// The dotted path of the field (`pos.flags[3]`).
    pub field: String,
    /// The byte offset of the value within the packed record.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl PackedLayout {
    /// The packed form of `dt`.
    ///
    /// ```
    /// use ndl_runtime::records::PackedLayout;
    /// use ndl_runtime::{Compound, Datatype};
    ///
    /// let padded = Compound::c_layout([("a", Datatype::UInt8), ("b", Datatype::Float64)])?;
    /// let packed = PackedLayout::new(&Datatype::Compound(padded))?;
    /// assert_eq!(packed.size(), 9);
    /// let Datatype::Compound(c) = packed.datatype() else { unreachable!() };
    /// assert_eq!(c.members[1].offset, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(dt: &Datatype) -> Result<PackedLayout, PackError> {
        let datatype = packed(dt).ok_or(PackError::NotFixedSize)?;
        let plan = RecordPlan::new(&datatype, ByteOrder::NATIVE.opposite())
            .ok_or(PackError::NotFixedSize)?;
        Ok(PackedLayout { datatype, plan })
    }

    /// The packed datatype.
    pub fn datatype(&self) -> &Datatype {
        &self.datatype
    }

    /// The packed record size in bytes.
    pub fn size(&self) -> usize {
        self.plan.itemsize
    }

    /// Whether any number is wider than a byte, so that the byte order matters.
    pub fn has_multibyte_numbers(&self) -> bool {
        !self.plan.swaps.is_empty()
    }

    /// Reverses the bytes of every number of every whole record in `bytes`:
    /// from one byte order to the other.
    pub fn swap(&self, bytes: &mut [u8]) {
        self.plan.swap(bytes);
    }

    /// Checks the bools (0 or 1) and enums (a member's value) of every whole
    /// record in `bytes`, in native byte order; the first bad value.
    pub fn check(&self, bytes: &[u8]) -> Result<(), InvalidValue> {
        self.plan.validate(bytes).map_err(|bad| self.invalid(&bad))
    }

    fn invalid(&self, bad: &BadValue) -> InvalidValue {
        let (field, message) = bad.explain(&self.datatype);
        InvalidValue {
            record: bad.record,
            field,
            offset: bad.offset,
            message,
        }
    }
}

/// The packed form of `dt`, `None` without a fixed size.
fn packed(dt: &Datatype) -> Option<Datatype> {
    Some(match dt {
        Datatype::Compound(c) => {
            let mut offset = 0;
            let mut members = Vec::with_capacity(c.members.len());
            for m in &c.members {
                let datatype = packed(&m.datatype)?;
                let size = datatype.size()?;
                members.push(Member {
                    offset,
                    datatype,
                    ..m.clone()
                });
                offset += size;
            }
            Datatype::Compound(Compound {
                size: offset,
                members,
            })
        }
        Datatype::Array(a) => Datatype::Array(Array {
            base: Box::new(packed(&a.base)?),
            shape: a.shape.clone(),
        }),
        other => {
            other.size()?;
            other.clone()
        }
    })
}

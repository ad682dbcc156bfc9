//! Elements whose numbers do not all share one byte order: NumPy lets each
//! field of a record have its own (`[('a', '<u8'), ('b', '>f8')]`), and so
//! do HDF5 compounds. Formats that give every number of an element one
//! order take such elements after [`MixedOrder::to_one_order`].

use std::ops::Range;

use crate::record_plan::RecordPlan;
use crate::{ByteOrder, Datatype};

/// The numbers of elements of one datatype that lie in some byte ranges,
/// stored in the order opposite to the rest.
///
/// ```
/// use ndl_runtime::{Compound, Datatype, Member, MixedOrder};
///
/// let dt = Datatype::Compound(Compound {
///     size: 10,
///     members: vec![Member::new("a", 0, Datatype::UInt16), Member::new("b", 2, Datatype::UInt64)],
/// });
/// // `b` is big-endian, `a` little-endian.
/// let mixed = MixedOrder::new(&dt, &[2..10]).unwrap();
/// let mut element = [&1u16.to_le_bytes()[..], &7u64.to_be_bytes()].concat();
/// mixed.to_one_order(&mut element);
/// assert_eq!(element, [&1u16.to_le_bytes()[..], &7u64.to_le_bytes()].concat());
/// assert!(MixedOrder::new(&dt, &[]).is_none());
/// ```
#[derive(Clone, Debug)]
pub struct MixedOrder {
    /// Swaps exactly the numbers in the other order.
    plan: RecordPlan,
}

impl MixedOrder {
    /// For elements of `datatype` whose numbers in the byte ranges `other`
    /// (within one element) are in the order opposite to the rest. `None`
    /// when `other` is empty, or `datatype` has no fixed size.
    pub fn new(datatype: &Datatype, other: &[Range<usize>]) -> Option<MixedOrder> {
        if other.is_empty() {
            return None;
        }
        // A plan for "native" records whose other-order numbers are in the
        // opposite order swaps those numbers only.
        let plan = RecordPlan::with_orders(datatype, &|at| ByteOrder::NATIVE.at(other, at))?;
        Some(MixedOrder { plan })
    }

    /// Reverses the bytes of the numbers in the other order, in every
    /// whole element of `data`: afterwards every number of an element is
    /// in the order of the rest. Doing it again undoes it.
    pub fn to_one_order(&self, data: &mut [u8]) {
        self.plan.swap(data);
    }

    pub(crate) fn into_plan(self) -> RecordPlan {
        self.plan
    }
}

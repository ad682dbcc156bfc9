//! What one array holds, as every format's readers and writers agree on
//! it: plain data.

use std::ops::Range;

use crate::{ByteOrder, Datatype, Order};

/// One array: its element datatype with the exact byte layout of an
/// element (offsets, padding, size), the byte order of its numbers, its
/// shape and the order of its elements.
///
/// What readers and writers of every format agree an array is: the
/// sources and sinks of `ndl-formats` hand elements laid out so.
///
/// ```
/// use ndl_runtime::{ArraySpec, ByteOrder, Datatype, Order};
///
/// let spec = ArraySpec::new(Datatype::Float64, vec![3, 4]);
/// assert_eq!(spec.len(), Some(12));
/// assert_eq!(spec.element_size(), 8);
/// assert_eq!(spec.order, Order::C);
/// assert_eq!(spec.byte_order, ByteOrder::NATIVE);
/// assert!(!spec.mixes_byte_orders());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ArraySpec {
    /// The element datatype, as the bytes lay it out.
    pub datatype: Datatype,
    /// The byte order of the multi-byte numbers of an element, all of
    /// them unless `other_order` lists some.
    pub byte_order: ByteOrder,
    /// The byte ranges, within one element, of the numbers stored in the
    /// order opposite to `byte_order`: a `.npy` record or HDF5 compound may
    /// give each field its own. Empty when every number is in
    /// `byte_order`.
    pub other_order: Vec<Range<usize>>,
    /// The order of the elements.
    pub order: Order,
    /// The shape; empty for a 0-d array (one element).
    pub shape: Vec<u64>,
}

impl ArraySpec {
    /// A C-order array in native byte order.
    pub fn new(datatype: Datatype, shape: Vec<u64>) -> ArraySpec {
        ArraySpec {
            datatype,
            byte_order: ByteOrder::NATIVE,
            other_order: Vec::new(),
            order: Order::C,
            shape,
        }
    }

    /// The number of elements, or `None` when it overflows `u64`.
    pub fn len(&self) -> Option<u64> {
        self.shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d))
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == Some(0)
    }

    /// Whether the numbers of an element are not all in one byte order.
    pub fn mixes_byte_orders(&self) -> bool {
        !self.other_order.is_empty()
    }

    /// The bytes of one element; 0 for a datatype of no fixed size.
    pub fn element_size(&self) -> usize {
        self.datatype.size().unwrap_or(0)
    }
}

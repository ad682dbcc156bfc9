//! Arrays of any rank, chunked in every dimension, in C or Fortran order:
//! written by a [`GridWriter`] and read by a [`GridReader`] as packed
//! elements in the order the array keeps them, a slab at a time.
//!
//! Both see the array as its elements are stored: a Fortran-order array of
//! shape `(a, b, c)` is, element for element, a C-order array of shape
//! `(c, b, a)`, its chunks reversed too. Slabs and chunks are cut in that
//! view ([`blocks`]); a chunk is turned to the array's own (C) order only
//! when zarrs encodes it, and back when it is decoded, for zarrs' own
//! `transpose` codec (v3, and v2's `order: "F"`) to store it in Fortran
//! order.

pub(crate) mod blocks;
mod read;
mod write;

pub use read::GridReader;
pub use write::GridWriter;

use ndl_runtime::Order;

use crate::metadata::ArrayMeta;

/// An array's shape and chunks as its elements are stored: reversed for
/// Fortran order.
#[derive(Clone, Debug)]
pub(crate) struct Stored {
    pub shape: Vec<u64>,
    pub chunks: Vec<u64>,
    pub fortran: bool,
    /// The bytes of a packed element.
    pub size: usize,
}

impl Stored {
    /// The stored view of the array `meta` describes.
    pub fn of(meta: &ArrayMeta) -> Stored {
        let fortran = meta.array_order == Order::Fortran && meta.shape.len() > 1;
        let flip = |v: &[u64]| -> Vec<u64> {
            let mut v = v.to_vec();
            if fortran {
                v.reverse();
            }
            v
        };
        Stored {
            shape: flip(&meta.shape),
            chunks: flip(&meta.chunk_shape),
            fortran,
            size: meta.stored.size().unwrap_or(0),
        }
    }

    /// The array's own indices of the chunk at `indices` in this view.
    pub fn chunk_indices(&self, indices: &[u64]) -> Vec<u64> {
        let mut at = indices.to_vec();
        if self.fortran {
            at.reverse();
        }
        at
    }

    /// A chunk's elements in this view from the C order zarrs decodes to.
    pub fn as_stored(&self, chunk: Vec<u8>) -> Vec<u8> {
        if !self.fortran {
            return chunk;
        }
        let mut own = self.chunks.clone();
        own.reverse();
        blocks::reverse_axes(&chunk, &own, self.size)
    }

    /// A chunk's elements in the C order zarrs encodes from this view's.
    pub fn for_encoding(&self, chunk: Vec<u8>) -> Vec<u8> {
        if !self.fortran {
            return chunk;
        }
        blocks::reverse_axes(&chunk, &self.chunks, self.size)
    }

    /// The bytes of a whole chunk.
    pub fn chunk_bytes(&self) -> usize {
        self.chunks.iter().product::<u64>() as usize * self.size
    }
}

//! Reading an array of any rank as its packed elements in storage order,
//! a slab at a time: the chunks a slab touches are decoded in parallel, in
//! groups that bound the memory they take, and the slab's part of each is
//! copied out.

use std::path::Path;

use ndl_runtime::Datatype;
use ndl_runtime::Order;
use ndl_runtime::records::PackedLayout;
use rayon::prelude::*;

use super::Stored;
use super::blocks::{Block, Slabs, chunk_block, chunks_touched, copy_region, slabs};
use crate::chunk_shape::SLAB_BYTES;
use crate::chunks::{ChunkIo, parallel};
use crate::error::{Error, Result};
use crate::metadata::ArrayMeta;
use crate::part_reader::shape_error;
use crate::store::Store;

/// Reads the one array of a store, of any rank and chunked in any
/// dimensions, as packed elements of its stored datatype in native byte
/// order, in the order the array keeps them (C, or Fortran for a v2
/// `order: "F"` array or a v3 array whose `transpose` reverses its
/// dimensions), with bools and enums checked.
///
/// Slabs are at most about 64 MiB when one index of the dimensions after
/// the first fits in that ([`SLAB_BYTES`](crate::SLAB_BYTES)); a chunk
/// that spans several slabs is decoded for each.
///
/// ```
/// use ndl_runtime::{Datatype, Order};
/// use ndl_zarr::{GridReader, GridWriter, WriteOptions};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("f.zarr");
/// let shape = [2, 3];
/// let mut w = GridWriter::create_with(&path, &Datatype::UInt8, &shape, Order::Fortran, &WriteOptions::new())?;
/// w.append(&[0, 3, 1, 4, 2, 5])?;
/// w.finish()?;
/// let mut r = GridReader::open(&path)?;
/// assert_eq!(r.order(), Order::Fortran);
/// assert_eq!(r.next_slab()?, Some(vec![0, 3, 1, 4, 2, 5]));
/// assert_eq!(r.next_slab()?, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct GridReader {
    chunks: ChunkIo,
    meta: ArrayMeta,
    stored: Stored,
    /// The stored elements, packed: their checks.
    layout: PackedLayout,
    slabs: Slabs,
    /// The elements read so far.
    done: u64,
}

impl std::fmt::Debug for GridReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GridReader")
            .field("chunks", &self.chunks)
            .field("done", &self.done)
            .finish()
    }
}

impl GridReader {
    /// Opens the array at the root of the store `dir`.
    pub fn open(dir: impl AsRef<Path>) -> Result<GridReader> {
        GridReader::read(&Store::open(dir.as_ref())?)
    }

    pub(crate) fn read(store: &Store) -> Result<GridReader> {
        let meta = ArrayMeta::read(store)?;
        let layout =
            PackedLayout::new(&meta.stored).map_err(|e| shape_error(store, e.to_string()))?;
        let chunks = ChunkIo::grid(store, &meta)?;
        let stored = Stored::of(&meta);
        let (axis, step) = slab_plan(&stored);
        Ok(GridReader {
            slabs: slabs(&stored.shape, axis, step),
            chunks,
            meta,
            stored,
            layout,
            done: 0,
        })
    }

    /// The array's shape.
    pub fn shape(&self) -> &[u64] {
        &self.meta.shape
    }

    /// The order of the elements read.
    pub fn order(&self) -> Order {
        if self.stored.fortran {
            Order::Fortran
        } else {
            Order::C
        }
    }

    /// The datatype of the elements read, packed.
    pub fn stored_datatype(&self) -> &Datatype {
        &self.meta.stored
    }

    /// The packed size of an element.
    pub fn element_size(&self) -> usize {
        self.stored.size
    }

    /// The number of elements in each slab but the last, or fewer: how
    /// many to read at a time so that no slab is decoded twice.
    pub fn slab_len(&self) -> u64 {
        let (axis, step) = slab_plan(&self.stored);
        match self.stored.shape.get(axis) {
            Some(&len) => {
                step.min(len.max(1)) * self.stored.shape[axis + 1..].iter().product::<u64>()
            }
            None => 1,
        }
    }

    /// The elements of the next slab, or `None` after the last.
    pub fn next_slab(&mut self) -> Result<Option<Vec<u8>>> {
        let Some(slab) = self.slabs.next() else {
            return Ok(None);
        };
        let size = self.stored.size;
        let mut out = vec![0; slab.len() as usize * size];
        let touched = chunks_touched(&slab, &self.stored.chunks);
        // Decoded chunks wait to be copied out: a group at a time, as many
        // as a quarter of a slab's bytes hold (at least one per thread).
        let group = (SLAB_BYTES as usize / 4 / self.stored.chunk_bytes().max(1))
            .max(rayon::current_num_threads());
        for at in touched.chunks(group) {
            let decoded = parallel(&self.chunks.store, || {
                at.par_iter()
                    .map(|at| {
                        let own = self.stored.chunk_indices(at);
                        Ok((at, self.stored.as_stored(self.chunks.read_chunk(&own)?)))
                    })
                    .collect::<Result<Vec<_>>>()
            })?;
            for (at, chunk) in decoded {
                let block = chunk_block(at, &self.stored.chunks);
                if let Some(region) = slab.overlap(&block) {
                    copy_region(&chunk, &block, &mut out, &slab, &region, size);
                }
            }
        }
        self.check(&slab, &out)?;
        self.done += slab.len();
        Ok(Some(out))
    }

    /// Checks the bools and enums of the elements of `slab`; an error
    /// names the element by its indices in the array, and counts it in the
    /// order read.
    fn check(&self, slab: &Block, out: &[u8]) -> Result<()> {
        self.layout.check(out).map_err(|bad| {
            let mut at = slab.origin.clone();
            let mut rest = bad.record as u64;
            for d in (0..at.len()).rev() {
                at[d] += rest % slab.extent[d];
                rest /= slab.extent[d];
            }
            let at = self.stored.chunk_indices(&at);
            Error::InvalidValue {
                store: self.chunks.store.name.clone(),
                chunk: at.first().map_or(0, |&i| i / self.chunks.chunk_len),
                record: self.done + bad.record as u64,
                field: bad.field,
                offset: bad.offset,
                message: format!("element {at:?}: {}", bad.message),
            }
        })
    }

    /// Every element left, in the array's order.
    pub fn read_all(&mut self) -> Result<Vec<u8>> {
        let mut all = Vec::new();
        while let Some(slab) = self.next_slab()? {
            all.extend_from_slice(&slab);
        }
        Ok(all)
    }
}

/// How a reader cuts the array in slabs: along the first dimension one
/// index of which fits in [`SLAB_BYTES`], whole chunks of it when they
/// fit, else as many indices as fit.
fn slab_plan(stored: &Stored) -> (usize, u64) {
    let size = stored.size.max(1) as u64;
    let rank = stored.shape.len();
    let row = |d: usize| {
        stored.shape[d + 1..]
            .iter()
            .fold(size, |n, &x| n.saturating_mul(x))
    };
    let axis = (0..rank)
        .find(|&d| row(d) <= SLAB_BYTES)
        .unwrap_or(rank.saturating_sub(1));
    if rank == 0 {
        return (0, 1);
    }
    let fit = (SLAB_BYTES / row(axis).max(1)).max(1);
    let chunk = stored.chunks[axis];
    let step = if chunk <= fit {
        fit / chunk * chunk
    } else {
        fit
    };
    (axis, step)
}

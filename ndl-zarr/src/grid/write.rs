//! Writing an array of any rank from its packed elements in storage order,
//! a slab at a time: every chunk a slab holds is encoded and stored as
//! soon as the slab is complete.

use std::borrow::Cow;
use std::path::Path;

use ndl_runtime::Datatype;
use ndl_runtime::Order;
use ndl_runtime::records::PackedLayout;
use rayon::prelude::*;
use serde_json::json;

use super::Stored;
use super::blocks::{Block, Slabs, chunk_block, chunks_touched, copy_region, slabs};
use crate::chunks::{ChunkIo, parallel};
use crate::error::{Error, Result};
use crate::layout::records::check_storable;
use crate::metadata::{ArrayMeta, Grid, NDL_DATATYPE};
use crate::options::{Layout, WriteOptions};
use crate::writer::{Held, all_written, dimension_names, prepare};

/// Writes one array of any rank from its packed elements (native byte
/// order) in the order it keeps them: made by
/// [`GridWriter::create_with`].
///
/// It holds one slab of elements in memory (see
/// [`default_chunk_shape`](crate::default_chunk_shape)): one chunk's extent
/// of the first dimension whose extent is above 1, in storage order, whole
/// along the later dimensions.
pub struct GridWriter {
    chunks: ChunkIo,
    meta: ArrayMeta,
    stored: Stored,
    slabs: Slabs,
    /// The slab being filled, and its elements so far.
    slab: Option<(Block, Vec<u8>)>,
    written: u64,
    held: Held,
}

impl std::fmt::Debug for GridWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GridWriter")
            .field("chunks", &self.chunks)
            .field("written", &self.written)
            .finish()
    }
}

impl GridWriter {
    /// Creates a store at `dir` (which must not exist, or be an empty
    /// directory) for one array of `shape` elements of `datatype`, whose
    /// elements are appended in `order` (C: the last index varies fastest;
    /// Fortran: the first), and returns its writer. The store keeps that
    /// order: a Fortran-order array of two or more dimensions is written
    /// as v2 `order: "F"` or with the v3 `transpose` codec.
    ///
    /// The array is chunked in every dimension, as
    /// [`chunks`](WriteOptions::chunks) says or by the
    /// [default rule](crate::default_chunk_shape). It appears (its
    /// metadata is written) only when the writer's
    /// [`finish`](GridWriter::finish) succeeds. Only the records layout
    /// holds arrays other than one-dimensional ones; sharding is not
    /// offered for them.
    ///
    /// ```
    /// use ndl_runtime::{Datatype, Order};
    /// use ndl_zarr::{GridReader, GridWriter, WriteOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("g.zarr");
    /// let options = WriteOptions::new().chunks(&[2, 2]);
    /// let mut w = GridWriter::create_with(&path, &Datatype::UInt8, &[3, 4], Order::C, &options)?;
    /// w.append(&(0..12).collect::<Vec<u8>>())?;
    /// assert_eq!(w.finish()?, 12);
    /// let mut r = GridReader::open(&path)?;
    /// assert_eq!(r.shape(), [3, 4]);
    /// assert_eq!(r.read_all()?, (0..12).collect::<Vec<u8>>());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_with(
        dir: impl AsRef<Path>,
        datatype: &Datatype,
        shape: &[u64],
        order: Order,
        options: &WriteOptions,
    ) -> Result<GridWriter> {
        let dir = dir.as_ref();
        if options.layout == Layout::Columns {
            return Err(Error::Unsupported {
                message: format!(
                    "the columns layout splits a one-dimensional array of records into columns; an array of shape {shape:?} is written in the records layout"
                ),
            });
        }
        if options.shard_len.is_some() {
            return Err(Error::Unsupported {
                message: format!(
                    "sharding is offered for one-dimensional arrays only, not shape {shape:?}"
                ),
            });
        }
        let packed = PackedLayout::new(datatype).map_err(|e| Error::Unsupported {
            message: e.to_string(),
        })?;
        let stored = packed.datatype().clone();
        check_storable(options, &stored)?;
        let chunks = options.chunk_shape_for(shape, packed.size())?;
        let mut attributes = options.attributes.clone();
        attributes.insert(NDL_DATATYPE.into(), json!(datatype));
        let dims = dimension_names(options, dir, shape.len());
        let grid = Grid {
            shape: shape.to_vec(),
            chunks,
            array_order: order,
        };
        let meta = ArrayMeta::gridded(options, &stored, grid, attributes, dims)?
            .with_options_fill(options)?;
        let (store, held) = Held::new_store(options, dir)?;
        prepare(&store)?;
        let chunks = ChunkIo::grid(&store, &meta)?;
        let stored = super::Stored::of(&meta);
        // The first dimension chunked in more than one index: a slab is
        // one chunk's extent of it, whole after it.
        let axis = stored.chunks.iter().position(|&c| c > 1);
        let axis = axis.unwrap_or(stored.shape.len().saturating_sub(1));
        let step = stored.chunks.get(axis).copied().unwrap_or(1);
        Ok(GridWriter {
            slabs: slabs(&stored.shape, axis, step),
            chunks,
            meta,
            stored,
            slab: None,
            written: 0,
            held,
        })
    }

    /// The array's shape.
    pub fn shape(&self) -> &[u64] {
        &self.meta.shape
    }

    /// The array's chunk shape.
    pub fn chunk_shape(&self) -> &[u64] {
        &self.meta.chunk_shape
    }

    /// The packed size of an element.
    pub fn element_size(&self) -> usize {
        self.stored.size
    }

    /// Appends whole packed elements in native byte order, in the array's
    /// order; every slab they complete is stored now.
    ///
    /// # Errors
    /// If `packed` is not a whole number of elements, or more than the
    /// array holds, or a chunk cannot be stored.
    pub fn append(&mut self, mut packed: &[u8]) -> Result<()> {
        let size = self.stored.size.max(1);
        if !packed.len().is_multiple_of(size) {
            return Err(self.unsupported(format!(
                "{} bytes are not whole elements of {size} bytes",
                packed.len()
            )));
        }
        while !packed.is_empty() {
            if self.slab.is_none() {
                let Some(block) = self.slabs.next() else {
                    let total: u64 = self.meta.shape.iter().product();
                    return Err(self.unsupported(format!(
                        "{} more elements than the {total} of shape {:?}",
                        packed.len() / size,
                        self.meta.shape
                    )));
                };
                let bytes = Vec::with_capacity(block.len() as usize * size);
                self.slab = Some((block, bytes));
            }
            let Some((block, bytes)) = &mut self.slab else {
                unreachable!("a slab was just begun")
            };
            let want = block.len() as usize * size - bytes.len();
            let n = want.min(packed.len());
            bytes.extend_from_slice(&packed[..n]);
            packed = &packed[n..];
            self.written += (n / size) as u64;
            if n == want {
                let (block, bytes) = self.slab.take().expect("a slab is being filled");
                self.store_slab(&block, &bytes)?;
            }
        }
        Ok(())
    }

    /// Encodes and stores every chunk of a complete slab, in parallel.
    fn store_slab(&self, slab: &Block, bytes: &[u8]) -> Result<()> {
        let stored = &self.stored;
        let store_all = || {
            chunks_touched(slab, &stored.chunks)
                .into_par_iter()
                .try_for_each(|at| {
                    let chunk = chunk_block(&at, &stored.chunks);
                    let mut out = vec![0; stored.chunk_bytes()];
                    if let Some(region) = slab.overlap(&chunk) {
                        copy_region(bytes, slab, &mut out, &chunk, &region, stored.size);
                    }
                    let out = stored.for_encoding(out);
                    self.chunks
                        .write_chunk(&stored.chunk_indices(&at), Cow::Owned(out))
                })
        };
        parallel(&self.chunks.store, store_all)
    }

    /// Writes the metadata once every element is stored (and publishes a
    /// store built out of sight); returns the number of elements.
    ///
    /// # Errors
    /// If fewer elements were appended than the array holds.
    pub fn finish(self) -> Result<u64> {
        let total = all_written(
            &self.chunks.store,
            self.written,
            &self.meta.shape,
            "elements",
        )?;
        self.held.check()?;
        self.meta.write(&self.chunks.store, true)?;
        self.held.release()?;
        Ok(total)
    }

    /// Writes the metadata of an array none of whose elements was
    /// appended: no chunk is stored, and every element reads as the fill
    /// value, as zarr-python leaves an array it made and never wrote (an
    /// array of any size costs its metadata alone). Returns the number of
    /// elements.
    ///
    /// # Errors
    /// If some elements were appended.
    ///
    /// ```
    /// use ndl_runtime::{Datatype, Order};
    /// use ndl_zarr::{GridReader, GridWriter, WriteOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("g.zarr");
    /// let w = GridWriter::create_with(&path, &Datatype::UInt8, &[1 << 40, 4], Order::C,
    ///     &WriteOptions::new())?;
    /// assert_eq!(w.finish_unwritten()?, 1 << 42);
    /// assert_eq!(GridReader::open(&path)?.shape(), [1 << 40, 4]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn finish_unwritten(self) -> Result<u64> {
        if self.written > 0 {
            return Err(self.unsupported(format!(
                "{} elements were appended: finish stores them",
                self.written
            )));
        }
        let shape = &self.stored.shape;
        let total = match shape.contains(&0) {
            true => Some(0),
            false => shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d)),
        };
        let total = total.ok_or_else(|| {
            self.unsupported(format!(
                "the shape {:?} holds more elements than 2^64",
                self.stored.shape
            ))
        })?;
        self.held.check()?;
        self.meta.write(&self.chunks.store, true)?;
        self.held.release()?;
        Ok(total)
    }

    fn unsupported(&self, message: String) -> Error {
        Error::Unsupported {
            message: format!("{}: {message}", self.chunks.store.name),
        }
    }
}

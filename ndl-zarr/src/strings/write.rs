//! Writing an array of variable-length strings or byte strings, of any
//! rank, in v3 (`string`, `variable_length_bytes`) or v2 (`|O` with
//! `vlen-utf8` / `vlen-bytes`), as zarr-python writes them: values taken
//! in C order, a slab of chunk rows held and stored by zarrs.

use std::path::Path;

use zarrs::array::{ArrayBytes, ArrayBytesOffsets, ArraySubset, CodecOptions};

use super::meta::{VlenKind, VlenMeta};
use super::read::{Engine, engine};
use super::values::VlenValues;
use crate::error::{Error, Result};
use crate::options::WriteOptions;
use crate::store::Store;
use crate::writer::{Held, all_written, dimension_names, prepare};

/// The bytes a value is guessed to take when the default chunk shape is
/// chosen.
const GUESSED_VALUE_BYTES: usize = 16;

impl WriteOptions {
    /// Creates a new store at `dir` holding one array of `shape`
    /// variable-length values of `kind`, written in C order with
    /// [`VlenWriter::append`]. The format, codec, chunks (the default rule
    /// guesses 16 bytes a value), publishing and durability are these
    /// options'; the layout and byte order do not apply.
    ///
    /// ```
    /// use ndl_zarr::{VlenKind, WriteOptions, ZarrFormat};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("b.zarr");
    /// let options = WriteOptions::new().zarr_format(ZarrFormat::V2).chunks(&[1, 2]);
    /// let mut w = options.create_vlen(&path, VlenKind::Bytes, &[2, 2])?;
    /// for v in [&b"a"[..], b"", b"\x00\x01", b"xyz"] {
    ///     w.append(v)?;
    /// }
    /// assert_eq!(w.finish()?, 4);
    /// assert_eq!(ndl_zarr::read_byte_strings(&path)?[3], b"xyz");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_vlen(
        &self,
        dir: impl AsRef<Path>,
        kind: VlenKind,
        shape: &[u64],
    ) -> Result<VlenWriter> {
        VlenWriter::create(self, dir.as_ref(), kind, shape)
    }

    /// Writes `values`, UTF-8 strings in C order, as a new store at `dir`
    /// holding one array of `shape`, published whole once written.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("s.zarr");
    /// ndl_zarr::WriteOptions::new().write_strings(&path, &[2, 1], &["x", "yz"])?;
    /// assert_eq!(ndl_zarr::read_strings(&path)?, ["x", "yz"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_strings<S: AsRef<str>>(
        &self,
        dir: impl AsRef<Path>,
        shape: &[u64],
        values: &[S],
    ) -> Result<()> {
        let options = self.clone().publish_on_finish(true);
        let mut w = options.create_vlen(dir, VlenKind::Text, shape)?;
        for v in values {
            w.append(v.as_ref().as_bytes())?;
        }
        w.finish().map(drop)
    }

    /// Writes `values`, byte strings in C order, as a new store at `dir`
    /// holding one array of `shape`, published whole once written.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("b.zarr");
    /// ndl_zarr::WriteOptions::new().write_byte_strings(&path, &[2], &[b"\xff".to_vec(), vec![]])?;
    /// assert_eq!(ndl_zarr::read_byte_strings(&path)?, [vec![0xff], vec![]]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_byte_strings<B: AsRef<[u8]>>(
        &self,
        dir: impl AsRef<Path>,
        shape: &[u64],
        values: &[B],
    ) -> Result<()> {
        let options = self.clone().publish_on_finish(true);
        let mut w = options.create_vlen(dir, VlenKind::Bytes, shape)?;
        for v in values {
            w.append(v.as_ref())?;
        }
        w.finish().map(drop)
    }
}

/// Writes one array of variable-length values of any rank, in C order:
/// made by [`WriteOptions::create_vlen`]. It holds one slab of values (one
/// chunk's extent of the first dimension, whole along the others) and
/// publishes the store on [`finish`](Self::finish).
pub struct VlenWriter {
    store: Store,
    meta: VlenMeta,
    engine: Engine,
    held: Held,
    slab: VlenValues,
    /// The first row of the slab being filled.
    row: u64,
    written: u64,
}

impl std::fmt::Debug for VlenWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VlenWriter")
            .field("store", &self.store.name)
            .field("written", &self.written)
            .finish()
    }
}

impl VlenWriter {
    fn create(
        options: &WriteOptions,
        dir: &Path,
        kind: VlenKind,
        shape: &[u64],
    ) -> Result<VlenWriter> {
        if options.shard_len.is_some() {
            return Err(Error::Unsupported {
                message: "sharding is not offered for variable-length values".into(),
            });
        }
        let chunks = options.chunk_shape_for(shape, GUESSED_VALUE_BYTES)?;
        let dims = dimension_names(options, dir, shape.len());
        let (store, held) = Held::new_store(options, dir)?;
        prepare(&store)?;
        VlenWriter::create_in(options, store, held, kind, (shape, &chunks), (dims, None))
    }

    /// The writer of a new array of `shape` values of `kind`, chunked as
    /// `chunks`, in `store` (which `held` holds), its dimensions named
    /// `dims`, its `fill_value` `fill` (the empty string by default): a
    /// column of a group too.
    pub(crate) fn create_in(
        options: &WriteOptions,
        store: Store,
        held: Held,
        kind: VlenKind,
        (shape, chunks): (&[u64], &[u64]),
        (dims, fill): (Vec<String>, Option<&str>),
    ) -> Result<VlenWriter> {
        let meta = VlenMeta::new(
            options.format,
            kind,
            (shape.to_vec(), chunks.to_vec()),
            options.effective_codec(),
            (dims, &options.attributes),
            fill,
        )?;
        let engine = engine(&store, &meta)?;
        Ok(VlenWriter {
            store,
            meta,
            engine,
            held,
            slab: VlenValues::default(),
            row: 0,
            written: 0,
        })
    }

    /// The writer that appends to the one-dimensional array in `store`
    /// after its first `len` values, its length growing as
    /// [`create_in`](Self::create_in)'s of `shape` does: the values of a
    /// partial last chunk are held again, to be stored with those that
    /// follow them.
    pub(crate) fn reopen_growing(store: Store, len: u64, shape: u64) -> Result<VlenWriter> {
        let reader = super::VlenReader::read(store.clone())?;
        let mut meta = reader.meta().clone();
        let chunk = meta.chunk_shape.first().copied().unwrap_or(0);
        let held = meta.shape.first().copied().unwrap_or(0);
        if meta.shape.len() != 1 || chunk == 0 || held < len {
            return Err(Error::Unsupported {
                message: format!(
                    "{}: not a one-dimensional array of at least {len} values",
                    store.name
                ),
            });
        }
        let row = len / chunk * chunk;
        let slab = match len - row {
            0 => VlenValues::default(),
            n => reader.chunk_head(len / chunk, n as usize)?,
        };
        meta.shape = vec![shape];
        meta.document["shape"] = serde_json::json!([shape]);
        meta.engine.shape = vec![shape];
        let engine = engine(&store, &meta)?;
        Ok(VlenWriter {
            store,
            meta,
            engine,
            held: Held::default(),
            slab,
            row,
            written: len,
        })
    }

    /// The elements of the slab beginning at `row`.
    fn slab_len(&self, row: u64) -> u64 {
        let Some((&first, rest)) = self.meta.shape.split_first() else {
            return 1;
        };
        let rows = self.meta.chunk_shape[0].min(first - row);
        rows * rest.iter().product::<u64>()
    }

    /// Appends the next value in C order; a completed slab is stored now.
    ///
    /// # Errors
    /// If the array is full, if a value of a text array is not UTF-8, or if
    /// a chunk cannot be stored.
    pub fn append(&mut self, value: &[u8]) -> Result<()> {
        let total: u64 = self.meta.shape.iter().product();
        if self.written == total {
            return Err(self.unsupported(format!(
                "more values than the {total} of shape {:?}",
                self.meta.shape
            )));
        }
        if self.meta.kind == VlenKind::Text
            && let Err(e) = std::str::from_utf8(value)
        {
            return Err(self.unsupported(format!(
                "value {} is not UTF-8 (from byte {}); a string array holds text",
                self.written,
                e.valid_up_to()
            )));
        }
        self.slab.push(value);
        self.written += 1;
        if self.slab.len() as u64 == self.slab_len(self.row) {
            self.store_slab()?;
        }
        Ok(())
    }

    /// Stores the slab of values held, whole chunk rows: zarrs encodes
    /// each chunk.
    fn store_slab(&mut self) -> Result<()> {
        let mut ranges: Vec<_> = self.meta.shape.iter().map(|&s| 0..s).collect();
        if let Some(first) = ranges.first_mut() {
            let rows = self.meta.chunk_shape[0].min(first.end - self.row);
            *first = self.row..self.row + rows;
            self.row += rows;
        }
        let (bytes, offsets) = std::mem::take(&mut self.slab).into_parts();
        let mut first_chunk = vec![0; ranges.len()];
        if let (Some(c), Some(r)) = (first_chunk.first_mut(), ranges.first()) {
            *c = r.start / self.meta.chunk_shape[0];
        }
        let chunk_error = |message: String| Error::Chunk {
            store: self.store.name.clone(),
            chunk: first_chunk.first().copied().unwrap_or(0),
            key: self.engine.chunk_key(&first_chunk).to_string(),
            message,
        };
        let offsets = ArrayBytesOffsets::new(offsets).map_err(|e| chunk_error(e.to_string()))?;
        let bytes = ArrayBytes::new_vlen(bytes, offsets).map_err(|e| chunk_error(e.to_string()))?;
        let subset = ArraySubset::new_with_ranges(&ranges);
        // zarrs 0.23 takes a chunk of values whose bytes, run together,
        // repeat a non-empty fill (`["", "NA"]` for "NA") for a chunk of
        // fills, and leaves it out: with such a fill, every chunk is stored.
        // So is every chunk of a v2 array without one (`null`), which
        // zarr-python 2 reads as `None`s where a chunk is absent.
        let fill = self.meta.document["fill_value"].as_str();
        let options =
            CodecOptions::default().with_store_empty_chunks(fill.is_none_or(|f| !f.is_empty()));
        crate::chunks::parallel(&self.store, || {
            self.engine
                .store_array_subset_opt(&subset, bytes, &options)
                .map_err(|e| chunk_error(e.to_string()))
        })
    }

    /// Writes the metadata once every value is stored (and publishes a
    /// store built out of sight); returns the number of values.
    ///
    /// # Errors
    /// If fewer values were appended than the array holds.
    pub fn finish(self) -> Result<u64> {
        let total = all_written(&self.store, self.written, &self.meta.shape, "values")?;
        self.held.check()?;
        self.meta.write(&self.store)?;
        self.held.release()?;
        Ok(total)
    }

    /// Ends an array created with a shape larger than any it gets (a
    /// column appended to without a known length): its length is the
    /// values appended, the last, partial slab is stored, then the
    /// metadata as [`finish`](Self::finish) writes it.
    pub(crate) fn finish_growing(mut self) -> Result<u64> {
        self.meta.shape = vec![self.written];
        self.meta.document["shape"] = serde_json::json!([self.written]);
        if !self.slab.is_empty() {
            self.store_slab()?;
        }
        self.finish()
    }

    fn unsupported(&self, message: String) -> Error {
        Error::Unsupported {
            message: format!("{}: {message}", self.store.name),
        }
    }
}

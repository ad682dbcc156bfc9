//! Reading an array of variable-length strings or byte strings, of any
//! rank: chunks decoded by zarrs (their framing checked first, so that a
//! corrupt chunk is an error rather than a panic), values handed out a
//! slab of chunk rows at a time in C order, and the widest value found in
//! one pass over the chunks.

use std::borrow::Cow;
use std::num::NonZeroU64;
use std::path::Path;

use ndl_runtime::lang::zarr::ZarrFormat;
use rayon::prelude::*;
use serde_json::{Map, Value};
use zarrs::array::{Array, ArrayBytes, ArrayMetadata, BytesRepresentation, CodecOptions};
use zarrs::storage::ReadableWritableListableStorageTraits;

use super::meta::{VlenKind, VlenMeta};
use super::values::{VlenValues, for_each_index, ravel};
use crate::chunks::parallel;
use crate::error::{Error, Result};
use crate::metadata::bad;
use crate::store::Store;

/// The zarrs array that encodes and decodes the chunks.
pub(crate) type Engine = Array<dyn ReadableWritableListableStorageTraits>;

/// Chunks decoded at once: while the widest value is looked for, and (in
/// whole chunk rows, at least one) for a slab.
const CHUNKS_AT_ONCE: usize = 64;

/// The zarrs array of `meta` on `store`.
pub(crate) fn engine(store: &Store, meta: &VlenMeta) -> Result<Engine> {
    Array::new_with_metadata(
        store.storage.clone(),
        &store.node_path(),
        ArrayMetadata::V3(meta.engine.clone()),
    )
    .map_err(|e| bad(&store.name, meta.key(), format!("cannot be decoded: {e}")))
}

/// The longest value of an array, as the first pass of a conversion to a
/// fixed-width type finds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Widest {
    /// Its length: characters of text, bytes of a byte string.
    pub len: u64,
    /// Its index in the array (empty for a 0-dimensional array, and when
    /// the array has no elements).
    pub index: Vec<u64>,
    /// The bytes of every value together (UTF-8 for text).
    pub total_bytes: u64,
}

/// Reads the one variable-length array of a store: UTF-8 strings (v3
/// `string`, v2 `|O` with `vlen-utf8`) or byte strings (v3
/// `variable_length_bytes`, v2 `|O` with `vlen-bytes`), of any rank, as
/// zarr-python writes them.
///
/// ```
/// use ndl_zarr::{VlenKind, VlenReader};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("names.zarr");
/// ndl_zarr::write_strings(&path, &["ab", "", "ünï"])?;
/// let mut reader = VlenReader::open(&path)?;
/// assert_eq!((reader.kind(), reader.shape()), (VlenKind::Text, &[3][..]));
/// assert_eq!(reader.widest()?.len, 3);
/// let slab = reader.next_slab()?.unwrap();
/// assert_eq!(slab.get(2), "ünï".as_bytes());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct VlenReader {
    store: Store,
    meta: VlenMeta,
    engine: Engine,
    /// The next slab (chunk row along the first dimension).
    next: u64,
}

impl std::fmt::Debug for VlenReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VlenReader")
            .field("store", &self.store.name)
            .field("next", &self.next)
            .finish()
    }
}

impl VlenReader {
    /// What the array at the root of the store `dir` holds, when it holds
    /// variable-length values; `None` for any other array, a group, or no
    /// node.
    ///
    /// # Errors
    /// If the documents cannot be read, or hold a v2 object array of a
    /// codec other than `vlen-utf8` / `vlen-bytes` (named).
    pub fn probe(dir: impl AsRef<Path>) -> Result<Option<VlenKind>> {
        let store = Store::open(dir.as_ref())?;
        Ok(VlenMeta::probe(&store)?.map(|m| m.kind))
    }

    /// Opens the variable-length array at the root of the store `dir`.
    pub fn open(dir: impl AsRef<Path>) -> Result<VlenReader> {
        VlenReader::read(Store::open(dir.as_ref())?)
    }

    /// Opens the variable-length array `name` of the group at the root of
    /// the store `dir` (see [`GroupInfo::vlen_arrays`](crate::GroupInfo::vlen_arrays)).
    pub fn open_child(dir: impl AsRef<Path>, name: &str) -> Result<VlenReader> {
        VlenReader::read(Store::open(dir.as_ref())?.child(name))
    }

    pub(crate) fn read(store: Store) -> Result<VlenReader> {
        let meta = VlenMeta::probe(&store)?.ok_or_else(|| Error::Unsupported {
            message: format!(
                "{}: not an array of variable-length strings or bytes",
                store.name
            ),
        })?;
        if meta.chunk_shape.len() != meta.shape.len() || meta.chunk_shape.contains(&0) {
            return Err(bad(
                &store.name,
                meta.key(),
                format!(
                    "chunks {:?} do not fit shape {:?}",
                    meta.chunk_shape, meta.shape
                ),
            ));
        }
        let engine = engine(&store, &meta)?;
        Ok(VlenReader {
            store,
            meta,
            engine,
            next: 0,
        })
    }

    /// The array's metadata.
    pub(crate) fn meta(&self) -> &VlenMeta {
        &self.meta
    }

    /// The first `n` values of chunk `index` of a one-dimensional array.
    pub(crate) fn chunk_head(&self, index: u64, n: usize) -> Result<VlenValues> {
        let chunk = self.chunk(&[index])?;
        let mut out = VlenValues::default();
        chunk.iter().take(n).for_each(|v| out.push(v));
        Ok(out)
    }

    /// Text or bytes.
    pub fn kind(&self) -> VlenKind {
        self.meta.kind
    }

    /// The Zarr format.
    pub fn format(&self) -> ZarrFormat {
        self.meta.format
    }

    /// The array's shape.
    pub fn shape(&self) -> &[u64] {
        &self.meta.shape
    }

    /// The chunk shape.
    pub fn chunk_shape(&self) -> &[u64] {
        &self.meta.chunk_shape
    }

    /// The metadata document as stored (`zarr.json` or `.zarray`).
    pub fn metadata(&self) -> &Value {
        &self.meta.document
    }

    /// The array's attributes (v3 `attributes`, v2 `.zattrs`), bare
    /// `NaN`s held as in [`ArrayInfo::attributes`](crate::ArrayInfo::attributes).
    pub fn attributes(&self) -> &Map<String, Value> {
        &self.meta.attributes
    }

    /// The names of the dimensions, when the store gives them.
    pub fn dimension_names(&self) -> Option<&[Option<String>]> {
        self.meta.dimension_names.as_deref()
    }

    /// The bytes-to-bytes codecs, in v3 form.
    pub fn compressors(&self) -> &[Value] {
        &self.meta.compressors
    }

    /// The elements a slab holds (the last may hold fewer): whole chunk
    /// rows (a chunk's extent of the first dimension, whole along the
    /// others), as many as make about 64 chunks, at least one.
    pub fn slab_len(&self) -> u64 {
        let rest: u64 = self.meta.shape.iter().skip(1).product();
        let row = self.meta.chunk_shape.first().copied().unwrap_or(1);
        self.rows_per_slab() * row * rest
    }

    /// The chunk rows a slab holds.
    fn rows_per_slab(&self) -> u64 {
        let per_row: u64 = self.chunk_counts().iter().skip(1).product();
        (CHUNKS_AT_ONCE as u64 / per_row.max(1)).max(1)
    }

    /// Finds the longest value, decoding every chunk once, a group of
    /// chunks at a time; checks every chunk's framing and, for text, that
    /// every value is UTF-8.
    pub fn widest(&self) -> Result<Widest> {
        let counts = self.chunk_counts();
        let mut all = Vec::new();
        for_each_index(&vec![0; counts.len()], &counts, |at| all.push(at.to_vec()));
        let mut widest = Widest {
            len: 0,
            index: Vec::new(),
            total_bytes: 0,
        };
        for group in all.chunks(CHUNKS_AT_ONCE) {
            let found = parallel(&self.store, || {
                group
                    .par_iter()
                    .map(|at| self.chunk_widest(at))
                    .collect::<Result<Vec<_>>>()
            })?;
            for w in found {
                widest.total_bytes += w.total_bytes;
                if w.len > widest.len || widest.index.is_empty() {
                    (widest.len, widest.index) = (w.len.max(widest.len), w.index);
                }
            }
        }
        Ok(widest)
    }

    /// The widest value of the chunk at `at`, among the elements inside
    /// the array.
    fn chunk_widest(&self, at: &[u64]) -> Result<Widest> {
        let values = self.chunk(at)?;
        let chunk = &self.meta.chunk_shape;
        let start: Vec<u64> = at.iter().zip(chunk).map(|(i, c)| i * c).collect();
        let inside: Vec<u64> = (0..chunk.len())
            .map(|d| chunk[d].min(self.meta.shape[d] - start[d]))
            .collect();
        let mut widest = Widest {
            len: 0,
            index: Vec::new(),
            total_bytes: 0,
        };
        for_each_index(&vec![0; chunk.len()], &inside, |within| {
            let value = values.get(ravel(within, chunk) as usize);
            let len = match self.meta.kind {
                // Checked to be UTF-8 when the chunk was decoded.
                VlenKind::Text => String::from_utf8_lossy(value).chars().count(),
                VlenKind::Bytes => value.len(),
            } as u64;
            widest.total_bytes += value.len() as u64;
            if len > widest.len || widest.index.is_empty() {
                widest.len = len.max(widest.len);
                widest.index = start.iter().zip(within).map(|(s, w)| s + w).collect();
            }
        });
        Ok(widest)
    }

    /// The next slab of values in C order ([`slab_len`](Self::slab_len)
    /// of them); `None` after the last.
    pub fn next_slab(&mut self) -> Result<Option<VlenValues>> {
        let counts = self.chunk_counts();
        let slabs = counts
            .first()
            .map_or(1, |rows| rows.div_ceil(self.rows_per_slab()));
        if self.next >= slabs || counts.contains(&0) {
            return Ok(None);
        }
        let k = self.next;
        self.next += 1;
        self.slab(k).map(Some)
    }

    /// Every value, in C order.
    pub fn read_all(mut self) -> Result<VlenValues> {
        let mut all = VlenValues::default();
        while let Some(slab) = self.next_slab()? {
            for v in slab.iter() {
                all.push(v);
            }
        }
        Ok(all)
    }

    /// Slab `k`: its chunks decoded in parallel, their values gathered in
    /// C order.
    fn slab(&self, k: u64) -> Result<VlenValues> {
        let (shape, chunk) = (&self.meta.shape, &self.meta.chunk_shape);
        let counts = self.chunk_counts();
        let per_slab = self.rows_per_slab();
        let mut ats = Vec::new();
        // The chunks of the slab: `first` of them along each dimension.
        let mut first = counts.clone();
        let mut start = vec![0; counts.len()];
        if let (Some(f), Some(s)) = (first.first_mut(), start.first_mut()) {
            *s = k * per_slab;
            *f = per_slab.min(*f - *s);
        }
        for_each_index(&start, &first, |at| ats.push(at.to_vec()));
        let decoded = parallel(&self.store, || {
            ats.par_iter()
                .map(|at| self.chunk(at))
                .collect::<Result<Vec<_>>>()
        })?;
        let mut rows = shape.clone();
        let mut from = vec![0; shape.len()];
        if let (Some(r), Some(f), Some(&c)) = (rows.first_mut(), from.first_mut(), chunk.first()) {
            *f = k * per_slab * c;
            *r = (per_slab * c).min(*r - *f);
        }
        let mut out = VlenValues::default();
        let (mut which, mut within) = (vec![0; shape.len()], vec![0; shape.len()]);
        for_each_index(&from, &rows, |at| {
            for d in 0..at.len() {
                (which[d], within[d]) = (at[d] / chunk[d] - start[d], at[d] % chunk[d]);
            }
            let c = ravel(&which, &first) as usize;
            out.push(decoded[c].get(ravel(&within, chunk) as usize));
        });
        Ok(out)
    }

    /// The number of chunks along each dimension.
    fn chunk_counts(&self) -> Vec<u64> {
        let chunk = &self.meta.chunk_shape;
        self.meta
            .shape
            .iter()
            .zip(chunk)
            .map(|(s, c)| s.div_ceil(*c))
            .collect()
    }

    /// The error for the chunk at `at`.
    fn chunk_error(&self, at: &[u64], message: impl Into<String>) -> Error {
        Error::Chunk {
            store: self.store.name.clone(),
            chunk: at.first().copied().unwrap_or(0),
            key: self.engine.chunk_key(at).to_string(),
            message: message.into(),
        }
    }

    /// The values of the whole chunk at `at`, in C order within it: the
    /// fill value where the chunk is missing. A chunk framed by
    /// `vlen-utf8` / `vlen-bytes` has its bytes-to-bytes codecs undone and
    /// its framing checked before zarrs decodes it.
    fn chunk(&self, at: &[u64]) -> Result<VlenValues> {
        let n: u64 = self.meta.chunk_shape.iter().product();
        if self.meta.json2 {
            return self.json2_chunk(at);
        }
        let options = CodecOptions::default();
        let bytes: ArrayBytes<'static> = if self.meta.framed {
            let Some(raw) = self.raw_chunk(at)? else {
                let fill = self.engine.fill_value().as_ne_bytes();
                return Ok(VlenValues::repeat(fill, n as usize));
            };
            let chain = self.engine.codecs();
            check_framing(&raw, n).map_err(|(i, why)| {
                self.chunk_error(at, format!("element {i} of the chunk: {why}"))
            })?;
            let shape: Vec<NonZeroU64> = self
                .meta
                .chunk_shape
                .iter()
                .filter_map(|&c| NonZeroU64::new(c))
                .collect();
            chain
                .array_to_bytes_codec()
                .decode(
                    raw,
                    &shape,
                    self.engine.data_type(),
                    self.engine.fill_value(),
                    &options,
                )
                .map_err(|e| self.chunk_error(at, e.to_string()))?
                .into_owned()
        } else {
            self.engine
                .retrieve_chunk(at)
                .map_err(|e| self.chunk_error(at, e.to_string()))?
        };
        let (bytes, offsets) = bytes
            .into_variable()
            .map_err(|_| self.chunk_error(at, "decoded to fixed-size elements"))?
            .into_parts();
        let values = VlenValues::from_parts(bytes.into_owned(), offsets.to_vec())
            .filter(|v| v.len() as u64 == n)
            .ok_or_else(|| self.chunk_error(at, "decoded values do not cover the chunk"))?;
        if self.meta.kind == VlenKind::Text {
            self.check_text(at, &values)?;
        }
        Ok(values)
    }

    /// The encoded chunk at `at` with its bytes-to-bytes codecs undone;
    /// `None` when it is missing.
    fn raw_chunk(&self, at: &[u64]) -> Result<Option<Cow<'static, [u8]>>> {
        let Some(raw) = self
            .engine
            .retrieve_encoded_chunk(at)
            .map_err(|e| self.chunk_error(at, e.to_string()))?
        else {
            return Ok(None);
        };
        let options = CodecOptions::default();
        let mut raw: Cow<'static, [u8]> = Cow::Owned(raw);
        for codec in self.engine.codecs().bytes_to_bytes_codecs().iter().rev() {
            raw = codec
                .decode(raw, &BytesRepresentation::UnboundedSize, &options)
                .map_err(|e| self.chunk_error(at, e.to_string()))?;
        }
        Ok(Some(raw))
    }

    /// The values of the `json2` chunk at `at` (see [`super::json2`]).
    fn json2_chunk(&self, at: &[u64]) -> Result<VlenValues> {
        let n: u64 = self.meta.chunk_shape.iter().product();
        let Some(raw) = self.raw_chunk(at)? else {
            let fill = self.engine.fill_value().as_ne_bytes();
            return Ok(VlenValues::repeat(fill, n as usize));
        };
        super::json2::decode(&raw, &self.meta.chunk_shape)
            .map_err(|(i, why)| self.chunk_error(at, format!("element {i} of the chunk: {why}")))
    }

    /// Every value of the chunk at `at` is UTF-8.
    fn check_text(&self, at: &[u64], values: &VlenValues) -> Result<()> {
        let Some((i, e)) = values
            .iter()
            .enumerate()
            .find_map(|(i, v)| std::str::from_utf8(v).err().map(|e| (i, e)))
        else {
            return Ok(());
        };
        Err(Error::InvalidValue {
            store: self.store.name.clone(),
            chunk: at.first().copied().unwrap_or(0),
            record: i as u64,
            field: String::new(),
            offset: e.valid_up_to(),
            message: format!(
                "element {i} of chunk {} is not UTF-8 (from byte {} of the value)",
                self.engine.chunk_key(at),
                e.valid_up_to()
            ),
        })
    }
}

/// Every value of the array at `dir`, which must hold values of `kind`.
pub(crate) fn read_kind(dir: &Path, kind: VlenKind) -> Result<VlenValues> {
    let reader = VlenReader::open(dir)?;
    if reader.kind() != kind {
        return Err(Error::TypeMismatch {
            store: dir.display().to_string(),
            field: String::new(),
            message: format!(
                "the array holds {:?}, not {:?}",
                reader.kind().datatype(),
                kind.datatype()
            ),
        });
    }
    reader.read_all()
}

/// Checks the framing of `n` values as `vlen-utf8` / `vlen-bytes` write
/// them (numcodecs' VLen codecs): a little-endian `u32` count, then each
/// value's `u32` length and bytes. On failure, the element at fault and why.
fn check_framing(chunk: &[u8], n: u64) -> std::result::Result<(), (u64, String)> {
    let u32_at = |at: usize| -> Option<u64> {
        let b = chunk.get(at..at.checked_add(4)?)?;
        Some(u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
    };
    let Some(count) = u32_at(0) else {
        return Err((0, format!("{} bytes hold no count of values", chunk.len())));
    };
    if count != n {
        return Err((
            0,
            format!("the chunk says it holds {count} values, not {n}"),
        ));
    }
    let mut at = 4usize;
    for i in 0..n {
        let Some(len) = u32_at(at) else {
            return Err((
                i,
                format!("the chunk ends at byte {} before its length", chunk.len()),
            ));
        };
        at += 4;
        let left = (chunk.len() - at) as u64;
        if len > left {
            return Err((
                i,
                format!("a length of {len} bytes runs past the chunk's end ({left} bytes left)"),
            ));
        }
        at += len as usize;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(values: &[&[u8]]) -> Vec<u8> {
        let mut out = (values.len() as u32).to_le_bytes().to_vec();
        for v in values {
            out.extend_from_slice(&(v.len() as u32).to_le_bytes());
            out.extend_from_slice(v);
        }
        out
    }

    #[test]
    fn framing_is_checked_value_by_value() {
        let good = framed(&[b"ab", b"", b"xyz"]);
        assert_eq!(check_framing(&good, 3), Ok(()));
        assert_eq!(check_framing(&good, 2).unwrap_err().0, 0);
        assert_eq!(check_framing(&good[..good.len() - 1], 3).unwrap_err().0, 2);
        assert_eq!(check_framing(&good[..10], 3).unwrap_err().0, 1);
        let mut huge = good.clone();
        huge[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        let (i, why) = check_framing(&huge, 3).unwrap_err();
        assert_eq!(i, 0);
        assert!(why.contains("runs past"), "{why}");
        assert!(check_framing(&[], 0).is_err());
    }
}

//! One array's chunks, the unit both layouts read and write: along the
//! first dimension, a chunk holds `chunk_len` records (a records array's
//! records, or a column's values), whole along the other dimensions; an
//! array of any rank (a [`grid`](ChunkIo::grid)) is chunked in every
//! dimension, its chunks named by their indices.

use std::borrow::Cow;

use zarrs::array::{Array, ArrayMetadata, ArrayToBytesCodecTraits};
use zarrs::array::{ArrayBytes, CodecOptions};
use zarrs::storage::ReadableWritableListableStorageTraits;

use ndl_runtime::MixedOrder;

use crate::error::{Error, Result};
use crate::metadata::{ArrayMeta, bad};
use crate::store::Store;
use crate::struct_type;

/// The zarrs array that encodes and decodes the chunks.
pub(crate) type Engine = Array<dyn ReadableWritableListableStorageTraits>;

/// The zarrs array of `meta` on `store`.
pub(crate) fn engine(store: &Store, meta: &ArrayMeta) -> Result<Engine> {
    struct_type::register();
    crate::codecs::register();
    Array::new_with_metadata(
        store.storage.clone(),
        &store.node_path(),
        ArrayMetadata::V3(meta.engine.clone()),
    )
    .map_err(|e| bad(&store.name, meta.key(), format!("cannot be decoded: {e}")))
}

/// The threads that move chunks to and from object storage: a request
/// mostly waits on the network, so many run at once, more than there are
/// cores: [`REQUESTS_VAR`] of them, else [`DEFAULT_REQUESTS`]. `None` for
/// a local disk, where the cores are the limit.
fn io_pool(store: &Store) -> Result<Option<&'static rayon::ThreadPool>> {
    static POOL: std::sync::OnceLock<std::result::Result<rayon::ThreadPool, String>> =
        std::sync::OnceLock::new();
    if store.is_local() {
        return Ok(None);
    }
    let pool = POOL.get_or_init(|| {
        let threads = match std::env::var(REQUESTS_VAR) {
            Err(_) => DEFAULT_REQUESTS,
            Ok(v) => match v.trim().parse::<usize>() {
                Ok(n) if n > 0 => n,
                _ => {
                    return Err(format!(
                        "{REQUESTS_VAR}={v:?} is not a number of requests above 0"
                    ));
                }
            },
        };
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("ndl-zarr-io-{i}"))
            .build()
            .map_err(|e| e.to_string())
    });
    match pool {
        Ok(pool) => Ok(Some(pool)),
        Err(message) => Err(Error::Unsupported {
            message: format!("{}: {message}", store.name),
        }),
    }
}

/// Runs `work`, whose parallel iterators store or fetch chunks of `store`,
/// on the threads that fit the store.
pub(crate) fn parallel<R: Send>(
    store: &Store,
    work: impl FnOnce() -> Result<R> + Send,
) -> Result<R> {
    match io_pool(store)? {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// The environment variable that sets how many requests to object storage
/// run at once (chunks written or read in parallel); 1 writes one chunk at
/// a time. It is read once per process, when the first chunk is moved to
/// or from object storage; a value that is not a count above 0 fails that
/// write or read with an error naming the variable.
///
/// ```
/// // One chunk at a time, e.g. behind a slow link: set in the environment
/// // a program starts with (setting it in a running, threaded program is
/// // `unsafe`).
/// let mut uploader = std::process::Command::new("my-uploader");
/// uploader.env(ndl_zarr::REQUESTS_VAR, "1");
/// assert_eq!(ndl_zarr::REQUESTS_VAR, "NDL_ZARR_REQUESTS");
/// ```
pub const REQUESTS_VAR: &str = "NDL_ZARR_REQUESTS";

/// Requests to object storage at once when [`REQUESTS_VAR`] is not set.
pub const DEFAULT_REQUESTS: usize = 16;

/// Runs `work` with a buffer of `len` bytes, this thread's own, reused from
/// chunk to chunk: no allocation, and no zeroing of memory every byte of
/// which `work` writes. Its bytes are those of earlier chunks at first.
pub(crate) fn with_buffer<R>(len: usize, work: impl FnOnce(&mut [u8]) -> R) -> R {
    thread_local! {
        static BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
    }
    // Taken, not borrowed: should `work` reach this again on the same
    // thread (rayon may run another task inside it), that use gets a new
    // buffer rather than a panic.
    let mut buffer = BUFFER.take();
    buffer.resize(len, 0);
    let result = work(&mut buffer);
    // Threads live on after the write (rayon's, the I/O pool's): they keep
    // a buffer of a usual chunk, not one of a huge chunk.
    if buffer.capacity() <= KEPT_BUFFER_BYTES {
        BUFFER.set(buffer);
    }
    result
}

/// Runs `work` with this thread's zstd decompressor, kept from chunk to
/// chunk: a context is made once per thread, not once per chunk.
fn with_decompressor<R>(work: impl FnOnce(&mut zstd::bulk::Decompressor<'static>) -> R) -> R {
    thread_local! {
        static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    DECOMPRESSOR.with(|cell| {
        // Taken, not borrowed, as in `with_buffer`: a nested use on this
        // thread makes a context of its own.
        let mut taken = cell.borrow_mut().take();
        let result = match &mut taken {
            Some(d) => work(d),
            None => {
                let mut d = zstd::bulk::Decompressor::new().expect("a zstd context");
                let r = work(&mut d);
                taken = Some(d);
                r
            }
        };
        *cell.borrow_mut() = taken;
        result
    })
}

/// The largest buffer [`with_buffer`] keeps for the next chunk.
const KEPT_BUFFER_BYTES: usize = 16 << 20;

/// The largest chunk read or written, decoded: 2 GiB, as NumPy's largest
/// item. A store whose chunks claim more is refused before any is read.
const MAX_CHUNK_BYTES: usize = 1 << 31;

/// The chunks of one array, encoded and decoded by zarrs.
pub(crate) struct ChunkIo {
    pub store: Store,
    engine: Engine,
    /// Records per chunk (per shard, with sharding): the chunk's extent
    /// along the first dimension (1 for a 0-dimensional array).
    pub chunk_len: u64,
    /// The bytes of one record, the chunk's extents along the other
    /// dimensions (whole, outside a grid).
    pub record: usize,
    /// The number of dimensions after the first.
    inner: usize,
    /// Whether the chunks are zstd frames (bytes, then zstd only).
    zstd: bool,
    /// Whether a chunk's zstd frame decodes to exactly the records in
    /// native byte order, with nothing for zarrs' codecs left to do.
    direct: bool,
    /// The numbers stored in the order opposite to the rest, which zarrs'
    /// `bytes` codec (one order for all) leaves reversed.
    mixed: Option<MixedOrder>,
}

impl std::fmt::Debug for ChunkIo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkIo")
            .field("store", &self.store.name)
            .field("chunk_len", &self.chunk_len)
            .field("record", &self.record)
            .finish()
    }
}

impl ChunkIo {
    /// The chunks of the array `meta` describes in `store`, which must be
    /// chunked along its first dimension only.
    pub fn new(store: &Store, meta: &ArrayMeta) -> Result<ChunkIo> {
        let unchunked = meta.shape.get(1..) == meta.chunk_shape.get(1..);
        if meta.shape.is_empty() || !unchunked {
            return Err(Error::Shape {
                store: store.name.clone(),
                message: format!(
                    "the array of shape {:?} is chunked {:?}; records are read from arrays chunked along their first dimension only",
                    meta.shape, meta.chunk_shape
                ),
            });
        }
        ChunkIo::grid(store, meta)
    }

    /// The chunks of the array `meta` describes in `store`, of any rank and
    /// chunked in any dimensions: read and written by their indices.
    pub fn grid(store: &Store, meta: &ArrayMeta) -> Result<ChunkIo> {
        let chunk_len = meta.chunk_shape.first().copied().unwrap_or(1);
        let inner = meta.chunk_shape.get(1..).unwrap_or_default();
        let elements: u64 = inner.iter().product();
        let size = meta.stored.size().unwrap_or(0) as u64;
        let record = usize::try_from(elements.saturating_mul(size)).map_err(|_| Error::Shape {
            store: store.name.clone(),
            message: format!("a record of shape {inner:?} does not fit in memory"),
        })?;
        let chunk_bytes = record
            .checked_mul(chunk_len as usize)
            .filter(|&b| b <= MAX_CHUNK_BYTES);
        if chunk_bytes.is_none() {
            return Err(Error::Shape {
                store: store.name.clone(),
                message: format!(
                    "chunks of {} records of {record} bytes are more than the {MAX_CHUNK_BYTES} bytes a chunk may hold here",
                    chunk_len
                ),
            });
        }
        // Filters before `bytes` (numcodecs' delta with `astype`) may
        // change the size zstd decodes to: the guard holds without them.
        let no_filters = meta.engine.codecs.first().map(|c| c.name()) == Some("bytes");
        let zstd = meta.inner_chunk_shape.is_none()
            && no_filters
            && matches!(meta.compressors.as_slice(), [c] if c.get("name").and_then(|n| n.as_str()) == Some("zstd"));
        let native =
            meta.order == ndl_runtime::ByteOrder::NATIVE || !meta.stored.has_multibyte_numbers();
        let mixed = MixedOrder::new(&meta.stored, &meta.other_order);
        Ok(ChunkIo {
            store: store.clone(),
            engine: engine(store, meta)?,
            chunk_len,
            record,
            inner: meta.shape.len().saturating_sub(1),
            zstd,
            direct: zstd && native && meta.engine.codecs.len() == 2 && mixed.is_none(),
            mixed,
        })
    }

    fn indices(&self, chunk: u64) -> Vec<u64> {
        let mut at = vec![0; 1 + self.inner];
        at[0] = chunk;
        at
    }

    /// The error for chunk `chunk`.
    pub fn error(&self, chunk: u64, e: impl std::fmt::Display) -> Error {
        self.error_at(&self.indices(chunk), e)
    }

    /// The error for the chunk at `indices`, named by its key.
    pub fn error_at(&self, indices: &[u64], e: impl std::fmt::Display) -> Error {
        Error::Chunk {
            store: self.store.name.clone(),
            chunk: indices.first().copied().unwrap_or(0),
            key: self.engine.chunk_key(indices).to_string(),
            message: e.to_string(),
        }
    }

    /// The bytes of a whole chunk.
    fn chunk_bytes(&self) -> usize {
        self.chunk_len as usize * self.record
    }

    /// The records of chunk `chunk`, decoded, in native byte order: the
    /// fill value where the chunk is missing.
    ///
    /// The encoded chunk is read first and checked before zarrs decodes
    /// it: a zstd frame that claims more bytes than a chunk holds is an
    /// error here, where the decoder would try to allocate them.
    pub fn read(&self, chunk: u64) -> Result<Vec<u8>> {
        self.read_chunk(&self.indices(chunk))
    }

    /// The elements of the chunk at `indices`, decoded to C order within
    /// the chunk (whatever order the store keeps them in), in native byte
    /// order: the fill value where the chunk is missing.
    pub fn read_chunk(&self, indices: &[u64]) -> Result<Vec<u8>> {
        let error = |e: &dyn std::fmt::Display| self.error_at(indices, e);
        let encoded = self
            .engine
            .retrieve_encoded_chunk(indices)
            .map_err(|e| error(&e))?;
        let Some(encoded) = encoded else {
            let fill = self.engine.fill_value().as_ne_bytes();
            return Ok(fill.repeat(self.chunk_len as usize * (self.record / fill.len().max(1))));
        };
        if self.zstd {
            let claimed = zstd::bulk::Decompressor::upper_bound(&encoded);
            if claimed.is_some_and(|n| n > self.chunk_bytes()) {
                return Err(error(&format!(
                    "corrupt: its zstd frame claims {} decoded bytes, a chunk holds {}",
                    claimed.unwrap_or(0),
                    self.chunk_bytes()
                )));
            }
        }
        // Chunks are decoded in parallel, one per thread.
        let options = CodecOptions::default().with_concurrent_target(1);
        let shape = self.engine.chunk_shape(indices).map_err(|e| error(&e))?;
        let decoded = self
            .engine
            .codecs()
            .decode(
                std::borrow::Cow::Owned(encoded),
                &shape,
                self.engine.data_type(),
                self.engine.fill_value(),
                &options,
            )
            .map_err(|e| error(&e))?;
        let decoded = decoded.into_fixed().map_err(|e| error(&e))?;
        if decoded.len() != self.chunk_bytes() {
            return Err(error(&"decoded chunk has the wrong length"));
        }
        let mut decoded = decoded.into_owned();
        if let Some(mixed) = &self.mixed {
            mixed.to_one_order(&mut decoded);
        }
        Ok(decoded)
    }

    /// Encodes and stores chunk `chunk` from records in native byte order:
    /// a full chunk, or its first records, the rest being the fill value.
    pub fn write(&self, chunk: u64, records: Cow<'_, [u8]>) -> Result<()> {
        self.write_chunk(&self.indices(chunk), records)
    }

    /// Encodes and stores the chunk at `indices` from its elements in C
    /// order within the chunk, in native byte order: all of them, or its
    /// first ones, the rest being the fill value.
    pub fn write_chunk(&self, indices: &[u64], mut records: Cow<'_, [u8]>) -> Result<()> {
        let full = self.chunk_len as usize * self.record;
        if records.len() < full {
            let fill = self.engine.fill_value().as_ne_bytes().to_vec();
            let records = records.to_mut();
            while records.len() < full {
                records.extend_from_slice(&fill);
            }
        }
        // Reversed here, the numbers of the other order come out of the
        // `bytes` codec in theirs.
        if let Some(mixed) = &self.mixed {
            mixed.to_one_order(records.to_mut());
        }
        // Chunks are encoded in parallel, one per thread.
        let options = CodecOptions::default().with_concurrent_target(1);
        self.engine
            .store_chunk_opt(indices, ArrayBytes::new_flen(records), &options)
            .map_err(|e| self.error_at(indices, e))
    }

    /// Runs `work` on the records of chunk `chunk`, decoded, in native
    /// byte order. A plain zstd chunk is decoded by this thread's own zstd
    /// context into this thread's own buffer, both kept from chunk to
    /// chunk: no allocation, and the records stay in cache for `work`.
    /// Any other goes through zarrs' codecs ([`read`](ChunkIo::read)).
    pub fn with_decoded<R>(&self, chunk: u64, work: impl FnOnce(&[u8]) -> Result<R>) -> Result<R> {
        if !self.direct {
            return work(&self.read(chunk)?);
        }
        let indices = self.indices(chunk);
        let encoded = self
            .engine
            .retrieve_encoded_chunk(&indices)
            .map_err(|e| self.error(chunk, e))?;
        let Some(encoded) = encoded else {
            return work(&self.read(chunk)?);
        };
        with_buffer(self.chunk_bytes(), |buffer| {
            self.decompress(chunk, &encoded, buffer)?;
            work(buffer)
        })
    }

    /// Writes records `first..` (as many as `out` holds, all in one chunk)
    /// into `out`, decoded as [`with_decoded`](ChunkIo::with_decoded)
    /// decodes them. A whole plain zstd chunk is decoded straight into
    /// `out`, with no copy through this thread's buffer.
    pub fn read_records_into(&self, first: u64, out: &mut [u8]) -> Result<()> {
        let chunk = first / self.chunk_len;
        let whole = first.is_multiple_of(self.chunk_len) && out.len() == self.chunk_bytes();
        if !(self.direct && whole) {
            let count = out.len().checked_div(self.record).unwrap_or(0);
            return self.with_records(first, count, |records| {
                out.copy_from_slice(records);
                Ok(())
            });
        }
        let encoded = self
            .engine
            .retrieve_encoded_chunk(&self.indices(chunk))
            .map_err(|e| self.error(chunk, e))?;
        let Some(encoded) = encoded else {
            out.copy_from_slice(&self.read(chunk)?);
            return Ok(());
        };
        self.decompress(chunk, &encoded, out)
    }

    /// Decompresses the zstd frame of chunk `chunk` into `out`, which must
    /// come out exactly full. A frame that claims more than `out` holds
    /// fails without allocating.
    fn decompress(&self, chunk: u64, encoded: &[u8], out: &mut [u8]) -> Result<()> {
        let n = with_decompressor(|d| d.decompress_to_buffer(encoded, out))
            .map_err(|e| self.error(chunk, format!("corrupt: {e}")))?;
        if n != out.len() {
            return Err(self.error(chunk, "decoded chunk has the wrong length"));
        }
        Ok(())
    }

    /// Runs `work` on records `first..first + count` (all in one chunk),
    /// decoded as [`with_decoded`](ChunkIo::with_decoded) decodes them.
    pub fn with_records<R>(
        &self,
        first: u64,
        count: usize,
        work: impl FnOnce(&[u8]) -> Result<R>,
    ) -> Result<R> {
        let chunk = first / self.chunk_len;
        let from = (first % self.chunk_len) as usize * self.record;
        let at = from..from + count * self.record;
        self.with_decoded(chunk, |decoded| match decoded.get(at) {
            Some(records) => work(records),
            None => Err(self.error(chunk, "decoded chunk is short")),
        })
    }
}

#[cfg(test)]
mod tests {
    use ndl_runtime::Datatype;
    use serde_json::Map;

    use super::*;
    use crate::options::WriteOptions;

    /// An array of `u16` in chunks of 3 along the first dimension.
    fn new_meta(options: &WriteOptions, shape: Vec<u64>) -> ArrayMeta {
        let dims = (0..shape.len()).map(|d| format!("d{d}")).collect();
        ArrayMeta::new(options, &Datatype::UInt16, shape, 3, Map::new(), dims).unwrap()
    }

    fn chunk_io(options: &WriteOptions, shape: Vec<u64>) -> ChunkIo {
        ChunkIo::new(&Store::memory("m"), &new_meta(options, shape)).unwrap()
    }

    #[test]
    fn chunks_are_written_whole_and_read_in_native_order() {
        let io = chunk_io(
            &WriteOptions::new().byte_order(ndl_runtime::ByteOrder::Big),
            vec![7],
        );
        let records: Vec<u8> = [1u16, 2].iter().flat_map(|v| v.to_ne_bytes()).collect();
        io.write(1, Cow::Borrowed(&records)).unwrap();
        // The partial chunk is filled with the fill value, zeros.
        let mut whole = records.clone();
        whole.extend_from_slice(&0u16.to_ne_bytes());
        assert_eq!(io.read(1).unwrap(), whole);
        let second = io.with_records(4, 1, |r| Ok(r.to_vec())).unwrap();
        assert_eq!(second, 2u16.to_ne_bytes());
        // A chunk never written is the fill value.
        assert_eq!(io.read(0).unwrap(), vec![0; 6]);
    }

    #[test]
    fn plain_zstd_chunks_decode_directly_and_refuse_bombs() {
        let io = chunk_io(&WriteOptions::new(), vec![7]);
        assert!(io.direct, "native zstd chunks take the direct path");
        let records: Vec<u8> = [5u16, 6, 7].iter().flat_map(|v| v.to_ne_bytes()).collect();
        io.write(0, Cow::Borrowed(&records)).unwrap();
        assert_eq!(io.with_decoded(0, |r| Ok(r.to_vec())).unwrap(), records);
        assert_eq!(
            io.with_records(1, 2, |r| Ok(r.to_vec())).unwrap(),
            &records[2..]
        );
        // A missing chunk is the fill value on this path too.
        assert_eq!(io.with_decoded(2, |r| Ok(r.to_vec())).unwrap(), vec![0; 6]);
        let swapped = chunk_io(
            &WriteOptions::new().byte_order(ndl_runtime::ByteOrder::NATIVE.opposite()),
            vec![7],
        );
        assert!(
            !swapped.direct,
            "swapped chunks go through zarrs' bytes codec"
        );
        // A frame of more than a chunk's bytes is refused, not allocated.
        let big = zstd::bulk::compress(&vec![0u8; 1 << 20], 1).unwrap();
        io.store
            .storage
            .set(&io.engine.chunk_key(&[1]), big.into())
            .unwrap();
        let e = io.with_decoded(1, |r| Ok(r.len())).unwrap_err();
        assert!(e.to_string().contains("corrupt"), "{e}");
        let e = io.read_records_into(3, &mut [0; 6]).unwrap_err();
        assert!(e.to_string().contains("corrupt"), "{e}");
    }

    #[test]
    fn records_are_read_into_place_whole_chunk_or_part() {
        for options in [
            WriteOptions::new(),
            WriteOptions::new().byte_order(ndl_runtime::ByteOrder::NATIVE.opposite()),
        ] {
            let io = chunk_io(&options, vec![7]);
            let values = [5u16, 6, 7, 8];
            let records: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
            io.write(0, Cow::Borrowed(&records[..6])).unwrap();
            io.write(1, Cow::Borrowed(&records[6..])).unwrap();
            // A whole chunk, straight into place, and a part of one.
            let mut whole = [9; 6];
            io.read_records_into(0, &mut whole).unwrap();
            assert_eq!(whole, records[..6]);
            let mut part = [9; 4];
            io.read_records_into(1, &mut part).unwrap();
            assert_eq!(part, records[2..6]);
            // A chunk never written is the fill value.
            let mut missing = [9; 6];
            io.read_records_into(6, &mut missing[..2]).unwrap();
            assert_eq!(missing[..2], [0, 0]);
            let mut whole_missing = [9; 6];
            io.read_records_into(6, &mut whole_missing).unwrap();
            assert_eq!(whole_missing, [0; 6]);
            // Records past their chunk's end are an error, not a panic.
            let e = io.read_records_into(5, &mut [0; 4]).unwrap_err();
            assert!(e.to_string().contains("short"), "{e}");
        }
    }

    #[test]
    fn only_arrays_chunked_along_their_first_dimension_are_taken() {
        let io = chunk_io(&WriteOptions::new(), vec![7, 2]);
        assert_eq!((io.chunk_len, io.record), (3, 4));
        let mut meta = new_meta(&WriteOptions::new(), vec![7, 2]);
        meta.chunk_shape[1] = 1;
        let e = ChunkIo::new(&Store::memory("m"), &meta).unwrap_err();
        assert!(
            e.to_string()
                .contains("chunked along their first dimension only"),
            "{e}"
        );
    }

    #[test]
    fn a_buffer_is_reused_and_sized_to_each_chunk() {
        let first = with_buffer(8, |b| {
            b.fill(7);
            b.len()
        });
        assert_eq!(first, 8);
        assert_eq!(with_buffer(4, |b| b.len()), 4);
    }
}

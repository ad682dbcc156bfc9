//! Decoders for the filters h5py reads through hdf5plugin (and, for LZF,
//! through h5py itself) that Debian's libhdf5 lacks: LZF (32000), LZ4
//! (32004), bitshuffle (32008, bare or with LZ4 or zstd inside) and Blosc2
//! (32026, through C-Blosc2). They are registered with the library as
//! decode-only filters; Blosc (32001) comes from hdf5-metno.
//!
//! A callback runs inside `H5Dread`, across the C boundary: it never
//! panics out (a panic is caught and becomes a failure), and never
//! allocates more than the chunk it decodes can hold. [`raw_io`]'s reads
//! tell it that size; the decoded chunk must then be exactly that long,
//! since the library copies a whole chunk out of whatever it is handed.
//! Why a chunk failed is kept for the thread, and becomes
//! [`Error::Filter`](crate::Error::Filter) naming the dataset and the
//! filter; a filter missing from the library is named before any read.
//!
//! [`raw_io`]: crate::raw_io

use std::cell::Cell;
use std::ffi::CStr;
use std::os::raw::{c_uint, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Once;

use hdf5_sys::h5z::{H5Z_CLASS_T_VERS, H5Z_FLAG_REVERSE, H5Z_class2_t, H5Z_filter_t, H5Zregister};

use crate::error::{Error, Result};

mod bitshuffle;
mod blosc2;
pub(crate) mod failure;
mod lz4;
mod lzf;
mod pipeline;

use failure::Failure;
use pipeline::{known_name, missing_filter};

/// The most a chunk may decode to when no read of ours says its size
/// (the library decoding on its own): HDF5 1.10's chunks are smaller
/// than 4 GiB, and no chunk of a file we read needs more than this.
const UNKNOWN_CHUNK_LIMIT: usize = 1 << 30;

/// What a decoder is given: the filter's client values, the chunk as
/// stored, and the bytes it must decode to (exactly, when `exact`).
pub(super) struct Chunk<'a> {
    pub values: &'a [c_uint],
    pub input: &'a [u8],
    pub limit: usize,
    pub exact: bool,
}

type Decode = fn(&Chunk<'_>) -> Result<Vec<u8>, String>;

/// A filter of ours: its id, the name it registers, the name errors
/// give it, and its decoder.
struct Decoder {
    id: H5Z_filter_t,
    name: &'static CStr,
    title: &'static str,
    decode: Decode,
}

const LZF: Decoder = Decoder::new(32000, c"lzf", "LZF", lzf::decode);
const LZ4: Decoder = Decoder::new(32004, c"lz4", "LZ4", lz4::decode);
const BITSHUFFLE: Decoder = Decoder::new(32008, c"bitshuffle", "bitshuffle", bitshuffle::decode);
const BLOSC2: Decoder = Decoder::new(32026, c"blosc2", "Blosc2", blosc2::decode);

impl Decoder {
    const fn new(
        id: H5Z_filter_t,
        name: &'static CStr,
        title: &'static str,
        decode: Decode,
    ) -> Self {
        Decoder {
            id,
            name,
            title,
            decode,
        }
    }

    /// The filter as errors name it: `LZ4 (HDF5 filter 32004)`.
    fn label(&self) -> String {
        format!("{} (HDF5 filter {})", self.title, self.id)
    }
}

thread_local! {
    /// The bytes of one chunk of the dataset being read on this thread.
    static CHUNK_BYTES: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The filters of ours, in the order they are registered.
const DECODERS: [&Decoder; 4] = [&LZF, &LZ4, &BITSHUFFLE, &BLOSC2];

/// The name a description gives the filter `id`: ours as we register
/// them (`lzf`, `lz4`, `bitshuffle`, `blosc2`), others by the HDF Group's
/// registry, in lower case; `None` for an id neither knows.
pub(crate) fn name_of(id: H5Z_filter_t) -> Option<String> {
    DECODERS
        .iter()
        .find(|d| d.id == id)
        .and_then(|d| d.name.to_str().ok())
        .or_else(|| known_name(id))
        .map(str::to_lowercase)
}

/// Registers our filters with the library, once.
pub(crate) fn register() {
    static REGISTERED: Once = Once::new();
    REGISTERED.call_once(|| {
        // SAFETY: C-Blosc2's global set-up, once, before any decode.
        unsafe { blosc2_sys::blosc2_init() };
        hdf5::sync::sync(|| {
            let callbacks: [Callback; 4] = [filter::<0>, filter::<1>, filter::<2>, filter::<3>];
            for (decoder, filter) in DECODERS.into_iter().zip(callbacks) {
                let class = H5Z_class2_t {
                    version: H5Z_CLASS_T_VERS as _,
                    id: decoder.id,
                    encoder_present: 0,
                    decoder_present: 1,
                    name: decoder.name.as_ptr(),
                    can_apply: None,
                    set_local: None,
                    filter: Some(filter),
                };
                // SAFETY: the library copies the class; its name is static.
                // Failing leaves the filter missing, which reads then name.
                unsafe { H5Zregister((&class as *const H5Z_class2_t).cast()) };
            }
        });
    });
}

/// Runs `read` with filters told that a chunk of the dataset holds
/// `chunk_bytes` bytes (`None`: not chunked, or not known).
pub(crate) fn with_chunk_bytes<T>(chunk_bytes: Option<usize>, read: impl FnOnce() -> T) -> T {
    failure::take();
    let before = CHUNK_BYTES.with(|c| c.replace(chunk_bytes));
    let result = read();
    CHUNK_BYTES.with(|c| c.set(before));
    result
}

/// Refuses `found` if a filter of its pipeline is not available, naming
/// the filter as the file does: the library would only say it found no
/// plugin directory.
pub(crate) fn check_available(path: &Path, dataset: &str, found: &hdf5::Dataset) -> Result<()> {
    register();
    let Some((id, name)) = missing_filter(found) else {
        return Ok(());
    };
    let known = known_name(id).map_or(String::new(), |k| format!("{k}, "));
    Err(Error::Filter {
        path: path.to_path_buf(),
        dataset: dataset.to_string(),
        filter: format!("{known}HDF5 filter {id} (`{name}` in the dataset's filter pipeline)"),
        message: "is not supported: ndl reads deflate (gzip), shuffle, fletcher32, \
                  scale-offset, n-bit, szip where the library has it, Blosc, Blosc2, LZF, LZ4 \
                  and bitshuffle"
            .into(),
    })
}

type Callback = unsafe extern "C" fn(
    c_uint,
    usize,
    *const c_uint,
    usize,
    *mut usize,
    *mut *mut c_void,
) -> usize;

/// One call by the library of the filter `DECODERS[N]`: decodes the
/// `nbytes` at `*buf` and hands the library a new buffer (it frees the old
/// one), or returns 0, its sign of failure, keeping why.
///
/// # Safety
/// The library's arguments: `*buf` holds `nbytes` bytes it allocated
/// with `malloc`, `cd_values` holds `cd_nelmts` values.
unsafe extern "C" fn filter<const N: usize>(
    flags: c_uint,
    cd_nelmts: usize,
    cd_values: *const c_uint,
    nbytes: usize,
    buf_size: *mut usize,
    buf: *mut *mut c_void,
) -> usize {
    let decoder = DECODERS[N];
    let decoded = catch_unwind(AssertUnwindSafe(|| {
        if flags & H5Z_FLAG_REVERSE == 0 {
            return Err("ndl reads this filter but does not write it".to_string());
        }
        let values = if cd_values.is_null() || cd_nelmts == 0 {
            &[][..]
        } else {
            // SAFETY: the library's client values.
            unsafe { std::slice::from_raw_parts(cd_values, cd_nelmts) }
        };
        // SAFETY: the library's buffer of `nbytes` bytes.
        let stored = unsafe { *buf };
        let input = if stored.is_null() || nbytes == 0 {
            &[][..]
        } else {
            // SAFETY: as above.
            unsafe { std::slice::from_raw_parts(stored as *const u8, nbytes) }
        };
        let expected = CHUNK_BYTES.with(Cell::get);
        let chunk = Chunk {
            values,
            input,
            limit: expected.unwrap_or(UNKNOWN_CHUNK_LIMIT),
            exact: expected.is_some(),
        };
        let out = (decoder.decode)(&chunk)?;
        if chunk.exact && out.len() != chunk.limit {
            return Err(format!(
                "a chunk decodes to {} bytes, not the {} of a chunk of the dataset",
                out.len(),
                chunk.limit
            ));
        }
        Ok(out)
    }))
    .unwrap_or_else(|_| Err("the decoder failed on a chunk".into()));
    // SAFETY: the library's buffer pointers, passed on.
    let handed = decoded.and_then(|out| unsafe { hand_over(&out, buf_size, buf) });
    handed.unwrap_or_else(|message| {
        failure::keep(Failure {
            filter: decoder.label(),
            message,
        });
        0
    })
}

/// Replaces the library's buffer `*buf` by a copy of `out`.
///
/// # Safety
/// `*buf` was allocated by the library with `malloc`, and is freed here.
unsafe fn hand_over(
    out: &[u8],
    buf_size: *mut usize,
    buf: *mut *mut c_void,
) -> Result<usize, String> {
    if out.is_empty() {
        return Err("a chunk decodes to no bytes".into());
    }
    // SAFETY: a new buffer, filled below and owned by the library after.
    let new = unsafe { libc::malloc(out.len()) };
    if new.is_null() {
        return Err(format!("no memory for a chunk of {} bytes", out.len()));
    }
    // SAFETY: `new` holds `out.len()` bytes; the old buffer is the
    // library's, which it expects the filter to free when replacing it.
    unsafe {
        std::ptr::copy_nonoverlapping(out.as_ptr(), new.cast::<u8>(), out.len());
        libc::free(*buf);
        *buf = new;
        *buf_size = out.len();
    }
    Ok(out.len())
}

/// A big-endian integer of `N` bytes at `at`, or an error naming `what`.
pub(super) fn be<const N: usize>(input: &[u8], at: usize, what: &str) -> Result<u64, String> {
    let bytes = input
        .get(at..at + N)
        .ok_or_else(|| format!("the chunk ends inside its {what} (byte {at})"))?;
    Ok(bytes.iter().fold(0u64, |n, &b| n << 8 | u64::from(b)))
}

/// The decoded size a header declares, checked against the chunk's.
/// The next block at `*at` of a chunk of blocks each stored as its size
/// (4 bytes, big-endian) and its bytes, as the LZ4 and bitshuffle filters
/// write them; `*at` moves past it.
pub(super) fn stored_block<'a>(
    input: &'a [u8],
    at: &mut usize,
    index: usize,
) -> Result<&'a [u8], String> {
    let stored = be::<4>(input, *at, "block sizes")? as usize;
    *at += 4;
    let bytes = input.get(*at..at.saturating_add(stored)).ok_or_else(|| {
        format!("block {index} declares {stored} stored bytes, past the end of the chunk")
    })?;
    *at += stored;
    Ok(bytes)
}

pub(super) fn declared_size(chunk: &Chunk<'_>, total: u64) -> Result<usize, String> {
    match usize::try_from(total) {
        Ok(total) if total <= chunk.limit => Ok(total),
        _ => Err(format!(
            "the chunk's header declares {total} decoded bytes, more than the {} of a chunk",
            chunk.limit
        )),
    }
}

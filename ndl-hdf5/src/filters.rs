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

use std::cell::{Cell, RefCell};
use std::ffi::CStr;
use std::os::raw::{c_char, c_uint, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Once;

use hdf5_sys::h5d::H5Dget_create_plist;
use hdf5_sys::h5p::{H5Pclose, H5Pget_filter2, H5Pget_nfilters};
use hdf5_sys::h5z::{
    H5Z_class2_t, H5Z_filter_t, H5Zfilter_avail, H5Zregister, H5Z_CLASS_T_VERS, H5Z_FLAG_REVERSE,
};

use crate::error::{Error, Result};

/// The most a chunk may decode to when no read of ours says its size
/// (the library decoding on its own): HDF5 1.10's chunks are smaller
/// than 4 GiB, and no chunk of a file we read needs more than this.
const UNKNOWN_CHUNK_LIMIT: usize = 1 << 30;

/// What a decoder is given: the filter's client values, the chunk as
/// stored, and the bytes it must decode to (exactly, when `exact`).
struct Chunk<'a> {
    values: &'a [c_uint],
    input: &'a [u8],
    limit: usize,
    exact: bool,
}

type Decode = fn(&Chunk<'_>) -> Result<Vec<u8>, String>;

/// A filter of ours: its id, the name it registers, the name errors
/// give it, and its decoder.
struct Decoder {
    id: H5Z_filter_t,
    name: &'static CStr,
    label: &'static str,
    decode: Decode,
}

const LZF: Decoder = Decoder {
    id: 32000,
    name: c"lzf",
    label: "LZF (HDF5 filter 32000)",
    decode: lzf,
};

const LZ4: Decoder = Decoder {
    id: 32004,
    name: c"lz4",
    label: "LZ4 (HDF5 filter 32004)",
    decode: lz4,
};

const BITSHUFFLE: Decoder = Decoder {
    id: 32008,
    name: c"bitshuffle",
    label: "bitshuffle (HDF5 filter 32008)",
    decode: bitshuffle,
};

const BLOSC2: Decoder = Decoder {
    id: 32026,
    name: c"blosc2",
    label: "Blosc2 (HDF5 filter 32026)",
    decode: blosc2,
};

/// A chunk a filter could not decode: which filter, and why.
#[derive(Debug)]
pub(crate) struct Failure {
    pub filter: String,
    pub message: String,
}

thread_local! {
    /// The bytes of one chunk of the dataset being read on this thread.
    static CHUNK_BYTES: Cell<Option<usize>> = const { Cell::new(None) };
    /// Why the last chunk decoded on this thread failed.
    static FAILURE: RefCell<Option<Failure>> = const { RefCell::new(None) };
}

/// Registers our filters with the library, once.
pub(crate) fn register() {
    static REGISTERED: Once = Once::new();
    REGISTERED.call_once(|| {
        // SAFETY: C-Blosc2's global set-up, once, before any decode.
        unsafe { blosc2_sys::blosc2_init() };
        hdf5::sync::sync(|| {
            for (decoder, filter) in [
                (&LZF, lzf_filter as Callback),
                (&LZ4, lz4_filter),
                (&BITSHUFFLE, bitshuffle_filter),
                (&BLOSC2, blosc2_filter),
            ] {
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
    FAILURE.with(|f| f.borrow_mut().take());
    let before = CHUNK_BYTES.with(|c| c.replace(chunk_bytes));
    let result = read();
    CHUNK_BYTES.with(|c| c.set(before));
    result
}

/// Why a filter failed on this thread since the last read began, if one did.
pub(crate) fn take_failure() -> Option<Failure> {
    FAILURE.with(|f| f.borrow_mut().take())
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

/// The first filter of `found`'s pipeline the library has no decoder
/// for: its id and the name the file gives it.
fn missing_filter(found: &hdf5::Dataset) -> Option<(H5Z_filter_t, String)> {
    hdf5::sync::sync(|| {
        // SAFETY: `found` is open; the property list is ours, closed below.
        let dcpl = unsafe { H5Dget_create_plist(found.id()) };
        if dcpl < 0 {
            return None;
        }
        // SAFETY: as above.
        let n = unsafe { H5Pget_nfilters(dcpl) }.max(0) as c_uint;
        let missing = (0..n).find_map(|index| {
            let mut flags: c_uint = 0;
            let mut values: usize = 0;
            let mut config: c_uint = 0;
            let mut name = [0 as c_char; 256];
            // SAFETY: no client values are asked for (`values` is 0); the
            // library writes at most `name.len()` bytes, NUL-terminated.
            let id = unsafe {
                H5Pget_filter2(
                    dcpl,
                    index,
                    &mut flags,
                    &mut values,
                    std::ptr::null_mut(),
                    name.len(),
                    name.as_mut_ptr(),
                    &mut config,
                )
            };
            // SAFETY: a filter id; the library looks for a plugin too.
            if id < 0 || unsafe { H5Zfilter_avail(id) } > 0 {
                return None;
            }
            name[name.len() - 1] = 0;
            // SAFETY: NUL-terminated above.
            let name = unsafe { CStr::from_ptr(name.as_ptr()) };
            Some((id, name.to_string_lossy().into_owned()))
        });
        // SAFETY: the list opened above.
        unsafe { H5Pclose(dcpl) };
        missing
    })
}

/// The usual name of a registered filter id others write (The HDF
/// Group's registry), for filters we have no decoder for.
fn known_name(id: H5Z_filter_t) -> Option<&'static str> {
    Some(match id {
        4 => "szip",
        307 => "bzip2",
        32013 => "ZFP",
        32015 => "Zstandard",
        32017 => "SZ",
        32018 => "FCIDECOMP",
        32019 => "JPEG",
        32022 => "LERC",
        32023 => "SZ3",
        32024 => "SPERR",
        _ => return None,
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

unsafe extern "C" fn lzf_filter(
    flags: c_uint,
    cd_nelmts: usize,
    cd_values: *const c_uint,
    nbytes: usize,
    buf_size: *mut usize,
    buf: *mut *mut c_void,
) -> usize {
    // SAFETY: the library's arguments, passed on.
    unsafe { run(&LZF, flags, cd_nelmts, cd_values, nbytes, buf_size, buf) }
}

unsafe extern "C" fn lz4_filter(
    flags: c_uint,
    cd_nelmts: usize,
    cd_values: *const c_uint,
    nbytes: usize,
    buf_size: *mut usize,
    buf: *mut *mut c_void,
) -> usize {
    // SAFETY: the library's arguments, passed on.
    unsafe { run(&LZ4, flags, cd_nelmts, cd_values, nbytes, buf_size, buf) }
}

unsafe extern "C" fn bitshuffle_filter(
    flags: c_uint,
    cd_nelmts: usize,
    cd_values: *const c_uint,
    nbytes: usize,
    buf_size: *mut usize,
    buf: *mut *mut c_void,
) -> usize {
    // SAFETY: the library's arguments, passed on.
    unsafe {
        run(
            &BITSHUFFLE,
            flags,
            cd_nelmts,
            cd_values,
            nbytes,
            buf_size,
            buf,
        )
    }
}

unsafe extern "C" fn blosc2_filter(
    flags: c_uint,
    cd_nelmts: usize,
    cd_values: *const c_uint,
    nbytes: usize,
    buf_size: *mut usize,
    buf: *mut *mut c_void,
) -> usize {
    // SAFETY: the library's arguments, passed on.
    unsafe { run(&BLOSC2, flags, cd_nelmts, cd_values, nbytes, buf_size, buf) }
}

/// One call of a filter by the library: decodes the `nbytes` at `*buf`
/// and hands the library a new buffer (it frees the old one), or returns
/// 0, its sign of failure, keeping why.
///
/// # Safety
/// The library's arguments: `*buf` holds `nbytes` bytes it allocated
/// with `malloc`, `cd_values` holds `cd_nelmts` values.
unsafe fn run(
    decoder: &Decoder,
    flags: c_uint,
    cd_nelmts: usize,
    cd_values: *const c_uint,
    nbytes: usize,
    buf_size: *mut usize,
    buf: *mut *mut c_void,
) -> usize {
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
        FAILURE.with(|f| {
            *f.borrow_mut() = Some(Failure {
                filter: decoder.label.to_string(),
                message,
            })
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

/// LZF, as h5py's filter writes it: a bare LZF stream (literal runs and
/// back references), no header.
fn lzf(chunk: &Chunk<'_>) -> Result<Vec<u8>, String> {
    let input = chunk.input;
    let truncated = || "the LZF stream ends inside an instruction".to_string();
    let too_long = || format!("the LZF stream decodes to more than {} bytes", chunk.limit);
    let mut out = Vec::with_capacity(chunk.limit.min(input.len().saturating_mul(4)));
    let mut at = 0;
    while let Some(&control) = input.get(at) {
        let start = at;
        at += 1;
        let control = usize::from(control);
        if control < 32 {
            let literal = input.get(at..at + control + 1).ok_or_else(truncated)?;
            if out.len() + literal.len() > chunk.limit {
                return Err(too_long());
            }
            out.extend_from_slice(literal);
            at += literal.len();
            continue;
        }
        let mut len = control >> 5;
        if len == 7 {
            len += usize::from(*input.get(at).ok_or_else(truncated)?);
            at += 1;
        }
        len += 2;
        let low = usize::from(*input.get(at).ok_or_else(truncated)?);
        at += 1;
        let back = ((control & 0x1f) << 8) + low + 1;
        let from = out.len().checked_sub(back).ok_or_else(|| {
            format!(
                "a back reference of {back} bytes at byte {start} of the LZF stream, \
                 after only {} decoded",
                out.len()
            )
        })?;
        if out.len() + len > chunk.limit {
            return Err(too_long());
        }
        // The source may overlap what this copy writes: byte by byte.
        for i in from..from + len {
            out.push(out[i]);
        }
    }
    Ok(out)
}

/// A big-endian integer of `N` bytes at `at`, or an error naming `what`.
fn be<const N: usize>(input: &[u8], at: usize, what: &str) -> Result<u64, String> {
    let bytes = input
        .get(at..at + N)
        .ok_or_else(|| format!("the chunk ends inside its {what} (byte {at})"))?;
    Ok(bytes.iter().fold(0u64, |n, &b| n << 8 | u64::from(b)))
}

/// The decoded size a header declares, checked against the chunk's.
fn declared_size(chunk: &Chunk<'_>, total: u64) -> Result<usize, String> {
    match usize::try_from(total) {
        Ok(total) if total <= chunk.limit => Ok(total),
        _ => Err(format!(
            "the chunk's header declares {total} decoded bytes, more than the {} of a chunk",
            chunk.limit
        )),
    }
}

/// LZ4 as HDF5's LZ4 plugin writes it: the decoded size (8 bytes) and
/// block size (4), big-endian, then each block as its stored size (4)
/// and its bytes, LZ4-compressed unless as long as the block.
fn lz4(chunk: &Chunk<'_>) -> Result<Vec<u8>, String> {
    let input = chunk.input;
    let total = declared_size(chunk, be::<8>(input, 0, "header")?)?;
    let block = be::<4>(input, 8, "header")? as usize;
    if block == 0 && total > 0 {
        return Err("the chunk's header declares blocks of 0 bytes".into());
    }
    let mut out = vec![0u8; total];
    let mut at = 12;
    for (index, part) in out.chunks_mut(block.max(1)).enumerate() {
        let stored = be::<4>(input, at, "block sizes")? as usize;
        at += 4;
        let bytes = input.get(at..at.saturating_add(stored)).ok_or_else(|| {
            format!("block {index} declares {stored} stored bytes, past the end of the chunk")
        })?;
        at += stored;
        if stored == part.len() {
            part.copy_from_slice(bytes);
            continue;
        }
        let n = lz4_flex::block::decompress_into(bytes, part)
            .map_err(|e| format!("block {index}: {e}"))?;
        if n != part.len() {
            return Err(format!(
                "block {index} decodes to {n} bytes, not {}",
                part.len()
            ));
        }
    }
    Ok(out)
}

/// Bitshuffle's elements a block holds are a multiple of this; elements
/// past the last whole multiple are stored as they are.
const BLOCKED_MULT: usize = 8;

/// Bitshuffle as its HDF5 filter writes it. Client values: versions (2),
/// element size, block size in elements (0: the default), compression (0
/// none, 2 LZ4, 3 zstd). Compressed, a chunk starts with its decoded size
/// (8 bytes) and block size in bytes (4), big-endian, and each block is
/// its stored size (4, big-endian) and bytes; elements past the last
/// multiple of 8 follow as stored.
fn bitshuffle(chunk: &Chunk<'_>) -> Result<Vec<u8>, String> {
    let value = |i: usize| chunk.values.get(i).map_or(0, |&v| v as usize);
    let element = value(2);
    if element == 0 {
        return Err("the filter's element size is 0".into());
    }
    let compression = value(4);
    let input = chunk.input;
    let (total, block, mut at) = if compression == 0 {
        (input.len(), value(3), 0)
    } else {
        let total = declared_size(chunk, be::<8>(input, 0, "header")?)?;
        (total, be::<4>(input, 8, "header")? as usize / element, 12)
    };
    let block = if block == 0 {
        default_block(element)
    } else {
        block
    };
    if total % element != 0 || block % BLOCKED_MULT != 0 {
        return Err(format!(
            "{total} decoded bytes in blocks of {block} elements of {element} bytes: \
             not whole elements, or blocks not a multiple of {BLOCKED_MULT}"
        ));
    }
    let elements = total / element;
    let blocked = elements - elements % BLOCKED_MULT;
    let mut out = vec![0u8; total];
    let mut shuffled = Vec::new();
    for (index, part) in out[..blocked * element]
        .chunks_mut(block * element)
        .enumerate()
    {
        let bits: &[u8] = if compression == 0 {
            let bytes = input
                .get(at..at + part.len())
                .ok_or_else(|| format!("the chunk ends inside block {index}"))?;
            at += part.len();
            bytes
        } else {
            let stored = be::<4>(input, at, "block sizes")? as usize;
            at += 4;
            let bytes = input.get(at..at.saturating_add(stored)).ok_or_else(|| {
                format!("block {index} declares {stored} stored bytes, past the end of the chunk")
            })?;
            at += stored;
            shuffled.resize(part.len(), 0);
            let n = match compression {
                2 => lz4_flex::block::decompress_into(bytes, &mut shuffled)
                    .map_err(|e| format!("block {index}: LZ4: {e}"))?,
                3 => zstd::bulk::decompress_to_buffer(bytes, &mut shuffled)
                    .map_err(|e| format!("block {index}: zstd: {e}"))?,
                other => return Err(format!("unknown compression {other} inside bitshuffle")),
            };
            if n != part.len() {
                return Err(format!(
                    "block {index} decodes to {n} bytes, not {}",
                    part.len()
                ));
            }
            &shuffled
        };
        unshuffle_bits(bits, part, element);
    }
    let rest = &mut out[blocked * element..];
    let tail = input
        .get(at..at + rest.len())
        .ok_or_else(|| "the chunk ends inside its last elements".to_string())?;
    rest.copy_from_slice(tail);
    Ok(out)
}

/// Bitshuffle's default block: about 8 KiB of elements, a multiple of 8,
/// at least 128.
fn default_block(element: usize) -> usize {
    (8192 / element / BLOCKED_MULT * BLOCKED_MULT).max(128)
}

/// Undoes bitshuffle's transpose of one block: `bits` holds, for each bit
/// `k` of each byte `j` of an element, a row of one bit per element
/// (row `8 j + k`, element `i` at bit `i % 8` of byte `i / 8`).
fn unshuffle_bits(bits: &[u8], out: &mut [u8], element: usize) {
    let n = out.len() / element;
    let row = n / 8;
    for (i, value) in out.chunks_exact_mut(element).enumerate() {
        let (byte, shift) = (i / 8, i % 8);
        for (j, b) in value.iter_mut().enumerate() {
            *b = (0..8).fold(0u8, |acc, k| {
                acc | ((bits[(8 * j + k) * row + byte] >> shift) & 1) << k
            });
        }
    }
}

/// A super-chunk C-Blosc2 made of a frame, freed on drop (the frame
/// itself stays ours: it is read in place).
struct SuperChunk(*mut blosc2_sys::blosc2_schunk);

impl Drop for SuperChunk {
    fn drop(&mut self) {
        // SAFETY: a super-chunk from `blosc2_schunk_from_buffer`, freed once.
        unsafe { blosc2_sys::blosc2_schunk_free(self.0) };
    }
}

/// Blosc2 as hdf5plugin's filter writes it: each HDF5 chunk is a Blosc2
/// frame of one chunk, which C-Blosc2 decodes. With a `b2nd` metalayer
/// (as hdf5plugin writes) the chunk is laid out in blocks, which are put
/// back in C order here.
fn blosc2(chunk: &Chunk<'_>) -> Result<Vec<u8>, String> {
    let mut frame = chunk.input.to_vec();
    let len = i64::try_from(frame.len()).map_err(|_| "a chunk too large".to_string())?;
    // SAFETY: `frame` outlives the super-chunk, which reads it in place
    // and does not free it (`copy` false).
    let schunk = unsafe { blosc2_sys::blosc2_schunk_from_buffer(frame.as_mut_ptr(), len, false) };
    if schunk.is_null() {
        return Err("the chunk is no Blosc2 frame".into());
    }
    let schunk = SuperChunk(schunk);
    // SAFETY: a valid super-chunk, read only.
    let s = unsafe { &*schunk.0 };
    if s.nchunks != 1 || s.typesize < 1 {
        return Err(format!(
            "the Blosc2 frame holds {} chunks of elements of {} bytes, not one",
            s.nchunks, s.typesize
        ));
    }
    let typesize = s.typesize as usize;
    let layout = b2nd_layout(s)?;
    let bound = match &layout {
        Some(layout) => layout.stored_elements()?.saturating_mul(typesize),
        None => chunk.limit,
    };
    let stored = usize::try_from(s.nbytes)
        .ok()
        .filter(|&n| n <= bound && i32::try_from(n).is_ok())
        .ok_or_else(|| {
            format!(
                "the Blosc2 frame declares {} decoded bytes, more than the {bound} of a chunk",
                s.nbytes
            )
        })?;
    let mut out = vec![0u8; stored];
    // SAFETY: `out` holds the `stored` bytes it is told of.
    let n = unsafe {
        blosc2_sys::blosc2_schunk_decompress_chunk(
            schunk.0,
            0,
            out.as_mut_ptr().cast(),
            stored as i32,
        )
    };
    if usize::try_from(n).ok() != Some(stored) {
        return Err(format!("C-Blosc2 could not decode the chunk (error {n})"));
    }
    match layout {
        Some(layout) if stored == bound => Ok(layout.to_c_order(&out, typesize)),
        Some(_) => Err(format!(
            "the Blosc2 frame declares {stored} decoded bytes, not the {bound} of its blocks"
        )),
        None => Ok(out),
    }
}

/// The shape of a `b2nd` array of one chunk and of its blocks.
struct B2ndLayout {
    shape: Vec<usize>,
    blocks: Vec<usize>,
}

impl B2ndLayout {
    /// The elements the chunk stores: its shape rounded up to whole blocks.
    fn stored_elements(&self) -> Result<usize, String> {
        self.shape
            .iter()
            .zip(&self.blocks)
            .try_fold(1usize, |n, (&d, &b)| n.checked_mul(d.div_ceil(b) * b))
            .ok_or_else(|| "a b2nd chunk too large".to_string())
    }

    /// `stored`, blocks one after another (each in C order), as the
    /// chunk's elements in C order.
    fn to_c_order(&self, stored: &[u8], typesize: usize) -> Vec<u8> {
        let grid: Vec<usize> = self
            .shape
            .iter()
            .zip(&self.blocks)
            .map(|(&d, &b)| d.div_ceil(b))
            .collect();
        let per_block: usize = self.blocks.iter().product();
        let count: usize = self.shape.iter().product();
        let mut out = Vec::with_capacity(count * typesize);
        let mut index = vec![0usize; self.shape.len()];
        for _ in 0..count {
            let (mut block, mut within) = (0, 0);
            for (k, &i) in index.iter().enumerate() {
                block = block * grid[k] + i / self.blocks[k];
                within = within * self.blocks[k] + i % self.blocks[k];
            }
            let at = (block * per_block + within) * typesize;
            out.extend_from_slice(&stored[at..at + typesize]);
            for k in (0..index.len()).rev() {
                index[k] += 1;
                if index[k] < self.shape[k] {
                    break;
                }
                index[k] = 0;
            }
        }
        out
    }
}

/// The `b2nd` metalayer of `s`, if it has one: MessagePack of version,
/// rank, shape (int64s), chunk shape and block shape (int32s), ...
fn b2nd_layout(s: &blosc2_sys::blosc2_schunk) -> Result<Option<B2ndLayout>, String> {
    let count = usize::from(s.nmetalayers).min(s.metalayers.len());
    let found = s.metalayers[..count].iter().find_map(|&m| {
        // SAFETY: the super-chunk's metalayers, valid while it is.
        let m = unsafe { m.as_ref()? };
        // SAFETY: as above; names are NUL-terminated.
        let name = unsafe { CStr::from_ptr(m.name) };
        let len = usize::try_from(m.content_len).ok()?;
        (name.to_bytes() == b"b2nd" && !m.content.is_null())
            // SAFETY: as above, `content_len` bytes.
            .then(|| unsafe { std::slice::from_raw_parts(m.content, len) })
    });
    let Some(meta) = found else {
        return Ok(None);
    };
    let bad = || "the chunk's b2nd metalayer is damaged".to_string();
    let mut at = 0;
    let mut byte = || {
        let b = meta.get(at).copied().ok_or_else(bad);
        at += 1;
        b
    };
    if !(0x90..=0x9f).contains(&byte()?) {
        return Err(bad());
    }
    let _version = byte()?;
    let ndim = usize::from(byte()?);
    if ndim == 0 || ndim > 8 {
        return Err(bad());
    }
    let mut dims = |tag: u8, width: usize| -> Result<Vec<usize>, String> {
        if byte()? != 0x90 + ndim as u8 {
            return Err(bad());
        }
        (0..ndim)
            .map(|_| {
                if byte()? != tag {
                    return Err(bad());
                }
                let n = (0..width)
                    .try_fold(0u64, |n, _| Ok::<_, String>(n << 8 | u64::from(byte()?)))?;
                usize::try_from(n)
                    .ok()
                    .filter(|&n| n > 0 && n < 1 << 31)
                    .ok_or_else(bad)
            })
            .collect()
    };
    let shape = dims(0xd3, 8)?;
    let chunks = dims(0xd2, 4)?;
    let blocks = dims(0xd2, 4)?;
    if shape != chunks || blocks.iter().zip(&shape).any(|(b, d)| b > d) {
        return Err(format!(
            "a b2nd chunk of shape {shape:?} in chunks of {chunks:?} and blocks of {blocks:?}: \
             not one chunk of whole blocks"
        ));
    }
    Ok(Some(B2ndLayout { shape, blocks }))
}

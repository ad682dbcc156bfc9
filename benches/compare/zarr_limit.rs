//! The codec alone, and the codec + I/O limit of any writer and reader of
//! the Zarr comparison's chunks: zstd at `LEVEL` on rayon's threads, with a
//! context and a buffer kept per thread, with and without a raw write or
//! read of each chunk file; and a plain reader of the chunks into records.

use std::fs;
use std::path::Path;

use super::LEVEL;

/// Runs `f` with this thread's zstd compressor at `LEVEL` and an output
/// buffer, both kept from call to call: no new context or memory per chunk.
fn with_compressor<R>(
    f: impl FnOnce(&mut zstd::bulk::Compressor<'static>, &mut Vec<u8>) -> R,
) -> R {
    use std::cell::RefCell;
    thread_local! {
        static COMPRESS: RefCell<Option<(zstd::bulk::Compressor<'static>, Vec<u8>)>> =
            const { RefCell::new(None) };
    }
    COMPRESS.with_borrow_mut(|kept| {
        let (compressor, out) = kept.get_or_insert_with(|| {
            let compressor = zstd::bulk::Compressor::new(LEVEL).expect("a zstd context");
            (compressor, Vec::new())
        });
        f(compressor, out)
    })
}

/// Compresses `chunk` into `out`, cleared first; returns its length.
fn compress(
    compressor: &mut zstd::bulk::Compressor<'static>,
    chunk: &[u8],
    out: &mut Vec<u8>,
) -> usize {
    out.clear();
    out.reserve(zstd::zstd_safe::compress_bound(chunk.len()));
    compressor
        .compress_to_buffer(chunk, out)
        .expect("zstd compresses")
}

/// Compresses each chunk of `packed` as the zstd codec of every writer
/// here does, on rayon's threads, into a buffer each thread keeps: the
/// codec's work alone. Returns each chunk's compressed length.
pub fn codec_compress(packed: &[u8], chunk_bytes: usize) -> Vec<usize> {
    use rayon::prelude::*;
    packed
        .par_chunks(chunk_bytes)
        .map(|chunk| with_compressor(|c, out| compress(c, chunk, out)))
        .collect()
}

/// The write limit: each chunk of `packed` compressed as by
/// [`codec_compress`], then written raw to its own file, `dir/c/N` (the
/// keys of a v3 store), on rayon's threads.
pub fn limit_write(packed: &[u8], chunk_bytes: usize, dir: &Path) {
    use rayon::prelude::*;
    let chunks = dir.join("c");
    fs::create_dir_all(&chunks).unwrap();
    packed
        .par_chunks(chunk_bytes)
        .enumerate()
        .for_each(|(i, chunk)| {
            with_compressor(|c, out| {
                compress(c, chunk, out);
                fs::write(chunks.join(i.to_string()), &out[..]).unwrap();
            })
        });
}

/// The read limit: each chunk file of [`limit_write`] read raw and
/// decompressed into its place in `out`, on rayon's threads.
pub fn limit_read(dir: &Path, out: &mut [u8], chunk_bytes: usize) {
    use rayon::prelude::*;
    let chunks = dir.join("c");
    out.par_chunks_mut(chunk_bytes)
        .enumerate()
        .for_each(|(i, chunk)| {
            let frame = fs::read(chunks.join(i.to_string())).unwrap();
            with_decompressor(|d| {
                let len = d
                    .decompress_to_buffer(&frame, chunk)
                    .expect("zstd decompresses");
                assert_eq!(len, chunk.len(), "a whole chunk");
            })
        });
}

/// Runs `f` with this thread's zstd decompressor, kept from call to call.
fn with_decompressor<R>(f: impl FnOnce(&mut zstd::bulk::Decompressor<'static>) -> R) -> R {
    use std::cell::RefCell;
    thread_local! {
        static DECOMPRESS: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
            const { RefCell::new(None) };
    }
    DECOMPRESS.with_borrow_mut(|kept| {
        f(kept.get_or_insert_with(|| zstd::bulk::Decompressor::new().expect("a zstd context")))
    })
}

/// Decompresses `frames` (one per chunk) into `out`, a chunk each, on
/// rayon's threads with a decompressor each thread keeps.
pub fn codec_decompress(frames: &[Vec<u8>], out: &mut [u8], chunk_bytes: usize) {
    use rayon::prelude::*;
    out.par_chunks_mut(chunk_bytes)
        .zip(frames)
        .for_each(|(chunk, frame)| {
            with_decompressor(|d| {
                let len = d
                    .decompress_to_buffer(frame, chunk)
                    .expect("zstd decompresses");
                assert_eq!(len, chunk.len(), "a whole chunk");
            })
        });
}

/// A plain reader of records of `R` rather than packed bytes: each chunk
/// file read raw and decompressed as by [`limit_read`], but into a buffer
/// each thread keeps, then each packed record (`packed_size` bytes) made
/// into an `R` by `from_packed` in its place in new memory (`out`, empty,
/// with room for `n`). With padding, an `R` is bigger than its packed
/// bytes: the work of [`limit_read`] plus writing the bigger records,
/// nothing of ours.
pub fn plain_read_records<R: Send>(
    dir: &Path,
    out: &mut Vec<R>,
    n: usize,
    (chunk_len, packed_size): (usize, usize),
    from_packed: impl Fn(&[u8]) -> R + Sync,
) {
    use rayon::prelude::*;
    use std::cell::RefCell;
    thread_local! {
        static DECODED: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    let chunks = dir.join("c");
    out.spare_capacity_mut()[..n]
        .par_chunks_mut(chunk_len)
        .enumerate()
        .for_each(|(i, slots)| {
            let frame = fs::read(chunks.join(i.to_string())).unwrap();
            DECODED.with_borrow_mut(|decoded| {
                decoded.resize(chunk_len * packed_size, 0);
                with_decompressor(|d| d.decompress_to_buffer(&frame, decoded))
                    .expect("zstd decompresses");
                for (slot, packed) in slots.iter_mut().zip(decoded.chunks_exact(packed_size)) {
                    slot.write(from_packed(packed));
                }
            })
        });
    // SAFETY: every one of the first `n` slots was written just above.
    unsafe { out.set_len(n) };
}

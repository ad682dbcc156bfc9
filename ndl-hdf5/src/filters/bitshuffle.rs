//! Bitshuffle (32008), bare or with LZ4 or zstd inside.

use super::{Chunk, be, declared_size, stored_block};

/// Bitshuffle's elements a block holds are a multiple of this; elements
/// past the last whole multiple are stored as they are.
const BLOCKED_MULT: usize = 8;

/// Bitshuffle as its HDF5 filter writes it. Client values: versions (2),
/// element size, block size in elements (0: the default), compression (0
/// none, 2 LZ4, 3 zstd). Compressed, a chunk starts with its decoded size
/// (8 bytes) and block size in bytes (4), big-endian, and each block is
/// its stored size (4, big-endian) and bytes; elements past the last
/// multiple of 8 follow as stored.
pub(super) fn decode(chunk: &Chunk<'_>) -> Result<Vec<u8>, String> {
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
            let bytes = stored_block(input, &mut at, index)?;
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

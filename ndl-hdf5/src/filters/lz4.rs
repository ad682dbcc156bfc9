//! LZ4 as HDF5's LZ4 plugin writes it (32004).

use super::{Chunk, be, declared_size, stored_block};

/// LZ4 as HDF5's LZ4 plugin writes it: the decoded size (8 bytes) and
/// block size (4), big-endian, then each block as its stored size (4)
/// and its bytes, LZ4-compressed unless as long as the block.
pub(super) fn decode(chunk: &Chunk<'_>) -> Result<Vec<u8>, String> {
    let input = chunk.input;
    let total = declared_size(chunk, be::<8>(input, 0, "header")?)?;
    let block = be::<4>(input, 8, "header")? as usize;
    if block == 0 && total > 0 {
        return Err("the chunk's header declares blocks of 0 bytes".into());
    }
    let mut out = vec![0u8; total];
    let mut at = 12;
    for (index, part) in out.chunks_mut(block.max(1)).enumerate() {
        let bytes = stored_block(input, &mut at, index)?;
        if bytes.len() == part.len() {
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

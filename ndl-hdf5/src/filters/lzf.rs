//! LZF, h5py's own filter (32000).

use super::Chunk;

/// LZF, as h5py's filter writes it: a bare LZF stream (literal runs and
/// back references), no header.
pub(super) fn decode(chunk: &Chunk<'_>) -> Result<Vec<u8>, String> {
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

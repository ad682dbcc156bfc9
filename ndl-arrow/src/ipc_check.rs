//! Checks that an Arrow IPC file's description of itself holds before the
//! arrow-ipc reader trusts it: every block within the file, every buffer
//! within its block's body. The reader panics on a buffer past its body,
//! and allocates whatever a block claims; after these checks neither
//! happens, and no allocation exceeds the file's size.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use arrow_ipc::{Block, RecordBatch as BatchMessage};

/// The last bytes of an IPC file: the footer's length, then the magic.
const TAIL: usize = 10;
const MAGIC: &[u8; 6] = b"ARROW1";
/// The marker before an encapsulated message's length.
const CONTINUATION: [u8; 4] = [0xFF; 4];

/// What does not hold in the file, if anything.
pub(crate) fn check(file: &mut File) -> Result<u64, String> {
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    if len < (2 * MAGIC.len() + TAIL) as u64 {
        return Err(format!("{len} bytes are too few for an Arrow IPC file"));
    }
    let mut tail = [0; TAIL];
    read_at(file, len - TAIL as u64, &mut tail)?;
    if &tail[4..] != MAGIC {
        return Err("no Arrow IPC file: it does not end with ARROW1".into());
    }
    let footer_len = i32::from_le_bytes(tail[..4].try_into().expect("4 bytes"));
    let footer_len = u64::try_from(footer_len)
        .ok()
        .filter(|&n| n + (TAIL + MAGIC.len()) as u64 <= len)
        .ok_or_else(|| format!("the footer's length {footer_len} does not fit the file"))?;
    let mut footer = vec![0; footer_len as usize];
    read_at(file, len - TAIL as u64 - footer_len, &mut footer)?;
    let footer = arrow_ipc::root_as_footer(&footer).map_err(|e| format!("the footer: {e}"))?;
    let blocks = footer
        .dictionaries()
        .into_iter()
        .flatten()
        .chain(footer.recordBatches().into_iter().flatten());
    let mut rows = 0u64;
    for (i, block) in blocks.enumerate() {
        let block_rows = check_block(file, len, block).map_err(|e| format!("block {i}: {e}"))?;
        rows = rows
            .checked_add(block_rows)
            .ok_or_else(|| format!("block {i}: the rows overflow a u64"))?;
    }
    Ok(rows)
}

/// Checks one block: within the file, its message readable, its buffers
/// within its body.
/// Checks one block; returns the rows of a record batch (0 for a
/// dictionary batch), which the file's length is the sum of.
fn check_block(file: &mut File, len: u64, block: &Block) -> Result<u64, String> {
    let offset = u64::try_from(block.offset()).ok();
    let meta = u64::try_from(block.metaDataLength()).ok();
    let body = u64::try_from(block.bodyLength()).ok();
    let (Some(offset), Some(meta), Some(body)) = (offset, meta, body) else {
        return Err("a negative offset or length".into());
    };
    if offset
        .checked_add(meta)
        .and_then(|m| m.checked_add(body))
        .is_none_or(|end| end > len)
        || meta < 8
    {
        return Err(format!(
            "{meta} + {body} bytes at {offset}, outside the file of {len} bytes"
        ));
    }
    let mut message = vec![0; meta as usize];
    read_at(file, offset, &mut message)?;
    let start = if message[..4] == CONTINUATION { 8 } else { 4 };
    let message =
        arrow_ipc::root_as_message(&message[start..]).map_err(|e| format!("the message: {e}"))?;
    if let Some(batch) = message.header_as_record_batch() {
        check_buffers(&batch, body)?;
        return u64::try_from(batch.length()).map_err(|_| format!("{} rows", batch.length()));
    }
    if let Some(batch) = message.header_as_dictionary_batch().and_then(|d| d.data()) {
        check_buffers(&batch, body)?;
    }
    Ok(0)
}

fn check_buffers(batch: &BatchMessage<'_>, body: u64) -> Result<(), String> {
    for (i, buffer) in batch.buffers().into_iter().flatten().enumerate() {
        let within = u64::try_from(buffer.offset())
            .ok()
            .zip(u64::try_from(buffer.length()).ok())
            .and_then(|(o, l)| o.checked_add(l))
            .is_some_and(|end| end <= body);
        if !within {
            return Err(format!(
                "buffer {i}: {} bytes at {}, outside the body of {body} bytes",
                buffer.length(),
                buffer.offset()
            ));
        }
    }
    Ok(())
}

fn read_at(file: &mut File, at: u64, buf: &mut [u8]) -> Result<(), String> {
    file.seek(SeekFrom::Start(at))
        .and_then(|_| file.read_exact(buf))
        .map_err(|e| e.to_string())
}

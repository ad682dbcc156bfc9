//! Checks that an Arrow IPC file's or stream's description of itself
//! holds before the arrow-ipc reader trusts it: every block or message
//! within the file, every buffer within its body. The reader panics on a
//! buffer past its body, and allocates whatever a message claims; after
//! these checks neither happens, and no allocation exceeds the file's
//! size. Files that are well formed but not read here (Feather v1,
//! big-endian data) are told apart from corrupted ones, each by its name.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use arrow_ipc::{Block, Endianness, Message, RecordBatch as BatchMessage};

/// The last bytes of an IPC file: the footer's length, then the magic.
const TAIL: usize = 10;
const MAGIC: &[u8; 6] = b"ARROW1";
/// The first (and last) bytes of a Feather v1 file.
const FEATHER_V1: &[u8; 4] = b"FEA1";
/// The marker before an encapsulated message's length.
const CONTINUATION: [u8; 4] = [0xFF; 4];

/// How the batches of an IPC file are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// The random-access file format (`ARROW1`, a footer of blocks).
    File,
    /// The streaming format: messages one after the other.
    Stream,
}

/// Why a file is not read.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// Its description of itself does not hold.
    Corrupt(String),
    /// It is well formed, but of a kind not read here.
    Unsupported(String),
}

impl From<String> for Refusal {
    fn from(message: String) -> Refusal {
        Refusal::Corrupt(message)
    }
}

/// The IPC file or stream at `path`, checked, from its start: its layout,
/// its rows, and a buffered reader for arrow-ipc.
pub(crate) fn open_checked(path: &Path) -> Result<(BufReader<File>, Layout, u64), crate::Error> {
    let mut file = crate::file::open(path)?;
    let (layout, rows) = check(&mut file).map_err(|refusal| match refusal {
        Refusal::Corrupt(message) => crate::Error::Corrupt { message },
        Refusal::Unsupported(message) => crate::Error::UnsupportedFile { message },
    })?;
    file.rewind().map_err(crate::Error::Io)?;
    Ok((BufReader::new(file), layout, rows))
}

/// The file's layout and its rows, or why it is not read.
pub(crate) fn check(file: &mut File) -> Result<(Layout, u64), Refusal> {
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    let mut start = [0; 8];
    let known = len.min(8) as usize;
    read_at(file, 0, &mut start[..known])?;
    let start = &start[..known];
    if start.starts_with(FEATHER_V1) {
        return Err(Refusal::Unsupported(
            "a Feather v1 file (it starts with FEA1), which is not read; re-save it as \
             Feather v2 with pyarrow: pyarrow.feather.write_feather(\
             pyarrow.feather.read_table(path), dest)"
                .into(),
        ));
    }
    if start.starts_with(MAGIC) {
        return Ok((Layout::File, check_file(file, len)?));
    }
    if start.starts_with(&CONTINUATION) {
        return Ok((Layout::Stream, check_stream(file, len)?));
    }
    Err(Refusal::Corrupt(
        "neither an Arrow IPC file (which starts with ARROW1) nor an Arrow IPC stream \
         (which starts with 0xFFFFFFFF)"
            .into(),
    ))
}

/// Refuses big-endian data, which arrow-ipc refuses in a file and reads
/// unswapped, as garbage, in a stream.
fn check_endianness(endianness: Endianness) -> Result<(), Refusal> {
    if endianness == Endianness::Big {
        return Err(Refusal::Unsupported(
            "big-endian Arrow IPC data, which is not supported (arrow-rs reads little-endian \
             only); re-save it with pyarrow, which swaps it to little-endian as it reads: \
             pyarrow.feather.write_feather(pyarrow.feather.read_table(path), dest)"
                .into(),
        ));
    }
    Ok(())
}

/// Checks the footer and every block of an IPC file; returns its rows.
fn check_file(file: &mut File, len: u64) -> Result<u64, Refusal> {
    if len < (2 * MAGIC.len() + TAIL) as u64 {
        return Err(format!("{len} bytes are too few for an Arrow IPC file").into());
    }
    let mut tail = [0; TAIL];
    read_at(file, len - TAIL as u64, &mut tail)?;
    if &tail[4..] != MAGIC {
        return Err(String::from("no Arrow IPC file: it does not end with ARROW1").into());
    }
    let footer_len = i32::from_le_bytes(tail[..4].try_into().expect("4 bytes"));
    let footer_len = u64::try_from(footer_len)
        .ok()
        .filter(|&n| n + (TAIL + MAGIC.len()) as u64 <= len)
        .ok_or_else(|| format!("the footer's length {footer_len} does not fit the file"))?;
    let mut footer = vec![0; footer_len as usize];
    read_at(file, len - TAIL as u64 - footer_len, &mut footer)?;
    let footer = arrow_ipc::root_as_footer(&footer).map_err(|e| format!("the footer: {e}"))?;
    if let Some(schema) = footer.schema() {
        check_endianness(schema.endianness())?;
    }
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

/// Checks every message of an IPC stream, a schema first, up to its
/// end-of-stream marker or the end of the file; returns its rows.
fn check_stream(file: &mut File, len: u64) -> Result<u64, Refusal> {
    let (mut at, mut rows, mut i) = (0u64, 0u64, 0usize);
    while let Some((meta, body)) = next_message(file, len, at, i)? {
        let in_message = |e: String| format!("message {i} at byte {at}: {e}");
        let message = arrow_ipc::root_as_message(&meta).map_err(|e| in_message(e.to_string()))?;
        match (i, message.header_as_schema()) {
            (0, Some(schema)) => check_endianness(schema.endianness())?,
            (0, None) => return Err(in_message("the first message is no schema".into()).into()),
            _ => rows = rows.saturating_add(check_message(&message, body).map_err(in_message)?),
        }
        at += 8 + meta.len() as u64 + body;
        i += 1;
    }
    Ok(rows)
}

/// The metadata and the body's length of the stream's message `i` at
/// `at`, both within the file; `None` at the end of the stream.
fn next_message(
    file: &mut File,
    len: u64,
    at: u64,
    i: usize,
) -> Result<Option<(Vec<u8>, u64)>, String> {
    if at == len {
        return Ok(None);
    }
    let here = |e: &str| format!("message {i} at byte {at}: {e}");
    let mut prefix = [0; 8];
    if len - at < 8 {
        return Err(here("its length runs past the end of the file"));
    }
    read_at(file, at, &mut prefix)?;
    if prefix[..4] != CONTINUATION {
        return Err(here("no continuation marker 0xFFFFFFFF"));
    }
    let meta = i32::from_le_bytes(prefix[4..].try_into().expect("4 bytes"));
    if meta == 0 {
        return Ok(None);
    }
    let meta = u64::try_from(meta)
        .ok()
        .filter(|&m| m <= len - at - 8)
        .ok_or_else(|| {
            here(&format!(
                "a metadata length of {meta}, past the end of the file"
            ))
        })?;
    let mut buf = vec![0; meta as usize];
    read_at(file, at + 8, &mut buf)?;
    let message = arrow_ipc::root_as_message(&buf).map_err(|e| here(&e.to_string()))?;
    let body = u64::try_from(message.bodyLength())
        .ok()
        .filter(|&b| b <= len - at - 8 - meta)
        .ok_or_else(|| {
            here(&format!(
                "a body of {} bytes, past the end of the file",
                message.bodyLength()
            ))
        })?;
    Ok(Some((buf, body)))
}

/// Checks one record or dictionary batch's buffers against its body;
/// returns its rows (0 for a dictionary batch).
fn check_message(message: &Message<'_>, body: u64) -> Result<u64, String> {
    if let Some(batch) = message.header_as_record_batch() {
        check_buffers(&batch, body)?;
        return u64::try_from(batch.length()).map_err(|_| format!("{} rows", batch.length()));
    }
    if let Some(batch) = message.header_as_dictionary_batch().and_then(|d| d.data()) {
        check_buffers(&batch, body)?;
    }
    Ok(0)
}

/// Checks one block: within the file, its message readable, its buffers
/// within its body; returns the rows of a record batch (0 for a
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
    check_message(&message, body)
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

//! The count of records in a written header, rewritten in place: what
//! appending and streaming change when records are added.

use std::ops::Range;

use super::parse::decode;
use crate::npy::literal::{self, Value};

/// Where the count of the first dimension is written in the header bytes
/// `prefix` (a C-order file's bytes up to its data): the digits of `12` in
/// `'shape': (12, 3)`. `None` unless they are plain decimal digits that
/// spell `count`, so that rewriting them cannot change anything else.
pub(crate) fn count_digits(prefix: &[u8], count: u64) -> Option<Range<usize>> {
    let version = *prefix.get(6)?;
    let start = if version == 1 { 10 } else { 12 };
    let text = decode(prefix.get(start..)?, version, start as u64).ok()?;
    let lit = literal::parse(&text, version < 3).ok()?;
    let Value::Dict(entries) = &lit.value else {
        return None;
    };
    let (_, shape) = entries
        .iter()
        .find(|(k, _)| matches!(&k.value, Value::Str(s) if s == "shape"))?;
    let Value::Tuple(items) = &shape.value else {
        return None;
    };
    let pos = items.first()?.pos;
    // Latin-1 text has one character per byte of the file.
    let at = start
        + if version == 3 {
            pos
        } else {
            text[..pos].chars().count()
        };
    let len = prefix[at..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let digits = std::str::from_utf8(&prefix[at..at + len]).ok()?;
    (digits.parse::<u64>().ok()? == count).then_some(at..at + len)
}

/// The header bytes `prefix` with the count at `digits` (see
/// [`count_digits`]) replaced by `count`, and the same length: the
/// spaces that end the header (before its `\n`) give or take the room.
/// `None` when there are too few spaces (no growth padding).
pub(crate) fn with_count(prefix: &[u8], digits: Range<usize>, count: u64) -> Option<Vec<u8>> {
    let new = count.to_string();
    let mut out = Vec::with_capacity(prefix.len() + new.len());
    out.extend_from_slice(&prefix[..digits.start]);
    out.extend_from_slice(new.as_bytes());
    out.extend_from_slice(&prefix[digits.end..]);
    let end = out.len() - usize::from(out.last() == Some(&b'\n'));
    let spaces = out[..end].iter().rev().take_while(|&&b| b == b' ').count();
    if out.len() > prefix.len() {
        let extra = out.len() - prefix.len();
        if spaces < extra {
            return None;
        }
        out.drain(end - extra..end);
    } else {
        let missing = prefix.len() - out.len();
        out.splice(end..end, std::iter::repeat_n(b' ', missing));
    }
    Some(out)
}

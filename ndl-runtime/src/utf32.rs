//! NumPy's `U` values: a fixed number of UTF-32 code units, padded with
//! NULs, which every reader of them decodes the same way.

use crate::ByteOrder;

/// The characters of the `U` value `raw` (UTF-32 code units in `order`),
/// its trailing NULs left out, as NumPy leaves them out: each a `char`,
/// or the index and value of a unit that is no Unicode scalar value.
///
/// ```
/// use ndl_runtime::{ByteOrder, utf32};
///
/// let raw: Vec<u8> = [0x61u32, 0xE9, 0, 0].iter().flat_map(|u| u.to_be_bytes()).collect();
/// let text: Result<String, _> = utf32::chars(&raw, ByteOrder::Big).collect();
/// assert_eq!(text, Ok("aé".to_string()));
/// let bad = 0xD800u32.to_le_bytes();
/// assert_eq!(utf32::chars(&bad, ByteOrder::Little).next(), Some(Err((0, 0xD800))));
/// ```
pub fn chars(
    raw: &[u8],
    order: ByteOrder,
) -> impl Iterator<Item = Result<char, (usize, u32)>> + '_ {
    let unit = move |u: &[u8]| {
        let u = [u[0], u[1], u[2], u[3]];
        match order {
            ByteOrder::Little => u32::from_le_bytes(u),
            ByteOrder::Big => u32::from_be_bytes(u),
        }
    };
    let units = raw.chunks_exact(4);
    let end = units
        .clone()
        .rposition(|u| unit(u) != 0)
        .map_or(0, |last| last + 1);
    units
        .take(end)
        .map(unit)
        .enumerate()
        .map(|(i, u)| char::from_u32(u).ok_or((i, u)))
}

//! NumPy's `U` values (fixed-width UTF-32) written as HDF5's
//! variable-length UTF-8 strings: HDF5 has no UTF-32 type, and
//! variable-length UTF-8 is how h5py stores text (`string_dtype()`) and
//! netCDF-4 its `string` (`NC_STRING`).

use std::ffi::{CString, c_char};

use ndl_runtime::ByteOrder;

/// Why a value cannot be written: its element within the values given and
/// the byte offset of the bad character within it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct BadValue {
    pub element: usize,
    pub offset: usize,
    pub message: String,
}

/// `U` values of `chars` characters each, in `order`, as C strings: the
/// trailing NULs that pad them dropped, as NumPy drops them.
///
/// # Errors
/// A code unit that is no Unicode scalar value, or a NUL before the last
/// character that is not one (HDF5's strings end at their first NUL).
pub(crate) fn c_strings(
    bytes: &[u8],
    chars: usize,
    order: ByteOrder,
) -> Result<Vec<CString>, BadValue> {
    let width = chars * 4;
    if width == 0 {
        return Ok(Vec::new());
    }
    bytes
        .chunks_exact(width)
        .enumerate()
        .map(|(element, value)| {
            c_string(value, order).map_err(|(offset, message)| BadValue {
                element,
                offset,
                message,
            })
        })
        .collect()
}

fn c_string(value: &[u8], order: ByteOrder) -> Result<CString, (usize, String)> {
    let mut text = String::with_capacity(value.len() / 4);
    for (i, c) in ndl_runtime::utf32::chars(value, order).enumerate() {
        let c = c.map_err(|(_, unit)| (i * 4, format!("U+{unit:X} is no Unicode character")))?;
        if c == '\0' {
            return Err((
                i * 4,
                "a NUL character inside the value, which HDF5's variable-length strings \
                 (C strings) cannot hold"
                    .into(),
            ));
        }
        text.push(c);
    }
    Ok(CString::new(text).unwrap_or_default())
}

/// The addresses of `strings`, as the memory of an HDF5 variable-length
/// string type holds them (one `char *` each), as plain words: valid
/// while `strings` lives.
pub(crate) fn addresses(strings: &[CString]) -> Vec<usize> {
    strings
        .iter()
        .map(|s| s.as_ptr().cast::<c_char>().expose_provenance())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf32(values: &[&str], chars: usize, order: ByteOrder) -> Vec<u8> {
        let mut out = Vec::new();
        for v in values {
            let mut units: Vec<u32> = v.chars().map(u32::from).collect();
            units.resize(chars, 0);
            for u in units {
                out.extend(match order {
                    ByteOrder::Big => u.to_be_bytes(),
                    _ => u.to_le_bytes(),
                });
            }
        }
        out
    }

    #[test]
    fn values_lose_their_padding_in_either_order() {
        for order in [ByteOrder::Little, ByteOrder::Big] {
            let bytes = utf32(&["a", "", "日本語"], 3, order);
            let strings = c_strings(&bytes, 3, order).unwrap();
            let texts: Vec<&str> = strings.iter().map(|s| s.to_str().unwrap()).collect();
            assert_eq!(texts, ["a", "", "日本語"]);
            assert_eq!(addresses(&strings)[2], strings[2].as_ptr() as usize);
        }
    }

    #[test]
    fn an_inner_nul_or_a_bad_unit_names_its_element_and_offset() {
        let mut bytes = utf32(&["ab", "a\0b"], 3, ByteOrder::Little);
        let e = c_strings(&bytes, 3, ByteOrder::Little).unwrap_err();
        assert_eq!((e.element, e.offset), (1, 4));
        assert!(e.message.contains("NUL character"), "{}", e.message);
        bytes[4..8].copy_from_slice(&0xD800u32.to_le_bytes());
        let e = c_strings(&bytes, 3, ByteOrder::Little).unwrap_err();
        assert_eq!((e.element, e.offset), (0, 4));
        assert!(e.message.contains("U+D800"), "{}", e.message);
    }
}

//! Python's `repr` of `str` and `bytes`: how headers spell names and type
//! strings, and how messages show what a file holds.

use std::fmt::Write as _;

/// Python's `repr` of a `str`: single quotes unless the text has `'` and
/// no `"`, backslash escapes, `\xNN`/`\uNNNN`/`\UNNNNNNNN` for characters
/// that are not printable.
pub(crate) fn py_repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            c if (c as u32) > 0x7f && is_printable(c) => out.push(c),
            c => {
                let n = c as u32;
                let _ = match n {
                    0..=0xff => write!(out, "\\x{n:02x}"),
                    0x100..=0xffff => write!(out, "\\u{n:04x}"),
                    _ => write!(out, "\\U{n:08x}"),
                };
            }
        }
    }
    out.push(quote);
    out
}

/// An approximation of Python's `str.isprintable` for one character.
///
/// Python calls a character non-printable when its Unicode category is
/// Cc, Cf, Cs, Co, Cn, Zl, Zp or Zs (except the space). Rust's standard
/// library has no category table, so this uses `char::is_control` (Cc),
/// `char::is_whitespace` (Zs, Zl, Zp), the Cf ranges of Unicode 15, the
/// private-use planes (Co) and the noncharacters and unassigned planes
/// (part of Cn). Unassigned code points inside assigned blocks are not
/// known here and count as printable, so a field name using one is written
/// raw where Python would escape it; NumPy reads both the same.
pub(crate) fn is_printable(c: char) -> bool {
    if c.is_control() || (c != ' ' && c.is_whitespace()) {
        return false;
    }
    let n = c as u32;
    const FORMAT: &[(u32, u32)] = &[
        (0x00AD, 0x00AD),
        (0x0600, 0x0605),
        (0x061C, 0x061C),
        (0x06DD, 0x06DD),
        (0x070F, 0x070F),
        (0x0890, 0x0891),
        (0x08E2, 0x08E2),
        (0x180E, 0x180E),
        (0x200B, 0x200F),
        (0x202A, 0x202E),
        (0x2060, 0x2064),
        (0x2066, 0x206F),
        (0xFEFF, 0xFEFF),
        (0xFFF9, 0xFFFB),
        (0x110BD, 0x110BD),
        (0x110CD, 0x110CD),
        (0x13430, 0x1343F),
        (0x1BCA0, 0x1BCA3),
        (0x1D173, 0x1D17A),
        (0xE0001, 0xE0001),
        (0xE0020, 0xE007F),
    ];
    const OTHER: &[(u32, u32)] = &[
        (0xE000, 0xF8FF),    // private use
        (0xFDD0, 0xFDEF),    // noncharacters
        (0x2FFFE, 0x2FFFF),  // noncharacters at the ends of planes 2..
        (0x3134B, 0x3134F),  // beyond CJK extension G (approximate)
        (0x323B0, 0xDFFFF),  // unassigned planes 3 (rest) .. 13
        (0xE0080, 0xE00FF),  // unassigned
        (0xE01F0, 0x10FFFF), // unassigned, then private-use planes 15 and 16
    ];
    if (n & 0xFFFE) == 0xFFFE {
        return false;
    }
    !FORMAT
        .iter()
        .chain(OTHER)
        .any(|&(lo, hi)| (lo..=hi).contains(&n))
}

/// Python's `repr` of a bytes object, so messages show bytes as NumPy does.
pub(crate) fn bytes_repr(bytes: &[u8]) -> String {
    let mut s = String::from("b'");
    for &b in bytes {
        match b {
            b'\\' => s.push_str("\\\\"),
            b'\'' => s.push_str("\\'"),
            b'\t' => s.push_str("\\t"),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s.push('\'');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repr_follows_python() {
        assert_eq!(py_repr_str("a"), "'a'");
        assert_eq!(py_repr_str("a'b"), "\"a'b\"");
        assert_eq!(py_repr_str("a'b\""), "'a\\'b\"'");
        assert_eq!(py_repr_str("a\"b"), "'a\"b'");
        assert_eq!(py_repr_str("\\"), "'\\\\'");
        assert_eq!(py_repr_str("\0\x7f\n\t\r"), "'\\x00\\x7f\\n\\t\\r'");
        assert_eq!(py_repr_str("é整😀"), "'é整😀'");
        assert_eq!(
            py_repr_str("\u{85}\u{a0}\u{ad}\u{2028}"),
            "'\\x85\\xa0\\xad\\u2028'"
        );
        assert_eq!(py_repr_str("\u{e0001}"), "'\\U000e0001'");
    }

    #[test]
    fn bytes_repr_is_pythons() {
        assert_eq!(bytes_repr(b"\x93NUMPY"), "b'\\x93NUMPY'");
        assert_eq!(bytes_repr(b"a'\\\n"), "b'a\\'\\\\\\n'");
    }
}

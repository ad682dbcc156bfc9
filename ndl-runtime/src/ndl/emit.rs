//! A YAML writer whose output means the same to YAML 1.1 parsers (PyYAML)
//! and YAML 1.2 parsers (serde_yaml).
//!
//! serde_yaml's own emitter leaves `ON`, `yes`, `2026-01-01` or `1_000`
//! unquoted, which PyYAML reads as a bool, a date or an int. Here a string
//! is written plain only when it is unmistakably a string in both versions;
//! everything else is double-quoted with escapes. Lists of scalars are
//! written in flow style (`shape: [10, 20]`), as the NDL spec shows them,
//! and so are short mappings of scalars (`- t: {type: float64, offset: 8}`).

use std::fmt::Write as _;

use serde_yaml::{Mapping, Value};

/// Writes `value` as a YAML document (without `---`), ending in a newline.
pub fn to_yaml_string(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Mapping(m) if !m.is_empty() => write_mapping(&mut out, m, 0),
        Value::Sequence(s) if !s.is_empty() && !is_flat(s) => write_block_sequence(&mut out, s, 0),
        scalar => {
            write_inline(&mut out, scalar);
            out.push('\n');
        }
    }
    out
}

fn write_mapping(out: &mut String, m: &Mapping, indent: usize) {
    for (k, v) in m {
        pad(out, indent);
        write_key(out, k, indent);
        write_value_after(out, v, indent);
    }
}

/// Longer keys are written as explicit `? key` entries: YAML limits an
/// implicit key to 1024 characters, and both PyYAML and libyaml reject a
/// longer one.
const MAX_IMPLICIT_KEY: usize = 1000;

/// Writes a key and its `:`, the `:` on a line of its own at `indent` when
/// the key is too long to be implicit.
fn write_key(out: &mut String, k: &Value, indent: usize) {
    let mut key = String::new();
    write_inline(&mut key, k);
    if key.chars().count() <= MAX_IMPLICIT_KEY {
        out.push_str(&key);
        out.push(':');
        return;
    }
    out.push_str("? ");
    out.push_str(&key);
    out.push('\n');
    pad(out, indent);
    out.push(':');
}

/// Mappings longer than this inline go on lines of their own.
const FLOW_WIDTH: usize = 64;

/// A value after its `key:` or its `-`: on the same line when it fits,
/// else on lines of its own.
fn write_value_after(out: &mut String, v: &Value, indent: usize) {
    match v {
        Value::Mapping(m) if !m.is_empty() && !fits_inline(m) => {
            out.push('\n');
            write_mapping(out, m, indent + 2);
        }
        Value::Sequence(s) if !s.is_empty() && !is_flat(s) => {
            out.push('\n');
            write_block_sequence(out, s, indent + 2);
        }
        other => {
            out.push(' ');
            write_inline(out, other);
            out.push('\n');
        }
    }
}

fn write_block_sequence(out: &mut String, s: &[Value], indent: usize) {
    for item in s {
        pad(out, indent);
        out.push('-');
        match item {
            Value::Mapping(m) if !m.is_empty() => {
                // The first key goes on the dash's line, the rest under it.
                let mut entries = m.iter();
                let (k, v) = entries.next().expect("not empty");
                out.push(' ');
                write_key(out, k, indent + 2);
                write_value_after(out, v, indent + 2);
                for (k, v) in entries {
                    pad(out, indent + 2);
                    write_key(out, k, indent + 2);
                    write_value_after(out, v, indent + 2);
                }
            }
            other => write_value_after(out, other, indent),
        }
    }
}

/// A list is written in flow style when it holds only scalars and flat lists.
fn is_flat(s: &[Value]) -> bool {
    s.iter().all(|v| match v {
        Value::Sequence(inner) => is_flat(inner),
        Value::Mapping(m) => m.is_empty(),
        Value::Tagged(_) => false,
        _ => true,
    })
}

/// A mapping is written in flow style when it is short and holds only
/// scalars, flat lists and such mappings.
fn fits_inline(m: &Mapping) -> bool {
    fn flat(v: &Value) -> bool {
        match v {
            Value::Sequence(s) => is_flat(s),
            Value::Mapping(m) => m.iter().all(|(k, v)| flat(k) && flat(v)),
            Value::Tagged(_) => false,
            _ => true,
        }
    }
    if !m.iter().all(|(k, v)| flat(k) && flat(v)) {
        return false;
    }
    let mut text = String::new();
    write_inline(&mut text, &Value::Mapping(m.clone()));
    text.len() <= FLOW_WIDTH
}

fn write_inline(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Sequence(s) => {
            out.push('[');
            for (i, item) in s.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_inline(out, item);
            }
            out.push(']');
        }
        Value::Mapping(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_inline(out, k);
                out.push_str(": ");
                write_inline(out, v);
            }
            out.push('}');
        }
        Value::Tagged(t) => {
            let _ = write!(out, "{} ", t.tag);
            write_inline(out, &t.value);
        }
    }
}

/// Floats always carry a `.`, and an exponent is always signed: YAML 1.1
/// resolves `1.5`, `1.0e+300` and `1.5e-7` as floats, but `1e300` (no
/// `.`) and `1.0e300` (unsigned exponent) as strings. Otherwise Rust's
/// shortest round-trip text is kept, so `1.1` stays `1.1` as the spec
/// writes it. Non-finite values use the `.inf`/`.nan` both versions share.
fn write_number(out: &mut String, n: &serde_yaml::Number) {
    if n.is_i64() || n.is_u64() {
        let _ = write!(out, "{n}");
        return;
    }
    let f = n
        .as_f64()
        .expect("a number that is not an integer is a float");
    if f.is_nan() {
        out.push_str(".nan");
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 { ".inf" } else { "-.inf" });
    } else {
        // `{:?}` is the shortest text that reads back as `f`, with an
        // exponent only for very large and very small magnitudes.
        let text = format!("{f:?}");
        let (mantissa, exp) = match text.split_once('e') {
            Some((m, e)) => (m, Some(e)),
            None => (text.as_str(), None),
        };
        out.push_str(mantissa);
        if !mantissa.contains('.') {
            out.push_str(".0");
        }
        if let Some(exp) = exp {
            let sign = if exp.starts_with('-') { "" } else { "+" };
            let _ = write!(out, "e{sign}{exp}");
        }
    }
}

/// Words YAML 1.1 reads as booleans or null in any case; `y`/`n` are in
/// the 1.1 spec's list even where PyYAML does not resolve them.
const RESERVED: [&str; 11] = [
    "y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf",
];

/// Whether `s` reads back as this same string, plain, in YAML 1.1 and 1.2.
pub(crate) fn is_plain_safe(s: &str) -> bool {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let first_ok = first.is_alphabetic() || first == '_' || first == '/';
    let rest_ok = s
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ' '));
    first_ok && rest_ok && !s.ends_with(' ') && !RESERVED.contains(&s.to_ascii_lowercase().as_str())
}

fn write_string(out: &mut String, s: &str) {
    if is_plain_safe(s) {
        out.push_str(s);
        return;
    }
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if is_yaml11_printable(c) => out.push(c),
            c if (c as u32) <= 0xFF => {
                let _ = write!(out, "\\x{:02X}", c as u32);
            }
            c if (c as u32) <= 0xFFFF => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08X}", c as u32);
            }
        }
    }
    out.push('"');
}

/// PyYAML's printable set, without NEL and the Unicode line and paragraph
/// separators, which YAML 1.1 treats as line breaks, and without the BOM.
fn is_yaml11_printable(c: char) -> bool {
    matches!(c as u32, 0x20..=0x7E | 0xA0..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}')
}

fn pad(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ambiguous_strings_are_quoted_and_read_back() {
        for s in [
            "ON",
            "off",
            "Yes",
            "no",
            "null",
            "~",
            "1",
            "0x1F",
            "1_000",
            ".inf",
            "2026-01-01",
            "1e3",
            "0o17",
            "1:20",
            "=",
            "<<",
            "",
            " x",
            "x ",
            "a: b",
            "#c",
            "-x",
            "a\"b\\c",
            "tab\there",
            "nl\nx",
            "\u{85}",
            "\u{2028}",
            "\u{feff}bom",
            "\u{1}",
            "y",
            "N",
            "True",
            "nan",
        ] {
            let text = to_yaml_string(&Value::from(s));
            assert!(text.starts_with('"'), "{s:?} was not quoted: {text}");
            let back: Value = serde_yaml::from_str(&text).unwrap();
            assert_eq!(back, Value::from(s), "{text}");
        }
    }

    #[test]
    fn plain_strings_stay_plain() {
        for s in [
            "uint8",
            "my field",
            "café",
            "/group1/d2",
            "Ηελλο ωορλδ",
            "x.y-z",
        ] {
            assert_eq!(to_yaml_string(&Value::from(s)), format!("{s}\n"));
        }
    }

    #[test]
    fn floats_use_yaml_1_1_forms() {
        let cases = [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1.1, "1.1"),
            (1.0e3, "1000.0"),
            (1.5e300, "1.5e+300"),
            (1e16, "1.0e+16"),
            (1.5e-7, "1.5e-7"),
            (5e-324, "5.0e-324"),
            (-2.25, "-2.25"),
            (-0.0, "-0.0"),
        ];
        for (f, text) in cases {
            assert_eq!(to_yaml_string(&Value::from(f)).trim(), text);
            let back: f64 = serde_yaml::from_str(text).unwrap();
            assert_eq!(back, f);
        }
        assert_eq!(
            to_yaml_string(&Value::from(f64::NEG_INFINITY)).trim(),
            "-.inf"
        );
    }

    #[test]
    fn long_keys_are_explicit() {
        let long = "k".repeat(1500);
        let src = format!(
            "{long}: 1\nnested:\n  {long}:\n    a: [1, 2]\nlist:\n- {{{long}: x, b: {{{long}: y}}}}\n"
        );
        // serde_yaml cannot read the implicit long keys either: build the value.
        let mut inner = Mapping::new();
        inner.insert(long.as_str().into(), "y".into());
        let mut item = Mapping::new();
        item.insert(long.as_str().into(), "x".into());
        item.insert("b".into(), Value::Mapping(inner));
        let mut nested = Mapping::new();
        nested.insert(
            long.as_str().into(),
            serde_yaml::from_str("{a: [1, 2]}").unwrap(),
        );
        let mut top = Mapping::new();
        top.insert(long.as_str().into(), 1.into());
        top.insert("nested".into(), Value::Mapping(nested));
        top.insert("list".into(), Value::Sequence(vec![Value::Mapping(item)]));
        let v = Value::Mapping(top);
        assert!(serde_yaml::from_str::<Value>(&src).is_err());
        let text = to_yaml_string(&v);
        assert!(text.starts_with(&format!("? {long}\n: 1\n")), "{text}");
        assert_eq!(serde_yaml::from_str::<Value>(&text).unwrap(), v, "{text}");
    }

    #[test]
    fn structure_round_trips() {
        let src = "a:\n  shape: [10, null, /d1]\n  list:\n  - x: {type: uint8, offset: 0}\n    y: 2\n  - [1, [2, 3]]\n  - - {k: v}\n  empty: {}\n  none: []\n";
        let v: Value = serde_yaml::from_str(src).unwrap();
        let text = to_yaml_string(&v);
        let back: Value = serde_yaml::from_str(&text).unwrap();
        assert_eq!(back, v, "{text}");
        assert!(text.contains("shape: [10, null, /d1]"), "{text}");
    }
}

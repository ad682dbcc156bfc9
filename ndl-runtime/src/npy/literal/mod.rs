//! A restricted Python literal parser: what `ast.literal_eval` accepts in
//! a `.npy` header, and nothing that could run code.
//!
//! Accepted: dicts, lists, tuples and sets; `str` and `bytes` literals with
//! escapes, `u`/`r`/`b` prefixes, triple quotes and implicit concatenation;
//! integers in any base with `_` separators and a unary sign (plus the
//! Python 2 `L` suffix when asked); floats and imaginary numbers (kept as
//! text, only for messages); `True`, `False`, `None`; comments, any
//! whitespace and backslash line continuations. Everything else, names in
//! particular, is an error. Nesting is limited, so neither the parser nor
//! the drop of its result can exhaust the stack.

use std::fmt::Write as _;

mod parser;
mod string;

use parser::Parser;

use super::repr::{bytes_repr, py_repr_str};

/// How deep containers may nest; CPython's parser gives up around 200.
pub(crate) const MAX_DEPTH: usize = 200;

/// A parsed literal and the byte position (in the text) where it starts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Lit {
    /// Byte position of the literal's first character in the text.
    pub pos: usize,
    /// The value.
    pub value: Value,
}

/// A Python literal value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    /// A `str`.
    Str(String),
    /// A `bytes`.
    Bytes(Vec<u8>),
    /// An `int` that fits `i128`.
    Int(i128),
    /// An `int` too large for `i128`, as written.
    BigInt(String),
    /// A `float` or `complex` literal, as written.
    Float(String),
    /// `True` or `False`.
    Bool(bool),
    /// `None`.
    None,
    /// A list.
    List(Vec<Lit>),
    /// A tuple.
    Tuple(Vec<Lit>),
    /// A set.
    Set(Vec<Lit>),
    /// A dict, entries in source order (duplicates kept).
    Dict(Vec<(Lit, Lit)>),
}

/// Why the text is not an accepted literal, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ParseError {
    /// Byte position in the text.
    pub pos: usize,
    /// What is wrong.
    pub message: String,
}

/// Parses `text` as one Python literal expression. `python2_long` accepts
/// the `L` suffix on integers, as NumPy does for 1.0 and 2.0 headers.
pub(crate) fn parse(text: &str, python2_long: bool) -> Result<Lit, ParseError> {
    if let Some(pos) = text.find('\0') {
        return Err(ParseError {
            pos,
            message: "NUL byte in the header".into(),
        });
    }
    let mut p = Parser {
        s: text,
        pos: 0,
        depth: 0,
        python2_long,
    };
    p.skip_space(true);
    if p.at_end() {
        return Err(p.error("the header is empty"));
    }
    let lit = p.value()?;
    p.skip_space(true);
    if !p.at_end() {
        return Err(p.error(&format!(
            "unexpected {} after the literal",
            p.describe_next()
        )));
    }
    Ok(lit)
}
pub(super) fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

impl Value {
    /// Python's repr of the value, cut to about 100 characters for messages.
    pub(crate) fn repr(&self) -> String {
        let mut out = String::new();
        self.write_repr(&mut out, 100);
        if out.len() > 100 {
            out = truncate(&out, 100);
        }
        out
    }

    fn write_repr(&self, out: &mut String, budget: usize) {
        if out.len() > budget {
            return;
        }
        let seq = |out: &mut String, items: &[Lit], open: &str, close: &str| {
            out.push_str(open);
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                it.value.write_repr(out, budget);
                if out.len() > budget {
                    return;
                }
            }
            out.push_str(close);
        };
        match self {
            Value::Str(s) => out.push_str(&py_repr_str(s)),
            Value::Bytes(b) => out.push_str(&bytes_repr(b)),
            Value::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Value::BigInt(s) | Value::Float(s) => out.push_str(s),
            Value::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
            Value::None => out.push_str("None"),
            Value::List(items) => seq(out, items, "[", "]"),
            Value::Tuple(items) if items.len() == 1 => seq(out, items, "(", ",)"),
            Value::Tuple(items) => seq(out, items, "(", ")"),
            Value::Set(items) => seq(out, items, "{", "}"),
            Value::Dict(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.value.write_repr(out, budget);
                    out.push_str(": ");
                    v.value.write_repr(out, budget);
                    if out.len() > budget {
                        return;
                    }
                }
                out.push('}');
            }
        }
    }

    /// The Python type name, for messages.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Value::Str(_) => "str",
            Value::Bytes(_) => "bytes",
            Value::Int(_) | Value::BigInt(_) => "int",
            Value::Float(_) => "float",
            Value::Bool(_) => "bool",
            Value::None => "None",
            Value::List(_) => "list",
            Value::Tuple(_) => "tuple",
            Value::Set(_) => "set",
            Value::Dict(_) => "dict",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> Value {
        parse(s, false)
            .unwrap_or_else(|e| panic!("{s:?}: {e:?}"))
            .value
    }

    fn err(s: &str) -> ParseError {
        parse(s, false).expect_err(s)
    }

    fn strs(s: &str) -> String {
        match ok(s) {
            Value::Str(s) => s,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(ok("+10"), Value::Int(10));
        assert_eq!(ok("- 3"), Value::Int(-3));
        assert_eq!(ok("0x2"), Value::Int(2));
        assert_eq!(ok("0o17"), Value::Int(15));
        assert_eq!(ok("0b_101"), Value::Int(5));
        assert_eq!(ok("1_0"), Value::Int(10));
        assert_eq!(ok("000"), Value::Int(0));
        assert_eq!(ok("2.0"), Value::Float("2.0".into()));
        assert_eq!(ok("1e3"), Value::Float("1e3".into()));
        assert_eq!(ok("2j"), Value::Float("2j".into()));
        assert!(matches!(
            ok("99999999999999999999999999999999999999999"),
            Value::BigInt(_)
        ));
        assert_eq!(
            parse("(2L,)", true).unwrap().value,
            Value::Tuple(vec![Lit {
                pos: 1,
                value: Value::Int(2)
            }])
        );
        for bad in ["2L", "1__0", "1_", "0x", "012", "--1", "1e", "2 3", "0xg"] {
            err(bad);
        }
    }

    #[test]
    fn strings() {
        assert_eq!(strs("'<' 'f8'"), "<f8");
        assert_eq!(strs("u'a' r'\\n'"), "a\\n");
        assert_eq!(strs("'\\x3cf8'"), "<f8");
        assert_eq!(strs("\"a'b\""), "a'b");
        assert_eq!(strs("'\\u00e9\\U0001F600\\101\\q'"), "é😀A\\q");
        assert_eq!(strs("'''a\n'b'''"), "a\n'b");
        assert_eq!(strs("'a\\\nb'"), "ab");
        assert_eq!(ok("b'\\xff'"), Value::Bytes(vec![0xff]));
        assert_eq!(ok("Rb'\\x'"), Value::Bytes(b"\\x".to_vec()));
        for bad in [
            "'abc",
            "'a\nb'",
            "f'x'",
            "b'é'",
            "'a' b'b'",
            "'\\x4'",
            "'\\N{DASH}'",
            "x'a'",
            "'\\U00110000'",
        ] {
            err(bad);
        }
    }

    #[test]
    fn containers_and_names() {
        assert_eq!(ok("()"), Value::Tuple(vec![]));
        assert_eq!(ok("(1)"), Value::Int(1));
        assert!(matches!(ok("(1,)"), Value::Tuple(v) if v.len() == 1));
        assert!(matches!(ok("[1, 2,]"), Value::List(v) if v.len() == 2));
        assert!(matches!(ok("{1, 2}"), Value::Set(v) if v.len() == 2));
        assert!(matches!(ok("{'a': 1, 'a': 2,}"), Value::Dict(v) if v.len() == 2));
        assert!(matches!(
            ok(" \t\n{ # c\n 'a' :\n True }\n  \n"),
            Value::Dict(_)
        ));
        assert_eq!(ok("None"), Value::None);
        assert_eq!(
            err("false").message,
            "the name `false` is not a literal (only True, False and None are)"
        );
        for bad in [
            "",
            "   ",
            "{'a' 1}",
            "{'a': 1",
            "[1 2]",
            "(1 2)",
            "__import__('os')",
            "1 +\n2",
            "'a'\n'b'",
            "{'a': 1}\x00",
            "{**x}",
            "[1,,]",
            "(,)",
            "x",
            "1 2",
            "[1](0)",
            "{'a': 1}}",
            "...",
        ] {
            err(bad);
        }
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse(&deep, false).is_ok());
        let too_deep = "(".repeat(100_000);
        assert!(err(&too_deep).message.contains("nest"));
        let too_deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert!(err(&too_deep).message.contains("nest"));
    }

    #[test]
    fn error_positions() {
        assert_eq!(err("{'a': false}").pos, 6);
        assert_eq!(err("[1, 2 3]").pos, 6);
    }

    #[test]
    fn repr_is_short() {
        assert_eq!(
            ok("['a', (1,), {b'x': None}]").repr(),
            "['a', (1,), {b'x': None}]"
        );
        let long = format!("[{}]", "1, ".repeat(1000));
        assert!(ok(&long).repr().len() <= 104);
    }
}

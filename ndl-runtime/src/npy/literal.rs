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

struct Parser<'a> {
    s: &'a str,
    pos: usize,
    /// Open brackets; inside them newlines are plain whitespace.
    depth: usize,
    python2_long: bool,
}

impl Parser<'_> {
    fn at_end(&self) -> bool {
        self.pos >= self.s.len()
    }

    fn peek(&self) -> Option<char> {
        self.s[self.pos..].chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.s[self.pos..].chars().nth(n)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn error(&self, message: &str) -> ParseError {
        ParseError {
            pos: self.pos,
            message: message.to_string(),
        }
    }

    fn describe_next(&self) -> String {
        match self.peek() {
            None => "end of header".into(),
            Some(c) => format!("character {}", py_repr_str(&c.to_string())),
        }
    }

    /// Skips whitespace, comments and line continuations. Newlines count
    /// only inside brackets or when `newlines` is set (before and after the
    /// whole literal), as in Python's tokenizer.
    fn skip_space(&mut self, newlines: bool) {
        let newlines = newlines || self.depth > 0;
        loop {
            match self.peek() {
                Some(' ' | '\t' | '\x0c') => self.pos += 1,
                Some('\n' | '\r') if newlines => self.pos += 1,
                Some('\\') if matches!(self.peek_at(1), Some('\n' | '\r')) => {
                    self.pos += 2;
                    if self.s[self.pos - 1..].starts_with("\r\n") {
                        self.pos += 1;
                    }
                }
                Some('#') => {
                    while !matches!(self.peek(), None | Some('\n' | '\r')) {
                        self.bump();
                    }
                }
                _ => return,
            }
        }
    }

    fn value(&mut self) -> Result<Lit, ParseError> {
        let pos = self.pos;
        let value = match self.peek() {
            None => return Err(self.error("unexpected end of header: a value is missing")),
            Some('{') => self.container('{')?,
            Some('[') => self.container('[')?,
            Some('(') => return self.paren(),
            Some('+' | '-') => self.signed_number()?,
            Some(c)
                if c.is_ascii_digit()
                    || (c == '.' && self.peek_at(1).is_some_and(|d| d.is_ascii_digit())) =>
            {
                self.number(false)?
            }
            Some('\'' | '"') => self.strings()?,
            Some(c) if c.is_alphabetic() || c == '_' => self.name_or_string()?,
            Some(_) => return Err(self.error(&format!("unexpected {}", self.describe_next()))),
        };
        Ok(Lit { pos, value })
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(&format!("brackets nest deeper than {MAX_DEPTH} levels")));
        }
        self.depth += 1;
        Ok(())
    }

    /// `( )`: the empty tuple, a parenthesised value, or a tuple.
    fn paren(&mut self) -> Result<Lit, ParseError> {
        let pos = self.pos;
        self.enter()?;
        self.pos += 1;
        self.skip_space(false);
        if self.peek() == Some(')') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Lit {
                pos,
                value: Value::Tuple(Vec::new()),
            });
        }
        let first = self.value()?;
        self.skip_space(false);
        match self.peek() {
            Some(')') => {
                self.pos += 1;
                self.depth -= 1;
                // A parenthesised value is the value itself, not a tuple.
                return Ok(first);
            }
            Some(',') => self.pos += 1,
            _ => {
                return Err(self.error(&format!(
                    "expected ',' or ')', found {}",
                    self.describe_next()
                )))
            }
        }
        let mut items = vec![first];
        self.items_until(')', &mut items)?;
        self.depth -= 1;
        Ok(Lit {
            pos,
            value: Value::Tuple(items),
        })
    }

    /// After a separating comma: more values, optional trailing comma, `close`.
    fn items_until(&mut self, close: char, items: &mut Vec<Lit>) -> Result<(), ParseError> {
        loop {
            self.skip_space(false);
            if self.peek() == Some(close) {
                self.pos += 1;
                return Ok(());
            }
            items.push(self.value()?);
            self.skip_space(false);
            match self.peek() {
                Some(',') => self.pos += 1,
                Some(c) if c == close => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => {
                    return Err(self.error(&format!(
                        "expected ',' or '{close}', found {}",
                        self.describe_next()
                    )))
                }
            }
        }
    }

    /// `[...]` or `{...}` (a dict or a set).
    fn container(&mut self, open: char) -> Result<Value, ParseError> {
        self.enter()?;
        self.pos += 1;
        let value = if open == '[' {
            let mut items = Vec::new();
            self.items_until(']', &mut items)?;
            Value::List(items)
        } else {
            self.braces()?
        };
        self.depth -= 1;
        Ok(value)
    }

    fn braces(&mut self) -> Result<Value, ParseError> {
        self.skip_space(false);
        if self.peek() == Some('}') {
            self.pos += 1;
            return Ok(Value::Dict(Vec::new()));
        }
        let first = self.value()?;
        self.skip_space(false);
        if self.peek() != Some(':') {
            let mut items = vec![first];
            if self.peek() == Some(',') {
                self.pos += 1;
                self.items_until('}', &mut items)?;
            } else if self.peek() == Some('}') {
                self.pos += 1;
            } else {
                return Err(self.error(&format!(
                    "expected ':', ',' or '}}', found {}",
                    self.describe_next()
                )));
            }
            return Ok(Value::Set(items));
        }
        let mut entries = Vec::new();
        let mut key = first;
        loop {
            self.pos += 1; // the ':'
            self.skip_space(false);
            let value = self.value()?;
            entries.push((key, value));
            self.skip_space(false);
            match self.peek() {
                Some('}') => {
                    self.pos += 1;
                    return Ok(Value::Dict(entries));
                }
                Some(',') => self.pos += 1,
                _ => {
                    return Err(self.error(&format!(
                        "expected ',' or '}}', found {}",
                        self.describe_next()
                    )))
                }
            }
            self.skip_space(false);
            if self.peek() == Some('}') {
                self.pos += 1;
                return Ok(Value::Dict(entries));
            }
            key = self.value()?;
            self.skip_space(false);
            if self.peek() != Some(':') {
                return Err(self.error(&format!("expected ':', found {}", self.describe_next())));
            }
        }
    }

    /// `+n` or `-n`: one sign, then a number (as `ast.literal_eval` allows).
    fn signed_number(&mut self) -> Result<Value, ParseError> {
        let negative = self.bump() == Some('-');
        self.skip_space(false);
        match self.peek() {
            Some(c) if c.is_ascii_digit() || c == '.' => self.number(negative),
            _ => Err(self.error(&format!(
                "a sign must be followed by a number, found {}",
                self.describe_next()
            ))),
        }
    }

    fn number(&mut self, negative: bool) -> Result<Value, ParseError> {
        let start = self.pos;
        let radix = match (self.peek(), self.peek_at(1)) {
            (Some('0'), Some('x' | 'X')) => 16,
            (Some('0'), Some('o' | 'O')) => 8,
            (Some('0'), Some('b' | 'B')) => 2,
            _ => 10,
        };
        let value = if radix == 10 {
            self.decimal(negative)?
        } else {
            self.pos += 2;
            let digits = self.digits(|c| c.is_digit(radix))?;
            if digits.is_empty() {
                return Err(self.error("a number needs digits after its base prefix"));
            }
            int_value(&digits, radix, negative, &self.s[start..self.pos])
        };
        self.after_number()?;
        Ok(value)
    }

    /// Digits with single `_` separators between them.
    fn digits(&mut self, is_digit: impl Fn(char) -> bool) -> Result<String, ParseError> {
        let mut out = String::new();
        loop {
            match self.peek() {
                Some(c) if is_digit(c) => {
                    out.push(c);
                    self.pos += 1;
                }
                Some('_')
                    if self.peek_at(1).is_some_and(&is_digit)
                        && (!out.is_empty() || self.radix_prefix_before()) =>
                {
                    self.pos += 1;
                }
                _ => return Ok(out),
            }
        }
    }

    /// Python allows `0x_1`: an underscore right after the base prefix.
    fn radix_prefix_before(&self) -> bool {
        let before = &self.s[..self.pos];
        ["0x", "0X", "0o", "0O", "0b", "0B"]
            .iter()
            .any(|p| before.ends_with(p))
    }

    fn decimal(&mut self, negative: bool) -> Result<Value, ParseError> {
        let start = self.pos;
        let int_part = self.digits(|c| c.is_ascii_digit())?;
        let mut is_float = false;
        if self.peek() == Some('.') {
            is_float = true;
            self.pos += 1;
            self.digits(|c| c.is_ascii_digit())?;
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let save = self.pos;
            self.pos += 1;
            if matches!(self.peek(), Some('+' | '-')) {
                self.pos += 1;
            }
            if self.digits(|c| c.is_ascii_digit())?.is_empty() {
                self.pos = save;
                return Err(self.error("invalid number: the exponent has no digits"));
            }
            is_float = true;
        }
        if matches!(self.peek(), Some('j' | 'J')) {
            self.pos += 1;
            is_float = true;
        }
        let text = &self.s[start..self.pos];
        if is_float {
            let sign = if negative { "-" } else { "" };
            return Ok(Value::Float(format!("{sign}{text}")));
        }
        if int_part.len() > 1 && int_part.starts_with('0') && int_part.bytes().any(|b| b != b'0') {
            return Err(ParseError {
                pos: start,
                message: "leading zeros in a decimal integer are not allowed in Python 3".into(),
            });
        }
        Ok(int_value(&int_part, 10, negative, text))
    }

    /// After a number: the Python 2 `L` suffix, or nothing name-like.
    fn after_number(&mut self) -> Result<(), ParseError> {
        if self.python2_long
            && self.peek() == Some('L')
            && !self.peek_at(1).is_some_and(is_name_char)
        {
            self.pos += 1;
            return Ok(());
        }
        if self.peek().is_some_and(is_name_char) {
            return Err(self.error(&format!(
                "invalid number literal: unexpected {}",
                self.describe_next()
            )));
        }
        Ok(())
    }

    /// A name: `True`, `False`, `None`, or a string prefix; any other name is refused.
    fn name_or_string(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        while self.peek().is_some_and(is_name_char) {
            self.bump();
        }
        let name = &self.s[start..self.pos];
        if matches!(self.peek(), Some('\'' | '"')) && string_prefix(name).is_some() {
            self.pos = start;
            return self.strings();
        }
        match name {
            "True" => Ok(Value::Bool(true)),
            "False" => Ok(Value::Bool(false)),
            "None" => Ok(Value::None),
            _ => Err(ParseError {
                pos: start,
                message: format!(
                    "the name `{}` is not a literal (only True, False and None are)",
                    truncate(name, 40)
                ),
            }),
        }
    }

    /// One or more adjacent string literals, concatenated.
    fn strings(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        let (mut text, mut bytes) = (String::new(), None::<Vec<u8>>);
        let mut first = true;
        loop {
            let piece_start = self.pos;
            let prefix = self.prefix();
            let Some(kind) = string_prefix(prefix) else {
                self.pos = piece_start;
                break;
            };
            if !matches!(self.peek(), Some('\'' | '"')) {
                self.pos = piece_start;
                break;
            }
            if !first && kind.bytes != bytes.is_some() {
                return Err(ParseError {
                    pos: piece_start,
                    message: "cannot mix bytes and str literals".into(),
                });
            }
            let piece = self.string_body(kind)?;
            match (&mut bytes, kind.bytes) {
                (Some(b), true) => b.extend(piece.chars().map(|c| c as u8)),
                (None, true) => bytes = Some(piece.chars().map(|c| c as u8).collect()),
                _ => text.push_str(&piece),
            }
            first = false;
            self.skip_space(false);
        }
        debug_assert!(self.pos > start);
        Ok(match bytes {
            Some(b) => Value::Bytes(b),
            None => Value::Str(text),
        })
    }

    fn prefix(&mut self) -> &str {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) && self.pos - start < 3 {
            self.pos += 1;
        }
        &self.s[start..self.pos]
    }

    /// The body of one quoted literal; bytes come back as chars U+0000..U+00FF.
    fn string_body(&mut self, kind: StrKind) -> Result<String, ParseError> {
        let open = self.pos;
        let quote = self.bump().expect("caller checked the quote");
        let triple = self.peek() == Some(quote) && self.peek_at(1) == Some(quote);
        if triple {
            self.pos += 2;
        }
        let mut out = String::new();
        loop {
            let Some(c) = self.bump() else {
                return Err(ParseError {
                    pos: open,
                    message: "unterminated string literal".into(),
                });
            };
            match c {
                c if c == quote => {
                    if !triple {
                        return Ok(out);
                    }
                    if self.peek() == Some(quote) && self.peek_at(1) == Some(quote) {
                        self.pos += 2;
                        return Ok(out);
                    }
                    out.push(c);
                }
                '\n' | '\r' if !triple => {
                    return Err(ParseError {
                        pos: open,
                        message:
                            "unterminated string literal (newline inside a single-quoted string)"
                                .into(),
                    })
                }
                '\\' if kind.raw => {
                    out.push('\\');
                    if let Some(next) = self.bump() {
                        out.push(next);
                    }
                }
                '\\' => self.escape(kind, &mut out)?,
                c if kind.bytes && !c.is_ascii() => {
                    return Err(self.error("bytes literals can only contain ASCII characters"))
                }
                c => out.push(c),
            }
        }
    }

    fn escape(&mut self, kind: StrKind, out: &mut String) -> Result<(), ParseError> {
        let at = self.pos - 1;
        let bad = |message: &str| ParseError {
            pos: at,
            message: message.to_string(),
        };
        let Some(c) = self.bump() else {
            return Err(bad("unterminated string literal"));
        };
        match c {
            '\n' => {}
            '\r' => {
                if self.peek() == Some('\n') {
                    self.pos += 1;
                }
            }
            '\\' | '\'' | '"' => out.push(c),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '0'..='7' => {
                let mut n = c.to_digit(8).expect("octal digit");
                for _ in 0..2 {
                    match self.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            n = n * 8 + d;
                            self.pos += 1;
                        }
                        None => break,
                    }
                }
                if kind.bytes && n > 0xff {
                    return Err(bad("octal escape out of range in a bytes literal"));
                }
                out.push(char::from_u32(n).expect("at most 0o777"));
            }
            'x' => out.push(
                self.hex_escape(2)
                    .ok_or_else(|| bad("\\x needs two hex digits"))?,
            ),
            'u' if !kind.bytes => out.push(
                self.hex_escape(4)
                    .ok_or_else(|| bad("\\u needs four hex digits"))?,
            ),
            'U' if !kind.bytes => out.push(
                self.hex_escape(8)
                    .ok_or_else(|| bad("\\U needs eight hex digits of a valid code point"))?,
            ),
            'N' if !kind.bytes => return Err(bad("\\N{...} escapes are not supported")),
            other => {
                // Python keeps unknown escapes as they are (with a warning).
                out.push('\\');
                out.push(other);
            }
        }
        Ok(())
    }

    fn hex_escape(&mut self, n: usize) -> Option<char> {
        let digits = self.s.get(self.pos..self.pos + n)?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let c = char::from_u32(u32::from_str_radix(digits, 16).ok()?)?;
        self.pos += n;
        Some(c)
    }
}

#[derive(Clone, Copy)]
struct StrKind {
    raw: bool,
    bytes: bool,
}

/// The kind of string a prefix makes, or `None` if it is not a literal prefix
/// (f-strings are expressions, not literals).
fn string_prefix(prefix: &str) -> Option<StrKind> {
    let p = prefix.to_ascii_lowercase();
    Some(match p.as_str() {
        "" | "u" => StrKind {
            raw: false,
            bytes: false,
        },
        "r" => StrKind {
            raw: true,
            bytes: false,
        },
        "b" => StrKind {
            raw: false,
            bytes: true,
        },
        "br" | "rb" => StrKind {
            raw: true,
            bytes: true,
        },
        _ => return None,
    })
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn int_value(digits: &str, radix: u32, negative: bool, text: &str) -> Value {
    match i128::from_str_radix(digits, radix) {
        Ok(n) if negative => Value::Int(-n),
        Ok(n) => Value::Int(n),
        Err(_) => Value::BigInt(format!("{}{text}", if negative { "-" } else { "" })),
    }
}

fn truncate(s: &str, max: usize) -> String {
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

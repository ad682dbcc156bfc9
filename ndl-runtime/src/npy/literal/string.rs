//! String and bytes literals (prefixes, quotes, escapes, implicit
//! concatenation) and the three names that are literals.

use super::parser::{Parser, is_name_char};
use super::{ParseError, Value, truncate};

impl Parser<'_> {
    /// A name: `True`, `False`, `None`, or a string prefix; any other name is refused.
    pub(super) fn name_or_string(&mut self) -> Result<Value, ParseError> {
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
    pub(super) fn strings(&mut self) -> Result<Value, ParseError> {
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
                    });
                }
                '\\' if kind.raw => {
                    out.push('\\');
                    if let Some(next) = self.bump() {
                        out.push(next);
                    }
                }
                '\\' => self.escape(kind, &mut out)?,
                c if kind.bytes && !c.is_ascii() => {
                    return Err(self.error("bytes literals can only contain ASCII characters"));
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

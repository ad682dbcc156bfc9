//! The parser: whitespace, containers and numbers; strings and names are
//! in [`string`](super::string).

use super::{Lit, MAX_DEPTH, ParseError, Value};
use crate::npy::repr::py_repr_str;

pub(super) struct Parser<'a> {
    pub(super) s: &'a str,
    pub(super) pos: usize,
    /// Open brackets; inside them newlines are plain whitespace.
    pub(super) depth: usize,
    pub(super) python2_long: bool,
}

impl Parser<'_> {
    pub(super) fn at_end(&self) -> bool {
        self.pos >= self.s.len()
    }

    pub(super) fn peek(&self) -> Option<char> {
        self.s[self.pos..].chars().next()
    }

    pub(super) fn peek_at(&self, n: usize) -> Option<char> {
        self.s[self.pos..].chars().nth(n)
    }

    pub(super) fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    pub(super) fn error(&self, message: &str) -> ParseError {
        ParseError {
            pos: self.pos,
            message: message.to_string(),
        }
    }

    pub(super) fn describe_next(&self) -> String {
        match self.peek() {
            None => "end of header".into(),
            Some(c) => format!("character {}", py_repr_str(&c.to_string())),
        }
    }

    /// Skips whitespace, comments and line continuations. Newlines count
    /// only inside brackets or when `newlines` is set (before and after the
    /// whole literal), as in Python's tokenizer.
    pub(super) fn skip_space(&mut self, newlines: bool) {
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

    pub(super) fn value(&mut self) -> Result<Lit, ParseError> {
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

    pub(super) fn enter(&mut self) -> Result<(), ParseError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(&format!("brackets nest deeper than {MAX_DEPTH} levels")));
        }
        self.depth += 1;
        Ok(())
    }

    /// `( )`: the empty tuple, a parenthesised value, or a tuple.
    pub(super) fn paren(&mut self) -> Result<Lit, ParseError> {
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
                )));
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
    pub(super) fn items_until(
        &mut self,
        close: char,
        items: &mut Vec<Lit>,
    ) -> Result<(), ParseError> {
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
                    )));
                }
            }
        }
    }

    /// `[...]` or `{...}` (a dict or a set).
    pub(super) fn container(&mut self, open: char) -> Result<Value, ParseError> {
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

    pub(super) fn braces(&mut self) -> Result<Value, ParseError> {
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
                    )));
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
    pub(super) fn signed_number(&mut self) -> Result<Value, ParseError> {
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

    pub(super) fn number(&mut self, negative: bool) -> Result<Value, ParseError> {
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
    pub(super) fn digits(&mut self, is_digit: impl Fn(char) -> bool) -> Result<String, ParseError> {
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
    pub(super) fn radix_prefix_before(&self) -> bool {
        let before = &self.s[..self.pos];
        ["0x", "0X", "0o", "0O", "0b", "0B"]
            .iter()
            .any(|p| before.ends_with(p))
    }

    pub(super) fn decimal(&mut self, negative: bool) -> Result<Value, ParseError> {
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
    pub(super) fn after_number(&mut self) -> Result<(), ParseError> {
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
}

pub(super) fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn int_value(digits: &str, radix: u32, negative: bool, text: &str) -> Value {
    match i128::from_str_radix(digits, radix) {
        Ok(n) if negative => Value::Int(-n),
        Ok(n) => Value::Int(n),
        Err(_) => Value::BigInt(format!("{}{text}", if negative { "-" } else { "" })),
    }
}

//! Values of a user-defined type, as `ncdump` prints a compound
//! attribute's: `{1, 2.5}`, nested records and array members in braces.

use crate::{Charset, Datatype};

/// One value of a compound attribute or of one of its members, as read
/// from the file; its datatype says how `ncdump` prints it.
#[derive(Clone, Debug, PartialEq)]
pub enum MemberValue {
    /// An integer, an enum's value or a bool.
    Int(i128),
    /// A float or double.
    Float(f64),
    /// A fixed string (`char name(n)` member), without its trailing NULs.
    Text(String),
    /// An array member's elements, in C order.
    List(Vec<MemberValue>),
    /// A compound's members, in its order.
    Record(Vec<MemberValue>),
}

impl MemberValue {
    /// The value of datatype `dt` as `ncdump`'s `typ_tostring` functions
    /// print it: C's `%.7g` for floats and `%.15g` for doubles (`NaNf`,
    /// `-Infinity`), enums by member name, characters quoted, arrays
    /// flattened in braces, records in braces. `None` where the value does
    /// not have `dt`'s shape.
    pub(super) fn render(&self, dt: &Datatype) -> Option<String> {
        match (dt, self) {
            (Datatype::Float32, MemberValue::Float(v)) => Some(general(*v, 7, "f")),
            (Datatype::Float64, MemberValue::Float(v)) => Some(general(*v, 15, "")),
            (Datatype::Enum(e), MemberValue::Int(v)) => Some(
                e.members
                    .iter()
                    .find(|m| m.value == *v)
                    .map_or_else(|| v.to_string(), |m| super::name::escape(&m.name)),
            ),
            (Datatype::Bool, MemberValue::Int(v)) => {
                Some(if *v == 0 { "FALSE" } else { "TRUE" }.to_string())
            }
            (Datatype::FixedString(s), MemberValue::Text(t)) if s.charset == Charset::Ascii => {
                Some(format!("{{{}}}", chars(t)))
            }
            (Datatype::Array(a), MemberValue::List(items)) => {
                let items = items
                    .iter()
                    .map(|v| v.render_element(&a.base))
                    .collect::<Option<Vec<_>>>()?;
                Some(format!("{{{}}}", items.join(", ")))
            }
            (Datatype::Compound(c), MemberValue::Record(values)) => {
                if c.members.len() != values.len() {
                    return None;
                }
                let items = c
                    .members
                    .iter()
                    .zip(values)
                    .map(|(m, v)| v.render(&m.datatype))
                    .collect::<Option<Vec<_>>>()?;
                Some(format!("{{{}}}", items.join(", ")))
            }
            (dt, MemberValue::Int(v)) if dt.as_int().is_some() => Some(v.to_string()),
            _ => None,
        }
    }

    /// An element of an array member: strings are not braced one by one.
    fn render_element(&self, dt: &Datatype) -> Option<String> {
        match (dt, self) {
            (Datatype::FixedString(s), MemberValue::Text(t)) if s.charset == Charset::Ascii => {
                Some(chars(t))
            }
            _ => self.render(dt),
        }
    }
}

/// `ncdump`'s `chars_tostring`: text in double quotes; quotes, `\` and
/// C's control escapes get a backslash before the byte itself, other
/// unprintable bytes are octal.
fn chars(text: &str) -> String {
    let mut out = String::from("\"");
    for b in text.bytes() {
        match b {
            0x08 | 0x0c | b'\n' | b'\r' | b'\t' | 0x0b | b'\\' | b'\'' | b'"' => {
                out.push('\\');
                out.push(b as char);
            }
            b' '..=b'~' => out.push(b as char),
            other => out.push_str(&format!("\\{other:03o}")),
        }
    }
    out.push('"');
    out
}

/// C's `%.{digits}g`; NaN and the infinities by CDL's names, `suffix`
/// after them only (`NaNf` for floats), as ncdump prints a compound's.
fn general(v: f64, digits: usize, suffix: &str) -> String {
    let suffix = if v.is_finite() { "" } else { suffix };
    c_general(v, digits, suffix, false)
}

/// C's `%.{digits}g`, or with `alternate` its `%#.{digits}g` as `ncdump`
/// prints attributes (the point always there, the zeros that end the
/// fraction gone: `1.`, `0.5`, `1.e+20`), then `suffix` (`f` for float);
/// `NaN`, `Infinity` and `-Infinity` by name.
pub(super) fn c_general(v: f64, digits: usize, suffix: &str, alternate: bool) -> String {
    if v.is_nan() {
        return format!("NaN{suffix}");
    }
    if v.is_infinite() {
        let sign = if v < 0.0 { "-" } else { "" };
        return format!("{sign}Infinity{suffix}");
    }
    let trim = |text: &str| {
        if alternate {
            let with_point = if text.contains('.') {
                text.to_string()
            } else {
                format!("{text}.")
            };
            return with_point.trim_end_matches('0').to_string();
        }
        if !text.contains('.') {
            return text.to_string();
        }
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    // The exponent %g decides by is that of the value rounded to `digits`.
    let scientific = format!("{:.*e}", digits - 1, v);
    let (mantissa, exponent) = scientific.split_once('e').expect("{:e} has an exponent");
    let exponent: i32 = exponent.parse().expect("{:e}'s exponent is a number");
    let text = if exponent < -4 || exponent >= digits as i32 {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exponent.abs())
    } else {
        let decimals = (digits as i32 - 1 - exponent) as usize;
        trim(&format!("{v:.decimals$}"))
    };
    format!("{text}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_c_percent_g() {
        assert_eq!(general(1e20, 15, ""), "1e+20");
        assert_eq!(general(-1.0, 15, ""), "-1");
        assert_eq!(general(0.125, 15, ""), "0.125");
        assert_eq!(general(f64::from(1.0f32 / 3.0), 7, "f"), "0.3333333");
        assert_eq!(general(-3.019807e-13, 7, "f"), "-3.019807e-13");
        assert_eq!(general(f64::NAN, 7, "f"), "NaNf");
        assert_eq!(general(f64::NEG_INFINITY, 15, ""), "-Infinity");
    }
}

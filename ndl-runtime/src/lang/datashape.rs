//! Blaze Datashape (the `datashape` 0.5 Python package's grammar).
//!
//! | Datatype | Datashape |
//! | --- | --- |
//! | `int8` … `uint64`, `float16/32/64`, `bool` | same name |
//! | `complex64` / `complex128` | `complex[float32]` / `complex[float64]` |
//! | `string` | `string` |
//! | fixed string ASCII / UTF-32, `n` characters | `string[n, 'A']` / `string[n, 'U32']` |
//! | `opaque` of `n` bytes | `n * uint8` (the tag is dropped) |
//! | `enum` | its base integer type (member names are dropped) |
//! | datetime (`M8[...]`) | `datetime`, or `date` for years to days, as `datashape.from_numpy` (the unit and multiple are dropped) |
//! | timedelta (`m8[...]`) | `timedelta[unit='s']` (the multiple is dropped); of ps, fs or as, which Datashape does not know, `int64` in [`Datatype::to_datashape`] and an error in [`Datatype::try_to_datashape`] |
//! | `compound` | `{name: T, ...}` (offsets and padding are dropped) |
//! | `array` | `d0 * d1 * T` |
//! | `vlen` | `var * T` |
//! | `objref`, `regref` | `object` in [`Datatype::to_datashape`]; an error in [`Datatype::try_to_datashape`] |
//!
//! Enums keep their layout rather than becoming `categorical[...]`:
//! Datashape's categorical describes values, not the stored integer, and
//! NumPy (whose `from_numpy` is Datashape's main producer) has no enum.
//!
//! Record field names are written bare only when Datashape's lexer reads
//! them back as the same name (an ASCII identifier not starting with `True`
//! or `False`, which lex as booleans); otherwise single-quoted, see
//! [`field_name`]. Records stay on one line whatever their length.

use std::borrow::Cow;

use crate::lang::{LangError, Language};
use crate::time::{BaseUnit, TimeKind};
use crate::{Charset, Datatype, TimeType};

impl Datatype {
    /// The Datashape of this datatype. Total: every datatype maps to text
    /// `datashape.dshape()` parses; the lossy mappings are listed in the
    /// [module documentation](crate::lang::datashape) (references become
    /// `object`). Use [`Datatype::try_to_datashape`] to refuse references.
    ///
    /// ```
    /// use ndl_runtime::{Compound, Datatype};
    ///
    /// let rec = Compound::c_layout([
    ///     ("my field", Datatype::UInt8.array_of(&[3])),
    ///     ("True", Datatype::Complex64),
    /// ])
    /// .unwrap();
    /// let ragged = Datatype::Vlen(Box::new(Datatype::Compound(rec)));
    /// assert_eq!(
    ///     ragged.to_datashape(),
    ///     "var * {'my field': 3 * uint8, 'True': complex[float32]}"
    /// );
    /// ```
    pub fn to_datashape(&self) -> String {
        let mut out = String::new();
        write(self, &mut out);
        out
    }

    /// Like [`Datatype::to_datashape`], but an `objref` or `regref` anywhere
    /// is an error instead of Datashape's `object`, whose meaning (a Python
    /// object) is not a reference's.
    ///
    /// ```
    /// use ndl_runtime::{Datatype, Selection};
    ///
    /// assert_eq!(Datatype::Float16.try_to_datashape().unwrap(), "float16");
    /// assert!(Datatype::RegRef(Selection::Block).try_to_datashape().is_err());
    /// ```
    pub fn try_to_datashape(&self) -> Result<String, LangError> {
        find_reference(self, &[])?;
        Ok(self.to_datashape())
    }
}

/// An error for the first reference datatype inside `dt`.
fn find_reference(dt: &Datatype, path: &[String]) -> Result<(), LangError> {
    match dt {
        Datatype::ObjRef | Datatype::RegRef(_) => Err(LangError::unsupported(
            Language::Datashape,
            path,
            dt,
            "Datashape has no reference type (`object` means a Python object)",
        )),
        Datatype::Compound(c) => c
            .members
            .iter()
            .try_for_each(|m| find_reference(&m.datatype, &crate::lang::child(path, &m.name))),
        Datatype::Vlen(base) | Datatype::Optional(base) => find_reference(base, path),
        Datatype::Array(a) => find_reference(&a.base, path),
        Datatype::Time(t) if timedelta_unit(t).is_none() && t.kind == TimeKind::TimeDelta => {
            Err(LangError::unsupported(
                Language::Datashape,
                path,
                dt,
                "Datashape's timedelta has no unit below nanoseconds",
            ))
        }
        _ => Ok(()),
    }
}

fn write(dt: &Datatype, out: &mut String) {
    match dt {
        Datatype::Complex64 => out.push_str("complex[float32]"),
        Datatype::Complex128 => out.push_str("complex[float64]"),
        Datatype::FixedString(s) => {
            let enc = match s.charset {
                Charset::Ascii => "A",
                Charset::Utf32 => "U32",
            };
            out.push_str(&format!("string[{}, '{enc}']", s.length));
        }
        Datatype::Opaque(o) => out.push_str(&format!("{} * uint8", o.size)),
        Datatype::Enum(e) => out.push_str(e.base.keyword()),
        Datatype::Time(t) => match t.kind {
            TimeKind::DateTime if t.unit.unit() <= BaseUnit::Days => out.push_str("date"),
            TimeKind::DateTime => out.push_str("datetime"),
            TimeKind::TimeDelta => match timedelta_unit(t) {
                Some(unit) => out.push_str(&format!("timedelta[unit='{unit}']")),
                None => out.push_str("int64"),
            },
        },
        Datatype::ObjRef | Datatype::RegRef(_) => out.push_str("object"),
        Datatype::Vlen(base) => {
            out.push_str("var * ");
            write(base, out);
        }
        Datatype::Optional(base) => {
            out.push('?');
            write(base, out);
        }
        Datatype::Array(a) => {
            for d in &a.shape {
                out.push_str(&format!("{d} * "));
            }
            write(&a.base, out);
        }
        Datatype::Compound(c) => {
            out.push('{');
            for (i, m) in c.members.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&field_name(&m.name));
                out.push_str(": ");
                write(&m.datatype, out);
            }
            out.push('}');
        }
        // The remaining datatypes are keywords with Datashape's spelling:
        // string, the integers, float16/32/64 and bool.
        other => out.push_str(other.keyword().unwrap_or("object")),
    }
}

/// The unit of a Datashape `timedelta`, if Datashape has it: NumPy's code,
/// Y to ns.
fn timedelta_unit(t: &TimeType) -> Option<&'static str> {
    let unit = t.unit.unit();
    (unit <= BaseUnit::Nanos).then(|| unit.code())
}

/// A record field name as Datashape's lexer reads it back: bare when it is
/// an ASCII identifier that does not start with `True`/`False` (the lexer
/// tries its boolean token first, without a word boundary), otherwise in
/// single quotes with `'` as `\'`, a backslash as `\u005c` (the lexer has
/// no `\\`), `\n \r \t \b \f` as such, other control characters as
/// `\u00XX`, and everything else raw.
///
/// ```
/// use ndl_runtime::lang::datashape::field_name;
///
/// assert_eq!(field_name("int32"), "int32");
/// assert_eq!(field_name("True"), "'True'");
/// assert_eq!(field_name("it's"), r"'it\'s'");
/// assert_eq!(field_name(r"a\b"), r"'a\u005cb'");
/// assert_eq!(field_name("café"), "'café'");
/// ```
pub fn field_name(name: &str) -> Cow<'_, str> {
    if is_bare(name) {
        return Cow::Borrowed(name);
    }
    let mut q = String::with_capacity(name.len() + 2);
    q.push('\'');
    for c in name.chars() {
        match c {
            '\'' => q.push_str("\\'"),
            '\\' => q.push_str("\\u005c"),
            '\n' => q.push_str("\\n"),
            '\r' => q.push_str("\\r"),
            '\t' => q.push_str("\\t"),
            '\u{8}' => q.push_str("\\b"),
            '\u{c}' => q.push_str("\\f"),
            c if c.is_ascii_control() => q.push_str(&format!("\\u{:04x}", c as u32)),
            c => q.push(c),
        }
    }
    q.push('\'');
    Cow::Owned(q)
}

fn is_bare(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_');
    first_ok
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with("True")
        && !name.starts_with("False")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_names_follow_the_lexer() {
        for bare in [
            "a", "_", "_x1", "int32", "var", "None", "class", "Tru", "xTrue",
        ] {
            assert_eq!(field_name(bare), bare);
        }
        for quoted in ["", "1a", "True", "Truex", "False_", "a b", "a-b", "é"] {
            assert!(field_name(quoted).starts_with('\''), "{quoted}");
        }
        assert_eq!(field_name("nl\n\u{0}\u{7f}"), r"'nl\n\u0000\u007f'");
    }
}

//! Names in CDL: which names netCDF and `ncgen` take, and their escapes.

use crate::lang::{LangError, Language};

/// Words `ncgen` always reads as keywords, whatever escaping (netCDF-C
/// 4.9's lexer takes a backslash only before punctuation and digits), so
/// a CDL text naming something so cannot be compiled. `ncdump` prints
/// such names bare, and so do we, with a comment saying so.
const RESERVED: [&str; 39] = [
    "byte",
    "char",
    "short",
    "int",
    "long",
    "integer",
    "float",
    "real",
    "double",
    "ubyte",
    "ushort",
    "uint",
    "ulong",
    "uinteger",
    "int64",
    "uint64",
    "string",
    "compound",
    "struct",
    "structure",
    "enum",
    "opaque",
    "unlimited",
    "UNLIMITED",
    "netcdf",
    "NETCDF",
    "netCDF",
    "NaN",
    "nan",
    "NaNf",
    "nanf",
    "Infinity",
    "Infinityf",
    "Inff",
    "DoubleInf",
    "FloatInf",
    "NIL",
    "nil",
    "Nil",
];

/// netCDF's `NC_MAX_NAME`, in bytes.
const MAX_NAME: usize = 256;

/// Checks that `name` can name a netCDF object in CDL and returns it
/// escaped as `ncdump` prints it (and `%` escaped too, see the module
/// documentation). `role` says what the name names, for the error.
///
/// ```
/// use ndl_runtime::lang::cdl::escape_name;
///
/// assert_eq!(escape_name("my field", "variable").unwrap(), r"my\ field");
/// assert_eq!(escape_name("1st", "variable").unwrap(), r"\1st");
/// assert_eq!(escape_name("café.x-y", "variable").unwrap(), "café.x-y");
/// // No escape exists for a keyword: printed bare, as `ncdump` does.
/// assert_eq!(escape_name("float", "variable").unwrap(), "float");
/// assert!(escape_name("a/b", "variable").is_err());
/// ```
pub fn escape_name(name: &str, role: &'static str) -> Result<String, LangError> {
    check_name(name, role)?;
    let mut out = String::with_capacity(name.len() + 2);
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        out.push('\\');
    }
    for c in name.chars() {
        if " !\"#$%&'()*,:;<=>?[\\]^`{|}~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    Ok(out)
}

/// The netCDF and CDL rules for a name, without escaping it.
pub(super) fn check_name(name: &str, role: &'static str) -> Result<(), LangError> {
    let bad = |why: &str| {
        Err(LangError::BadName {
            language: Language::Cdl,
            role,
            name: name.to_string(),
            why: why.to_string(),
        })
    };
    let Some(first) = name.chars().next() else {
        return bad("netCDF names are not empty");
    };
    if name.len() > MAX_NAME {
        return bad("netCDF names are at most 256 bytes (NC_MAX_NAME)");
    }
    if name.contains('/') {
        return bad("`/` separates groups in netCDF names and cannot be escaped");
    }
    if name.chars().any(|c| c.is_ascii_control()) {
        return bad("netCDF names contain no control characters");
    }
    if !(first.is_ascii_alphanumeric() || first == '_' || !first.is_ascii()) {
        return bad("netCDF names start with a letter, a digit, `_` or a non-ASCII character");
    }
    if name.ends_with(' ') {
        return bad("netCDF names do not end with a space");
    }
    Ok(())
}

/// Whether `ncgen` reads `name` as a keyword in every spelling.
pub(super) fn is_keyword(name: &str) -> bool {
    RESERVED.contains(&name)
}

/// Escapes a name already checked by [`check_name`].
pub(super) fn escape(name: &str) -> String {
    escape_name(name, "type").unwrap_or_else(|_| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_ncdump_plus_percent() {
        for (raw, esc) in [
            ("a:b", r"a\:b"),
            ("hash#x", r"hash\#x"),
            ("paren(x)", r"paren\(x\)"),
            (r"back\slash", r"back\\slash"),
            ("dash-ok", "dash-ok"),
            ("at@ok", "at@ok"),
            ("plus+ok", "plus+ok"),
            ("a%b", r"a\%b"),
            ("9x", r"\9x"),
            ("INT", "INT"),
        ] {
            assert_eq!(escape_name(raw, "variable").unwrap(), esc, "{raw}");
        }
        for bad in ["", " x", "#x", "x ", "a\nb", "a/b"] {
            assert!(escape_name(bad, "variable").is_err(), "{bad:?}");
        }
        assert!(escape_name(&"x".repeat(257), "variable").is_err());
        assert!(escape_name(&"x".repeat(256), "variable").is_ok());
        for keyword in ["int", "NaN", "compound", "byte"] {
            assert_eq!(escape_name(keyword, "variable").unwrap(), keyword);
            assert!(is_keyword(keyword));
        }
        assert!(!is_keyword("INT"));
    }
}

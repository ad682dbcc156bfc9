//! Field types recognised by name, for errors that say what to use instead.

use syn::{GenericArgument, PathArguments, Type};

/// The last path segment of a type, with its generic arguments: `Vec` and
/// `[T]` of `std::vec::Vec<T>`.
fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        Type::Group(g) => last_segment(&g.elem),
        Type::Paren(p) => last_segment(&p.elem),
        _ => None,
    }
}

/// `T` of `Option<T>`, if `ty` is written as an `Option`.
pub fn option_inner(ty: &Type) -> Option<&Type> {
    let seg = last_segment(ty)?;
    if seg.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &seg.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// Why a `#[derive(NdlType)]` field cannot be of `ty`, and what to use,
/// when its name says so: variable-length and optional types, and the
/// time types of `chrono` and `jiff`. Looks inside arrays.
pub fn not_plain(ty: &Type) -> Option<String> {
    if let Type::Array(a) = ty {
        return not_plain(&a.elem);
    }
    let name = last_segment(ty)?.ident.to_string();
    let record = |what: &str| {
        Some(format!(
            "`{name}` {what}, so it has no place in a fixed-layout `NdlType`\n\n\
             help: use `#[derive(Record)]` (without `repr`) for records with `String`, `Vec` and `Option` fields"
        ))
    };
    let time = |help: &str| {
        Some(format!(
            "`{name}` has no fixed NDL layout\n\nhelp: use `ndl_runtime::time::{help}"
        ))
    };
    match name.as_str() {
        "String" | "str" => record("is a variable-length string"),
        "Vec" | "VecDeque" => record("is a variable-length sequence"),
        "Box" => record("holds a variable-length value on the heap"),
        "Option" => record("may be missing"),
        "DateTime" | "Timestamp" | "Zoned" | "SystemTime" => time(
            "DateTime64<Nanos>` (or the unit you need: `Seconds`, `Millis`, `Micros`); \
             it converts from `chrono::DateTime<Utc>` and `jiff::Timestamp` with `TryFrom`",
        ),
        "NaiveDateTime" => {
            time("DateTime64<Nanos>` (or the unit you need), from `.and_utc()` with `TryFrom`")
        }
        "NaiveDate" | "Date" => time("DateTime64<Days>`, a count of days since 1970-01-01"),
        "TimeDelta" | "Duration" | "SignedDuration" | "Span" => time(
            "TimeDelta64<Nanos>` (or the unit you need: `Seconds`, `Millis`, `Micros`); \
             it converts from `chrono::TimeDelta` and `jiff::SignedDuration` with `TryFrom`",
        ),
        _ => None,
    }
}

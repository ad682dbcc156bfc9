//! NumPy header dicts and Datashapes.

use std::fmt::Write as _;
use std::path::Path;

use ndl_runtime::Datatype;

use crate::contents::{Arrangement, Contents, Entry};
use crate::error::{Error, Result};
use crate::npy::header_of;

/// The header dict of a single array; for several, one Python dict
/// literal of them keyed by array name, so `ast.literal_eval` reads either.
pub(super) fn dicts(path: &Path, contents: &Contents) -> Result<String> {
    if let (Arrangement::One, [e]) = (contents.arrangement, contents.entries.as_slice()) {
        return Ok(dict(path, e)? + "\n");
    }
    let mut out = String::from("{\n");
    for e in &contents.entries {
        // A JSON string is a Python str literal: its escapes (\", \\, \n,
        // \uXXXX) mean the same in Python, and it writes no `\/`.
        let key = serde_json::to_string(&e.label()).expect("strings serialise");
        writeln!(out, "  {key}: {},", dict(path, e)?).expect("writing to a String");
    }
    out.push_str("}\n");
    Ok(out)
}

/// The header dict as NumPy writes it, without the padding. Variable-length
/// strings and sequences and references have NumPy's dtype of Python
/// objects, `|O`, as h5py reads them (and `np.save` writes them, pickling
/// the values), also as members of a record.
fn dict(path: &Path, e: &Entry) -> Result<String> {
    if super::is_object(&e.spec.datatype) {
        let mut objects = e.clone();
        objects.spec.datatype = Datatype::UInt8;
        return Ok(dict(path, &objects)?.replacen("'|u1'", "'|O'", 1));
    }
    // Each object member stands as 8 opaque bytes (a pointer, as in
    // h5py's dtype) while the header is written, then says `|O`.
    let mut placeheld = e.clone();
    placeheld.spec.datatype = with_placeholders(&e.spec.datatype);
    if placeheld.spec.datatype == e.spec.datatype {
        return header_text(path, e);
    }
    let mut text = header_text(path, &placeheld)?;
    let mut from = 0;
    for (name, placeholder) in opaque8_members(&placeheld.spec.datatype) {
        let leaf = name.rsplit('.').next().unwrap_or(&name);
        let needle = format!("('{leaf}', '|V8'");
        let Some(at) = text[from..].find(&needle).map(|i| from + i) else {
            continue;
        };
        from = at + needle.len();
        if placeholder {
            let object = format!("('{leaf}', '|O'");
            text.replace_range(at..from, &object);
            from = at + object.len();
        }
    }
    Ok(text)
}

/// The tag of the 8 opaque bytes that stand for an object member.
const PLACEHOLDER: &str = "ndl: a Python object";

fn with_placeholders(dt: &Datatype) -> Datatype {
    match dt {
        _ if super::is_object(dt) || is_arrow_object(dt) => Datatype::Opaque(ndl_runtime::Opaque {
            size: 8,
            tag: Some(PLACEHOLDER.into()),
        }),
        // NumPy has no nulls: a column holding them is Python objects (a
        // value or None), as pyarrow's `to_numpy` gives strings and lists;
        // a struct's nulls are not said.
        Datatype::Optional(base) if matches!(**base, Datatype::Compound(_)) => {
            with_placeholders(base)
        }
        Datatype::Optional(_) => with_placeholders(&Datatype::String),
        Datatype::Array(a) => with_placeholders(&a.base).array_of(&a.shape),
        Datatype::Compound(c) => {
            let mut c = c.clone();
            for m in &mut c.members {
                m.datatype = with_placeholders(&m.datatype);
            }
            if c.size == 0 {
                // A variable compound (an Arrow table's) has no layout:
                // its members go back to back, as NumPy lays out a dtype list.
                let mut offset = 0;
                for m in &mut c.members {
                    m.offset = offset;
                    offset += m.datatype.size().unwrap_or(0);
                }
                c.size = offset;
            }
            Datatype::Compound(c)
        }
        other => other.clone(),
    }
}

/// Whether `dt` is an Arrow type NDL describes as tagged bytes (decimals,
/// times of day, intervals, nulls): pyarrow's `to_numpy` and `to_pandas`
/// give Python objects for them (`Decimal`, `datetime.time`, `None`).
fn is_arrow_object(dt: &Datatype) -> bool {
    matches!(dt, Datatype::Opaque(o) if o.tag.as_deref().is_some_and(|t| t.starts_with("arrow:")))
}

/// Every member of 8 opaque bytes, in descr order, and whether it stands
/// for an object.
fn opaque8_members(dt: &Datatype) -> Vec<(String, bool)> {
    fn walk(dt: &Datatype, name: &str, out: &mut Vec<(String, bool)>) {
        match dt {
            Datatype::Opaque(o) if o.size == 8 => {
                out.push((name.to_string(), o.tag.as_deref() == Some(PLACEHOLDER)))
            }
            Datatype::Array(a) => walk(&a.base, name, out),
            Datatype::Compound(c) => {
                for m in c.by_offset() {
                    walk(&m.datatype, &m.name, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(dt, "", &mut out);
    out
}

fn header_text(path: &Path, e: &Entry) -> Result<String> {
    let header = header_of(&e.spec);
    let bytes = header.to_bytes().map_err(|source| Error::Description {
        path: path.to_path_buf(),
        message: format!("`{}`: {source}", e.label()),
    })?;
    let length_field = if bytes[6] == 1 { 2 } else { 4 };
    let text = &bytes[8 + length_field..];
    let text = match std::str::from_utf8(text) {
        Ok(t) => t.to_owned(),
        // Versions 1 and 2 are latin-1.
        Err(_) => text.iter().map(|&b| char::from(b)).collect(),
    };
    Ok(text.trim_end().to_owned())
}

/// What NumPy's `|O` does not say of the members of a record `e`: what
/// its objects hold. (An array of objects is `|O` as h5py and zarr-python
/// give it, with no note, as before.)
pub(super) fn objects_note(e: &Entry) -> Option<String> {
    let mut parts = super::object_parts(&e.spec.datatype);
    arrow_objects(&e.spec.datatype, "", &mut parts);
    if parts.is_empty() || super::is_object(&e.spec.datatype) {
        return None;
    }
    let what = format!("its members {} are", super::listed_parts(&parts));
    Some(format!(
        "`{}`: NumPy: {what} Python objects, `|O`, as h5py and pyarrow read them, which the descr does not say (and np.save pickles)",
        e.label()
    ))
}

/// The members of `dt` that are [Arrow objects](is_arrow_object), each
/// with its Arrow type (`arrow:decimal128(10, 2)`).
fn arrow_objects(dt: &Datatype, at: &str, out: &mut Vec<(String, String)>) {
    match dt {
        Datatype::Opaque(o) if is_arrow_object(dt) => {
            out.push((at.to_owned(), o.tag.clone().unwrap_or_default()))
        }
        Datatype::Array(a) => arrow_objects(&a.base, at, out),
        Datatype::Optional(base) => arrow_objects(base, at, out),
        Datatype::Compound(c) => {
            for m in &c.members {
                let path = if at.is_empty() {
                    m.name.clone()
                } else {
                    format!("{at}.{}", m.name)
                };
                arrow_objects(&m.datatype, &path, out);
            }
        }
        _ => {}
    }
}

/// `3 * 4 * {id: uint32, t: float64}`.
pub(super) fn datashape(e: &Entry) -> String {
    let mut out = String::new();
    for d in &e.spec.shape {
        write!(out, "{d} * ").expect("writing to a String");
    }
    out + &e.spec.datatype.to_datashape()
}

/// What [`datashape`] could not say of `e` exactly (a timedelta below
/// nanoseconds, which it writes as its `int64` counts; a reference, which
/// it writes as `object`), so the command says it beside the text.
pub(super) fn datashape_note(e: &Entry) -> Option<String> {
    let err = e.spec.datatype.try_to_datashape().err()?;
    Some(format!(
        "`{}`: {err}; written as Datashape's nearest type, which does not say it",
        e.label()
    ))
}

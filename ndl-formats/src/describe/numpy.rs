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
/// strings and bytes have NumPy's dtype of Python objects, `|O`, which
/// `np.save` writes (pickling the values).
fn dict(path: &Path, e: &Entry) -> Result<String> {
    if matches!(e.spec.datatype, Datatype::String | Datatype::Vlen(_)) {
        let mut objects = e.clone();
        objects.spec.datatype = Datatype::UInt8;
        return Ok(dict(path, &objects)?.replacen("'|u1'", "'|O'", 1));
    }
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

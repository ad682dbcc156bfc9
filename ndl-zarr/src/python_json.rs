//! JSON as Python's `json` module writes it: with the bare words `NaN`,
//! `Infinity` and `-Infinity` for floats that JSON has no number for,
//! which zarr-python writes in attributes and reads as floats.
//!
//! A [`Value`] cannot hold such a float, so one is held as a marked
//! string ([`attribute_float`]) from reading to writing: the mark, a
//! Unicode noncharacter, is in no text another tool writes. The
//! documents are written with the bare words again.

use serde_json::Value;

/// The words Python writes for floats outside JSON.
const WORDS: [&str; 3] = ["-Infinity", "Infinity", "NaN"];

/// What a marked string starts with: U+FDD0, a noncharacter.
const MARK: char = '\u{FDD0}';

/// A float as Zarr's JSON holds it: a number, or NaN and the infinities
/// as the strings `"NaN"`, `"Infinity"` and `"-Infinity"` (the spelling of
/// fill values).
///
/// ```
/// use serde_json::json;
/// assert_eq!(ndl_zarr::float_json(1.5), json!(1.5));
/// assert_eq!(ndl_zarr::float_json(f64::NAN), json!("NaN"));
/// assert_eq!(ndl_zarr::float_json(f64::NEG_INFINITY), json!("-Infinity"));
/// ```
pub fn float_json(x: f64) -> Value {
    match word(x) {
        Some(word) => Value::from(word),
        None => Value::from(x),
    }
}

/// A float as a Zarr attribute holds it: a number, or NaN and the
/// infinities as Python's `json` writes them (bare `NaN`, `Infinity`,
/// `-Infinity`), which zarr-python and xarray read as floats. In the
/// [`Value`] such a float is a marked string, written as the bare word.
///
/// ```
/// use ndl_zarr::{attribute_float, float_of_attribute};
/// assert_eq!(attribute_float(0.5), serde_json::json!(0.5));
/// assert!(float_of_attribute(&attribute_float(f64::NAN)).is_some_and(f64::is_nan));
/// assert_eq!(float_of_attribute(&attribute_float(f64::INFINITY)), Some(f64::INFINITY));
/// assert_eq!(float_of_attribute(&serde_json::json!("NaN")), None);
/// ```
pub fn attribute_float(x: f64) -> Value {
    match word(x) {
        Some(word) => Value::from(format!("{MARK}{word}")),
        None => Value::from(x),
    }
}

/// The float a Zarr attribute's value holds: a number, or NaN or an
/// infinity written as Python writes them (see [`attribute_float`]);
/// `None` for anything else, the string `"NaN"` included.
pub fn float_of_attribute(value: &Value) -> Option<f64> {
    let Some(text) = value.as_str() else {
        return value.as_f64();
    };
    match text.strip_prefix(MARK)? {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// `value` with each float held as [`attribute_float`] holds it as the
/// word alone (`"NaN"`, `"Infinity"`, `"-Infinity"`), at any depth, and
/// whether there was one: for readers that keep such floats as text (a
/// fill value's spelling in Zarr's metadata).
///
/// ```
/// use serde_json::json;
/// let marked = json!([1.5, ndl_zarr::attribute_float(f64::NAN)]);
/// assert_eq!(ndl_zarr::unmarked(&marked), (json!([1.5, "NaN"]), true));
/// assert_eq!(ndl_zarr::unmarked(&json!("NaN")), (json!("NaN"), false));
/// ```
pub fn unmarked(value: &Value) -> (Value, bool) {
    match value {
        Value::String(text) => match text.strip_prefix(MARK) {
            Some(word) => (Value::from(word), true),
            None => (value.clone(), false),
        },
        Value::Array(items) => {
            let (items, found): (Vec<Value>, Vec<bool>) = items.iter().map(unmarked).unzip();
            (Value::Array(items), found.contains(&true))
        }
        Value::Object(members) => {
            let mut found = false;
            let members = members
                .iter()
                .map(|(k, v)| {
                    let (v, marked) = unmarked(v);
                    found |= marked;
                    (k.clone(), v)
                })
                .collect();
            (Value::Object(members), found)
        }
        other => (other.clone(), false),
    }
}

/// The word Python writes for `x`, where JSON has no number for it.
fn word(x: f64) -> Option<&'static str> {
    match x {
        x if x.is_nan() => Some("NaN"),
        x if x == f64::INFINITY => Some("Infinity"),
        x if x == f64::NEG_INFINITY => Some("-Infinity"),
        _ => None,
    }
}

/// A document's JSON as written: each marked float (see
/// [`attribute_float`]) as its bare word.
pub(crate) fn bare_words(mut json: String) -> String {
    for word in WORDS {
        json = json.replace(&format!("\"{MARK}{word}\""), word);
    }
    json
}

/// Parses a metadata document, `bytes`, as JSON, the bare words of
/// Python's `json` included (held as [`attribute_float`] holds them).
///
/// ```
/// let doc = ndl_zarr::parse_document(br#"{"attributes": {"max": Infinity}}"#)?;
/// assert_eq!(ndl_zarr::float_of_attribute(&doc["attributes"]["max"]), Some(f64::INFINITY));
/// assert!(ndl_zarr::document_bytes(&doc).ends_with(b"\"max\": Infinity\n  }\n}\n"));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn parse(bytes: &[u8]) -> serde_json::Result<Value> {
    serde_json::from_slice(bytes).or_else(|e| match quote_words(bytes) {
        Some(quoted) => serde_json::from_slice(&quoted),
        None => Err(e),
    })
}

/// `bytes` with each bare word outside strings quoted; `None` if there is
/// none.
fn quote_words(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len() + 8);
    let (mut in_string, mut escaped, mut found) = (false, false, false);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            (in_string, escaped) = match (escaped, b) {
                (true, _) => (true, false),
                (false, b'\\') => (true, true),
                (false, b'"') => (false, false),
                _ => (true, false),
            };
        } else if b == b'"' {
            in_string = true;
        } else if let Some(word) = WORDS.iter().find(|w| bytes[i..].starts_with(w.as_bytes())) {
            out.push(b'"');
            out.extend_from_slice(MARK.to_string().as_bytes());
            out.extend_from_slice(word.as_bytes());
            out.push(b'"');
            i += word.len();
            found = true;
            continue;
        }
        out.push(b);
        i += 1;
    }
    found.then_some(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn pythons_bare_floats_are_read_as_floats_and_written_back_bare() {
        let out = ndl_testkit::python::run_python(
            "import json; print(json.dumps({'a': float('nan'), 'b': [float('inf'), -float('inf')], 'NaN': 'NaN \\\" Infinity'}))",
            &[],
        );
        let read = parse(out.as_bytes()).unwrap();
        assert!(float_of_attribute(&read["a"]).is_some_and(f64::is_nan));
        assert_eq!(float_of_attribute(&read["b"][0]), Some(f64::INFINITY));
        assert_eq!(float_of_attribute(&read["b"][1]), Some(f64::NEG_INFINITY));
        assert_eq!(read["NaN"], json!("NaN \" Infinity"));
        assert_eq!(float_of_attribute(&read["NaN"]), None);
        let written = bare_words(serde_json::to_string(&read).unwrap());
        assert_eq!(
            written,
            r#"{"a":NaN,"b":[Infinity,-Infinity],"NaN":"NaN \" Infinity"}"#
        );
        assert_eq!(parse(b"[1, 2]").unwrap(), json!([1, 2]));
        let e = parse(b"{\"a\": nan}").unwrap_err();
        assert!(e.to_string().contains("expected"), "{e}");
    }
}

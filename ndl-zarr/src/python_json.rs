//! JSON as Python's `json` module writes it: with the bare words `NaN`,
//! `Infinity` and `-Infinity` for floats that JSON has no number for,
//! which zarr-python 2 left in `.zattrs` and which zarr-python reads.
//! They are read as the strings `"NaN"`, `"Infinity"` and `"-Infinity"`,
//! the spelling Zarr v3 gives such floats in fill values.

use serde_json::Value;

/// The words Python writes for floats outside JSON.
const WORDS: [&str; 3] = ["-Infinity", "Infinity", "NaN"];

/// A float as Zarr's JSON holds it: a number, or NaN and the infinities
/// as the strings `"NaN"`, `"Infinity"` and `"-Infinity"`.
///
/// ```
/// use serde_json::json;
/// assert_eq!(ndl_zarr::float_json(1.5), json!(1.5));
/// assert_eq!(ndl_zarr::float_json(f64::NAN), json!("NaN"));
/// assert_eq!(ndl_zarr::float_json(f64::NEG_INFINITY), json!("-Infinity"));
/// ```
pub fn float_json(x: f64) -> Value {
    match x {
        x if x.is_nan() => Value::from("NaN"),
        x if x.is_infinite() => Value::from(if x > 0.0 { "Infinity" } else { "-Infinity" }),
        x => Value::from(x),
    }
}

/// Parses `bytes` as JSON, the bare words of Python's `json` included.
pub(crate) fn parse(bytes: &[u8]) -> serde_json::Result<Value> {
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
    fn pythons_bare_floats_are_read_as_strings() {
        let out = ndl_testkit::python::run_python(
            "import json; print(json.dumps({'a': float('nan'), 'b': [float('inf'), -float('inf')], 'NaN': 'NaN \\\" Infinity'}))",
            &[],
        );
        assert_eq!(
            parse(out.as_bytes()).unwrap(),
            json!({"a": "NaN", "b": ["Infinity", "-Infinity"], "NaN": "NaN \" Infinity"})
        );
        assert_eq!(parse(b"[1, 2]").unwrap(), json!([1, 2]));
        let e = parse(b"{\"a\": nan}").unwrap_err();
        assert!(e.to_string().contains("expected"), "{e}");
    }
}

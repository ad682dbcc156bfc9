//! Chunks of v2 `|O` arrays whose object codec is numcodecs' `JSON`
//! (`json2`, zarr-python 2's `object_codec=numcodecs.JSON()`): UTF-8 JSON,
//! an array of the chunk's items (`ndarray.tolist()`: nested lists, one
//! level per dimension, in C order whatever the array's `order`), then the
//! NumPy dtype (`"|O"`) and the chunk's shape.
//!
//! Only strings are read, and `null` (Python's `None`), which is read as
//! the empty string as numcodecs' own `vlen-utf8` encodes it; numbers,
//! booleans, lists and objects are refused, naming the element.

use serde_json::Value;

use super::values::VlenValues;

/// The chunk's `n` values, of a chunk of shape `shape`, in C order. On
/// failure, the element at fault and why.
pub(crate) fn decode(chunk: &[u8], shape: &[u64]) -> Result<VlenValues, (u64, String)> {
    let doc: Value = serde_json::from_slice(chunk)
        .map_err(|e| (0, format!("not JSON as `json2` writes: {e}")))?;
    let Value::Array(mut items) = doc else {
        return Err((0, "not a JSON array as `json2` writes".into()));
    };
    let (Some(stored_shape), Some(dtype)) = (items.pop(), items.pop()) else {
        return Err((
            0,
            "the JSON array lacks the dtype and shape `json2` ends it with".into(),
        ));
    };
    if dtype.as_str().is_none_or(|d| !d.ends_with('O')) {
        return Err((0, format!("the chunk's dtype is {dtype}, not \"|O\"")));
    }
    let want: Vec<Value> = shape.iter().map(|&c| Value::from(c)).collect();
    if stored_shape != Value::Array(want) {
        return Err((
            0,
            format!("the chunk's shape is {stored_shape}, not {shape:?}"),
        ));
    }
    let mut out = VlenValues::default();
    if shape.is_empty() {
        // numcodecs writes a 0-dimensional chunk as a list of its one item.
        return match items.as_slice() {
            [one] => push(&mut out, 0, one).map(|()| out),
            _ => Err((
                0,
                format!("{} items for a 0-dimensional chunk", items.len()),
            )),
        };
    }
    flatten(&items, shape, &mut out)?;
    Ok(out)
}

/// Pushes the items of nested lists of `shape`, in C order.
fn flatten(items: &[Value], shape: &[u64], out: &mut VlenValues) -> Result<(), (u64, String)> {
    let at = out.len() as u64;
    if items.len() as u64 != shape[0] {
        return Err((
            at,
            format!(
                "{} items where the chunk's shape has {}",
                items.len(),
                shape[0]
            ),
        ));
    }
    for item in items {
        match (&shape[1..], item) {
            ([], _) => push(out, out.len() as u64, item)?,
            (inner, Value::Array(row)) => flatten(row, inner, out)?,
            (_, other) => {
                return Err((
                    out.len() as u64,
                    format!("{} where a list was due", kind(other)),
                ));
            }
        }
    }
    Ok(())
}

fn push(out: &mut VlenValues, i: u64, item: &Value) -> Result<(), (u64, String)> {
    match item {
        Value::String(s) => out.push(s.as_bytes()),
        Value::Null => out.push(b""),
        other => {
            return Err((
                i,
                format!(
                    "{} ({other}): only strings (and null, read as \"\") are read from `json2` chunks",
                    kind(other)
                ),
            ));
        }
    }
    Ok(())
}

/// The JSON kind of a value, as an error names it.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &VlenValues) -> Vec<String> {
        v.iter()
            .map(|b| String::from_utf8(b.to_vec()).unwrap())
            .collect()
    }

    #[test]
    fn chunks_of_any_rank_are_read_in_c_order() {
        let one = decode(br#"["a","b\u00e9",null,"|O",[3]]"#, &[3]).unwrap();
        assert_eq!(strings(&one), ["a", "bé", ""]);
        let two = decode(br#"[["a","b"],["c","d"],"|O",[2,2]]"#, &[2, 2]).unwrap();
        assert_eq!(strings(&two), ["a", "b", "c", "d"]);
        let zero = decode(br#"["z","|O",[]]"#, &[]).unwrap();
        assert_eq!(strings(&zero), ["z"]);
    }

    #[test]
    fn what_is_not_strings_is_refused_naming_the_element() {
        for (chunk, shape, at, says) in [
            (&br#"["a",1,"|O",[2]]"#[..], &[2][..], 1, "a number (1)"),
            (
                br#"[["a","b"],"c","|O",[2,2]]"#,
                &[2, 2],
                2,
                "a string where a list",
            ),
            (
                br#"["a","b","|O",[3]]"#,
                &[3],
                0,
                "2 items where the chunk's shape has 3",
            ),
            (br#"["a","b","|O",[3]]"#, &[2], 0, "not [2]"),
            (br#"["a","<U1",[1]]"#, &[1], 0, "dtype"),
            (br#"{"a":1}"#, &[1], 0, "not a JSON array"),
            (b"[\"a\"", &[1], 0, "not JSON"),
            (br#"[{"k":"v"},"|O",[1]]"#, &[1], 0, "an object"),
        ] {
            let (i, why) = decode(chunk, shape).unwrap_err();
            assert!(why.contains(says), "{why}");
            assert_eq!(i, at, "{why}");
        }
    }
}

//! One value of a column as text and back: how a fill is given on a
//! command line (`--fill note=NA`) and kept where a format has no place
//! for it but a text attribute.

use crate::{Charset, Datatype};

use super::{Bitmap, Column, Values};

impl Column {
    /// `text` as a one-record column shaped as `like`: a number of its
    /// type (an enum's by member name or number), `true`/`false`, a
    /// string, or a fixed string that fits.
    ///
    /// ```
    /// use ndl_runtime::record::{Column, Values};
    /// use ndl_runtime::Datatype;
    ///
    /// let like = Column::template(&Datatype::Int16).unwrap();
    /// let one = Column::parse_one(&like, "-1").unwrap();
    /// assert_eq!(one, Column::Values { datatype: Datatype::Int16, values: Values::I16(vec![-1]) });
    /// assert_eq!(one.one_as_text().as_deref(), Some("-1"));
    /// assert!(Column::parse_one(&like, "x").is_err());
    /// ```
    ///
    /// # Errors
    /// Why `text` is no value of the column's type, or that the column is
    /// of a kind no text gives (lists, records).
    pub fn parse_one(like: &Column, text: &str) -> Result<Column, String> {
        let not = |what: &str| format!("`{text}` is not {what}");
        match like {
            Column::Values { datatype, values } => {
                let number = match datatype {
                    Datatype::Enum(e) => e
                        .members
                        .iter()
                        .find(|m| m.name == text)
                        .map(|m| m.value.to_string()),
                    _ => None,
                };
                let text = number.as_deref().unwrap_or(text).trim();
                let values = parse_number(values, text).ok_or_else(|| {
                    not(&format!(
                        "a value of the column's type ({})",
                        values.view().type_name()
                    ))
                })?;
                Ok(Column::Values {
                    datatype: datatype.clone(),
                    values,
                })
            }
            Column::Bool(_) => {
                let bit = match text {
                    "true" | "True" | "1" => true,
                    "false" | "False" | "0" => false,
                    _ => return Err(not("a boolean (true or false)")),
                };
                let mut bits = Bitmap::with_capacity(1);
                bits.push(bit);
                Ok(Column::Bool(bits))
            }
            Column::Strings { .. } => Ok(Column::Strings {
                offsets: vec![0, text.len() as i64],
                data: text.as_bytes().to_vec(),
            }),
            Column::Plain {
                datatype: datatype @ Datatype::FixedString(fs),
                ..
            } => {
                let mut bytes: Vec<u8> = match fs.charset {
                    Charset::Ascii if text.is_ascii() => text.bytes().collect(),
                    Charset::Ascii => return Err(not("ASCII")),
                    Charset::Utf32 => text
                        .chars()
                        .flat_map(|c| (c as u32).to_ne_bytes())
                        .collect(),
                };
                let size = datatype.size().unwrap_or(0);
                if bytes.len() > size {
                    return Err(format!(
                        "`{text}` is longer than the column's {} characters",
                        fs.length
                    ));
                }
                bytes.resize(size, 0);
                Ok(Column::Plain {
                    datatype: datatype.clone(),
                    bytes,
                })
            }
            _ => Err(
                "only columns of numbers, booleans, enums and strings take a value \
                      written as text"
                    .into(),
            ),
        }
    }

    /// The first value of a column of numbers, booleans or strings as the
    /// text [`parse_one`](Column::parse_one) reads back to the same value
    /// (floats exactly, NaN included); `None` for other kinds.
    pub fn one_as_text(&self) -> Option<String> {
        match self {
            Column::Values { values, .. } => number_text(values),
            Column::Bool(bits) => (!bits.is_empty()).then(|| bits.get(0).to_string()),
            Column::Strings { offsets, data } => {
                let bytes = data.get(*offsets.first()? as usize..*offsets.get(1)? as usize)?;
                std::str::from_utf8(bytes).ok().map(str::to_string)
            }
            _ => None,
        }
    }
}

/// `text` as one number of the type of `like`.
fn parse_number(like: &Values, text: &str) -> Option<Values> {
    Some(match like {
        Values::I8(_) => Values::I8(vec![text.parse().ok()?]),
        Values::I16(_) => Values::I16(vec![text.parse().ok()?]),
        Values::I32(_) => Values::I32(vec![text.parse().ok()?]),
        Values::I64(_) => Values::I64(vec![text.parse().ok()?]),
        Values::U8(_) => Values::U8(vec![text.parse().ok()?]),
        Values::U16(_) => Values::U16(vec![text.parse().ok()?]),
        Values::U32(_) => Values::U32(vec![text.parse().ok()?]),
        Values::U64(_) => Values::U64(vec![text.parse().ok()?]),
        Values::F32(_) => Values::F32(vec![text.parse().ok()?]),
        Values::F64(_) => Values::F64(vec![text.parse().ok()?]),
    })
}

/// The first number of `values` as text; Rust prints the shortest text
/// that parses back to the same float.
fn number_text(values: &Values) -> Option<String> {
    Some(match values {
        Values::I8(v) => v.first()?.to_string(),
        Values::I16(v) => v.first()?.to_string(),
        Values::I32(v) => v.first()?.to_string(),
        Values::I64(v) => v.first()?.to_string(),
        Values::U8(v) => v.first()?.to_string(),
        Values::U16(v) => v.first()?.to_string(),
        Values::U32(v) => v.first()?.to_string(),
        Values::U64(v) => v.first()?.to_string(),
        Values::F32(v) => v.first()?.to_string(),
        Values::F64(v) => v.first()?.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_number_and_string_goes_to_text_and_back() {
        let cases = [
            (Datatype::Float64, "0.1"),
            (Datatype::Float32, "NaN"),
            (Datatype::Float64, "-inf"),
            (Datatype::UInt64, "18446744073709551615"),
            (Datatype::Int8, "-128"),
            (Datatype::String, "n/a ä"),
            (Datatype::Bool, "true"),
        ];
        for (datatype, text) in cases {
            let like = Column::template(&datatype).unwrap();
            let one = Column::parse_one(&like, text).unwrap();
            let again = Column::parse_one(&like, &one.one_as_text().unwrap()).unwrap();
            match (&one, &again) {
                (
                    Column::Values {
                        values: Values::F32(a),
                        ..
                    },
                    Column::Values {
                        values: Values::F32(b),
                        ..
                    },
                ) => assert_eq!(a[0].to_bits(), b[0].to_bits()),
                _ => assert_eq!(one, again, "{text}"),
            }
        }
    }
}

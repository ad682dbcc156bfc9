//! String columns in any of the forms Arrow writers choose: pyarrow's
//! `Utf8`, polars' `LargeUtf8` and `Utf8View`, and dictionaries of them
//! (a pandas Categorical, a polars Enum).

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, LargeStringArray, StringArray, StringViewArray};
use arrow_schema::DataType;

/// A column of strings, whatever its Arrow form.
pub(crate) enum Strings<'a> {
    Utf8(&'a StringArray),
    Large(&'a LargeStringArray),
    View(&'a StringViewArray),
    /// Each value is `values[keys[i]]`.
    Dictionary {
        keys: Vec<usize>,
        values: Box<Strings<'a>>,
    },
}

impl<'a> Strings<'a> {
    /// The strings of `array`, or `None` when it holds no strings.
    /// Dictionary keys out of range count as no strings.
    pub fn of(array: &'a ArrayRef) -> Option<Strings<'a>> {
        Some(match array.data_type() {
            DataType::Utf8 => Strings::Utf8(array.as_string::<i32>()),
            DataType::LargeUtf8 => Strings::Large(array.as_string::<i64>()),
            DataType::Utf8View => Strings::View(array.as_string_view()),
            DataType::Dictionary(key, _) => {
                macro_rules! keys {
                    ($($variant:ident => $t:ty),*) => {
                        match key.as_ref() {
                            $(DataType::$variant => {
                                let d = array.as_dictionary::<$t>();
                                let keys = d
                                    .keys()
                                    .values()
                                    .iter()
                                    .map(|&k| usize::try_from(k).ok())
                                    .collect::<Option<Vec<_>>>()?;
                                (keys, d.values())
                            })*
                            _ => return None,
                        }
                    };
                }
                let (keys, values) = keys!(
                    Int8 => Int8Type, Int16 => Int16Type, Int32 => Int32Type, Int64 => Int64Type,
                    UInt8 => UInt8Type, UInt16 => UInt16Type, UInt32 => UInt32Type, UInt64 => UInt64Type
                );
                let values = Strings::of(values)?;
                if keys.iter().any(|&k| k >= values.len()) {
                    return None;
                }
                Strings::Dictionary {
                    keys,
                    values: Box::new(values),
                }
            }
            _ => return None,
        })
    }

    /// The number of strings.
    pub fn len(&self) -> usize {
        match self {
            Strings::Utf8(a) => a.len(),
            Strings::Large(a) => a.len(),
            Strings::View(a) => a.len(),
            Strings::Dictionary { keys, .. } => keys.len(),
        }
    }

    /// String `i`.
    pub fn get(&self, i: usize) -> &str {
        match self {
            Strings::Utf8(a) => a.value(i),
            Strings::Large(a) => a.value(i),
            Strings::View(a) => a.value(i),
            Strings::Dictionary { keys, values } => values.get(keys[i]),
        }
    }
}

//! Dictionaries of values other than text (pandas' categoricals of
//! numbers, DuckDB's of dates): read as the values they stand for. A
//! dictionary of text is an enum's, or strings', and is read as such.

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;

use crate::error::Error;

/// `array` with a dictionary of anything but text replaced by its values
/// (a null key a null value); any other array as it is.
///
/// # Errors
/// A key that points past the dictionary, naming the column at `path`.
pub(crate) fn unpacked(array: &ArrayRef, path: &str) -> Result<ArrayRef, Error> {
    let Some(dictionary) = array.as_any_dictionary_opt() else {
        return Ok(array.clone());
    };
    let text = matches!(
        dictionary.values().data_type(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    );
    if text {
        return Ok(array.clone());
    }
    arrow_select::take::take(dictionary.values(), dictionary.keys(), None)
        .map_err(|e| Error::schema(path, format!("a dictionary's keys: {e}")))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::types::Int8Type;
    use arrow_array::{DictionaryArray, Float64Array, Int8Array, StringArray};

    use super::*;

    #[test]
    fn a_dictionary_of_numbers_is_its_values_nulls_kept() {
        let keys = Int8Array::from(vec![Some(1), None, Some(0), Some(1)]);
        let values = Arc::new(Float64Array::from(vec![0.5, -2.0]));
        let array: ArrayRef = Arc::new(DictionaryArray::<Int8Type>::try_new(keys, values).unwrap());
        let plain = unpacked(&array, "x").unwrap();
        assert_eq!(
            plain.as_any().downcast_ref::<Float64Array>().unwrap(),
            &Float64Array::from(vec![Some(-2.0), None, Some(0.5), Some(-2.0)])
        );
    }

    #[test]
    fn a_dictionary_of_text_is_left_as_it_is() {
        let keys = Int8Array::from(vec![0, 0]);
        let values = Arc::new(StringArray::from(vec!["a"]));
        let array: ArrayRef = Arc::new(DictionaryArray::<Int8Type>::try_new(keys, values).unwrap());
        assert_eq!(
            unpacked(&array, "x").unwrap().data_type(),
            array.data_type()
        );
    }
}

//! The values a dataset or attribute is made with, as the writers take
//! them.

use hdf5::types::VarLenUnicode;
use ndl_runtime::record::Column;

/// The values an object is made with, in C order.
#[derive(Clone, Copy, Debug)]
pub enum Elements<'a> {
    /// None: a dataset keeps its fill value.
    Fill,
    /// Elements of a fixed-size datatype, laid out as it says, numbers in
    /// native order.
    Bytes(&'a [u8]),
    /// Strings, of the datatype `string`.
    Strings(&'a [String]),
    /// Values of a variable-length datatype as the column of records
    /// holding them: a `vlen` dataset's as a [`Column::List`].
    Column(&'a Column),
}

/// `strings` as HDF5's variable-length UTF-8 ones.
pub(crate) fn to_unicode(strings: &[String]) -> hdf5::Result<Vec<VarLenUnicode>> {
    strings
        .iter()
        .map(|s| {
            s.parse::<VarLenUnicode>()
                .map_err(|e| hdf5::Error::from(format!("the string {s:?}: {e}")))
        })
        .collect()
}

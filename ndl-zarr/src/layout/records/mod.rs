//! The records layout: one Zarr array whose elements are whole records,
//! packed (v3 `struct`, v2 structured dtype).
//!
//! Records are packed on write and unpacked into `T` on read, chunk by
//! chunk inside the parallel encode and decode: padding never reaches the
//! store.

mod read;
mod write;

pub(crate) use read::RecordsSource;
pub(crate) use write::{check_records, check_storable, create, start};

use ndl_runtime::field_map::by_name_hint;
use ndl_runtime::records::Packer;
use ndl_runtime::schema::first_difference;
use ndl_runtime::{Datatype, NdlType};

use crate::error::{Error, Result};
use crate::store::Store;

/// The packer of `T`, or why `T` has no packed form.
pub(crate) fn packer<T: NdlType>(store: &str) -> Result<Packer<T>> {
    Packer::new().map_err(|e| Error::TypeMismatch {
        store: store.to_string(),
        field: String::new(),
        message: e.to_string(),
    })
}

/// Checks that `stored`, the packed datatype of a store's records, is `T`'s.
pub(crate) fn check_type<T: NdlType>(
    store: &Store,
    stored: &Datatype,
    packer: &Packer<T>,
) -> Result<()> {
    let expected = packer.layout().datatype();
    match first_difference(stored, expected) {
        None => Ok(()),
        Some(d) => Err(Error::TypeMismatch {
            store: store.name.clone(),
            field: d.field,
            message: d.message + by_name_hint(stored, expected).unwrap_or_default(),
        }),
    }
}

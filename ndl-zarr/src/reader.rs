//! Reading records of either layout: the entry points of [`ReadOptions`].

use std::ops::Range;
use std::path::Path;

use ndl_runtime::NdlType;

use crate::documents::read_group;
use crate::error::Result;
use crate::options::ReadOptions;
use crate::store::Store;

impl ReadOptions {
    /// Reads the records of the store at `dir`, either layout.
    ///
    /// # Errors
    /// As [`read`](crate::read), and for reads by name a field of `T` the
    /// store lacks ([`Error::TypeMismatch`](crate::Error::TypeMismatch)
    /// naming it).
    pub fn read<T: NdlType + Send + Sync>(&self, dir: impl AsRef<Path>) -> Result<Vec<T>> {
        self.read_from(&Store::open(dir.as_ref())?, None)
    }

    /// Reads records `range` of the store at `dir`, decoding only the
    /// chunks that hold them.
    ///
    /// # Errors
    /// As [`read`](ReadOptions::read), and a range past the store's end.
    pub fn read_range<T: NdlType + Send + Sync>(
        &self,
        dir: impl AsRef<Path>,
        range: Range<u64>,
    ) -> Result<Vec<T>> {
        self.read_from(&Store::open(dir.as_ref())?, Some(range))
    }

    fn read_from<T: NdlType + Send + Sync>(
        &self,
        store: &Store,
        range: Option<Range<u64>>,
    ) -> Result<Vec<T>> {
        if read_group(store)?.is_some() {
            return crate::columns::read_columns(store, range);
        }
        crate::records::read_records(store, range, self.by_name)
    }
}

/// Reads records `range` (all when `None`) of the store, either layout, as
/// packed records in native byte order.
pub(crate) fn read_packed(store: &Store, range: Option<Range<u64>>) -> Result<Vec<u8>> {
    if let Some((_, attributes)) = read_group(store)? {
        let datatype = crate::info::group_datatype(store, &attributes)?;
        return crate::columns::read_columns_packed(store, &datatype, range);
    }
    crate::records::read_packed(store, range)
}

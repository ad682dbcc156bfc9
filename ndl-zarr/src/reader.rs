//! Reading records of either layout: the entry points of [`ReadOptions`].

use std::ops::Range;
use std::path::Path;

use ndl_runtime::records::PackedLayout;
use ndl_runtime::{NdlType, Record};

use crate::documents::read_group;
use crate::error::Result;
use crate::layout::columns::ColumnsSource;
use crate::layout::records::{RecordsSource, packer};
use crate::options::ReadOptions;
use crate::part_reader::{self, records_range, shape_error};
use crate::store::Store;
use crate::typed::read_plain;

impl ReadOptions {
    /// Reads the records of the store at `dir`, either layout.
    ///
    /// # Errors
    /// As [`read`](crate::read), and for reads by name a field of `T` the
    /// store lacks ([`Error::TypeMismatch`](crate::Error::TypeMismatch)
    /// naming it).
    ///
    /// Records with `String`, `Vec` or `Option` fields are read from the
    /// columns layout, fields by name in any order.
    pub fn read<T: Record + Send + Sync>(&self, dir: impl AsRef<Path>) -> Result<Vec<T>> {
        let store = Store::open(dir.as_ref())?;
        match read_plain::<T>(self, &store) {
            Some(records) => records,
            None => crate::layout::columns::variable::read(&store),
        }
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

    pub(crate) fn read_from<T: NdlType + Send + Sync>(
        &self,
        store: &Store,
        range: Option<Range<u64>>,
    ) -> Result<Vec<T>> {
        let packer = packer::<T>(&store.name)?;
        if read_group(store)?.is_some() {
            let columns = ColumnsSource::open(store, &T::datatype(), std::mem::size_of::<T>())?;
            let (range, n) = records_range(store, range, columns.len())?;
            return part_reader::read_typed(&columns, &packer, range, n);
        }
        let (records, range, n) = RecordsSource::open(store, range)?;
        let records = records.for_type(&packer, self.by_name)?;
        part_reader::read_typed(&records, &packer, range, n)
    }
}

/// Reads records `range` (all when `None`) of the store, either layout, as
/// packed records in native byte order.
pub(crate) fn read_packed(store: &Store, range: Option<Range<u64>>) -> Result<Vec<u8>> {
    if let Some((_, attributes)) = read_group(store)? {
        let datatype = crate::info::group_datatype(store, &attributes)?;
        let packed = PackedLayout::new(&datatype).map_err(|e| shape_error(store, e.to_string()))?;
        let columns = ColumnsSource::open(store, packed.datatype(), packed.size())?;
        let (range, n) = records_range(store, range, columns.len())?;
        return part_reader::read_packed(&columns, range, n);
    }
    read_records_packed(store, range)
}

/// Reads records `range` (all when `None`) of the array of records at the
/// store's root as packed records in native byte order.
pub(crate) fn read_records_packed(store: &Store, range: Option<Range<u64>>) -> Result<Vec<u8>> {
    let (records, range, n) = RecordsSource::open(store, range)?;
    part_reader::read_packed(&records, range, n)
}

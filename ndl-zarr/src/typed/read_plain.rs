//! Reading plain records through a [`PlainVisitor`]: the `NdlType` `U`
//! it gives is the entry point's `T`.

use ndl_runtime::record::{PlainVisitor, same_vec};
use ndl_runtime::{NdlType, Record};

use crate::error::Result;
use crate::options::ReadOptions;
use crate::store::Store;

/// Reads plain records of `T` from `store` (`None` if `T` is not plain).
pub(crate) fn read_plain<T: Record + Send + Sync>(
    options: &ReadOptions,
    store: &Store,
) -> Option<Result<Vec<T>>> {
    T::visit_plain(ReadPlain::<T> {
        options,
        store,
        record: std::marker::PhantomData,
    })
}

struct ReadPlain<'a, T> {
    options: &'a ReadOptions,
    store: &'a Store,
    record: std::marker::PhantomData<fn() -> T>,
}

impl<T: Record> PlainVisitor for ReadPlain<'_, T> {
    type Output = Result<Vec<T>>;

    fn visit<U: NdlType>(self) -> Result<Vec<T>> {
        let records = self.options.read_from::<U>(self.store, None)?;
        match same_vec::<U, T>(records) {
            Ok(records) => Ok(records),
            Err(_) => unreachable!("visit_plain visits the record type itself"),
        }
    }
}

//! [`Same`]: an `NdlType` `U` that is the `Record` type `T: Send + Sync`
//! a [`PlainVisitor`] was built with, so the plain paths (which encode and
//! decode chunks on several threads) take it.

use ndl_runtime::record::{same_vec, PlainVisitor};
use ndl_runtime::{Datatype, NdlType, Record};

use crate::error::Result;
use crate::options::ReadOptions;
use crate::store::Store;

/// `U`, known to be `Send + Sync` because it is the record type `T` of
/// the entry point, whose bounds say so; [`PlainVisitor::visit`] gives
/// `U` with its `NdlType` bound only.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(crate) struct Same<U>(U);

// SAFETY: a `Same<U>` is only made (by `as_same` and the reader below)
// when `U` is the entry point's `T: Send + Sync` (equal `TypeId`s,
// checked by `same_slice`/`same_vec` or given by `visit_plain`).
unsafe impl<U> Send for Same<U> {}
// SAFETY: as for `Send`.
unsafe impl<U> Sync for Same<U> {}

// SAFETY: `repr(transparent)` over `U`: the same layout, size and
// alignment, and the same valid values, so `U`'s datatype describes it.
unsafe impl<U: NdlType> NdlType for Same<U> {
    fn datatype() -> Datatype {
        U::datatype()
    }

    fn description() -> Option<&'static str> {
        U::description()
    }
}

/// `records` as `Same<U>`s.
pub(super) fn as_same<U>(records: &[U]) -> &[Same<U>] {
    // SAFETY: `Same<U>` is `repr(transparent)` over `U`.
    unsafe { std::slice::from_raw_parts(records.as_ptr().cast::<Same<U>>(), records.len()) }
}

/// `records` as `U`s.
fn from_same<U>(records: Vec<Same<U>>) -> Vec<U> {
    let mut records = std::mem::ManuallyDrop::new(records);
    // SAFETY: `Same<U>` is `repr(transparent)` over `U`: the allocation,
    // length and capacity describe a `Vec<U>`.
    unsafe {
        Vec::from_raw_parts(
            records.as_mut_ptr().cast::<U>(),
            records.len(),
            records.capacity(),
        )
    }
}

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
        let records = self.options.read_from::<Same<U>>(self.store, None)?;
        match same_vec::<U, T>(from_same(records)) {
            Ok(records) => Ok(records),
            Err(_) => unreachable!("visit_plain visits the record type itself"),
        }
    }
}

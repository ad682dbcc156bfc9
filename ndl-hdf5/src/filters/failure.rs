//! Why a filter failed on this thread: kept by the filter's callback,
//! which cannot return an error across the C boundary, and taken by the
//! error of the library call that ran it.

use std::cell::RefCell;

/// A chunk a filter could not decode: which filter, and why.
#[derive(Debug)]
pub(crate) struct Failure {
    pub filter: String,
    pub message: String,
}

thread_local! {
    /// Why the last chunk decoded on this thread failed.
    static FAILURE: RefCell<Option<Failure>> = const { RefCell::new(None) };
}

/// Keeps why a filter failed, for the error of the read that ran it.
pub(crate) fn keep(failure: Failure) {
    FAILURE.with(|f| *f.borrow_mut() = Some(failure));
}

/// Why a filter failed on this thread since the last read began, if one did.
pub(crate) fn take() -> Option<Failure> {
    FAILURE.with(|f| f.borrow_mut().take())
}

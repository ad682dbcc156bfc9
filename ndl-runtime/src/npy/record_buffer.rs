//! The buffer records are put in before a write: copied whole, their
//! padding zeroed, their numbers put in the file's order.

use std::mem::MaybeUninit;

use crate::record_plan::{RecordPlan, zero_padding};
use crate::records::assume_init;

/// Room kept in front of staged records for bytes carried over from the
/// previous chunk (at most this many are carried).
pub(super) const PREFIX_BYTES: usize = 4096;

/// A reused buffer that receives whole records and then holds them as
/// the file stores them: padding zeroed, numbers in the file's order.
///
/// Layout: [`PREFIX_BYTES`] of room, then the records of the last chunk.
/// Invariant: `buf[PREFIX_BYTES..PREFIX_BYTES + ready]` is initialised
/// (the last chunk filled); other bytes may not be.
#[derive(Default)]
pub(super) struct RecordBuffer {
    pub(super) buf: Vec<MaybeUninit<u8>>,
    pub(super) ready: usize,
}

impl RecordBuffer {
    /// Copies `records` (whole records' memory, padding included) into
    /// the buffer, zeroes their padding and swaps their numbers to the
    /// file's order.
    pub(super) fn fill(&mut self, layout: &RecordPlan, records: &[MaybeUninit<u8>]) {
        let n = records.len();
        self.ready = 0;
        if self.buf.len() < PREFIX_BYTES + n {
            self.buf.clear();
            self.buf.reserve_exact(PREFIX_BYTES + n);
            // SAFETY: the capacity suffices and `MaybeUninit<u8>` needs no
            // initialisation; the invariant holds (`ready` is 0).
            unsafe { self.buf.set_len(PREFIX_BYTES + n) };
        }
        let dst = &mut self.buf[PREFIX_BYTES..PREFIX_BYTES + n];
        // Padding bytes are copied as `MaybeUninit`, never as `u8`: they
        // are not read as values, and overwritten with zeros right below.
        dst.copy_from_slice(records);
        zero_padding(&layout.padding, layout.itemsize, dst);
        // SAFETY: every byte of `dst` is now initialised: field bytes were
        // copied from valid records (initialised in any valid `T`), and
        // all other bytes, the padding, were just set to zero.
        layout.swap(unsafe { assume_init_mut(dst) });
        self.ready = n;
    }

    /// `prefix` (at most [`PREFIX_BYTES`]) followed by the last chunk filled.
    pub(super) fn with_prefix(&mut self, prefix: &[u8]) -> &[u8] {
        let from = PREFIX_BYTES
            .checked_sub(prefix.len())
            .expect("a prefix that fits");
        for (d, &s) in self.buf[from..PREFIX_BYTES].iter_mut().zip(prefix) {
            *d = MaybeUninit::new(s);
        }
        // SAFETY: `buf[from..PREFIX_BYTES]` was just initialised, and the
        // invariant covers the `ready` bytes after it.
        unsafe { assume_init(&self.buf[from..PREFIX_BYTES + self.ready]) }
    }
}

/// # Safety
/// Every byte of `bytes` must be initialised.
unsafe fn assume_init_mut(bytes: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    // SAFETY: same layout; the caller guarantees initialisation, and
    // writing initialised `u8`s keeps it so.
    unsafe { &mut *(bytes as *mut [MaybeUninit<u8>] as *mut [u8]) }
}

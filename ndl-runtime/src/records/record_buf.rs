//! The buffer records are unpacked into, in parts, until all are checked.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::memory::advise_huge_pages;
use crate::NdlType;

/// Records being unpacked: a `Vec<MaybeUninit<T>>` whose bytes are all
/// initialised (zeroed at first), handed out in disjoint parts.
pub struct RecordBuf<T> {
    v: Vec<MaybeUninit<T>>,
    /// How many records have been filled with checked values.
    filled: AtomicUsize,
}

impl<T> std::fmt::Debug for RecordBuf<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordBuf")
            .field("len", &self.v.len())
            .field("filled", &self.filled.load(Ordering::Relaxed))
            .finish()
    }
}

/// A part of a [`RecordBuf`]: records `start..start + len()`, to be filled
/// by [`Packer::unpack`](super::Packer::unpack).
pub struct RecordsMut<'a, T> {
    start: usize,
    records: &'a mut [MaybeUninit<T>],
    filled_in_buf: &'a AtomicUsize,
    pub(super) filled: bool,
}

impl<T> std::fmt::Debug for RecordsMut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordsMut")
            .field("start", &self.start)
            .field("len", &self.records.len())
            .field("filled", &self.filled)
            .finish()
    }
}

impl<T: NdlType> RecordBuf<T> {
    /// Room for `n` records, all bytes zero. An error, not an abort, when
    /// the memory is not available.
    pub fn zeroed(n: usize) -> std::io::Result<RecordBuf<T>> {
        let v = bytemuck::allocation::try_zeroed_vec(n).map_err(|()| {
            std::io::Error::new(
                std::io::ErrorKind::OutOfMemory,
                format!(
                    "cannot allocate {n} records of {} bytes",
                    std::mem::size_of::<T>()
                ),
            )
        })?;
        let mut buf = RecordBuf {
            v,
            filled: AtomicUsize::new(0),
        };
        // The whole buffer as one part: its bytes, for the advice.
        if let Some(mut all) = buf.parts_mut(usize::MAX).pop() {
            advise_huge_pages(all.bytes_mut());
        }
        Ok(buf)
    }

    /// The number of records.
    pub fn len(&self) -> usize {
        self.v.len()
    }

    /// Whether there are no records.
    pub fn is_empty(&self) -> bool {
        self.v.is_empty()
    }

    /// The records in parts of `per_part` records (the last may be shorter).
    ///
    /// # Panics
    /// If `per_part` is 0.
    pub fn parts_mut(&mut self, per_part: usize) -> Vec<RecordsMut<'_, T>> {
        self.parts_mut_aligned(0, per_part)
    }

    /// The records in parts that end where `skip` plus the record index is
    /// a multiple of `per_part`: the first part holds `per_part - skip`
    /// records (fewer if there are fewer), each later one `per_part` (the
    /// last may be shorter). For records `a..b` of chunks of `per_part`
    /// records, `skip` is `a % per_part` and part `i` lies in one chunk.
    ///
    /// # Panics
    /// If `per_part` is 0 or `skip` is not less than `per_part`.
    pub fn parts_mut_aligned(&mut self, skip: usize, per_part: usize) -> Vec<RecordsMut<'_, T>> {
        assert!(per_part > 0 && skip < per_part, "parts of no records");
        let filled = &self.filled;
        let first_len = (per_part - skip).min(self.v.len());
        let (first, rest) = self.v.split_at_mut(first_len);
        let part = |start: usize, records| RecordsMut {
            start,
            records,
            filled_in_buf: filled,
            filled: false,
        };
        let mut parts = Vec::with_capacity(1 + rest.len().div_ceil(per_part));
        if !first.is_empty() {
            parts.push(part(0, first));
        }
        for (i, records) in rest.chunks_mut(per_part).enumerate() {
            parts.push(part(first_len + i * per_part, records));
        }
        parts
    }

    /// The records, once every one has been filled; `None` otherwise.
    pub fn into_vec(self) -> Option<Vec<T>> {
        if self.filled.load(Ordering::Acquire) != self.v.len() {
            return None;
        }
        let mut v = std::mem::ManuallyDrop::new(self.v);
        // SAFETY: `MaybeUninit<T>` has `T`'s size and alignment, so the
        // allocation is a valid `Vec<T>` allocation of the same capacity.
        // Every element is a valid `T`: parts are disjoint and each was
        // filled at most once (`RecordsMut::filled`), so a count equal to the
        // length means every record was filled by `Packer::<T>::unpack` or
        // `Packer::<T>::fill`, which mark a part filled only once its bytes
        // passed the checks of `T`'s datatype (bools, enums); by the
        // `NdlType` contract those bytes, whatever the padding holds, make a
        // valid `T`.
        Some(unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<T>(), v.len(), v.capacity()) })
    }
}

impl<T> RecordsMut<'_, T> {
    /// The index of the first record in the whole buffer.
    pub fn start(&self) -> usize {
        self.start
    }

    /// The number of records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether the part holds no records.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    pub(super) fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: the pointer and length cover exactly the part's memory,
        // borrowed mutably for the result's lifetime; `u8` has alignment 1.
        // Every byte is initialised (the buffer is zeroed and only ever
        // written with initialised bytes), and any bytes are fine for
        // `MaybeUninit<T>`.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.records.as_mut_ptr().cast::<u8>(),
                std::mem::size_of_val(self.records),
            )
        }
    }

    pub(super) fn mark_filled(&mut self) {
        self.filled = true;
        self.filled_in_buf
            .fetch_add(self.records.len(), Ordering::AcqRel);
    }
}

//! The buffer records are read into: bytes first, values once checked.

use std::io::ErrorKind;
use std::mem::MaybeUninit;

use crate::NdlType;
use crate::record_plan::{BadValue, RecordPlan};
use crate::records::advise_huge_pages;

/// Records being read: a `Vec<MaybeUninit<T>>` whose bytes are all
/// initialised (invariant), so they can be handed out as `&mut [u8]`.
/// The first `checked` records have been converted to native order and
/// checked: they are valid `T`s.
pub(crate) struct RecordVec<T> {
    v: Vec<MaybeUninit<T>>,
    checked: usize,
}

impl<T: NdlType> RecordVec<T> {
    /// `n` records of zero bytes (padding included: the allocation is
    /// zeroed, lazily by the OS for large ones). An error, not an abort,
    /// when the memory is not available.
    pub fn zeroed(n: usize) -> std::io::Result<RecordVec<T>> {
        let v = bytemuck::allocation::try_zeroed_vec(n).map_err(|()| {
            std::io::Error::new(
                ErrorKind::OutOfMemory,
                format!(
                    "cannot allocate {n} records of {} bytes",
                    std::mem::size_of::<T>()
                ),
            )
        })?;
        let mut recs = RecordVec { v, checked: 0 };
        advise_huge_pages(recs.bytes_mut(0));
        Ok(recs)
    }

    /// Appends `n` records of zero bytes.
    pub fn grow_zeroed(&mut self, n: usize) {
        self.v.reserve(n);
        let len = self.v.len();
        // SAFETY: `reserve` made room for `n` more elements after `len`;
        // `write_bytes` zeroes all their bytes (a `MaybeUninit<T>` may hold
        // any bytes), so the new elements exist and keep the invariant.
        // Bytes are written directly, not by copying a zeroed value, since
        // a typed copy need not preserve padding bytes.
        unsafe {
            self.v.as_mut_ptr().add(len).write_bytes(0, n);
            self.v.set_len(len + n);
        }
    }

    /// The bytes of the records from index `start` on, which must not
    /// have been checked yet (checked records stay valid `T`s).
    pub fn bytes_mut(&mut self, start: usize) -> &mut [u8] {
        assert!(start >= self.checked, "checked records are not writable");
        let tail = &mut self.v[start..];
        // SAFETY: the pointer and length cover exactly `tail`'s memory,
        // borrowed mutably for the result's lifetime; `u8` has alignment 1.
        // By the invariant every byte is initialised, and whatever `u8`s are
        // written through the result are fine for `MaybeUninit<T>`.
        unsafe {
            std::slice::from_raw_parts_mut(
                tail.as_mut_ptr().cast::<u8>(),
                std::mem::size_of_val(tail),
            )
        }
    }

    /// Converts the next `n` unchecked records to native order (for a
    /// `layout` of `T` in the file's order) and checks their values; on
    /// success they count as valid. The record index of a bad value is
    /// counted from the start of the vector.
    pub fn check(&mut self, layout: &RecordPlan, n: usize) -> std::result::Result<(), BadValue> {
        let start = self.checked;
        let size = layout.itemsize;
        let bytes = &mut self.bytes_mut(start)[..n * size];
        layout.swap(bytes);
        layout.validate(bytes).map_err(|bad| BadValue {
            record: bad.record + start,
            ..bad
        })?;
        self.checked += n;
        Ok(())
    }

    /// The records, all of which must have been checked.
    pub fn into_vec(self) -> Vec<T> {
        // Not reachable from input: every reader checks all it reads.
        assert_eq!(self.checked, self.v.len(), "records read but not checked");
        let mut v = std::mem::ManuallyDrop::new(self.v);
        // SAFETY: `MaybeUninit<T>` has `T`'s size and alignment, so the
        // allocation is a valid `Vec<T>` allocation of the same capacity.
        // Each element is a valid `T`: all were checked (asserted above)
        // with a plan of `T::datatype()` (callers build it with
        // `layout_for::<T>`): its numbers are in native order, its bools
        // and enums hold valid values, and by the `NdlType` contract every
        // other byte pattern (numbers, strings, padding) is valid for `T`.
        unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<T>(), v.len(), v.capacity()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ByteOrder, Datatype};

    #[test]
    fn record_vec_grows_zeroed_and_becomes_a_vec() {
        let mut v = RecordVec::<u32>::zeroed(2).unwrap();
        v.grow_zeroed(3);
        assert_eq!(v.v.len(), 5);
        assert!(v.bytes_mut(0).iter().all(|&b| b == 0));
        v.bytes_mut(4).copy_from_slice(&7u32.to_ne_bytes());
        let layout = RecordPlan::new(&Datatype::UInt32, ByteOrder::NATIVE).unwrap();
        v.check(&layout, 2).unwrap();
        v.check(&layout, 3).unwrap();
        assert_eq!(v.into_vec(), [0, 0, 0, 0, 7]);
    }

    #[test]
    #[should_panic(expected = "records read but not checked")]
    fn unchecked_records_never_become_values() {
        let mut v = RecordVec::<bool>::zeroed(3).unwrap();
        let layout = RecordPlan::new(&Datatype::Bool, ByteOrder::NATIVE).unwrap();
        v.check(&layout, 2).unwrap();
        let _ = v.into_vec();
    }

    #[test]
    fn bad_bools_are_found_with_their_index() {
        let mut v = RecordVec::<bool>::zeroed(3).unwrap();
        v.bytes_mut(2)[0] = 2;
        let layout = RecordPlan::new(&Datatype::Bool, ByteOrder::NATIVE).unwrap();
        v.check(&layout, 1).unwrap();
        let bad = v.check(&layout, 2).unwrap_err();
        assert_eq!((bad.record, bad.offset), (2, 0));
    }
}

//! Packing and unpacking records of a Rust type.

use std::ops::Range;

use super::field_copy::{Direction, copy_fields, gather_columns};
use super::memory::{assume_init, record_bytes};
use super::packed::{InvalidValue, PackError, PackedLayout};
use super::record_buf::RecordsMut;
use super::repacker::Repacker;
use crate::record_plan::{RecordPlan, zero_padding};
use crate::{ByteOrder, NdlType};

/// Packs and unpacks records of `T` (see the [module docs](crate::records)).
pub struct Packer<T> {
    repacker: Repacker,
    /// The plan of `T` in memory: its field spans, and its checks.
    memory: RecordPlan,
    _records: std::marker::PhantomData<fn(T) -> T>,
}

impl<T> std::fmt::Debug for Packer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Packer")
            .field("repacker", &self.repacker)
            .finish()
    }
}

impl<T: NdlType> Packer<T> {
    /// The packer of `T`'s records.
    pub fn new() -> Result<Packer<T>, PackError> {
        let repacker = Repacker::new(&T::datatype())?;
        if repacker.record_size() != std::mem::size_of::<T>() {
            return Err(PackError::WrongSize {
                datatype: repacker.record_size(),
                size: std::mem::size_of::<T>(),
            });
        }
        let memory =
            RecordPlan::new(&T::datatype(), ByteOrder::NATIVE).ok_or(PackError::NotFixedSize)?;
        Ok(Packer {
            repacker,
            memory,
            _records: std::marker::PhantomData,
        })
    }

    /// The packed layout of `T`.
    pub fn layout(&self) -> &PackedLayout {
        self.repacker.layout()
    }

    /// Whether `T` has no padding: packed records are its memory.
    pub fn is_dense(&self) -> bool {
        self.repacker.is_dense()
    }

    /// Copies `records` into `out` (cleared first) as their bytes in
    /// memory, `T`'s own layout, with every padding byte zero: what a
    /// format that stores the padding (HDF5, a `.npy`) writes, without
    /// padding ever read as data. Copied and zeroed a run at a time, small
    /// enough to stay in cache between the two.
    ///
    /// ```
    /// use ndl_runtime::records::Packer;
    /// use ndl_runtime::NdlType;
    ///
    /// #[derive(Clone, Copy, NdlType)]
    /// #[repr(C)]
    /// struct P { a: u8, b: u16 }
    ///
    /// let mut out = Vec::new();
    /// Packer::<P>::new()?.copy_zero_padded(&[P { a: 1, b: 2 }], &mut out);
    /// assert_eq!(out, [&[1, 0][..], &2u16.to_ne_bytes()].concat());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn copy_zero_padded(&self, records: &[T], out: &mut Vec<u8>) {
        const RUN_BYTES: usize = 64 << 10;
        let size = std::mem::size_of::<T>().max(1);
        let per_run = (RUN_BYTES / size).max(1);
        out.clear();
        out.reserve(std::mem::size_of_val(records));
        let room = &mut out.spare_capacity_mut()[..std::mem::size_of_val(records)];
        for (run, dst) in records.chunks(per_run).zip(room.chunks_mut(per_run * size)) {
            // Padding is copied as `MaybeUninit`, never read as `u8`, and
            // overwritten with zeros right below.
            dst.copy_from_slice(record_bytes(run));
            zero_padding(&self.memory.padding, size, dst);
        }
        // SAFETY: every byte of the records' length is initialised: field
        // bytes were copied from live values, the padding was zeroed.
        unsafe { out.set_len(std::mem::size_of_val(records)) };
    }

    /// Writes `records` packed, in native byte order, into `out`, which
    /// must be exactly `records.len()` packed records long.
    ///
    /// # Panics
    /// If `out` has another length.
    pub fn pack(&self, records: &[T], out: &mut [u8]) {
        let size = self.layout().size();
        assert_eq!(out.len(), records.len() * size, "packed buffer length");
        if size == 0 {
            return;
        }
        let memory = record_bytes(records);
        if self.is_dense() {
            // SAFETY: dense: the fields cover every byte of `T`, so no byte
            // is padding and all are initialised.
            out.copy_from_slice(unsafe { assume_init(memory) });
            return;
        }
        copy_fields(
            &self.repacker.copies,
            Direction::Pack,
            (memory, std::mem::size_of::<T>()),
            (out, size),
            // SAFETY: the copies cover field bytes of the record (the plan
            // comes from `T::datatype()`, which by the `NdlType` contract
            // places fields where `T` has them), and field bytes of a live
            // value are initialised.
            |field| unsafe { assume_init(field) },
        );
    }

    /// Copies byte ranges `fields` of every record (ranges of the record in
    /// memory that lie within field bytes, such as members) into `outs`,
    /// one column each, back to back: the records' columns, in one pass
    /// over their memory.
    ///
    /// # Panics
    /// If a range reaches into padding or past the record, or the columns
    /// are not `records.len() * field.len()` bytes long.
    ///
    /// ```
    /// use ndl_runtime::records::Packer;
    /// use ndl_runtime::NdlType;
    ///
    /// #[derive(Clone, Copy, NdlType)]
    /// #[repr(C)]
    /// struct P { a: u8, b: u16 }
    ///
    /// let (mut a, mut b) = ([0; 2], [0; 4]);
    /// let records = [P { a: 1, b: 2 }, P { a: 3, b: 4 }];
    /// Packer::<P>::new()?.gather(&records, &[0..1, 2..4], &mut [&mut a, &mut b]);
    /// assert_eq!((a, b), ([1, 3], [2u16.to_ne_bytes(), 4u16.to_ne_bytes()].concat()[..].try_into()?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn gather(&self, records: &[T], fields: &[Range<usize>], outs: &mut [&mut [u8]]) {
        for field in fields {
            assert!(
                self.memory
                    .field_spans
                    .iter()
                    .any(|s| s.start <= field.start && field.end <= s.end),
                "bytes {field:?} are not field bytes of the record"
            );
        }
        gather_columns(
            (record_bytes(records), std::mem::size_of::<T>()),
            fields,
            outs,
            // SAFETY: every range lies within one span of field bytes of
            // `T` (checked above, from `T::datatype()`, which by the
            // `NdlType` contract places fields where `T` has them), and
            // field bytes of a live value are initialised.
            |field| unsafe { assume_init(field) },
        );
    }

    /// Fills `part` by `write`, which is given its records' bytes in memory
    /// layout (zeros at first) and writes fields anywhere in them (one
    /// column after another, say), then checks the records' bools and enums
    /// against `T`: only checked records become values.
    ///
    /// # Errors
    /// A bool or enum value that `T` does not admit; the record index counts
    /// from the start of the part, which then stays unfilled.
    ///
    /// # Panics
    /// If `part` was filled before.
    pub fn fill(
        &self,
        part: &mut RecordsMut<'_, T>,
        write: impl FnOnce(&mut [u8]),
    ) -> Result<(), InvalidValue> {
        assert!(!part.filled, "records filled twice");
        let bytes = part.bytes_mut();
        write(bytes);
        self.memory.validate(bytes).map_err(|bad| {
            let (field, message) = bad.explain(&T::datatype());
            InvalidValue {
                record: bad.record,
                field,
                offset: bad.offset,
                message,
            }
        })?;
        part.mark_filled();
        Ok(())
    }

    /// Checks packed records in native byte order and writes them into
    /// `part`, which then holds valid records; `bytes` must be exactly
    /// `part.len()` packed records long.
    ///
    /// # Errors
    /// A bool that is not 0 or 1, or an enum value that is no member's; the
    /// record index counts from the start of `bytes`. `part` then stays
    /// unfilled.
    ///
    /// # Panics
    /// If `bytes` has another length, or `part` was filled before.
    pub fn unpack(&self, bytes: &[u8], part: &mut RecordsMut<'_, T>) -> Result<(), InvalidValue> {
        let size = self.layout().size();
        assert_eq!(bytes.len(), part.len() * size, "packed bytes length");
        assert!(!part.filled, "records filled twice");
        self.layout().check(bytes)?;
        // The padding keeps the zeros the buffer was made with.
        self.repacker.scatter(bytes, part.bytes_mut());
        part.mark_filled();
        Ok(())
    }
}

//! Records packed without padding, for formats that store fields back to
//! back (the Zarr `struct` data type, Zarr v2 structured dtypes).
//!
//! A [`Packer`] copies the field bytes of `T` records into packed records
//! and back. Padding in memory is never read: packing copies fields only.
//! Unpacking writes into a [`RecordBuf`], which hands out disjoint
//! [`RecordsMut`] parts (one per chunk, so chunks can be unpacked on many
//! threads) and becomes a `Vec<T>` only once every record has been checked
//! against `T`'s datatype.
//!
//! ```
//! use ndl_runtime::records::{Packer, RecordBuf};
//! use ndl_runtime::NdlType;
//!
//! #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
//! #[repr(C)]
//! struct Reading {
//!     ok: bool, // 7 bytes of padding follow in memory
//!     t: f64,
//! }
//!
//! let packer = Packer::<Reading>::new()?;
//! assert_eq!(packer.layout().size(), 9);
//! let data = [Reading { ok: true, t: 1.5 }, Reading { ok: false, t: -2.0 }];
//! let mut packed = vec![0; 2 * 9];
//! packer.pack(&data, &mut packed);
//! assert_eq!(packed[0], 1);
//! assert_eq!(&packed[1..9], &1.5f64.to_ne_bytes());
//!
//! let mut buf = RecordBuf::<Reading>::zeroed(2)?;
//! for mut part in buf.parts_mut(2) {
//!     packer.unpack(&packed, &mut part)?;
//! }
//! assert_eq!(buf.into_vec().unwrap(), data);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::mem::MaybeUninit;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::layout::{BadValue, Layout};
use crate::{Array, ByteOrder, Compound, Datatype, Member, NdlType};

/// The packed form of a fixed-size datatype: every compound's members back
/// to back with no gaps, nested compounds and arrays of compounds too.
///
/// It knows how to byte-swap every number of a packed record and how to
/// check its bools and enums.
#[derive(Clone, Debug)]
pub struct PackedLayout {
    datatype: Datatype,
    /// The plan of `datatype` in the opposite byte order: its swaps turn
    /// every number around; its checks do not depend on the order.
    plan: Layout,
}

/// Why a datatype cannot be packed or a type cannot be packed with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PackError {
    /// Variable-length data or references have no fixed-size record.
    #[error("the datatype has no fixed size (variable-length data or references)")]
    NotFixedSize,
    /// The type's datatype does not describe its size (a wrong `NdlType` impl).
    #[error(
        "the type's datatype is {datatype} bytes but the type is {size} (a wrong NdlType impl)"
    )]
    WrongSize {
        /// The datatype's size.
        datatype: usize,
        /// `size_of::<T>()`.
        size: usize,
    },
}

/// A bool or enum value in packed bytes that its datatype does not admit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("record {record}, field `{field}` (byte {offset} of the packed record): {message}")]
pub struct InvalidValue {
    /// The record's index within the bytes checked.
    pub record: usize,
    /// The dotted path of the field (`pos.flags[3]`).
    pub field: String,
    /// The byte offset of the value within the packed record.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl PackedLayout {
    /// The packed form of `dt`.
    ///
    /// ```
    /// use ndl_runtime::records::PackedLayout;
    /// use ndl_runtime::{Compound, Datatype};
    ///
    /// let padded = Compound::c_layout([("a", Datatype::UInt8), ("b", Datatype::Float64)])?;
    /// let packed = PackedLayout::new(&Datatype::Compound(padded))?;
    /// assert_eq!(packed.size(), 9);
    /// let Datatype::Compound(c) = packed.datatype() else { unreachable!() };
    /// assert_eq!(c.members[1].offset, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(dt: &Datatype) -> Result<PackedLayout, PackError> {
        let datatype = packed(dt).ok_or(PackError::NotFixedSize)?;
        let plan =
            Layout::new(&datatype, ByteOrder::NATIVE.opposite()).ok_or(PackError::NotFixedSize)?;
        Ok(PackedLayout { datatype, plan })
    }

    /// The packed datatype.
    pub fn datatype(&self) -> &Datatype {
        &self.datatype
    }

    /// The packed record size in bytes.
    pub fn size(&self) -> usize {
        self.plan.itemsize
    }

    /// Whether any number is wider than a byte, so that the byte order matters.
    pub fn has_multibyte_numbers(&self) -> bool {
        !self.plan.swaps.is_empty()
    }

    /// Reverses the bytes of every number of every whole record in `bytes`:
    /// from one byte order to the other.
    pub fn swap(&self, bytes: &mut [u8]) {
        self.plan.swap(bytes);
    }

    /// Checks the bools (0 or 1) and enums (a member's value) of every whole
    /// record in `bytes`, in native byte order; the first bad value.
    pub fn check(&self, bytes: &[u8]) -> Result<(), InvalidValue> {
        self.plan.validate(bytes).map_err(|bad| self.invalid(&bad))
    }

    fn invalid(&self, bad: &BadValue) -> InvalidValue {
        let (field, message) = bad.explain(&self.datatype);
        InvalidValue {
            record: bad.record,
            field,
            offset: bad.offset,
            message,
        }
    }
}

/// The packed form of `dt`, `None` without a fixed size.
fn packed(dt: &Datatype) -> Option<Datatype> {
    Some(match dt {
        Datatype::Compound(c) => {
            let mut offset = 0;
            let mut members = Vec::with_capacity(c.members.len());
            for m in &c.members {
                let datatype = packed(&m.datatype)?;
                let size = datatype.size()?;
                members.push(Member {
                    offset,
                    datatype,
                    ..m.clone()
                });
                offset += size;
            }
            Datatype::Compound(Compound {
                size: offset,
                members,
            })
        }
        Datatype::Array(a) => Datatype::Array(Array {
            base: Box::new(packed(&a.base)?),
            shape: a.shape.clone(),
        }),
        other => {
            other.size()?;
            other.clone()
        }
    })
}

/// One copy between a record in memory and its packed form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FieldCopy {
    /// Where the bytes are in a record in memory.
    pub memory: usize,
    /// Where they are in a packed record.
    pub packed: usize,
    pub len: usize,
}

/// Repacks records of a datatype between its own layout (its offsets and
/// record size, gaps included) and its packed layout, as bytes: for
/// records read from a file rather than held as Rust values.
///
/// ```
/// use ndl_runtime::records::Repacker;
/// use ndl_runtime::{Compound, Datatype};
///
/// let padded = Datatype::Compound(Compound::c_layout([("a", Datatype::UInt8), ("b", Datatype::UInt16)])?);
/// let r = Repacker::new(&padded)?;
/// assert_eq!((r.record_size(), r.layout().size()), (4, 3));
/// let mut packed = [0; 3];
/// r.pack(&[7, 0xEE, 1, 2], &mut packed);
/// assert_eq!(packed, [7, 1, 2]);
/// let mut back = [0xFF; 4];
/// r.unpack(&packed, &mut back);
/// assert_eq!(back, [7, 0, 1, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Repacker {
    layout: PackedLayout,
    record: usize,
    /// The field copies of one record, merged where both sides are contiguous.
    copies: Vec<FieldCopy>,
}

impl Repacker {
    /// The repacker of records of `dt`.
    pub fn new(dt: &Datatype) -> Result<Repacker, PackError> {
        let record = dt.size().ok_or(PackError::NotFixedSize)?;
        let layout = PackedLayout::new(dt)?;
        let mut copies = Vec::new();
        plan_copies(dt, layout.datatype(), 0, 0, &mut copies);
        Ok(Repacker {
            layout,
            record,
            copies,
        })
    }

    /// The packed layout.
    pub fn layout(&self) -> &PackedLayout {
        &self.layout
    }

    /// The size of a record in the datatype's own layout.
    pub fn record_size(&self) -> usize {
        self.record
    }

    /// Whether the datatype has no gaps: packed records are the records.
    pub fn is_dense(&self) -> bool {
        self.record == 0 || matches!(self.copies.as_slice(), [c] if c.len == self.record)
    }

    /// Packs whole records: `out` holds as many packed records as
    /// `records` holds records.
    ///
    /// # Panics
    /// If the lengths are not whole records, or the counts differ.
    pub fn pack(&self, records: &[u8], out: &mut [u8]) {
        self.check_lengths(records.len(), out.len());
        if self.is_dense() {
            out.copy_from_slice(records);
            return;
        }
        copy_fields(
            &self.copies,
            Direction::Pack,
            (records, self.record),
            (out, self.layout.size()),
            |b| b,
        );
    }

    /// Unpacks whole packed records into records of the datatype's layout,
    /// with zeros in the gaps.
    ///
    /// # Panics
    /// If the lengths are not whole records, or the counts differ.
    pub fn unpack(&self, packed: &[u8], out: &mut [u8]) {
        self.check_lengths(out.len(), packed.len());
        if !self.is_dense() {
            out.fill(0);
        }
        self.scatter(packed, out);
    }

    /// Copies the fields of packed records into records, leaving the gaps.
    fn scatter(&self, packed: &[u8], out: &mut [u8]) {
        if self.is_dense() {
            out.copy_from_slice(packed);
            return;
        }
        copy_fields(
            &self.copies,
            Direction::Unpack,
            (packed, self.layout.size()),
            (out, self.record),
            |b| b,
        );
    }

    fn check_lengths(&self, records: usize, packed: usize) {
        let size = self.layout.size();
        let n = records.checked_div(self.record).unwrap_or(0);
        assert!(
            records.checked_rem(self.record).unwrap_or(0) == 0 && packed == n * size,
            "{records} bytes of {}-byte records against {packed} bytes of {size}-byte packed records",
            self.record
        );
    }
}

/// Packs and unpacks records of `T` (see the [module docs](self)).
pub struct Packer<T> {
    repacker: Repacker,
    /// The plan of `T` in memory: its field spans, and its checks.
    memory: Layout,
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
            Layout::new(&T::datatype(), ByteOrder::NATIVE).ok_or(PackError::NotFixedSize)?;
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

/// Copies byte ranges `fields` of every record of `records` (records of
/// `record` bytes) into `outs`, one column each, back to back: the columns
/// of records held as bytes, such as packed records.
///
/// # Panics
/// If a range reaches past the record, or the lengths do not fit.
///
/// ```
/// let packed = [1, 2, 0, 3, 4, 0];
/// let (mut a, mut b) = ([0; 2], [0; 4]);
/// ndl_runtime::records::gather(&packed, 3, &[0..1, 1..3], &mut [&mut a, &mut b]);
/// assert_eq!((a, b), ([1, 3], [2, 0, 4, 0]));
/// ```
pub fn gather(records: &[u8], record: usize, fields: &[Range<usize>], outs: &mut [&mut [u8]]) {
    for field in fields {
        assert!(
            field.end <= record,
            "bytes {field:?} are not within a {record}-byte record"
        );
    }
    gather_columns((records, record), fields, outs, |b| b);
}

/// [`gather`] over any record bytes that `bytes` turns into `u8`s: block
/// by block, each column of the block in its own loop.
fn gather_columns<S: Copy>(
    (records, record): (&[S], usize),
    fields: &[Range<usize>],
    outs: &mut [&mut [u8]],
    bytes: impl Fn(&[S]) -> &[u8] + Copy,
) {
    let n = records.len().checked_div(record).unwrap_or(0);
    assert_eq!(fields.len(), outs.len(), "a column for each field");
    for (field, out) in fields.iter().zip(outs.iter()) {
        assert_eq!(out.len(), n * field.len(), "column buffer length");
    }
    if n == 0 {
        return;
    }
    for (b, block) in records.chunks(BLOCK * record).enumerate() {
        let in_block = block.len() / record;
        for (field, out) in fields.iter().zip(outs.iter_mut()) {
            let width = field.len();
            if width == 0 {
                continue;
            }
            let at = b * BLOCK * width;
            let copy = FieldCopy {
                memory: field.start,
                packed: 0,
                len: width,
            };
            copy_fields(
                &[copy],
                Direction::Pack,
                (block, record),
                (&mut out[at..at + in_block * width], width),
                bytes,
            );
        }
    }
}

/// Records copied per pass over the field copies: a block's source stays
/// in the cache while each field is copied in its own loop.
const BLOCK: usize = 256;

/// Which end of a [`FieldCopy`] is read and which written.
#[derive(Clone, Copy)]
pub(crate) enum Direction {
    /// From records in memory to packed records.
    Pack,
    /// From packed records to records in memory.
    Unpack,
}

/// Copies the fields `copies` of every record of `from` (records of
/// `from_step` bytes) into the records of `to` (of `to_step` bytes), which
/// hold as many. `bytes` turns source bytes that are field bytes into
/// `u8`s.
///
/// The hot loop of packing: field by field over a block of records, so that
/// each field's copy has a length known to the compiler (up to 16 bytes, 20,
/// 24 or 32: what most fields are) and runs as plain loads and stores.
#[inline(always)]
pub(crate) fn copy_fields<S: Copy>(
    copies: &[FieldCopy],
    direction: Direction,
    (from, from_step): (&[S], usize),
    (to, to_step): (&mut [u8], usize),
    bytes: impl Fn(&[S]) -> &[u8] + Copy,
) {
    for (from, to) in from
        .chunks(BLOCK * from_step)
        .zip(to.chunks_mut(BLOCK * to_step))
    {
        for c in copies {
            let (src, dst) = match direction {
                Direction::Pack => (c.memory, c.packed),
                Direction::Unpack => (c.packed, c.memory),
            };
            let from = (from, from_step, src);
            let to = (&mut *to, to_step, dst);
            // A copy of a length known at compile time is a load and a
            // store; one of a length known only at run time is a call to
            // `memcpy`. Fields, and runs of neighbouring fields, are short.
            macro_rules! by_length {
                ($($n:literal)*) => {
                    match c.len {
                        $($n => copy_strided::<$n, S>(from, to, bytes),)*
                        len => copy_strided_any(from, to, len, bytes),
                    }
                };
            }
            by_length!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 20 24 32)
        }
    }
}

/// Copies `N` bytes at `src` of each record of `from` to `dst` of each
/// record of `to`.
#[inline(always)]
fn copy_strided<const N: usize, S: Copy>(
    (from, from_step, src): (&[S], usize, usize),
    (to, to_step, dst): (&mut [u8], usize, usize),
    bytes: impl Fn(&[S]) -> &[u8],
) {
    for (from, to) in from
        .chunks_exact(from_step)
        .zip(to.chunks_exact_mut(to_step))
    {
        let field: [u8; N] = bytes(&from[src..src + N]).try_into().expect("N bytes");
        to[dst..dst + N].copy_from_slice(&field);
    }
}

/// [`copy_strided`] for any length.
fn copy_strided_any<S: Copy>(
    (from, from_step, src): (&[S], usize, usize),
    (to, to_step, dst): (&mut [u8], usize, usize),
    len: usize,
    bytes: impl Fn(&[S]) -> &[u8],
) {
    for (from, to) in from
        .chunks_exact(from_step)
        .zip(to.chunks_exact_mut(to_step))
    {
        to[dst..dst + len].copy_from_slice(bytes(&from[src..src + len]));
    }
}

/// The copies between a record of `memory` (at `at_memory`) and its packed
/// form `packed` (at `at_packed`), leaf by leaf, merged when contiguous.
fn plan_copies(
    memory: &Datatype,
    packed: &Datatype,
    at_memory: usize,
    at_packed: usize,
    out: &mut Vec<FieldCopy>,
) {
    match (memory, packed) {
        (Datatype::Compound(m), Datatype::Compound(p)) => {
            for (mm, pm) in m.members.iter().zip(&p.members) {
                plan_copies(
                    &mm.datatype,
                    &pm.datatype,
                    at_memory + mm.offset,
                    at_packed + pm.offset,
                    out,
                );
            }
        }
        (Datatype::Array(m), Datatype::Array(p)) if m.base.size() != p.base.size() => {
            let (step_m, step_p) = (m.base.size().unwrap_or(0), p.base.size().unwrap_or(0));
            for i in 0..m.element_count().unwrap_or(0) {
                plan_copies(
                    &m.base,
                    &p.base,
                    at_memory + i * step_m,
                    at_packed + i * step_p,
                    out,
                );
            }
        }
        _ => {
            let len = memory.size().unwrap_or(0);
            match out.last_mut() {
                Some(last)
                    if last.memory + last.len == at_memory
                        && last.packed + last.len == at_packed =>
                {
                    last.len += len;
                }
                _ if len == 0 => {}
                _ => out.push(FieldCopy {
                    memory: at_memory,
                    packed: at_packed,
                    len,
                }),
            }
        }
    }
}

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
/// by [`Packer::unpack`].
pub struct RecordsMut<'a, T> {
    start: usize,
    records: &'a mut [MaybeUninit<T>],
    filled_in_buf: &'a AtomicUsize,
    filled: bool,
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

    fn bytes_mut(&mut self) -> &mut [u8] {
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

    fn mark_filled(&mut self) {
        self.filled = true;
        self.filled_in_buf
            .fetch_add(self.records.len(), Ordering::AcqRel);
    }
}

/// Allocations from this size on are backed by transparent huge pages
/// where the kernel allows it (NumPy's threshold for the same advice).
#[cfg(target_os = "linux")]
const HUGE_PAGE_THRESHOLD: usize = 4 << 20;

/// Asks Linux to back `bytes` (a fresh, untouched allocation) with 2 MiB
/// pages: reading a file into it then takes one page fault per 2 MiB
/// instead of per 4 KiB, which at 64 MiB more than doubles the speed of a
/// read from the page cache (measured: 1.8 to 4.7 GB/s). Only a hint: the
/// contents are unchanged, and where THP is off nothing happens.
pub(crate) fn advise_huge_pages(bytes: &mut [u8]) {
    #[cfg(target_os = "linux")]
    if bytes.len() >= HUGE_PAGE_THRESHOLD {
        const HUGE: usize = 2 << 20;
        let start = (bytes.as_ptr() as usize).next_multiple_of(HUGE);
        let end = (bytes.as_ptr() as usize + bytes.len()) / HUGE * HUGE;
        if end > start {
            // SAFETY: [start, end) lies within `bytes`, memory this process
            // owns and borrows mutably; MADV_HUGEPAGE changes only how it
            // is backed, never its contents. A failure is harmless.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = bytes;
}

/// The memory of `records`, padding included, as possibly uninitialised bytes.
///
/// This is the one place records are viewed as bytes; readers of the
/// result may assume initialised only the bytes of fields.
pub(crate) fn record_bytes<T: NdlType>(records: &[T]) -> &[MaybeUninit<u8>] {
    // SAFETY: the pointer and length cover exactly the slice's memory,
    // which stays borrowed for the result's lifetime. `MaybeUninit<u8>`
    // has alignment 1 and admits any byte, initialised or not (padding),
    // so every byte of the slice is a valid element. Records are only
    // read while the shared borrow lasts, and a `Copy` type holds no
    // `UnsafeCell` (`Cell` and its kin are not `Copy`), so nothing can
    // change them meanwhile; that is also why the writer's helper thread
    // may read them.
    unsafe {
        std::slice::from_raw_parts(
            records.as_ptr().cast::<MaybeUninit<u8>>(),
            std::mem::size_of_val(records),
        )
    }
}

/// # Safety
/// Every byte of `bytes` must be initialised.
pub(crate) unsafe fn assume_init(bytes: &[MaybeUninit<u8>]) -> &[u8] {
    // SAFETY: same layout; the caller guarantees initialisation.
    unsafe { &*(bytes as *const [MaybeUninit<u8>] as *const [u8]) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Compound, Enum, EnumMember, IntType};

    #[derive(Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    struct Inner {
        a: u8,
        b: u32,
    }

    #[derive(Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    struct Outer {
        flag: bool,
        inner: [Inner; 2],
        kind: u16,
    }

    fn inner() -> Datatype {
        Datatype::Compound(
            Compound::c_layout([("a", Datatype::UInt8), ("b", Datatype::UInt32)]).unwrap(),
        )
    }

    // SAFETY: the C layout of the fields, as `repr(C)` places them.
    unsafe impl NdlType for Inner {
        fn datatype() -> Datatype {
            inner()
        }
    }

    // SAFETY: the C layout of the fields; `kind` is an enum of u16 whose
    // members are 0..=2, but any u16 is a valid `u16`, so the datatype is
    // stricter than the type, which is allowed.
    unsafe impl NdlType for Outer {
        fn datatype() -> Datatype {
            let kind = Datatype::Enum(Enum {
                base: IntType::UInt16,
                members: vec![
                    EnumMember::new("a", 0),
                    EnumMember::new("b", 1),
                    EnumMember::new("c", 2),
                ],
            });
            Datatype::Compound(
                Compound::c_layout([
                    ("flag", Datatype::Bool),
                    ("inner", inner().array_of(&[2])),
                    ("kind", kind),
                ])
                .unwrap(),
            )
        }
    }

    fn sample() -> Vec<Outer> {
        (0..5)
            .map(|i| Outer {
                flag: i % 2 == 0,
                inner: [
                    Inner {
                        a: i as u8,
                        b: 1000 + i,
                    },
                    Inner {
                        a: 2 * i as u8,
                        b: u32::MAX - i,
                    },
                ],
                kind: (i % 3) as u16,
            })
            .collect()
    }

    #[test]
    fn nested_arrays_of_compounds_pack_without_gaps() {
        let packer = Packer::<Outer>::new().unwrap();
        assert_eq!(std::mem::size_of::<Outer>(), 24);
        assert_eq!(packer.layout().size(), 1 + 2 * 5 + 2);
        assert!(!packer.is_dense());
        let data = sample();
        let mut packed = vec![0xAA; data.len() * 13];
        packer.pack(&data, &mut packed);
        let r = &packed[13..26];
        assert_eq!(r[0], 0);
        assert_eq!(r[1], 1);
        assert_eq!(&r[2..6], &1001u32.to_ne_bytes());
        assert_eq!(r[6], 2);
        assert_eq!(&r[7..11], &(u32::MAX - 1).to_ne_bytes());
        assert_eq!(&r[11..13], &1u16.to_ne_bytes());

        let mut buf = RecordBuf::<Outer>::zeroed(5).unwrap();
        for mut part in buf.parts_mut(2) {
            let at = part.start() * 13;
            let len = part.len() * 13;
            packer.unpack(&packed[at..at + len], &mut part).unwrap();
        }
        assert_eq!(buf.into_vec().unwrap(), data);
    }

    #[test]
    fn bad_values_are_named_and_leave_the_buffer_unfinished() {
        let packer = Packer::<Outer>::new().unwrap();
        let mut packed = vec![0; 5 * 13];
        packer.pack(&sample(), &mut packed);
        packed[3 * 13 + 11] = 9; // kind of record 3, native order low byte or high byte
        packed[3 * 13 + 12] = 0;
        if cfg!(target_endian = "big") {
            packed.swap(3 * 13 + 11, 3 * 13 + 12);
        }
        let mut buf = RecordBuf::<Outer>::zeroed(5).unwrap();
        let mut parts = buf.parts_mut(5);
        let err = packer.unpack(&packed, &mut parts[0]).unwrap_err();
        assert_eq!(
            (err.record, err.field.as_str(), err.offset),
            (3, "kind", 11)
        );
        assert!(err.message.contains("9 is not a value"), "{err}");
        drop(parts);
        assert!(buf.into_vec().is_none());

        packed[3 * 13 + 11] = 0;
        packed[4 * 13] = 2;
        let mut buf = RecordBuf::<Outer>::zeroed(5).unwrap();
        let err = packer
            .unpack(&packed, &mut buf.parts_mut(5)[0])
            .unwrap_err();
        assert_eq!((err.record, err.field.as_str()), (4, "flag"));
    }

    #[test]
    fn aligned_parts_end_on_chunk_boundaries() {
        let mut buf = RecordBuf::<u16>::zeroed(10).unwrap();
        let parts: Vec<(usize, usize)> = buf
            .parts_mut_aligned(3, 4)
            .iter()
            .map(|p| (p.start(), p.len()))
            .collect();
        assert_eq!(parts, [(0, 1), (1, 4), (5, 4), (9, 1)]);
        let mut small = RecordBuf::<u16>::zeroed(1).unwrap();
        let parts: Vec<(usize, usize)> = small
            .parts_mut_aligned(1, 4)
            .iter()
            .map(|p| (p.start(), p.len()))
            .collect();
        assert_eq!(parts, [(0, 1)]);
        let mut empty = RecordBuf::<u16>::zeroed(0).unwrap();
        assert!(empty.parts_mut(4).is_empty());
    }

    #[test]
    fn swap_turns_every_number_around() {
        let packer = Packer::<Outer>::new().unwrap();
        let mut packed = vec![0; 5 * 13];
        packer.pack(&sample(), &mut packed);
        let before = packed.clone();
        packer.layout().swap(&mut packed);
        assert_eq!(&packed[13 + 2..13 + 6], &1001u32.swap_bytes().to_ne_bytes());
        assert_eq!(packed[13 + 1], before[13 + 1]);
        packer.layout().swap(&mut packed);
        assert_eq!(packed, before);
    }

    #[test]
    fn dense_records_are_copied_whole() {
        let packer = Packer::<[u32; 3]>::new().unwrap();
        assert!(packer.is_dense());
        let data = [[1, 2, 3], [4, 5, 6]];
        let mut packed = vec![0; 24];
        packer.pack(&data, &mut packed);
        assert_eq!(
            &packed[..],
            bytemuck::cast_slice::<u32, u8>(&[1, 2, 3, 4, 5, 6])
        );
    }

    /// Every copy length the copy loop treats apart (1, 2, 4, 8, 12, 16)
    /// and others (3, 5), over more records than one block, against
    /// packing (and gathering columns) by hand member by member.
    #[test]
    fn every_field_length_packs_across_blocks() {
        let dt = Datatype::Compound(
            Compound::c_layout([
                ("a", Datatype::UInt8),
                ("b", Datatype::UInt16),
                ("c", Datatype::UInt8.array_of(&[3])),
                ("d", Datatype::UInt32),
                ("e", Datatype::Float64),
                ("f", Datatype::UInt32.array_of(&[3])),
                ("g", Datatype::UInt64.array_of(&[2])),
                ("h", Datatype::UInt8.array_of(&[5])),
            ])
            .unwrap(),
        );
        let r = Repacker::new(&dt).unwrap();
        let Datatype::Compound(c) = &dt else {
            unreachable!()
        };
        let (record, size) = (r.record_size(), r.layout().size());
        let n = 3 * BLOCK + 7;
        let records: Vec<u8> = (0..n * record).map(|i| (i * 7 + i / 251) as u8).collect();
        let mut expected = Vec::with_capacity(n * size);
        for rec in records.chunks_exact(record) {
            for m in &c.members {
                expected.extend_from_slice(&rec[m.offset..m.offset + m.datatype.size().unwrap()]);
            }
        }
        let mut packed = vec![0xAA; n * size];
        r.pack(&records, &mut packed);
        assert_eq!(packed, expected);
        let fields: Vec<Range<usize>> = c
            .members
            .iter()
            .map(|m| m.offset..m.offset + m.datatype.size().unwrap())
            .collect();
        let mut columns: Vec<Vec<u8>> = fields.iter().map(|f| vec![0xAA; n * f.len()]).collect();
        let mut outs: Vec<&mut [u8]> = columns.iter_mut().map(Vec::as_mut_slice).collect();
        gather(&records, record, &fields, &mut outs);
        for (field, column) in fields.iter().zip(&columns) {
            let want: Vec<u8> = records
                .chunks_exact(record)
                .flat_map(|rec| rec[field.clone()].to_vec())
                .collect();
            assert_eq!(column, &want, "column {field:?}");
        }
        let mut back = vec![0xAA; n * record];
        r.unpack(&packed, &mut back);
        for (i, (got, rec)) in back
            .chunks_exact(record)
            .zip(records.chunks_exact(record))
            .enumerate()
        {
            let mut want = vec![0; record];
            for m in &c.members {
                let span = m.offset..m.offset + m.datatype.size().unwrap();
                want[span.clone()].copy_from_slice(&rec[span]);
            }
            assert_eq!(got, &want[..], "record {i}");
        }
    }

    #[test]
    fn a_wrong_impl_is_refused() {
        #[derive(Clone, Copy)]
        #[repr(C)]
        struct Wrong(u64);
        // SAFETY: deliberately wrong size, to test that it is refused before use.
        unsafe impl NdlType for Wrong {
            fn datatype() -> Datatype {
                Datatype::UInt32
            }
        }
        assert_eq!(
            Packer::<Wrong>::new().unwrap_err(),
            PackError::WrongSize {
                datatype: 4,
                size: 8
            }
        );
    }
}

//! Repacking records held as bytes in their datatype's own layout.

use super::field_copy::{Direction, FieldCopy, copy_fields, plan_copies};
use super::packed::{PackError, PackedLayout};
use crate::Datatype;

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
    pub(super) copies: Vec<FieldCopy>,
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
    pub(super) fn scatter(&self, packed: &[u8], out: &mut [u8]) {
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

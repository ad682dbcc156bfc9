//! Records matched by field name: how to turn a stored record into a
//! record of another datatype that holds some of its fields, in any order
//! and at any offsets.
//!
//! A [`FieldMap`] is worked out once from the stored datatype, its byte
//! order and the wanted datatype. It is a list of byte copies (merged where
//! both sides are contiguous) plus the wanted datatype's own record plan,
//! which swaps the copied numbers to native order and checks bools and
//! enums. Stored fields the wanted datatype lacks are skipped; a wanted
//! field the stored datatype lacks, or has with another type, is an error
//! naming its dotted path (`pos.x`).
//!
//! ```
//! use ndl_runtime::field_map::FieldMap;
//! use ndl_runtime::{ByteOrder, Compound, Datatype, Member};
//!
//! // Stored: big-endian {id: u16, extra: u8, t: u32}, packed.
//! let stored = Datatype::Compound(Compound {
//!     size: 7,
//!     members: vec![
//!         Member::new("id", 0, Datatype::UInt16),
//!         Member::new("extra", 2, Datatype::UInt8),
//!         Member::new("t", 3, Datatype::UInt32),
//!     ],
//! });
//! // Wanted: {t: u32, id: u16} with C layout (8 bytes, 2 of padding).
//! let wanted = Datatype::Compound(Compound::c_layout([("t", Datatype::UInt32), ("id", Datatype::UInt16)])?);
//! let map = FieldMap::new(&stored, ByteOrder::Big, &wanted)?;
//! assert_eq!((map.file_record_size(), map.target_record_size()), (7, 8));
//!
//! let file = [0, 7, 0xEE, 0, 0, 1, 0]; // id 7, extra, t 256
//! let mut record = [0u8; 8];
//! map.apply(&file, &mut record);
//! map.check(&record)?;
//! assert_eq!(record[..4], 256u32.to_ne_bytes());
//! assert_eq!(record[4..6], 7u16.to_ne_bytes());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::byte_shuffle::ByteShuffle;
use crate::record_plan::RecordPlan;
use crate::records::{Direction, FieldCopy, InvalidValue, copy_fields};
use crate::schema::{describe, join_field, same_scalar};
use crate::{ByteOrder, Datatype};

/// How to turn stored records into records of a target datatype by field
/// name (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct FieldMap {
    file_size: usize,
    target: Datatype,
    runs: Vec<CopyRun>,
    /// The target's plan in the file's byte order: its swaps turn copied
    /// numbers to native order. Swapping after copying, in one pass, lets
    /// copies merge across numbers of different widths.
    swaps: RecordPlan,
    /// The target's plan in native order: its bool and enum checks.
    checks: RecordPlan,
    /// How `apply` does the runs, worked out once.
    copier: Copier,
}

/// The runs as one byte permutation per group of records, where the CPU
/// can and the runs are several (one run is a plain copy already); else as
/// field copies.
#[derive(Clone, Debug)]
enum Copier {
    Shuffle(ByteShuffle),
    Fields(Vec<FieldCopy>),
}

/// One copy of `len` bytes from every stored record to every target record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyRun {
    /// The offset in the stored record.
    pub file: usize,
    /// The offset in the target record.
    pub target: usize,
    /// The number of bytes.
    pub len: usize,
}

/// Why a stored datatype cannot be read as the target by field name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FieldMapError {
    /// A field of the target is not in the stored records.
    #[error("field `{field}` is missing in the file, which has fields [{}]", available.join(", "))]
    MissingField {
        /// The dotted path of the field (`pos.x`).
        field: String,
        /// The names the stored compound has at that level.
        available: Vec<String>,
    },
    /// A field has another type (or array shape) in the stored records.
    #[error("field `{field}`: the file has {file}, the type expects {target}")]
    FieldType {
        /// The dotted path of the field, empty for the whole record.
        field: String,
        /// The stored type, described.
        file: String,
        /// The target type, described.
        target: String,
    },
    /// A datatype without a fixed size (variable-length data, references).
    #[error("the datatype has no fixed size")]
    NotFixedSize,
}

/// What to add to an exact read's type mismatch where reading by field
/// name would succeed: every field of `target` is in `file` under its
/// name, with its type, at another place.
///
/// ```
/// use ndl_runtime::field_map::by_name_hint;
/// use ndl_runtime::{Compound, Datatype};
///
/// let file = Datatype::Compound(Compound::c_layout([("b", Datatype::Int8), ("a", Datatype::Float64)])?);
/// let want = Datatype::Compound(Compound::c_layout([("a", Datatype::Float64)])?);
/// assert!(by_name_hint(&file, &want).unwrap().contains("by_name(true)"));
/// assert!(by_name_hint(&file, &Datatype::Float64).is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn by_name_hint(file: &Datatype, target: &Datatype) -> Option<&'static str> {
    file.size()?;
    plan(file, target, "", 0, 0, &mut Vec::new()).ok()?;
    Some(
        "; the file has every field of the type, elsewhere in its records: \
         `ReadOptions::by_name(true)` reads them by field name",
    )
}

impl FieldMap {
    /// The map from records of `file`, stored in `file_order`, to records
    /// of `target`.
    ///
    /// Compounds are matched by member name at every level; arrays must
    /// have the same shape; scalars must be equal, except that an enum of
    /// the target matches the stored integer of its base.
    ///
    /// ```
    /// use ndl_runtime::field_map::{FieldMap, FieldMapError};
    /// use ndl_runtime::{ByteOrder, Compound, Datatype};
    ///
    /// let pos = |x| Datatype::Compound(Compound::c_layout([("x", x)]).unwrap());
    /// let file = Datatype::Compound(Compound::c_layout([("pos", pos(Datatype::Float32))])?);
    /// let want = Datatype::Compound(Compound::c_layout([("pos", pos(Datatype::Float64))])?);
    /// let err = FieldMap::new(&file, ByteOrder::Little, &want).unwrap_err();
    /// assert!(matches!(err, FieldMapError::FieldType { ref field, .. } if field == "pos.x"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(
        file: &Datatype,
        file_order: ByteOrder,
        target: &Datatype,
    ) -> Result<FieldMap, FieldMapError> {
        let file_size = file.size().ok_or(FieldMapError::NotFixedSize)?;
        let swaps = RecordPlan::new(target, file_order).ok_or(FieldMapError::NotFixedSize)?;
        let checks =
            RecordPlan::new(target, ByteOrder::NATIVE).ok_or(FieldMapError::NotFixedSize)?;
        let mut runs = Vec::new();
        plan(file, target, "", 0, 0, &mut runs)?;
        let shuffle = match runs.len() {
            0 | 1 => None,
            _ => ByteShuffle::new(
                runs.iter().map(|r| (r.file, r.target, r.len)),
                file_size,
                swaps.itemsize,
            ),
        };
        let copier = match shuffle {
            Some(shuffle) => Copier::Shuffle(shuffle),
            None => Copier::Fields(
                runs.iter()
                    .map(|r| FieldCopy {
                        memory: r.target,
                        packed: r.file,
                        len: r.len,
                    })
                    .collect(),
            ),
        };
        Ok(FieldMap {
            file_size,
            target: target.clone(),
            runs,
            swaps,
            checks,
            copier,
        })
    }

    /// The size of a stored record.
    pub fn file_record_size(&self) -> usize {
        self.file_size
    }

    /// The size of a target record.
    pub fn target_record_size(&self) -> usize {
        self.checks.itemsize
    }

    /// The copies of one record, in target order, merged where both sides
    /// are contiguous.
    pub fn runs(&self) -> &[CopyRun] {
        &self.runs
    }

    /// Whether stored records already are target records in native order:
    /// one copy of the whole record and nothing to swap.
    pub fn is_identity(&self) -> bool {
        let size = self.target_record_size();
        let whole = match self.runs.as_slice() {
            [] => size == 0,
            [r] => r.file == 0 && r.target == 0 && r.len == size,
            _ => false,
        };
        whole && self.file_size == size && self.swaps.swaps.is_empty()
    }

    /// Copies the target's fields of every record of `file_records` into
    /// the records of `target_records`, in native byte order. Target bytes
    /// outside its fields (padding) are left as they are: start from zeros.
    /// Bools and enums are not checked here: see [`check`](FieldMap::check).
    ///
    /// # Panics
    /// If the buffers are not whole records, or hold different counts.
    pub fn apply(&self, file_records: &[u8], target_records: &mut [u8]) {
        let (from, to) = (self.file_size, self.target_record_size());
        let n = match from {
            0 => target_records.len().checked_div(to).unwrap_or(0),
            _ => file_records.len() / from,
        };
        assert!(
            file_records.len() == n * from && target_records.len() == n * to,
            "{} bytes of {from}-byte records against {} bytes of {to}-byte records",
            file_records.len(),
            target_records.len()
        );
        if n == 0 || to == 0 {
            return;
        }
        match &self.copier {
            Copier::Shuffle(shuffle) => shuffle.apply(file_records, target_records),
            Copier::Fields(copies) => copy_fields(
                copies,
                Direction::Unpack,
                (file_records, from),
                (target_records, to),
                |b| b,
            ),
        }
        self.swaps.swap(target_records);
    }

    /// Checks the bools (0 or 1) and enums (a member's value) of every
    /// target record in `target_records` (native order, after
    /// [`apply`](FieldMap::apply)); the first bad value, its offset counted
    /// in the target record (see [`file_offset`](FieldMap::file_offset)).
    pub fn check(&self, target_records: &[u8]) -> Result<(), InvalidValue> {
        self.checks.validate(target_records).map_err(|bad| {
            let (field, message) = bad.explain(&self.target);
            InvalidValue {
                record: bad.record,
                field,
                offset: bad.offset,
                message,
            }
        })
    }

    /// Where byte `target_offset` of a target record comes from in the
    /// stored record; `None` for padding.
    ///
    /// ```
    /// use ndl_runtime::field_map::FieldMap;
    /// use ndl_runtime::{ByteOrder, Compound, Datatype, Member};
    ///
    /// let file = Datatype::Compound(Compound {
    ///     size: 3,
    ///     members: vec![Member::new("a", 0, Datatype::UInt8), Member::new("b", 1, Datatype::UInt16)],
    /// });
    /// let want = Datatype::Compound(Compound::c_layout([("b", Datatype::UInt16)])?);
    /// let map = FieldMap::new(&file, ByteOrder::Little, &want)?;
    /// assert_eq!(map.file_offset(1), Some(2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn file_offset(&self, target_offset: usize) -> Option<usize> {
        self.runs
            .iter()
            .find(|r| (r.target..r.target + r.len).contains(&target_offset))
            .map(|r| r.file + (target_offset - r.target))
    }
}

/// Adds the copies from `file` at `at_file` to `target` at `at_target`.
fn plan(
    file: &Datatype,
    target: &Datatype,
    path: &str,
    at_file: usize,
    at_target: usize,
    out: &mut Vec<CopyRun>,
) -> Result<(), FieldMapError> {
    match (file, target) {
        (Datatype::Compound(f), Datatype::Compound(t)) => {
            for tm in &t.members {
                let sub = join_field(path, &tm.name);
                let Some(fm) = f.member(&tm.name) else {
                    return Err(FieldMapError::MissingField {
                        field: sub,
                        available: f.members.iter().map(|m| m.name.clone()).collect(),
                    });
                };
                plan(
                    &fm.datatype,
                    &tm.datatype,
                    &sub,
                    at_file + fm.offset,
                    at_target + tm.offset,
                    out,
                )?;
            }
            Ok(())
        }
        (Datatype::Array(f), Datatype::Array(t)) if f.shape == t.shape => {
            if same_scalar(&f.base, &t.base) {
                let len = target.size().ok_or(FieldMapError::NotFixedSize)?;
                push_run(out, at_file, at_target, len);
                return Ok(());
            }
            let step_f = f.base.size().ok_or(FieldMapError::NotFixedSize)?;
            let step_t = t.base.size().ok_or(FieldMapError::NotFixedSize)?;
            let sub = format!("{path}[..]");
            for i in 0..t.element_count().ok_or(FieldMapError::NotFixedSize)? {
                plan(
                    &f.base,
                    &t.base,
                    &sub,
                    at_file + i * step_f,
                    at_target + i * step_t,
                    out,
                )?;
            }
            Ok(())
        }
        _ if same_scalar(file, target) => {
            let len = target.size().ok_or(FieldMapError::NotFixedSize)?;
            push_run(out, at_file, at_target, len);
            Ok(())
        }
        _ => Err(FieldMapError::FieldType {
            field: path.to_string(),
            file: describe(file),
            target: describe(target),
        }),
    }
}

/// Appends a copy, merged into the last one when both sides continue it.
fn push_run(out: &mut Vec<CopyRun>, file: usize, target: usize, len: usize) {
    if len == 0 {
        return;
    }
    match out.last_mut() {
        Some(last) if last.file + last.len == file && last.target + last.len == target => {
            last.len += len;
        }
        _ => out.push(CopyRun { file, target, len }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Compound, Enum, EnumMember, IntType, Member};

    fn rec(members: Vec<Member>, size: usize) -> Datatype {
        Datatype::Compound(Compound { size, members })
    }

    #[test]
    fn contiguous_fields_merge_into_one_copy() {
        let file = rec(
            vec![
                Member::new("x", 0, Datatype::UInt8),
                Member::new("a", 1, Datatype::UInt16),
                Member::new("b", 3, Datatype::UInt32),
            ],
            7,
        );
        let want = rec(
            vec![
                Member::new("a", 0, Datatype::UInt16),
                Member::new("b", 2, Datatype::UInt32),
            ],
            6,
        );
        let map = FieldMap::new(&file, ByteOrder::NATIVE, &want).unwrap();
        assert_eq!(
            map.runs(),
            [CopyRun {
                file: 1,
                target: 0,
                len: 6
            }]
        );
        assert!(!map.is_identity());
        let same = FieldMap::new(&want, ByteOrder::NATIVE, &want).unwrap();
        assert!(same.is_identity());
        assert!(
            !FieldMap::new(&want, ByteOrder::NATIVE.opposite(), &want)
                .unwrap()
                .is_identity()
        );
    }

    #[test]
    fn other_order_numbers_are_swapped_after_copying() {
        let file = rec(
            vec![
                Member::new("w", 0, Datatype::UInt32),
                Member::new("h", 4, Datatype::UInt16),
            ],
            6,
        );
        let want = rec(
            vec![
                Member::new("h", 0, Datatype::UInt16),
                Member::new("w", 4, Datatype::UInt32),
            ],
            8,
        );
        let map = FieldMap::new(&file, ByteOrder::Big, &want).unwrap();
        let mut out = [0u8; 16];
        map.apply(&[0, 0, 1, 2, 0, 3, 0, 0, 0, 9, 1, 0], &mut out);
        assert_eq!(out[..2], 3u16.to_ne_bytes());
        assert_eq!(out[4..8], 0x102u32.to_ne_bytes());
        assert_eq!(out[8..10], 256u16.to_ne_bytes());
        assert_eq!(out[12..16], 9u32.to_ne_bytes());
        assert_eq!(out[2..4], [0, 0]);
    }

    #[test]
    fn arrays_of_compounds_are_matched_element_by_element() {
        let inner_file = rec(
            vec![
                Member::new("junk", 0, Datatype::UInt8),
                Member::new("v", 1, Datatype::UInt8),
            ],
            2,
        );
        let inner_want = rec(vec![Member::new("v", 0, Datatype::UInt8)], 1);
        let file = rec(vec![Member::new("p", 0, inner_file.array_of(&[3]))], 6);
        let want = rec(
            vec![Member::new("p", 0, inner_want.clone().array_of(&[3]))],
            3,
        );
        let map = FieldMap::new(&file, ByteOrder::NATIVE, &want).unwrap();
        let mut out = [0u8; 3];
        map.apply(&[0, 1, 0, 2, 0, 3], &mut out);
        assert_eq!(out, [1, 2, 3]);
        let other = rec(vec![Member::new("p", 0, inner_want.array_of(&[2]))], 2);
        let e = FieldMap::new(&file, ByteOrder::NATIVE, &other).unwrap_err();
        assert!(
            matches!(e, FieldMapError::FieldType { ref field, .. } if field == "p"),
            "{e}"
        );
    }

    #[test]
    fn missing_fields_are_named_with_their_path() {
        let inner = |n: &str| rec(vec![Member::new(n, 0, Datatype::Int8)], 1);
        let e = FieldMap::new(
            &rec(vec![Member::new("pos", 0, inner("x"))], 1),
            ByteOrder::NATIVE,
            &rec(vec![Member::new("pos", 0, inner("y"))], 1),
        )
        .unwrap_err();
        assert_eq!(
            e,
            FieldMapError::MissingField {
                field: "pos.y".into(),
                available: vec!["x".into()]
            }
        );
        assert_eq!(
            e.to_string(),
            "field `pos.y` is missing in the file, which has fields [x]"
        );
    }

    #[test]
    fn enums_match_their_base_and_are_checked() {
        let kind = Datatype::Enum(Enum {
            base: IntType::UInt8,
            members: vec![EnumMember::new("a", 0), EnumMember::new("b", 1)],
        });
        let file = rec(
            vec![
                Member::new("ok", 0, Datatype::Bool),
                Member::new("kind", 1, Datatype::UInt8),
            ],
            2,
        );
        let want = rec(
            vec![
                Member::new("kind", 0, kind),
                Member::new("ok", 1, Datatype::Bool),
            ],
            2,
        );
        let map = FieldMap::new(&file, ByteOrder::NATIVE, &want).unwrap();
        let mut out = [0u8; 4];
        map.apply(&[1, 1, 0, 5], &mut out);
        let bad = map.check(&out).unwrap_err();
        assert_eq!((bad.record, bad.field.as_str(), bad.offset), (1, "kind", 0));
        assert_eq!(map.file_offset(bad.offset), Some(1));
        map.apply(&[1, 1, 2, 0], &mut out);
        let bad = map.check(&out).unwrap_err();
        assert_eq!((bad.record, bad.field.as_str()), (1, "ok"));
        assert!(
            FieldMap::new(
                &rec(vec![Member::new("kind", 0, Datatype::Int8)], 1),
                ByteOrder::NATIVE,
                &rec(vec![Member::new("kind", 0, want_kind())], 1),
            )
            .is_err()
        );
    }

    fn want_kind() -> Datatype {
        Datatype::Enum(Enum {
            base: IntType::UInt8,
            members: vec![EnumMember::new("a", 0)],
        })
    }

    #[test]
    fn empty_records_copy_nothing() {
        let empty = rec(vec![], 0);
        let map = FieldMap::new(&empty, ByteOrder::NATIVE, &empty).unwrap();
        map.apply(&[], &mut []);
        assert!(map.is_identity());
    }
}

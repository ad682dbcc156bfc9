//! The record plan: what the readers and writers do to each record's bytes,
//! worked out once per datatype so the per-record loops stay tight.
//!
//! From a [`Datatype`] and the file's [`ByteOrder`] it computes
//! - the byte spans covered by fields (merged, in order); the rest of the
//!   record is padding, which writers never read from memory;
//! - the multi-byte numbers to byte-swap when the file's order is not the
//!   machine's, as runs of equal-width numbers;
//! - the bytes that must hold a `bool` (0 or 1) and the enum fields whose
//!   value must be a member, for readers.
//!
//! Field paths for error messages (`pos.flags[3]`) are not stored: they are
//! rebuilt from the datatype and the byte offset by [`field_at`] only when
//! an error is reported.

mod build;
mod checks;
mod padding;

use std::ops::Range;

pub(crate) use build::merge_spans;
use build::{Builder, merge_swaps};
use checks::first_bad_enum;
pub(crate) use checks::{BadValue, EnumCheck};
pub(crate) use padding::{CopyOp, zero_padding};
use padding::{copy_ops, gaps};

use crate::ByteOrder;
use crate::Datatype;

/// What to do to every record of one datatype.
#[derive(Clone, Debug)]
pub(crate) struct RecordPlan {
    /// Record size in bytes.
    pub itemsize: usize,
    /// Byte ranges covered by fields, merged and sorted.
    pub field_spans: Vec<Range<usize>>,
    /// The padding (the bytes between and after field spans) as store
    /// operations: short spans split into power-of-two pieces, so zeroing
    /// a record's padding is a few plain stores.
    pub padding: Vec<CopyOp>,
    /// Runs of numbers to byte-swap, empty when the order is native.
    pub swaps: Vec<SwapRun>,
    /// Runs of bytes that must be 0 or 1.
    pub bools: Vec<Range<usize>>,
    /// Enum fields whose value must be a member.
    pub enums: Vec<EnumCheck>,
}

/// `count` numbers of `width` bytes each, back to back from `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SwapRun {
    pub offset: usize,
    pub width: usize,
    pub count: usize,
}

impl RecordPlan {
    /// The plan for records of `dt` stored in `order`. `None` when the
    /// datatype has no fixed size (variable-length members, references).
    pub fn new(dt: &Datatype, order: ByteOrder) -> Option<RecordPlan> {
        RecordPlan::with_orders(dt, &|_| order)
    }

    /// The plan for records of `dt` whose number at byte offset `at` is
    /// stored in `orders(at)`: NumPy lets each field have its own order.
    pub fn with_orders(dt: &Datatype, orders: &dyn Fn(usize) -> ByteOrder) -> Option<RecordPlan> {
        let mut b = Builder {
            orders,
            spans: Vec::new(),
            swaps: Vec::new(),
            bools: Vec::new(),
            enums: Vec::new(),
        };
        b.visit(dt, 0)?;
        let field_spans = merge_spans(b.spans);
        let itemsize = dt.size()?;
        Some(RecordPlan {
            itemsize,
            padding: copy_ops(&gaps(&field_spans, itemsize)),
            field_spans,
            swaps: merge_swaps(b.swaps),
            bools: merge_spans(b.bools),
            enums: b.enums,
        })
    }

    /// Whether fields cover every byte: the record has no padding.
    pub fn is_dense(&self) -> bool {
        match self.field_spans.as_slice() {
            [] => self.itemsize == 0,
            [only] => *only == (0..self.itemsize),
            _ => false,
        }
    }

    /// Whether readers must check values (bools or enums present).
    pub fn has_checks(&self) -> bool {
        !self.bools.is_empty() || !self.enums.is_empty()
    }

    /// Byte-swaps every number of every record in `bytes` (whole records).
    pub fn swap(&self, bytes: &mut [u8]) {
        if self.swaps.is_empty() || self.itemsize == 0 {
            return;
        }
        // A record made of one run of equal numbers (all f64, a plain u32
        // array...) is one long run over the whole buffer.
        if let [run] = self.swaps.as_slice()
            && run.offset == 0
            && run.width * run.count == self.itemsize
        {
            swap_run(bytes, run.width);
            return;
        }
        // One pass per run over all records: each pass is a tight loop,
        // and callers pass chunks small enough to stay in cache.
        for run in &self.swaps {
            let (at, end) = (run.offset, run.offset + run.width * run.count);
            let records = bytes.chunks_exact_mut(self.itemsize);
            match (run.width, run.count) {
                (2, 1) => records.for_each(|r| swap_one::<2>(r, at)),
                (4, 1) => records.for_each(|r| swap_one::<4>(r, at)),
                (8, 1) => records.for_each(|r| swap_one::<8>(r, at)),
                (w, _) => records.for_each(|r| swap_run(&mut r[at..end], w)),
            }
        }
    }

    /// Checks the bools and enums of every record in `bytes` (whole
    /// records, native byte order); the first bad value in file order.
    pub fn validate(&self, bytes: &[u8]) -> Result<(), BadValue> {
        if !self.has_checks() || self.itemsize == 0 {
            return Ok(());
        }
        // One pass per check over the records (tight loops); a later check
        // only needs to look at records before the first bad one so far.
        let mut first: Option<BadValue> = None;
        let mut keep = |bad: BadValue| {
            let earlier = match &first {
                Some(f) => (bad.record, bad.offset) < (f.record, f.offset),
                None => true,
            };
            if earlier {
                first = Some(bad);
            }
        };
        for span in &self.bools {
            // Quick test first: OR all bool bytes together (vectorised); only
            // a byte above 1 makes the result above 1.
            let or = if *span == (0..self.itemsize) {
                or_bytes(bytes)
            } else {
                bytes
                    .chunks_exact(self.itemsize)
                    .fold(0, |acc, r| acc | or_bytes(&r[span.clone()]))
            };
            if or <= 1 {
                continue;
            }
            let found = bytes
                .chunks_exact(self.itemsize)
                .position(|r| r[span.clone()].iter().any(|&b| b > 1));
            if let Some(record) = found {
                let r = &bytes[record * self.itemsize..][span.clone()];
                let i = r.iter().position(|&b| b > 1).unwrap_or(0);
                keep(BadValue {
                    record,
                    offset: span.start + i,
                    value: i128::from(r[i]),
                    is_bool: true,
                });
            }
        }
        for e in &self.enums {
            if let Some((record, offset, value)) = first_bad_enum(bytes, self.itemsize, e) {
                keep(BadValue {
                    record,
                    offset,
                    value,
                    is_bool: false,
                });
            }
        }
        first.map_or(Ok(()), Err)
    }
}

/// All bytes ORed together.
fn or_bytes(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0, |acc, &b| acc | b)
}

/// Reverses the `N` bytes at `at`.
#[inline(always)]
fn swap_one<const N: usize>(record: &mut [u8], at: usize) {
    let b: &mut [u8; N] = (&mut record[at..at + N]).try_into().expect("N bytes");
    b.reverse();
}

/// Reverses the bytes of each `width`-byte number in `bytes`.
fn swap_run(bytes: &mut [u8], width: usize) {
    // Fixed widths let the compiler turn each loop into vector shuffles.
    match width {
        2 => bytes.chunks_exact_mut(2).for_each(|c| c.swap(0, 1)),
        4 => bytes.chunks_exact_mut(4).for_each(|c| {
            let v = u32::from_ne_bytes([c[0], c[1], c[2], c[3]]).swap_bytes();
            c.copy_from_slice(&v.to_ne_bytes());
        }),
        8 => bytes.chunks_exact_mut(8).for_each(|c| {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            c.copy_from_slice(&u64::from_ne_bytes(a).swap_bytes().to_ne_bytes());
        }),
        w => bytes.chunks_exact_mut(w).for_each(|c| c.reverse()),
    }
}

#[cfg(test)]
mod tests {
    use super::checks::{EnumValues, field_path};
    use super::*;
    use crate::{Compound, Enum, EnumMember, IntType, Member};

    fn color() -> Datatype {
        Datatype::Enum(Enum {
            base: IntType::Int16,
            members: vec![EnumMember::new("red", -1), EnumMember::new("blue", 7)],
        })
    }

    /// `{ a: u8, (pad 1), c: enum i16, pos: { flags: [bool; 4], x: f64 } }`, 24 bytes.
    fn sample() -> Datatype {
        let pos = Compound {
            size: 16,
            members: vec![
                Member::new("flags", 0, Datatype::Bool.array_of(&[4])),
                Member::new("x", 8, Datatype::Float64),
            ],
        };
        Datatype::Compound(Compound {
            size: 24,
            members: vec![
                Member::new("a", 0, Datatype::UInt8),
                Member::new("c", 2, color()),
                Member::new("pos", 8, Datatype::Compound(pos)),
            ],
        })
    }

    #[test]
    fn spans_and_padding() {
        let l = RecordPlan::new(&sample(), ByteOrder::NATIVE).unwrap();
        assert_eq!(l.itemsize, 24);
        assert_eq!(l.field_spans, vec![0..1, 2..4, 8..12, 16..24]);
        assert!(!l.is_dense());
        assert!(l.swaps.is_empty());
        assert_eq!(l.bools, vec![8..12]);
        assert_eq!(l.enums.len(), 1);
        assert_eq!(l.enums[0].values, EnumValues::Sorted(vec![-1, 7]));
    }

    #[test]
    fn swaps_in_the_other_order() {
        let l = RecordPlan::new(&sample(), ByteOrder::NATIVE.opposite()).unwrap();
        assert_eq!(
            l.swaps,
            vec![
                SwapRun {
                    offset: 2,
                    width: 2,
                    count: 1
                },
                SwapRun {
                    offset: 16,
                    width: 8,
                    count: 1
                }
            ]
        );
        let c = Datatype::Complex64.array_of(&[3]);
        let l = RecordPlan::new(&c, ByteOrder::NATIVE.opposite()).unwrap();
        assert_eq!(
            l.swaps,
            vec![SwapRun {
                offset: 0,
                width: 4,
                count: 6
            }]
        );
        let mut b: Vec<u8> = (0..24).collect();
        l.swap(&mut b);
        assert_eq!(&b[..8], &[3, 2, 1, 0, 7, 6, 5, 4]);
    }

    #[test]
    fn each_number_is_swapped_by_its_own_order() {
        let other = ByteOrder::NATIVE.opposite();
        let orders = |at: usize| if at == 16 { other } else { ByteOrder::NATIVE };
        let l = RecordPlan::with_orders(&sample(), &orders).unwrap();
        let only = SwapRun {
            offset: 16,
            width: 8,
            count: 1,
        };
        assert_eq!(l.swaps, [only]);
    }

    #[test]
    fn an_array_of_enums_is_one_check() {
        let dt = color().array_of(&[1000, 3]);
        let l = RecordPlan::new(&dt, ByteOrder::NATIVE).unwrap();
        assert_eq!(l.enums.len(), 1);
        assert_eq!(l.enums[0].count, 3000);
        let mut records = Vec::new();
        for _ in 0..2 {
            for _ in 0..3000 {
                records.extend_from_slice(&7i16.to_ne_bytes());
            }
        }
        assert_eq!(l.validate(&records), Ok(()));
        // Record 1, element [2][1]: 6000 bytes in, the 7th value.
        let at = 6000 + 2 * (2 * 3 + 1);
        records[at..at + 2].copy_from_slice(&3i16.to_ne_bytes());
        let bad = l.validate(&records).unwrap_err();
        assert_eq!((bad.record, bad.offset, bad.value), (1, 14, 3));
    }

    #[test]
    fn dense_types() {
        for dt in [
            Datatype::Float64,
            Datatype::UInt8.array_of(&[0]),
            Compound::c_layout([("a", Datatype::UInt32), ("b", Datatype::Float32)])
                .map(Datatype::Compound)
                .unwrap(),
        ] {
            assert!(
                RecordPlan::new(&dt, ByteOrder::NATIVE).unwrap().is_dense(),
                "{dt:?}"
            );
        }
        assert!(RecordPlan::new(&Datatype::String, ByteOrder::NATIVE).is_none());
    }

    #[test]
    fn validation_finds_bad_values() {
        let l = RecordPlan::new(&sample(), ByteOrder::NATIVE).unwrap();
        let mut rec = vec![0u8; 48];
        rec[2..4].copy_from_slice(&7i16.to_ne_bytes());
        rec[26..28].copy_from_slice(&(-1i16).to_ne_bytes());
        assert_eq!(l.validate(&rec), Ok(()));
        rec[24 + 11] = 2;
        let bad = l.validate(&rec).unwrap_err();
        assert_eq!(
            (bad.record, bad.offset, bad.value, bad.is_bool),
            (1, 11, 2, true)
        );
        assert_eq!(field_path(&sample(), bad.offset), "pos.flags[3]");
        rec[24 + 11] = 1;
        rec[2..4].copy_from_slice(&3i16.to_ne_bytes());
        let bad = l.validate(&rec).unwrap_err();
        assert_eq!(
            (bad.record, bad.offset, bad.value, bad.is_bool),
            (0, 2, 3, false)
        );
        assert_eq!(field_path(&sample(), 3), "c");
    }

    #[test]
    fn the_first_bad_value_in_file_order_is_reported() {
        let l = RecordPlan::new(&sample(), ByteOrder::NATIVE).unwrap();
        let mut rec = vec![0u8; 72];
        for r in 0..3 {
            rec[r * 24 + 2..r * 24 + 4].copy_from_slice(&7i16.to_ne_bytes());
        }
        rec[24 + 9] = 5; // record 1: a bad bool
        rec[48 + 2] = 0; // record 2: a bad enum
        rec[48 + 3] = 0;
        assert_eq!(l.validate(&rec).unwrap_err().record, 1);
        rec[2] = 9; // record 0: a bad enum, checked after the bools
        let bad = l.validate(&rec).unwrap_err();
        assert_eq!((bad.record, bad.offset, bad.is_bool), (0, 2, false));
    }

    #[test]
    fn paths_of_multi_dimensional_arrays() {
        let dt = Datatype::Compound(Compound {
            size: 24,
            members: vec![Member::new("m", 0, Datatype::UInt16.array_of(&[3, 4]))],
        });
        assert_eq!(field_path(&dt, 2 * 7 + 1), "m[1][3]");
        assert_eq!(field_path(&Datatype::Bool, 0), "");
    }

    #[test]
    fn padding_is_the_gaps_between_fields() {
        assert_eq!(gaps(&[0..4, 8..20], 24), [4..8, 20..24]);
        assert_eq!(gaps(&[2..4, 5..6], 6), vec![0..2, 4..5]);
        assert!(gaps(&[0..2, 2..4], 4).is_empty());
        assert_eq!(gaps(&[], 3).len(), 1);
    }

    #[test]
    fn copies_split_short_spans() {
        let ops = copy_ops(&[0..1, 2..13, 16..100]);
        let fixed = |offset, len| CopyOp::Fixed { offset, len };
        assert_eq!(
            ops,
            vec![
                fixed(0, 1),
                fixed(2, 8),
                fixed(10, 2),
                fixed(12, 1),
                CopyOp::Span(16..100)
            ]
        );
    }

    #[test]
    fn enum_ranges() {
        assert_eq!(EnumValues::new(vec![2, 0, 1]), EnumValues::Range(0, 2));
        assert!(EnumValues::new(vec![5, 1]).contains(5));
        assert!(!EnumValues::new(vec![5, 1]).contains(3));
    }
}

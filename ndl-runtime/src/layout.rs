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

use std::ops::Range;

use crate::ByteOrder;
use crate::{Charset, Datatype, IntType};

/// What to do to every record of one datatype.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
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

/// One span of bytes in every record (a piece of padding, for writers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CopyOp {
    /// `N` bytes at an offset, `N` in 1, 2, 4, 8, 16.
    Fixed { offset: usize, len: usize },
    /// A longer span, handled with `memset`/`memcpy`.
    Span(Range<usize>),
}

/// Spans up to this length become fixed-size operations.
const MAX_FIXED: usize = 32;

/// The bytes of `0..itemsize` outside the merged, sorted `spans`.
fn gaps(spans: &[Range<usize>], itemsize: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut at = 0;
    for span in spans {
        if span.start > at {
            out.push(at..span.start);
        }
        at = at.max(span.end);
    }
    if itemsize > at {
        out.push(at..itemsize);
    }
    out
}

/// The operations for merged `spans`.
fn copy_ops(spans: &[Range<usize>]) -> Vec<CopyOp> {
    let mut ops = Vec::new();
    for span in spans {
        if span.len() > MAX_FIXED {
            ops.push(CopyOp::Span(span.clone()));
            continue;
        }
        let mut at = span.start;
        while at < span.end {
            let len = [16, 8, 4, 2, 1]
                .into_iter()
                .find(|&w| w <= span.end - at)
                .unwrap_or(1);
            ops.push(CopyOp::Fixed { offset: at, len });
            at += len;
        }
    }
    ops
}

/// Enum values to check: `count` values back to back from `offset` in the
/// record (an array of enums is one check, not one per element), their
/// base and members.
#[derive(Clone, Debug)]
pub(crate) struct EnumCheck {
    pub offset: usize,
    pub count: usize,
    pub base: IntType,
    pub values: EnumValues,
}

/// The allowed values of an enum, in the form that is quickest to test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum EnumValues {
    /// Every value from `lo` to `hi` inclusive (the common `0..n` case).
    Range(i128, i128),
    /// Sorted, for a binary search.
    Sorted(Vec<i128>),
}

/// A value that is not valid for its field, found by [`Layout::validate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BadValue {
    /// Index of the record within the checked bytes.
    pub record: usize,
    /// Byte offset within the record.
    pub offset: usize,
    /// The value found (the byte for a bool, the integer for an enum).
    pub value: i128,
    /// Whether the field is a bool (else an enum).
    pub is_bool: bool,
}

impl BadValue {
    /// The dotted path of the field holding the value in a record of `dt`
    /// (the datatype the plan was built from), and what is wrong with it.
    pub fn explain(&self, dt: &Datatype) -> (String, String) {
        let (field, leaf) = field_at(dt, self.offset);
        if self.is_bool {
            return (
                field,
                format!("bool byte is {}, expected 0 or 1", self.value),
            );
        }
        let members = match leaf {
            Datatype::Enum(e) => e
                .members
                .iter()
                .map(|m| format!("{} = {}", m.name, m.value))
                .collect::<Vec<_>>()
                .join(", "),
            _ => String::new(),
        };
        let message = format!("{} is not a value of the enum ({members})", self.value);
        (field, message)
    }
}

impl EnumValues {
    fn new(mut values: Vec<i128>) -> EnumValues {
        values.sort_unstable();
        values.dedup();
        match (values.first(), values.last()) {
            (Some(&lo), Some(&hi)) if hi - lo + 1 == values.len() as i128 => {
                EnumValues::Range(lo, hi)
            }
            _ => EnumValues::Sorted(values),
        }
    }

    fn contains(&self, v: i128) -> bool {
        match self {
            EnumValues::Range(lo, hi) => (*lo..=*hi).contains(&v),
            EnumValues::Sorted(values) => values.binary_search(&v).is_ok(),
        }
    }
}

impl Layout {
    /// The plan for records of `dt` stored in `order`. `None` when the
    /// datatype has no fixed size (variable-length members, references).
    pub fn new(dt: &Datatype, order: ByteOrder) -> Option<Layout> {
        Layout::with_orders(dt, &|_| order)
    }

    /// The plan for records of `dt` whose number at byte offset `at` is
    /// stored in `orders(at)`: NumPy lets each field have its own order.
    pub fn with_orders(dt: &Datatype, orders: &dyn Fn(usize) -> ByteOrder) -> Option<Layout> {
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
        Some(Layout {
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
        if let [run] = self.swaps.as_slice() {
            if run.offset == 0 && run.width * run.count == self.itemsize {
                swap_run(bytes, run.width);
                return;
            }
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

/// The first record (index, offset in the record, value) holding a value
/// of `e` that is not a member.
fn first_bad_enum(bytes: &[u8], itemsize: usize, e: &EnumCheck) -> Option<(usize, usize, i128)> {
    // One loop per base type, so the loop body has no dispatch.
    macro_rules! scan {
        ($t:ty) => {{
            const W: usize = std::mem::size_of::<$t>();
            let run = e.offset..e.offset + e.count * W;
            bytes.chunks_exact(itemsize).enumerate().find_map(|(i, r)| {
                r[run.clone()]
                    .chunks_exact(W)
                    .enumerate()
                    .find_map(|(j, c)| {
                        let b: [u8; W] = c.try_into().expect("W bytes");
                        let v = i128::from(<$t>::from_ne_bytes(b));
                        (!e.values.contains(v)).then_some((i, e.offset + j * W, v))
                    })
            })
        }};
    }
    match e.base {
        IntType::Int8 => scan!(i8),
        IntType::UInt8 => scan!(u8),
        IntType::Int16 => scan!(i16),
        IntType::UInt16 => scan!(u16),
        IntType::Int32 => scan!(i32),
        IntType::UInt32 => scan!(u32),
        IntType::Int64 => scan!(i64),
        IntType::UInt64 => scan!(u64),
    }
}

/// Collects leaves while walking a datatype.
struct Builder<'a> {
    /// The byte order of the number at each offset.
    orders: &'a dyn Fn(usize) -> ByteOrder,
    spans: Vec<Range<usize>>,
    swaps: Vec<SwapRun>,
    bools: Vec<Range<usize>>,
    enums: Vec<EnumCheck>,
}

impl Builder<'_> {
    /// Adds the leaves of `dt` placed at `at`.
    fn visit(&mut self, dt: &Datatype, at: usize) -> Option<()> {
        let size = dt.size()?;
        match dt {
            Datatype::Compound(c) => {
                for m in &c.members {
                    self.visit(&m.datatype, at + m.offset)?;
                }
                return Some(());
            }
            Datatype::Array(a) => {
                let n = a.element_count()?;
                let step = a.base.size()?;
                if let Some(plan) = self.leaf_plan(&a.base, at) {
                    // A scalar base: one run for the whole array, no loop.
                    self.add_leaf(plan, at, n, size);
                } else {
                    for i in 0..n {
                        self.visit(&a.base, at + i * step)?;
                    }
                }
                return Some(());
            }
            _ => {}
        }
        let plan = self.leaf_plan(dt, at)?;
        self.add_leaf(plan, at, 1, size);
        Some(())
    }

    /// How a scalar datatype at byte `at` is handled, `None` for compounds
    /// and arrays.
    fn leaf_plan(&self, dt: &Datatype, at: usize) -> Option<Leaf> {
        let swap = (self.orders)(at) != ByteOrder::NATIVE;
        let swap_width = |w: usize| if swap && w > 1 { w } else { 0 };
        Some(match dt {
            Datatype::Compound(_) | Datatype::Array(_) => return None,
            Datatype::Bool => Leaf::Bool,
            Datatype::Enum(e) => Leaf::Enum {
                base: e.base,
                values: EnumValues::new(e.members.iter().map(|m| m.value).collect()),
                swap: swap_width(e.base.size()),
            },
            Datatype::Complex64 => Leaf::Plain {
                swap: swap_width(4),
            },
            Datatype::Complex128 => Leaf::Plain {
                swap: swap_width(8),
            },
            Datatype::FixedString(s) if s.charset == Charset::Utf32 => Leaf::Plain {
                swap: swap_width(4),
            },
            Datatype::FixedString(_) | Datatype::Opaque(_) => Leaf::Plain { swap: 0 },
            other => Leaf::Plain {
                swap: swap_width(other.size()?),
            },
        })
    }

    /// Adds `n` leaves of one plan back to back at `at`, `size` bytes in all.
    fn add_leaf(&mut self, leaf: Leaf, at: usize, n: usize, size: usize) {
        self.spans.push(at..at + size);
        match leaf {
            Leaf::Bool => self.bools.push(at..at + size),
            Leaf::Enum { base, values, swap } => {
                self.enums.push(EnumCheck {
                    offset: at,
                    count: n,
                    base,
                    values,
                });
                self.push_swap(at, swap, size);
            }
            Leaf::Plain { swap } => self.push_swap(at, swap, size),
        }
    }

    fn push_swap(&mut self, at: usize, width: usize, size: usize) {
        if width > 1 && size > 0 {
            self.swaps.push(SwapRun {
                offset: at,
                width,
                count: size / width,
            });
        }
    }
}

/// The treatment of one scalar datatype.
enum Leaf {
    Bool,
    Enum {
        base: IntType,
        values: EnumValues,
        swap: usize,
    },
    /// Numbers or bytes; `swap` is the width to swap, 0 for none.
    Plain {
        swap: usize,
    },
}

/// Sorts and merges touching or overlapping ranges, dropping empty ones.
fn merge_spans(mut spans: Vec<Range<usize>>) -> Vec<Range<usize>> {
    spans.retain(|r| !r.is_empty());
    spans.sort_by_key(|r| r.start);
    let mut out: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for r in spans {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// Sorts swap runs and joins adjacent runs of the same width.
fn merge_swaps(mut runs: Vec<SwapRun>) -> Vec<SwapRun> {
    runs.sort_by_key(|r| r.offset);
    let mut out: Vec<SwapRun> = Vec::with_capacity(runs.len());
    for r in runs {
        match out.last_mut() {
            Some(last)
                if last.width == r.width && last.offset + last.width * last.count == r.offset =>
            {
                last.count += r.count;
            }
            _ => out.push(r),
        }
    }
    out
}

/// The dotted path of the field holding byte `offset` of a `dt` value, e.g.
/// `pos.flags[3]` (empty when `dt` itself is the scalar), and the scalar
/// datatype found there.
pub(crate) fn field_at(dt: &Datatype, offset: usize) -> (String, &Datatype) {
    let mut path = String::new();
    let mut dt = dt;
    let mut offset = offset;
    loop {
        match dt {
            Datatype::Compound(c) => {
                let Some(m) = c.members.iter().find(|m| {
                    m.datatype
                        .size()
                        .is_some_and(|s| (m.offset..m.offset + s.max(1)).contains(&offset))
                }) else {
                    return (path, dt);
                };
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&m.name);
                offset -= m.offset;
                dt = &m.datatype;
            }
            Datatype::Array(a) => {
                let Some(step) = a.base.size().filter(|&s| s > 0) else {
                    return (path, dt);
                };
                let mut flat = offset / step;
                let mut index = vec![0; a.shape.len()];
                for (i, &d) in a.shape.iter().enumerate().rev() {
                    index[i] = flat % d.max(1);
                    flat /= d.max(1);
                }
                for i in index {
                    path.push_str(&format!("[{i}]"));
                }
                offset %= step;
                dt = &a.base;
            }
            _ => return (path, dt),
        }
    }
}

/// The dotted path of the field holding byte `offset`; see [`field_at`].
#[cfg(test)]
fn field_path(dt: &Datatype, offset: usize) -> String {
    field_at(dt, offset).0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Compound, Enum, EnumMember, Member};

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
        let l = Layout::new(&sample(), ByteOrder::NATIVE).unwrap();
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
        let l = Layout::new(&sample(), ByteOrder::NATIVE.opposite()).unwrap();
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
        let l = Layout::new(&c, ByteOrder::NATIVE.opposite()).unwrap();
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
    fn an_array_of_enums_is_one_check() {
        let dt = color().array_of(&[1000, 3]);
        let l = Layout::new(&dt, ByteOrder::NATIVE).unwrap();
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
                Layout::new(&dt, ByteOrder::NATIVE).unwrap().is_dense(),
                "{dt:?}"
            );
        }
        assert!(Layout::new(&Datatype::String, ByteOrder::NATIVE).is_none());
    }

    #[test]
    fn validation_finds_bad_values() {
        let l = Layout::new(&sample(), ByteOrder::NATIVE).unwrap();
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
        let l = Layout::new(&sample(), ByteOrder::NATIVE).unwrap();
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

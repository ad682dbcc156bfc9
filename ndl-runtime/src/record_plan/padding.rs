//! The padding of a record as a few stores: what writers zero.

use std::mem::MaybeUninit;
use std::ops::Range;

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
pub(super) fn gaps(spans: &[Range<usize>], itemsize: usize) -> Vec<Range<usize>> {
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
pub(super) fn copy_ops(spans: &[Range<usize>]) -> Vec<CopyOp> {
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

/// Writes zeros over the `padding` of each record of `size` bytes in
/// `buf` (whole records).
///
/// One pass over the buffer per padding piece: each pass is a tight loop
/// of one constant-size store per record, and the chunk stays in cache.
pub(crate) fn zero_padding(padding: &[CopyOp], size: usize, buf: &mut [MaybeUninit<u8>]) {
    // The common case, two short gaps (after a field, at the end): one
    // pass with two stores per record (measured 29.6 against 22.3 GB/s for
    // two passes on 24-byte records in cache, 14.5 against 10-12 from RAM).
    if let [
        CopyOp::Fixed { offset: a, len: la },
        CopyOp::Fixed { offset: b, len: lb },
    ] = padding[..]
    {
        macro_rules! two {
            ($($x:literal),*) => {
                match (la, lb) {
                    $((4, $x) => buf.chunks_exact_mut(size).for_each(|r| {
                        zero_n::<4>(r, a);
                        zero_n::<$x>(r, b);
                    }),)*
                    $((8, $x) => buf.chunks_exact_mut(size).for_each(|r| {
                        zero_n::<8>(r, a);
                        zero_n::<$x>(r, b);
                    }),)*
                    $((1, $x) => buf.chunks_exact_mut(size).for_each(|r| {
                        zero_n::<1>(r, a);
                        zero_n::<$x>(r, b);
                    }),)*
                    _ => zero_padding_passes(padding, size, buf),
                }
            };
        }
        return two!(1, 2, 4, 8);
    }
    zero_padding_passes(padding, size, buf)
}

/// [`zero_padding`] with one pass per padding piece.
fn zero_padding_passes(padding: &[CopyOp], size: usize, buf: &mut [MaybeUninit<u8>]) {
    for op in padding {
        let records = buf.chunks_exact_mut(size);
        match *op {
            CopyOp::Fixed { offset, len } => match len {
                1 => records.for_each(|r| r[offset] = MaybeUninit::new(0)),
                2 => records.for_each(|r| zero_n::<2>(r, offset)),
                4 => records.for_each(|r| zero_n::<4>(r, offset)),
                8 => records.for_each(|r| zero_n::<8>(r, offset)),
                _ => records.for_each(|r| zero_n::<16>(r, offset)),
            },
            CopyOp::Span(ref s) => records.for_each(|r| r[s.clone()].fill(MaybeUninit::new(0))),
        }
    }
}

/// Writes `N` zero bytes at `offset`.
#[inline(always)]
fn zero_n<const N: usize>(r: &mut [MaybeUninit<u8>], offset: usize) {
    let to: &mut [MaybeUninit<u8>; N] = (&mut r[offset..offset + N]).try_into().expect("N bytes");
    *to = [MaybeUninit::new(0); N];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record_plan::RecordPlan;
    use crate::{ByteOrder, Compound, Datatype};

    #[test]
    fn padding_is_zeroed_on_every_path() {
        // Records of `size` bytes with u8 fields at `fields`: the rest is
        // padding. Two short gaps take the one-pass path, others passes.
        let cases: [(usize, &[usize]); 6] = [
            (
                24,
                &[0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
            ),
            (16, &[0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15]),
            (12, &[0, 1, 2, 3, 8, 9]),
            (16, &[0]),
            (40, &[0, 39]),
            (8, &[1, 2, 3, 4, 5, 6]),
        ];
        for (size, fields) in cases {
            let members = fields
                .iter()
                .map(|&o| crate::Member::new(format!("f{o}"), o, Datatype::UInt8))
                .collect();
            let dt = Datatype::Compound(Compound { size, members });
            let layout = RecordPlan::new(&dt, ByteOrder::NATIVE).unwrap();
            let mut buf = vec![MaybeUninit::new(0xffu8); size * 5];
            zero_padding(&layout.padding, layout.itemsize, &mut buf);
            for (i, b) in buf.iter().enumerate() {
                // SAFETY: every byte was initialised above.
                let b = unsafe { b.assume_init() };
                let field = fields.contains(&(i % size));
                assert_eq!(b, if field { 0xff } else { 0 }, "size {size}, byte {i}");
            }
        }
    }
}

//! The padding of a record as a few stores: what writers zero.

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

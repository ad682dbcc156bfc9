//! Walking a datatype once to collect its plan's spans, swaps and checks.

use std::ops::Range;

use super::SwapRun;
use super::checks::{EnumCheck, EnumValues};
use crate::{ByteOrder, Charset, Datatype, IntType};

/// Collects leaves while walking a datatype.
pub(super) struct Builder<'a> {
    /// The byte order of the number at each offset.
    pub(super) orders: &'a dyn Fn(usize) -> ByteOrder,
    pub(super) spans: Vec<Range<usize>>,
    pub(super) swaps: Vec<SwapRun>,
    pub(super) bools: Vec<Range<usize>>,
    pub(super) enums: Vec<EnumCheck>,
}

impl Builder<'_> {
    /// Adds the leaves of `dt` placed at `at`.
    pub(super) fn visit(&mut self, dt: &Datatype, at: usize) -> Option<()> {
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
pub(crate) fn merge_spans(mut spans: Vec<Range<usize>>) -> Vec<Range<usize>> {
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
pub(super) fn merge_swaps(mut runs: Vec<SwapRun>) -> Vec<SwapRun> {
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

//! Where each value of a record lies: a datatype unfolded into leaves, one
//! per Arrow array of plain values, each knowing the byte ranges of a
//! record its values fill.
//!
//! Gathering and scattering walk the datatype in the same order as
//! [`Plan::new`] does, taking the leaves one after another.

use std::ops::Range;

use arrow_schema::DataType;
use ndl_runtime::{Datatype, Enum, FixedString, TimeType};

use crate::schema::{self, COMPLEX_PARTS};

/// The leaves of records of one datatype.
#[derive(Debug)]
pub(crate) struct Plan<'a> {
    /// The record size.
    pub record: usize,
    /// The leaves, in the order of a depth-first walk of the datatype.
    pub leaves: Vec<Leaf<'a>>,
}

/// The values of one plain Arrow array: every record holds `per_record`
/// of them, each `width` bytes, in `runs`.
#[derive(Debug)]
pub(crate) struct Leaf<'a> {
    pub kind: Kind<'a>,
    /// The bytes of one value.
    pub width: usize,
    /// The values in one record.
    pub per_record: usize,
    /// Byte ranges of a record holding whole values back to back, in the
    /// order of the Arrow array's values; neighbours are merged.
    pub runs: Vec<Range<usize>>,
    path: Vec<Step>,
}

/// What a leaf's values are.
#[derive(Debug)]
pub(crate) enum Kind<'a> {
    /// A number the Arrow primitive holds as it is (a complex number's
    /// part too).
    Number(DataType),
    /// One byte, 0 or 1.
    Bool,
    Enum(&'a Enum),
    Text(FixedString),
    Opaque,
    /// An `i64` count of a time unit, `i64::MIN` being NaT (a null).
    Time(TimeType),
}

impl Kind<'_> {
    /// The width of the numbers whose bytes a change of byte order
    /// reverses; 1 when there is nothing to reverse.
    pub fn swap_unit(&self, width: usize) -> usize {
        match self {
            Kind::Number(_) | Kind::Time(_) => width,
            Kind::Enum(e) => e.base.size(),
            Kind::Text(s) => s.charset.width(),
            Kind::Bool | Kind::Opaque => 1,
        }
    }
}

/// One step of the path from a record to a leaf.
#[derive(Debug, Clone)]
enum Step {
    Name(String),
    /// Into an array of this shape.
    Index(Vec<usize>),
}

impl<'a> Plan<'a> {
    /// The leaves of `dt`; `None` when a part of it has no Arrow form
    /// (which [`schema::data_type_of`] reports first).
    pub fn new(dt: &'a Datatype) -> Option<Plan<'a>> {
        let record = dt.size()?;
        let mut leaves = Vec::new();
        let mut path = Vec::new();
        for (name, member_dt, member) in schema::columns(dt) {
            let offset = member.map_or(0, |m| m.offset);
            path.push(Step::Name(name.to_owned()));
            walk(member_dt, &[(offset, 1)], &mut path, &mut leaves)?;
            path.pop();
        }
        Some(Plan { record, leaves })
    }
}

/// Appends the leaves of values of `dt` at `at`: `(start, count)` pairs,
/// `count` values back to back from byte `start` of a record.
fn walk<'a>(
    dt: &'a Datatype,
    at: &[(usize, usize)],
    path: &mut Vec<Step>,
    leaves: &mut Vec<Leaf<'a>>,
) -> Option<()> {
    let size = dt.size()?;
    let kind = match dt {
        Datatype::Compound(c) => {
            for m in &c.members {
                let member_at = within(at, size, m.offset, m.datatype.size()?);
                path.push(Step::Name(m.name.clone()));
                walk(&m.datatype, &member_at, path, leaves)?;
                path.pop();
            }
            return Some(());
        }
        Datatype::Array(a) => {
            let count = a.element_count()?;
            let base_at: Vec<_> = at.iter().map(|&(s, k)| (s, k * count)).collect();
            path.push(Step::Index(a.shape.clone()));
            walk(&a.base, &base_at, path, leaves)?;
            path.pop();
            return Some(());
        }
        Datatype::Complex64 | Datatype::Complex128 => {
            let (half, part) = match dt {
                Datatype::Complex64 => (4, DataType::Float32),
                _ => (8, DataType::Float64),
            };
            for (i, name) in COMPLEX_PARTS.iter().enumerate() {
                path.push(Step::Name((*name).to_owned()));
                push_leaf(
                    Kind::Number(part.clone()),
                    half,
                    &within(at, size, i * half, half),
                    path,
                    leaves,
                );
                path.pop();
            }
            return Some(());
        }
        Datatype::Bool => Kind::Bool,
        Datatype::Enum(e) => Kind::Enum(e),
        Datatype::FixedString(s) => Kind::Text(*s),
        Datatype::Opaque(_) => Kind::Opaque,
        Datatype::Time(t) => Kind::Time(*t),
        other => Kind::Number(schema::primitive(other)?),
    };
    push_leaf(kind, size, at, path, leaves);
    Some(())
}

fn push_leaf<'a>(
    kind: Kind<'a>,
    width: usize,
    at: &[(usize, usize)],
    path: &[Step],
    leaves: &mut Vec<Leaf<'a>>,
) {
    leaves.push(Leaf {
        kind,
        width,
        per_record: at.iter().map(|&(_, k)| k).sum(),
        runs: at
            .iter()
            .map(|&(s, k)| s..s + k * width)
            .filter(|r| !r.is_empty())
            .collect(),
        path: path.to_vec(),
    });
}

/// Where the parts of `size` bytes at `offset` within values of `step`
/// bytes at `at` lie, merged where they touch.
fn within(at: &[(usize, usize)], step: usize, offset: usize, size: usize) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut push = |start: usize, count: usize| match out.last_mut() {
        Some(last) if last.0 + last.1 * size == start => last.1 += count,
        _ => out.push((start, count)),
    };
    for &(start, count) in at {
        if step == size {
            // The part is the whole value: consecutive values stay so.
            push(start + offset, count);
        } else {
            for k in 0..count {
                push(start + k * step + offset, 1);
            }
        }
    }
    out
}

impl Leaf<'_> {
    /// The dotted path of value `index` of the leaf's array: the record's
    /// column, member names and array indices (`pts[1].x`).
    pub fn path_of(&self, index: usize) -> String {
        let per_record = self.per_record.max(1);
        let mut within_record = index % per_record;
        // The array indices, innermost last, as a mixed-radix number.
        let mut digits = Vec::new();
        for step in self.path.iter().rev() {
            if let Step::Index(shape) = step {
                for &d in shape.iter().rev() {
                    let d = d.max(1);
                    digits.push(within_record % d);
                    within_record /= d;
                }
            }
        }
        let mut text = String::new();
        for step in &self.path {
            match step {
                Step::Name(name) => {
                    if !text.is_empty() {
                        text.push('.');
                    }
                    text.push_str(name);
                }
                Step::Index(shape) => {
                    for _ in shape {
                        let i = digits.pop().unwrap_or(0);
                        text.push_str(&format!("[{i}]"));
                    }
                }
            }
        }
        text
    }

    /// The record holding value `index`.
    pub fn record_of(&self, index: usize) -> usize {
        index / self.per_record.max(1)
    }
}

/// Reverses every `unit` bytes of `bytes`: numbers from one byte order
/// to the other.
pub(crate) fn swap(bytes: &mut [u8], unit: usize) {
    if unit > 1 {
        for number in bytes.chunks_exact_mut(unit) {
            number.reverse();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndl_runtime::Compound;

    #[test]
    fn arrays_of_compounds_unfold_into_strided_runs() {
        let inner = Datatype::Compound(
            Compound::c_layout([("x", Datatype::Float64), ("y", Datatype::Float32)]).unwrap(),
        );
        let dt = Datatype::Compound(
            Compound::c_layout([("n", Datatype::UInt8), ("pts", inner.array_of(&[2]))]).unwrap(),
        );
        let plan = Plan::new(&dt).unwrap();
        let runs: Vec<Vec<(usize, usize)>> = plan
            .leaves
            .iter()
            .map(|l| l.runs.iter().map(|r| (r.start, r.end)).collect())
            .collect();
        assert_eq!(
            runs,
            [
                vec![(0, 1)],
                vec![(8, 16), (24, 32)],
                vec![(16, 20), (32, 36)]
            ]
        );
        assert_eq!(plan.leaves[2].path_of(3), "pts[1].y");
        assert_eq!(plan.leaves[2].record_of(3), 1);
    }

    #[test]
    fn plain_arrays_are_one_run() {
        let dt = Datatype::Compound(
            Compound::c_layout([("m", Datatype::Int16.array_of(&[2, 3]))]).unwrap(),
        );
        let plan = Plan::new(&dt).unwrap();
        assert_eq!(plan.leaves[0].runs.len(), 1);
        assert_eq!(
            (plan.leaves[0].runs[0].start, plan.leaves[0].runs[0].end),
            (0, 12)
        );
        assert_eq!(plan.leaves[0].path_of(5), "m[1][2]");
    }
}

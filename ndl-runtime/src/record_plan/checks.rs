//! The values readers check (bools and enums), and the field a bad one is
//! in, named only when an error is reported.

use crate::{Datatype, IntType};

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

/// A value that is not valid for its field, found by [`RecordPlan::validate`].
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
    pub(super) fn new(mut values: Vec<i128>) -> EnumValues {
        values.sort_unstable();
        values.dedup();
        match (values.first(), values.last()) {
            (Some(&lo), Some(&hi)) if hi - lo + 1 == values.len() as i128 => {
                EnumValues::Range(lo, hi)
            }
            _ => EnumValues::Sorted(values),
        }
    }

    pub(super) fn contains(&self, v: i128) -> bool {
        match self {
            EnumValues::Range(lo, hi) => (*lo..=*hi).contains(&v),
            EnumValues::Sorted(values) => values.binary_search(&v).is_ok(),
        }
    }
}

/// The first record (index, offset in the record, value) holding a value
/// of `e` that is not a member.
pub(super) fn first_bad_enum(
    bytes: &[u8],
    itemsize: usize,
    e: &EnumCheck,
) -> Option<(usize, usize, i128)> {
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
pub(super) fn field_path(dt: &Datatype, offset: usize) -> String {
    field_at(dt, offset).0
}

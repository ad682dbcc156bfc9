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
    // One loop per base type and kind of member set, so the loop body has
    // no dispatch; a range is compared in the base type, not as `i128`.
    macro_rules! scan {
        ($t:ty) => {{
            let wide = |v: $t| e.values.contains(v.into());
            match e.values {
                EnumValues::Range(lo, hi) => match (<$t>::try_from(lo), <$t>::try_from(hi)) {
                    (Ok(lo), Ok(hi)) => {
                        find_bad(bytes, itemsize, e, |v: $t| (lo..=hi).contains(&v))
                    }
                    _ => find_bad(bytes, itemsize, e, wide),
                },
                EnumValues::Sorted(_) => find_bad(bytes, itemsize, e, wide),
            }
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

/// The first record (index, offset in the record, value) whose `T` values
/// of `e` are not all `member`s.
fn find_bad<T: bytemuck::Pod + Into<i128>>(
    bytes: &[u8],
    itemsize: usize,
    e: &EnumCheck,
    member: impl Fn(T) -> bool,
) -> Option<(usize, usize, i128)> {
    let w = std::mem::size_of::<T>();
    let run = e.offset..e.offset + e.count * w;
    bytes.chunks_exact(itemsize).enumerate().find_map(|(i, r)| {
        r[run.clone()]
            .chunks_exact(w)
            .enumerate()
            .find_map(|(j, c)| {
                let v: T = bytemuck::pod_read_unaligned(c);
                (!member(v)).then(|| (i, e.offset + j * w, v.into()))
            })
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn check(base: IntType, count: usize, values: Vec<i128>) -> EnumCheck {
        let values = EnumValues::new(values);
        EnumCheck {
            offset: 1,
            count,
            base,
            values,
        }
    }

    #[test]
    fn ranges_are_compared_in_the_base_type_at_both_ends() {
        // Records of 5 bytes: a pad byte, then two i16 values.
        let record = |a: i16, b: i16| [&[0u8][..], &a.to_ne_bytes(), &b.to_ne_bytes()].concat();
        let e = check(IntType::Int16, 2, vec![-2, -1, 0, 1]);
        let ok = [record(-2, 1), record(0, -1)].concat();
        assert_eq!(first_bad_enum(&ok, 5, &e), None);
        let low = [record(-2, 1), record(1, -3)].concat();
        assert_eq!(first_bad_enum(&low, 5, &e), Some((1, 3, -3)));
        let high = [record(2, 0)].concat();
        assert_eq!(first_bad_enum(&high, 5, &e), Some((0, 1, 2)));
    }

    #[test]
    fn sparse_and_wide_members_are_searched() {
        let record = |v: u64| [&[0u8][..], &v.to_ne_bytes()].concat();
        let e = check(IntType::UInt64, 1, vec![3, u64::MAX.into()]);
        let rows = [record(u64::MAX), record(3), record(4)].concat();
        assert_eq!(first_bad_enum(&rows, 9, &e), Some((2, 1, 4)));
        let e = check(IntType::UInt8, 1, vec![1, 7]);
        assert_eq!(first_bad_enum(&[0, 7, 0, 1, 0, 2], 2, &e), Some((2, 1, 2)));
    }
}

//! Rows of a neutral column picked by ranges, for any kind of value: what
//! writing a null list as an empty one needs when the null's slot holds
//! items (Arrow allows it).

use std::ops::Range;

use ndl_runtime::record::{Bitmap, Column, Offsets, Values};

/// The list column `offsets` / `values` with each row that `validity`
/// marks null made empty, its items dropped.
pub(crate) fn nulls_emptied(validity: &Bitmap, offsets: Vec<i64>, values: Column) -> Column {
    let at = |k: usize| Offsets::I64(&offsets).get(k).unwrap_or(0);
    let rows = offsets.len().saturating_sub(1);
    let null_holds_items = (0..rows).any(|i| !validity.get(i) && at(i + 1) > at(i));
    if !null_holds_items {
        return Column::List {
            offsets,
            values: Box::new(values),
        };
    }
    let mut kept: Vec<Range<usize>> = Vec::new();
    let mut new_offsets = Vec::with_capacity(offsets.len());
    new_offsets.push(0);
    let mut end = 0;
    for i in 0..rows {
        let items = at(i)..at(i + 1).max(at(i));
        if validity.get(i) && !items.is_empty() {
            end += items.len() as i64;
            match kept.last_mut() {
                Some(last) if last.end == items.start => last.end = items.end,
                _ => kept.push(items),
            }
        }
        new_offsets.push(end);
    }
    Column::List {
        offsets: new_offsets,
        values: Box::new(pick(&values, &kept)),
    }
}

/// The rows of `column` in `ranges`, in order, as one column.
pub(crate) fn pick(column: &Column, ranges: &[Range<usize>]) -> Column {
    match column {
        Column::Values { datatype, values } => Column::Values {
            datatype: datatype.clone(),
            values: Values::from_ne_bytes(
                values,
                &bytes_in(values.as_bytes(), values.value_size(), ranges),
            ),
        },
        Column::Bool(bits) => Column::Bool(bits_in(bits, ranges)),
        Column::Plain { datatype, bytes } => Column::Plain {
            datatype: datatype.clone(),
            bytes: bytes_in(bytes, datatype.size().unwrap_or(0), ranges),
        },
        Column::Strings { offsets, data } => {
            let (offsets, items) = spans(offsets, ranges);
            Column::Strings {
                offsets,
                data: bytes_in(data, 1, &items),
            }
        }
        Column::List { offsets, values } => {
            let (offsets, items) = spans(offsets, ranges);
            Column::List {
                offsets,
                values: Box::new(pick(values, &items)),
            }
        }
        Column::FixedList { size, values } => {
            let items: Vec<Range<usize>> = ranges
                .iter()
                .map(|r| r.start * size..r.end * size)
                .collect();
            Column::FixedList {
                size: *size,
                values: Box::new(pick(values, &items)),
            }
        }
        Column::Struct { fields, .. } => Column::Struct {
            len: ranges.iter().map(ExactSizeIterator::len).sum(),
            fields: fields
                .iter()
                .map(|(name, c)| (name.clone(), pick(c, ranges)))
                .collect(),
        },
        Column::Nullable {
            validity,
            values,
            fill,
        } => Column::Nullable {
            validity: bits_in(validity, ranges),
            values: Box::new(pick(values, ranges)),
            fill: fill.clone(),
        },
        other => other.clone(),
    }
}

/// The offsets of the rows in `ranges` of a column with `offsets`, and
/// the ranges of items those rows hold.
fn spans(offsets: &[i64], ranges: &[Range<usize>]) -> (Vec<i64>, Vec<Range<usize>>) {
    let at = |k: usize| Offsets::I64(offsets).get(k).unwrap_or(0);
    let mut new_offsets = vec![0];
    let mut items = Vec::with_capacity(ranges.len());
    let mut end = 0;
    for r in ranges {
        for i in r.clone() {
            end += at(i + 1).saturating_sub(at(i)) as i64;
            new_offsets.push(end);
        }
        items.push(at(r.start)..at(r.end).max(at(r.start)));
    }
    (new_offsets, items)
}

fn bytes_in(bytes: &[u8], size: usize, ranges: &[Range<usize>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ranges.iter().map(|r| r.len() * size).sum());
    for r in ranges {
        out.extend_from_slice(bytes.get(r.start * size..r.end * size).unwrap_or_default());
    }
    out
}

fn bits_in(bits: &Bitmap, ranges: &[Range<usize>]) -> Bitmap {
    let mut out = Bitmap::with_capacity(ranges.iter().map(ExactSizeIterator::len).sum());
    ranges
        .iter()
        .flat_map(Clone::clone)
        .for_each(|i| out.push(bits.get(i)));
    out
}

#[cfg(test)]
mod tests {
    use ndl_runtime::Datatype;

    use super::*;

    fn strings(values: &[&str]) -> Column {
        let mut offsets = vec![0];
        let mut data = Vec::new();
        for v in values {
            data.extend_from_slice(v.as_bytes());
            offsets.push(data.len() as i64);
        }
        Column::Strings { offsets, data }
    }

    fn bitmap(bits: &[bool]) -> Bitmap {
        let mut b = Bitmap::with_capacity(bits.len());
        bits.iter().for_each(|&bit| b.push(bit));
        b
    }

    #[test]
    fn a_null_lists_items_are_dropped_and_the_others_kept() {
        // Rows: ["a", "b"], null holding ["x"], [], ["c"].
        let emptied = nulls_emptied(
            &bitmap(&[true, false, true, true]),
            vec![0, 2, 3, 3, 4],
            strings(&["a", "b", "x", "c"]),
        );
        assert_eq!(
            emptied,
            Column::List {
                offsets: vec![0, 2, 2, 2, 3],
                values: Box::new(strings(&["a", "b", "c"])),
            }
        );
    }

    #[test]
    fn nulls_already_empty_leave_the_column_as_it_is() {
        let values = Column::Values {
            datatype: Datatype::Int32,
            values: Values::I32(vec![1, 2]),
        };
        let emptied = nulls_emptied(&bitmap(&[true, false]), vec![0, 2, 2], values.clone());
        assert_eq!(
            emptied,
            Column::List {
                offsets: vec![0, 2, 2],
                values: Box::new(values),
            }
        );
    }

    #[test]
    fn rows_of_nested_records_are_picked_with_their_lists_and_validity() {
        let column = Column::Struct {
            len: 3,
            fields: vec![
                (
                    "n".into(),
                    Column::Values {
                        datatype: Datatype::UInt16,
                        values: Values::U16(vec![10, 11, 12]),
                    },
                ),
                (
                    "tags".into(),
                    Column::List {
                        offsets: vec![0, 1, 3, 4],
                        values: Box::new(strings(&["p", "q", "r", "s"])),
                    },
                ),
                (
                    "ok".into(),
                    Column::Nullable {
                        validity: bitmap(&[true, false, true]),
                        values: Box::new(Column::Bool(bitmap(&[true, false, false]))),
                        fill: None,
                    },
                ),
            ],
        };
        let picked = pick(&column, &[0..1, 2..3]);
        assert_eq!(
            picked,
            Column::Struct {
                len: 2,
                fields: vec![
                    (
                        "n".into(),
                        Column::Values {
                            datatype: Datatype::UInt16,
                            values: Values::U16(vec![10, 12]),
                        },
                    ),
                    (
                        "tags".into(),
                        Column::List {
                            offsets: vec![0, 1, 2],
                            values: Box::new(strings(&["p", "s"])),
                        },
                    ),
                    (
                        "ok".into(),
                        Column::Nullable {
                            validity: bitmap(&[true, true]),
                            values: Box::new(Column::Bool(bitmap(&[true, false]))),
                            fill: None,
                        },
                    ),
                ],
            }
        );
    }
}

//! Columns to rows: an Arrow record batch (ours, or one of pyarrow's,
//! polars' or DuckDB's) into records of a datatype, its columns matched
//! by name, every mismatch named.
//!
//! Two stages, the mirror of gathering: first each leaf of the datatype
//! finds its Arrow array and becomes bytes (numbers as they are, without
//! a copy; bools, enums and strings checked and converted); then the
//! bytes are copied into the records, whose padding stays zero.

use std::collections::HashMap;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, GenericListArray, OffsetSizeTrait, RecordBatch};
use arrow_buffer::Buffer;
use arrow_schema::DataType;
use ndl_runtime::{ByteOrder, Charset, Datatype, Enum};

use crate::error::Error;
use crate::options::ReadOptions;
use crate::plan::{Kind, Leaf, Plan, swap};
use crate::schema::{self, COMPLEX_PARTS};
use crate::strings::Strings;

/// The leaves of records of `dt` in `batch`, each as the bytes of its
/// values back to back, in `options.byte_order`.
pub(crate) fn decode(
    plan: &Plan<'_>,
    dt: &Datatype,
    batch: &RecordBatch,
    options: &ReadOptions,
) -> Result<Vec<Buffer>, Error> {
    let columns = schema::columns(dt);
    if !options.ignore_extra_columns
        && let Some(extra) = batch
            .schema()
            .fields()
            .iter()
            .find(|f| !columns.iter().any(|(name, _, _)| f.name() == name))
    {
        return Err(Error::schema(
            extra.name(),
            "the records have no such member (ReadOptions::ignore_extra_columns skips it)",
        ));
    }
    let mut arrays = Vec::with_capacity(plan.leaves.len());
    for (name, dt, _) in columns {
        let array = batch
            .column_by_name(name)
            .ok_or_else(|| Error::schema(name, "missing"))?;
        let array = crate::dictionary::unpacked(array, name)?;
        flatten(dt, &array, name, 1, options, &mut arrays)?;
    }
    let mut leaves = plan
        .leaves
        .iter()
        .zip(&arrays)
        .map(|(leaf, array)| leaf_bytes(leaf, array))
        .collect::<Result<Vec<_>, _>>()?;
    if options.byte_order != ByteOrder::NATIVE {
        for (leaf, bytes) in plan.leaves.iter().zip(&mut leaves) {
            let unit = leaf.kind.swap_unit(leaf.width);
            if unit > 1 {
                let mut swapped = bytes.to_vec();
                swap(&mut swapped, unit);
                *bytes = Buffer::from_vec(swapped);
            }
        }
    }
    Ok(leaves)
}

/// Copies the leaves' bytes into `out`, whole records of the plan, whose
/// gaps it leaves as they are.
pub(crate) fn fill(plan: &Plan<'_>, leaves: &[Buffer], out: &mut [u8]) {
    let record = plan.record;
    if record == 0 {
        return;
    }
    for (leaf, bytes) in plan.leaves.iter().zip(leaves) {
        let per_record = leaf.per_record * leaf.width;
        let mut at = 0;
        for run in &leaf.runs {
            let width = run.len();
            let values = bytes.chunks_exact(per_record).map(|v| &v[at..at + width]);
            let records = out.chunks_exact_mut(record).map(|r| &mut r[run.clone()]);
            // A copy of a length known at compile time is a load and a
            // store rather than a call to `memcpy`.
            macro_rules! by_width {
                ($($n:literal)*) => {
                    match width {
                        $($n => for (to, from) in records.zip(values) {
                            let from: [u8; $n] = from.try_into().expect("whole values");
                            to.copy_from_slice(&from);
                        },)*
                        _ => for (to, from) in records.zip(values) {
                            to.copy_from_slice(from);
                        },
                    }
                };
            }
            by_width!(1 2 4 8 16);
            at += width;
        }
    }
}

/// Appends the arrays of the leaves of `dt` in `array`, which holds
/// `per_record` values of each record, to `out`.
fn flatten(
    dt: &Datatype,
    array: &ArrayRef,
    path: &str,
    per_record: usize,
    options: &ReadOptions,
    out: &mut Vec<ArrayRef>,
) -> Result<(), Error> {
    // A null in a time column is NaT; elsewhere the records cannot hold it.
    if !matches!(dt, Datatype::Time(_)) {
        no_nulls(array, path, per_record)?;
    }
    let expected = || schema::data_type_of(dt, path);
    let wrong_type = |found: &DataType| -> Result<(), Error> {
        Err(Error::schema(
            path,
            format!("expected {}, found {found}", describe(&expected()?)),
        ))
    };
    match dt {
        Datatype::Compound(c) => {
            let Some(s) = array.as_struct_opt() else {
                return wrong_type(array.data_type());
            };
            if !options.ignore_extra_columns
                && let Some(extra) = s.fields().iter().find(|f| c.member(f.name()).is_none())
            {
                return Err(Error::schema(
                    &format!("{path}.{}", extra.name()),
                    "the records have no such member (ReadOptions::ignore_extra_columns skips it)",
                ));
            }
            for m in &c.members {
                let path = format!("{path}.{}", m.name);
                let child = s
                    .column_by_name(&m.name)
                    .ok_or_else(|| Error::schema(&path, "missing"))?;
                flatten(&m.datatype, child, &path, per_record, options, out)?;
            }
        }
        Datatype::Array(a) => {
            let mut values = array.clone();
            let mut per_record = per_record;
            for (i, &d) in a.shape.iter().enumerate() {
                if i > 0 {
                    no_nulls(&values, path, per_record)?;
                }
                values = list_values(&values, d, path, per_record)?;
                per_record *= d;
            }
            flatten(&a.base, &values, path, per_record, options, out)?;
        }
        Datatype::Complex64 | Datatype::Complex128 => {
            let Some(s) = array.as_struct_opt() else {
                return wrong_type(array.data_type());
            };
            for part in COMPLEX_PARTS {
                let path = format!("{path}.{part}");
                let child = s
                    .column_by_name(part)
                    .ok_or_else(|| Error::schema(&path, "missing"))?;
                no_nulls(child, &path, per_record)?;
                out.push(child.clone());
            }
        }
        _ => out.push(array.clone()),
    }
    Ok(())
}

/// An error naming the first null of `array`, which holds `per_record`
/// values of each record, if it has one.
fn no_nulls(array: &ArrayRef, path: &str, per_record: usize) -> Result<(), Error> {
    if array.null_count() == 0 {
        return Ok(());
    }
    let i = (0..array.len()).find(|&i| array.is_null(i)).unwrap_or(0);
    Err(Error::InvalidValue {
        record: i / per_record.max(1),
        column: path.to_owned(),
        message: "a null, which the records cannot hold".into(),
    })
}

/// The values of a list array whose lists all hold `size` values: a
/// `FixedSizeList`, or a `List` of DuckDB's or a polars' that happens to.
fn list_values(
    array: &ArrayRef,
    size: usize,
    path: &str,
    per_record: usize,
) -> Result<ArrayRef, Error> {
    fn variable<O: OffsetSizeTrait>(
        list: &GenericListArray<O>,
        size: usize,
        path: &str,
        per_record: usize,
    ) -> Result<ArrayRef, Error> {
        let offsets = list.value_offsets();
        if let Some(i) = (0..list.len()).find(|&i| list.value_length(i).as_usize() != size) {
            return Err(Error::InvalidValue {
                record: i / per_record.max(1),
                column: path.to_owned(),
                message: format!(
                    "a list of {} values, where the records hold {size}",
                    list.value_length(i).as_usize()
                ),
            });
        }
        let start = offsets.first().map_or(0, |o| o.as_usize());
        Ok(list.values().slice(start, list.len() * size))
    }
    match array.data_type() {
        DataType::FixedSizeList(_, d) if usize::try_from(*d) == Ok(size) => {
            Ok(array.as_fixed_size_list().values().clone())
        }
        DataType::List(_) => variable(array.as_list::<i32>(), size, path, per_record),
        DataType::LargeList(_) => variable(array.as_list::<i64>(), size, path, per_record),
        other => Err(Error::schema(
            path,
            format!("expected a list of {size} values, found {other}"),
        )),
    }
}

/// An Arrow type as an error message says it.
fn describe(t: &DataType) -> String {
    t.to_string()
}

/// The bytes of a leaf's values, back to back, native: a number array's
/// own buffer, shared.
fn leaf_bytes(leaf: &Leaf<'_>, array: &ArrayRef) -> Result<Buffer, Error> {
    let path = leaf.path_of(0);
    let wrong = |expected: &str| {
        Err(Error::schema(
            &strip_indices(&path),
            format!("expected {expected}, found {}", array.data_type()),
        ))
    };
    Ok(match &leaf.kind {
        Kind::Number(t) => {
            if array.data_type() != t {
                return wrong(&t.to_string());
            }
            macro_rules! bytes {
                ($($variant:ident => $arrow:ty),*) => {
                    match t {
                        $(DataType::$variant => array.as_primitive::<$arrow>().values().inner().clone(),)*
                        other => unreachable!("{other} is no number leaf"),
                    }
                };
            }
            bytes!(
                Int8 => Int8Type, UInt8 => UInt8Type, Int16 => Int16Type, UInt16 => UInt16Type,
                Int32 => Int32Type, UInt32 => UInt32Type, Int64 => Int64Type, UInt64 => UInt64Type,
                Float16 => Float16Type, Float32 => Float32Type, Float64 => Float64Type
            )
        }
        Kind::Bool => {
            let Some(b) = array.as_boolean_opt() else {
                return wrong("Boolean");
            };
            Buffer::from_vec(b.values().iter().map(u8::from).collect())
        }
        Kind::Enum(e) => {
            let Some(names) = Strings::of(array) else {
                return wrong("a dictionary of member names, or strings");
            };
            Buffer::from_vec(enum_values(leaf, e, &names)?)
        }
        Kind::Text(s) => {
            let Some(strings) = Strings::of(array) else {
                return wrong("Utf8");
            };
            Buffer::from_vec(text_bytes(leaf, s.charset, leaf.width, &strings)?)
        }
        Kind::Opaque => {
            let Some(b) = array
                .as_fixed_size_binary_opt()
                .filter(|b| b.value_length() as usize == leaf.width)
            else {
                return wrong(&format!("FixedSizeBinary({})", leaf.width));
            };
            let mut bytes = Vec::with_capacity(b.len() * leaf.width);
            for i in 0..b.len() {
                bytes.extend_from_slice(b.value(i));
            }
            Buffer::from_vec(bytes)
        }
        Kind::Time(t) => match crate::time::from_arrow(leaf, *t, array)? {
            Some(counts) => counts,
            None => {
                let kind = match t.kind {
                    ndl_runtime::time::TimeKind::DateTime => "a Timestamp (or a Date32, Date64)",
                    ndl_runtime::time::TimeKind::TimeDelta => "a Duration",
                };
                return wrong(kind);
            }
        },
    })
}

/// A leaf's path without array indices: the column a schema error names.
fn strip_indices(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut depth = 0;
    for c in path.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// The native values of the members `names` name.
fn enum_values(leaf: &Leaf<'_>, e: &Enum, names: &Strings<'_>) -> Result<Vec<u8>, Error> {
    let width = e.base.size();
    let by_name: HashMap<&str, [u8; 16]> = e
        .members
        .iter()
        .map(|m| (m.name.as_str(), narrow(m.value, width)))
        .collect();
    let lookup = |i: usize, name: &str| {
        by_name.get(name).ok_or_else(|| Error::InvalidValue {
            record: leaf.record_of(i),
            column: leaf.path_of(i),
            message: format!("`{name}` is no member of the enum"),
        })
    };
    let mut out = Vec::with_capacity(names.len() * width);
    match names {
        // Each dictionary entry is looked up once.
        Strings::Dictionary { keys, values } => {
            let mut resolved: Vec<Option<&[u8; 16]>> = vec![None; values.len()];
            for (i, &k) in keys.iter().enumerate() {
                let value = match resolved[k] {
                    Some(v) => v,
                    None => *resolved[k].insert(lookup(i, values.get(k))?),
                };
                out.extend_from_slice(&value[..width]);
            }
        }
        _ => {
            for i in 0..names.len() {
                out.extend_from_slice(&lookup(i, names.get(i))?[..width]);
            }
        }
    }
    Ok(out)
}

/// The native bytes of `value` as an integer of `width` bytes, at the front.
fn narrow(value: i128, width: usize) -> [u8; 16] {
    let mut out = [0; 16];
    let le = value.to_le_bytes();
    out[..width].copy_from_slice(&le[..width]);
    if cfg!(target_endian = "big") {
        out[..width].reverse();
    }
    out
}

/// Strings as fixed strings of `width` bytes, NUL-padded.
fn text_bytes(
    leaf: &Leaf<'_>,
    charset: Charset,
    width: usize,
    strings: &Strings<'_>,
) -> Result<Vec<u8>, Error> {
    let mut out = vec![0u8; strings.len() * width];
    if width == 0 {
        return match (0..strings.len()).find(|&i| !strings.get(i).is_empty()) {
            Some(i) => Err(Error::InvalidValue {
                record: leaf.record_of(i),
                column: leaf.path_of(i),
                message: "a string, where the field holds none".into(),
            }),
            None => Ok(out),
        };
    }
    for (i, field) in out.chunks_exact_mut(width).enumerate() {
        let s = strings.get(i);
        let too_long = |n: usize, unit: &str| Error::InvalidValue {
            record: leaf.record_of(i),
            column: leaf.path_of(i),
            message: format!(
                "the string {s:?} has {n} {unit}, more than the {} the field holds",
                width / charset.width()
            ),
        };
        match charset {
            Charset::Ascii => {
                if s.len() > width {
                    return Err(too_long(s.len(), "bytes"));
                }
                field[..s.len()].copy_from_slice(s.as_bytes());
            }
            Charset::Utf32 => {
                let chars = s.chars().count();
                if chars * 4 > width {
                    return Err(too_long(chars, "characters"));
                }
                for (c, unit) in s.chars().zip(field.chunks_exact_mut(4)) {
                    unit.copy_from_slice(&u32::from(c).to_ne_bytes());
                }
            }
        }
    }
    Ok(out)
}

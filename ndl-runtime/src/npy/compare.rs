//! Checking a file's datatype against the Rust type it is read into.
//!
//! Names, offsets, record sizes, nested compounds and arrays must match.
//! Enums are stored as their base integer, so an enum of the type matches
//! the file's integer of that base (values are checked later, per record).
//! The byte order is not compared: readers convert it. The record plan of
//! the Rust type is built here too, checked against the type's real size.

use super::shape::{checked_product, is_also_c_order};
use super::{ByteOrder, Error, Header, Result};
use crate::record_plan::{BadValue, RecordPlan};
use crate::schema::first_difference;
use crate::{Datatype, NdlType};

/// The shape of the array in records of the expected type.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct RecordShape {
    /// The shape in records (the file's shape without a subarray's dims).
    pub shape: Vec<u64>,
    /// The number of records.
    pub records: u64,
}

/// Checks that the file described by `header` holds records of `expected`.
pub(crate) fn check_datatype(header: &Header, expected: &Datatype) -> Result<RecordShape> {
    let shape = record_shape(header, expected)?;
    if let Some(d) = first_difference(&header.datatype.folded(), element(expected).0) {
        return Err(Error::TypeMismatch {
            field: d.field,
            message: d.message,
        });
    }
    Ok(shape)
}

/// A record type's element datatype and the dimensions it adds: a
/// top-level array type (`[f32; 3]`) is stored by NumPy as its base with
/// the array's dimensions appended to the shape.
pub(crate) fn element(expected: &Datatype) -> (&Datatype, &[usize]) {
    match expected {
        Datatype::Array(a) => (&a.base, &a.shape),
        other => (other, &[]),
    }
}

/// The file's shape in records of `expected`, whose array dimensions (if
/// it is an array type) must end the file's shape; the element datatypes
/// are not compared.
pub(crate) fn record_shape(header: &Header, expected: &Datatype) -> Result<RecordShape> {
    let inner_dims = element(expected).1;
    let rank = header.shape.len();
    let file_inner = header
        .shape
        .get(rank.saturating_sub(inner_dims.len())..)
        .filter(|_| rank >= inner_dims.len());
    let matches =
        file_inner.is_some_and(|f| f.iter().zip(inner_dims).all(|(&a, &b)| a == b as u64));
    if !matches {
        return Err(Error::TypeMismatch {
            field: String::new(),
            message: format!(
                "the type is an array of shape {inner_dims:?}, which must end the file's shape {:?}",
                header.shape
            ),
        });
    }
    if !inner_dims.is_empty() && header.order.is_fortran() && !is_also_c_order(&header.shape) {
        return Err(Error::TypeMismatch {
            field: String::new(),
            message: "the type is an array, whose elements must be contiguous, but the file is in Fortran order".into(),
        });
    }
    let shape = header.shape[..rank - inner_dims.len()].to_vec();
    let records = checked_product(&shape).ok_or_else(|| Error::ShapeOverflow {
        shape: header.shape.clone(),
        itemsize: expected.size().unwrap_or(0) as u64,
    })?;
    Ok(RecordShape { shape, records })
}

/// The plan for `T` in `order`, checked against `T`'s real size.
pub(crate) fn layout_for<T: NdlType>(dt: &Datatype, order: ByteOrder) -> Result<RecordPlan> {
    plan_for::<T>(dt, &|_| order)
}

/// The plan for `T` reading the data `header` describes, each number in
/// the file's order for it. `T`'s datatype has the file element's offsets,
/// repeated when `T` is an array of elements.
pub(crate) fn file_layout_for<T: NdlType>(dt: &Datatype, header: &Header) -> Result<RecordPlan> {
    let element = header.datatype.size().unwrap_or(0).max(1);
    plan_for::<T>(dt, &|at| header.byte_order_at(at % element))
}

fn plan_for<T: NdlType>(dt: &Datatype, orders: &dyn Fn(usize) -> ByteOrder) -> Result<RecordPlan> {
    let layout = RecordPlan::with_orders(dt, orders).ok_or_else(|| Error::TypeMismatch {
        field: String::new(),
        message: "the type's datatype has no fixed size".into(),
    })?;
    if layout.itemsize != std::mem::size_of::<T>() {
        return Err(Error::TypeMismatch {
            field: String::new(),
            message: format!(
                "the type's datatype is {} bytes but the type is {} (a wrong NdlType impl)",
                layout.itemsize,
                std::mem::size_of::<T>()
            ),
        });
    }
    Ok(layout)
}

/// The error for a bool or enum value that is not valid.
pub(crate) fn bad_value(
    dt: &Datatype,
    layout: &RecordPlan,
    data_offset: u64,
    bad: &BadValue,
) -> Error {
    let (field, message) = bad.explain(dt);
    Error::InvalidValue {
        record: bad.record as u64,
        offset: data_offset + (bad.record as u64) * layout.itemsize as u64 + bad.offset as u64,
        field,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Compound, Enum, EnumMember, IntType, Member};

    fn header(dt: Datatype, shape: Vec<u64>) -> Header {
        Header::new(dt, shape)
    }

    fn rec(members: Vec<Member>, size: usize) -> Datatype {
        Datatype::Compound(Compound { size, members })
    }

    #[test]
    fn field_type_and_offset_differences_are_named() {
        let file = rec(
            vec![
                Member::new("id", 0, Datatype::UInt32),
                Member::new("t", 4, Datatype::Float32),
            ],
            8,
        );
        let want = rec(
            vec![
                Member::new("id", 0, Datatype::UInt32),
                Member::new("t", 8, Datatype::Float64),
            ],
            16,
        );
        let e = check_datatype(&header(file, vec![3]), &want).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the file's datatype does not match the type (field 't'): file has float32 at offset 4, type expects float64 at offset 8"
        );
    }

    #[test]
    fn nested_missing_and_extra_fields() {
        let inner = |n: &str| rec(vec![Member::new(n, 0, Datatype::Int8)], 1);
        let e = check_datatype(
            &header(rec(vec![Member::new("p", 0, inner("x"))], 1), vec![1]),
            &rec(vec![Member::new("p", 0, inner("y"))], 1),
        )
        .unwrap_err();
        assert!(
            matches!(e, Error::TypeMismatch { ref field, .. } if field == "p.y"),
            "{e}"
        );
        let e = check_datatype(
            &header(
                rec(
                    vec![
                        Member::new("a", 0, Datatype::Int8),
                        Member::new("b", 1, Datatype::Int8),
                    ],
                    2,
                ),
                vec![1],
            ),
            &rec(vec![Member::new("a", 0, Datatype::Int8)], 2),
        )
        .unwrap_err();
        assert!(e.to_string().contains("field 'b'"), "{e}");
    }

    #[test]
    fn enums_match_their_base() {
        let color = Datatype::Enum(Enum {
            base: IntType::UInt8,
            members: vec![EnumMember::new("red", 0)],
        });
        assert!(check_datatype(&header(Datatype::UInt8, vec![2]), &color).is_ok());
        assert!(check_datatype(&header(Datatype::Int8, vec![2]), &color).is_err());
    }

    #[test]
    fn array_types_take_the_trailing_dimensions() {
        let t = Datatype::Float32.array_of(&[3]);
        let s = check_datatype(&header(Datatype::Float32, vec![4, 3]), &t).unwrap();
        assert_eq!(
            s,
            RecordShape {
                shape: vec![4],
                records: 4
            }
        );
        assert!(check_datatype(&header(Datatype::Float32, vec![4, 2]), &t).is_err());
        assert!(check_datatype(&header(Datatype::Float32, vec![]), &t).is_err());
        let s = check_datatype(&header(Datatype::Float32, vec![]), &Datatype::Float32).unwrap();
        assert_eq!(
            s,
            RecordShape {
                shape: vec![],
                records: 1
            }
        );
    }
}

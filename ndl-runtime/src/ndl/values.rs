//! Checks of `value:` and `fillvalue:` against a shape and a datatype.
//!
//! The spec does not say how values of every datatype are written; only
//! what is unambiguous is checked: nesting and list lengths follow the
//! shape, and scalars of integer, float, string and bool datatypes are
//! YAML values of that kind. Values of other datatypes are taken as given.

use serde_yaml::Value;

use super::error::describe_value;
use super::error::{Ctx, NdlError, NdlErrorKind};
use crate::Datatype;

/// Checks that `value` is nested lists following `extents` (a known extent
/// fixes a list's length, an unlimited one does not), with values of
/// `datatype` at the leaves.
pub(crate) fn check_value(
    value: &Value,
    extents: &[Option<usize>],
    datatype: Option<&Datatype>,
    ctx: &Ctx,
) -> Result<(), NdlError> {
    let Some((first, rest)) = extents.split_first() else {
        return check_element(value, datatype, ctx);
    };
    let list = value
        .as_sequence()
        .ok_or_else(|| ctx.expected("a list with one value per index of the dimension", value))?;
    if let Some(n) = *first
        && list.len() != n
    {
        return Err(ctx.err(NdlErrorKind::LengthMismatch {
            expected: n,
            found: list.len(),
        }));
    }
    list.iter().enumerate().try_for_each(|(i, item)| {
        check_value(item, rest, datatype, &ctx.suffixed(format!("[{i}]")))
    })
}

/// Checks one value (an element or a fill value) of `datatype`.
pub(crate) fn check_element(
    value: &Value,
    datatype: Option<&Datatype>,
    ctx: &Ctx,
) -> Result<(), NdlError> {
    let Some(dt) = datatype else {
        return Ok(());
    };
    let fits = match dt {
        Datatype::Float16 | Datatype::Float32 | Datatype::Float64 => value.is_number(),
        Datatype::String | Datatype::FixedString(_) => value.is_string(),
        Datatype::Bool => value.is_bool(),
        other => match other.as_int() {
            Some(int) => as_i128(value).is_some_and(|v| int.contains(v)),
            None => true,
        },
    };
    if fits {
        return Ok(());
    }
    Err(ctx.err(NdlErrorKind::NotOfDatatype {
        datatype: dt.keyword().unwrap_or("a fixed-length string"),
        found: describe_value(value),
    }))
}

fn as_i128(v: &Value) -> Option<i128> {
    v.as_i64()
        .map(i128::from)
        .or_else(|| v.as_u64().map(i128::from))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(yaml: &str, extents: &[Option<usize>], dt: Datatype) -> Result<(), NdlError> {
        let v: Value = serde_yaml::from_str(yaml).unwrap();
        check_value(&v, extents, Some(&dt), &Ctx::root().at("value"))
    }

    #[test]
    fn nesting_follows_the_shape() {
        check(
            "[[1, 2, 3], [4, 5, 6]]",
            &[Some(2), Some(3)],
            Datatype::Int8,
        )
        .unwrap();
        check("[[1], [4, 5, 6]]", &[None, None], Datatype::Int8).unwrap();
        let e = check("[[1, 2], [4, 5, 6]]", &[Some(2), Some(3)], Datatype::Int8).unwrap_err();
        assert_eq!(
            e.to_string(),
            "value[0]: a list of 3 values was expected, found 2"
        );
        let e = check("5", &[Some(1)], Datatype::Int8).unwrap_err();
        assert_eq!(e.location(), "value");
    }

    #[test]
    fn scalars_fit_the_datatype() {
        check("-90", &[], Datatype::Float32).unwrap();
        check(".nan", &[], Datatype::Float64).unwrap();
        check("18446744073709551615", &[], Datatype::UInt64).unwrap();
        check(
            "[1.5, hello]",
            &[Some(2)],
            Datatype::Opaque(crate::Opaque { size: 1, tag: None }),
        )
        .unwrap();
        let e = check("[1, 128]", &[Some(2)], Datatype::Int8).unwrap_err();
        assert_eq!(
            e.to_string(),
            "value[1]: the number 128 is not a value of int8"
        );
        let e = check("'10'", &[], Datatype::Int32).unwrap_err();
        assert!(
            matches!(e.kind(), NdlErrorKind::NotOfDatatype { .. }),
            "{e}"
        );
        assert!(check("1", &[], Datatype::String).is_err());
        assert!(check("1", &[], Datatype::Bool).is_err());
    }
}

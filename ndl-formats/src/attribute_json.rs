//! A format's attributes, as JSON holds them, as NDL attributes: of their
//! stored type where the format keeps one (HDF5, netCDF), else text, a
//! number or a list of them. What `ndl describe` prints and a conversion
//! carries, the formats' bookkeeping left out.

use std::collections::BTreeMap;

use ndl_runtime::Datatype;
use ndl_runtime::ndl::Attribute;
use serde_json::{Map, Value as J};

/// The HDF5 and netCDF attributes that keep the file's bookkeeping: the
/// dimension scales' own (`CLASS` only where it says `DIMENSION_SCALE`,
/// `NAME` only on a scale: PyTables and others use them for their own
/// meanings) and netCDF's.
pub(crate) fn is_hdf5_bookkeeping(name: &str, value: &serde_json::Value, on_scale: bool) -> bool {
    match name {
        "CLASS" => value.as_str() == Some("DIMENSION_SCALE"),
        "NAME" => on_scale,
        _ => is_netcdf_bookkeeping(name),
    }
}

fn is_netcdf_bookkeeping(name: &str) -> bool {
    matches!(
        name,
        "DIMENSION_LIST"
            | "REFERENCE_LIST"
            | "_Netcdf4Dimid"
            | "_Netcdf4Coordinates"
            | "_NCProperties"
            | ndl_hdf5::NDL_DATATYPE
    )
}

/// `value`, an attribute's JSON, as a Zarr attribute: netCDF and HDF5 hold
/// a scalar attribute as a list of one (`[0.25]`), which xarray reads as
/// the scalar and writes to Zarr so.
pub(crate) fn zarr_attribute(value: J) -> J {
    match value {
        J::Array(mut one) if one.len() == 1 => one.remove(0),
        other => other,
    }
}

/// An attribute's YAML value as a Zarr attribute's JSON: NaN and the
/// infinities as Python's `json` writes them
/// ([`ndl_zarr::attribute_float`]), which zarr-python and xarray read as
/// floats (JSON has no number for them).
pub(crate) fn zarr_json(value: &serde_yaml::Value) -> J {
    use serde_yaml::Value as Y;
    match value {
        Y::Number(n) if n.as_f64().is_some_and(|x| !x.is_finite()) => {
            ndl_zarr::attribute_float(n.as_f64().unwrap_or(f64::NAN))
        }
        Y::Sequence(items) => J::Array(items.iter().map(zarr_json).collect()),
        // JSON's keys are text: another YAML key as YAML writes it.
        Y::Mapping(members) => J::Object(
            members
                .iter()
                .map(|(k, v)| {
                    let key = match k.as_str() {
                        Some(k) => k.to_string(),
                        None => serde_yaml::to_string(k)
                            .unwrap_or_default()
                            .trim()
                            .to_string(),
                    };
                    (key, zarr_json(v))
                })
                .collect(),
        ),
        other => serde_json::to_value(other).unwrap_or(J::Null),
    }
}

/// The attributes `attributes` as a Zarr node's, by name: each as
/// [`zarr_json`], a list of one as its element ([`zarr_attribute`]).
pub(crate) fn zarr_attributes<'a>(
    attributes: impl Iterator<Item = (&'a str, &'a Attribute)>,
) -> impl Iterator<Item = (&'a str, J)> {
    attributes.map(|(name, a)| (name, zarr_attribute(zarr_json(&a.value))))
}

/// A Zarr node's attributes as descriptions hold a format's: a float
/// zarr-python writes as a bare word (`NaN`) as that text, the attribute
/// of such floats typed `float64` (as an HDF5 file's attributes are
/// typed), so that no reader meets the mark Zarr's reading keeps them by.
pub(crate) fn from_zarr(
    attributes: &Map<String, J>,
) -> (Map<String, J>, BTreeMap<String, Datatype>) {
    let mut types = BTreeMap::new();
    let attributes = attributes
        .iter()
        .map(|(name, value)| {
            let (plain, marked) = ndl_zarr::unmarked(value);
            let floats = match value {
                J::Array(items) => items.iter().all(|v| float_of(v).is_some()),
                one => float_of(one).is_some(),
            };
            if marked && floats {
                types.insert(name.clone(), Datatype::Float64);
            }
            (name.clone(), plain)
        })
        .collect();
    (attributes, types)
}

/// A format's attribute `value` (JSON, NaN and the infinities as text),
/// stored as `stored`, as a Zarr attribute's JSON: a float's NaN and
/// infinities as Python's `json` writes them, a list of one as its
/// element ([`zarr_attribute`]).
pub(crate) fn zarr_typed(value: J, stored: Option<&Datatype>) -> J {
    let is_float = matches!(
        stored,
        Some(Datatype::Float16 | Datatype::Float32 | Datatype::Float64)
    );
    if !is_float {
        return zarr_attribute(value);
    }
    fn floats(value: J) -> J {
        match value {
            J::Array(items) => J::Array(items.into_iter().map(floats).collect()),
            one => float_of(&one).map_or(one, ndl_zarr::attribute_float),
        }
    }
    zarr_attribute(floats(value))
}

/// The attributes that keep a Zarr store's bookkeeping (v2's dimension
/// names, NCZarr's, ours), not the data's meaning.
pub(crate) fn is_zarr_bookkeeping(name: &str) -> bool {
    matches!(
        name,
        "_ARRAY_DIMENSIONS" | "_NCZARR_ATTR" | "_nczarr_attr" | "ndl_datatype"
    )
}

/// An NDL attribute for a format's attribute `name`: of its `stored`
/// type where the format has one (HDF5), else text, a number, or a list
/// of them; the CF attributes of the variable's values (`_FillValue`,
/// `valid_range`, `flag_values`, ...) of `element`'s type, where they
/// are numbers that fit it, as CF has them.
pub(crate) fn attribute(
    name: &str,
    value: &J,
    element: &Datatype,
    stored: Option<&Datatype>,
) -> Option<Attribute> {
    if let Some(dt) = stored {
        return Some(typed_attribute(value, dt));
    }
    let of_values = matches!(
        name,
        "_FillValue"
            | "missing_value"
            | "valid_min"
            | "valid_max"
            | "valid_range"
            | "flag_values"
            | "flag_masks"
    );
    match of_values.then(|| of_element(value, element)).flatten() {
        Some(typed) => Some(typed),
        None => untyped_attribute(value, element),
    }
}

/// `value`, a number or a list of numbers, as elements of the number
/// datatype `element`, where every one fits it.
fn of_element(value: &J, element: &Datatype) -> Option<Attribute> {
    let fits = |v: &J| match element.as_int() {
        Some(int) => {
            v.as_i64().is_some_and(|i| int.contains(i128::from(i)))
                || v.as_u64().is_some_and(|u| int.contains(i128::from(u)))
        }
        None => matches!(element, Datatype::Float32 | Datatype::Float64) && float_of(v).is_some(),
    };
    match value {
        J::Array(items) if !items.is_empty() && items.iter().all(fits) => {
            let shape = [items.len()];
            Some(Attribute::long(
                shape,
                element.clone(),
                values_of(value, element, 1),
            ))
        }
        one if fits(one) => Some(typed_attribute(one, element)),
        _ => None,
    }
}

/// An attribute of the stored type `dt`: a list for a list, nothing for
/// a null dataspace (`shape: [0]`), the short form where it says the same.
fn typed_attribute(value: &J, dt: &Datatype) -> Attribute {
    match value {
        J::Null => Attribute::long([0], dt.clone(), serde_yaml::Value::Sequence(vec![])),
        J::Array(_) => {
            let shape = shape_of(value, dt);
            Attribute::long(shape.clone(), dt.clone(), values_of(value, dt, shape.len()))
        }
        J::String(s) if matches!(dt, Datatype::String | Datatype::FixedString(_)) => {
            Attribute::from(s.as_str())
        }
        one => {
            let value = yaml_of(one, dt);
            match Attribute::best_match(&value) {
                Some(best) if best == *dt => Attribute::new(value.clone())
                    .unwrap_or_else(|_| Attribute::long([], dt.clone(), value)),
                _ => Attribute::long([], dt.clone(), value),
            }
        }
    }
}

/// The shape of an attribute's nested lists of elements of `dt` (whose
/// own values are lists where it is an array type).
fn shape_of(value: &J, dt: &Datatype) -> Vec<usize> {
    // An array type's elements are lists, as a complex one's pair is.
    let element_rank = match dt {
        Datatype::Array(a) => a.shape.len(),
        Datatype::Complex64 | Datatype::Complex128 => 1,
        _ => 0,
    };
    let mut shape = Vec::new();
    let mut at = value;
    while let J::Array(items) = at {
        shape.push(items.len());
        match items.first() {
            Some(first) => at = first,
            None => break,
        }
    }
    shape.truncate(shape.len().saturating_sub(element_rank));
    shape
}

/// The YAML of nested lists `rank` deep of elements of `dt`.
fn values_of(value: &J, dt: &Datatype, rank: usize) -> serde_yaml::Value {
    match (value, rank) {
        (J::Array(items), 1..) => {
            serde_yaml::Value::Sequence(items.iter().map(|v| values_of(v, dt, rank - 1)).collect())
        }
        (element, _) => yaml_of(element, dt),
    }
}

/// The YAML value of one element of `dt` given as JSON: NaN and the
/// infinities (text in JSON) as floats, bools as bools, a compound's
/// members each of its own type.
fn yaml_of(value: &J, dt: &Datatype) -> serde_yaml::Value {
    use serde_yaml::Value as Y;
    match (value, dt) {
        (_, Datatype::Float16 | Datatype::Float32 | Datatype::Float64) => {
            float_of(value).map_or(Y::Null, Y::from)
        }
        (J::Number(n), Datatype::Bool) => Y::Bool(n.as_u64() != Some(0)),
        (J::Object(members), Datatype::Compound(c)) => Y::Mapping(
            c.members
                .iter()
                .filter_map(|m| {
                    let v = members.get(&m.name)?;
                    Some((Y::from(m.name.as_str()), yaml_of(v, &m.datatype)))
                })
                .collect(),
        ),
        (J::Array(items), Datatype::Array(a)) => {
            Y::Sequence(items.iter().map(|v| yaml_of(v, &a.base)).collect())
        }
        (J::Array(pair), Datatype::Complex64 | Datatype::Complex128) => Y::Sequence(
            pair.iter()
                .map(|v| yaml_of(v, &Datatype::Float64))
                .collect(),
        ),
        (other, _) => serde_yaml::to_value(other).unwrap_or(Y::Null),
    }
}

/// An attribute of a format that keeps JSON (Zarr): text, a number, or a
/// list of numbers of `element`'s type or of text.
fn untyped_attribute(value: &J, element: &Datatype) -> Option<Attribute> {
    let float = |v: &J| ndl_zarr::float_of_attribute(v).map(serde_yaml::Value::from);
    match value {
        // NaN and the infinities, as Python's `json` writes them.
        J::String(_) if float(value).is_some() => Attribute::new(float(value)?).ok(),
        J::String(s) => Some(Attribute::from(s.as_str())),
        J::Array(items)
            if !items.is_empty()
                && !items.iter().all(J::is_number)
                && items.iter().all(|v| float(v).is_some()) =>
        {
            let values = items.iter().filter_map(float).collect();
            let values = serde_yaml::Value::Sequence(values);
            Some(Attribute::long([items.len()], Datatype::Float64, values))
        }
        // Integers that fit an integer column's type are of it (CF's
        // flags); other numbers are `int64` (`uint64` past it) or
        // `double`, as JSON's.
        J::Array(items) if !items.is_empty() && items.iter().all(J::is_number) => {
            let of_column = element
                .as_int()
                .is_some()
                .then(|| of_element(value, element));
            of_column.flatten().or_else(|| {
                // `uint64` where an integer is past `int64`, as exact.
                let dt = if items.iter().all(J::is_i64) {
                    Datatype::Int64
                } else if items.iter().all(J::is_u64) {
                    Datatype::UInt64
                } else {
                    Datatype::Float64
                };
                Some(Attribute::long(
                    [items.len()],
                    dt.clone(),
                    values_of(value, &dt, 1),
                ))
            })
        }
        J::Array(items) if !items.is_empty() && items.iter().all(J::is_string) => {
            let values: Vec<serde_yaml::Value> = items
                .iter()
                .filter_map(|v| serde_yaml::to_value(v).ok())
                .collect();
            Some(Attribute::long([values.len()], Datatype::String, values))
        }
        other => Attribute::new(serde_yaml::to_value(other).ok()?).ok(),
    }
}

/// A dataset's fill as JSON holds it (NaN and the infinities as text,
/// HDF5's or Zarr's) as NDL's `storage.fillvalue`.
pub(crate) fn fillvalue(fill: &J) -> Option<serde_yaml::Value> {
    match fill {
        J::String(_) => float_of(fill).map(Into::into),
        number => serde_yaml::to_value(number).ok(),
    }
}

/// The number a JSON value of a float attribute holds: a number, or
/// NaN or an infinity, which JSON holds as text (`NaN`, `inf`, `-inf`)
/// or Zarr as Python's bare words ([`ndl_zarr::attribute_float`]).
pub(crate) fn float_of(value: &serde_json::Value) -> Option<f64> {
    if let Some(x) = ndl_zarr::float_of_attribute(value) {
        return Some(x);
    }
    match value {
        serde_json::Value::String(s) => match s.as_str() {
            "NaN" | "nan" => Some(f64::NAN),
            "inf" | "Infinity" => Some(f64::INFINITY),
            "-inf" | "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        other => other.as_f64(),
    }
}

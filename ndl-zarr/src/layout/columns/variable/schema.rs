//! The records a columns group holds when no Rust type says: its
//! `ndl_datatype` attribute, or for a group another tool wrote (xarray's),
//! a field per array, and the fills its options stand for `None` with.

use base64::Engine as _;
use ndl_runtime::record::{Bitmap, Column, Values};
use ndl_runtime::{Compound, Datatype, Member};
use serde_json::{Map, Value};

use super::leaves::{count_name, dotted, sample_dimension};
use crate::documents::read_group;
use crate::error::{Error, Result};
use crate::info::ArrayInfo;
use crate::layout::columns::infer_record;
use crate::metadata::NDL_DATATYPE;
use crate::store::Store;
use crate::strings::VlenKind;

/// The datatype and column template of the variable records in the
/// columns group `store`: `None` when the node is no group, or a group
/// whose records have no string, list or option (plain columns, read as
/// packed records).
pub(crate) fn records_of(store: &Store) -> Result<Option<(Datatype, Column)>> {
    let Some((_, attributes)) = read_group(store)? else {
        return Ok(None);
    };
    let datatype = match attributes.get(NDL_DATATYPE) {
        Some(value) => match serde_json::from_value::<Datatype>(value.clone()) {
            Ok(dt) if dt.variable_member().is_some() => dt,
            _ => return Ok(None),
        },
        None => match inferred(store)? {
            Some(dt) => dt,
            None => return Ok(None),
        },
    };
    let mut template = Column::template(&datatype).map_err(|e| Error::TypeMismatch {
        store: store.name.clone(),
        field: String::new(),
        message: e.to_string(),
    })?;
    set_fills(store, "", &mut template)?;
    Ok(Some((datatype, template)))
}

/// Gives each option of `column` (the field at the dotted path `name`)
/// that has no fill the one its array stores for `None`: a Rust type's
/// `Option` without `#[ndl(fill)]` reads the store's nulls as the store
/// says them.
pub(crate) fn set_fills(store: &Store, name: &str, column: &mut Column) -> Result<()> {
    match column {
        Column::Struct { fields, .. } => fields.iter_mut().try_for_each(|(n, c)| {
            let path = dotted(name, n);
            set_fills(store, &path, c)
        }),
        Column::Nullable { values, fill, .. } if fill.is_none() => {
            let array = store.child(name);
            *fill = match **values {
                Column::Strings { .. } => string_fill_of(&array)?,
                _ => fill_of(&ArrayInfo::read(&array)?, values),
            }
            .map(Box::new);
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The string a string array stores for `None`: its `fill_value`.
fn string_fill_of(array: &Store) -> Result<Option<Column>> {
    let Some(meta) = crate::strings::VlenMeta::probe(array)? else {
        return Ok(None);
    };
    Ok(meta.document["fill_value"]
        .as_str()
        .map(|text| Column::Strings {
            offsets: vec![0, text.len() as i64],
            data: text.as_bytes().to_vec(),
        }))
}

/// The value an array stores for `None`, as a one-record column shaped as
/// `like`: its `fill_value`, else its `_FillValue` attribute.
fn fill_of(info: &ArrayInfo, like: &Column) -> Option<Column> {
    if let Column::Bool(_) = like {
        let stored = info.metadata().get("fill_value").filter(|v| !v.is_null());
        let value = stored.or_else(|| info.attributes().get("_FillValue"))?;
        let bit = value.as_bool().or_else(|| value.as_u64().map(|n| n != 0))?;
        let mut bits = Bitmap::with_capacity(1);
        bits.push(bit);
        return Some(Column::Bool(bits));
    }
    let Column::Values { datatype, values } = like else {
        return None;
    };
    let stored = info.metadata().get("fill_value").filter(|v| !v.is_null());
    let value = stored.or_else(|| info.attributes().get("_FillValue"))?;
    let number = number_of(value)?;
    macro_rules! one {
        ($variant:ident, $t:ty) => {
            Values::$variant(vec![match number {
                Number::Float(x) => x as $t,
                Number::Int(i) => i as $t,
                Number::UInt(u) => u as $t,
            }])
        };
    }
    let values = match values {
        Values::I8(_) => one!(I8, i8),
        Values::I16(_) => one!(I16, i16),
        Values::I32(_) => one!(I32, i32),
        Values::I64(_) => one!(I64, i64),
        Values::U8(_) => one!(U8, u8),
        Values::U16(_) => one!(U16, u16),
        Values::U32(_) => one!(U32, u32),
        Values::U64(_) => one!(U64, u64),
        Values::F32(_) => one!(F32, f32),
        Values::F64(_) => one!(F64, f64),
        _ => return None,
    };
    Some(Column::Values {
        datatype: datatype.clone(),
        values,
    })
}

/// The float that a `_FillValue` attribute written as text holds: the
/// base64 of a little-endian `f64`, as xarray writes a float's in a v3
/// store, or NaN and the infinities as Zarr spells them; `None` for any
/// other value.
///
/// ```
/// use serde_json::json;
/// assert!(ndl_zarr::text_fill(&json!("AAAAAAAA+H8=")).unwrap().is_nan());
/// assert_eq!(ndl_zarr::text_fill(&json!("-Infinity")), Some(f64::NEG_INFINITY));
/// assert_eq!(ndl_zarr::text_fill(&json!(1.5)), None);
/// ```
pub fn text_fill(value: &Value) -> Option<f64> {
    match (value, number_of(value)?) {
        (Value::String(_), Number::Float(x)) => Some(x),
        _ => None,
    }
}

/// A fill value read from JSON.
#[derive(Clone, Copy)]
enum Number {
    Float(f64),
    Int(i64),
    UInt(u64),
}

/// A JSON fill value: a number, `"NaN"` and the infinities as Zarr
/// writes them, or the base64 of a little-endian `f64`, as xarray writes
/// a float's `_FillValue` in v3.
fn number_of(value: &Value) -> Option<Number> {
    if let Some(u) = value.as_u64() {
        return Some(Number::UInt(u));
    }
    if let Some(i) = value.as_i64() {
        return Some(Number::Int(i));
    }
    if let Some(x) = crate::float_of_attribute(value) {
        return Some(Number::Float(x));
    }
    let text = value.as_str()?;
    match text {
        "NaN" => Some(Number::Float(f64::NAN)),
        "Infinity" => Some(Number::Float(f64::INFINITY)),
        "-Infinity" => Some(Number::Float(f64::NEG_INFINITY)),
        _ => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text)
                .ok()?;
            Some(Number::Float(f64::from_le_bytes(bytes.try_into().ok()?)))
        }
    }
}

/// Whether every string column (the items of a ragged array aside) has
/// as many values as each other and as `column`, a fixed one, if any.
fn texts_fit(arrays: &[(String, Found)], ragged: &[&str], column: Option<&ArrayInfo>) -> bool {
    let mut lens = arrays.iter().filter_map(|(name, found)| match found {
        Found::Text(len, _) if !ragged.contains(&name.as_str()) => Some(*len),
        _ => None,
    });
    let want = column.and_then(|info| info.shape().first().copied());
    let Some(first) = want.or_else(|| lens.next()) else {
        return true;
    };
    lens.all(|len| len == first)
}

/// Whether `info`'s fill stands for missing values, as xarray reads it: a
/// `_FillValue`, or in v2 its [`v2_missing_value`](ArrayInfo::v2_missing_value).
fn marks_missing(info: &ArrayInfo) -> bool {
    info.attributes().contains_key("_FillValue") || info.v2_missing_value().is_some()
}

/// One array of a group another tool wrote.
enum Found {
    /// Strings, this many, along the dimension named, where it is.
    Text(u64, Option<String>),
    /// Fixed-size values.
    Fixed(Box<ArrayInfo>),
}

impl Found {
    /// The name of its first dimension, where it names it.
    fn first_dimension(&self) -> Option<String> {
        match self {
            Found::Text(_, first) => first.clone(),
            Found::Fixed(info) => first_named(info.dimension_names(), info.attributes()),
        }
    }
}

/// The name of an array's first dimension: v3's `dimension_names`, else
/// xarray's v2 `_ARRAY_DIMENSIONS` attribute.
fn first_named(
    names: Option<&[Option<String>]>,
    attributes: &Map<String, Value>,
) -> Option<String> {
    if let Some(names) = names {
        return names.first().cloned().flatten();
    }
    let listed = attributes.get("_ARRAY_DIMENSIONS")?.as_array()?;
    listed.first()?.as_str().map(str::to_string)
}

/// The records of a group another tool wrote, when some array holds
/// strings or is a CF contiguous ragged array (`<name>_count` with a
/// `sample_dimension`, items in `<name>`); `None` otherwise. Fields come
/// in name order; a column with a `_FillValue` is an option.
fn inferred(store: &Store) -> Result<Option<Datatype>> {
    let Some(arrays) = group_children(store)? else {
        return Ok(None);
    };
    let ragged: Vec<&str> = arrays
        .iter()
        .filter_map(|(name, found)| {
            let Found::Fixed(info) = found else {
                return None;
            };
            let base = name.strip_suffix("_count")?;
            let sample = info.attributes().get("sample_dimension")?.as_str()?;
            (sample == sample_dimension(base) && arrays.iter().any(|(n, _)| n == base))
                .then_some(base)
        })
        .collect();
    let has_text = arrays.iter().any(|(_, f)| matches!(f, Found::Text(..)));
    if ragged.is_empty() && !has_text {
        return Ok(None);
    }
    // Arrays along other dimensions than the records' (an xarray grid
    // beside labels of its second dimension, of as many) are no columns.
    let mut firsts = arrays
        .iter()
        .filter(|(name, _)| !ragged.contains(&name.as_str()))
        .filter_map(|(_, found)| found.first_dimension());
    if let Some(first) = firsts.next()
        && firsts.any(|other| other != first)
    {
        return Ok(None);
    }
    let mut fixed = Vec::new();
    let mut members = Vec::new();
    for (name, found) in &arrays {
        let is_items = ragged.contains(&name.as_str());
        let is_count = ragged.iter().any(|r| count_name(r) == *name);
        match found {
            _ if is_count => {}
            Found::Text(..) if is_items => members.push(member(name, Datatype::String, true)),
            Found::Fixed(info) if is_items => {
                members.push(member(name, info.stored_datatype().clone(), true))
            }
            Found::Text(..) => members.push(member(name, Datatype::String, false)),
            Found::Fixed(info) => {
                fixed.push((name.clone(), (**info).clone()));
                members.push(member(name, Datatype::Bool, false));
            }
        }
    }
    // Arrays of other shapes beside the strings (an xarray dataset of a
    // grid and its labels) make a group of arrays, not of records.
    let typed = infer_record(&fixed).map_err(|(field, e)| Error::TypeMismatch {
        store: store.name.clone(),
        field,
        message: format!("its units read as CF time but are not: {e}"),
    })?;
    let Some(Datatype::Compound(typed)) = typed else {
        return Ok(None);
    };
    if !texts_fit(&arrays, &ragged, fixed.first().map(|(_, info)| info)) {
        return Ok(None);
    }
    for (m, (name, info)) in typed.members.iter().zip(&fixed) {
        let optional = marks_missing(info) && !matches!(m.datatype, Datatype::Time(_));
        let datatype = if optional {
            Datatype::Optional(Box::new(m.datatype.clone()))
        } else {
            m.datatype.clone()
        };
        if let Some(slot) = members.iter_mut().find(|x| &x.name == name) {
            slot.datatype = datatype;
        }
    }
    let compound = Compound::variable(members).map_err(|e| Error::Shape {
        store: store.name.clone(),
        message: e.to_string(),
    })?;
    Ok(Some(Datatype::Compound(compound)))
}

fn member(name: &str, datatype: Datatype, ragged: bool) -> Member {
    let datatype = if ragged {
        Datatype::Vlen(Box::new(datatype))
    } else {
        datatype
    };
    Member::new(name.to_string(), 0, datatype)
}

/// The arrays directly in the group `store`, in name order: string
/// arrays, and arrays of fixed-size values; `None` where one is no column
/// of records (variable-length bytes, strings of more dimensions than
/// one), which makes the group a dataset of arrays.
fn group_children(store: &Store) -> Result<Option<Vec<(String, Found)>>> {
    let crate::info::Children {
        arrays: fixed,
        vlen,
        ..
    } = crate::info::group_children(store)?;
    let mut arrays: Vec<(String, Found)> = fixed
        .into_iter()
        .map(|(name, info)| (name, Found::Fixed(Box::new(info))))
        .collect();
    for (name, meta) in vlen {
        if meta.kind == VlenKind::Text && meta.shape.len() == 1 {
            let first = first_named(meta.dimension_names.as_deref(), &meta.attributes);
            arrays.push((name, Found::Text(meta.shape[0], first)));
            continue;
        }
        return Ok(None);
    }
    arrays.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Some(arrays))
}

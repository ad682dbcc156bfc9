//! How CF reads a variable's stored numbers, as xarray does: netCDF-3's
//! `_Unsigned = "true"` integers as unsigned; packed values (CF §8.1:
//! `scale_factor`, `add_offset`) as the floats they stand for,
//! `stored * scale_factor + add_offset`; and the values `_FillValue` and
//! `missing_value` name as NaN, integers then read as floats.
//!
//! Plain data: what a variable's attributes say, and what becomes of one
//! number. The sources that apply it are `cf_decoded` (one variable) and
//! `cf_table` (the columns of a table).

use std::collections::BTreeMap;

use ndl_runtime::Datatype;
use serde_json::{Map, Value};

use crate::attribute_json::float_of;

/// The attributes an unpacking uses up, as xarray takes them out of a
/// variable's attributes (it keeps `valid_*`, which may be of the packed
/// values or of the unpacked ones).
const PACKING_ATTRIBUTES: &[&str] = &["scale_factor", "add_offset", "missing_value", "_Unsigned"];

/// The attributes a masking of fills uses up (the values keep their units
/// and range).
const MASKING_ATTRIBUTES: &[&str] = &["missing_value", "_Unsigned"];

/// netCDF-3's mark of unsigned integers stored as signed ones.
const UNSIGNED_ATTRIBUTES: &[&str] = &["_Unsigned"];

/// How a variable's stored numbers are read.
#[derive(Clone, Debug)]
pub(crate) struct CfNumbers {
    /// What the stored bytes are: unsigned integers for `_Unsigned`.
    pub read_as: Datatype,
    /// What each then becomes; `None` where it is read as it is.
    pub scaling: Option<Scaling>,
}

/// Stored numbers made floats: unpacked, and their fills NaN.
#[derive(Clone, Debug)]
pub(crate) struct Scaling {
    scale: f64,
    offset: f64,
    /// Whether `scale_factor` or `add_offset` is given (else only fills
    /// are masked).
    packed: bool,
    /// The stored values that stand for none.
    missing: Vec<f64>,
    /// The attributes that name them: `_FillValue`, `missing_value` or
    /// both.
    named_by: &'static str,
    /// The floats the values become (xarray's choice of width).
    pub unpacked: Datatype,
}

impl CfNumbers {
    /// How the numbers of a variable stored as `stored` with `attributes`
    /// (their elements of `types`, where the format keeps them) are read;
    /// `None` where they are read as stored.
    pub(crate) fn of(
        stored: &Datatype,
        attributes: &Map<String, Value>,
        types: &BTreeMap<String, Datatype>,
    ) -> Option<CfNumbers> {
        let is_float = matches!(stored, Datatype::Float32 | Datatype::Float64);
        if stored.as_int().is_none() && !is_float {
            return None;
        }
        let read_as = match attributes.get("_Unsigned").and_then(Value::as_str) {
            Some("true") => unsigned(stored).unwrap_or_else(|| stored.clone()),
            _ => stored.clone(),
        };
        let scaling = Scaling::of(&read_as, attributes, types);
        (scaling.is_some() || read_as != *stored).then_some(CfNumbers { read_as, scaling })
    }

    /// The datatype of the numbers as read.
    pub(crate) fn datatype(&self) -> &Datatype {
        self.scaling.as_ref().map_or(&self.read_as, |s| &s.unpacked)
    }

    /// The attributes this reading uses up.
    pub(crate) fn used(&self) -> &'static [&'static str] {
        match &self.scaling {
            Some(s) if s.packed => PACKING_ATTRIBUTES,
            Some(_) => MASKING_ATTRIBUTES,
            None => UNSIGNED_ATTRIBUTES,
        }
    }

    /// What a note says of variable `name`'s numbers.
    pub(crate) fn note(&self, name: &str) -> String {
        let read_as = ndl_runtime::schema::describe(self.datatype());
        let Some(s) = &self.scaling else {
            return format!(
                "variable `{name}`: its _Unsigned integers are read as {read_as}, as xarray \
                 reads them"
            );
        };
        let fills = match s.missing.is_empty() {
            true => String::new(),
            false => format!("its {} as NaN, ", s.named_by),
        };
        match s.packed {
            true => format!(
                "variable `{name}`: its packed values (scale_factor {}, add_offset {}) are read \
                 as {read_as}, {fills}as xarray reads them",
                s.scale, s.offset
            ),
            false => format!(
                "variable `{name}`: values equal to its {} ({}) are read as NaN, and its values \
                 as {read_as}, as xarray reads them",
                s.named_by,
                s.missing
                    .iter()
                    .map(|&m| match m.fract() == 0.0 && m.abs() < 1e15 {
                        true => format!("{m:.0}"),
                        false => format!("{m:?}"),
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// Makes `stored`, one number as stored in native byte order, into
    /// `out`, the number as read (of [`Self::datatype`]'s size).
    pub(crate) fn decode(&self, stored: &[u8], out: &mut [u8]) {
        let Some(s) = &self.scaling else {
            out.copy_from_slice(stored);
            return;
        };
        let value = s.apply(as_f64(&self.read_as, stored));
        match s.unpacked {
            Datatype::Float32 => out.copy_from_slice(&(value as f32).to_ne_bytes()),
            _ => out.copy_from_slice(&value.to_ne_bytes()),
        }
    }
}

impl Scaling {
    fn of(
        stored: &Datatype,
        attributes: &Map<String, Value>,
        types: &BTreeMap<String, Datatype>,
    ) -> Option<Scaling> {
        let number = |key: &str| first_number(attributes.get(key)?);
        let (scale, offset) = (number("scale_factor"), number("add_offset"));
        let packed = scale.is_some() || offset.is_some();
        let is_float = matches!(stored, Datatype::Float32 | Datatype::Float64);
        let missing: Vec<f64> = ["_FillValue", "missing_value"]
            .iter()
            .filter_map(|k| attributes.get(*k))
            .flat_map(|v| match v {
                Value::Array(items) => items.iter().filter_map(float_of).collect(),
                one => float_of(one).into_iter().collect::<Vec<_>>(),
            })
            .map(|m| unsigned_fill(stored, m))
            // A float's NaN fill is NaN as read already.
            .filter(|m| !(is_float && m.is_nan()))
            .collect();
        if !packed && missing.is_empty() {
            return None;
        }
        let named_by = match ["_FillValue", "missing_value"].map(|k| attributes.contains_key(k)) {
            [true, true] => "_FillValue and missing_value",
            [true, false] => "_FillValue",
            _ => "missing_value",
        };
        let narrow = stored.size().is_some_and(|s| s <= 2) || *stored == Datatype::Float32;
        let float32 = match packed {
            // Packed: float32 where the attributes are and the values are
            // 16-bit or narrower.
            true => {
                narrow
                    && ["scale_factor", "add_offset"]
                        .into_iter()
                        .filter(|k| attributes.contains_key(*k))
                        .all(|k| types.get(k) == Some(&Datatype::Float32))
            }
            // Masked alone: a float keeps its width, an integer of 16 bits
            // or fewer becomes float32 (NumPy's promotion).
            false => narrow,
        };
        Some(Scaling {
            scale: scale.unwrap_or(1.0),
            offset: offset.unwrap_or(0.0),
            packed,
            missing,
            named_by,
            unpacked: if float32 {
                Datatype::Float32
            } else {
                Datatype::Float64
            },
        })
    }

    fn apply(&self, stored: f64) -> f64 {
        let none = self
            .missing
            .iter()
            .any(|&m| m == stored || (m.is_nan() && stored.is_nan()));
        if none {
            f64::NAN
        } else {
            stored * self.scale + self.offset
        }
    }
}

fn first_number(value: &Value) -> Option<f64> {
    match value {
        Value::Array(items) if items.len() == 1 => float_of(&items[0]),
        other => float_of(other),
    }
}

/// A fill `m` given signed for values read as unsigned (`_Unsigned`), as
/// the unsigned value of its bits.
fn unsigned_fill(stored: &Datatype, m: f64) -> f64 {
    let bits = match stored {
        Datatype::UInt8 => 8,
        Datatype::UInt16 => 16,
        Datatype::UInt32 => 32,
        Datatype::UInt64 => 64,
        _ => return m,
    };
    if m < 0.0 { m + 2f64.powi(bits) } else { m }
}

/// The unsigned integers of the width of `dt`, a signed one.
fn unsigned(dt: &Datatype) -> Option<Datatype> {
    Some(match dt {
        Datatype::Int8 => Datatype::UInt8,
        Datatype::Int16 => Datatype::UInt16,
        Datatype::Int32 => Datatype::UInt32,
        Datatype::Int64 => Datatype::UInt64,
        _ => return None,
    })
}

/// A native-order stored number as `f64`.
fn as_f64(datatype: &Datatype, b: &[u8]) -> f64 {
    match (datatype.as_int(), datatype) {
        (Some(int), _) => int.read_ne(b) as f64,
        (None, Datatype::Float32) => {
            f64::from(f32::from_ne_bytes(b.try_into().unwrap_or_default()))
        }
        (None, _) => f64::from_ne_bytes(b.try_into().unwrap_or_default()),
    }
}

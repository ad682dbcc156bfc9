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

/// xarray's mark of bools stored as integers.
const BOOL_ATTRIBUTES: &[&str] = &["dtype", "_Unsigned"];

/// How a variable's stored numbers are read.
#[derive(Clone, Debug)]
pub(crate) struct CfNumbers {
    /// What the stored bytes are: unsigned integers for `_Unsigned`.
    pub read_as: Datatype,
    /// What each then becomes; `None` where it is read as it is.
    pub scaling: Option<Scaling>,
    /// Whether the integers are bools (xarray's `dtype: bool`): any but
    /// zero true.
    pub to_bool: bool,
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
    missing: Missing,
    /// The attributes that name them: `_FillValue`, `missing_value` or
    /// both.
    named_by: &'static str,
    /// The floats the values become (xarray's choice of width).
    pub unpacked: Datatype,
}

/// The stored values that stand for none: integers compared exactly (a
/// 64-bit fill is no `f64`: its neighbours would be masked with it),
/// floats as floats.
#[derive(Clone, Debug)]
enum Missing {
    Ints(Vec<i128>),
    Floats(Vec<f64>),
}

impl Missing {
    /// The values of the fill attributes `given`, for numbers read as
    /// `read_as`: a fill given signed for values read unsigned
    /// (`_Unsigned`) as the unsigned value of its bits; a float's NaN left
    /// out, being NaN as read already.
    fn of<'a>(read_as: &Datatype, given: impl Iterator<Item = &'a Value>) -> Missing {
        let items = given.flat_map(|v| match v {
            Value::Array(items) => items.iter().collect::<Vec<_>>(),
            one => vec![one],
        });
        match read_as.as_int() {
            Some(int) => Missing::Ints(
                items
                    .filter_map(int_of)
                    .map(|m| match m < 0 && !int.is_signed() {
                        true => m + (1i128 << (8 * int.size())),
                        false => m,
                    })
                    .collect(),
            ),
            None => Missing::Floats(items.filter_map(float_of).filter(|m| !m.is_nan()).collect()),
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Missing::Ints(v) => v.is_empty(),
            Missing::Floats(v) => v.is_empty(),
        }
    }

    /// Whether `stored`, one number of `read_as` in native order, is one.
    fn holds(&self, read_as: &Datatype, stored: &[u8]) -> bool {
        match (self, read_as.as_int()) {
            (Missing::Ints(v), Some(int)) => v.contains(&int.read_ne(stored)),
            (Missing::Floats(v), _) => v.contains(&as_f64(read_as, stored)),
            _ => false,
        }
    }

    /// The values, as a note gives them.
    fn texts(&self) -> Vec<String> {
        match self {
            Missing::Ints(v) => v.iter().map(i128::to_string).collect(),
            Missing::Floats(v) => v.iter().map(|m| format!("{m:?}")).collect(),
        }
    }
}

/// An integer fill as JSON holds it: an integer, or a float of an
/// integer's value.
fn int_of(value: &Value) -> Option<i128> {
    if let Some(i) = value.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = value.as_u64() {
        return Some(i128::from(u));
    }
    let x = value.as_f64()?;
    (x.fract() == 0.0 && x.abs() < 2f64.powi(127)).then_some(x as i128)
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
        let to_bool = scaling.is_none()
            && !is_float
            && attributes.get("dtype").and_then(Value::as_str) == Some("bool");
        (scaling.is_some() || to_bool || read_as != *stored).then_some(CfNumbers {
            read_as,
            scaling,
            to_bool,
        })
    }

    /// The datatype of the numbers as read.
    pub(crate) fn datatype(&self) -> &Datatype {
        if self.to_bool {
            return &Datatype::Bool;
        }
        self.scaling.as_ref().map_or(&self.read_as, |s| &s.unpacked)
    }

    /// Whether each value is made anew, not its bytes read as another
    /// type.
    pub(crate) fn decodes_values(&self) -> bool {
        self.scaling.is_some() || self.to_bool
    }

    /// The attributes this reading uses up.
    pub(crate) fn used(&self) -> &'static [&'static str] {
        if self.to_bool {
            return BOOL_ATTRIBUTES;
        }
        match &self.scaling {
            Some(s) if s.packed => PACKING_ATTRIBUTES,
            Some(_) => MASKING_ATTRIBUTES,
            None => UNSIGNED_ATTRIBUTES,
        }
    }

    /// What a note says of variable `name`'s numbers.
    pub(crate) fn note(&self, name: &str) -> String {
        let read_as = ndl_runtime::schema::describe(self.datatype());
        if self.to_bool {
            return format!(
                "variable `{name}`: its integers are read as bool (its dtype attribute says \
                 bool), as xarray reads them"
            );
        }
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
                s.missing.texts().join(", ")
            ),
        }
    }

    /// Makes `stored`, one number as stored in native byte order, into
    /// `out`, the number as read (of [`Self::datatype`]'s size).
    pub(crate) fn decode(&self, stored: &[u8], out: &mut [u8]) {
        if self.to_bool {
            out[0] = u8::from(stored.iter().any(|&b| b != 0));
            return;
        }
        let Some(s) = &self.scaling else {
            out.copy_from_slice(stored);
            return;
        };
        let value = match s.missing.holds(&self.read_as, stored) {
            true => f64::NAN,
            // Unscaled values as they are: `-0.0 + 0.0` is `+0.0`.
            false => match (s.scale, s.offset) {
                (1.0, 0.0) => as_f64(&self.read_as, stored),
                (scale, 0.0) => as_f64(&self.read_as, stored) * scale,
                (scale, offset) => as_f64(&self.read_as, stored) * scale + offset,
            },
        };
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
        let given = ["_FillValue", "missing_value"].iter();
        let missing = Missing::of(stored, given.filter_map(|k| attributes.get(*k)));
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
}

fn first_number(value: &Value) -> Option<f64> {
    match value {
        Value::Array(items) if items.len() == 1 => float_of(&items[0]),
        other => float_of(other),
    }
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

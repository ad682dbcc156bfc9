//! Stored CF time values turned into the counts of a NumPy time type, as
//! a reader of time columns others wrote needs them: int64 or float64
//! counts of the `units`, with a fill value for NaT.

use super::{CfDecoder, CfTimeUnits};
use crate::time::{BaseUnit, NumpyTimeUnit, TimeError, TimeKind};
use crate::{Datatype, IntType, TimeType};

/// How a CF time variable stores its counts: integers of any width to 32
/// bits or `int64`, or floats, as xarray and netCDF files hold them
/// (`int32` days since an epoch is common). [`CfValues`] decodes int64 or
/// float64 counts; [`CfCounts::widen`] makes those of the others.
///
/// ```
/// use ndl_runtime::time::CfCounts;
/// use ndl_runtime::Datatype;
///
/// let days = CfCounts::of(&Datatype::Int32).unwrap();
/// let stored: Vec<u8> = [-1i32, 7].iter().flat_map(|v| v.to_ne_bytes()).collect();
/// let mut wide = Vec::new();
/// days.widen(&stored, &mut wide);
/// assert_eq!(wide, [-1i64, 7].iter().flat_map(|v| v.to_ne_bytes()).collect::<Vec<u8>>());
/// assert!(!days.is_float());
/// assert!(CfCounts::of(&Datatype::UInt64).is_none()); // beyond int64
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CfCounts {
    /// Integers of any width but `uint64`, read as `int64`.
    Int(IntType),
    /// `float32`, read as `float64`.
    Float32,
    /// `float64`.
    Float64,
}

impl CfCounts {
    /// The counts of a variable of `stored`; `None` for datatypes that hold
    /// no CF time (`uint64` included: its values beyond int64 are no time).
    pub fn of(stored: &Datatype) -> Option<CfCounts> {
        match (stored, stored.as_int()) {
            (_, Some(IntType::UInt64)) => None,
            (_, Some(int)) => Some(CfCounts::Int(int)),
            (Datatype::Float32, _) => Some(CfCounts::Float32),
            (Datatype::Float64, _) => Some(CfCounts::Float64),
            _ => None,
        }
    }

    /// Whether the counts are floats, which [`CfValues`] reads as float64.
    pub fn is_float(self) -> bool {
        !matches!(self, CfCounts::Int(_))
    }

    /// The size of one stored count.
    pub fn size(self) -> usize {
        match self {
            CfCounts::Int(int) => int.size(),
            CfCounts::Float32 => 4,
            CfCounts::Float64 => 8,
        }
    }

    /// Whether the stored counts are already the int64 or float64 values
    /// [`CfValues`] reads, so need no [`CfCounts::widen`].
    pub fn is_wide(self) -> bool {
        self.size() == 8
    }

    /// Appends native-order `stored` counts to `out` as native-order int64
    /// (integers) or float64 (floats), exactly.
    pub fn widen(self, stored: &[u8], out: &mut Vec<u8>) {
        out.reserve(stored.len() / self.size() * 8);
        for v in stored.chunks_exact(self.size()) {
            let wide = match self {
                // Every integer type but uint64 (refused by `of`) fits.
                CfCounts::Int(int) => (int.read_ne(v) as i64).to_ne_bytes(),
                CfCounts::Float32 => f64::from(f32::from_ne_bytes(bytes(v))).to_ne_bytes(),
                CfCounts::Float64 => bytes(v),
            };
            out.extend_from_slice(&wide);
        }
    }
}

/// The time type that a numeric variable of `stored` with CF attributes
/// `units` and `calendar` holds, as a reader of others' files makes it a
/// field: counts of the units' own unit for integers, nanoseconds for
/// floats (xarray rounds them so).
///
/// `Ok(None)` where the variable holds no CF time: no `units`, units of
/// something else (`K`, `m s-1`), a calendar whose days are not NumPy's
/// (`noleap`), or a datatype of no counts. Units that say `since` but do
/// not parse (`furlongs since 1970-01-01`, `days since 2000-13-45`) are an
/// error: the numbers were meant as times, and guessing would be wrong.
///
/// ```
/// use ndl_runtime::time::cf_time_type;
/// use ndl_runtime::Datatype;
///
/// let days = cf_time_type(&Datatype::Int32, Some("days since 2000-01-01"), None)?.unwrap();
/// assert_eq!(days.to_string(), "M8[D]");
/// let floats = cf_time_type(&Datatype::Float32, Some("hours since 2000-01-01"), None)?.unwrap();
/// assert_eq!(floats.to_string(), "M8[ns]");
/// assert_eq!(cf_time_type(&Datatype::Int32, Some("K"), None)?, None);
/// assert_eq!(cf_time_type(&Datatype::Int32, Some("days since 2000-01-01"), Some("noleap"))?, None);
/// assert!(cf_time_type(&Datatype::Int32, Some("furlongs since 1970-01-01"), None).is_err());
/// assert!(cf_time_type(&Datatype::Int32, Some("seconds since yesterday"), None).is_err());
/// # Ok::<(), ndl_runtime::time::TimeError>(())
/// ```
pub fn cf_time_type(
    stored: &Datatype,
    units: Option<&str>,
    calendar: Option<&str>,
) -> Result<Option<TimeType>, TimeError> {
    let (Some(counts), Some(units)) = (CfCounts::of(stored), units) else {
        return Ok(None);
    };
    let cf = match CfTimeUnits::parse(units, calendar) {
        Ok(cf) => cf,
        Err(TimeError::Calendar(_)) => return Ok(None),
        Err(e) if says_since(units) => return Err(e),
        Err(_) => return Ok(None),
    };
    let unit = if counts.is_float() {
        BaseUnit::Nanos
    } else {
        cf.exact_unit()
    };
    Ok(Some(TimeType {
        kind: cf.kind(),
        unit: NumpyTimeUnit::new(unit),
    }))
}

/// Whether `units` have CF time's form `<unit> since <epoch>`.
fn says_since(units: &str) -> bool {
    units
        .split_whitespace()
        .nth(1)
        .is_some_and(|word| word.eq_ignore_ascii_case("since"))
}

/// The first N bytes of `v`, which has them.
fn bytes<const N: usize>(v: &[u8]) -> [u8; N] {
    v[..N].try_into().expect("a whole value")
}

/// How the stored values of a CF time variable become counts of a field's
/// time type.
///
/// ```
/// use ndl_runtime::time::{CfTimeUnits, CfValues};
///
/// let units = CfTimeUnits::parse("hours since 2000-01-01", None)?;
/// let values = CfValues::new("M8[s]".parse()?, &units, false, Some(-1.0), Some(-1))?
///     .expect("hours since 2000 are not seconds since 1970");
/// let mut stored: Vec<u8> = [0i64, 1, -1].iter().flat_map(|v| v.to_ne_bytes()).collect();
/// values.apply(&mut stored).unwrap();
/// let counts: Vec<i64> = stored.chunks(8).map(|b| i64::from_ne_bytes(b.try_into().unwrap())).collect();
/// assert_eq!(counts, [946_684_800, 946_688_400, i64::MIN]); // the fill is NaT
/// # Ok::<(), ndl_runtime::time::TimeError>(())
/// ```
#[derive(Clone, Debug)]
pub struct CfValues {
    decoder: CfDecoder,
    float: bool,
    /// The stored value that means NaT, as a float and as an integer.
    fill: Option<f64>,
    fill_int: Option<i64>,
}

impl CfValues {
    /// The decoding of values stored as `units` (float64 where `float`,
    /// else int64), `fill` meaning NaT, into counts of `field`; `None`
    /// where they already are its counts (int64 in `field`'s own CF units,
    /// NaT as the fill or none). Instants stored as durations, or the
    /// reverse, are an error.
    pub fn new(
        field: TimeType,
        units: &CfTimeUnits,
        float: bool,
        fill: Option<f64>,
        fill_int: Option<i64>,
    ) -> Result<Option<CfValues>, TimeError> {
        if units.kind() != field.kind {
            return Err(TimeError::KindMismatch {
                units: units.to_string(),
                stored: kind_name(units.kind()),
                field: kind_name(field.kind),
            });
        }
        let identity = CfTimeUnits::of(field).is_ok_and(|ours| ours == *units);
        if !float && identity && fill_int.is_none_or(|f| f == i64::MIN) {
            return Ok(None);
        }
        Ok(Some(CfValues {
            decoder: units.decoder(field.unit)?,
            float,
            fill,
            fill_int,
        }))
    }

    /// Decodes native-order stored values in place into the field's
    /// counts; the error gives the index of the value that does not fit.
    pub fn apply(&self, values: &mut [u8]) -> Result<(), (usize, TimeError)> {
        for (i, v) in values.chunks_exact_mut(8).enumerate() {
            let bytes: [u8; 8] = (*v).try_into().expect("8 bytes");
            let count = if self.float {
                let x = f64::from_ne_bytes(bytes);
                if self.fill == Some(x) {
                    i64::MIN
                } else {
                    self.decoder.decode_f64(x).map_err(|e| (i, e))?
                }
            } else {
                let n = i64::from_ne_bytes(bytes);
                if n == i64::MIN || self.fill_int == Some(n) {
                    i64::MIN
                } else {
                    self.decoder.decode(n).map_err(|e| (i, e))?
                }
            };
            v.copy_from_slice(&count.to_ne_bytes());
        }
        Ok(())
    }
}

fn kind_name(kind: TimeKind) -> &'static str {
    match kind {
        TimeKind::DateTime => "instants",
        TimeKind::TimeDelta => "durations",
    }
}

//! One variable's CF encodings undone, as xarray reads the variable:
//! counts of time with `units` `<unit> since <epoch>` as times (the fill
//! as NaT), and packed values (CF §8.1: `scale_factor`, `add_offset`) as
//! the floats they stand for, `stored * scale_factor + add_offset`, their
//! `_FillValue` and `missing_value` as NaN; netCDF-3's `_Unsigned`
//! integers as unsigned ones. A table's time columns are
//! decoded by the record sources; a file ndl wrote says its times itself.

use std::collections::BTreeMap;

use ndl_runtime::time::{CfCounts, CfValues, cf_time_type};
use ndl_runtime::{ArraySpec, ByteOrder, Datatype};
use serde_json::{Map, Value};

use crate::attribute_json::float_of;
use crate::error::{Error, Result};
use crate::source::{Origin, Source};

/// The attributes a time's decoding uses up.
const TIME_ATTRIBUTES: &[&str] = &["units", "calendar", "missing_value"];

/// The attributes an unpacking uses up, or that no longer hold once the
/// values are unpacked.
const PACKING_ATTRIBUTES: &[&str] = &[
    "scale_factor",
    "add_offset",
    "missing_value",
    "valid_range",
    "valid_min",
    "valid_max",
    "_Unsigned",
];

/// netCDF-3's mark of unsigned integers stored as signed ones.
const UNSIGNED_ATTRIBUTES: &[&str] = &["_Unsigned"];

/// `source`, the variable `name` whose attributes are `attributes` (their
/// elements of `types`), as xarray reads it: its CF encodings undone
/// ([`decoded`]), with the attributes a destination carries.
///
/// # Errors
/// As [`decoded`].
pub(crate) fn as_xarray_reads(
    source: Box<dyn Source>,
    name: &str,
    attributes: &Map<String, Value>,
    types: &BTreeMap<String, Datatype>,
) -> Result<Box<dyn Source>> {
    let (source, used) = decoded(source, name, attributes, types)?;
    Ok(crate::carried::with_attributes(
        source, attributes, types, used,
    ))
}

/// Refuses a table of the root group's variables of the HDF5 or netCDF
/// file at `path`, one of which is packed (see [`refuse_packed`]).
pub(crate) fn refuse_packed_variables(
    path: &std::path::Path,
    inventory: &ndl_hdf5::Inventory,
) -> Result<()> {
    let root = inventory.datasets.iter().filter(|d| d.group == "/");
    refuse_packed(path, root.map(|d| (d.name.as_str(), &d.attributes)))
}

/// Refuses the columns of the Zarr group at `path`, one of which is
/// packed (see [`refuse_packed`]).
pub(crate) fn refuse_packed_arrays(
    path: &std::path::Path,
    group: &ndl_zarr::GroupInfo,
) -> Result<()> {
    refuse_packed(
        path,
        group
            .arrays()
            .iter()
            .map(|(n, a)| (n.as_str(), a.attributes())),
    )
}

/// Refuses a table of the file at `path` one of whose `columns` (each a
/// name and its attributes) is packed (CF `scale_factor`, `add_offset`):
/// its records would hold numbers that mean nothing without the packing.
fn refuse_packed<'a>(
    path: &std::path::Path,
    mut columns: impl Iterator<Item = (&'a str, &'a Map<String, Value>)>,
) -> Result<()> {
    let packed =
        |a: &Map<String, Value>| a.contains_key("scale_factor") || a.contains_key("add_offset");
    let Some((name, _)) = columns.find(|(_, a)| packed(a)) else {
        return Ok(());
    };
    Err(Error::Unsupported {
        path: path.to_path_buf(),
        message: format!(
            "variable `{name}` is packed (scale_factor, add_offset), and records of the table \
             would hold its packed numbers: convert it alone with --member {name}, which \
             unpacks it as xarray does"
        ),
    })
}

/// `source`, an array ndl wrote, whose `ndl_datatype` says what it holds,
/// times included, with the attributes a destination carries, save the
/// CF time attributes a time's destination writes itself.
pub(crate) fn as_written(
    source: Box<dyn Source>,
    attributes: &Map<String, Value>,
    types: &BTreeMap<String, Datatype>,
) -> Box<dyn Source> {
    let used = match source.spec().datatype {
        Datatype::Time(_) => TIME_ATTRIBUTES,
        _ => &[],
    };
    crate::carried::with_attributes(source, attributes, types, used)
}

/// `source`, the variable `name` whose attributes are `attributes` (their
/// elements of `types`), with its CF encodings undone, and the attributes
/// that took; as it is when it has none.
///
/// # Errors
/// `units` that read as CF time but are not (`days since yesterday`):
/// converted as plain numbers, its times would be silently lost.
fn decoded(
    source: Box<dyn Source>,
    name: &str,
    attributes: &Map<String, Value>,
    types: &BTreeMap<String, Datatype>,
) -> Result<(Box<dyn Source>, &'static [&'static str])> {
    let stored = source.spec().datatype.clone();
    if stored.as_int().is_none() && !matches!(stored, Datatype::Float32 | Datatype::Float64) {
        return Ok((source, &[]));
    }
    let text = |key: &str| attributes.get(key).and_then(Value::as_str);
    let refused = |why: String| Error::Unsupported {
        path: source.location().to_path_buf(),
        message: format!("variable `{name}`: {why}; nothing was written"),
    };
    let time = cf_time_type(&stored, text("units"), text("calendar"))
        .map_err(|e| refused(format!("its units read as CF time but are not: {e}")))?;
    if let Some(field) = time {
        let fill = attributes
            .get("_FillValue")
            .or_else(|| attributes.get("missing_value"));
        let (counts, values) =
            CfValues::decoding(field, &stored, text("units"), text("calendar"), fill)
                .map_err(|e| refused(e.to_string()))?;
        let note = format!(
            "variable `{name}`: its counts of {} are read as times, {}, as xarray reads them",
            text("units").unwrap_or_default(),
            ndl_runtime::schema::describe(&Datatype::Time(field))
        );
        let spec = decoded_spec(source.spec(), Datatype::Time(field));
        let decode = Decode::Time { counts, values };
        let source = Box::new(Decoded::new((source, name), spec, decode, note));
        return Ok((source, TIME_ATTRIBUTES));
    }
    // netCDF-3 has no unsigned integers: `_Unsigned = "true"` says the
    // signed ones are read as unsigned, as xarray reads them.
    let read_as = match text("_Unsigned") {
        Some("true") => unsigned(&stored).unwrap_or(stored),
        _ => stored,
    };
    let Some(packing) = Packing::of(&read_as, attributes, types) else {
        if read_as == source.spec().datatype {
            return Ok((source, &[]));
        }
        let mut notes = source.notes().to_vec();
        notes.push(format!(
            "variable `{name}`: its _Unsigned integers are read as {}, as xarray reads them",
            ndl_runtime::schema::describe(&read_as)
        ));
        let source = crate::described::described(source, Some(read_as), None, notes);
        return Ok((source, UNSIGNED_ATTRIBUTES));
    };
    let note = format!(
        "variable `{name}`: its packed values (scale_factor {}, add_offset {}) are read as {}, \
         {}as xarray reads them",
        packing.scale,
        packing.offset,
        ndl_runtime::schema::describe(&packing.unpacked),
        match packing.missing.is_empty() {
            true => String::new(),
            false => "its _FillValue and missing_value as NaN, ".into(),
        }
    );
    let spec = decoded_spec(source.spec(), packing.unpacked.clone());
    let source = Box::new(Decoded::new(
        (source, name),
        spec,
        Decode::Unpack(packing, read_as),
        note,
    ));
    Ok((source, PACKING_ATTRIBUTES))
}

/// The spec of the decoded values: `datatype`, in native byte order.
fn decoded_spec(stored: &ArraySpec, datatype: Datatype) -> ArraySpec {
    ArraySpec {
        datatype,
        byte_order: ByteOrder::NATIVE,
        other_order: Vec::new(),
        ..stored.clone()
    }
}

/// How packed values unpack (CF §8.1).
struct Packing {
    scale: f64,
    offset: f64,
    /// The stored values that stand for none.
    missing: Vec<f64>,
    /// `float32` when the attributes are and the values are 16-bit or
    /// narrower (xarray's choice), else `float64`.
    unpacked: Datatype,
}

impl Packing {
    fn of(
        stored: &Datatype,
        attributes: &Map<String, Value>,
        types: &BTreeMap<String, Datatype>,
    ) -> Option<Packing> {
        let number = |key: &str| first_number(attributes.get(key)?);
        let (scale, offset) = (number("scale_factor"), number("add_offset"));
        if scale.is_none() && offset.is_none() {
            return None;
        }
        let said = ["scale_factor", "add_offset"]
            .into_iter()
            .filter(|k| attributes.contains_key(*k));
        let narrow = stored.size().is_some_and(|s| s <= 2) || *stored == Datatype::Float32;
        let float32 = narrow
            && said
                .clone()
                .all(|k| types.get(k) == Some(&Datatype::Float32));
        let missing = ["_FillValue", "missing_value"]
            .iter()
            .filter_map(|k| attributes.get(*k))
            .flat_map(|v| match v {
                Value::Array(items) => items.iter().filter_map(float_of).collect(),
                one => float_of(one).into_iter().collect::<Vec<_>>(),
            })
            .map(|m| unsigned_fill(stored, m))
            .collect();
        Some(Packing {
            scale: scale.unwrap_or(1.0),
            offset: offset.unwrap_or(0.0),
            missing,
            unpacked: if float32 {
                Datatype::Float32
            } else {
                Datatype::Float64
            },
        })
    }

    fn unpack(&self, stored: f64) -> f64 {
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

/// What becomes of each stored value.
enum Decode {
    Time {
        counts: CfCounts,
        values: Option<CfValues>,
    },
    /// The packing, and the integers the stored bytes are read as.
    Unpack(Packing, Datatype),
}

/// The decoded values of a source.
struct Decoded {
    inner: Box<dyn Source>,
    /// The variable's name, as errors give it.
    name: String,
    spec: ArraySpec,
    decode: Decode,
    notes: Vec<String>,
    stored: Vec<u8>,
    /// The elements handed out so far.
    done: u64,
}

impl Decoded {
    fn new(
        (inner, name): (Box<dyn Source>, &str),
        spec: ArraySpec,
        decode: Decode,
        note: String,
    ) -> Decoded {
        let mut notes = inner.notes().to_vec();
        notes.push(note);
        Decoded {
            inner,
            name: name.to_string(),
            spec,
            decode,
            notes,
            stored: Vec::new(),
            done: 0,
        }
    }
}

impl Source for Decoded {
    fn origin(&self) -> Origin<'_> {
        Origin::new(&self.spec, self.inner.location())
    }

    fn wrapped(&self) -> Option<&dyn Source> {
        Some(&*self.inner)
    }

    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let stored_type = self.inner.spec().datatype.clone();
        let size = stored_type.size().unwrap_or(1).clamp(1, 8);
        let swap = self.inner.spec().byte_order != ByteOrder::NATIVE;
        let out_size = self.spec.element_size().max(1);
        let n = buf.len() / out_size;
        self.stored.resize(n * size, 0);
        let got = self.inner.read(&mut self.stored)?;
        let (mut native, mut wide) = ([0u8; 8], Vec::with_capacity(8));
        for (stored, out) in self.stored[..got * size]
            .chunks_exact(size)
            .zip(buf.chunks_exact_mut(out_size))
        {
            let native = &mut native[..size];
            native.copy_from_slice(stored);
            if swap {
                native.reverse();
            }
            match &self.decode {
                Decode::Time { counts, .. } => {
                    wide.clear();
                    counts.widen(native, &mut wide);
                    out.copy_from_slice(&wide);
                }
                Decode::Unpack(packing, read_as) => {
                    let value = packing.unpack(as_f64(read_as, native));
                    match self.spec.datatype {
                        Datatype::Float32 => out.copy_from_slice(&(value as f32).to_ne_bytes()),
                        _ => out.copy_from_slice(&value.to_ne_bytes()),
                    }
                }
            }
        }
        if let Decode::Time {
            values: Some(values),
            ..
        } = &self.decode
        {
            values
                .apply(&mut buf[..got * out_size])
                .map_err(|(i, e)| Error::Unsupported {
                    path: self.inner.location().to_path_buf(),
                    message: format!(
                        "variable `{}`, element {} (in C order): {e}",
                        self.name,
                        self.done + i as u64
                    ),
                })?;
        }
        self.done += got as u64;
        Ok(got)
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
    macro_rules! from {
        ($t:ty) => {
            <$t>::from_ne_bytes(b.try_into().unwrap_or_default()) as f64
        };
    }
    match datatype {
        Datatype::Int8 => from!(i8),
        Datatype::UInt8 => from!(u8),
        Datatype::Int16 => from!(i16),
        Datatype::UInt16 => from!(u16),
        Datatype::Int32 => from!(i32),
        Datatype::UInt32 => from!(u32),
        Datatype::Int64 => from!(i64),
        Datatype::UInt64 => from!(u64),
        Datatype::Float32 => from!(f32),
        _ => from!(f64),
    }
}

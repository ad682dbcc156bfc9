//! One variable's CF encodings undone, as xarray reads the variable:
//! counts of time with `units` `<unit> since <epoch>` as times (the fill
//! as NaT), and its numbers as [`CfNumbers`] says (unsigned, unpacked,
//! fills as NaN). A table's time columns are decoded by the record
//! sources, its numbers by `cf_table`; a file ndl wrote says its times
//! itself. Or, for a destination that keeps them, not undone: the values
//! as stored, the encodings carried.

use std::collections::BTreeMap;

use ndl_runtime::ndl::Storage;
use ndl_runtime::time::{CfCounts, CfValues, cf_time_type};
use ndl_runtime::{ArraySpec, ByteOrder, Datatype};
use serde_json::{Map, Value};

use crate::cf_numbers::CfNumbers;
use crate::error::{Error, Result};
use crate::options::ReadOptions;
use crate::source::{Origin, Source};

/// The attributes a time's decoding uses up.
const TIME_ATTRIBUTES: &[&str] = &["units", "calendar", "missing_value", "dtype"];

/// `source`, the variable `name` whose attributes are `attributes` (with
/// their elements' types), as `options` ask: as xarray reads it, its CF
/// encodings undone ([`decoded`]) and the attributes a destination carries;
/// else as stored, its encodings among the attributes. Times that say
/// their type (ndl's own, `ndl_datatype`) are read as they are, whose
/// destination writes their CF attributes itself.
///
/// # Errors
/// As [`decoded`].
pub(crate) fn as_asked(
    source: Box<dyn Source>,
    name: &str,
    attributes: (&Map<String, Value>, &BTreeMap<String, Datatype>),
    options: &ReadOptions,
) -> Result<Box<dyn Source>> {
    if let Datatype::Time(_) = source.spec().datatype {
        let carried = crate::carried::with_attributes(source, attributes, TIME_ATTRIBUTES, options);
        return Ok(carried);
    }
    if !options.decodes_cf() {
        return Ok(crate::carried::with_encodings(source, attributes, options));
    }
    let (source, used) = decoded(source, name, attributes.0, attributes.1)?;
    Ok(crate::carried::with_attributes(
        source, attributes, used, options,
    ))
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
    let Some(numbers) = CfNumbers::of(&stored, attributes, types) else {
        return Ok((source, &[]));
    };
    let (note, used) = (numbers.note(name), numbers.used());
    if !numbers.decodes_values() {
        // The same bytes, read as unsigned.
        let mut notes = source.notes().to_vec();
        notes.push(note);
        let read_as = Some(numbers.read_as);
        return Ok((
            crate::described::described(source, read_as, None, notes),
            used,
        ));
    }
    let spec = decoded_spec(source.spec(), numbers.datatype().clone());
    let decode = Decode::Numbers(numbers);
    let source = Box::new(Decoded::new((source, name), spec, decode, note));
    Ok((source, used))
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

/// What becomes of each stored value.
enum Decode {
    Time {
        counts: CfCounts,
        values: Option<CfValues>,
    },
    /// Numbers unpacked, or their fills masked.
    Numbers(CfNumbers),
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

    /// None: the stored chunks and filters were made for the stored
    /// values, not for these wider ones.
    fn storage(&self) -> Option<&Storage> {
        None
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
                Decode::Numbers(numbers) => numbers.decode(native, out),
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

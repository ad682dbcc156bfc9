//! The columns of a table another tool wrote (a netCDF or HDF5 file's
//! root variables, a Zarr group's arrays), their numbers read as
//! xarray's `to_dataframe` gives them (see [`CfNumbers`]): netCDF-3's
//! `_Unsigned` integers as unsigned, packed columns unpacked, and the
//! values `_FillValue` and `missing_value` name as NaN, integers then
//! read as floats. A file ndl wrote is read as it says.

use std::collections::BTreeMap;

use ndl_runtime::{ArraySpec, ByteOrder, Compound, Datatype};
use serde_json::{Map, Value};

use crate::cf_numbers::CfNumbers;
use crate::error::{Error, Result};
use crate::source::{Origin, Source};

/// A column's name, its attributes and their elements' types (empty where
/// the format keeps none).
pub(crate) type ColumnAttributes<'a> = (
    &'a str,
    &'a Map<String, Value>,
    &'a BTreeMap<String, Datatype>,
);

/// `source`, records whose fields are the variables `columns` describe,
/// with each field's numbers read as [`CfNumbers`] says; `source` itself
/// where no field changes.
///
/// # Errors
/// A record whose new layout overflows.
pub(crate) fn decoded<'a>(
    source: Box<dyn Source>,
    columns: impl IntoIterator<Item = ColumnAttributes<'a>>,
) -> Result<Box<dyn Source>> {
    let columns: Vec<ColumnAttributes> = columns.into_iter().collect();
    let column = |name: &str| columns.iter().find(|(n, ..)| *n == name);
    let Datatype::Compound(record) = &source.spec().datatype else {
        return Ok(source);
    };
    let numbers: Vec<Option<CfNumbers>> = record
        .members
        .iter()
        .map(|m| {
            let (_, attributes, types) = column(&m.name)?;
            CfNumbers::of(m.datatype.innermost().0, attributes, types)
        })
        .collect();
    if numbers.iter().all(Option::is_none) {
        return Ok(source);
    }
    let source = crate::one_order::in_one_order(source);
    let stored = source.spec().clone();
    let Datatype::Compound(record) = &stored.datatype else {
        return Ok(source);
    };
    let laid_out = record.members.iter().zip(&numbers).map(|(m, n)| {
        let datatype = match n {
            Some(n) => n.datatype().clone().array_of(&m.datatype.innermost().1),
            None => m.datatype.clone(),
        };
        (m.name.clone(), datatype)
    });
    let mut decoded = Compound::c_layout(laid_out).map_err(|e| Error::Unsupported {
        path: source.location().to_path_buf(),
        message: format!("the table's records, read as xarray reads them: {e}"),
    })?;
    let mut fields = Vec::with_capacity(numbers.len());
    for ((old, new), numbers) in record.members.iter().zip(&mut decoded.members).zip(numbers) {
        new.description.clone_from(&old.description);
        new.units.clone_from(&old.units);
        new.dims.clone_from(&old.dims);
        fields.push(Field::new(old, new, numbers));
    }
    let mut notes = source.notes().to_vec();
    for (f, m) in fields.iter().zip(&record.members) {
        notes.extend(f.numbers.as_ref().map(|n| n.note(&m.name)));
    }
    let spec = ArraySpec {
        datatype: Datatype::Compound(decoded),
        ..stored
    };
    Ok(Box::new(DecodedTable {
        inner: source,
        spec,
        fields,
        notes,
        stored: Vec::new(),
    }))
}

/// Refuses the records with strings or lists of the root group's
/// variables of the HDF5 or netCDF file at `path`, one of which is
/// encoded (see [`refuse_encoded`]).
pub(crate) fn refuse_encoded_variables(
    path: &std::path::Path,
    inventory: &ndl_hdf5::Inventory,
) -> Result<()> {
    let root = inventory.datasets.iter().filter(|d| d.group == "/");
    refuse_encoded(path, root.map(|d| (d.name.as_str(), &d.attributes)))
}

/// Refuses the records with strings or lists of the Zarr group at
/// `path`, one of whose arrays is encoded (see [`refuse_encoded`]).
pub(crate) fn refuse_encoded_arrays(
    path: &std::path::Path,
    group: &ndl_zarr::GroupInfo,
) -> Result<()> {
    refuse_encoded(
        path,
        group
            .arrays()
            .iter()
            .map(|(n, a)| (n.as_str(), a.attributes())),
    )
}

/// Refuses the records with strings or lists of the file at `path` one of
/// whose `columns` (each a name and its attributes) is packed (CF
/// `scale_factor`, `add_offset`) or holds `_Unsigned` integers: the
/// records would hold numbers that mean nothing without them, and only
/// the records of fixed-size fields are read as xarray reads them.
fn refuse_encoded<'a>(
    path: &std::path::Path,
    mut columns: impl Iterator<Item = (&'a str, &'a Map<String, Value>)>,
) -> Result<()> {
    let encoded = |a: &Map<String, Value>| {
        let packed = a.contains_key("scale_factor") || a.contains_key("add_offset");
        let unsigned = a.get("_Unsigned").and_then(Value::as_str) == Some("true");
        match (packed, unsigned) {
            (true, _) => Some("is packed (scale_factor, add_offset)"),
            (_, true) => Some("holds _Unsigned integers"),
            _ => None,
        }
    };
    let Some((name, how)) = columns.find_map(|(n, a)| Some((n, encoded(a)?))) else {
        return Ok(());
    };
    Err(Error::Unsupported {
        path: path.to_path_buf(),
        message: format!(
            "variable `{name}` {how}, and a table holding strings or lists is read with its \
             numbers as stored: convert `{name}` alone with --member {name}, which reads it \
             as xarray does"
        ),
    })
}

/// Where one field is in a stored record and in a read one.
struct Field {
    from: usize,
    to: usize,
    /// Its bytes, where it is read as stored.
    size: usize,
    /// Its numbers and their sizes stored and read, where it changes.
    numbers: Option<CfNumbers>,
    count: usize,
    widths: (usize, usize),
}

impl Field {
    fn new(
        old: &ndl_runtime::Member,
        new: &ndl_runtime::Member,
        numbers: Option<CfNumbers>,
    ) -> Field {
        let (base, shape) = old.datatype.innermost();
        let width = |dt: &Datatype| dt.size().unwrap_or(0);
        Field {
            from: old.offset,
            to: new.offset,
            size: width(&old.datatype),
            widths: (
                width(base),
                numbers.as_ref().map_or(0, |n| width(n.datatype())),
            ),
            count: shape.iter().product(),
            numbers,
        }
    }

    /// Copies or decodes this field of the `stored` record into `out`,
    /// numbers in `order` both.
    fn read(&self, stored: &[u8], out: &mut [u8], order: ByteOrder) {
        let Some(numbers) = &self.numbers else {
            out[self.to..self.to + self.size]
                .copy_from_slice(&stored[self.from..self.from + self.size]);
            return;
        };
        let (from, to) = self.widths;
        let swap = order != ByteOrder::NATIVE;
        let mut native = [0u8; 8];
        for k in 0..self.count {
            let native = &mut native[..from];
            let at = self.from + k * from;
            native.copy_from_slice(&stored[at..at + from]);
            if swap {
                native.reverse();
            }
            let at = self.to + k * to;
            let value = &mut out[at..at + to];
            numbers.decode(native, value);
            if swap {
                value.reverse();
            }
        }
    }
}

/// A table's records with some fields' numbers decoded.
struct DecodedTable {
    inner: Box<dyn Source>,
    spec: ArraySpec,
    fields: Vec<Field>,
    notes: Vec<String>,
    stored: Vec<u8>,
}

impl Source for DecodedTable {
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
        let size = self.spec.element_size().max(1);
        let stored_size = self.inner.spec().element_size().max(1);
        let n = buf.len() / size;
        self.stored.resize(n * stored_size, 0);
        let got = self.inner.read(&mut self.stored)?;
        let out = &mut buf[..got * size];
        // Padding is written as zeros, never as what the buffer held.
        out.fill(0);
        let order = self.spec.byte_order;
        for (stored, out) in self.stored[..got * stored_size]
            .chunks_exact(stored_size)
            .zip(out.chunks_exact_mut(size))
        {
            for field in &self.fields {
                field.read(stored, out, order);
            }
        }
        Ok(got)
    }
}

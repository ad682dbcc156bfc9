//! Reading records with variable members back from the columns layout:
//! each field's array found by name, ragged arrays rebuilt from their
//! counts, options from their fill.

use ndl_runtime::record::{self, columns, Bitmap, Column, Values};
use ndl_runtime::records::PackedLayout;
use ndl_runtime::{Compound, Datatype, Record};

use super::leaves::{count_name, leaves, values_like, Kind, Leaf};
use crate::error::{Error, Result};
use crate::grid::GridReader;
use crate::layout::columns::ColumnsSource;
use crate::part_reader::{self, records_range, shape_error};
use crate::store::Store;
use crate::strings::VlenReader;

/// Reads every record of `T` from the columns store `store`.
pub(crate) fn read<T: Record>(store: &Store) -> Result<Vec<T>> {
    let template = columns::<T>(&[]);
    let leaves = leaves(&T::datatype(), &template)?;
    let fixed = read_fixed(store, &leaves)?;
    let n = fixed.n;
    let mut fields = Vec::new();
    for leaf in &leaves {
        let like = leaf_of(&template, &leaf.name);
        let column = match &leaf.kind {
            Kind::Fixed { fill, .. } => fixed.column(&leaf.name, like, fill.as_ref())?,
            Kind::Text => strings(store, &leaf.name, n)?,
            Kind::Ragged { items } => ragged(store, &leaf.name, &fixed, items.as_ref(), like)?,
        };
        fields.push((leaf.name.clone(), column));
    }
    let column = nest(&template, "", &mut fields, n);
    record::read::<T>(&column.view()).map_err(|e| Error::TypeMismatch {
        store: store.name.clone(),
        field: String::new(),
        message: e.to_string(),
    })
}

/// The fixed-size leaves and counts, packed, and where each one is.
struct Fixed {
    n: usize,
    size: usize,
    bytes: Vec<u8>,
    members: Compound,
    store: String,
}

fn read_fixed(store: &Store, leaves: &[Leaf]) -> Result<Fixed> {
    let mut members = Vec::new();
    for leaf in leaves {
        match &leaf.kind {
            Kind::Fixed { datatype, .. } => members.push((leaf.name.clone(), datatype.clone())),
            Kind::Ragged { .. } => members.push((count_name(&leaf.name), Datatype::Int64)),
            Kind::Text => {}
        }
    }
    let compound = Compound::c_layout(members).map_err(|e| shape_error(store, e.to_string()))?;
    let packed = PackedLayout::new(&Datatype::Compound(compound))
        .map_err(|e| shape_error(store, e.to_string()))?;
    let source = ColumnsSource::open(store, packed.datatype(), packed.size())?;
    let (range, n) = records_range(store, None, source.len())?;
    let bytes = part_reader::read_packed(&source, range, n)?;
    let Datatype::Compound(members) = packed.datatype().clone() else {
        return Err(shape_error(
            store,
            "the fixed-size fields are no compound".into(),
        ));
    };
    Ok(Fixed {
        n,
        size: packed.size(),
        bytes,
        members,
        store: store.name.clone(),
    })
}

impl Fixed {
    /// The bytes of column `name`, record after record.
    fn bytes_of(&self, name: &str) -> Result<Vec<u8>> {
        let m = self
            .members
            .member(name)
            .ok_or_else(|| Error::TypeMismatch {
                store: self.store.clone(),
                field: name.to_string(),
                message: "no such column".into(),
            })?;
        let width = m.datatype.size().unwrap_or(0);
        let mut out = Vec::with_capacity(self.n * width);
        for i in 0..self.n {
            out.extend_from_slice(&self.bytes[i * self.size + m.offset..][..width]);
        }
        Ok(out)
    }

    /// The column of the fixed leaf `name`, shaped as `like` (an empty
    /// column of the field); an option's `None` wherever it holds `fill`.
    fn column(&self, name: &str, like: Option<&Column>, fill: Option<&Column>) -> Result<Column> {
        let bytes = self.bytes_of(name)?;
        let Some(like) = like else {
            return Err(shape_error_named(&self.store, name, "no such field"));
        };
        let Column::Nullable { values, .. } = like else {
            return Ok(shaped(like, bytes, self.n));
        };
        let width = bytes.len() / self.n.max(1);
        let fill_bytes = fill
            .and_then(super::leaves::fixed_bytes)
            .unwrap_or_default();
        let mut validity = Bitmap::with_capacity(self.n);
        for value in bytes.chunks_exact(width.max(1)) {
            validity.push(value != fill_bytes.as_slice());
        }
        Ok(Column::Nullable {
            validity,
            values: Box::new(shaped(values, bytes, self.n)),
            fill: fill.map(|f| Box::new(f.clone())),
        })
    }

    /// The counts of the ragged array `name`, as offsets.
    fn offsets(&self, name: &str) -> Result<Vec<i64>> {
        let bytes = self.bytes_of(&count_name(name))?;
        let mut offsets = Vec::with_capacity(self.n + 1);
        let mut end = 0i64;
        offsets.push(end);
        for (i, c) in bytes.chunks_exact(8).enumerate() {
            let count = i64::from_ne_bytes(c.try_into().unwrap_or_default());
            end = end
                .checked_add(count)
                .filter(|_| count >= 0)
                .ok_or_else(|| {
                    shape_error_named(
                        &self.store,
                        &count_name(name),
                        &format!("record {i}: count {count} is no length"),
                    )
                })?;
            offsets.push(end);
        }
        Ok(offsets)
    }
}

/// `bytes` as a column shaped as `like`.
fn shaped(like: &Column, bytes: Vec<u8>, n: usize) -> Column {
    match like {
        Column::Values { datatype, values } => Column::Values {
            datatype: datatype.clone(),
            values: values_like(values, &bytes),
        },
        Column::Bool(_) => {
            let mut bits = Bitmap::with_capacity(n);
            bytes.iter().for_each(|&b| bits.push(b != 0));
            Column::Bool(bits)
        }
        Column::FixedList { size, values } => Column::FixedList {
            size: *size,
            values: Box::new(shaped(values, bytes, n * size)),
        },
        Column::Plain { datatype, .. } => Column::Plain {
            datatype: datatype.clone(),
            bytes,
        },
        other => other.clone(),
    }
}

/// The string array `name`, of `n` values.
fn strings(store: &Store, name: &str, n: usize) -> Result<Column> {
    let values = VlenReader::read(store.child(name))?.read_all()?;
    if values.len() != n {
        return Err(shape_error_named(
            &store.name,
            name,
            &format!("{} strings for {n} records", values.len()),
        ));
    }
    Ok(strings_column(values))
}

fn strings_column(values: crate::strings::VlenValues) -> Column {
    let (data, offsets) = values.into_parts();
    Column::Strings {
        offsets: offsets.into_iter().map(|o| o as i64).collect(),
        data,
    }
}

/// The ragged array `name`: its items, split by its counts.
fn ragged(
    store: &Store,
    name: &str,
    fixed: &Fixed,
    items: Option<&Datatype>,
    like: Option<&Column>,
) -> Result<Column> {
    let offsets = fixed.offsets(name)?;
    let total = offsets.last().copied().unwrap_or(0) as u64;
    let child = store.child(name);
    let (values, len) = match items {
        None => {
            let values = VlenReader::read(child)?.read_all()?;
            let len = values.len() as u64;
            (strings_column(values), len)
        }
        Some(datatype) => {
            let mut reader = GridReader::read(&child)?;
            let len = reader.shape().first().copied().unwrap_or(0);
            if len == total {
                let bytes = reader.read_all()?;
                let like = match like {
                    Some(Column::List { values, .. }) => values.as_ref().clone(),
                    _ => Column::Values {
                        datatype: datatype.clone(),
                        values: Values::F64(Vec::new()),
                    },
                };
                (shaped(&like, bytes, len as usize), len)
            } else {
                (Column::Bool(Bitmap::default()), len)
            }
        }
    };
    if len != total {
        return Err(shape_error_named(
            &store.name,
            name,
            &format!(
                "the counts of `{}` add up to {total} items, but `{name}` holds {len}",
                count_name(name)
            ),
        ));
    }
    Ok(Column::List {
        offsets,
        values: Box::new(values),
    })
}

fn shape_error_named(store: &str, array: &str, message: &str) -> Error {
    Error::Shape {
        store: store.to_string(),
        message: format!("array `{array}`: {message}"),
    }
}

/// The empty column of the leaf at the dotted path `name` of `template`.
fn leaf_of<'a>(template: &'a Column, name: &str) -> Option<&'a Column> {
    let Column::Struct { fields, .. } = template else {
        return None;
    };
    if let Some((_, c)) = fields.iter().find(|(n, _)| n == name) {
        return Some(c);
    }
    fields.iter().find_map(|(n, c)| {
        let rest = name.strip_prefix(n.as_str())?.strip_prefix('.')?;
        leaf_of(c, rest)
    })
}

/// The struct column `template` is the empty form of, its leaves taken
/// from `leaves` by dotted name.
fn nest(template: &Column, name: &str, leaves: &mut Vec<(String, Column)>, n: usize) -> Column {
    let Column::Struct { fields, .. } = template else {
        let at = leaves.iter().position(|(l, _)| l == name);
        return match at {
            Some(i) => leaves.swap_remove(i).1,
            None => template.clone(),
        };
    };
    let fields = fields
        .iter()
        .map(|(f, c)| {
            let path = if name.is_empty() {
                f.clone()
            } else {
                format!("{name}.{f}")
            };
            (f.clone(), nest(c, &path, leaves, n))
        })
        .collect();
    Column::Struct { len: n, fields }
}

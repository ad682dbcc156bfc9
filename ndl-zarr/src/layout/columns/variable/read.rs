//! Reading records with variable members back from the columns layout:
//! each field's array found by name, ragged arrays rebuilt from their
//! counts, options from their fill.

use ndl_runtime::record::{self, Bitmap, Column, Offsets, Values, columns};
use ndl_runtime::records::PackedLayout;
use ndl_runtime::{Compound, Datatype, Record};

use super::leaves::{Kind, Leaf, count_name, dotted, leaves};
use super::schema::set_fills;
use crate::error::{Error, Result};
use crate::grid::GridReader;
use crate::layout::columns::ColumnsSource;
use crate::part_reader::{self, PartSource, shape_error};
use crate::store::Store;
use crate::strings::VlenReader;

/// Reads every record of `T` from the columns store `store`.
pub(crate) fn read<T: Record>(store: &Store) -> Result<Vec<T>> {
    let mut template = columns::<T>(&[]);
    set_fills(store, "", &mut template)?;
    let mut reader = VariableReader::open(store, &T::datatype(), template)?;
    let mut out = Vec::with_capacity(usize::try_from(reader.len()).unwrap_or(0));
    let batch = usize::try_from(reader.len()).unwrap_or(usize::MAX).max(1);
    while let Some(column) = reader.next_batch(batch)? {
        let records = record::read::<T>(&column.view()).map_err(|e| Error::TypeMismatch {
            store: store.name.clone(),
            field: String::new(),
            message: e.to_string(),
        })?;
        out.extend(records);
    }
    Ok(out)
}

/// Reads the records of a columns store a batch at a time, as columns of
/// a template's shape: the fixed-size leaves and counts as packed records
/// of the chunks asked for, strings and ragged items slab by slab.
pub(crate) struct VariableReader {
    store: Store,
    template: Column,
    leaves: Vec<Leaf>,
    fixed: ColumnsSource,
    /// The fixed-size leaves and counts as one packed compound.
    members: Compound,
    size: usize,
    len: u64,
    next: u64,
    /// Each string leaf's and ragged array of strings' values not yet
    /// handed out, by leaf name.
    strings: Vec<(String, PendingStrings)>,
    /// Each ragged array of numbers' items not yet handed out.
    items: Vec<(String, PendingItems)>,
}

impl VariableReader {
    /// Opens the columns of `store` that records of `datatype`, shaped as
    /// `template` (options with the fills that stand for `None`), are
    /// read from.
    pub fn open(store: &Store, datatype: &Datatype, template: Column) -> Result<VariableReader> {
        let leaves = leaves(datatype, &template)?;
        let mut members = Vec::new();
        let mut strings = Vec::new();
        let mut items = Vec::new();
        for leaf in &leaves {
            let child = store.child(&leaf.name);
            match &leaf.kind {
                Kind::Fixed { datatype, .. } => members.push((leaf.name.clone(), datatype.clone())),
                Kind::Ragged { items: item } => {
                    members.push((count_name(&leaf.name), Datatype::Int64));
                    match item {
                        None => strings.push((leaf.name.clone(), PendingStrings::new(child)?)),
                        Some(_) => items.push((leaf.name.clone(), PendingItems::new(&child)?)),
                    }
                }
                Kind::Text { .. } => strings.push((leaf.name.clone(), PendingStrings::new(child)?)),
            }
        }
        let compound =
            Compound::c_layout(members).map_err(|e| shape_error(store, e.to_string()))?;
        let packed = PackedLayout::new(&Datatype::Compound(compound))
            .map_err(|e| shape_error(store, e.to_string()))?;
        let fixed = ColumnsSource::open(store, packed.datatype(), packed.size())?;
        let Datatype::Compound(members) = packed.datatype().clone() else {
            return Err(shape_error(
                store,
                "the fixed-size fields are no compound".into(),
            ));
        };
        let len = if members.members.is_empty() {
            // No fixed-size column: the string arrays, all on the record
            // dimension, say how many records there are.
            strings
                .iter()
                .map(|(_, p)| p.reader.shape().first().copied().unwrap_or(0))
                .min()
                .unwrap_or(0)
        } else {
            fixed.len()
        };
        for (name, pending) in &strings {
            let is_text = leaves
                .iter()
                .any(|l| &l.name == name && matches!(l.kind, Kind::Text { .. }));
            let held = pending.reader.shape().first().copied().unwrap_or(0);
            if is_text && held != len {
                return Err(shape_error_named(
                    &store.name,
                    name,
                    &format!("{held} strings for {len} records"),
                ));
            }
        }
        Ok(VariableReader {
            store: store.clone(),
            template,
            leaves,
            fixed,
            members,
            size: packed.size(),
            len,
            next: 0,
            strings,
            items,
        })
    }

    /// The number of records.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Records per chunk of the fixed-size columns: batches of a multiple
    /// decode no chunk twice.
    pub fn chunk_len(&self) -> u64 {
        self.fixed.chunk_len()
    }

    /// The columns records are read in, options with their fills.
    pub fn template(&self) -> &Column {
        &self.template
    }

    /// The next records, at most `max` of them, as a [`Column::Struct`] of
    /// the template's shape; `None` after the last.
    pub fn next_batch(&mut self, max: usize) -> Result<Option<Column>> {
        let left = self.len - self.next;
        if left == 0 {
            self.check_drained()?;
            return Ok(None);
        }
        let n = usize::try_from(left).unwrap_or(usize::MAX).min(max.max(1));
        let range = self.next..self.next + n as u64;
        let fixed = Fixed {
            n,
            size: self.size,
            bytes: part_reader::read_packed(&self.fixed, range, n)?,
            members: self.members.clone(),
            store: self.store.name.clone(),
            first: self.next,
        };
        let leaves = self.leaves.clone();
        let template = self.template.clone();
        let mut fields = Vec::with_capacity(leaves.len());
        for leaf in &leaves {
            let like = leaf_of(&template, &leaf.name);
            let column = match &leaf.kind {
                Kind::Fixed { fill, .. } => fixed.column(&leaf.name, like, fill.as_ref())?,
                Kind::Text { fill: None } => self.take_strings(&leaf.name, n)?,
                Kind::Text { fill: Some(fill) } => {
                    nulls_where(self.take_strings(&leaf.name, n)?, fill)
                }
                Kind::Ragged { items } => {
                    let offsets = fixed.offsets(&leaf.name)?;
                    let total = offsets.last().copied().unwrap_or(0) as usize;
                    let values = match items {
                        None => self.take_strings(&leaf.name, total)?,
                        Some(datatype) => self.take_items(&leaf.name, datatype, like, total)?,
                    };
                    Column::List {
                        offsets,
                        values: Box::new(values),
                    }
                }
            };
            fields.push((leaf.name.clone(), column));
        }
        self.next += n as u64;
        Ok(Some(nest(&template, "", &mut fields, n)))
    }

    fn take_strings(&mut self, name: &str, n: usize) -> Result<Column> {
        let store = &self.store.name;
        let Some((_, pending)) = self.strings.iter_mut().find(|(s, _)| s == name) else {
            return Err(shape_error_named(store, name, "no such array"));
        };
        pending
            .take(n)?
            .ok_or_else(|| shape_error_named(store, name, &self.fewer(name)))
    }

    fn take_items(
        &mut self,
        name: &str,
        datatype: &Datatype,
        like: Option<&Column>,
        n: usize,
    ) -> Result<Column> {
        let store = &self.store.name;
        let Some((_, pending)) = self.items.iter_mut().find(|(s, _)| s == name) else {
            return Err(shape_error_named(store, name, "no such array"));
        };
        let bytes = pending
            .take(n)?
            .ok_or_else(|| shape_error_named(store, name, &self.fewer(name)))?;
        let like = match like {
            Some(Column::List { values, .. }) => values.as_ref().clone(),
            _ => Column::Values {
                datatype: datatype.clone(),
                values: Values::F64(Vec::new()),
            },
        };
        Ok(shaped(&like, bytes, n))
    }

    /// Why a ragged array ran out before its counts did.
    fn fewer(&self, name: &str) -> String {
        format!(
            "holds fewer values than the records before record {} need (the counts of `{}`)",
            self.next + 1,
            count_name(name)
        )
    }

    /// Refuses values left over once every record is read: counts that
    /// add up to less than the ragged arrays hold.
    fn check_drained(&mut self) -> Result<()> {
        let store = &self.store.name;
        for (name, pending) in &mut self.strings {
            if !pending.drained()? {
                return Err(shape_error_named(
                    store,
                    name,
                    "holds more values than the records",
                ));
            }
        }
        for (name, pending) in &mut self.items {
            if !pending.drained()? {
                let message = format!(
                    "holds more items than the counts of `{}` add up to",
                    count_name(name)
                );
                return Err(shape_error_named(store, name, &message));
            }
        }
        Ok(())
    }
}

/// A string array read slab by slab, its values handed out as asked.
struct PendingStrings {
    reader: VlenReader,
    values: crate::strings::VlenValues,
    at: usize,
}

impl PendingStrings {
    fn new(store: Store) -> Result<PendingStrings> {
        Ok(PendingStrings {
            reader: VlenReader::read(store)?,
            values: Default::default(),
            at: 0,
        })
    }

    /// The next `n` strings; `None` if the array ends before.
    fn take(&mut self, n: usize) -> Result<Option<Column>> {
        while self.values.len() - self.at < n {
            let Some(slab) = self.reader.next_slab()? else {
                return Ok(None);
            };
            let mut kept = crate::strings::VlenValues::default();
            for v in (self.at..self.values.len()).map(|i| self.values.get(i)) {
                kept.push(v);
            }
            slab.iter().for_each(|v| kept.push(v));
            (self.values, self.at) = (kept, 0);
        }
        let mut offsets = Vec::with_capacity(n + 1);
        let mut data = Vec::new();
        offsets.push(0);
        for i in self.at..self.at + n {
            data.extend_from_slice(self.values.get(i));
            offsets.push(data.len() as i64);
        }
        self.at += n;
        Ok(Some(Column::Strings { offsets, data }))
    }

    fn drained(&mut self) -> Result<bool> {
        Ok(self.at == self.values.len() && self.reader.next_slab()?.is_none_or(|s| s.is_empty()))
    }
}

/// A ragged array's numeric items read slab by slab, handed out as asked.
struct PendingItems {
    reader: GridReader,
    bytes: Vec<u8>,
    at: usize,
    width: usize,
}

impl PendingItems {
    fn new(store: &Store) -> Result<PendingItems> {
        let reader = GridReader::read(store)?;
        let width = reader.element_size().max(1);
        Ok(PendingItems {
            reader,
            bytes: Vec::new(),
            at: 0,
            width,
        })
    }

    /// The bytes of the next `n` items; `None` if the array ends before.
    fn take(&mut self, n: usize) -> Result<Option<Vec<u8>>> {
        let want = n.saturating_mul(self.width);
        while self.bytes.len() - self.at < want {
            let Some(slab) = self.reader.next_slab()? else {
                return Ok(None);
            };
            self.bytes.drain(..self.at);
            self.at = 0;
            self.bytes.extend_from_slice(&slab);
        }
        let out = self.bytes[self.at..self.at + want].to_vec();
        self.at += want;
        Ok(Some(out))
    }

    fn drained(&mut self) -> Result<bool> {
        Ok(self.at == self.bytes.len() && self.reader.next_slab()?.is_none_or(|s| s.is_empty()))
    }
}

/// The fixed-size leaves and counts, packed, and where each one is.
struct Fixed {
    n: usize,
    size: usize,
    bytes: Vec<u8>,
    members: Compound,
    store: String,
    /// The first record's index in the store.
    first: u64,
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
                        &format!(
                            "record {}: count {count} is no length",
                            self.first + i as u64
                        ),
                    )
                })?;
            offsets.push(end);
        }
        Ok(offsets)
    }
}

/// The strings `values` as an option's, `None` wherever they hold `fill`.
fn nulls_where(values: Column, fill: &Column) -> Column {
    let Column::Strings { offsets, data } = &values else {
        return values;
    };
    let Column::Strings {
        offsets: fill_offsets,
        data: fill_data,
    } = fill
    else {
        return values;
    };
    fn of<'a>(offsets: &[i64], data: &'a [u8], i: usize) -> &'a [u8] {
        let at = |k: usize| Offsets::I64(offsets).get(k).unwrap_or(0);
        data.get(at(i)..at(i + 1)).unwrap_or_default()
    }
    let stands_for_none = of(fill_offsets, fill_data, 0);
    let n = offsets.len().saturating_sub(1);
    let mut validity = Bitmap::with_capacity(n);
    (0..n).for_each(|i| validity.push(of(offsets, data, i) != stands_for_none));
    Column::Nullable {
        validity,
        values: Box::new(values),
        fill: Some(Box::new(fill.clone())),
    }
}

/// `bytes` as a column shaped as `like`.
fn shaped(like: &Column, bytes: Vec<u8>, n: usize) -> Column {
    match like {
        Column::Values { datatype, values } => Column::Values {
            datatype: datatype.clone(),
            values: Values::from_ne_bytes(values, &bytes),
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
            let path = dotted(name, f);
            (f.clone(), nest(c, &path, leaves, n))
        })
        .collect();
    Column::Struct { len: n, fields }
}

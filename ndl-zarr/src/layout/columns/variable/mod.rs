//! Records with `String`, `Vec` and `Option` fields in the columns layout
//! (see the [crate docs](crate#records-with-strings-lists-and-options)).
//!
//! The fixed-size leaves (numbers, enums, bools, `[T; N]`, plain nested
//! structs, options with a fill, and the ragged arrays' counts) are the
//! columns of one packed compound, written and read as plain columns are;
//! strings and the ragged arrays' items are arrays of their own beside
//! them, in the same group.

mod leaves;
mod read;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ndl_runtime::lang::zarr::ZarrFormat;
use ndl_runtime::record::{columns, Column, Columns};
use ndl_runtime::records::PackedLayout;
use ndl_runtime::{Compound, Datatype, Record};
use serde_json::json;

use super::{ColumnsWriter, Extra};
use crate::append::Appender;
use crate::chunks::ChunkIo;
use crate::documents::{consolidate, json_at, pretty};
use crate::error::{Error, Result};
use crate::metadata::ArrayMeta;
use crate::options::WriteOptions;
use crate::store::Store;
use crate::strings::{VlenKind, VlenWriter};
use crate::writer::{dimension_name, prepare, Held};
use leaves::{
    count_name, fill_attribute, fill_json, fixed_bytes, leaves, sample_dimension, Kind, Leaf,
};

pub(crate) use read::read;

/// Gathers records of `T` and writes them as columns on `finish`.
pub(crate) struct VariableWriter<T: Record> {
    dir: PathBuf,
    options: WriteOptions,
    leaves: Vec<Leaf>,
    pending: T::Columns,
}

impl<T: Record> VariableWriter<T> {
    /// Checks that records of `T` have a place in the columns layout (an
    /// option without a fill has none), before anything is written.
    pub fn create(dir: &Path, options: &WriteOptions) -> Result<VariableWriter<T>> {
        let leaves = leaves(&T::datatype(), &columns::<T>(&[]))?;
        Ok(VariableWriter {
            dir: dir.to_path_buf(),
            options: options.clone(),
            leaves,
            pending: T::Columns::with_capacity(0),
        })
    }

    /// Appending to a store of variable records is not offered.
    pub fn open(dir: &Path) -> Result<VariableWriter<T>> {
        Err(Error::Unsupported {
            message: format!(
                "{}: appending to a columns store of records with String, Vec or Option fields \
                 is not offered; write the records anew",
                dir.display()
            ),
        })
    }

    pub fn len(&self) -> u64 {
        self.pending.len() as u64
    }

    /// Takes `records` after checking that no option holds its fill.
    pub fn append(&mut self, records: &[T]) -> Result<()> {
        check_fills("", &columns(records), self.len())?;
        self.pending.extend(records);
        Ok(())
    }

    /// Writes every column, then the group's consolidated metadata, and
    /// publishes the store.
    pub fn finish(self) -> Result<u64> {
        let n = self.pending.len();
        let column = self.pending.finish();
        let (store, held) = Held::new_store(&self.options, &self.dir)?;
        prepare(&store)?;
        let dimension = self
            .options
            .dimension
            .clone()
            .unwrap_or_else(|| dimension_name(&self.dir));
        let out = Out {
            options: &self.options,
            store: &store,
            dimension: &dimension,
        };
        let mut names = out.fixed::<T>(&self.leaves, &column, n)?;
        for leaf in &self.leaves {
            let values = leaf_column(&column, &leaf.name);
            match (&leaf.kind, values) {
                (Kind::Text, Some(Column::Strings { offsets, data })) => {
                    out.strings(&leaf.name, offsets, data, &dimension)?;
                }
                (Kind::Ragged { .. }, Some(Column::List { values, .. })) => {
                    out.items(&leaf.name, values)?;
                }
                _ => continue,
            }
            names.push(leaf.name.clone());
        }
        held.check()?;
        consolidate(
            &store,
            self.options.format,
            names.iter().map(String::as_str),
        )?;
        held.release()?;
        Ok(n as u64)
    }
}

/// Where the arrays go.
struct Out<'a> {
    options: &'a WriteOptions,
    store: &'a Store,
    dimension: &'a str,
}

impl Out<'_> {
    /// Writes the fixed-size leaves and the counts as plain columns of one
    /// packed compound, and the group; returns the columns' names.
    fn fixed<T: Record>(&self, leaves: &[Leaf], column: &Column, n: usize) -> Result<Vec<String>> {
        let mut members = Vec::new();
        let mut values = Vec::new();
        let mut extra = BTreeMap::new();
        for leaf in leaves {
            let field = leaf_column(column, &leaf.name);
            match &leaf.kind {
                Kind::Fixed { datatype, fill } => {
                    members.push((leaf.name.clone(), datatype.clone()));
                    values.push(field.and_then(fixed_bytes).unwrap_or_default());
                    if let Some(fill) = fill {
                        let mut more = Extra::default();
                        more.attributes.insert(
                            "_FillValue".into(),
                            fill_attribute(fill, self.options.format),
                        );
                        more.fill = Some(fill_json(fill));
                        extra.insert(leaf.name.clone(), more);
                    }
                }
                Kind::Ragged { .. } => {
                    let Some(Column::List { offsets, .. }) = field else {
                        continue;
                    };
                    let counts: Vec<u8> = offsets
                        .windows(2)
                        .flat_map(|w| (w[1] - w[0]).to_ne_bytes())
                        .collect();
                    let name = count_name(&leaf.name);
                    let mut more = Extra::default();
                    more.attributes.insert(
                        "sample_dimension".into(),
                        json!(sample_dimension(&leaf.name)),
                    );
                    extra.insert(name.clone(), more);
                    members.push((name, Datatype::Int64));
                    values.push(counts);
                }
                Kind::Text => {}
            }
        }
        let compound = Compound::c_layout(members).map_err(unsupported)?;
        let packed = PackedLayout::new(&Datatype::Compound(compound)).map_err(unsupported)?;
        let Datatype::Compound(c) = packed.datatype() else {
            return Err(unsupported("the fixed-size fields are no compound"));
        };
        let size = packed.size();
        let mut records = vec![0u8; n * size];
        for (m, bytes) in c.members.iter().zip(&values) {
            let width = m.datatype.size().unwrap_or(0);
            for (i, value) in bytes.chunks_exact(width.max(1)).take(n).enumerate() {
                records[i * size + m.offset..][..width].copy_from_slice(value);
            }
        }
        let dt = packed.datatype().clone();
        let mut writer = ColumnsWriter::create(
            self.options,
            self.store,
            (&dt, &T::datatype()),
            T::description(),
            self.dimension,
            &extra,
        )?;
        writer.append_with(n, &|range, fields, outs| {
            let bytes = &records[range.start * size..range.end * size];
            ndl_runtime::records::gather(bytes, size, fields, outs)
        })?;
        writer.finish()?;
        Ok(c.members.iter().map(|m| m.name.clone()).collect())
    }

    /// Writes the string array `name` on `dimension`.
    fn strings(&self, name: &str, offsets: &[i64], data: &[u8], dimension: &str) -> Result<()> {
        let n = offsets.len().saturating_sub(1) as u64;
        let chunks = self.options.chunk_shape_for(&[n.max(1)], 16)?;
        let mut options = self.options.clone();
        options.attributes.clear();
        let mut writer = VlenWriter::create_in(
            &options,
            self.store.child(name),
            Held::default(),
            VlenKind::Text,
            (&[n], &chunks),
            vec![dimension.to_string()],
        )?;
        for w in offsets.windows(2) {
            writer.append(&data[w[0] as usize..w[1] as usize])?;
        }
        writer.finish()?;
        if self.options.format == ZarrFormat::V2 {
            no_v2_fill(&self.store.child(name))?;
        }
        Ok(())
    }

    /// Writes the items of the ragged array `name` on its sample
    /// dimension.
    fn items(&self, name: &str, items: &Column) -> Result<()> {
        let sample = sample_dimension(name);
        if let Column::Strings { offsets, data } = items {
            return self.strings(name, offsets, data, &sample);
        }
        let Column::Values { datatype, .. } = items else {
            return Err(unsupported(format!("the items of `{name}` are no numbers")));
        };
        let bytes = fixed_bytes(items).unwrap_or_default();
        let size = datatype.size().unwrap_or(1);
        let n = bytes.len() / size;
        let chunk_len = self.options.chunk_len_for(size)?;
        let meta = ArrayMeta::new(
            self.options,
            datatype,
            vec![0],
            chunk_len,
            Default::default(),
            vec![sample],
        )?;
        let child = self.store.child(name);
        let mut appender = Appender::create(ChunkIo::new(&child, &meta)?, meta, true)?;
        appender.append_with(n, &|range, out| {
            out.copy_from_slice(&bytes[range.start * size..range.end * size]);
        })?;
        appender.commit().map(drop)
    }
}

/// Sets the v2 string array's `fill_value` to `null`: xarray masks a
/// non-null one, and would read every empty string as missing.
fn no_v2_fill(array: &Store) -> Result<()> {
    let Some(mut doc) = json_at(array, ".zarray")? else {
        return Ok(());
    };
    doc["fill_value"] = serde_json::Value::Null;
    array.set(".zarray", pretty(&doc))
}

/// The column of the leaf at the dotted path `name` of `column`.
fn leaf_column<'a>(column: &'a Column, name: &str) -> Option<&'a Column> {
    let Column::Struct { fields, .. } = column else {
        return None;
    };
    if let Some((_, c)) = fields.iter().find(|(n, _)| n == name) {
        return Some(c);
    }
    fields.iter().find_map(|(n, c)| {
        let rest = name.strip_prefix(n.as_str())?.strip_prefix('.')?;
        leaf_column(c, rest)
    })
}

/// Refuses a `Some(fill)` in an option of `column` (records from `first`
/// on), naming the record and the field: it would read back as `None`.
fn check_fills(name: &str, column: &Column, first: u64) -> Result<()> {
    match column {
        Column::Struct { fields, .. } => fields.iter().try_for_each(|(n, c)| {
            let path = if name.is_empty() {
                n.clone()
            } else {
                format!("{name}.{n}")
            };
            check_fills(&path, c, first)
        }),
        Column::Nullable { .. } => match column.fill_clash() {
            Some(i) => Err(Error::Unsupported {
                message: format!(
                    "record {}, field `{name}`: Some holds the field's fill value, which Zarr \
                     stores for None and would read back as None; nothing was written",
                    first + i as u64
                ),
            }),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

fn unsupported(e: impl ToString) -> Error {
    Error::Unsupported {
        message: e.to_string(),
    }
}

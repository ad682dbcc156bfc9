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
mod schema;

use std::collections::BTreeMap;
use std::path::Path;

use ndl_runtime::lang::zarr::ZarrFormat;
use ndl_runtime::record::{Column, columns};
use ndl_runtime::records::PackedLayout;
use ndl_runtime::{Compound, Datatype, Record};
use serde_json::json;

use super::{ColumnsWriter, Extra};
use crate::append::Appender;
use crate::chunks::ChunkIo;
use crate::documents::{consolidate, json_at, pretty, read_group};
use crate::error::{Error, Result};
use crate::metadata::ArrayMeta;
use crate::options::WriteOptions;
use crate::store::Store;
use crate::strings::{VlenKind, VlenReader, VlenWriter};
use crate::writer::{Held, prepare, record_dimension};
use leaves::{
    Kind, Leaf, count_name, dotted, fill_attribute, fill_json, fixed_bytes, leaves,
    sample_dimension,
};

pub use leaves::fill_metadata;
use read::VariableReader;
pub(crate) use read::read;
pub use schema::text_fill;

/// Reads the records of a columns store whose fields include strings,
/// lists or options, without a Rust type: a batch of
/// [`Column`]s at a time, in the shape of the records' datatype
/// ([`Column::template`]), each option with the fill its array stores for
/// `None`.
///
/// A store ndl wrote is read by its `ndl_datatype` attribute; a group
/// another tool wrote (xarray's) by its arrays, in name order: a string
/// array is a `string` field, `<name>_count` with a `sample_dimension`
/// beside `<name>` a `vlen` field, a column with a `_FillValue` an
/// `optional` field (time columns excepted: their `_FillValue` is NaT).
///
/// ```
/// use ndl_runtime::Record;
/// use ndl_zarr::{Layout, VariableRecordsReader, WriteOptions};
///
/// #[derive(Record)]
/// struct Trade {
///     symbol: String,
///     #[ndl(fill = -1)]
///     venue: Option<i32>,
/// }
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("t.zarr");
/// let trades = [Trade { symbol: "É".into(), venue: None }];
/// WriteOptions::new().layout(Layout::Columns).write(&path, &trades)?;
/// let mut reader = VariableRecordsReader::open(&path)?.expect("variable records");
/// assert_eq!(reader.len(), 1);
/// let batch = reader.next_batch(100)?.expect("one batch");
/// let back: Vec<Trade> = ndl_runtime::record::read(&batch.view())?;
/// assert_eq!((back[0].symbol.as_str(), back[0].venue), ("É", None));
/// assert!(reader.next_batch(100)?.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct VariableRecordsReader {
    datatype: Datatype,
    reader: VariableReader,
}

impl std::fmt::Debug for VariableRecordsReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VariableRecordsReader")
            .field("datatype", &self.datatype)
            .finish()
    }
}

impl VariableRecordsReader {
    /// Opens the records of the store at `dir`: `None` when it is no
    /// group, or a group of plain columns (no string, list or option),
    /// which [`read_packed`](crate::read_packed) reads.
    pub fn open(dir: impl AsRef<Path>) -> Result<Option<VariableRecordsReader>> {
        let store = Store::open(dir.as_ref())?;
        let Some((datatype, template)) = schema::records_of(&store)? else {
            return Ok(None);
        };
        let reader = VariableReader::open(&store, &datatype, template)?;
        Ok(Some(VariableRecordsReader { datatype, reader }))
    }

    /// The records' datatype: a compound whose members may be `string`,
    /// `vlen` or `optional`.
    pub fn datatype(&self) -> &Datatype {
        &self.datatype
    }

    /// The shape of every batch, options with their fills.
    pub fn template(&self) -> &Column {
        self.reader.template()
    }

    /// The number of records.
    pub fn len(&self) -> u64 {
        self.reader.len()
    }

    /// Whether the store holds no records.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Records per chunk of the fixed-size columns: batches of a multiple
    /// of it decode no chunk twice.
    pub fn chunk_len(&self) -> u64 {
        self.reader.chunk_len()
    }

    /// The next records, at most `max`, as a [`Column::Struct`]; `None`
    /// after the last.
    ///
    /// # Errors
    /// An array that disagrees with the others (fewer strings than
    /// records, counts that add up to more or fewer items than a ragged
    /// array holds, a negative count), naming the array and the record.
    pub fn next_batch(&mut self, max: usize) -> Result<Option<Column>> {
        self.reader.next_batch(max)
    }
}

/// Writes records given as batches of [`Column`]s, without a Rust type,
/// in the columns layout: strings as string arrays (v3 `string`, v2
/// `vlen-utf8`), lists as CF contiguous ragged arrays, options as their
/// fill (the array's `fill_value` and `_FillValue`). The store appears
/// whole in [`finish`](VariableRecordsWriter::finish) when the options
/// say [`publish_on_finish`](WriteOptions::publish_on_finish).
///
/// ```
/// use ndl_runtime::record::{columns, Column};
/// use ndl_runtime::Record;
/// use ndl_zarr::{Layout, VariableRecordsWriter, WriteOptions};
///
/// #[derive(Debug, PartialEq, Record)]
/// struct Trade {
///     symbol: String,
///     levels: Vec<f32>,
/// }
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("t.zarr");
/// let trades = [Trade { symbol: "ab".into(), levels: vec![1.5] }];
/// let template = Column::template(&Trade::datatype())?;
/// let options = WriteOptions::new().layout(Layout::Columns);
/// let mut w = VariableRecordsWriter::create(&path, &options, &Trade::datatype(), &template)?;
/// w.append(&columns(&trades))?;
/// assert_eq!(w.finish()?, 1);
/// assert_eq!(ndl_zarr::read::<Trade>(&path)?, trades);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct VariableRecordsWriter {
    writer: VariableWriter,
}

impl std::fmt::Debug for VariableRecordsWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VariableRecordsWriter")
            .field("len", &self.writer.len())
            .finish()
    }
}

impl VariableRecordsWriter {
    /// Creates a store at `dir` (which must not exist, or be an empty
    /// directory) for records of `datatype` (a compound), whose batches
    /// are shaped as `template` ([`Column::template`] of it, each option
    /// with its fill).
    ///
    /// # Errors
    /// A field with no place in the layout, named: an option without a
    /// fill (Zarr has no nulls), an option of a list or record, a list of
    /// anything but numbers or strings.
    pub fn create(
        dir: impl AsRef<Path>,
        options: &WriteOptions,
        datatype: &Datatype,
        template: &Column,
    ) -> Result<VariableRecordsWriter> {
        let writer = VariableWriter::create(dir.as_ref(), options, (datatype, template), None)?;
        Ok(VariableRecordsWriter { writer })
    }

    /// Appends the records of `batch`, a [`Column::Struct`] of the
    /// template's shape: every chunk they complete is stored now.
    ///
    /// # Errors
    /// A `Some` holding its option's fill (it would read back as `None`),
    /// naming the record and the field; nothing of `batch` is written.
    pub fn append(&mut self, batch: &Column) -> Result<()> {
        self.writer.append_column(batch)
    }

    /// The number of records appended.
    pub fn len(&self) -> u64 {
        self.writer.len()
    }

    /// Whether no record was appended.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Stores the last chunks and the metadata, and publishes the store;
    /// returns the number of records.
    pub fn finish(self) -> Result<u64> {
        self.writer.finish()
    }
}

/// Writes records of a datatype, given as batches of columns, chunk by
/// chunk as they fill: the fixed-size leaves through a [`ColumnsWriter`],
/// strings and numeric items through growing arrays of their own.
pub(crate) struct VariableWriter {
    fixed: FixedPlan,
    columns: ColumnsWriter,
    strings: Vec<(String, VlenWriter)>,
    /// The optional string leaves, whose arrays' `fill_value` is their
    /// fill.
    optional_strings: Vec<String>,
    /// Each ragged array's numeric items, and the bytes of one.
    items: Vec<(String, Appender, usize)>,
    store: Store,
    format: ZarrFormat,
    held: Held,
    len: u64,
}

/// The fixed-size leaves and counts as one packed compound: each
/// member's name, where its values come from, and its offset and size.
struct FixedPlan {
    members: Vec<(Source, usize, usize)>,
    size: usize,
}

/// Where a member of the fixed compound comes from.
enum Source {
    /// The values of a fixed-size leaf.
    Leaf(String),
    /// The counts of a ragged array.
    Counts(String),
}

impl VariableWriter {
    /// The writer of records of `T`.
    pub fn of<T: Record>(dir: &Path, options: &WriteOptions) -> Result<VariableWriter> {
        let records = (&T::datatype(), &columns::<T>(&[]));
        VariableWriter::create(dir, options, records, T::description())
    }

    /// Creates the store for records of `datatype` whose columns are
    /// shaped as `template` (options with their fills), described by
    /// `title`: the group, a column per fixed-size leaf and count, an
    /// array per string leaf and ragged items, all empty. Records with no
    /// place in the layout (an option without a fill) are refused before
    /// anything is written.
    pub fn create(
        dir: &Path,
        options: &WriteOptions,
        (datatype, template): (&Datatype, &Column),
        title: Option<&str>,
    ) -> Result<VariableWriter> {
        let leaves = leaves(datatype, template)?;
        let (store, held) = Held::new_store(options, dir)?;
        prepare(&store)?;
        let dimension = record_dimension(options, dir);
        let (fixed, packed, extra) = FixedPlan::of(&leaves, options.format)?;
        let columns = ColumnsWriter::create(
            options,
            &store,
            (packed.datatype(), datatype),
            title,
            &dimension,
            &extra,
        )?;
        let (strings, items) = arrays(
            &store,
            &leaves,
            |leaf, child| {
                let mut options = options.clone();
                options.attributes = leaf.attributes();
                match &leaf.kind {
                    Kind::Text { fill } => {
                        let fill = fill.as_ref().and_then(text_of);
                        growing(&options, child, (&dimension, fill.as_deref()))
                    }
                    _ => growing(&options, child, (&sample_dimension(&leaf.name), None)),
                }
            },
            |leaf, child, dt| items_appender(options, child, dt, sample_dimension(&leaf.name)),
        )?;
        Ok(VariableWriter {
            fixed,
            columns,
            strings,
            optional_strings: optional_strings(&leaves),
            items,
            store,
            format: options.format,
            held,
            len: 0,
        })
    }

    /// The writer that appends records of `T` to the columns store at
    /// `dir`, which must hold them (every array found by name, as
    /// [`read`] finds them). One appender at a time: it takes the store's
    /// lock object, as a plain appender does. Each array's partial last
    /// chunk is rewritten by the append; lengths change in `finish`.
    pub fn open<T: Record>(dir: &Path) -> Result<VariableWriter> {
        let store = Store::open(dir)?;
        let (datatype, template) = (T::datatype(), columns::<T>(&[]));
        let Some((format, _)) = read_group(&store)? else {
            return Err(Error::Unsupported {
                message: format!(
                    "{}: not a columns group; records with String, Vec or Option fields are \
                     stored in the columns layout",
                    store.name
                ),
            });
        };
        // Refuse what does not hold records of `T` before taking the lock.
        VariableReader::open(&store, &datatype, template.clone())?;
        let held = Held::locked(&store)?;
        // Read again under the lock: the lengths may have grown meanwhile.
        let len = VariableReader::open(&store, &datatype, template.clone())?.len();
        let leaves = leaves(&datatype, &template)?;
        let (fixed, packed, _) = FixedPlan::of(&leaves, format)?;
        let columns = ColumnsWriter::open(&store, packed.datatype())?;
        let (strings, items) = arrays(
            &store,
            &leaves,
            |leaf, child| {
                let held = match leaf.kind {
                    Kind::Text { .. } => len,
                    _ => VlenReader::read(child.clone())?
                        .shape()
                        .first()
                        .copied()
                        .unwrap_or(0),
                };
                VlenWriter::reopen_growing(child, held, GROWING)
            },
            |_, child, _| {
                let meta = ArrayMeta::read(child)?;
                Appender::start(ChunkIo::new(child, &meta)?, meta)
            },
        )?;
        Ok(VariableWriter {
            fixed,
            columns,
            strings,
            optional_strings: optional_strings(&leaves),
            items,
            store,
            format,
            held,
            len,
        })
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    /// Appends `records`, once no option of theirs holds its fill: every
    /// chunk they complete is stored now.
    pub fn append<T: Record>(&mut self, records: &[T]) -> Result<()> {
        self.append_column(&columns(records))
    }

    /// Appends the records of `column` (a [`Column::Struct`] of the
    /// template's shape), once no option of theirs holds its fill.
    pub fn append_column(&mut self, column: &Column) -> Result<()> {
        let Column::Struct { len: n, .. } = column else {
            return Err(unsupported("a batch of records is no struct column"));
        };
        let n = *n;
        check_fills("", column, self.len)?;
        let packed = self.fixed.pack(column, n);
        let size = self.fixed.size;
        self.columns.append_with(n, &|range, fields, outs| {
            let bytes = &packed[range.start * size..range.end * size];
            ndl_runtime::records::gather(bytes, size, fields, outs)
        })?;
        for (name, writer) in &mut self.strings {
            let (offsets, data) = match leaf_column(column, name) {
                Some(Column::Strings { offsets, data }) => (offsets, data),
                Some(Column::List { values, .. } | Column::Nullable { values, .. }) => {
                    match values.as_ref() {
                        Column::Strings { offsets, data } => (offsets, data),
                        _ => continue,
                    }
                }
                _ => continue,
            };
            for w in offsets.windows(2) {
                writer.append(&data[w[0] as usize..w[1] as usize])?;
            }
        }
        for (name, appender, width) in &mut self.items {
            let Some(Column::List { values, .. }) = leaf_column(column, name) else {
                continue;
            };
            let bytes = fixed_bytes(values).unwrap_or_default();
            let width = *width;
            let count = bytes.len() / width.max(1);
            appender.append_with(count, &|range, out| {
                out.copy_from_slice(&bytes[range.start * width..range.end * width]);
            })?;
        }
        self.len += n as u64;
        Ok(())
    }

    /// Stores the last, partial chunks and every array's metadata, then
    /// the group's consolidated metadata, and publishes the store.
    pub fn finish(self) -> Result<u64> {
        let mut names: Vec<String> = self
            .fixed
            .members
            .iter()
            .map(|(source, ..)| match source {
                Source::Leaf(name) => name.clone(),
                Source::Counts(name) => count_name(name),
            })
            .collect();
        self.columns.finish()?;
        for (name, writer) in self.strings {
            writer.finish_growing()?;
            // An optional string's array keeps its fill, which xarray masks.
            if self.format == ZarrFormat::V2 && !self.optional_strings.contains(&name) {
                no_v2_fill(&self.store.child(&name))?;
            }
            names.push(name);
        }
        for (name, appender, _) in self.items {
            appender.commit()?;
            names.push(name);
        }
        self.held.check()?;
        consolidate(&self.store, self.format, names.iter().map(String::as_str))?;
        self.held.release()?;
        Ok(self.len)
    }
}

impl FixedPlan {
    /// The plan of the fixed-size leaves and counts of `leaves`, their
    /// packed layout, and their attributes beyond the field's.
    fn of(
        leaves: &[Leaf],
        format: ZarrFormat,
    ) -> Result<(FixedPlan, PackedLayout, BTreeMap<String, Extra>)> {
        let (compound, sources, extra) = fixed_compound(leaves, format)?;
        let packed = PackedLayout::new(&Datatype::Compound(compound)).map_err(unsupported)?;
        let Datatype::Compound(c) = packed.datatype() else {
            return Err(unsupported("the fixed-size fields are no compound"));
        };
        let members = c
            .members
            .iter()
            .zip(sources)
            .map(|(m, source)| (source, m.offset, m.datatype.size().unwrap_or(0)))
            .collect();
        let size = packed.size();
        Ok((FixedPlan { members, size }, packed, extra))
    }

    /// The fixed-size members of `column`'s `n` records, packed.
    fn pack(&self, column: &Column, n: usize) -> Vec<u8> {
        let mut records = vec![0u8; n * self.size];
        for (source, offset, width) in &self.members {
            let bytes = match source {
                Source::Leaf(name) => leaf_column(column, name).and_then(fixed_bytes),
                Source::Counts(name) => match leaf_column(column, name) {
                    Some(Column::List { offsets, .. }) => Some(
                        offsets
                            .windows(2)
                            .flat_map(|w| (w[1] - w[0]).to_ne_bytes())
                            .collect(),
                    ),
                    _ => None,
                },
            };
            let bytes = bytes.unwrap_or_default();
            for (i, value) in bytes.chunks_exact((*width).max(1)).take(n).enumerate() {
                records[i * self.size + offset..][..*width].copy_from_slice(value);
            }
        }
        records
    }
}

/// A writer's string arrays, by leaf name, and its ragged arrays' numeric
/// items, with the bytes of one.
type Arrays = (Vec<(String, VlenWriter)>, Vec<(String, Appender, usize)>);

/// The string arrays (of a string leaf or a list's string items), each
/// made by `text`, and the numeric items of ragged arrays, each made by
/// `numbers`, of `leaves` in `store`.
fn arrays(
    store: &Store,
    leaves: &[Leaf],
    mut text: impl FnMut(&Leaf, Store) -> Result<VlenWriter>,
    mut numbers: impl FnMut(&Leaf, &Store, &Datatype) -> Result<Appender>,
) -> Result<Arrays> {
    let mut strings = Vec::new();
    let mut items = Vec::new();
    for leaf in leaves {
        let child = store.child(&leaf.name);
        match &leaf.kind {
            Kind::Text { .. } | Kind::Ragged { items: None } => {
                strings.push((leaf.name.clone(), text(leaf, child)?))
            }
            Kind::Ragged { items: Some(dt) } => {
                let appender = numbers(leaf, &child, dt)?;
                items.push((leaf.name.clone(), appender, dt.size().unwrap_or(1)));
            }
            Kind::Fixed { .. } => {}
        }
    }
    Ok((strings, items))
}

/// The compound of the fixed-size leaves and the counts, where each
/// member comes from, and their attributes beyond the field's (an
/// option's fill, a count's `sample_dimension`).
fn fixed_compound(
    leaves: &[Leaf],
    format: ZarrFormat,
) -> Result<(Compound, Vec<Source>, BTreeMap<String, Extra>)> {
    let mut members = Vec::new();
    let mut sources = Vec::new();
    let mut extra = BTreeMap::new();
    for leaf in leaves {
        match &leaf.kind {
            Kind::Fixed { datatype, fill } => {
                members.push((leaf.name.clone(), datatype.clone()));
                sources.push(Source::Leaf(leaf.name.clone()));
                if let Some(fill) = fill {
                    let mut more = Extra::default();
                    more.attributes
                        .insert("_FillValue".into(), fill_attribute(fill, format));
                    more.fill = Some(fill_json(fill));
                    extra.insert(leaf.name.clone(), more);
                }
            }
            Kind::Ragged { .. } => {
                let name = count_name(&leaf.name);
                let mut more = Extra::default();
                more.attributes.insert(
                    "sample_dimension".into(),
                    json!(sample_dimension(&leaf.name)),
                );
                extra.insert(name.clone(), more);
                members.push((name, Datatype::Int64));
                sources.push(Source::Counts(leaf.name.clone()));
            }
            Kind::Text { .. } => {}
        }
    }
    let mut compound = Compound::c_layout(members).map_err(unsupported)?;
    // The members are the fixed leaves' and counts, in order.
    let fixed = leaves
        .iter()
        .filter(|l| !matches!(l.kind, Kind::Text { .. }));
    for (m, leaf) in compound.members.iter_mut().zip(fixed) {
        if m.name == leaf.name {
            (m.description, m.units) = (leaf.description.clone(), leaf.units.clone());
        }
    }
    Ok((compound, sources, extra))
}

/// A string array on `dimension` in `store`, of a length known only at
/// the end, its `fill_value` `fill` (an optional string's).
fn growing(
    options: &WriteOptions,
    store: Store,
    (dimension, fill): (&str, Option<&str>),
) -> Result<VlenWriter> {
    let chunks = options.chunk_shape_for(&[options.expected_len.unwrap_or(1 << 20).max(1)], 16)?;
    VlenWriter::create_in(
        options,
        store,
        Held::default(),
        VlenKind::Text,
        (&[GROWING], &chunks),
        (vec![dimension.to_string()], fill),
    )
}

/// The length a growing array is created with: more than any it gets.
const GROWING: u64 = 1 << 53;

/// The appender of a ragged array's numeric items on `sample`.
fn items_appender(
    options: &WriteOptions,
    child: &Store,
    datatype: &Datatype,
    sample: String,
) -> Result<Appender> {
    let size = datatype.size().unwrap_or(1);
    let chunk_len = options.chunk_len_for(size)?;
    let meta = ArrayMeta::new(
        options,
        datatype,
        vec![0],
        chunk_len,
        Default::default(),
        vec![sample],
    )?;
    Appender::create(ChunkIo::new(child, &meta)?, meta, true)
}

/// The names of the optional string leaves of `leaves`.
fn optional_strings(leaves: &[Leaf]) -> Vec<String> {
    leaves
        .iter()
        .filter(|leaf| matches!(leaf.kind, Kind::Text { fill: Some(_) }))
        .map(|leaf| leaf.name.clone())
        .collect()
}

/// A one-string column's string.
fn text_of(fill: &Column) -> Option<String> {
    match fill {
        Column::Strings { data, .. } => Some(String::from_utf8_lossy(data).into_owned()),
        _ => None,
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
            let path = dotted(name, n);
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

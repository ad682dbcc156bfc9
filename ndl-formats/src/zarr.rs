//! Zarr stores, records or columns, local or in object storage, as a
//! [`Source`] and a [`Sink`].

use std::path::{Path, PathBuf};

use ndl_runtime::record::Column;
use ndl_runtime::records::{PackedLayout, Repacker};
use ndl_runtime::{ByteOrder, Datatype, MixedOrder};
use ndl_zarr::{ArrayInfo, GridReader, GridWriter, PackedWriter, StoreInfo, WriteOptions};

use crate::attribute_json::from_zarr;
use crate::contents::{Arrangement, Contents, Entry, GroupEntry, stem};
use crate::error::{Error, Result, in_store};
use crate::format::FormatInfo;
use crate::location::is_remote;
use crate::options::{Layout, Setting, WriteSettings, ZarrSinkOptions};
use crate::sink::refuse_existing;
use crate::sink::{Progress, Sink};
use crate::source::{Handover, Origin, Source, for_each_batch};
use ndl_runtime::ArraySpec;
use ndl_runtime::ndl::{Attribute, NameMap, Storage};

/// The records of a store: its array of records, or the records of a
/// columns group's `ndl_datatype`, in the layout they were written from
/// (the `ndl_datatype` attribute's offsets and size, padding included),
/// else packed as stored. An array of any other rank than
/// 1, or chunked in more than its first dimension, is read a slab at a
/// time, in the order it keeps ([`GridReader`]).
pub struct ZarrSource {
    path: PathBuf,
    spec: ArraySpec,
    /// What turns records read in native order into the spec's orders:
    /// made once, not per batch.
    to_spec_order: ToSpecOrder,
    /// What puts packed records back into the layout they were written
    /// from (the `ndl_datatype` attribute's offsets and size), when it
    /// has gaps; `None` when the records are read as stored.
    unpacking: Option<Unpacking>,
    reading: Reading,
    /// What the reader should know about how the store was read.
    notes: Vec<String>,
    /// The array's dimension names, where it names every one.
    dimensions: Option<Vec<String>>,
    /// The attributes of an array, or of the columns another tool wrote,
    /// as CF reads them ([`cf_attributes`]); `None` for our columns, which
    /// say their types.
    cf: Option<CfAttributes>,
    /// Whether the store is a group of columns another tool wrote.
    dataset_table: bool,
    /// The array's chunks and codec; `None` for a group of columns.
    storage: Option<Storage>,
    /// The group's attributes, of our columns.
    attributes: NameMap<Attribute>,
}

/// The attributes of a store's arrays, as CF reads them.
enum CfAttributes {
    /// Of one array.
    Array(serde_json::Map<String, serde_json::Value>),
    /// Of each column of a group, by name.
    Columns(Vec<(String, serde_json::Map<String, serde_json::Value>)>),
}

/// How a store's elements are read.
enum Reading {
    /// Records ranges of a one-dimensional array or a columns group:
    /// records per stored chunk, and the next record.
    Records { chunk: u64, next: u64 },
    /// Slabs of an array of any rank, handed out in the sizes asked for.
    Grid(Box<GridReader>, Handover),
}

impl ZarrSource {
    /// Opens the store at `path`.
    pub fn open(path: &Path) -> Result<ZarrSource> {
        let mut notes = Vec::new();
        let (mut dimensions, mut cf, mut dataset_table) = (None, None, false);
        let (mut storage, mut attributes) = (None, NameMap::new());
        let (spec, reading, written) =
            match StoreInfo::open(path)? {
                StoreInfo::Array(info) if is_grid(&info) => {
                    notes = info.notes().to_vec();
                    storage = Some(storage_of(&info));
                    (dimensions, cf) = (
                        named_dimensions(&info),
                        Some(CfAttributes::Array(cf_attributes(&info))),
                    );
                    let reader = GridReader::open(path)?;
                    let mut spec = array_spec(&info, reader.stored_datatype());
                    spec.order = reader.order();
                    let reading = Reading::Grid(Box::new(reader), Handover::default());
                    (spec, reading, info.datatype())
                }
                StoreInfo::Array(info) => {
                    notes = info.notes().to_vec();
                    storage = Some(storage_of(&info));
                    (dimensions, cf) = (
                        named_dimensions(&info),
                        Some(CfAttributes::Array(cf_attributes(&info))),
                    );
                    let chunk = info
                        .inner_chunks()
                        .unwrap_or(info.chunks())
                        .first()
                        .copied();
                    let spec = array_spec(&info, info.stored_datatype());
                    let reading = Reading::Records {
                        chunk: chunk.unwrap_or(1),
                        next: 0,
                    };
                    (spec, reading, info.datatype())
                }
                StoreInfo::Group(group) => {
                    attributes = crate::carried::zarr_table_attributes(&group);
                    dataset_table = group.written_datatype().is_none();
                    if dataset_table {
                        let columns = group.arrays().iter();
                        let columns = columns.map(|(n, a)| (n.clone(), cf_attributes(a)));
                        cf = Some(CfAttributes::Columns(columns.collect()));
                    }
                    let unsupported = |message: String| Error::Unsupported {
                        path: path.to_path_buf(),
                        message,
                    };
                    let datatype = group.datatype().map_err(unsupported)?.ok_or_else(|| {
                        Error::SeveralArrays {
                            path: path.to_path_buf(),
                            what: "the group's arrays are no columns of one length (it has no \
                               ndl_datatype attribute): it holds no records"
                                .into(),
                            names: array_names(&group),
                        }
                    })?;
                    let packed = repacker(path, &datatype)?.layout().datatype().clone();
                    let mut spec = ArraySpec::new(packed, vec![group.len()]);
                    spec.byte_order = ByteOrder::Little;
                    let chunk = group.arrays().first().map_or(1, |(_, a)| a.chunks()[0]);
                    let written = group.written_datatype().unwrap_or(spec.datatype.clone());
                    (spec, Reading::Records { chunk, next: 0 }, written)
                }
            };
        let to_spec_order = ToSpecOrder::of(path, &spec)?;
        let (spec, unpacking) = Unpacking::of(path, spec, &written)?;
        Ok(ZarrSource {
            path: path.to_path_buf(),
            spec,
            to_spec_order,
            unpacking,
            reading,
            notes,
            dimensions,
            cf,
            dataset_table,
            storage,
            attributes,
        })
    }

    /// Reads up to `buf.len() / size` packed records of `size` bytes into
    /// `buf`, in the spec's byte orders; returns how many.
    fn read_packed(&mut self, buf: &mut [u8], size: usize) -> Result<usize> {
        let n = match &mut self.reading {
            Reading::Grid(reader, pending) => {
                pending.fill(buf, size, || Ok(reader.next_slab()?))?
            }
            Reading::Records { next, .. } => {
                let len = self.spec.len().unwrap_or(0);
                let end = (*next + (buf.len() / size) as u64).min(len);
                if *next >= end {
                    return Ok(0);
                }
                let bytes = ndl_zarr::read_packed(&self.path, *next..end)?;
                buf[..bytes.len()].copy_from_slice(&bytes);
                let n = (end - *next) as usize;
                *next = end;
                n
            }
        };
        self.to_spec_order.apply(&mut buf[..n * size]);
        Ok(n)
    }
}

/// The spec of an array's records as stored (packed), in the store's byte
/// orders.
fn array_spec(info: &ArrayInfo, stored: &ndl_runtime::Datatype) -> ArraySpec {
    let mut spec = ArraySpec::new(stored.clone(), info.shape().to_vec());
    spec.byte_order = info.byte_order();
    spec.other_order = info.other_byte_order().to_vec();
    spec
}

/// Packed records put back into the layout they were written from, so
/// that a `.npy` of padded records comes back from a store byte for byte.
struct Unpacking {
    repacker: Repacker,
    /// The packed records of one read, kept between reads.
    packed: Vec<u8>,
}

impl Unpacking {
    /// The spec of records laid out as `written` (the store's
    /// `ndl_datatype`, or the packed datatype itself), given `packed`, the
    /// spec of the records as stored; and what unpacks them, unless the
    /// two are the same.
    fn of(
        path: &Path,
        packed: ArraySpec,
        written: &ndl_runtime::Datatype,
    ) -> Result<(ArraySpec, Option<Unpacking>)> {
        let repacker = repacker(path, written)?;
        if repacker.is_dense() {
            return Ok((packed, None));
        }
        let mut spec = packed;
        spec.other_order = unpacked_ranges(&repacker, &spec.other_order);
        spec.datatype = written.clone();
        let packed = Vec::new();
        Ok((spec, Some(Unpacking { repacker, packed })))
    }
}

/// The byte ranges of a record of `repacker`'s datatype that hold the
/// bytes at `packed` in its packed record.
fn unpacked_ranges(
    repacker: &Repacker,
    packed: &[std::ops::Range<usize>],
) -> Vec<std::ops::Range<usize>> {
    if packed.is_empty() {
        return Vec::new();
    }
    let mut marks = vec![0u8; repacker.layout().size()];
    for r in packed {
        marks[r.clone()].fill(1);
    }
    let mut element = vec![0u8; repacker.record_size()];
    repacker.unpack(&marks, &mut element);
    marked_ranges(&element)
}

/// The runs of bytes marked 1 in `marks`.
fn marked_ranges(marks: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
    for (at, _) in marks.iter().enumerate().filter(|&(_, &m)| m == 1) {
        match ranges.last_mut() {
            Some(last) if last.end == at => last.end = at + 1,
            _ => ranges.push(at..at + 1),
        }
    }
    ranges
}

/// Turns records in native byte order, as a store's reader gives them,
/// into the orders of a spec: all numbers swapped when the spec's order is
/// not native, then those of the other order swapped back.
struct ToSpecOrder {
    all: Option<PackedLayout>,
    mixed: Option<MixedOrder>,
}

impl ToSpecOrder {
    fn of(path: &Path, spec: &ArraySpec) -> Result<ToSpecOrder> {
        let all = (spec.byte_order != ByteOrder::NATIVE)
            .then(|| repacker(path, &spec.datatype).map(|r| r.layout().clone()))
            .transpose()?;
        let mixed = MixedOrder::new(&spec.datatype, &spec.other_order);
        Ok(ToSpecOrder { all, mixed })
    }

    fn apply(&self, records: &mut [u8]) {
        if let Some(layout) = &self.all {
            layout.swap(records);
        }
        if let Some(mixed) = &self.mixed {
            mixed.to_one_order(records);
        }
    }
}

/// Whether an array is read a slab at a time: any but a one-dimensional
/// array chunked along its one dimension.
fn is_grid(info: &ArrayInfo) -> bool {
    info.shape().len() != 1 || info.inner_chunks().is_some_and(|c| c.len() != 1)
}

impl Source for ZarrSource {
    fn origin(&self) -> Origin<'_> {
        Origin::new(&self.spec, &self.path)
    }

    fn attributes(&self) -> Option<&NameMap<Attribute>> {
        Some(&self.attributes).filter(|a| !a.is_empty())
    }

    fn is_part_of_dataset(&self) -> bool {
        self.dataset_table
    }

    fn storage(&self) -> Option<&Storage> {
        self.storage.as_ref()
    }

    fn is_stored_in_zarr(&self) -> bool {
        true
    }

    fn dimension_names(&self) -> Option<Vec<String>> {
        self.dimensions.clone()
    }

    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn batch_hint(&self) -> u64 {
        match &self.reading {
            Reading::Records { chunk, .. } => *chunk,
            Reading::Grid(reader, _) => reader.slab_len(),
        }
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let Some(mut unpacking) = self.unpacking.take() else {
            let size = self.spec.element_size().max(1);
            return self.read_packed(buf, size);
        };
        let size = unpacking.repacker.layout().size().max(1);
        let record = unpacking.repacker.record_size().max(1);
        let mut packed = std::mem::take(&mut unpacking.packed);
        packed.resize(buf.len() / record * size, 0);
        let read = self.read_packed(&mut packed, size);
        if let Ok(n) = read {
            unpacking
                .repacker
                .unpack(&packed[..n * size], &mut buf[..n * record]);
        }
        unpacking.packed = packed;
        self.unpacking = Some(unpacking);
        read
    }
}

/// A new Zarr store, published whole once complete.
pub struct ZarrSink {
    path: PathBuf,
    spec: ArraySpec,
    options: ZarrSinkOptions,
}

impl ZarrSink {
    /// A sink at `path` for the array of `source`: a local place where
    /// nothing is, or a prefix in object storage.
    pub fn create(path: &Path, source: &dyn Source, options: &ZarrSinkOptions) -> Result<ZarrSink> {
        // Stricter than the library, which fills an empty directory.
        if !is_remote(path) {
            refuse_existing(path)?;
        }
        let mut spec = source.spec().clone();
        // Zarr has no array of arrays; the folded form has the same bytes.
        spec.datatype = spec.datatype.folded();
        Ok(ZarrSink {
            path: path.to_path_buf(),
            spec,
            options: options.clone(),
        })
    }

    fn in_store(&self, e: ndl_zarr::Error) -> Error {
        in_store(&self.path, e)
    }
}

impl Sink for ZarrSink {
    fn notes(&self) -> Vec<String> {
        if self.options.zarr.writes_v2_records() && has_array_field(&self.spec.datatype) {
            return vec![format!(
                "{}: the records have array fields, which zarr-python 2.18 reads from a Zarr v2 dtype but zarr-python 3 cannot; the columns layout (--layout columns) is read by zarr-python 3 and xarray",
                self.path.display()
            )];
        }
        Vec::new()
    }

    fn write_from(self: Box<Self>, source: &mut dyn Source, progress: Progress<'_>) -> Result<u64> {
        let repacker = repacker(&self.path, &self.spec.datatype)?;
        let from = source.location().to_path_buf();
        let layout = repacker.layout();
        let mut zarr = self.options.zarr.clone().publish_on_finish(true);
        if let Some(n) = self.spec.len() {
            zarr = zarr.expected_len(n);
        }
        // Numbers of the other order, where the source has some (this sink
        // is made for them only where the store keeps them).
        let mixed = packed_other_order(&repacker, &self.spec.other_order);
        if self.options.keep_byte_order {
            zarr = zarr.byte_order(self.spec.byte_order);
        }
        if let Some((_, ranges)) = &mixed {
            zarr = zarr.mixed_byte_orders(ranges.clone());
        }
        let mut writer = if self.spec.shape.len() == 1 {
            Writer::Records(Box::new(
                PackedWriter::create_with(&self.path, &self.spec.datatype, &zarr)
                    .map_err(|e| self.in_store(e))?,
            ))
        } else {
            let order = self.spec.order;
            let grid = GridWriter::create_with(
                &self.path,
                &self.spec.datatype,
                &self.spec.shape,
                order,
                &zarr,
            );
            Writer::Grid(Box::new(grid.map_err(|e| self.in_store(e))?))
        };
        let (record, packed_size) = (repacker.record_size().max(1), layout.size());
        let swap = self.spec.byte_order != ByteOrder::NATIVE;
        let mut packed = Vec::new();
        let n = for_each_batch(source, |bytes, done| {
            let k = bytes.len() / record;
            packed.resize(k * packed_size, 0);
            repacker.pack(bytes, &mut packed);
            if let Some((mixed, _)) = &mixed {
                mixed.to_one_order(&mut packed);
            }
            if swap {
                layout.swap(&mut packed);
            }
            layout.check(&packed).map_err(|bad| Error::InvalidValue {
                path: from.clone(),
                record: done - k as u64 + bad.record as u64,
                field: bad.field,
                message: bad.message,
            })?;
            writer.append(&packed).map_err(|e| self.in_store(e))?;
            progress(done);
            Ok(())
        })?;
        writer.finish().map_err(|e| self.in_store(e))?;
        Ok(n)
    }
}

/// Whether a record has a member that is an array, at any depth.
fn has_array_field(datatype: &ndl_runtime::Datatype) -> bool {
    match datatype {
        ndl_runtime::Datatype::Compound(c) => c.members.iter().any(|m| {
            matches!(m.datatype, ndl_runtime::Datatype::Array(_)) || has_array_field(&m.datatype)
        }),
        _ => false,
    }
}

/// The store's writer: of one-dimensional records (either layout), or of
/// an array of any other rank.
enum Writer {
    Records(Box<ndl_zarr::PackedWriter>),
    Grid(Box<ndl_zarr::GridWriter>),
}

impl Writer {
    fn append(&mut self, packed: &[u8]) -> ndl_zarr::Result<()> {
        match self {
            Writer::Records(w) => w.append(packed),
            Writer::Grid(w) => w.append(packed),
        }
    }

    fn finish(self) -> ndl_zarr::Result<u64> {
        match self {
            Writer::Records(w) => w.finish(),
            Writer::Grid(w) => w.finish(),
        }
    }
}

/// The byte ranges of a packed record that hold the numbers in the
/// element ranges `other` (the repacker's elements), and what puts those
/// into the order of the rest; `None` when `other` is empty.
fn packed_other_order(
    repacker: &Repacker,
    other: &[std::ops::Range<usize>],
) -> Option<(MixedOrder, Vec<std::ops::Range<usize>>)> {
    if other.is_empty() {
        return None;
    }
    // One element marked where the other order is, packed as data is.
    let mut element = vec![0u8; repacker.record_size()];
    for r in other {
        element[r.clone()].fill(1);
    }
    let mut marks = vec![0u8; repacker.layout().size()];
    repacker.pack(&element, &mut marks);
    let ranges = marked_ranges(&marks);
    let mixed = MixedOrder::new(repacker.layout().datatype(), &ranges)?;
    Some((mixed, ranges))
}

fn repacker(path: &Path, datatype: &ndl_runtime::Datatype) -> Result<Repacker> {
    Repacker::new(datatype).map_err(|source| Error::Pack {
        path: path.to_path_buf(),
        source,
    })
}

/// The arrays of the store at `path`: one array of records, packed as the
/// store holds them with the enum names and descriptions of its
/// `ndl_datatype` attribute; or the arrays of a group, with the group's
/// attributes.
pub fn contents(path: &Path) -> Result<Contents> {
    let entry = |name: String, info: &ArrayInfo| -> Result<Entry> {
        let datatype = repacker(path, &info.datatype())?
            .layout()
            .datatype()
            .clone();
        let mut spec = ArraySpec::new(datatype, info.shape().to_vec());
        spec.byte_order = info.byte_order();
        spec.other_order = info.other_byte_order().to_vec();
        spec.order = info.order();
        let mut entry = Entry::new("/".into(), name, spec, info.storage());
        (entry.attributes, entry.attribute_types) = from_zarr(info.attributes());
        decode_text_fill(&mut entry);
        entry.dimension_names = info.dimension_names().map(<[_]>::to_vec);
        entry.native_metadata = Some(info.metadata().clone());
        Ok(entry)
    };
    Ok(match StoreInfo::open(path)? {
        StoreInfo::Array(info) => Contents {
            warnings: info.notes().to_vec(),
            ..Contents::new(Arrangement::One, vec![entry(stem(path), &info)?])
        },
        StoreInfo::Group(group) => {
            let (attributes, attribute_types) = from_zarr(group.attributes());
            let mut contents = Contents {
                arrangement: Arrangement::Group,
                entries: Vec::new(),
                attributes,
                warnings: Vec::new(),
                attribute_types,
                groups: Vec::new(),
                declared: Default::default(),
            };
            walk_group((path, "/"), &group, &entry, &mut contents)?;
            contents
        }
    })
}

/// Adds to `contents` the entries of `group`, at `path` in the file
/// system and `at` in the store (`/obs`), then every group below it with
/// its entries, parents before their children.
fn walk_group(
    (path, at): (&Path, &str),
    group: &ndl_zarr::GroupInfo,
    entry: &impl Fn(String, &ArrayInfo) -> Result<Entry>,
    contents: &mut Contents,
) -> Result<()> {
    for mut e in group_entries(path, group, entry)? {
        e.group = at.to_string();
        contents.entries.push(e);
    }
    for name in group.groups() {
        let child = path.join(name);
        let StoreInfo::Group(subgroup) = StoreInfo::open(&child)? else {
            continue;
        };
        let child_at = format!("{}/{name}", at.trim_end_matches('/'));
        let (attributes, attribute_types) = from_zarr(subgroup.attributes());
        contents.groups.push(GroupEntry {
            path: child_at.clone(),
            attributes,
            attribute_types,
        });
        walk_group((&child, &child_at), &subgroup, entry, contents)?;
    }
    Ok(())
}

/// A float array's `_FillValue` written as text (xarray's base64 in v3)
/// as the float it is, typed as the array's values, so that the
/// languages print a number (NaN) rather than the text.
fn decode_text_fill(entry: &mut Entry) {
    let datatype = &entry.spec.datatype;
    if !matches!(datatype, Datatype::Float32 | Datatype::Float64) {
        return;
    }
    let Some(fill) = entry
        .attributes
        .get("_FillValue")
        .and_then(ndl_zarr::text_fill)
    else {
        return;
    };
    entry
        .attributes
        .insert("_FillValue".into(), ndl_zarr::float_json(fill));
    entry
        .attribute_types
        .insert("_FillValue".into(), datatype.clone());
}

/// The entries of the arrays of `group`, a store's root at `path`, in
/// name order; `entry` makes those of fixed-size values.
fn group_entries(
    path: &Path,
    group: &ndl_zarr::GroupInfo,
    entry: impl Fn(String, &ArrayInfo) -> Result<Entry>,
) -> Result<Vec<Entry>> {
    let mut entries = group
        .arrays()
        .iter()
        .map(|(name, info)| entry(name.clone(), info))
        .collect::<Result<Vec<_>>>()?;
    for name in group.vlen_arrays() {
        let reader = ndl_zarr::VlenReader::open_child(path, name)?;
        entries.push(crate::zarr_strings::entry(&reader, name.clone()));
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(entries)
}

/// The Zarr format, as the [registry](crate::FORMATS) lists it: a
/// directory, an object-storage prefix or a zip file of a store.
pub(crate) static FORMAT: FormatInfo = FormatInfo {
    name: "zarr",
    noun: "Zarr store",
    endings: &["zarr"],
    members: true,
    sidecar: false,
    crash_prone: false,
    settings: &[
        Setting::ZarrFormat,
        Setting::Layout,
        Setting::ChunkLen,
        Setting::Chunks,
        Setting::Codec,
        Setting::CharsAsU1,
        Setting::Strings,
    ],
    recognises: |path, start| {
        if path.is_dir() || is_remote(path) {
            return Ok(true);
        }
        Ok(crate::npz::is_zip(start) && crate::npz::zip_holds(path)? == crate::npz::ZipHolds::Zarr)
    },
    configure: |settings, _, options| {
        options.zarr = sink_options(settings);
        Ok(())
    },
    open: |path, options| {
        let path = &member_path(path, options.member.as_deref())?;
        if ndl_zarr::VlenReader::probe(path)?.is_some() {
            let source = crate::zarr_strings::VlenSource::open(path)?;
            let Some(attributes) = source.foreign_attributes().cloned() else {
                return Ok(Box::new(source));
            };
            let types = Default::default();
            return Ok(crate::carried::with_attributes(
                Box::new(source),
                (&attributes, &types),
                &[],
                options,
            ));
        }
        let mut source = ZarrSource::open(path)?;
        // Zarr attributes are JSON: their numbers are float64.
        let types = Default::default();
        match source.cf.take() {
            Some(CfAttributes::Array(attributes)) => crate::cf_decoded::as_asked(
                Box::new(source),
                &stem(path),
                (&attributes, &types),
                options,
            ),
            Some(CfAttributes::Columns(columns)) => crate::cf_table::decoded(
                Box::new(source),
                columns.iter().map(|(n, a)| (n.as_str(), a, &types)),
            ),
            None => Ok(Box::new(source)),
        }
    },
    create: Some(|path, source, options| {
        let mut options = options.zarr.clone();
        let fill = fill_metadata(source, options.zarr.format());
        let attributes = source.attributes().into_iter().flat_map(|a| a.iter());
        for (name, value) in crate::attribute_json::zarr_attributes(attributes) {
            if name == "_FillValue" && fill.is_some() {
                continue;
            }
            options.zarr = options.zarr.attribute(name, value);
        }
        if let Some((fill_value, attribute)) = fill {
            options.zarr = options.zarr.fill_value(fill_value);
            // xarray keeps a v2 array's `_FillValue` as its `fill_value`.
            if options.zarr.format() == ndl_zarr::ZarrFormat::V3 {
                options.zarr = options.zarr.attribute("_FillValue", attribute);
            }
        } else if let Some(fill_value) = storage_fill_value(source, options.zarr.format()) {
            options.zarr = options.zarr.fill_value(fill_value);
        }
        if let Some(names) = source.dimension_names() {
            options.zarr = options.zarr.dimension_names(names);
        }
        if !options.storage_said {
            options.zarr = stored_as(options.zarr, source);
        }
        let read_variable = source.narrowed_strings().is_some();
        if options.variable_strings.unwrap_or(read_variable) {
            let sink = crate::zarr_strings::VlenSink::create(path, source, &options.zarr)?;
            return Ok(Box::new(sink));
        }
        Ok(Box::new(ZarrSink::create(path, source, &options)?))
    }),
    open_records: Some(|path, options| {
        let path = &member_path(path, options.member.as_deref())?;
        crate::zarr_records::open_records(path)
    }),
    create_records: Some(crate::zarr_records::create_records),
    keeps_mixed_byte_orders: |_, options| {
        let zarr = &options.zarr;
        zarr.keep_byte_order
            && zarr.variable_strings != Some(true)
            && zarr.zarr.keeps_mixed_byte_orders()
    },
    contents: |path, _| {
        if ndl_zarr::VlenReader::probe(path)?.is_some() {
            return crate::zarr_strings::contents(path);
        }
        if let Some(records) = crate::zarr_records::contents(path)? {
            return Ok(records);
        }
        contents(path)
    },
    batch_file: None,
};

/// Where the node `member` of the store at `path` is (`path` itself
/// without one): a child array or group, by its path below the root
/// (`temp`, `/obs/temp`).
///
/// # Errors
/// When the store holds no such node, naming the arrays it holds.
fn member_path(path: &Path, member: Option<&str>) -> Result<PathBuf> {
    let Some(member) = member else {
        return Ok(path.to_path_buf());
    };
    let child = path.join(member.trim_start_matches('/'));
    let strings = || matches!(ndl_zarr::VlenReader::probe(&child), Ok(Some(_)));
    if StoreInfo::open(&child).is_ok() || strings() {
        return Ok(child);
    }
    Err(Error::Member {
        path: path.to_path_buf(),
        message: format!(
            "the store holds no array or group `{member}`{}",
            match StoreInfo::open(path) {
                Ok(StoreInfo::Group(group)) =>
                    format!("; it holds {}", array_names(&group).join(", ")),
                _ => String::new(),
            }
        ),
    })
}

/// The names of the arrays of `group`, in name order.
fn array_names(group: &ndl_zarr::GroupInfo) -> Vec<String> {
    let mut names: Vec<String> = group.arrays().iter().map(|(n, _)| n.clone()).collect();
    names.extend(group.vlen_arrays().iter().cloned());
    names.sort();
    names
}

/// The names of `info`'s dimensions, where it names every one.
fn named_dimensions(info: &ArrayInfo) -> Option<Vec<String>> {
    info.dimension_names()?.iter().cloned().collect()
}

/// The storage directives of the array `info`: its chunks and codecs,
/// and its `fill_value` where it is no mask (v3 arrays keep theirs in the
/// `_FillValue` attribute, xarray's v2 ones in the `fill_value`) and not
/// zero: what an element never written reads as, which a copy keeps.
fn storage_of(info: &ArrayInfo) -> Storage {
    let masks = match info.format() {
        ndl_zarr::ZarrFormat::V2 => info.v2_missing_value().is_some(),
        _ => info.attributes().contains_key("_FillValue"),
    };
    let fill = info.metadata().get("fill_value").filter(|_| !masks);
    let zero = |f: &&serde_json::Value| f.as_f64() == Some(0.0);
    let fillvalue = fill
        .filter(|f| !zero(f))
        .and_then(crate::attribute_json::fillvalue);
    Storage {
        fillvalue,
        ..info.storage()
    }
}

/// The attributes of an array, as CF reads them: its `_FillValue` in v2
/// the `fill_value` xarray reads so ([`ArrayInfo::v2_missing_value`]), in
/// v3 the attribute, a float's decoded from the base64 xarray writes.
fn cf_attributes(info: &ArrayInfo) -> serde_json::Map<String, serde_json::Value> {
    let mut attributes = info.attributes().clone();
    let fill = match info.format() {
        ndl_zarr::ZarrFormat::V2 => info.v2_missing_value().cloned(),
        _ => attributes
            .get("_FillValue")
            .map(|f| match ndl_zarr::text_fill(f) {
                Some(x) => ndl_zarr::float_json(x),
                None => f.clone(),
            }),
    };
    match fill.filter(|f| !f.is_null()) {
        Some(fill) => attributes.insert("_FillValue".into(), fill),
        None => attributes.remove("_FillValue"),
    };
    attributes
}

/// The dataset fill `source`'s storage gives
/// ([`storage_fill`](crate::carried::storage_fill)) as the array's
/// `fill_value`, where that masks no value: in v3, and in v2 for an
/// array that names no dimensions (xarray masks a v2 `fill_value`).
fn storage_fill_value(
    source: &dyn Source,
    format: ndl_zarr::ZarrFormat,
) -> Option<serde_json::Value> {
    let named = source.dimension_names().is_some();
    if format == ndl_zarr::ZarrFormat::V2 && named {
        return None;
    }
    let bytes = crate::carried::storage_fill(source)?;
    Some(zarr_fill(source, &bytes, format)?.0)
}

/// The `_FillValue` `source` carries ([`fill`](crate::carried::fill)) as
/// the array's `fill_value` and as the v3 attribute xarray reads, a
/// float's base64, as xarray writes them.
fn fill_metadata(
    source: &dyn Source,
    format: ndl_zarr::ZarrFormat,
) -> Option<(serde_json::Value, serde_json::Value)> {
    let bytes = crate::carried::fill(source)?;
    zarr_fill(source, &bytes, format)
}

/// `bytes`, one element of `source`'s number datatype in native order, as
/// a Zarr array's `fill_value` and the `_FillValue` attribute xarray reads
/// ([`ndl_zarr::fill_metadata`]).
fn zarr_fill(
    source: &dyn Source,
    bytes: &[u8],
    format: ndl_zarr::ZarrFormat,
) -> Option<(serde_json::Value, serde_json::Value)> {
    let Ok(Column::Values { datatype, values }) = Column::template(&source.spec().datatype) else {
        return None;
    };
    let values = ndl_runtime::record::Values::from_ne_bytes(&values, bytes);
    Some(ndl_zarr::fill_metadata(
        &Column::Values { datatype, values },
        format,
    ))
}

/// `options` with the chunks and codec of `source`, an array of another
/// Zarr store, as xarray keeps them: a copy (a v2 store made v3, a local
/// one put in object storage) is chunked as its source was.
fn stored_as(mut options: WriteOptions, source: &dyn Source) -> WriteOptions {
    let Some(storage) = source.storage().filter(|_| source.is_stored_in_zarr()) else {
        return options;
    };
    let spec = source.spec();
    // An array-typed element's dimensions become the store's last ones.
    let folded = spec.datatype.folded() != spec.datatype;
    match storage.chunk.as_deref() {
        Some([len]) if spec.shape.len() == 1 && !folded => options = options.chunk_len(*len as u64),
        Some(chunk) if chunk.len() == spec.shape.len() && !folded => {
            options = options.chunks(&chunk.iter().map(|&c| c as u64).collect::<Vec<_>>());
        }
        _ => {}
    }
    let codecs: Option<Vec<serde_json::Value>> = storage
        .filter
        .iter()
        .flatten()
        .map(|f| serde_json::to_value(f).ok())
        .collect();
    if let Some(codec) = codecs.and_then(|c| ndl_zarr::Codec::from_v3_codecs(&c)) {
        options = options.codec(codec);
    }
    options
}

/// The store options the command line's `settings` say.
pub(crate) fn sink_options(settings: &WriteSettings) -> ZarrSinkOptions {
    let layout = settings.layout();
    let mut zarr = WriteOptions::new()
        .zarr_format(match settings.zarr_format {
            Some(2) => ndl_zarr::ZarrFormat::V2,
            _ => ndl_zarr::ZarrFormat::V3,
        })
        .layout(match layout {
            Layout::Records => ndl_zarr::Layout::Records,
            Layout::Columns => ndl_zarr::Layout::Columns,
        })
        .chars_as_u1(settings.chars_as_u1);
    // Unless given, the codec is the layout's default: none for v2 columns.
    if let Some(codec) = settings.codec {
        zarr = zarr.codec(codec);
    }
    if let Some(n) = settings.chunk_len {
        zarr = zarr.chunk_len(n);
    }
    if let Some(extents) = &settings.chunks {
        zarr = zarr.chunks(extents);
    }
    ZarrSinkOptions {
        zarr,
        keep_byte_order: layout == Layout::Records,
        variable_strings: settings.variable_strings,
        records_layout_said: settings.layout == Some(Layout::Records),
        storage_said: settings.codec.is_some()
            || settings.chunk_len.is_some()
            || settings.chunks.is_some(),
    }
}

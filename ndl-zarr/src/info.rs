//! What an array in a store holds, without a Rust type: for descriptions
//! (`ndl describe`) and for choosing how to read it.

use std::path::Path;

use ndl_runtime::Order;
use ndl_runtime::lang::zarr::{ZARRAY, ZarrFormat};
use ndl_runtime::ndl::Storage;
use ndl_runtime::records::PackedLayout;
use ndl_runtime::{ByteOrder, Datatype};
use serde_json::{Map, Value};

use crate::documents::read_group;
use crate::error::{Error, Result};
use crate::layout::columns::infer_record;
use crate::metadata::{ArrayMeta, NDL_DATATYPE};
use crate::store::Store;
use crate::strings::VlenMeta;

/// The metadata of one Zarr array, v2 or v3.
///
/// ```
/// use ndl_zarr::{ArrayInfo, ZarrFormat};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("x.zarr");
/// ndl_zarr::WriteOptions::new().chunk_len(10).write(&path, &[1u8, 2, 3])?;
/// let info = ArrayInfo::open(&path)?;
/// assert_eq!(info.format(), ZarrFormat::V3);
/// assert_eq!(info.shape(), [3]);
/// assert_eq!(info.storage().chunk, Some(vec![10]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct ArrayInfo {
    meta: ArrayMeta,
    notes: Vec<String>,
}

impl ArrayInfo {
    /// Reads the metadata of the array at the root of the store `dir`.
    pub fn open(dir: impl AsRef<Path>) -> Result<ArrayInfo> {
        let store = Store::open(dir.as_ref())?;
        ArrayInfo::read(&store)
    }

    pub(crate) fn read(store: &Store) -> Result<ArrayInfo> {
        let meta = ArrayMeta::read(store)?;
        // Checks that zarrs can decode the chunks (codecs, grid) too.
        crate::chunks::engine(store, &meta)?;
        let mut notes = Vec::new();
        if meta.format == ZarrFormat::V3 && store.get(ZARRAY)?.is_some() {
            notes.push(format!(
                "{}: both zarr.json and .zarray are here: read as Zarr v3 (zarr.json), as zarr-python does",
                store.name
            ));
        }
        Ok(ArrayInfo { meta, notes })
    }

    /// What a reader should know about how the array was read, one
    /// sentence each: that a store holding both `zarr.json` and `.zarray`
    /// was read as v3.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("x.zarr");
    /// ndl_zarr::write(&path, &[1u8, 2])?;
    /// assert!(ndl_zarr::ArrayInfo::open(&path)?.notes().is_empty());
    /// std::fs::write(path.join(".zarray"), "{}")?;
    /// let info = ndl_zarr::ArrayInfo::open(&path)?;
    /// assert!(info.notes()[0].contains("read as Zarr v3"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The Zarr format.
    pub fn format(&self) -> ZarrFormat {
        self.meta.format
    }

    /// The array's shape.
    pub fn shape(&self) -> &[u64] {
        &self.meta.shape
    }

    /// The stored datatype, packed as Zarr stores it.
    pub fn stored_datatype(&self) -> &Datatype {
        &self.meta.stored
    }

    /// The records' datatype as written: the `ndl_datatype` attribute when
    /// it packs to the stored datatype (it adds enum names, descriptions and
    /// the in-memory layout), else the stored datatype.
    pub fn datatype(&self) -> Datatype {
        self.meta
            .attributes
            .get(NDL_DATATYPE)
            .and_then(|v| serde_json::from_value::<Datatype>(v.clone()).ok())
            .filter(|dt| {
                PackedLayout::new(dt).is_ok_and(|p| same_packed(p.datatype(), &self.meta.stored))
            })
            .unwrap_or_else(|| self.meta.stored.clone())
    }

    /// The byte order of numbers in the chunks.
    pub fn byte_order(&self) -> ByteOrder {
        self.meta.order
    }

    /// The byte ranges, within one stored (packed) record, of the numbers
    /// in the order opposite to [`byte_order`](ArrayInfo::byte_order): a v2
    /// `dtype` may give each field its own (`[["a", "<u8"], ["b",
    /// ">f8"]]`). Empty when all share one. Reads give every number in
    /// native order either way.
    pub fn other_byte_order(&self) -> &[std::ops::Range<usize>] {
        &self.meta.other_order
    }

    /// The order of the elements in the chunks: Fortran for a v2
    /// `order: "F"` array of two or more dimensions, or a v3 one whose
    /// `transpose` codec reverses its dimensions; else C.
    ///
    /// ```
    /// use ndl_runtime::{Datatype, Order};
    /// use ndl_zarr::{ArrayInfo, GridWriter, WriteOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("f.zarr");
    /// let options = WriteOptions::new();
    /// let mut w = GridWriter::create_with(&path, &Datatype::Int8, &[2, 2], Order::Fortran, &options)?;
    /// w.append(&[1, 2, 3, 4])?;
    /// w.finish()?;
    /// assert_eq!(ArrayInfo::open(&path)?.order(), Order::Fortran);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn order(&self) -> Order {
        match self.meta.shape.len() {
            0 | 1 => Order::C,
            _ => self.meta.array_order,
        }
    }

    /// The shape of the chunk grid's chunks (with sharding, of the shards).
    pub fn chunks(&self) -> &[u64] {
        &self.meta.chunk_shape
    }

    /// With sharding, the shape of the chunks inside a shard.
    pub fn inner_chunks(&self) -> Option<&[u64]> {
        self.meta.inner_chunk_shape.as_deref()
    }

    /// The compression codecs after `bytes`, in Zarr v3 form.
    pub fn compressors(&self) -> &[Value] {
        &self.meta.compressors
    }

    /// The array's metadata document as stored: `zarr.json` (v3) or
    /// `.zarray` (v2).
    pub fn metadata(&self) -> &Value {
        &self.meta.document
    }

    /// The array's attributes (v3 `attributes`, v2 `.zattrs`); a float
    /// JSON has no number for, which zarr-python writes as a bare `NaN`,
    /// is held as [`attribute_float`](crate::attribute_float) holds it
    /// ([`float_of_attribute`](crate::float_of_attribute) reads it).
    pub fn attributes(&self) -> &Map<String, Value> {
        &self.meta.attributes
    }

    /// A v2 array's `fill_value` where it stands for missing values, as
    /// xarray reads it: the array names its dimensions
    /// (`_ARRAY_DIMENSIONS`, xarray's or ours) and has one. xarray takes it
    /// for the `_FillValue` and writes no attribute beside; zarr-python's
    /// own arrays have a `fill_value` for chunks never written, no mark of
    /// missing values. `None` in v3, where the `_FillValue` attribute says.
    ///
    /// ```
    /// use ndl_zarr::{ArrayInfo, WriteOptions, ZarrFormat};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("t.zarr");
    /// let v2 = WriteOptions::new().zarr_format(ZarrFormat::V2);
    /// v2.fill_value((-1).into()).write(&path, &[5i16, -1])?;
    /// assert_eq!(ArrayInfo::open(&path)?.v2_missing_value(), Some(&(-1).into()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn v2_missing_value(&self) -> Option<&Value> {
        let named = self.attributes().contains_key("_ARRAY_DIMENSIONS");
        let fill = self.metadata().get("fill_value").filter(|f| !f.is_null());
        fill.filter(|_| self.format() == ZarrFormat::V2 && named)
    }

    /// The dimension names, if the array has them.
    pub fn dimension_names(&self) -> Option<&[Option<String>]> {
        self.meta.dimension_names.as_deref()
    }

    /// The NDL `storage` directives of the array: `chunk` (the chunks that
    /// are compressed, inside shards), `filter` (the compression codecs in
    /// Zarr v3 form), `endian` and, for two or more dimensions, `order`.
    pub fn storage(&self) -> Storage {
        let chunk = self.inner_chunks().unwrap_or(self.chunks());
        let filter = self
            .compressors()
            .iter()
            .filter_map(|c| serde_yaml::to_value(c).ok())
            .collect();
        Storage {
            chunk: Some(chunk.iter().map(|&c| c as usize).collect()),
            filter: Some(filter),
            endian: self
                .stored_datatype()
                .has_multibyte_numbers()
                .then_some(self.byte_order()),
            order: (self.shape().len() > 1).then_some(self.order()),
            ..Storage::default()
        }
    }
}

/// Whether two packed datatypes have the same layout, enums counting as
/// their base.
fn same_packed(a: &Datatype, b: &Datatype) -> bool {
    ndl_runtime::schema::first_difference(b, a).is_none()
}

/// What a store holds at its root: one array (the records layout, or any
/// array), or a group of arrays (the columns layout, or a group xarray or
/// netCDF wrote).
#[derive(Clone, Debug)]
pub enum StoreInfo {
    /// An array at the root.
    Array(Box<ArrayInfo>),
    /// A group at the root.
    Group(GroupInfo),
}

/// A group and the arrays directly in it, in name order. Consolidated
/// metadata is not needed: each array's own metadata is read.
#[derive(Clone, Debug)]
pub struct GroupInfo {
    format: ZarrFormat,
    attributes: Map<String, Value>,
    arrays: Vec<(String, ArrayInfo)>,
    vlen_arrays: Vec<String>,
    groups: Vec<String>,
}

impl StoreInfo {
    /// Reads what the store `dir` holds.
    ///
    /// ```
    /// use ndl_zarr::{Layout, StoreInfo, WriteOptions};
    ///
    /// #[derive(Clone, Copy, ndl_runtime::NdlType)]
    /// #[repr(C)]
    /// struct P { x: f32, y: f32 }
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("p.zarr");
    /// WriteOptions::new().layout(Layout::Columns).write(&path, &[P { x: 1.0, y: 2.0 }])?;
    /// let StoreInfo::Group(g) = StoreInfo::open(&path)? else { panic!() };
    /// let names: Vec<&str> = g.arrays().iter().map(|(n, _)| n.as_str()).collect();
    /// assert_eq!(names, ["x", "y"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(dir: impl AsRef<Path>) -> Result<StoreInfo> {
        let store = Store::open(dir.as_ref())?;
        let Some((format, attributes)) = read_group(&store)? else {
            return ArrayInfo::read(&store).map(|a| StoreInfo::Array(Box::new(a)));
        };
        let children = group_children(&store)?;
        Ok(StoreInfo::Group(GroupInfo {
            format,
            attributes,
            arrays: children.arrays,
            vlen_arrays: children.vlen.into_iter().map(|(name, _)| name).collect(),
            groups: children.groups,
        }))
    }
}

impl GroupInfo {
    /// The Zarr format.
    pub fn format(&self) -> ZarrFormat {
        self.format
    }

    /// The group's attributes, bare `NaN`s held as in
    /// [`ArrayInfo::attributes`].
    pub fn attributes(&self) -> &Map<String, Value> {
        &self.attributes
    }

    /// The arrays in the group, by name, but those of variable-length
    /// values.
    pub fn arrays(&self) -> &[(String, ArrayInfo)] {
        &self.arrays
    }

    /// The names of the group's arrays of variable-length strings or
    /// bytes, which [`arrays`](GroupInfo::arrays) leaves out: read each
    /// with [`VlenReader::open_child`](crate::VlenReader::open_child).
    pub fn vlen_arrays(&self) -> &[String] {
        &self.vlen_arrays
    }

    /// The names of the groups directly in this one, in name order: open
    /// each with [`StoreInfo::open`] on its path.
    pub fn groups(&self) -> &[String] {
        &self.groups
    }

    /// The records of a columns store: its `ndl_datatype` attribute, or
    /// for a group another tool wrote, a field per array (CF time as time
    /// fields); `None` when the arrays are not columns of records. An
    /// error, naming the array, where an array's `units` say it counts
    /// time since an epoch but are no CF time units: as plain numbers its
    /// times would be lost.
    pub fn datatype(&self) -> std::result::Result<Option<Datatype>, String> {
        match self.attributes.get(NDL_DATATYPE) {
            Some(_) => Ok(self.written_datatype()),
            None => infer_record(&self.arrays).map_err(|(array, e)| {
                format!("array `{array}`: its units read as CF time but are not: {e}")
            }),
        }
    }

    /// The records' datatype as written, in the layout they were written
    /// from (offsets and size, padding included): the `ndl_datatype`
    /// attribute; `None` for a group another tool wrote, whose inferred
    /// records ([`datatype`](GroupInfo::datatype)) have no layout of their
    /// own.
    pub fn written_datatype(&self) -> Option<Datatype> {
        let value = self.attributes.get(NDL_DATATYPE)?;
        serde_json::from_value(value.clone()).ok()
    }

    /// The number of records: the shortest array's first dimension.
    pub fn len(&self) -> u64 {
        self.arrays
            .iter()
            .map(|(_, a)| a.shape().first().copied().unwrap_or(1))
            .min()
            .unwrap_or(0)
    }

    /// Whether the group holds no records.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The names of the nodes directly in the group `store`.
pub(crate) fn child_names(store: &Store) -> Result<Vec<String>> {
    let children = store
        .storage
        .list_dir(&zarrs::storage::StorePrefix::root())
        .map_err(|e| store.error("", e.to_string()))?;
    Ok(children
        .prefixes()
        .iter()
        .map(|p| p.as_str().trim_end_matches('/').to_string())
        .collect())
}

/// The arrays directly in the group `store`, in name order.
fn group_arrays(store: &Store) -> Result<NamedArrays> {
    let Children { arrays, vlen, .. } = group_children(store)?;
    match vlen.first() {
        Some((name, _)) => Err(Error::Shape {
            store: store.name.clone(),
            message: format!(
                "array `{name}` holds variable-length values, which records of numbers have no \
                 place for"
            ),
        }),
        None => Ok(arrays),
    }
}

/// The arrays of fixed-size values of a group, by name.
pub(crate) type NamedArrays = Vec<(String, ArrayInfo)>;

/// The arrays of variable-length values of a group, by name.
pub(crate) type NamedVlen = Vec<(String, VlenMeta)>;

/// The nodes directly in a group, each kind in name order.
pub(crate) struct Children {
    /// The arrays of fixed-size values.
    pub arrays: NamedArrays,
    /// The arrays of variable-length values.
    pub vlen: NamedVlen,
    /// The groups.
    pub groups: Vec<String>,
}

/// The nodes directly in the group `store`, each read once: its groups,
/// its arrays of variable-length values and of fixed-size ones.
pub(crate) fn group_children(store: &Store) -> Result<Children> {
    let (mut arrays, mut vlen, mut groups) = (Vec::new(), Vec::new(), Vec::new());
    for name in child_names(store)? {
        let child = store.child(&name);
        if read_group(&child)?.is_some() {
            groups.push(name);
        } else if let Some(meta) = VlenMeta::probe(&child)? {
            vlen.push((name, meta));
        } else if let Some(info) = read_child(&child)? {
            arrays.push((name, info));
        }
    }
    arrays.sort_by(|a, b| a.0.cmp(&b.0));
    vlen.sort_by(|a, b| a.0.cmp(&b.0));
    groups.sort();
    Ok(Children {
        arrays,
        vlen,
        groups,
    })
}

/// The array at `child`, which is no group; `None` for a directory of
/// something else.
fn read_child(child: &Store) -> Result<Option<ArrayInfo>> {
    match ArrayInfo::read(child) {
        Ok(info) => Ok(Some(info)),
        Err(Error::NotAnArray { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The records of the columns store `store`, from its group attributes,
/// or for a group another tool wrote, from its arrays ([`infer_record`]).
pub(crate) fn group_datatype(store: &Store, attributes: &Map<String, Value>) -> Result<Datatype> {
    let missing = || Error::Metadata {
        store: store.name.clone(),
        key: "attributes".into(),
        message: format!(
            "no readable `{NDL_DATATYPE}` attribute, and the arrays are not columns of numbers of one length: this group has no record type; read it with a Rust type"
        ),
    };
    match attributes.get(NDL_DATATYPE) {
        Some(value) => serde_json::from_value(value.clone()).map_err(|_| missing()),
        None => match infer_record(&group_arrays(store)?) {
            Ok(record) => record.ok_or_else(missing),
            Err((field, e)) => Err(Error::TypeMismatch {
                store: store.name.clone(),
                field,
                message: format!("its units read as CF time but are not: {e}"),
            }),
        },
    }
}

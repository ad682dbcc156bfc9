//! What an HDF5 file holds, whoever wrote it: its groups, datasets and
//! attributes, each dataset's type in our model, shape, chunks and
//! filters, and the dimension scales attached to it. Plain data, for
//! descriptions.

pub use ndl_runtime::NamedType;
use std::collections::BTreeMap;
use std::path::Path;

use hdf5::filters::Filter;
use hdf5::types::VarLenArray;
use hdf5::{
    IndexType, IterationOrder, LinkType, LocationToken, ObjectReference1, ReferencedObject,
};
use ndl_runtime::{Datatype, TimeType};
use serde_json::{Map, Value};

use crate::attribute::attributes;
use crate::error::Result;
use crate::error::hdf5_error;
use crate::object_path::{leaf, parent};
use crate::stored_type::{StoredType, stored_type};

/// How netCDF-C's name of a dimension that is no variable starts.
pub(crate) const DIMENSION_ONLY: &str = "This is a netCDF dimension but not a netCDF variable.";

/// How netCDF-C's name of a variable named like a dimension that is not
/// its coordinate starts (`_nc4_non_coord_y` for a `y(x, y)`): its
/// readers know it by the rest.
pub(crate) const NON_COORDINATE: &str = "_nc4_non_coord_";

/// A file's groups and datasets, in creation order within each group
/// where the file keeps it (netCDF's order), else in name order.
#[derive(Clone, Debug, Default)]
pub struct Inventory {
    /// Every group, the root (`/`) first, each with its attributes.
    pub groups: Vec<GroupInfo>,
    /// Every dataset.
    pub datasets: Vec<DatasetInfo>,
    /// Every committed (named) datatype our model has a datatype for, in
    /// its group's order: netCDF-4's user-defined types.
    pub types: Vec<NamedType>,
}

/// One group.
#[derive(Clone, Debug)]
pub struct GroupInfo {
    /// Its path, `/` for the root.
    pub path: String,
    /// Its attributes, as JSON values.
    pub attributes: Map<String, Value>,
    /// The stored type of each attribute's elements.
    pub attribute_types: BTreeMap<String, Datatype>,
}

/// One dataset.
#[derive(Clone, Debug)]
pub struct DatasetInfo {
    /// The group it is in (`/` at the root).
    pub group: String,
    /// Its name within that group.
    pub name: String,
    /// Its element type.
    pub stored: StoredType,
    /// Its extents as netCDF reads them: its own, but along an unlimited
    /// dimension (a dimension scale's) that another dataset has grown
    /// further, that dimension's length, past its own extent each element
    /// its fill (see [`ArrayReader::grown_to`](crate::ArrayReader::grown_to)).
    pub shape: Vec<u64>,
    /// Its extents as HDF5 stores them (and h5py reads them).
    pub extents: Vec<u64>,
    /// Its largest extents, `None` where unlimited.
    pub max_shape: Vec<Option<u64>>,
    /// Its chunk shape, when chunked.
    pub chunks: Option<Vec<u64>>,
    /// Its filters in the order they run when writing, each as Zarr v3
    /// names a codec: `{"name": "deflate", "configuration": {"level": 4}}`,
    /// `{"name": "shuffle"}`, ...
    pub filters: Vec<Value>,
    /// The stored type of each attribute's elements.
    pub attribute_types: BTreeMap<String, Datatype>,
    /// Its attributes, as JSON values; those of a kind JSON cannot hold
    /// (compounds, references) are described in words.
    pub attributes: Map<String, Value>,
    /// The names of the dimension scales attached to each dimension
    /// (netCDF's dimensions), where there are.
    pub dimension_names: Option<Vec<Option<String>>>,
    /// Whether it is itself a dimension scale.
    pub is_scale: bool,
    /// The time type it holds where it is a CF time variable (int64 or
    /// float64 counts with CF `units`): counts of its unit, nanoseconds
    /// for floats.
    pub cf_time: Option<TimeType>,
    /// Whether it is a netCDF dimension that is no variable: a scale
    /// holding no values, only the dimension's length.
    pub is_dimension_only: bool,
    /// Why its type has no datatype here (a 16-byte long double, HDF5's
    /// time class), where it has none: `stored` is then opaque bytes of
    /// its size, and the dataset does not convert.
    pub no_numpy_type: Option<String>,
    /// The fill a writer set for its elements never written (h5py's
    /// `fillvalue`), where it is a number's that says more than the
    /// `_FillValue` attribute beside it: not zero (HDF5's own), nor
    /// netCDF-C's default fill (which it sets on every variable).
    pub fill: Option<Value>,
    /// Whether its dataspace is null (`H5S_NULL`): no elements and no
    /// shape, not even a scalar's (`shape` is empty); h5py reads it as
    /// `h5py.Empty`.
    pub null_space: bool,
    /// The name of the committed (named) datatype its type is, where it
    /// is one: netCDF-4's user-defined types (`cloud_t`).
    pub type_name: Option<String>,
}

impl Inventory {
    /// Whether netCDF-4 made the file (its `_NCProperties`, or its
    /// variables' `_Netcdf4Dimid` or `_Netcdf4Coordinates`): a file whose
    /// variables along an unlimited dimension are read as long as it.
    pub fn is_netcdf4(&self) -> bool {
        let root = self.groups.first();
        root.is_some_and(|g| g.attributes.contains_key("_NCProperties"))
            || self.datasets.iter().any(|d| {
                d.attributes.contains_key("_Netcdf4Dimid")
                    || d.attributes.contains_key("_Netcdf4Coordinates")
            })
    }

    /// The inventory of the HDF5 file at `path`.
    pub fn of(path: impl AsRef<Path>) -> Result<Inventory> {
        let path = path.as_ref();
        let file = crate::file::open(path)?;
        let mut walk = Walk::default();
        let root: &hdf5::Group = &file;
        visit(path, root, "/", &mut walk)?;
        Ok(walk.finish())
    }
}

/// What a walk over a file gathers: the inventory, and the dimension
/// scales each dataset's dimensions are attached to, as object tokens,
/// named once every scale is known. (Asking a scale opened through a
/// reference for its name makes HDF5 search the whole file, once per
/// dimension of every variable: quadratic in the number of variables.)
#[derive(Default)]
struct Walk {
    inventory: Inventory,
    /// Every dimension scale met: its object token and its name.
    scales: Vec<(LocationToken, String)>,
    /// For each dataset in `inventory.datasets`, the scale attached to
    /// each dimension (a scale's own, itself), where it has them.
    attached: Vec<Option<Vec<Option<LocationToken>>>>,
    /// Every committed datatype met: its group, name and type.
    committed: Vec<(String, String, hdf5::Datatype)>,
    /// For each dataset, its datatype where it is user-defined (a
    /// compound, enum, opaque or vlen), whose name is looked up among the
    /// committed ones once the walk has met them all.
    user_types: Vec<Option<hdf5::Datatype>>,
}

impl Walk {
    fn finish(mut self) -> Inventory {
        for (dataset, dtype) in self.inventory.datasets.iter_mut().zip(&self.user_types) {
            dataset.type_name = dtype.as_ref().and_then(|dtype| {
                let found = self.committed.iter().find(|(_, _, t)| t == dtype);
                found.map(|(_, name, _)| name.clone())
            });
        }
        if self.inventory.is_netcdf4() {
            grow_unlimited(&mut self.inventory.datasets, &self.attached);
        }
        for (dataset, attached) in self.inventory.datasets.iter_mut().zip(self.attached) {
            if let (Some(tokens), None) = (attached, &dataset.dimension_names) {
                let name = |token: LocationToken| {
                    let found = self.scales.iter().find(|(t, _)| *t == token);
                    found.map(|(_, name)| name.clone())
                };
                dataset.dimension_names =
                    Some(tokens.into_iter().map(|t| t.and_then(name)).collect());
            }
        }
        // A committed type our model has no datatype for (a reference)
        // is no netCDF-4 type: nothing names it.
        self.inventory.types = self
            .committed
            .iter()
            .filter_map(|(group, name, dtype)| {
                Some(NamedType {
                    group: group.clone(),
                    name: name.clone(),
                    datatype: stored_type(dtype.id()).ok()?.datatype,
                })
            })
            .collect();
        self.inventory
    }
}

fn visit(path: &Path, group: &hdf5::Group, at: &str, walk: &mut Walk) -> Result<()> {
    let (attributes, attribute_types) = attributes(group);
    walk.inventory.groups.push(GroupInfo {
        path: at.to_string(),
        attributes,
        attribute_types,
    });
    for name in member_names(group).map_err(hdf5_error(path, at))? {
        let child = if at == "/" {
            format!("/{name}")
        } else {
            format!("{at}/{name}")
        };
        if let Ok(dataset) = group.dataset(&name) {
            let known_as = name.strip_prefix(NON_COORDINATE).unwrap_or(&name);
            let info = dataset_info(path, &dataset, at, known_as, &child)?;
            let own = info.is_scale.then(|| dataset.loc_info().ok()).flatten();
            if let Some(loc) = &own {
                walk.scales.push((loc.token, name.clone()));
            }
            walk.attached
                .push(match (own, info.dimension_names.is_some()) {
                    (Some(loc), true) => Some(vec![Some(loc.token)]),
                    _ => attached_scales(&dataset),
                });
            walk.user_types.push(
                is_user_defined(&info.stored.datatype)
                    .then(|| dataset.dtype().ok())
                    .flatten(),
            );
            walk.inventory.datasets.push(info);
        } else if let Ok(sub) = group.group(&name) {
            visit(path, &sub, &child, walk)?;
        } else if let Ok(committed) = group.committed_datatype(&name) {
            let dtype = committed.as_datatype().clone();
            walk.committed.push((at.to_string(), name, dtype));
        }
        // Broken links are none of these: nothing to list.
    }
    Ok(())
}

/// Each of `datasets` along an unlimited dimension as long as the longest
/// dataset along it, as netCDF reads them (`shape`): a dimension is a
/// scale, which `attached` gives for each dimension of each dataset (a
/// netCDF variable has one on every dimension; others are left as
/// they are).
fn grow_unlimited(datasets: &mut [DatasetInfo], attached: &[Option<Vec<Option<LocationToken>>>]) {
    let unlimited = |d: &DatasetInfo, k: usize| d.max_shape.get(k).is_some_and(Option::is_none);
    let every = |tokens: &&Option<Vec<Option<LocationToken>>>| {
        tokens
            .as_ref()
            .is_some_and(|t| t.iter().all(Option::is_some))
    };
    let attached: Vec<_> = attached
        .iter()
        .map(|t| every(&t).then_some(t).and_then(Option::as_ref))
        .collect();
    let mut lengths: Vec<(LocationToken, u64)> = Vec::new();
    for (d, tokens) in datasets.iter().zip(&attached) {
        for (k, token) in tokens.iter().copied().flatten().enumerate() {
            let (Some(token), true) = (token, unlimited(d, k)) else {
                continue;
            };
            let extent = d.shape.get(k).copied().unwrap_or(0);
            match lengths.iter_mut().find(|(t, _)| t == token) {
                Some((_, len)) => *len = (*len).max(extent),
                None => lengths.push((*token, extent)),
            }
        }
    }
    for (d, tokens) in datasets.iter_mut().zip(&attached) {
        for (k, token) in tokens.iter().copied().flatten().enumerate() {
            let length = lengths.iter().find(|(t, _)| Some(t) == token.as_ref());
            if let (Some((_, len)), true) = (length, unlimited(d, k)) {
                d.shape[k] = *len;
            }
        }
    }
}

/// The names of `group`'s members in the order they were made, as
/// netCDF lists them, where the file tracks it; else in name order.
pub(crate) fn member_names(group: &hdf5::Group) -> hdf5::Result<Vec<String>> {
    let mut names = Vec::new();
    let by_creation = group.iter_visit(
        hdf5::IndexType::CreationOrder,
        hdf5::IterationOrder::Increasing,
        |name, _| {
            names.push(name.to_string());
            Ok(())
        },
    );
    match by_creation {
        Ok(()) => Ok(names),
        Err(_) => group.member_names(),
    }
}

fn dataset_info(
    path: &Path,
    dataset: &hdf5::Dataset,
    group: &str,
    name: &str,
    full: &str,
) -> Result<DatasetInfo> {
    let dtype = dataset.dtype().map_err(hdf5_error(path, full))?;
    // A type with no datatype here is described as opaque bytes of its
    // size, saying what it is, rather than failing the whole file.
    let (mut stored, no_numpy_type) = match stored_type(dtype.id()) {
        Ok(stored) => (stored, None),
        Err(why) => (StoredType::opaque(dtype.size(), &why), Some(why)),
    };
    if let Some(dt) =
        crate::cf::read_datatype(dataset).filter(|dt| dt.size() == stored.datatype.size())
    {
        stored.datatype = dt;
    }
    let space = dataset.space().map_err(hdf5_error(path, full))?;
    let (attributes, attribute_types) = attributes(dataset);
    let cf_time = crate::cf::cf_time_type(&stored.datatype, &attributes);
    let is_scale = attributes.get("CLASS").and_then(Value::as_str) == Some("DIMENSION_SCALE");
    let fill =
        set_fill(dataset, &stored.datatype).filter(|_| !attributes.contains_key("_FillValue"));
    Ok(DatasetInfo {
        group: group.to_string(),
        name: name.to_string(),
        stored,
        shape: dataset.shape().iter().map(|&d| d as u64).collect(),
        extents: dataset.shape().iter().map(|&d| d as u64).collect(),
        max_shape: space
            .maxdims()
            .iter()
            .map(|d| d.map(|d| d as u64))
            .collect(),
        chunks: dataset
            .chunk()
            .map(|c| c.iter().map(|&d| d as u64).collect()),
        filters: dataset.filters().iter().map(filter_name).collect(),
        // A dimension scale is netCDF's coordinate variable, over the
        // dimension it names; the scales attached to other datasets are
        // named once the walk has met them all.
        dimension_names: (is_scale && dataset.ndim() == 1).then(|| vec![Some(name.to_string())]),
        is_scale,
        cf_time,
        is_dimension_only: is_scale
            && attributes
                .get("NAME")
                .and_then(Value::as_str)
                .is_some_and(|n| n.starts_with(DIMENSION_ONLY)),
        attributes,
        attribute_types,
        no_numpy_type,
        fill,
        null_space: crate::raw_io::has_null_space(dataset),
        type_name: None,
    })
}

/// Whether `dt` is a type netCDF-4 defines by name.
fn is_user_defined(dt: &Datatype) -> bool {
    matches!(
        dt,
        Datatype::Compound(_) | Datatype::Enum(_) | Datatype::Opaque(_) | Datatype::Vlen(_)
    )
}

/// The dimension scale attached to each dimension of `dataset` (its
/// `DIMENSION_LIST`), where it has one.
fn scales(dataset: &hdf5::Dataset) -> Option<Vec<Option<hdf5::Dataset>>> {
    let list = dataset.attr("DIMENSION_LIST").ok()?;
    let per_dimension = list.read_raw::<VarLenArray<ObjectReference1>>().ok()?;
    let scales = per_dimension
        .iter()
        .map(
            |refs| match dataset.dereference(refs.iter().next()?).ok()? {
                ReferencedObject::Dataset(scale) => Some(scale),
                _ => None,
            },
        )
        .collect();
    Some(scales)
}

/// The object token of the dimension scale attached to each dimension of
/// `dataset`, where it has one.
fn attached_scales(dataset: &hdf5::Dataset) -> Option<Vec<Option<LocationToken>>> {
    let tokens = scales(dataset)?
        .into_iter()
        .map(|scale| scale?.loc_info().ok().map(|l| l.token))
        .collect();
    Some(tokens)
}

/// The names of the dimension scales attached to each dimension of
/// `dataset`, when every dimension has one (a netCDF variable's).
pub(crate) fn scale_names(dataset: &hdf5::Dataset) -> Option<Vec<String>> {
    let seen_from = enclosing_groups(dataset);
    scales(dataset)?
        .into_iter()
        .map(|scale| scale_name(&scale?, &seen_from))
        .collect()
}

/// The group holding `dataset`, then each group above it: where netCDF
/// looks for the dimensions a variable names.
fn enclosing_groups(dataset: &hdf5::Dataset) -> Vec<hdf5::Group> {
    let Ok(file) = dataset.file() else {
        return Vec::new();
    };
    let mut groups = Vec::new();
    let mut at = dataset.name();
    while at != "/" {
        at = parent(&at).to_string();
        groups.extend(file.group(&at).ok());
    }
    groups
}

/// The name of `scale`, a dataset reached by reference, where one of
/// `groups` links it: by its `NAME` (a coordinate variable's own name in
/// netCDF-C's files), else the first link to it in the group's creation
/// order (netCDF-C makes its dimensions before its variables), read
/// through its index ([`made_nth`](crate::links::made_nth)), or in name
/// order where the group keeps none. HDF5's own answer (`H5Iget_name`)
/// walks the whole file on every call, which for each variable of a file
/// of thousands is seconds; it is the last resort.
fn scale_name(scale: &hdf5::Dataset, groups: &[hdf5::Group]) -> Option<String> {
    let token = scale.loc_info().ok()?.token;
    let named = crate::attribute::attribute(scale, "NAME");
    let hint = named.as_ref().and_then(Value::as_str);
    for group in groups {
        let links_it = |name: &str| group.loc_info_by_name(name).is_ok_and(|l| l.token == token);
        if let Some(hint) = hint.filter(|h| links_it(h)) {
            return Some(hint.to_string());
        }
        let mut made = (0..)
            .map_while(|n| crate::links::made_nth(group, n))
            .peekable();
        if made.peek().is_some() {
            if let Some(name) = made.find(|name| links_it(name)) {
                return Some(name);
            }
            continue;
        }
        // A group that keeps no creation order (h5py's): by name.
        let by_name = group.find_link(IndexType::Name, IterationOrder::Increasing, |name, info| {
            Ok((info.link_type == LinkType::Hard && links_it(name)).then(|| name.to_string()))
        });
        if let Ok(Some(name)) = by_name {
            return Some(name);
        }
    }
    Some(leaf(&scale.name()).to_string())
}

pub(crate) fn filter_name(filter: &Filter) -> Value {
    let named = |name: &str| serde_json::json!({ "name": name });
    match filter {
        Filter::Deflate(level) => {
            serde_json::json!({"name": "deflate", "configuration": {"level": level}})
        }
        Filter::Shuffle => named("shuffle"),
        Filter::Fletcher32 => named("fletcher32"),
        Filter::SZip(..) => named("szip"),
        Filter::NBit => named("nbit"),
        Filter::ScaleOffset(..) => named("scaleoffset"),
        Filter::Blosc(compressor, level, shuffle) => {
            use hdf5::filters::BloscShuffle as S;
            // Its names (`BloscLZ`, `LZ4HC`, `ZStd`) in lower case are
            // Zarr's and numcodecs'.
            let cname = format!("{compressor:?}").to_lowercase();
            let shuffle = match shuffle {
                S::None => "noshuffle",
                S::Byte => "shuffle",
                S::Bit => "bitshuffle",
            };
            serde_json::json!({"name": "blosc", "configuration": {"cname": cname, "clevel": level, "shuffle": shuffle}})
        }
        Filter::User(id, values) => match crate::filters::name_of(*id as _) {
            Some(name) => {
                serde_json::json!({"name": name, "configuration": {"id": id, "values": values}})
            }
            None => {
                serde_json::json!({"name": format!("hdf5 filter {id}"), "configuration": {"values": values}})
            }
        },
    }
}

/// The fill a writer set on `dataset` of numbers of `datatype`, unless
/// it is zero (HDF5's own) or netCDF-C's default for the type, which
/// netCDF-C sets on every variable: a number, or NaN and the infinities
/// as text, as attributes hold them here.
pub(crate) fn set_fill(dataset: &hdf5::Dataset, datatype: &Datatype) -> Option<Value> {
    use hdf5::plist::dataset_create::FillValue;
    let dcpl = dataset.dcpl().ok()?;
    if dcpl.fill_value_defined() != FillValue::UserDefined {
        return None;
    }
    let default = crate::fill::netcdf_default_fill(datatype)?;
    fn of<T>(dcpl: &hdf5::plist::DatasetCreate, default: &[u8]) -> Option<T>
    where
        T: hdf5::H5Type + bytemuck::Pod + PartialEq + Default,
    {
        let fill = dcpl.fill_value_as::<T>()?;
        let unset = fill == T::default() || fill == bytemuck::pod_read_unaligned(default);
        (!unset).then_some(fill)
    }
    Some(match datatype {
        Datatype::Int8 => Value::from(of::<i8>(&dcpl, &default)?),
        Datatype::UInt8 => Value::from(of::<u8>(&dcpl, &default)?),
        Datatype::Int16 => Value::from(of::<i16>(&dcpl, &default)?),
        Datatype::UInt16 => Value::from(of::<u16>(&dcpl, &default)?),
        Datatype::Int32 => Value::from(of::<i32>(&dcpl, &default)?),
        Datatype::UInt32 => Value::from(of::<u32>(&dcpl, &default)?),
        Datatype::Int64 => Value::from(of::<i64>(&dcpl, &default)?),
        Datatype::UInt64 => Value::from(of::<u64>(&dcpl, &default)?),
        Datatype::Float32 => crate::attribute::float(f64::from(of::<f32>(&dcpl, &default)?)),
        Datatype::Float64 => crate::attribute::float(of::<f64>(&dcpl, &default)?),
        _ => return None,
    })
}

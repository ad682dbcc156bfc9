//! What a file or store holds, as every description language reads it:
//! its arrays, with their specs, storage and attributes. Plain data.

pub use ndl_runtime::NamedType;
use std::collections::BTreeMap;

use ndl_runtime::Datatype;
use ndl_runtime::ndl::Storage;
use serde_json::{Map, Value};

use ndl_runtime::ArraySpec;

/// How a file's arrays are arranged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrangement {
    /// One array: a `.npy` file, or a store whose root is an array.
    One,
    /// Named arrays, each with dimensions of its own: a `.npz` archive,
    /// whose member names with `/` are group paths.
    Archive,
    /// Arrays sharing named dimensions: a Zarr group (the columns layout,
    /// or a group that xarray or netCDF wrote).
    Group,
}

/// One array of a file.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The group path (`/` for top-level arrays).
    pub group: String,
    /// The array's name within its group.
    pub name: String,
    /// What it holds.
    pub spec: ArraySpec,
    /// How it is stored: chunks, filters, byte order.
    pub storage: Storage,
    /// Its attributes in the format (a Zarr array's `attributes`).
    pub attributes: Map<String, Value>,
    /// The names of its dimensions, where the format names them.
    pub dimension_names: Option<Vec<Option<String>>>,
    /// The format's own metadata document of the array, where it has one
    /// (a Zarr array's `zarr.json` or `.zarray`).
    pub native_metadata: Option<Value>,
    /// The stored type of its attributes, where the format has one
    /// beside JSON's (HDF5's `float` or `short`).
    pub attribute_types: BTreeMap<String, Datatype>,
    /// Which of its dimensions are unlimited (HDF5, netCDF-4); empty
    /// where none is.
    pub unlimited: Vec<bool>,
    /// The format's own name of its user-defined datatype, where it
    /// names it (a netCDF-4 compound or enum type).
    pub type_name: Option<String>,
}

impl Entry {
    /// An array with no attributes, names or metadata of its format.
    pub fn new(group: String, name: String, spec: ArraySpec, storage: Storage) -> Entry {
        Entry {
            group,
            name,
            spec,
            storage,
            attributes: Map::new(),
            dimension_names: None,
            native_metadata: None,
            attribute_types: BTreeMap::new(),
            unlimited: Vec::new(),
            type_name: None,
        }
    }

    /// The name a flat listing uses: `group/name` below the root.
    pub fn label(&self) -> String {
        match self.group.as_str() {
            "/" => self.name.clone(),
            g => format!("{}/{}", &g[1..], self.name),
        }
    }

    /// The full path: `/group/name`.
    pub fn path(&self) -> String {
        join(&self.group, &self.name)
    }
}

/// The arrays of a file or store.
#[derive(Clone, Debug)]
pub struct Contents {
    /// How they are arranged.
    pub arrangement: Arrangement,
    /// The arrays, in the file's order.
    pub entries: Vec<Entry>,
    /// The attributes of the root group.
    pub attributes: Map<String, Value>,
    /// What a reader should know: members left out, sidecars not used.
    pub warnings: Vec<String>,
    /// The stored type of the root attributes, where the format has
    /// one beside JSON's (HDF5's `float` or `short`).
    pub attribute_types: BTreeMap<String, Datatype>,
    /// Every group below the root that the format has as a thing of its
    /// own (HDF5's), with its attributes, whether or not it holds an
    /// array, parents before their children; empty for formats whose
    /// groups are only their arrays' paths.
    pub groups: Vec<GroupEntry>,
    /// What the format declares by name beside its arrays (netCDF-4's
    /// user-defined types and dimensions); empty where it declares none.
    pub declared: Declared,
}

/// The types and dimensions a format declares in its groups.
#[derive(Clone, Debug, Default)]
pub struct Declared {
    /// The named datatypes, in the file's order.
    pub types: Vec<NamedType>,
    /// The dimensions, in the order of their ids (netCDF's
    /// `_Netcdf4Dimid`).
    pub dimensions: Vec<Dimension>,
}

/// A named dimension, declared in one group and seen in those below it.
#[derive(Clone, Debug)]
pub struct Dimension {
    /// The group that declares it (`/` for the root).
    pub group: String,
    /// Its name.
    pub name: String,
    /// Its length (the records it holds where unlimited).
    pub size: u64,
    /// Whether it is unlimited.
    pub unlimited: bool,
}

impl Contents {
    /// `entries` arranged so, with no attributes, warnings or groups.
    pub fn new(arrangement: Arrangement, entries: Vec<Entry>) -> Contents {
        Contents {
            arrangement,
            entries,
            attributes: Map::new(),
            warnings: Vec::new(),
            attribute_types: BTreeMap::new(),
            groups: Vec::new(),
            declared: Declared::default(),
        }
    }
}

/// A group below the root, as a format has it.
#[derive(Clone, Debug)]
pub struct GroupEntry {
    /// Its path: `/a/b`.
    pub path: String,
    /// Its attributes in the format.
    pub attributes: Map<String, Value>,
    /// The stored type of its attributes, where the format has one.
    pub attribute_types: BTreeMap<String, Datatype>,
}

/// `/a/b` -> `/`, `/a`, `/a/b`.
pub(crate) fn ancestors_and_self(group: &str) -> Vec<String> {
    let mut out = vec!["/".to_string()];
    let mut path = String::new();
    for part in group.split('/').filter(|p| !p.is_empty()) {
        path.push('/');
        path.push_str(part);
        out.push(path.clone());
    }
    out
}

/// `/group` + `name`.
pub(crate) fn join(group: &str, name: &str) -> String {
    if group == "/" {
        format!("/{name}")
    } else {
        format!("{group}/{name}")
    }
}

/// The name of a file or store without its ending.
pub(crate) fn stem(path: &std::path::Path) -> String {
    // A zip store's name has two endings (`x.zarr.zip`): both go.
    let path = match path.extension() {
        Some(zip) if zip == "zip" => path.with_extension(""),
        _ => path.to_path_buf(),
    };
    path.file_stem()
        .map_or_else(|| "array".into(), |s| s.to_string_lossy().into_owned())
}

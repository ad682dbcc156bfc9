//! The File, Group, Ndarray and DimCoord entities: a whole NDL document,
//! as plain data. Its YAML form is in `document_yaml`, its rules in
//! `validate`.

use serde_yaml::Value;

use super::attribute::Attribute;
use super::error::{Ctx, NdlError};
use super::name_map::NameMap;
use super::path::{ancestors, check_group_path, check_name, join_path, split_path};
use super::shape::Shape;
use super::storage::Storage;
use crate::{Datatype, NdlType};

/// The attribute holding an ndarray's description, as in the spec's
/// `attributes: {description: Values of z}`.
pub const DESCRIPTION: &str = "description";

/// One NDL document: the content of one ndarray file, as groups keyed by
/// path (`/`, `/group1`, `/group2/subgroup1`).
///
/// A document either keys its groups by path or, for non-hierarchical
/// files, puts the root group's `attributes`, `dimcoords` and `ndarrays`
/// at the top level; [`form`](Self::form) keeps which, so a document is
/// written back the way it was read.
///
/// ```
/// use ndl_runtime::ndl::{File, Ndarray};
/// use ndl_runtime::Datatype;
///
/// let file = File::single_ndarray("z", Ndarray::new([10, 20], Datatype::Float64).with_description("Values of z"));
/// let yaml = file.to_yaml();
/// assert_eq!(
///     yaml,
///     "ndarrays:\n  z:\n    shape: [10, 20]\n    type: float64\n    attributes: {description: Values of z}\n"
/// );
/// assert_eq!(File::from_yaml(&yaml).unwrap(), file);
/// ```
///
/// The fields are public; [`File::from_yaml`] checks every rule of the
/// spec, and [`File::validate`] checks a file built by hand.
///
/// `File` (like [`Shape`]) also implements serde's `Serialize` and
/// `Deserialize` through its YAML value, to embed it in other serde
/// documents. For NDL text use [`File::to_yaml`]: serde_yaml's own writer
/// leaves `ON` or `2026-01-01` unquoted, which YAML 1.1 parsers misread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    /// Whether groups are keyed by path or the root group is implicit.
    pub form: FileForm,
    /// The groups by path, in document order. A flat file holds only `/`.
    pub groups: NameMap<Group>,
}

/// How a [`File`] lays out its groups at the top level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileForm {
    /// The root group's keys at the top level, no group paths: the form
    /// for non-hierarchical file formats such as `.npy` and `.npz`.
    Flat,
    /// Every top-level key is a group path.
    Grouped,
}

/// A group: attributes, dimension coordinates and ndarrays, each by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group {
    /// `attributes:`
    pub attributes: NameMap<Attribute>,
    /// `dimcoords:`
    pub dimcoords: NameMap<DimCoord>,
    /// `ndarrays:`
    pub ndarrays: NameMap<Ndarray>,
}

/// An ndarray holding data: shape, datatype, optional values, attributes
/// and storage directives.
///
/// ```
/// use ndl_runtime::ndl::{Ndarray, Storage};
/// use ndl_runtime::ByteOrder;
/// use ndl_runtime::Datatype;
///
/// let nd = Ndarray::new([3], Datatype::UInt16)
///     .with_attribute("units", "m")
///     .with_storage(Storage { endian: Some(ByteOrder::Big), ..Storage::default() });
/// assert_eq!(nd.attributes.get("units").and_then(|a| a.as_str()), Some("m"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ndarray {
    /// The shape.
    pub shape: Shape,
    /// The datatype. The spec's own group example leaves it out, so it is
    /// optional when reading; every ndarray this crate describes has one.
    pub datatype: Option<Datatype>,
    /// The values, as nested lists following the shape.
    pub value: Option<Value>,
    /// `attributes:`
    pub attributes: NameMap<Attribute>,
    /// `storage:` (no key written when empty)
    pub storage: Storage,
}

/// A dimension coordinate: a one-dimensional ndarray whose values are the
/// coordinates along the ndarray dimensions that name it in their shape.
///
/// ```
/// use ndl_runtime::ndl::DimCoord;
/// use ndl_runtime::Datatype;
///
/// let y = DimCoord::new(Some(3), Datatype::Float32)
///     .with_value(vec![1.0, 1.1, 1.2])
///     .with_attribute("what", "y coordinate");
/// assert_eq!(y.size, Some(3));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DimCoord {
    /// The number of values (positive), `None` for unlimited (`size: null`).
    pub size: Option<usize>,
    /// The datatype of the values.
    pub datatype: Datatype,
    /// The values, a list of `size` of them.
    pub value: Option<Value>,
    /// `attributes:`
    pub attributes: NameMap<Attribute>,
    /// `storage:` (no key written when empty)
    pub storage: Storage,
}

impl Default for File {
    fn default() -> File {
        File::new()
    }
}

impl File {
    /// An empty flat file: just the (empty) root group.
    ///
    /// ```
    /// use ndl_runtime::ndl::File;
    /// assert_eq!(File::new().to_yaml(), "{}\n");
    /// ```
    pub fn new() -> File {
        File {
            form: FileForm::Flat,
            groups: [("/", Group::default())].into_iter().collect(),
        }
    }

    /// A flat file with one ndarray: the description of a `.npy` file.
    pub fn single_ndarray(name: impl Into<String>, ndarray: Ndarray) -> File {
        let mut file = File::new();
        let root = file.groups.get_or_insert_with("/", Group::default);
        root.ndarrays.insert(name, ndarray);
        file
    }

    /// Adds an ndarray to the group at `group_path`, creating the group if
    /// needed (a group other than `/` makes the file [`FileForm::Grouped`]),
    /// and returns the ndarray it replaces.
    ///
    /// ```
    /// use ndl_runtime::ndl::{File, FileForm, Ndarray};
    /// use ndl_runtime::Datatype;
    ///
    /// let mut file = File::new();
    /// file.insert_ndarray("/", "a", Ndarray::new([2], Datatype::Int8)).unwrap();
    /// assert_eq!(file.form, FileForm::Flat);
    /// file.insert_ndarray("/g/h", "b", Ndarray::new([], Datatype::Bool)).unwrap();
    /// assert_eq!(file.form, FileForm::Grouped);
    /// assert!(file.ndarray("/g/h/b").is_some());
    /// assert!(file.insert_ndarray("g", "c", Ndarray::new([], Datatype::Bool)).is_err());
    /// assert!(file.insert_ndarray("/", "c/d", Ndarray::new([], Datatype::Bool)).is_err());
    /// ```
    pub fn insert_ndarray(
        &mut self,
        group_path: &str,
        name: impl Into<String>,
        ndarray: Ndarray,
    ) -> Result<Option<Ndarray>, NdlError> {
        let name = name.into();
        check_name(&name, &Ctx::root().at(format!("ndarray `{name}`")))?;
        Ok(self
            .group_for_insert(group_path)?
            .ndarrays
            .insert(name, ndarray))
    }

    /// Adds a dimension coordinate to the group at `group_path`, as
    /// [`File::insert_ndarray`] adds an ndarray.
    pub fn insert_dimcoord(
        &mut self,
        group_path: &str,
        name: impl Into<String>,
        dimcoord: DimCoord,
    ) -> Result<Option<DimCoord>, NdlError> {
        let name = name.into();
        check_name(&name, &Ctx::root().at(format!("dimcoord `{name}`")))?;
        Ok(self
            .group_for_insert(group_path)?
            .dimcoords
            .insert(name, dimcoord))
    }

    fn group_for_insert(&mut self, group_path: &str) -> Result<&mut Group, NdlError> {
        check_group_path(group_path, &Ctx::root())?;
        if group_path != "/" {
            self.form = FileForm::Grouped;
        }
        Ok(self.groups.get_or_insert_with(group_path, Group::default))
    }

    /// The group at `path` (`/` is the root group, also of a flat file).
    pub fn group(&self, path: &str) -> Option<&Group> {
        self.groups.get(path)
    }

    /// The ndarray at a path name such as `/group2/subgroup1/nd` or `/n`.
    pub fn ndarray(&self, path: &str) -> Option<&Ndarray> {
        let (group, name) = split_path(path)?;
        self.group(group)?.ndarrays.get(name)
    }

    /// The dimension coordinate a shape entry in the group at `group_path`
    /// refers to, with its path name.
    ///
    /// A path (`/group1/d2`) names the dimcoord directly. A relative name
    /// (`t`) is looked up in the group itself and then in each enclosing
    /// group up to the root, as netCDF-4 scopes dimension names; the spec
    /// only shows paths and, in flat documents, names of root dimcoords.
    ///
    /// ```
    /// use ndl_runtime::ndl::File;
    ///
    /// let file = File::from_yaml("/:\n  dimcoords:\n    t: {size: 3, type: float64}\n/g: {}\n").unwrap();
    /// let (path, t) = file.resolve_dimcoord("/g", "t").unwrap();
    /// assert_eq!((path.as_str(), t.size), ("/t", Some(3)));
    /// assert!(file.resolve_dimcoord("/g", "/g/t").is_none());
    /// ```
    pub fn resolve_dimcoord(
        &self,
        group_path: &str,
        reference: &str,
    ) -> Option<(String, &DimCoord)> {
        let candidates: Vec<String> = if reference.starts_with('/') {
            vec![reference.to_owned()]
        } else {
            ancestors(group_path)
                .map(|g| join_path(g, reference))
                .collect()
        };
        candidates.into_iter().find_map(|path| {
            let (group, name) = split_path(&path)?;
            let dc = self.group(group)?.dimcoords.get(name)?;
            Some((path, dc))
        })
    }
}

impl Ndarray {
    /// An ndarray of `shape` and `datatype`, without values, attributes or
    /// storage directives.
    pub fn new(shape: impl Into<Shape>, datatype: Datatype) -> Ndarray {
        Ndarray {
            shape: shape.into(),
            datatype: Some(datatype),
            value: None,
            attributes: NameMap::new(),
            storage: Storage::default(),
        }
    }

    /// An ndarray of Rust records `T`: `T`'s datatype, and its doc comment
    /// as the [`DESCRIPTION`] attribute.
    ///
    /// ```
    /// use ndl_runtime::ndl::Ndarray;
    /// use ndl_runtime::NdlType;
    ///
    /// /// One reading of the sensor.
    /// #[derive(Clone, Copy, NdlType)]
    /// #[repr(C)]
    /// struct Reading {
    ///     /// Seconds since start.
    ///     t: f64,
    /// }
    ///
    /// let nd = Ndarray::of_type::<Reading>([5]);
    /// assert_eq!(nd.datatype, Some(Reading::datatype()));
    /// assert_eq!(nd.description(), Reading::description());
    /// ```
    pub fn of_type<T: NdlType>(shape: impl Into<Shape>) -> Ndarray {
        let nd = Ndarray::new(shape, T::datatype());
        match T::description() {
            Some(text) => nd.with_description(text),
            None => nd,
        }
    }

    /// Adds (or replaces) an attribute; a scalar becomes a short-form one.
    pub fn with_attribute(
        mut self,
        name: impl Into<String>,
        attribute: impl Into<Attribute>,
    ) -> Ndarray {
        self.attributes.insert(name, attribute.into());
        self
    }

    /// Sets the [`DESCRIPTION`] attribute.
    pub fn with_description(self, text: impl Into<String>) -> Ndarray {
        self.with_attribute(DESCRIPTION, text.into())
    }

    /// The [`DESCRIPTION`] attribute, if it is a string.
    pub fn description(&self) -> Option<&str> {
        self.attributes.get(DESCRIPTION)?.as_str()
    }

    /// Sets the values.
    pub fn with_value(mut self, value: impl Into<Value>) -> Ndarray {
        self.value = Some(value.into());
        self
    }

    /// Sets the storage directives.
    pub fn with_storage(mut self, storage: Storage) -> Ndarray {
        self.storage = storage;
        self
    }
}

impl DimCoord {
    /// A dimension coordinate of `size` values (`None`: unlimited).
    pub fn new(size: Option<usize>, datatype: Datatype) -> DimCoord {
        DimCoord {
            size,
            datatype,
            value: None,
            attributes: NameMap::new(),
            storage: Storage::default(),
        }
    }

    /// Adds (or replaces) an attribute; a scalar becomes a short-form one.
    pub fn with_attribute(
        mut self,
        name: impl Into<String>,
        attribute: impl Into<Attribute>,
    ) -> DimCoord {
        self.attributes.insert(name, attribute.into());
        self
    }

    /// Sets the values.
    pub fn with_value(mut self, value: impl Into<Value>) -> DimCoord {
        self.value = Some(value.into());
        self
    }

    /// Sets the storage directives.
    pub fn with_storage(mut self, storage: Storage) -> DimCoord {
        self.storage = storage;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolving_from_malformed_group_paths_ends() {
        let file = File::from_yaml("dimcoords: {t: {size: 2, type: int8}}").unwrap();
        // No panic and no endless walk up; what junk resolves to is moot.
        for group in ["", "g", "//", "/a//b/"] {
            let _ = file.resolve_dimcoord(group, "t");
        }
        assert!(file.resolve_dimcoord("g", "t").is_none());
        assert!(file.resolve_dimcoord("/a//b/", "t").is_some());
        assert!(file.resolve_dimcoord("/", "").is_none());
    }
}

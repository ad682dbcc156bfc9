//! The File, Group, Ndarray and DimCoord entities: a whole NDL document.

use serde_yaml::{Mapping, Value};

use super::attribute::Attribute;
use super::error::{Ctx, NdlError, NdlErrorKind};
use super::names::NameMap;
use super::path::{ancestors, check_group_path, check_name, join_path, split_path};
use super::read::{entities, size_of, Keys};
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

const ROOT_KEYS: &[&str] = &["attributes", "dimcoords", "ndarrays"];
const NDARRAY_KEYS: &[&str] = &["shape", "type", "value", "attributes", "storage"];
const DIMCOORD_KEYS: &[&str] = &["size", "type", "value", "attributes", "storage"];

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

    /// Reads and checks one NDL YAML document.
    ///
    /// ```
    /// use ndl_runtime::ndl::File;
    ///
    /// let err = File::from_yaml("/g:\n  ndarrays:\n    n: {shape: [2], type: int8, storage: {endian: middle}}\n").unwrap_err();
    /// assert_eq!(err.to_string(), "/g: ndarray `n`: storage.endian: unknown endian `middle`; expected little or big");
    /// ```
    pub fn from_yaml(text: &str) -> Result<File, NdlError> {
        let value: Value = serde_yaml::from_str(text)
            .map_err(|e| Ctx::root().err(NdlErrorKind::Yaml(e.to_string())))?;
        File::from_value(&value)
    }

    /// The document as YAML that YAML 1.1 parsers (PyYAML) and YAML 1.2
    /// parsers read alike (see [`to_yaml_string`](super::to_yaml_string)).
    /// It is written as the model stands; [`File::validate`] says whether
    /// [`File::from_yaml`] will accept it.
    pub fn to_yaml(&self) -> String {
        super::to_yaml_string(&self.to_value())
    }

    /// Reads and checks a document already parsed as YAML.
    pub fn from_value(value: &Value) -> Result<File, NdlError> {
        let file = File::read(value)?;
        file.validate()?;
        Ok(file)
    }

    /// The document as a YAML value. A flat file with groups other than
    /// the root is written with group paths, the only way to keep them.
    pub fn to_value(&self) -> Value {
        let flat = self.form == FileForm::Flat && self.groups.names().all(|p| p == "/");
        if flat {
            return self
                .group("/")
                .map_or_else(|| Value::Mapping(Mapping::new()), Group::to_value);
        }
        Value::Mapping(
            self.groups
                .iter()
                .map(|(path, g)| (Value::from(path), g.to_value()))
                .collect(),
        )
    }

    /// Checks the rules of the spec and of our reading of it: group paths,
    /// ndarray and dimcoord names, dimcoord references in shapes, storage
    /// directives where they are allowed and of the right rank, values
    /// following their shape and datatype.
    ///
    /// ```
    /// use ndl_runtime::ndl::{File, Ndarray, Storage};
    /// use ndl_runtime::Datatype;
    ///
    /// let nd = Ndarray::new([10, 20], Datatype::Float64)
    ///     .with_storage(Storage { shape: Some(vec![10, 30]), ..Storage::default() });
    /// let err = File::single_ndarray("z", nd).validate().unwrap_err();
    /// assert_eq!(err.to_string(), "ndarray `z`: storage.shape[1]: 30 exceeds the declared extent 20");
    /// ```
    pub fn validate(&self) -> Result<(), NdlError> {
        super::validate::file(self)
    }

    fn read(value: &Value) -> Result<File, NdlError> {
        let top = match value {
            Value::Null => return Ok(File::new()),
            Value::Mapping(m) => m,
            other => return Err(Ctx::root().expected("a mapping (an NDL document)", other)),
        };
        let is_path = |k: &Value| k.as_str().is_some_and(|k| k.starts_with('/'));
        if !top.keys().any(is_path) {
            let group = Group::read(value, &Ctx::root(), ROOT_KEYS)?;
            return Ok(File {
                form: FileForm::Flat,
                groups: [("/", group)].into_iter().collect(),
            });
        }
        let mut groups = NameMap::new();
        for (key, body) in top {
            let path = match key.as_str() {
                Some(p) if p.starts_with('/') => p,
                Some(p) if ROOT_KEYS.contains(&p) => {
                    return Err(Ctx::root().err(NdlErrorKind::MixedTopLevel(p.into())))
                }
                _ => return Err(Ctx::root().expected("a group path `/...`", key)),
            };
            let ctx = Ctx::root().at(path);
            check_group_path(path, &ctx)?;
            groups.insert(path, Group::read(body, &ctx, ROOT_KEYS)?);
        }
        Ok(File {
            form: FileForm::Grouped,
            groups,
        })
    }
}

impl Group {
    fn to_value(&self) -> Value {
        let mut m = Mapping::new();
        put_entities(&mut m, "attributes", &self.attributes, Attribute::to_value);
        put_entities(&mut m, "dimcoords", &self.dimcoords, DimCoord::to_value);
        put_entities(&mut m, "ndarrays", &self.ndarrays, Ndarray::to_value);
        Value::Mapping(m)
    }

    /// Reads a group's mapping; `null` (a path with nothing under it) is an
    /// empty group.
    fn read(value: &Value, ctx: &Ctx, allowed: &'static [&'static str]) -> Result<Group, NdlError> {
        if value.is_null() {
            return Ok(Group::default());
        }
        let keys = Keys::new(
            value,
            ctx,
            "a group: a mapping of attributes, dimcoords and ndarrays",
            allowed,
        )?;
        Ok(Group {
            attributes: read_map(&keys, ctx, "attributes", "attribute", Attribute::from_value)?,
            dimcoords: read_map(&keys, ctx, "dimcoords", "dimcoord", DimCoord::read)?,
            ndarrays: read_map(&keys, ctx, "ndarrays", "ndarray", Ndarray::read)?,
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

    fn to_value(&self) -> Value {
        let mut m = Mapping::new();
        m.insert("shape".into(), self.shape.to_value());
        if let Some(dt) = &self.datatype {
            m.insert("type".into(), super::datatype::to_value(dt));
        }
        put_common(&mut m, self.value.as_ref(), &self.attributes, &self.storage);
        Value::Mapping(m)
    }

    fn read(value: &Value, ctx: &Ctx) -> Result<Ndarray, NdlError> {
        let keys = Keys::new(value, ctx, "an ndarray", NDARRAY_KEYS)?;
        Ok(Ndarray {
            shape: Shape::from_value(keys.req("shape")?, &ctx.at("shape"))?,
            datatype: keys.get("type").map(|t| datatype_of(t, ctx)).transpose()?,
            value: keys.get("value").cloned(),
            attributes: read_map(&keys, ctx, "attributes", "attribute", Attribute::from_value)?,
            storage: read_storage(&keys, ctx)?,
        })
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

    fn to_value(&self) -> Value {
        let mut m = Mapping::new();
        m.insert(
            "size".into(),
            self.size.map_or(Value::Null, |n| Value::from(n as u64)),
        );
        m.insert("type".into(), super::datatype::to_value(&self.datatype));
        put_common(&mut m, self.value.as_ref(), &self.attributes, &self.storage);
        Value::Mapping(m)
    }

    fn read(value: &Value, ctx: &Ctx) -> Result<DimCoord, NdlError> {
        let keys = Keys::new(value, ctx, "a dimcoord", DIMCOORD_KEYS)?;
        let size = match keys.req("size")? {
            Value::Null => None,
            v => Some(size_of(v, &ctx.at("size"))?),
        };
        Ok(DimCoord {
            size,
            datatype: datatype_of(keys.req("type")?, ctx)?,
            value: keys.get("value").cloned(),
            attributes: read_map(&keys, ctx, "attributes", "attribute", Attribute::from_value)?,
            storage: read_storage(&keys, ctx)?,
        })
    }
}

/// Reads the value of a `type:` key; `ctx` is the entity's location.
pub(crate) fn datatype_of(value: &Value, ctx: &Ctx) -> Result<Datatype, NdlError> {
    super::datatype::from_value(value).map_err(|e| ctx.at("type").err(NdlErrorKind::Datatype(e)))
}

fn read_map<T>(
    keys: &Keys,
    ctx: &Ctx,
    key: &str,
    what: &str,
    read: impl FnMut(&Value, &Ctx) -> Result<T, NdlError>,
) -> Result<NameMap<T>, NdlError> {
    match keys.get(key) {
        Some(v) => entities(v, ctx, what, read),
        None => Ok(NameMap::new()),
    }
}

fn read_storage(keys: &Keys, ctx: &Ctx) -> Result<Storage, NdlError> {
    keys.get("storage")
        .map(|s| Storage::from_value(s, ctx))
        .transpose()
        .map(Option::unwrap_or_default)
}

fn put_entities<T>(m: &mut Mapping, key: &str, entities: &NameMap<T>, to_value: fn(&T) -> Value) {
    if !entities.is_empty() {
        let body = entities
            .iter()
            .map(|(n, e)| (Value::from(n), to_value(e)))
            .collect();
        m.insert(key.into(), Value::Mapping(body));
    }
}

/// The keys ndarrays and dimcoords share, after `shape`/`size` and `type`.
fn put_common(
    m: &mut Mapping,
    value: Option<&Value>,
    attributes: &NameMap<Attribute>,
    storage: &Storage,
) {
    if let Some(v) = value {
        m.insert("value".into(), v.clone());
    }
    put_entities(m, "attributes", attributes, Attribute::to_value);
    if !storage.is_empty() {
        m.insert("storage".into(), storage.to_value());
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

//! A document's YAML form: [`File::from_yaml`] reads the entities and
//! checks them against the rules, [`File::to_yaml`] writes them back in
//! the form they were read.

use serde_yaml::{Mapping, Value};

use super::attribute::Attribute;
use super::datatype_yaml::to_value as datatype_to_value;
use super::document::{DimCoord, File, FileForm, Group, Ndarray};
use super::emit::to_yaml_string;
use super::error::{Ctx, NdlError, NdlErrorKind};
use super::name_map::NameMap;
use super::path::check_group_path;
use super::read::{Keys, datatype_of, entities, size_of};
use super::shape::Shape;
use super::storage::Storage;

/// The keys of a group, and of a flat document's top level.
pub(super) const GROUP_KEYS: &[&str] = &["attributes", "dimcoords", "ndarrays"];
/// The keys of an ndarray.
pub(super) const NDARRAY_KEYS: &[&str] = &["shape", "type", "value", "attributes", "storage"];
/// The keys of a dimcoord.
pub(super) const DIMCOORD_KEYS: &[&str] = &["size", "type", "value", "attributes", "storage"];

impl File {
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
        to_yaml_string(&self.to_value())
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

    fn read(value: &Value) -> Result<File, NdlError> {
        let top = match value {
            Value::Null => return Ok(File::new()),
            Value::Mapping(m) => m,
            other => return Err(Ctx::root().expected("a mapping (an NDL document)", other)),
        };
        let is_path = |k: &Value| k.as_str().is_some_and(|k| k.starts_with('/'));
        if !top.keys().any(is_path) {
            let group = Group::read(value, &Ctx::root())?;
            return Ok(File {
                form: FileForm::Flat,
                groups: [("/", group)].into_iter().collect(),
            });
        }
        let mut groups = NameMap::new();
        for (key, body) in top {
            let path = match key.as_str() {
                Some(p) if p.starts_with('/') => p,
                Some(p) if GROUP_KEYS.contains(&p) => {
                    return Err(Ctx::root().err(NdlErrorKind::MixedTopLevel(p.into())));
                }
                _ => return Err(Ctx::root().expected("a group path `/...`", key)),
            };
            let ctx = Ctx::root().at(path);
            check_group_path(path, &ctx)?;
            groups.insert(path, Group::read(body, &ctx)?);
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
    fn read(value: &Value, ctx: &Ctx) -> Result<Group, NdlError> {
        if value.is_null() {
            return Ok(Group::default());
        }
        let keys = Keys::new(
            value,
            ctx,
            "a group: a mapping of attributes, dimcoords and ndarrays",
            GROUP_KEYS,
        )?;
        Ok(Group {
            attributes: read_map(&keys, ctx, "attributes", "attribute", Attribute::from_value)?,
            dimcoords: read_map(&keys, ctx, "dimcoords", "dimcoord", DimCoord::read)?,
            ndarrays: read_map(&keys, ctx, "ndarrays", "ndarray", Ndarray::read)?,
        })
    }
}

impl Ndarray {
    fn to_value(&self) -> Value {
        let mut m = Mapping::new();
        m.insert("shape".into(), self.shape.to_value());
        if let Some(dt) = &self.datatype {
            m.insert("type".into(), datatype_to_value(dt));
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
            storage: Storage::from_keys(&keys, ctx)?,
        })
    }
}

impl DimCoord {
    fn to_value(&self) -> Value {
        let mut m = Mapping::new();
        m.insert(
            "size".into(),
            self.size.map_or(Value::Null, |n| Value::from(n as u64)),
        );
        m.insert("type".into(), datatype_to_value(&self.datatype));
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
            storage: Storage::from_keys(&keys, ctx)?,
        })
    }
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

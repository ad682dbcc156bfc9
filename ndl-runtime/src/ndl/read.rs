//! Reading YAML values into the document model: key checks and scalars.

use serde_yaml::{Mapping, Value};

use super::datatype_yaml::as_usize;
use super::error::{Ctx, NdlError, NdlErrorKind, describe_value};
use super::name_map::NameMap;
use crate::Datatype;

/// The keys of one YAML mapping, checked against the keys it may have.
pub(crate) struct Keys<'a> {
    map: &'a Mapping,
    ctx: &'a Ctx,
}

impl<'a> Keys<'a> {
    /// `value` as a mapping with only `allowed` keys.
    pub(crate) fn new(
        value: &'a Value,
        ctx: &'a Ctx,
        expected: &'static str,
        allowed: &'static [&'static str],
    ) -> Result<Self, NdlError> {
        let map = value
            .as_mapping()
            .ok_or_else(|| ctx.expected(expected, value))?;
        for key in map.keys() {
            if !key.as_str().is_some_and(|k| allowed.contains(&k)) {
                return Err(ctx.err(NdlErrorKind::UnknownKey {
                    key: describe_key(key),
                    allowed,
                }));
            }
        }
        Ok(Keys { map, ctx })
    }

    /// The value of an optional key.
    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    /// The value of a required key.
    pub(crate) fn req(&self, key: &'static str) -> Result<&'a Value, NdlError> {
        self.map
            .get(key)
            .ok_or_else(|| self.ctx.err(NdlErrorKind::MissingKey(key)))
    }
}

/// `` `name` `` for string keys, the value's description otherwise.
fn describe_key(key: &Value) -> String {
    match key.as_str() {
        Some(s) => format!("`{s}`"),
        None => describe_value(key),
    }
}

/// A name key: a string, or the text of a number or bool key (an unquoted
/// `1:` or `true:` is still meant as a name).
pub(crate) fn name_of(key: &Value, ctx: &Ctx) -> Result<String, NdlError> {
    match key {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(ctx.expected("a name", other)),
    }
}

/// A nested map of named entities (`attributes:`, `dimcoords:`,
/// `ndarrays:`), each read by `read` at the location `what `name``.
/// `null` (a key with nothing under it) is an empty map.
pub(crate) fn entities<T>(
    value: &Value,
    ctx: &Ctx,
    what: &str,
    mut read: impl FnMut(&Value, &Ctx) -> Result<T, NdlError>,
) -> Result<NameMap<T>, NdlError> {
    let map = match value {
        Value::Null => return Ok(NameMap::new()),
        Value::Mapping(m) => m,
        other => return Err(ctx.expected("a mapping of names to entities", other)),
    };
    let mut out = NameMap::new();
    for (key, body) in map {
        let name = name_of(key, ctx)?;
        let entity = read(body, &ctx.at(format!("{what} `{name}`")))?;
        out.insert(name, entity);
    }
    Ok(out)
}

/// A non-negative integer.
pub(crate) fn size_of(value: &Value, ctx: &Ctx) -> Result<usize, NdlError> {
    as_usize(value).ok_or_else(|| ctx.expected("a non-negative integer", value))
}

/// A list of non-negative integers, each located as `key[i]`.
pub(crate) fn sizes_of(value: &Value, ctx: &Ctx) -> Result<Vec<usize>, NdlError> {
    let list = value
        .as_sequence()
        .ok_or_else(|| ctx.expected("a list of non-negative integers", value))?;
    list.iter()
        .enumerate()
        .map(|(i, v)| size_of(v, &ctx.suffixed(format!("[{i}]"))))
        .collect()
}

/// A string.
pub(crate) fn str_of<'a>(value: &'a Value, ctx: &Ctx) -> Result<&'a str, NdlError> {
    value
        .as_str()
        .ok_or_else(|| ctx.expected("a string", value))
}

/// Reads the value of a `type:` key; `ctx` is the entity's location.
pub(crate) fn datatype_of(value: &Value, ctx: &Ctx) -> Result<Datatype, NdlError> {
    super::datatype_yaml::from_value(value)
        .map_err(|e| ctx.at("type").err(NdlErrorKind::Datatype(e)))
}

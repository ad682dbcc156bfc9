//! Storage directives: how an ndarray's, dimcoord's or attribute's values
//! are stored.

use serde_yaml::{Mapping, Value};

use crate::{ByteOrder, Order};

use super::error::{Ctx, NdlError, NdlErrorKind};
use super::read::{Keys, size_of, sizes_of, str_of};

/// The `storage:` directives; all optional, none has a default.
///
/// ```
/// use ndl_runtime::ndl::Storage;
/// use ndl_runtime::ByteOrder;
///
/// let s = Storage { endian: Some(ByteOrder::Little), chunk: Some(vec![100]), ..Storage::default() };
/// assert!(!s.is_empty());
/// assert!(Storage::default().is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Storage {
    /// `shape`, ndarrays only: the extent of the stored values, one entry
    /// per dimension, each at most the declared extent.
    pub shape: Option<Vec<usize>>,
    /// `size`, dimcoords only: the number of stored values.
    pub size: Option<usize>,
    /// `chunk`: elements per chunk along each dimension.
    pub chunk: Option<Vec<usize>>,
    /// `filter`: the processing pipeline, applied in order when writing.
    pub filter: Option<Vec<Value>>,
    /// `endian`: byte order of numbers.
    pub endian: Option<ByteOrder>,
    /// `charset`: the character set strings are stored in.
    pub charset: Option<String>,
    /// `fillvalue`: the value of elements without data.
    pub fillvalue: Option<Value>,
    /// `order` (extension): how the elements of a multi-dimensional array
    /// follow each other in storage, `C` or `F` as NumPy and Zarr say.
    pub order: Option<Order>,
}

/// The storage directives.
pub(super) const KEYS: &[&str] = &[
    "shape",
    "size",
    "chunk",
    "filter",
    "endian",
    "charset",
    "fillvalue",
    "order",
];

impl Storage {
    /// Whether no directive is given (then no `storage:` key is written).
    pub fn is_empty(&self) -> bool {
        *self == Storage::default()
    }

    pub(crate) fn to_value(&self) -> Value {
        let mut m = Mapping::new();
        let sizes =
            |s: &[usize]| Value::Sequence(s.iter().map(|&n| Value::from(n as u64)).collect());
        if let Some(shape) = &self.shape {
            m.insert("shape".into(), sizes(shape));
        }
        if let Some(size) = self.size {
            m.insert("size".into(), Value::from(size as u64));
        }
        if let Some(chunk) = &self.chunk {
            m.insert("chunk".into(), sizes(chunk));
        }
        if let Some(filter) = &self.filter {
            m.insert("filter".into(), Value::Sequence(filter.clone()));
        }
        if let Some(endian) = self.endian {
            m.insert("endian".into(), endian.name().into());
        }
        if let Some(charset) = &self.charset {
            m.insert("charset".into(), charset.as_str().into());
        }
        if let Some(fill) = &self.fillvalue {
            m.insert("fillvalue".into(), fill.clone());
        }
        if let Some(order) = self.order {
            m.insert("order".into(), order.name().into());
        }
        Value::Mapping(m)
    }

    /// Reads an entity's `storage:` key, empty when the key is absent;
    /// `ctx` is the location of the entity.
    pub(crate) fn from_keys(keys: &Keys, ctx: &Ctx) -> Result<Storage, NdlError> {
        keys.get("storage")
            .map_or_else(|| Ok(Storage::default()), |s| Storage::from_value(s, ctx))
    }

    /// Reads the `storage:` mapping; `ctx` is the location of the entity.
    /// Where each directive is allowed is checked by the entity.
    pub(crate) fn from_value(value: &Value, ctx: &Ctx) -> Result<Storage, NdlError> {
        if value.is_null() {
            return Ok(Storage::default());
        }
        let storage_ctx = ctx.at("storage");
        let keys = Keys::new(value, &storage_ctx, "a mapping of storage directives", KEYS)?;
        let at = |key: &str| ctx.at(format!("storage.{key}"));
        let opt = |key: &'static str| keys.get(key).map(|v| (v, at(key)));
        Ok(Storage {
            shape: opt("shape").map(|(v, c)| sizes_of(v, &c)).transpose()?,
            size: opt("size").map(|(v, c)| size_of(v, &c)).transpose()?,
            chunk: opt("chunk").map(|(v, c)| sizes_of(v, &c)).transpose()?,
            filter: opt("filter")
                .map(|(v, c)| {
                    v.as_sequence()
                        .cloned()
                        .ok_or_else(|| c.expected("a list of processes", v))
                })
                .transpose()?,
            endian: opt("endian").map(|(v, c)| endian_of(v, &c)).transpose()?,
            charset: opt("charset")
                .map(|(v, c)| str_of(v, &c).map(String::from))
                .transpose()?,
            fillvalue: keys.get("fillvalue").cloned(),
            order: opt("order").map(|(v, c)| order_of(v, &c)).transpose()?,
        })
    }
}

fn endian_of(value: &Value, ctx: &Ctx) -> Result<ByteOrder, NdlError> {
    let name = str_of(value, ctx)?;
    ByteOrder::from_name(name).ok_or_else(|| ctx.err(NdlErrorKind::UnknownEndian(name.into())))
}

fn order_of(value: &Value, ctx: &Ctx) -> Result<Order, NdlError> {
    let name = str_of(value, ctx)?;
    Order::from_name(name).ok_or_else(|| ctx.err(NdlErrorKind::UnknownOrder(name.into())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(yaml: &str) -> Result<Storage, NdlError> {
        let v: Value = serde_yaml::from_str(yaml).unwrap();
        Storage::from_value(&v, &Ctx::root().at("ndarray `n`"))
    }

    #[test]
    fn all_directives_round_trip() {
        let yaml = "shape: [5, 0]\nsize: 3\nchunk: [2, 2]\nfilter: [gzip, {shuffle: 4}]\nendian: big\ncharset: ascii\nfillvalue: -1\norder: F\n";
        let s = read(yaml).unwrap();
        assert_eq!(s.endian, Some(ByteOrder::Big));
        assert_eq!(s.to_value(), serde_yaml::from_str::<Value>(yaml).unwrap());
    }

    #[test]
    fn order_is_c_or_f() {
        assert_eq!(read("order: C").unwrap().order, Some(Order::C));
        let e = read("order: K").unwrap_err();
        assert_eq!(
            e.to_string(),
            "ndarray `n`: storage.order: unknown order `K`; expected C (row-major) or F (column-major)"
        );
    }

    #[test]
    fn errors_name_the_directive() {
        let e = read("endian: middle").unwrap_err();
        assert_eq!(
            e.to_string(),
            "ndarray `n`: storage.endian: unknown endian `middle`; expected little or big"
        );
        let e = read("chunk: [2, x]").unwrap_err();
        assert_eq!(e.location(), "ndarray `n`: storage.chunk[1]");
        let e = read("compression: 9").unwrap_err();
        assert_eq!(e.location(), "ndarray `n`: storage");
        assert!(matches!(e.kind(), NdlErrorKind::UnknownKey { .. }), "{e}");
        let e = read("filter: gzip").unwrap_err();
        assert_eq!(e.location(), "ndarray `n`: storage.filter");
    }
}

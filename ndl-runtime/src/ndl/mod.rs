//! The Ndarray Data Language: datatypes and whole-file documents in YAML.
//!
//! [`crate::Datatype`] implements serde's `Serialize` and
//! `Deserialize` in its NDL form (the value of a `type:` key). Use
//! [`datatype_to_yaml`] for text that YAML 1.1 parsers such as PyYAML read
//! exactly as YAML 1.2 parsers do.
//!
//! ```
//! use ndl_runtime::{ndl, Datatype};
//!
//! let yaml = ndl::datatype_to_yaml(&Datatype::UInt32.array_of(&[2, 3]));
//! assert_eq!(yaml, "array: {base: uint32, shape: [2, 3]}\n");
//! let back: Datatype = serde_yaml::from_str(&yaml).unwrap();
//! assert_eq!(back, Datatype::UInt32.array_of(&[2, 3]));
//! ```
//!
//! A whole document is a [`File`]: [`Group`]s of [`Attribute`]s,
//! [`DimCoord`]s and [`Ndarray`]s, each with a [`Shape`] and optional
//! [`Storage`] directives. [`File::from_yaml`] checks every rule of the
//! spec and says where a rule is broken; [`File::to_yaml`] writes the
//! document back in the form it was read (flat or keyed by group path,
//! short or long attributes), quoted for YAML 1.1 and 1.2 alike.
//!
//! ```
//! use ndl_runtime::ndl::{File, Ndarray, Storage};
//! use ndl_runtime::ByteOrder;
//! use ndl_runtime::Datatype;
//!
//! let nd = Ndarray::new([3], Datatype::Int16)
//!     .with_attribute("ON", "yes")
//!     .with_storage(Storage { endian: Some(ByteOrder::Big), ..Storage::default() });
//! let file = File::single_ndarray("data", nd);
//! let yaml = file.to_yaml();
//! assert_eq!(
//!     yaml,
//!     "ndarrays:\n  data:\n    shape: [3]\n    type: int16\n    attributes: {\"ON\": \"yes\"}\n    storage: {endian: big}\n"
//! );
//! assert_eq!(File::from_yaml(&yaml).unwrap(), file);
//!
//! let err = File::from_yaml("ndarrays: {data: {shape: [3], type: int16, storage: {endian: BE}}}").unwrap_err();
//! assert_eq!(err.to_string(), "ndarray `data`: storage.endian: unknown endian `BE`; expected little or big");
//! ```

mod attribute;
mod datatype_yaml;
mod document;
mod document_yaml;
mod emit;
mod error;
#[cfg(test)]
mod fuzz;
mod name_map;
mod path;
mod read;
mod shape;
mod storage;
mod validate;
mod values;

pub use attribute::{Attribute, AttributeForm};
pub use document::{DESCRIPTION, DimCoord, File, FileForm, Group, Ndarray};
pub use emit::to_yaml_string;
pub use error::{NdlError, NdlErrorKind};
pub use name_map::NameMap;
pub use shape::{Extent, Shape};
pub use storage::Storage;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_yaml::Value;

use crate::Datatype;

/// The NDL YAML of a datatype: the value of a `type:` key, quoted so that
/// YAML 1.1 and 1.2 parsers read the same structure.
pub fn datatype_to_yaml(dt: &Datatype) -> String {
    to_yaml_string(&datatype_yaml::to_value(dt))
}

/// serde support through the YAML value, for embedding NDL entities in
/// other serde documents. [`File::to_yaml`] is the writer to use for NDL
/// text: serde_yaml's own emitter leaves `ON` or `2026-01-01` unquoted,
/// which YAML 1.1 parsers misread.
macro_rules! serde_via_value {
    ($($t:ty: $to:expr, $from:expr;)*) => {$(
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                $to(self).serialize(serializer)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = Value::deserialize(deserializer)?;
                $from(&value).map_err(D::Error::custom)
            }
        }
    )*};
}

serde_via_value! {
    File: File::to_value, File::from_value;
    Shape: Shape::to_value, |v| Shape::from_value(v, &error::Ctx::root().at("shape"));
}

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

mod attribute;
mod datatype;
mod document;
mod emit;
mod error;
mod names;
mod read;
mod shape;
mod storage;
mod values;

pub use attribute::{Attribute, AttributeForm};
pub use document::{DimCoord, File, FileForm, Group, Ndarray, DESCRIPTION};
pub use emit::to_yaml_string;
pub use error::{NdlError, NdlErrorKind};
pub use names::NameMap;
pub use shape::{Extent, Shape};
pub use storage::{Endian, Storage};

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_yaml::Value;

use crate::Datatype;

/// The NDL YAML of a datatype: the value of a `type:` key, quoted so that
/// YAML 1.1 and 1.2 parsers read the same structure.
pub fn datatype_to_yaml(dt: &Datatype) -> String {
    to_yaml_string(&datatype::to_value(dt))
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

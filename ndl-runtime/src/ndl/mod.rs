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

mod datatype;
mod emit;

pub use emit::to_yaml_string;

use crate::Datatype;

/// The NDL YAML of a datatype: the value of a `type:` key, quoted so that
/// YAML 1.1 and 1.2 parsers read the same structure.
pub fn datatype_to_yaml(dt: &Datatype) -> String {
    to_yaml_string(&datatype::to_value(dt))
}

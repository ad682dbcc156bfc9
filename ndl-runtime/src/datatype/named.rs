//! A datatype a file names: netCDF-4's user-defined types, HDF5's
//! committed ones.

use super::Datatype;

/// A datatype a file names (`cloud_t`), and the group that defines it.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedType {
    /// The group that defines it (`/` for the root).
    pub group: String,
    /// Its name within that group.
    pub name: String,
    /// What it is.
    pub datatype: Datatype,
}

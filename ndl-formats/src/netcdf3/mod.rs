//! netCDF-3 files (CDF-1 classic, CDF-2 64-bit offset, CDF-5 64-bit
//! data), read in pure Rust: the header in the terms of an HDF5 file's
//! inventory, so that descriptions and tables are the netCDF-4 path's,
//! and each variable's big-endian values where the header places them.

mod header;
mod layout;
mod source;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use ndl_hdf5::{DatasetInfo, GroupInfo, Inventory, StoredType};
use ndl_runtime::{ByteOrder, Datatype};
use serde_json::{Map, Value};

use crate::contents::Contents;
use crate::error::{Error, Result};
use crate::source::Source;

pub(crate) use header::SIGNATURES;
pub use source::{Netcdf3Source, Netcdf3TableSource};

use header::{Attribute, Header, NcType};
use layout::Layout;

/// A netCDF-3 file's header and where each variable's values are.
pub(crate) struct Netcdf3File {
    path: PathBuf,
    header: Header,
    layouts: Vec<Layout>,
}

impl Netcdf3File {
    /// Reads the header of the file at `path` and places every variable
    /// in it, checked against the file's length.
    pub(crate) fn open(path: &Path) -> Result<Netcdf3File> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let header =
            header::read(BufReader::new(file), len).map_err(|e| malformed(path, e.to_string()))?;
        let layouts = layout::place(&header, len).map_err(|e| malformed(path, e))?;
        Ok(Netcdf3File {
            path: path.to_path_buf(),
            header,
            layouts,
        })
    }

    /// The index of the variable `name`, or which there are.
    fn variable(&self, name: &str) -> Result<usize> {
        let name = name.trim_start_matches('/');
        self.header
            .variables
            .iter()
            .position(|v| v.name == name)
            .ok_or_else(|| Error::Member {
                path: self.path.clone(),
                message: format!(
                    "no variable `{name}`; the file holds {}",
                    self.variable_names().join(", ")
                ),
            })
    }

    fn variable_names(&self) -> Vec<&str> {
        self.header
            .variables
            .iter()
            .map(|v| v.name.as_str())
            .collect()
    }

    /// The header as an HDF5 file's inventory: the root group's
    /// attributes, a dataset per variable over its named dimensions.
    fn inventory(&self) -> Inventory {
        let (attributes, attribute_types) = json_attributes(&self.header.attributes);
        let root = GroupInfo {
            path: "/".into(),
            attributes,
            attribute_types,
        };
        let datasets = self
            .header
            .variables
            .iter()
            .zip(&self.layouts)
            .map(|(v, layout)| {
                let (attributes, attribute_types) = json_attributes(&v.attributes);
                let dims: Vec<&header::Dimension> = v
                    .dimensions
                    .iter()
                    .map(|&d| &self.header.dimensions[d])
                    .collect();
                DatasetInfo {
                    group: "/".into(),
                    name: v.name.clone(),
                    stored: StoredType {
                        datatype: v.kind.datatype(),
                        byte_order: ByteOrder::Big,
                        other_order: Vec::new(),
                        netcdf_chars: false,
                    },
                    shape: layout.shape.clone(),
                    max_shape: dims
                        .iter()
                        .map(|d| (!d.unlimited).then_some(d.length))
                        .collect(),
                    chunks: None,
                    filters: Vec::new(),
                    cf_time: cf_time(v.kind, &attributes),
                    attribute_types,
                    attributes,
                    dimension_names: Some(dims.iter().map(|d| Some(d.name.clone())).collect()),
                    is_scale: false,
                    is_dimension_only: false,
                }
            })
            .collect();
        Inventory {
            groups: vec![root],
            datasets,
        }
    }
}

/// What a netCDF-3 file holds, as the netCDF-4 path describes it.
pub(crate) fn contents(path: &Path) -> Result<Contents> {
    Ok(crate::hdf5::contents_of(
        &Netcdf3File::open(path)?.inventory(),
    ))
}

/// The netCDF-3 file at `path` as a source: the variable `member`; else
/// its variables along one first dimension as records, or its only
/// variable.
pub(crate) fn open(path: &Path, member: Option<&str>) -> Result<Box<dyn Source>> {
    let file = Netcdf3File::open(path)?;
    if let Some(member) = member {
        let index = file.variable(member)?;
        return Ok(Box::new(Netcdf3Source::new(file, index)?));
    }
    let inventory = file.inventory();
    if let Some(record) = crate::hdf5::inferred_record(&inventory) {
        return Ok(Box::new(Netcdf3TableSource::new(file, record)?));
    }
    match file.header.variables.len() {
        1 => Ok(Box::new(Netcdf3Source::new(file, 0)?)),
        n => Err(Error::Unsupported {
            path: path.to_path_buf(),
            message: format!(
                "the file holds {n} variables ({}) that are no table along one dimension; \
                 say which with --member",
                file.variable_names().join(", ")
            ),
        }),
    }
}

/// The time type a variable holds where it is CF time: integers of any
/// width read as int64 counts of its `units`, doubles as nanoseconds, as
/// the netCDF-4 path reads int64 and double.
fn cf_time(kind: NcType, attributes: &Map<String, Value>) -> Option<ndl_runtime::TimeType> {
    use NcType::*;
    let as_read = match kind {
        Byte | Short | Int | Int64 | UByte | UShort | UInt => Datatype::Int64,
        Double => Datatype::Float64,
        Char | Float | UInt64 => return None,
    };
    ndl_hdf5::cf_time_type(&as_read, attributes)
}

/// Attributes as JSON, as the netCDF-4 path gives them: text as a
/// string, numbers as a list; and each one's stored type.
fn json_attributes(attributes: &[Attribute]) -> (Map<String, Value>, BTreeMap<String, Datatype>) {
    let mut values = Map::new();
    let mut types = BTreeMap::new();
    for a in attributes {
        let (value, datatype) = match a.kind {
            NcType::Char => {
                let text = String::from_utf8_lossy(&a.values);
                let text = text.trim_end_matches('\0').to_string();
                let length = text.len().max(1);
                (
                    Value::from(text),
                    Datatype::FixedString(ndl_runtime::FixedString {
                        length,
                        charset: ndl_runtime::Charset::Ascii,
                    }),
                )
            }
            kind => (
                Value::Array(source::numbers(kind, &a.values)),
                kind.datatype(),
            ),
        };
        values.insert(a.name.clone(), value);
        types.insert(a.name.clone(), datatype);
    }
    (values, types)
}

/// A netCDF-3 file whose header or data is not what the format says.
fn malformed(path: &Path, message: String) -> Error {
    Error::Netcdf3 {
        path: path.to_path_buf(),
        message,
    }
}

//! A netCDF-3 header in the terms of an HDF5 file's inventory, so that
//! its description and its table are the netCDF-4 path's.

use std::collections::BTreeMap;

use ndl_hdf5::{DatasetInfo, GroupInfo, Inventory, StoredType};
use ndl_runtime::{ByteOrder, Datatype};
use serde_json::{Map, Value};

use super::file::Netcdf3File;
use super::header::{self, Attribute, NcType};

/// The header as an HDF5 file's inventory: the root group's
/// attributes, a dataset per variable over its named dimensions.
pub(crate) fn inventory(nc: &Netcdf3File) -> Inventory {
    let (attributes, attribute_types) = json_attributes(&nc.header.attributes);
    let root = GroupInfo {
        path: "/".into(),
        attributes,
        attribute_types,
    };
    let datasets = nc
        .header
        .variables
        .iter()
        .zip(&nc.layouts)
        .map(|(v, layout)| {
            let (attributes, attribute_types) = json_attributes(&v.attributes);
            let dims: Vec<&header::Dimension> = v
                .dimensions
                .iter()
                .map(|&d| &nc.header.dimensions[d])
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
                extents: layout.shape.clone(),
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
                no_numpy_type: None,
                fill: None,
                null_space: false,
                type_name: None,
            }
        })
        .collect();
    Inventory {
        groups: vec![root],
        datasets,
        types: Vec::new(),
    }
}

/// The time type a variable holds where it is CF time: integer counts
/// of its `units`, float counts (`float` as well as `double`) as
/// nanoseconds, as the netCDF-4 path reads them.
fn cf_time(kind: NcType, attributes: &Map<String, Value>) -> Option<ndl_runtime::TimeType> {
    ndl_hdf5::cf_time_type(&kind.datatype(), attributes)
}

/// Attributes as JSON, as the netCDF-4 path gives them: text as a
/// string, numbers as a list; and each one's stored type.
fn json_attributes(attributes: &[Attribute]) -> (Map<String, Value>, BTreeMap<String, Datatype>) {
    let mut values = Map::new();
    let mut types = BTreeMap::new();
    for a in attributes {
        let (value, datatype) = match a.kind {
            NcType::Char => {
                let text = super::values::text(&a.values);
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
                Value::Array(super::values::numbers(kind, &a.values)),
                kind.datatype(),
            ),
        };
        values.insert(a.name.clone(), value);
        types.insert(a.name.clone(), datatype);
    }
    (values, types)
}

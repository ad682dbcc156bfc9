//! An NDL sidecar's datatypes and attributes in a description.

use ndl_runtime::ndl;

use crate::contents::{Contents, join};
pub(super) use crate::sidecar::read;
use crate::sidecar::{Sidecar, datatype_of};

/// Takes each array's datatype from the sidecar where it has the file's
/// layout: it adds enum member names and descriptions in every language.
pub(super) fn adopt_datatypes(sidecar: &Sidecar, contents: &mut Contents) {
    for e in &mut contents.entries {
        match datatype_of(sidecar, &e.path(), &e.spec.datatype) {
            Ok(Some(datatype)) => e.spec.datatype = datatype,
            Ok(None) => {}
            Err(warning) => contents.warnings.push(warning),
        }
    }
}

/// Adds the sidecar's attributes to the document, and says which of its
/// arrays the file does not have.
pub(super) fn merge_attributes(
    (side_path, sidecar): &Sidecar,
    doc: &mut ndl::File,
    warnings: &mut Vec<String>,
) {
    for (group_path, side_group) in sidecar.groups.iter() {
        for name in side_group.ndarrays.names() {
            let full = join(group_path, name);
            if doc.ndarray(&full).is_none() {
                warnings.push(format!(
                    "sidecar {}: the file has no array `{full}`; its description is not used",
                    side_path.display()
                ));
            }
        }
    }
    for (group_path, group) in doc.groups.iter_mut() {
        let Some(side_group) = sidecar.group(group_path) else {
            continue;
        };
        for (name, attr) in side_group.attributes.iter() {
            group.attributes.insert(name, attr.clone());
        }
        for (name, nd) in group.ndarrays.iter_mut() {
            let Some(side) = side_group.ndarrays.get(name) else {
                continue;
            };
            for (attr_name, attr) in side.attributes.iter() {
                nd.attributes.insert(attr_name, attr.clone());
            }
        }
    }
}

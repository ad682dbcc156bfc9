//! An NDL sidecar beside a `.npy`/`.npz` file: the datatypes and
//! attributes that the file cannot hold, taken where they fit the file.

use std::path::{Path, PathBuf};

use ndl_runtime::ndl;
use ndl_runtime::npy;

use crate::contents::{join, Contents};

/// A sidecar that read: its path and document.
pub(super) type Sidecar = (PathBuf, ndl::File);

/// The NDL sidecar beside `path` (`.yaml`, else `.yml`), if there is one
/// that reads; one that is there but does not read is worth a warning: the
/// user expects its names in the output.
pub(super) fn read(path: &Path, warnings: &mut Vec<String>) -> Option<Sidecar> {
    let (side_path, parsed) = npy::read_sidecar(path)?;
    match parsed {
        Ok(sidecar) => Some((side_path, sidecar)),
        Err(e) => {
            warnings.push(format!("sidecar {} ignored: {e}", side_path.display()));
            None
        }
    }
}

/// Takes each array's datatype from the sidecar where it has the file's
/// layout: it adds enum member names and descriptions in every language.
pub(super) fn adopt_datatypes((side_path, sidecar): &Sidecar, contents: &mut Contents) {
    for e in &mut contents.entries {
        let full = e.path();
        let Some(side_dt) = sidecar.ndarray(&full).and_then(|nd| nd.datatype.as_ref()) else {
            continue;
        };
        if side_dt.same_layout(&e.spec.datatype) {
            e.spec.datatype = side_dt.clone();
        } else {
            contents.warnings.push(format!(
                "sidecar {}: `{full}` has a datatype of another layout than the file's; its datatype is not used",
                side_path.display()
            ));
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

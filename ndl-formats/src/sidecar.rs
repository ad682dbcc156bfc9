//! An NDL sidecar beside a `.npy`/`.npz` file: the datatypes and
//! attributes that the file cannot hold (enum member names, descriptions,
//! units), taken where they fit the file, for descriptions and
//! conversions alike.

use std::path::{Path, PathBuf};

use ndl_runtime::npy;
use ndl_runtime::{Datatype, ndl};

use crate::error::Result;
use crate::source::Source;

/// A sidecar that read: its path and document.
pub(crate) type Sidecar = (PathBuf, ndl::File);

/// The NDL sidecar beside `path` (`.yaml`, else `.yml`), if there is one
/// that reads; one that is there but does not read is worth a warning: the
/// user expects its names in the output.
pub(crate) fn read(path: &Path, warnings: &mut Vec<String>) -> Option<Sidecar> {
    let (side_path, parsed) = npy::read_sidecar(path)?;
    match parsed {
        Ok(sidecar) => Some((side_path, sidecar)),
        Err(e) => {
            warnings.push(format!("sidecar {} ignored: {e}", side_path.display()));
            None
        }
    }
}

/// The sidecar's datatype of the array at `array_path` (`/group/name`),
/// where it has the layout of `stored`, the file's; `None` where the
/// sidecar does not describe the array, and a warning where it describes
/// it with another layout.
pub(crate) fn datatype_of(
    (side_path, sidecar): &Sidecar,
    array_path: &str,
    stored: &Datatype,
) -> Result<Option<Datatype>, String> {
    let Some(side_dt) = sidecar
        .ndarray(array_path)
        .and_then(|nd| nd.datatype.as_ref())
    else {
        return Ok(None);
    };
    if side_dt.same_layout(stored) {
        return Ok(Some(side_dt.clone()));
    }
    Err(format!(
        "sidecar {}: `{array_path}` has a datatype of another layout than the file's; its datatype is not used",
        side_path.display()
    ))
}

/// `source`, the array at `array_path` of the `.npy`/`.npz` file at
/// `path`, with the datatype its sidecar gives it where that fits, so
/// that a conversion carries the enum names, descriptions and units the
/// sidecar adds; why not, as a note, where the sidecar does not fit.
pub(crate) fn described(source: Box<dyn Source>, path: &Path, array_path: &str) -> Box<dyn Source> {
    let mut notes = source.notes().to_vec();
    let Some(sidecar) = read(path, &mut notes) else {
        return crate::described::described(source, None, None, notes);
    };
    let attributes = sidecar
        .1
        .ndarray(array_path)
        .map(|nd| nd.attributes.clone())
        .filter(|a| !a.is_empty());
    match datatype_of(&sidecar, array_path, &source.spec().datatype) {
        Ok(datatype) => crate::described::described(source, datatype, attributes, notes),
        Err(warning) => {
            notes.push(warning);
            crate::described::described(source, None, attributes, notes)
        }
    }
}

//! Finding a dataset by the name its readers know it by.
//!
//! netCDF-C stores a variable named like a dimension that is not its
//! coordinate (a `y(x, y)`) as `_nc4_non_coord_y`, the name `y` being
//! taken by the dimension's scale, which holds no data: netCDF4-python
//! and `ncdump` call the variable `y`, and so do we. A name that is no
//! dataset is an error listing the datasets the file holds, as a `.npz`
//! lists its arrays.

use std::path::Path;

use crate::error::{Error, Result, hdf5_error};
use crate::inventory::{DIMENSION_ONLY, NON_COORDINATE, member_names};

/// The path of the dataset of `file` (at `path`) that its readers call
/// The file at `path` and its dataset `name` ([`dataset_path`]), refused
/// if its filter pipeline needs a filter the library lacks.
pub(crate) fn open_dataset(path: &Path, name: &str) -> Result<(hdf5::File, hdf5::Dataset)> {
    let file = crate::file::open(path)?;
    let stored_at = dataset_path(&file, path, name)?;
    let found = file.dataset(&stored_at).map_err(hdf5_error(path, name))?;
    crate::filters::check_available(path, name, &found)?;
    Ok((file, found))
}

/// `name`: netCDF-C's renamed variable where there is one, else `name`
/// itself when it is a dataset.
///
/// # Errors
/// [`Error::NoDataset`] when the file holds no such dataset.
pub(crate) fn dataset_path(file: &hdf5::File, path: &Path, name: &str) -> Result<String> {
    let renamed = non_coordinate_path(name);
    if is_dataset(file, &renamed) {
        return Ok(renamed);
    }
    if is_dataset(file, name) {
        return Ok(name.to_string());
    }
    let mut available = Vec::new();
    dataset_names(file, "/", &mut available);
    Err(Error::NoDataset {
        path: path.to_path_buf(),
        dataset: name.to_string(),
        available,
    })
}

/// The datasets below `group` (at `at`) by the names their readers know,
/// netCDF's dimensions that are no variables left out. Only links and the
/// `NAME` of each dataset are read: a damaged file's other attributes can
/// make libhdf5 loop, and listing names must not.
fn dataset_names(group: &hdf5::Group, at: &str, out: &mut Vec<String>) {
    for name in member_names(group).unwrap_or_default() {
        let full = match at {
            "/" => format!("/{name}"),
            _ => format!("{at}/{name}"),
        };
        if let Ok(child) = group.group(&name) {
            dataset_names(&child, &full, out);
            continue;
        }
        let Ok(dataset) = group.dataset(&name) else {
            continue;
        };
        let names_a_dimension = crate::attribute::attribute(&dataset, "NAME")
            .and_then(|v| v.as_str().map(|n| n.starts_with(DIMENSION_ONLY)))
            .unwrap_or(false);
        if !names_a_dimension {
            let known_as = full.replacen(NON_COORDINATE, "", 1);
            out.push(known_as);
        }
    }
}

/// Where netCDF-C keeps a variable `name` that clashes with a dimension.
fn non_coordinate_path(name: &str) -> String {
    match name.trim_end_matches('/').rsplit_once('/') {
        Some((group, leaf)) => format!("{group}/{NON_COORDINATE}{leaf}"),
        None => format!("{NON_COORDINATE}{name}"),
    }
}

/// Whether `name` is a dataset of `file`, each group on the way existing
/// (the library refuses to look further down a missing group).
fn is_dataset(file: &hdf5::File, name: &str) -> bool {
    let mut at = String::new();
    for part in name.split('/').filter(|p| !p.is_empty()) {
        at.push('/');
        at.push_str(part);
        if !file.link_exists(&at) {
            return false;
        }
    }
    !at.is_empty() && file.dataset(&at).is_ok()
}

#[cfg(test)]
mod tests {
    use super::non_coordinate_path;

    #[test]
    fn the_renamed_variable_is_beside_the_name() {
        assert_eq!(non_coordinate_path("y"), "_nc4_non_coord_y");
        assert_eq!(non_coordinate_path("/y"), "/_nc4_non_coord_y");
        assert_eq!(non_coordinate_path("/g/y"), "/g/_nc4_non_coord_y");
    }
}

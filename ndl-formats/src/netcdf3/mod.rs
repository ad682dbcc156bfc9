//! netCDF-3 files (CDF-1 classic, CDF-2 64-bit offset, CDF-5 64-bit
//! data), read in pure Rust: the header in the terms of an HDF5 file's
//! inventory, so that descriptions and tables are the netCDF-4 path's,
//! and each variable's big-endian values where the header places them.

mod file;
mod header;
mod inventory;
mod layout;
mod source;
mod values;

use std::path::Path;

use crate::contents::Contents;
use crate::error::{Error, Result};
use crate::format::FormatInfo;
use crate::options::ReadOptions;
use crate::source::Source;

pub(crate) use header::SIGNATURES;
pub use source::{Netcdf3Source, Netcdf3TableSource};

use file::Netcdf3File;
use inventory::inventory;

/// What a netCDF-3 file holds, as the netCDF-4 path describes it.
pub(crate) fn contents(path: &Path) -> Result<Contents> {
    let file = Netcdf3File::open(path)?;
    Ok(crate::hdf5::contents_of(path, &inventory(&file)))
}

/// The netCDF-3 file at `path` as a source: the variable `options` name;
/// else its variables along one first dimension as records, or its only
/// variable. A variable's CF encodings are undone as `options` say.
pub(crate) fn open(path: &Path, options: &ReadOptions) -> Result<Box<dyn Source>> {
    let file = Netcdf3File::open(path)?;
    if let Some(member) = &options.member {
        return open_variable(file, member, options);
    }
    let listed = inventory(&file);
    if let Some(record) = crate::hdf5::inferred_record(path, &listed)? {
        let table = Box::new(Netcdf3TableSource::new(file, record)?);
        return crate::cf_table::decoded(table, crate::hdf5::root_columns(&listed));
    }
    if let [only] = file.header.variables.as_slice() {
        let name = only.name.clone();
        let source = open_variable(file, &name, options)?;
        return Ok(match crate::hdf5::is_described(&listed) {
            true => crate::hdf5::part_of_dataset(source),
            false => source,
        });
    }
    Err(Error::SeveralArrays {
        path: path.to_path_buf(),
        what: format!(
            "the file holds {} variables that are no table along one dimension",
            file.header.variables.len()
        ),
        names: file
            .variable_names()
            .into_iter()
            .map(String::from)
            .collect(),
    })
}

/// The variable `member` of `file` as a source, its CF encodings undone
/// as `options` say.
fn open_variable(
    file: Netcdf3File,
    member: &str,
    options: &ReadOptions,
) -> Result<Box<dyn Source>> {
    let index = file.variable(member)?;
    let name = file.header.variables[index].name.clone();
    let listed = inventory(&file);
    let source = Box::new(Netcdf3Source::new(file, index)?);
    match listed.datasets.iter().find(|d| d.name == name) {
        Some(d) => {
            crate::cf_decoded::as_asked(source, &name, (&d.attributes, &d.attribute_types), options)
        }
        None => Ok(source),
    }
}

/// netCDF-3 (CDF-1 classic, CDF-2 64-bit offset, CDF-5 64-bit data), as
/// the [registry](crate::FORMATS) lists it: read only, since a `.nc`
/// destination is written as netCDF-4.
pub(crate) static FORMAT: FormatInfo = FormatInfo {
    name: "netcdf3",
    noun: "netCDF-3 file",
    endings: &[],
    members: true,
    sidecar: false,
    crash_prone: false,
    settings: &[],
    recognises: |_, start| Ok(SIGNATURES.iter().any(|s| start.starts_with(*s))),
    configure: |_, _, _| Ok(()),
    open,
    create: None,
    open_records: None,
    create_records: None,
    keeps_mixed_byte_orders: |_, _| false,
    contents: |path, _| contents(path),
    batch_file: None,
};

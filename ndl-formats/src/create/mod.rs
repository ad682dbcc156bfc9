//! `ndl create`: the file an NDL document describes.
//!
//! The document is read and checked whole, every extent resolved through
//! its dimcoords and every value converted ([`plan`]), before anything is
//! written; the file is then built under a hidden name beside the
//! destination and renamed into place once complete. A bad document or a
//! failed write leaves nothing, and an existing destination is never
//! written over.

mod hdf5;
pub(crate) mod plan;
pub(crate) mod values;
mod zarr;

use std::path::Path;

use ndl_runtime::ndl::File;

use crate::error::{Error, Result};
use plan::Plan;

/// How [`create_from_ndl`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CreateOptions {
    zarr_format: u8,
}

impl Default for CreateOptions {
    fn default() -> CreateOptions {
        CreateOptions { zarr_format: 3 }
    }
}

impl CreateOptions {
    /// The Zarr format of a store made (2 or 3; 3 by default).
    pub fn zarr_format(mut self, format: u8) -> CreateOptions {
        self.zarr_format = format;
        self
    }
}

/// What a destination's name asks for.
enum Target {
    Hdf5 { netcdf: bool },
    Zarr { format: u8 },
}

/// Makes at `dest` the HDF5 file (`.h5`, `.hdf5`), netCDF-4 file (`.nc`)
/// or Zarr store (`.zarr`, of the options' format) that the NDL document
/// at `doc` describes: its groups,
/// attributes, dimension coordinates (as dimension scales) and ndarrays,
/// with their values where given and storage directives.
///
/// Returns what the reader should know of what was made, one sentence
/// each (a command prints them on stderr): the variables of a netCDF-4
/// file that netCDF4-python skips, though ncdump reads them.
///
/// A document that cannot be made is [`Error::Document`], naming the
/// document and where in it, and nothing is created; an existing `dest`
/// is [`Error::Exists`].
pub fn create_from_ndl(doc: &Path, dest: &Path, options: &CreateOptions) -> Result<Vec<String>> {
    let target = target_of(dest, options)?;
    if dest.symlink_metadata().is_ok() {
        return Err(Error::Exists {
            path: dest.to_path_buf(),
        });
    }
    let text = std::fs::read_to_string(doc).map_err(|source| Error::Io {
        path: doc.to_path_buf(),
        source,
    })?;
    let document_error = |location: &str, message: String| Error::Document {
        path: doc.to_path_buf(),
        location: location.to_string(),
        message,
    };
    let file =
        File::from_yaml(&text).map_err(|e| document_error(e.location(), e.kind().to_string()))?;
    let plan = Plan::of(&file).map_err(|(at, why)| document_error(&at, why))?;
    match target {
        Target::Hdf5 { netcdf } => {
            hdf5::check(&plan, doc, netcdf)?;
            hdf5::write(&plan, dest, netcdf)?;
            Ok(hdf5::notes(&plan, dest, netcdf))
        }
        Target::Zarr { format } => {
            zarr::check(&plan, doc)?;
            zarr::write(&plan, dest, format)?;
            Ok(Vec::new())
        }
    }
}

fn target_of(dest: &Path, options: &CreateOptions) -> Result<Target> {
    let ext = dest
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("h5" | "hdf5") => Ok(Target::Hdf5 { netcdf: false }),
        Some("nc") => Ok(Target::Hdf5 { netcdf: true }),
        Some("zarr") => Ok(Target::Zarr {
            format: options.zarr_format,
        }),
        _ => Err(Error::UnknownFormat {
            path: dest.to_path_buf(),
            reason: "`ndl create` makes .h5 and .hdf5 (HDF5) and .nc (netCDF-4) files \
                     and .zarr stores; name the destination with one of those endings"
                .into(),
        }),
    }
}

//! A netCDF-3 file opened: its header read and every variable placed.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use super::header::{self, Header};
use super::layout::{self, Layout};
use crate::error::{Error, Result};

/// A netCDF-3 file's header and where each variable's values are.
pub(crate) struct Netcdf3File {
    pub(crate) path: PathBuf,
    pub(crate) header: Header,
    pub(crate) layouts: Vec<Layout>,
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
    pub(crate) fn variable(&self, name: &str) -> Result<usize> {
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

    /// The names of the variables, in the file's order.
    pub(crate) fn variable_names(&self) -> Vec<&str> {
        self.header
            .variables
            .iter()
            .map(|v| v.name.as_str())
            .collect()
    }
}

/// A netCDF-3 file whose header or data is not what the format says.
pub(crate) fn malformed(path: &Path, message: String) -> Error {
    Error::Netcdf3 {
        path: path.to_path_buf(),
        message,
    }
}

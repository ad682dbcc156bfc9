//! A new file built out of sight, beside its destination, and renamed
//! into place once complete: a crash leaves no file at the destination,
//! only a hidden `.<name>.*.tmp` beside it.

use std::path::{Path, PathBuf};

use hdf5::plist::file_create::{AttrCreationOrder, LinkCreationOrder};

use crate::error::hdf5_error;
use crate::error::{Error, Result};

/// An HDF5 file being built for `destination`.
pub(crate) struct Staged {
    file: Option<hdf5::File>,
    temp: tempfile::TempPath,
    destination: PathBuf,
}

impl Staged {
    /// Creates the hidden file that will become `destination`.
    pub fn create(destination: &Path) -> Result<Staged> {
        let io = |source| Error::Io {
            path: destination.to_path_buf(),
            source,
        };
        let dir = match destination.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&dir).map_err(io)?;
        let stem = destination
            .file_name()
            .map_or("ndl".into(), |n| n.to_string_lossy());
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{stem}."))
            .suffix(".tmp")
            .tempfile_in(&dir)
            .map_err(io)?
            .into_temp_path();
        // netCDF-C reads a file whose links and attributes keep their
        // creation order, as it writes them.
        // No lock: no one else knows the hidden name (see `file.rs`).
        let file = hdf5::File::with_options()
            .with_fapl(|p| p.file_locking(false))
            .with_fcpl(|p| {
                p.link_creation_order(LinkCreationOrder::Indexed)
                    .attr_creation_order(AttrCreationOrder::Indexed)
            })
            .create(&temp)
            .map_err(hdf5_error(destination, ""))?;
        crate::file::close_on_exec(&file);
        Ok(Staged {
            file: Some(file),
            temp,
            destination: destination.to_path_buf(),
        })
    }

    /// The file being built.
    pub fn file(&self) -> &hdf5::File {
        self.file.as_ref().expect("open until published")
    }

    /// Where the file goes, as errors name it.
    pub fn path(&self) -> &Path {
        &self.destination
    }

    /// Flushes and closes the file, and renames it into place.
    pub fn publish(mut self) -> Result<()> {
        if let Some(file) = self.file.take() {
            file.flush().map_err(hdf5_error(&self.destination, ""))?;
            file.close().map_err(hdf5_error(&self.destination, ""))?;
        }
        let destination = self.destination;
        self.temp.persist(&destination).map_err(|e| Error::Io {
            path: destination.clone(),
            source: e.error,
        })
    }
}

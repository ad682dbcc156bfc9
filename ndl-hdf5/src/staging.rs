//! A new file built out of sight, beside its destination, and renamed
//! into place once complete: a crash leaves no file at the destination,
//! only a hidden `.<name>.*.tmp` beside it.

use std::path::{Path, PathBuf};

use ndl_runtime::staging::WriterLock;

use hdf5::plist::file_create::{AttrCreationOrder, LinkCreationOrder};

use crate::error::hdf5_error;
use crate::error::{Error, Result};

/// A new hidden, empty file beside `destination`, removed on drop.
fn hidden_beside(destination: &Path) -> Result<tempfile::TempPath> {
    let io = |source| Error::Io {
        path: destination.to_path_buf(),
        source,
    };
    if let Some(dir) = destination.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    Ok(ndl_runtime::staging::hidden_file_beside(destination)
        .map_err(io)?
        .into_temp_path())
}

/// An HDF5 file being built for `destination`.
pub(crate) struct Staged {
    file: Option<hdf5::File>,
    temp: tempfile::TempPath,
    destination: PathBuf,
    /// The lock that keeps other writers by copy out, held until the copy
    /// is renamed over the file.
    lock: Option<WriterLock>,
    /// Whether publishing waits for the disk.
    durable: bool,
}

impl Staged {
    /// Creates the hidden file that will become `destination`.
    pub fn create(destination: &Path, durable: bool) -> Result<Staged> {
        let temp = hidden_beside(destination)?;
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
        Ok(Staged::of(file, temp, destination, None, durable))
    }

    /// Copies the file at `destination` to a hidden one beside it and
    /// opens the copy to change. Other writers by copy are kept out until
    /// the copy replaces the file, by a lock on the hidden file
    /// `.<name>.lock` beside it (the file itself is left unlocked, so
    /// that readers using HDF5's own locking still open it).
    pub fn copy_of(destination: &Path, durable: bool) -> Result<Staged> {
        let io = |source| Error::Io {
            path: destination.to_path_buf(),
            source,
        };
        std::fs::metadata(destination).map_err(io)?;
        let lock = WriterLock::take(destination).map_err(io)?;
        let temp = hidden_beside(destination)?;
        std::fs::copy(destination, &temp).map_err(io)?;
        let file = hdf5::File::with_options()
            .with_fapl(|p| p.file_locking(false))
            .open_rw(&temp)
            .map_err(hdf5_error(destination, ""))?;
        Ok(Staged::of(file, temp, destination, Some(lock), durable))
    }

    fn of(
        file: hdf5::File,
        temp: tempfile::TempPath,
        destination: &Path,
        lock: Option<WriterLock>,
        durable: bool,
    ) -> Staged {
        crate::file::close_on_exec(&file);
        Staged {
            file: Some(file),
            temp,
            destination: destination.to_path_buf(),
            lock,
            durable,
        }
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
        ndl_runtime::staging::publish(self.temp, &destination, self.durable).map_err(|source| {
            Error::Io {
                path: destination.clone(),
                source,
            }
        })?;
        if let Some(lock) = self.lock {
            lock.release();
        }
        Ok(())
    }
}

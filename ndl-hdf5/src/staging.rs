//! A new file built out of sight, beside its destination, and renamed
//! into place once complete: a crash leaves no file at the destination,
//! only a hidden `.<name>.*.tmp` beside it.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use hdf5::plist::file_create::{AttrCreationOrder, LinkCreationOrder};

use crate::error::hdf5_error;
use crate::error::{Error, Result};

/// Takes the lock of writers by copy to `destination`: an exclusive
/// `flock` on `.<name>.lock` beside it, which the system releases when the
/// process dies, so a crash leaves no stale lock, only the file.
fn lock_writer(destination: &Path) -> Result<(PathBuf, std::fs::File)> {
    let io = |source| Error::Io {
        path: destination.to_path_buf(),
        source,
    };
    let name = destination
        .file_name()
        .map_or("ndl".into(), |n| n.to_string_lossy());
    let path = destination.with_file_name(format!(".{name}.lock"));
    loop {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(io(std::io::Error::new(
                    std::io::ErrorKind::WouldBlock,
                    "another writer holds the file",
                )))
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        // The writer before us may have removed the lock file it held.
        let held = file.metadata().map_err(io)?;
        if std::fs::metadata(&path).is_ok_and(|now| now.ino() == held.ino()) {
            return Ok((path, file));
        }
    }
}

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
    /// is renamed over the file: its path and its open file.
    lock: Option<(PathBuf, std::fs::File)>,
}

impl Staged {
    /// Creates the hidden file that will become `destination`.
    pub fn create(destination: &Path) -> Result<Staged> {
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
        Ok(Staged::of(file, temp, destination, None))
    }

    /// Copies the file at `destination` to a hidden one beside it and
    /// opens the copy to change. Other writers by copy are kept out until
    /// the copy replaces the file, by a lock on the hidden file
    /// `.<name>.lock` beside it (the file itself is left unlocked, so
    /// that readers using HDF5's own locking still open it).
    pub fn copy_of(destination: &Path) -> Result<Staged> {
        let io = |source| Error::Io {
            path: destination.to_path_buf(),
            source,
        };
        std::fs::metadata(destination).map_err(io)?;
        let lock = lock_writer(destination)?;
        let temp = hidden_beside(destination)?;
        std::fs::copy(destination, &temp).map_err(io)?;
        let file = hdf5::File::with_options()
            .with_fapl(|p| p.file_locking(false))
            .open_rw(&temp)
            .map_err(hdf5_error(destination, ""))?;
        Ok(Staged::of(file, temp, destination, Some(lock)))
    }

    fn of(
        file: hdf5::File,
        temp: tempfile::TempPath,
        destination: &Path,
        lock: Option<(PathBuf, std::fs::File)>,
    ) -> Staged {
        crate::file::close_on_exec(&file);
        Staged {
            file: Some(file),
            temp,
            destination: destination.to_path_buf(),
            lock,
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
        self.temp.persist(&destination).map_err(|e| Error::Io {
            path: destination.clone(),
            source: e.error,
        })?;
        if let Some((path, _held)) = &self.lock {
            // Removed while held: a writer that opened it meanwhile finds
            // it gone once it holds it, and makes a new one.
            let _ = std::fs::remove_file(path);
        }
        Ok(())
    }
}

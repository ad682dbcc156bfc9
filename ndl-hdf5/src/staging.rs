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
    make_parent(destination).map_err(io)?;
    Ok(ndl_runtime::staging::hidden_file_beside(destination)
        .map_err(io)?
        .into_temp_path())
}

/// Frees the blocks reserved past the end of the file at `path`.
fn give_back_reserve(path: &Path) -> std::io::Result<()> {
    let file = std::fs::OpenOptions::new().write(true).open(path)?;
    let len = file.metadata()?.len();
    file.set_len(len)
}

/// Creates the directory `destination` goes in, if it is missing.
fn make_parent(destination: &Path) -> std::io::Result<()> {
    match destination.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => std::fs::create_dir_all(dir),
        None => Ok(()),
    }
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
    /// Whether disk was reserved past the file's end ([`Staged::reserve`]),
    /// to give back when it is published.
    reserved: std::cell::Cell<bool>,
}

impl Staged {
    /// Creates the hidden file that will become `destination`.
    pub fn create(destination: &Path, durable: bool) -> Result<Staged> {
        let io = |source| Error::Io {
            path: destination.to_path_buf(),
            source,
        };
        make_parent(destination).map_err(io)?;
        // HDF5 creates the file itself (exclusively): an empty file made
        // first and truncated by HDF5 would be flushed to the disk when
        // closed, on ext4 (see `create_hidden_beside`).
        let mut failed = None;
        let created = ndl_runtime::staging::create_hidden_beside(destination, |path| {
            // netCDF-C reads a file whose links and attributes keep their
            // creation order, as it writes them.
            // No lock: no one else knows the hidden name (see `file.rs`).
            hdf5::File::with_options()
                .with_fapl(|p| p.file_locking(false))
                .with_fcpl(|p| {
                    p.link_creation_order(LinkCreationOrder::Indexed)
                        .attr_creation_order(AttrCreationOrder::Indexed)
                })
                .create_excl(path)
                .map_err(|e| {
                    if path.exists() {
                        return std::io::ErrorKind::AlreadyExists.into();
                    }
                    failed = Some(e);
                    std::io::Error::other("HDF5 could not create the file")
                })
        });
        let (file, temp) = match (created, failed) {
            (Ok(created), _) => created.into_parts(),
            (Err(_), Some(e)) => return Err(hdf5_error(destination, "")(e)),
            (Err(e), None) => return Err(io(e)),
        };
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
            reserved: std::cell::Cell::new(false),
        }
    }

    /// Reserves about `bytes` of disk for the file being built, without
    /// changing its size, so that the writes that follow fill blocks
    /// already allocated rather than each asking the file system for more
    /// (as `fallocate` makes a raw write faster). Only a hint: a file
    /// system that cannot reserve is left to allocate as the file grows.
    pub fn reserve(&self, bytes: u64) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let Ok(file) = std::fs::OpenOptions::new().write(true).open(&self.temp) else {
                return;
            };
            let Ok(len) = libc::off_t::try_from(bytes) else {
                return;
            };
            // SAFETY: `file` is an open descriptor for the duration of the
            // call; KEEP_SIZE leaves the file's size, which HDF5 tracks,
            // as it is.
            let done =
                unsafe { libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, 0, len) };
            self.reserved.set(done == 0);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = bytes;
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
        if self.reserved.get() {
            // Truncating to its own size frees what the file did not use
            // of the reservation.
            give_back_reserve(&self.temp).map_err(|source| Error::Io {
                path: destination.clone(),
                source,
            })?;
        }
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

//! A file that appears at its destination only once complete: written
//! beside it under a temporary name, renamed into place on finish, and
//! gone if dropped before.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::error::Error;

/// A file being written for `dest`.
#[derive(Debug)]
pub(crate) struct Staged {
    temp: NamedTempFile,
    dest: PathBuf,
    /// Whether publishing waits for the disk.
    durable: bool,
}

impl Staged {
    /// Starts the file for `dest`, in its directory so that the rename
    /// stays on one file system.
    pub fn create(dest: &Path, durable: bool) -> Result<Staged, Error> {
        let temp = ndl_runtime::staging::hidden_file_beside(dest).map_err(Error::Io)?;
        Ok(Staged {
            temp,
            dest: dest.to_owned(),
            durable,
        })
    }

    /// A buffered writer into the file (a second handle on it).
    pub fn writer(&self) -> Result<BufWriter<File>, Error> {
        let file = self.temp.as_file().try_clone().map_err(Error::Io)?;
        Ok(BufWriter::with_capacity(1 << 20, file))
    }

    /// The destination.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Puts the written file in place; `writer`s must be flushed.
    pub fn publish(self) -> Result<(), Error> {
        let dest = self.dest;
        ndl_runtime::staging::publish(self.temp.into_temp_path(), &dest, self.durable)
            .map_err(Error::Io)
    }
}

/// Opens `path` for reading.
pub(crate) fn open(path: &Path) -> Result<File, Error> {
    File::open(path).map_err(Error::Io)
}

/// About this many bytes of records go into one record batch when a
/// writer is handed more: bounded memory, whatever the slice.
pub(crate) const BATCH_BYTES: usize = 8 << 20;

/// The records per batch of records of `record` bytes.
pub(crate) fn batch_rows(record: usize) -> usize {
    (BATCH_BYTES / record.max(1)).max(1)
}

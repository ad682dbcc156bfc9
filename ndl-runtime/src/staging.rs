//! Publishing files and stores: every writer of the workspace builds its
//! file (`.npy`, `.npz`, HDF5, Parquet, Arrow) or local store (Zarr) out of
//! sight beside its destination and renames it into place once complete,
//! so that a crash never leaves a truncated file or a half-written store
//! where a complete one is expected. This module is the one place that
//! makes the hidden file, flushes it when durable, renames it, syncs the
//! parent directory, and takes a writer's lock.
//!
//! Durable means: the data and the directory entry are on the disk
//! (`fsync`) before publishing returns, so that a power loss, not only a
//! crash, leaves the old file or the new one.

use std::fs::File;
use std::path::{Path, PathBuf};

/// A new, empty, hidden file in `dest`'s directory, named
/// `.<dest's name>.<random>.tmp` and removed when dropped unless
/// published. Its mode is an ordinary new file's (0666 less the umask),
/// not a temporary file's 0600, so that the renamed result reads as
/// usual.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let dest = dir.path().join("out.bin");
/// let temp = ndl_runtime::staging::hidden_file_beside(&dest)?;
/// let name = temp.path().file_name().unwrap().to_string_lossy().into_owned();
/// assert!(name.starts_with(".out.bin.") && name.ends_with(".tmp"), "{name}");
/// ndl_runtime::staging::publish(temp.into_temp_path(), &dest, false)?;
/// assert!(dest.exists());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn hidden_file_beside(dest: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let prefix = hidden_prefix(dest);
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(parent_of(dest))
}

/// Like [`hidden_file_beside`], for a library that creates its file
/// itself: `create` makes the file at the path it is given, failing with
/// [`std::io::ErrorKind::AlreadyExists`] if something is there (another
/// name is then tried). A file created new, rather than an empty one
/// truncated by its library, is not flushed to the disk when closed, as
/// ext4 does for a file truncated and rewritten (`auto_da_alloc`).
///
/// ```
/// use std::io::Write;
///
/// let dir = tempfile::tempdir()?;
/// let dest = dir.path().join("out.bin");
/// let temp = ndl_runtime::staging::create_hidden_beside(&dest, |path| {
///     std::fs::File::options().write(true).create_new(true).open(path)
/// })?;
/// temp.as_file().write_all(b"data")?;
/// ndl_runtime::staging::publish(temp.into_temp_path(), &dest, false)?;
/// assert_eq!(std::fs::read(&dest)?, b"data");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn create_hidden_beside<R>(
    dest: &Path,
    create: impl FnMut(&Path) -> std::io::Result<R>,
) -> std::io::Result<tempfile::NamedTempFile<R>> {
    tempfile::Builder::new()
        .prefix(&hidden_prefix(dest))
        .suffix(".tmp")
        .make_in(parent_of(dest), create)
}

/// `.<dest's name>.`: what a hidden file beside `dest` starts with.
fn hidden_prefix(dest: &Path) -> String {
    let name = dest
        .file_name()
        .map_or("ndl".into(), |n| n.to_string_lossy());
    format!(".{name}.")
}

/// Renames the finished hidden file `temp` onto `dest`, replacing what was
/// there. With `durable`, the file's data reaches the disk before the
/// rename, and the rename before this returns.
pub fn publish(temp: tempfile::TempPath, dest: &Path, durable: bool) -> std::io::Result<()> {
    if durable {
        // Reopened: the writer's handle may be gone (HDF5 closes its own).
        File::open(&temp)?.sync_all()?;
    }
    temp.persist(dest).map_err(|e| e.error)?;
    if durable {
        sync_dir(&parent_of(dest))?;
    }
    Ok(())
}

/// Writes `bytes` to a hidden file beside `dest` and publishes it there:
/// readers see the old content or the new, never a part.
pub fn replace_file(dest: &Path, bytes: &[u8], durable: bool) -> std::io::Result<()> {
    let mut temp = hidden_file_beside(dest)?;
    std::io::Write::write_all(&mut temp, bytes)?;
    publish(temp.into_temp_path(), dest, durable)
}

/// Renames the finished directory `building` onto `place`, which must be
/// free or an empty directory. With `durable`, every directory of the
/// tree is flushed first, and `place`'s parent after.
///
/// # Errors
/// The rename's own error when `place` is taken (`DirectoryNotEmpty`,
/// `AlreadyExists` or `NotADirectory`, as the system says), for the
/// caller to name.
pub fn publish_dir(building: &Path, place: &Path, durable: bool) -> std::io::Result<()> {
    if durable {
        sync_tree(building)?;
    }
    std::fs::rename(building, place)?;
    if durable {
        sync_dir(&parent_of(place))?;
    }
    Ok(())
}

/// Flushes the entries of the directory `dir` to the disk: a file renamed
/// or created in it survives a power loss only then. An empty path is the
/// current directory (the parent of a relative name).
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    File::open(dir)?.sync_all()
}

/// [`sync_dir`] on `dir` and every directory below it.
pub fn sync_tree(dir: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            sync_tree(&entry.path())?;
        }
    }
    sync_dir(dir)
}

/// The directory `path` is in: `.` for a bare name.
fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The lock of writers that change an existing file by copy: an exclusive
/// `flock` on the hidden file `.<name>.lock` beside it, which the system
/// releases when the process dies, so a crash leaves no stale lock. The
/// file itself stays unlocked, so readers with locking of their own (HDF5)
/// still open it.
#[derive(Debug)]
pub struct WriterLock {
    path: PathBuf,
    _held: File,
}

impl WriterLock {
    /// Takes the lock for `dest`, or fails at once with `WouldBlock` if
    /// another writer holds it.
    ///
    /// ```
    /// use ndl_runtime::staging::WriterLock;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let dest = dir.path().join("f.h5");
    /// let held = WriterLock::take(&dest)?;
    /// let err = WriterLock::take(&dest).unwrap_err();
    /// assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
    /// held.release();
    /// WriterLock::take(&dest)?.release();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn take(dest: &Path) -> std::io::Result<WriterLock> {
        let name = dest
            .file_name()
            .map_or("ndl".into(), |n| n.to_string_lossy());
        let path = dest.with_file_name(format!(".{name}.lock"));
        loop {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::WouldBlock,
                        "another writer holds the file",
                    ));
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(e),
            }
            // The writer before us may have removed the lock file it held.
            if same_file(&file, &path) {
                return Ok(WriterLock { path, _held: file });
            }
        }
    }

    /// Removes the lock file while still holding it, then lets it go: a
    /// writer that opened it meanwhile finds it gone once it holds it, and
    /// makes a new one.
    pub fn release(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Whether `path` still names the file `file` has open.
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let (Ok(held), Ok(now)) = (file.metadata(), std::fs::metadata(path)) else {
        return false;
    };
    held.ino() == now.ino() && held.dev() == now.dev()
}

#[cfg(not(unix))]
fn same_file(_file: &File, path: &Path) -> bool {
    path.exists()
}

//! New files written out of sight beside their destination and renamed
//! into place once complete, so that a crash never leaves a truncated
//! file where a complete one is expected. Every writer of the workspace
//! (`.npy`, `.npz`, HDF5, Parquet, Arrow) makes its file here.

use std::path::{Path, PathBuf};

/// A new, empty, hidden file in `dest`'s directory, named
/// `.<dest's name>.<random>.tmp` and removed when dropped unless
/// persisted. Its mode is an ordinary new file's (0666 less the umask),
/// not a temporary file's 0600, so that the renamed result reads as
/// usual.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let dest = dir.path().join("out.bin");
/// let temp = ndl_runtime::staging::hidden_file_beside(&dest)?;
/// let name = temp.path().file_name().unwrap().to_string_lossy().into_owned();
/// assert!(name.starts_with(".out.bin.") && name.ends_with(".tmp"), "{name}");
/// temp.persist(&dest)?;
/// assert!(dest.exists());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn hidden_file_beside(dest: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = dest
        .file_name()
        .map_or("ndl".into(), |n| n.to_string_lossy());
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

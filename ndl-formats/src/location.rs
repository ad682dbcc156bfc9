//! Where a file or store is: a local path, or a prefix in object storage.

use std::path::Path;

/// Whether `path` names a store in object storage (`s3://bucket/prefix`).
pub fn is_remote(path: &Path) -> bool {
    path.to_str().is_some_and(|p| p.starts_with("s3://"))
}

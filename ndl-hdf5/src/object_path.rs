//! Paths of objects in a file: the group holding `/obs/temp`, and the
//! name it has there.

/// The path of the group holding the object at `path` (`/` for one at
/// the root).
pub(crate) fn parent(path: &str) -> &str {
    match path.trim_end_matches('/').rsplit_once('/') {
        Some(("", _)) | None => "/",
        Some((group, _)) => group,
    }
}

/// The object's name in its group: the last part of `path`.
pub(crate) fn leaf(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

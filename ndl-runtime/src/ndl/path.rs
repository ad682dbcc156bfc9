//! Path names: `/` and `/`-separated group paths, ndarray and dimcoord
//! names as their last segment.

use super::error::{Ctx, NdlError, NdlErrorKind};
use super::shape::is_dim_reference;

/// `/`, or `/`-separated non-empty segments after a leading `/`.
pub(crate) fn check_group_path(path: &str, ctx: &Ctx) -> Result<(), NdlError> {
    if path == "/" || (path.starts_with('/') && is_dim_reference(path)) {
        return Ok(());
    }
    Err(ctx.err(NdlErrorKind::BadGroupPath(path.into())))
}

/// Ndarray and dimcoord names become the last segment of a path name.
pub(crate) fn check_name(name: &str, ctx: &Ctx) -> Result<(), NdlError> {
    if name.is_empty() || name.contains('/') {
        return Err(ctx.err(NdlErrorKind::BadName(name.into())));
    }
    Ok(())
}

/// `/a/b/n` → (`/a/b`, `n`); `/n` → (`/`, `n`).
pub(crate) fn split_path(path: &str) -> Option<(&str, &str)> {
    let cut = path.rfind('/')?;
    let (group, name) = (&path[..cut], &path[cut + 1..]);
    let group = if group.is_empty() { "/" } else { group };
    (path.starts_with('/') && !name.is_empty()).then_some((group, name))
}

pub(crate) fn join_path(group: &str, relative: &str) -> String {
    match group {
        "/" => format!("/{relative}"),
        g => format!("{g}/{relative}"),
    }
}

/// `/a/b`, `/a`, `/`. Each step is shorter, so this ends even for a
/// malformed path, which yields only itself.
pub(crate) fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    std::iter::successors(Some(path), |p| {
        let cut = p.rfind('/')?;
        match (*p, cut) {
            ("/", _) => None,
            (_, 0) => Some("/"),
            (p, cut) => Some(&p[..cut]),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_and_join() {
        assert_eq!(split_path("/a/b/n"), Some(("/a/b", "n")));
        assert_eq!(split_path("/n"), Some(("/", "n")));
        assert_eq!(split_path("n"), None);
        assert_eq!(split_path("/a/"), None);
        assert_eq!(ancestors("/a/b").collect::<Vec<_>>(), ["/a/b", "/a", "/"]);
        assert_eq!(ancestors("/").collect::<Vec<_>>(), ["/"]);
        assert_eq!(ancestors("/a").collect::<Vec<_>>(), ["/a", "/"]);
        assert_eq!(ancestors("g").collect::<Vec<_>>(), ["g"]);
        assert_eq!(ancestors("").collect::<Vec<_>>(), [""]);
        assert_eq!(ancestors("/a/").collect::<Vec<_>>(), ["/a/", "/a", "/"]);
        assert_eq!(join_path("/", "t"), "/t");
        assert_eq!(join_path("/a", "g/t"), "/a/g/t");
    }
}

//! New local stores built out of sight: in a hidden directory beside their
//! place, renamed into it once complete, so that readers see no store or a
//! whole one, never a store being written.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::store::Store;

/// A store being built in a hidden directory, and the place it is renamed
/// to by [`publish`](Staging::publish). Dropped unpublished (an error, or a
/// writer dropped without `finish`), it removes what it built.
///
/// The writer holds an exclusive lock (`flock`) on the building directory
/// while it builds: the kernel releases it when the process ends, however
/// it ends, so a directory whose lock can be taken is a dead writer's
/// leftover, on this machine or another sharing the filesystem.
#[derive(Debug)]
pub(crate) struct Staging {
    building: PathBuf,
    /// The building directory, open and locked.
    guard: File,
    place: PathBuf,
    published: bool,
    /// Whether the store's directories are flushed to the disk before the
    /// rename, and its parent after.
    durable: bool,
}

impl Staging {
    /// The store to build in place of `store`, a new store: for a local
    /// store, a store in a new hidden directory and the staging that
    /// renames it; object storage has no rename, so there `store` itself
    /// and no staging (its metadata, written last, publishes the records).
    /// Missing parent directories of the place are made.
    ///
    /// # Errors
    /// [`Error::Exists`] if the place holds anything; an error if its path
    /// ends in no name (`.`, `..`).
    pub(crate) fn begin(store: Store) -> Result<(Store, Option<Staging>)> {
        let Some(place) = store.local_dir() else {
            return Ok((store, None));
        };
        let (Some(parent), Some(name), false) =
            (place.parent(), place.file_name(), ends_in_dot(&place))
        else {
            return Err(Error::Unsupported {
                message: format!(
                    "{}: a new store's path must end in its name (not `.` or `..`)",
                    store.name
                ),
            });
        };
        let name = name.to_string_lossy().into_owned();
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        refuse_occupied(&place, &store.name)?;
        let io = |source| Error::Io {
            path: place.clone(),
            source,
        };
        std::fs::create_dir_all(parent).map_err(io)?;
        remove_leftovers(parent, &name);
        let (building, guard) = building_dir(parent, &name).map_err(io)?;
        let durable = store.is_durable();
        let staged = Store::building(&building, &store.name, durable)?;
        let staging = Staging {
            building,
            guard,
            place,
            published: false,
            durable,
        };
        Ok((staged, Some(staging)))
    }

    /// Renames the built store into its place, which must still be free
    /// (or an empty directory, which the rename replaces); packs it there
    /// as a zip file where the place's name ends in `.zip`. Refuses if the
    /// building directory is no longer the one this writer made (removed
    /// meanwhile, and recreated by later writes): some of the store would
    /// be missing.
    pub(crate) fn publish(mut self) -> Result<()> {
        if !self.still_ours() {
            return Err(Error::Io {
                path: self.place.clone(),
                source: std::io::Error::other(format!(
                    "the directory the store was being built in ({}) was removed by \
                     another process during the write; write the store again",
                    self.building.display()
                )),
            });
        }
        if crate::zip::is_zip_place(&self.place) {
            crate::zip::pack(&self.building, &self.place, self.durable)?;
            self.published = true;
            let _ = std::fs::remove_dir_all(&self.building);
            return Ok(());
        }
        ndl_runtime::staging::publish_dir(&self.building, &self.place, self.durable).map_err(
            |source| {
                if matches!(
                    source.kind(),
                    std::io::ErrorKind::DirectoryNotEmpty
                        | std::io::ErrorKind::AlreadyExists
                        | std::io::ErrorKind::NotADirectory
                ) {
                    Error::Exists {
                        store: self.place.display().to_string(),
                    }
                } else {
                    Error::Io {
                        path: self.place.clone(),
                        source,
                    }
                }
            },
        )?;
        self.published = true;
        Ok(())
    }

    /// Whether the building directory is still the one this writer made
    /// and locked.
    fn still_ours(&self) -> bool {
        same_file(&self.guard, &self.building)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.published && self.still_ours() {
            let _ = std::fs::remove_dir_all(&self.building);
        }
    }
}

/// Refuses a place that holds anything: a file, or a directory with
/// entries.
pub(crate) fn refuse_occupied(place: &Path, name: &str) -> Result<()> {
    let occupied = match std::fs::read_dir(place) {
        Ok(mut entries) => entries.next().is_some(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => true,
        Err(source) => {
            return Err(Error::Io {
                path: place.to_path_buf(),
                source,
            });
        }
    };
    if occupied {
        return Err(Error::Exists {
            store: name.to_string(),
        });
    }
    Ok(())
}

/// A new, empty `.NAME.PID.N.partial` in `parent`, open and locked:
/// hidden, and made exclusively (`N` counts this process's writers), so
/// that no two writers share it and a leftover of a crashed process never
/// stands in the way.
fn building_dir(parent: &Path, name: &str) -> std::io::Result<(PathBuf, File)> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    loop {
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let building = parent.join(format!(".{name}.{}.{n}.partial", std::process::id()));
        match std::fs::create_dir(&building) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
        let guard = File::open(&building)?;
        match guard.try_lock() {
            // Another writer's clean-up may take an unlocked directory in
            // the moment before the lock: then make another.
            Ok(()) if !same_file(&guard, &building) => continue,
            Ok(()) => return Ok((building, guard)),
            Err(std::fs::TryLockError::WouldBlock) => continue,
            // A filesystem without locks: the directory is used unlocked,
            // and no writer can tell it from a leftover, so none removes it.
            Err(std::fs::TryLockError::Error(_)) => return Ok((building, guard)),
        }
    }
}

/// Whether `path`'s last component is `.`, which `Path::file_name` does
/// not show (`a/.` names `a`, but cannot be renamed to).
fn ends_in_dot(path: &Path) -> bool {
    let text = path.as_os_str().as_encoded_bytes();
    let end = text.iter().rposition(|&b| b != b'/').map_or(0, |i| i + 1);
    let text = &text[..end];
    text == b"." || text.ends_with(b"/.")
}

/// Whether `path` still names the directory `file` has open.
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Without inode numbers, only whether `path` is still there.
#[cfg(not(unix))]
fn same_file(_file: &File, path: &Path) -> bool {
    path.is_dir()
}

/// Removes the building directories of `name` in `parent` whose writer is
/// gone: those whose lock can be taken.
fn remove_leftovers(parent: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    let prefix = format!(".{name}.");
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let ours = file_name
            .to_str()
            .and_then(|s| s.strip_prefix(&prefix))
            .and_then(|s| s.strip_suffix(".partial"))
            .and_then(|s| s.split_once('.'))
            .is_some_and(|(pid, n)| pid.parse::<u32>().is_ok() && n.parse::<u64>().is_ok());
        if !ours {
            continue;
        }
        let path = entry.path();
        let Ok(dir) = File::open(&path) else {
            continue;
        };
        // Held while removing: a writer that made this name anew cannot
        // lock it meanwhile (and checks that its directory is its own).
        // Where the filesystem has no locks, nothing tells a leftover from
        // a live writer's directory: it stays.
        if dir.try_lock().is_ok() {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_ending_in_a_dot_names_no_new_store() {
        for dotted in [".", "a/.", "a/./", "/"] {
            assert!(ends_in_dot(Path::new(dotted)) || dotted == "/", "{dotted}");
        }
        for named in ["a", "a/b.zarr", "a/b/", ".hidden"] {
            assert!(!ends_in_dot(Path::new(named)), "{named}");
        }
    }

    #[test]
    fn only_an_empty_or_missing_place_is_free() {
        let dir = tempfile::tempdir().unwrap();
        let free = dir.path().join("free");
        refuse_occupied(&free, "free").unwrap();
        std::fs::create_dir(&free).unwrap();
        refuse_occupied(&free, "free").unwrap();
        std::fs::write(free.join("x"), b"").unwrap();
        assert!(matches!(
            refuse_occupied(&free, "free"),
            Err(Error::Exists { .. })
        ));
        assert!(matches!(
            refuse_occupied(&free.join("x"), "x"),
            Err(Error::Exists { .. })
        ));
    }

    #[test]
    fn a_store_is_published_whole_or_its_building_removed() {
        let dir = tempfile::tempdir().unwrap();
        let place = dir.path().join("s.zarr");
        let (store, staging) = Staging::begin(Store::local(&place).unwrap()).unwrap();
        store.set("zarr.json", b"{}".to_vec()).unwrap();
        assert!(!place.exists());
        staging.unwrap().publish().unwrap();
        assert!(place.join("zarr.json").exists());

        let dropped = dir.path().join("d.zarr");
        let (store, staging) = Staging::begin(Store::local(&dropped).unwrap()).unwrap();
        let building = store.local_dir().unwrap();
        assert!(building.exists());
        drop(staging);
        assert!(!building.exists() && !dropped.exists());
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, ["s.zarr"]);
    }
}

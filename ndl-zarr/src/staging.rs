//! New local stores built out of sight: in a hidden directory beside their
//! place, renamed into it once complete, so that readers see no store or a
//! whole one, never a store being written.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::store::Store;

/// A store being built in a hidden directory, and the place it is renamed
/// to by [`publish`](Staging::publish). Dropped unpublished (an error, or a
/// writer dropped without `finish`), it removes what it built.
#[derive(Debug)]
pub(crate) struct Staging {
    building: PathBuf,
    place: PathBuf,
    published: bool,
}

impl Staging {
    /// The store to build in place of `store`, a new store: for a local
    /// store, a store in a new hidden directory and the staging that
    /// renames it; object storage has no rename, so there `store` itself
    /// and no staging (its metadata, written last, publishes the records).
    ///
    /// # Errors
    /// [`Error::Exists`] if the place holds anything.
    pub(crate) fn begin(store: Store) -> Result<(Store, Option<Staging>)> {
        let Some(place) = store.local_dir() else {
            return Ok((store, None));
        };
        refuse_occupied(&place, &store.name)?;
        let building = building_dir(&place)?;
        let staged = Store::staging(&building, &store.name)?;
        let staging = Staging {
            building,
            place,
            published: false,
        };
        Ok((staged, Some(staging)))
    }

    /// Renames the built store into its place, which must still be free
    /// (or an empty directory, which the rename replaces).
    pub(crate) fn publish(mut self) -> Result<()> {
        std::fs::rename(&self.building, &self.place).map_err(|source| {
            if matches!(
                source.kind(),
                std::io::ErrorKind::DirectoryNotEmpty | std::io::ErrorKind::AlreadyExists
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
        })?;
        self.published = true;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.published {
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
            })
        }
    };
    if occupied {
        return Err(Error::Exists {
            store: name.to_string(),
        });
    }
    Ok(())
}

/// A new, empty `.NAME.PID.N.partial` beside `place`: hidden, and made
/// exclusively (`N` counts this process's writers), so that no two writers
/// share it and a leftover of a crashed process never stands in the way.
/// Leftovers of processes that are gone are removed first.
fn building_dir(place: &Path) -> Result<PathBuf> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let name = place
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("store");
    remove_leftovers(place, name);
    loop {
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let building = place.with_file_name(format!(".{name}.{}.{n}.partial", std::process::id()));
        match std::fs::create_dir(&building) {
            Ok(()) => return Ok(building),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(source) => {
                return Err(Error::Io {
                    path: building,
                    source,
                })
            }
        }
    }
}

/// Removes the building directories of `name` beside `place` left by
/// processes of this machine that no longer run (a crash, a kill). Where
/// `/proc` cannot tell, nothing is removed.
fn remove_leftovers(place: &Path, name: &str) {
    let (Some(parent), true) = (place.parent(), Path::new("/proc/self").exists()) else {
        return;
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    let prefix = format!(".{name}.");
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name
            .to_str()
            .and_then(|s| s.strip_prefix(&prefix))
            .and_then(|s| s.strip_suffix(".partial"))
            .and_then(|s| s.split_once('.'))
            .and_then(|(pid, n)| n.parse::<u64>().ok().and(pid.parse::<u32>().ok()))
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

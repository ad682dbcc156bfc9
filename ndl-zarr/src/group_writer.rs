//! A new group of arrays, each written by a writer of its own, published
//! whole: what a file of several variables (an xarray dataset, an HDF5
//! file's datasets) becomes.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::documents::{consolidate, has_node, write_group};
use crate::error::{Error, Result};
use crate::staging::Staging;
use crate::store::Store;
use crate::{WriteOptions, ZarrFormat};

/// A new group whose arrays are written one by one, each at the place
/// [`GroupWriter::array_location`] gives, by any writer of one array
/// ([`ArrayWriter`](crate::ArrayWriter), [`GridWriter`](crate::GridWriter),
/// a writer of strings). A local group is built out of sight and renamed
/// into place by [`finish`](GroupWriter::finish), so that readers see no
/// group or a whole one; dropped unfinished, it leaves nothing. On object
/// storage the group's document, written last, publishes it.
///
/// `finish` writes the group's documents (and those of the groups between
/// it and a nested array) and consolidated metadata (v2 `.zmetadata`, v3
/// inline), as zarr-python's `consolidate_metadata` lays them out, so that
/// `xr.open_zarr` opens it in one read.
///
/// ```
/// use ndl_zarr::GroupWriter;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("ds.zarr");
/// let options = ndl_zarr::WriteOptions::new().attribute("title", "two arrays".into());
/// let mut group = GroupWriter::create(&path, &options)?;
/// for (name, values) in [("a", [1.0f64, 2.0]), ("b", [3.0, 4.0])] {
///     let at = group.array_location(name)?;
///     ndl_zarr::WriteOptions::new().write(&at, &values)?;
/// }
/// assert!(!path.exists(), "nothing is seen before finish");
/// group.finish()?;
/// let ndl_zarr::StoreInfo::Group(info) = ndl_zarr::StoreInfo::open(&path)? else {
///     panic!("a group")
/// };
/// assert_eq!(info.arrays().len(), 2);
/// assert_eq!(info.attributes()["title"], "two arrays");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct GroupWriter {
    /// The group's store: the building one, for a local group.
    store: Store,
    /// Where the arrays' writers write: the building directory, or the
    /// place itself on object storage.
    root: PathBuf,
    staging: Option<Staging>,
    format: ZarrFormat,
    /// The groups' attributes, by path below the group (`""` for the
    /// group itself).
    groups: Vec<(String, Map<String, Value>)>,
    /// The arrays' paths below the group, in the order they were added.
    arrays: Vec<String>,
}

impl GroupWriter {
    /// Starts a new group at `location` (a local path or `s3://` prefix)
    /// in the Zarr format `options` give, with their attributes, flushed
    /// to the disk if they say so ([`WriteOptions::durable`]).
    ///
    /// # Errors
    /// [`Error::Exists`] if something is at `location`; an I/O error.
    pub fn create(location: &Path, options: &WriteOptions) -> Result<GroupWriter> {
        let mut store = Store::open(location)?;
        if options.durable {
            store = store.durable()?;
        }
        if store.is_remote() && has_node(&store)? {
            return Err(Error::Exists { store: store.name });
        }
        let (store, staging) = Staging::begin(store)?;
        let root = store.local_dir().unwrap_or_else(|| location.to_path_buf());
        Ok(GroupWriter {
            store,
            root,
            staging,
            format: options.format,
            groups: vec![(String::new(), options.attributes.clone())],
            arrays: Vec::new(),
        })
    }

    /// Adds the group at `path` below this one (`obs`, `obs/deep`) with
    /// `attributes`; a group between this one and an array that is not
    /// added has none.
    pub fn group(&mut self, path: &str, attributes: Map<String, Value>) {
        let path = path.trim_matches('/').to_string();
        match self.groups.iter_mut().find(|(p, _)| *p == path) {
            Some((_, kept)) => *kept = attributes,
            None => self.groups.push((path, attributes)),
        }
    }

    /// Where the array at `path` below the group (`temp`, `obs/temp`) is
    /// to be written by a writer of one new array.
    ///
    /// # Errors
    /// A path that is empty, has an empty, `.` or `..` part, or was given
    /// before.
    pub fn array_location(&mut self, path: &str) -> Result<PathBuf> {
        let path = path.trim_matches('/');
        let parts: Vec<&str> = path.split('/').collect();
        if parts.iter().any(|p| matches!(*p, "" | "." | ".."))
            || self.arrays.iter().any(|a| a == path)
        {
            return Err(Error::Unsupported {
                message: format!(
                    "{}: `{path}` names no new array of the group",
                    self.store.name
                ),
            });
        }
        for depth in 1..parts.len() {
            let group = parts[..depth].join("/");
            if !self.groups.iter().any(|(p, _)| *p == group) {
                self.groups.push((group, Map::new()));
            }
        }
        self.arrays.push(path.to_string());
        Ok(parts.iter().fold(self.root.clone(), |at, p| at.join(p)))
    }

    /// Writes the groups' documents and the consolidated metadata, and
    /// publishes the group.
    ///
    /// # Errors
    /// An array that was not written; an I/O error; [`Error::Exists`] if
    /// something took the place meanwhile.
    pub fn finish(mut self) -> Result<()> {
        // The group itself last: on object storage it publishes the rest.
        let groups = std::mem::take(&mut self.groups);
        for (path, attributes) in groups.iter().rev() {
            let attributes = attributes.clone();
            match path.as_str() {
                "" => write_group(&self.store, self.format, attributes)?,
                path => write_group(&self.store.child(path), self.format, attributes)?,
            }
        }
        let mut nodes: Vec<&str> = groups.iter().skip(1).map(|(p, _)| p.as_str()).collect();
        nodes.extend(self.arrays.iter().map(String::as_str));
        consolidate(&self.store, self.format, nodes)?;
        match self.staging.take() {
            Some(staging) => staging.publish(),
            None => Ok(()),
        }
    }
}

//! A new file of several datasets, each written by an [`ArrayWriter`] of
//! its own, sharing the file's dimensions: what a dataset of several
//! variables (an xarray dataset, a Zarr group) becomes as netCDF-4.

use std::path::Path;

use ndl_runtime::{ByteOrder, Datatype};
use serde_json::{Map, Value};

use crate::array_io::ArrayWriter;
use crate::dimension::Dimensions;
use crate::error::{Result, hdf5_error};
use crate::options::WriteOptions;
use crate::staging::Staged;

/// A new HDF5 or netCDF-4 file whose datasets are written one after
/// another, built under a hidden name and renamed into place by
/// [`finish`](FileWriter::finish); dropped before, it leaves nothing.
///
/// In netCDF-4 (a `.nc` path, or [`WriteOptions::netcdf`]) the datasets
/// share their dimensions by name, as netCDF-C's: a one-dimensional
/// dataset whose dimension is named as itself is that dimension's
/// coordinate variable (write it before the datasets over its
/// dimension), and every other dimension is made once, by the first
/// dataset over it.
///
/// ```
/// use ndl_hdf5::{FileWriter, WriteOptions};
/// use ndl_runtime::{ByteOrder, Datatype};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("two.nc");
/// let mut file = FileWriter::create(&path, &WriteOptions::new(), &Default::default())?;
/// let x = WriteOptions::new().dimension_names(vec!["x".into()]);
/// let mut w = file.array("x", (&Datatype::Float64, ByteOrder::NATIVE, &[2]), &x)?;
/// w.write_rows(bytemuck::cast_slice(&[0.5f64, 1.5]))?;
/// w.finish()?;
/// let v = WriteOptions::new().dimension_names(vec!["x".into()]);
/// let mut w = file.array("v", (&Datatype::Int32, ByteOrder::NATIVE, &[2]), &v)?;
/// w.write_rows(bytemuck::cast_slice(&[7i32, 8]))?;
/// w.finish()?;
/// file.finish()?;
/// let inventory = ndl_hdf5::Inventory::of(&path)?;
/// let v = inventory.datasets.iter().find(|d| d.name == "v").unwrap();
/// assert_eq!(v.dimension_names, Some(vec![Some("x".to_string())]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FileWriter {
    staged: Staged,
    netcdf: bool,
    dimensions: Dimensions,
}

impl FileWriter {
    /// Starts the file that will be `path`, with `attributes` on its root
    /// group; netCDF-4's profile as `options` say.
    ///
    /// # Errors
    /// Something at `path`; an HDF5 error.
    pub fn create(
        path: &Path,
        options: &WriteOptions,
        attributes: &Map<String, Value>,
    ) -> Result<FileWriter> {
        crate::filters::register();
        let staged = Staged::create(path, options.durable)?;
        let netcdf = options.is_netcdf(staged.path());
        crate::user_attributes::write(staged.file(), attributes)
            .map_err(hdf5_error(staged.path(), "/"))?;
        Ok(FileWriter {
            staged,
            netcdf,
            dimensions: Dimensions::default(),
        })
    }

    /// Makes the group at `path` (`/obs`), and every group above it not
    /// made yet, with `attributes`.
    ///
    /// # Errors
    /// An HDF5 error.
    pub fn group(&self, path: &str, attributes: &Map<String, Value>) -> Result<()> {
        let file = self.staged.file();
        let mut at = String::new();
        for segment in path.split('/').filter(|s| !s.is_empty()) {
            at = format!("{at}/{segment}");
            if !file.link_exists(&at) {
                file.create_group(&at)
                    .map_err(hdf5_error(self.staged.path(), &at))?;
            }
        }
        let group = file
            .group(if at.is_empty() { "/" } else { &at })
            .map_err(hdf5_error(self.staged.path(), path))?;
        crate::user_attributes::write(&group, attributes)
            .map_err(hdf5_error(self.staged.path(), path))
    }

    /// The writer of the new dataset `dataset` (`temp`, `obs/temp`: its
    /// groups are made) of `shape` elements of `datatype`, written from
    /// `byte_order`, as [`ArrayWriter::create`] makes one: its dimensions
    /// named by `options`, which also give its attributes and storage.
    ///
    /// # Errors
    /// As [`ArrayWriter::create`].
    pub fn array(
        &mut self,
        dataset: &str,
        (datatype, byte_order, shape): (&Datatype, ByteOrder, &[u64]),
        options: &WriteOptions,
    ) -> Result<ArrayWriter> {
        let dataset = dataset.trim_start_matches('/');
        if let Some((groups, _)) = dataset.rsplit_once('/') {
            self.group(groups, &Map::new())?;
        }
        let base = dataset.rsplit('/').next().unwrap_or(dataset);
        ArrayWriter::create_in(
            (self.staged.file(), self.staged.path(), self.netcdf),
            &mut self.dimensions,
            dataset,
            (datatype, byte_order, shape),
            &format!("{base}_t"),
            options,
        )
    }

    /// Closes the file and renames it into place.
    ///
    /// # Errors
    /// Something took the place meanwhile; an I/O error.
    pub fn finish(self) -> Result<()> {
        drop(self.dimensions);
        self.staged.publish()
    }
}

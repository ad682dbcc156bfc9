//! netCDF-4's dimensions: HDF5 dimension scales, made as netCDF-C makes
//! them, so that `ncdump` and netCDF4-python see named dimensions rather
//! than the `phony_dim_N` they invent for a dataset without scales.
//!
//! A dimension that no variable names as its coordinate is a dataset of
//! its length, never written (it takes no space), marked a scale by
//! `H5DSset_scale` with netCDF-C's name for a dimension that is not a
//! variable, and numbered by `_Netcdf4Dimid` so that `ncdump` lists the
//! dimensions in the order they were made. Each variable is attached to
//! the scale of each of its dimensions by `H5DSattach_scale`.
//!
//! The two calls are the HDF5 high-level library's (`libhdf5_hl`, part of
//! Debian's `libhdf5-dev`), which hdf5-metno-sys does not bind.

use std::ffi::{CString, c_char, c_uint};

use hdf5_sys::h5::herr_t;
use hdf5_sys::h5i::hid_t;

use crate::inventory::DIMENSION_ONLY;

#[link(name = "hdf5_hl")]
unsafe extern "C" {
    fn H5DSset_scale(dsid: hid_t, dimname: *const c_char) -> herr_t;
    fn H5DSattach_scale(did: hid_t, dsid: hid_t, idx: c_uint) -> herr_t;
}

/// Records per chunk of an unlimited dimension's scale: it is never
/// written, so the figure only has to be legal.
const SCALE_CHUNK: usize = 1024;

/// One dimension of a file: its scale, where it is and what it is called.
struct Dimension {
    group: String,
    name: String,
    scale: hdf5::Dataset,
    unlimited: bool,
}

/// The dimensions made in one file so far, numbered in order.
#[derive(Default)]
pub(crate) struct Dimensions {
    made: Vec<Dimension>,
}

impl Dimensions {
    /// Attaches `variable`, in `group` (its path), to the dimensions
    /// `names` of `lens` records each, making in the group those neither
    /// it nor a group above it holds yet (netCDF-4 sees an ancestor's
    /// dimensions in its descendants); the first is unlimited when
    /// `unlimited_first`.
    pub fn attach(
        &mut self,
        group: &hdf5::Group,
        variable: &hdf5::Dataset,
        names: &[String],
        lens: &[u64],
        unlimited_first: bool,
    ) -> hdf5::Result<()> {
        let at = group.name();
        for (k, (name, &len)) in names.iter().zip(lens).enumerate() {
            let unlimited = unlimited_first && k == 0;
            let index = match self.find_visible(&at, name) {
                Some(i) => i,
                None => self.make(group, name, len, unlimited)?,
            };
            let scale = &self.made[index].scale;
            hdf5::sync::sync(|| {
                // SAFETY: both are open datasets of one file; `k` is a
                // dimension of `variable`.
                let status = unsafe { H5DSattach_scale(variable.id(), scale.id(), k as c_uint) };
                check(status, "H5DSattach_scale")
            })?;
        }
        Ok(())
    }

    /// The unlimited dimension `name` of `group`, made before (by us or
    /// netCDF-C), to grow it on appends; `None` where there is none, as
    /// in a file that is not netCDF-4.
    pub fn adopt(group: &hdf5::Group, name: &str) -> Option<Dimensions> {
        let scale = group.dataset(name).ok()?;
        let is_scale = scale.attr_names().ok()?.iter().any(|a| a == "CLASS");
        let unlimited = scale.is_resizable() && scale.ndim() == 1;
        (is_scale && unlimited).then(|| Dimensions {
            made: vec![Dimension {
                group: group.name(),
                name: name.to_string(),
                scale,
                unlimited,
            }],
        })
    }

    /// Grows every unlimited dimension of `group` (its path) to `len`.
    pub fn grow(&self, group: &str, len: u64) -> hdf5::Result<()> {
        for d in self.made.iter().filter(|d| d.unlimited && d.group == group) {
            d.scale.resize(len as usize)?;
        }
        Ok(())
    }

    /// Makes `variable`, named `name` in `group`, the dimension `name`
    /// and its coordinate: a scale of its own name, as netCDF-C marks a
    /// coordinate variable, numbered by `_Netcdf4Dimid` when `netcdf`.
    pub fn coordinate(
        &mut self,
        group: &hdf5::Group,
        name: &str,
        variable: hdf5::Dataset,
        unlimited: bool,
        netcdf: bool,
    ) -> hdf5::Result<()> {
        set_scale(&variable, name)?;
        if netcdf {
            self.number(&variable)?;
        }
        self.made.push(Dimension {
            group: group.name(),
            name: name.to_string(),
            scale: variable,
            unlimited,
        });
        Ok(())
    }

    /// Makes the dimension `name` of `group`, of `len` (growable when
    /// `unlimited`), which no variable holds the coordinates of, unless
    /// it is made already.
    pub fn dimension_only(
        &mut self,
        group: &hdf5::Group,
        name: &str,
        len: u64,
        unlimited: bool,
    ) -> hdf5::Result<()> {
        if self.find(&group.name(), name).is_some() {
            return Ok(());
        }
        self.make(group, name, len, unlimited).map(drop)
    }

    /// Attaches dimension `k` of `variable` to the dimension `name` of the
    /// group at the path `group`, made before.
    pub fn attach_one(
        &self,
        variable: &hdf5::Dataset,
        k: usize,
        group: &str,
        name: &str,
    ) -> hdf5::Result<()> {
        let index = self
            .find(group, name)
            .ok_or_else(|| hdf5::Error::from(format!("no dimension `{name}` in `{group}`")))?;
        let scale = &self.made[index].scale;
        hdf5::sync::sync(|| {
            // SAFETY: both are open datasets of one file; `k` is a
            // dimension of `variable`.
            let status = unsafe { H5DSattach_scale(variable.id(), scale.id(), k as c_uint) };
            check(status, "H5DSattach_scale")
        })
    }

    /// The length of the dimension `name` the group at `group` sees (its
    /// own, or an ancestor's), where it is made.
    pub fn length(&self, group: &str, name: &str) -> Option<u64> {
        let scale = &self.made[self.find_visible(group, name)?].scale;
        scale.shape().first().map(|&n| n as u64)
    }

    fn number(&self, scale: &hdf5::Dataset) -> hdf5::Result<()> {
        let id = self.made.len() as i32;
        scale
            .new_attr::<i32>()
            .create("_Netcdf4Dimid")?
            .write_scalar(&id)
    }

    /// The dimension `name` of the group at `group`, or else of the
    /// nearest group above it that has one.
    fn find_visible(&self, group: &str, name: &str) -> Option<usize> {
        let mut at = group;
        loop {
            if let Some(i) = self.find(at, name) {
                return Some(i);
            }
            if at == "/" {
                return None;
            }
            at = crate::object_path::parent(at);
        }
    }

    fn find(&self, group: &str, name: &str) -> Option<usize> {
        self.made
            .iter()
            .position(|d| d.group == group && d.name == name)
    }

    fn make(
        &mut self,
        group: &hdf5::Group,
        name: &str,
        len: u64,
        unlimited: bool,
    ) -> hdf5::Result<usize> {
        let builder = group.new_dataset::<f32>();
        let scale = if unlimited {
            builder
                .chunk(SCALE_CHUNK)
                .shape(len as usize..)
                .create(name)?
        } else {
            builder.shape(len as usize).create(name)?
        };
        // netCDF-C's mark of a dimension that is not also a variable,
        // with the length right-aligned in ten characters.
        let title = format!("{DIMENSION_ONLY}{len:10}");
        set_scale(&scale, &title)?;
        self.number(&scale)?;
        self.made.push(Dimension {
            group: group.name(),
            name: name.to_string(),
            scale,
            unlimited,
        });
        Ok(self.made.len() - 1)
    }
}

/// Marks `scale` a dimension scale named `title`.
fn set_scale(scale: &hdf5::Dataset, title: &str) -> hdf5::Result<()> {
    let title = CString::new(title).map_err(|e| hdf5::Error::from(e.to_string()))?;
    hdf5::sync::sync(|| {
        // SAFETY: `scale` is an open dataset; `title` a C string.
        let status = unsafe { H5DSset_scale(scale.id(), title.as_ptr()) };
        check(status, "H5DSset_scale")
    })
}

fn check(status: herr_t, call: &str) -> hdf5::Result<()> {
    if status < 0 {
        return Err(hdf5::Error::query().unwrap_or_else(|_| format!("{call} failed").into()));
    }
    Ok(())
}

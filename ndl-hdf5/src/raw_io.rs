//! Whole rows of a dataset (a range of its first dimension, whole along
//! the others) moved between memory and the file as bytes of a runtime
//! type: hdf5-metno's typed readers and writers need a compile-time
//! `H5Type`, so the copies go through `H5Dwrite` and `H5Dread` with the
//! type's handle.

use std::os::raw::c_void;

use hdf5_sys::h5d::{H5Dget_space, H5Dopen2, H5Dread, H5Dwrite};
use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5p::H5P_DEFAULT;
use hdf5_sys::h5s::{
    H5S_ALL, H5S_class_t, H5S_seloper_t, H5Sclose, H5Screate_simple, H5Sget_simple_extent_type,
    H5Sselect_hyperslab,
};

/// A dataspace handle we own, closed on drop.
struct Space(hid_t);

impl Drop for Space {
    fn drop(&mut self) {
        if self.0 != H5S_ALL {
            // SAFETY: a dataspace we created, closed once.
            unsafe { H5Sclose(self.0) };
        }
    }
}

/// Selects in `space` the box of `count` elements from `start` (one
/// extent per dimension of the space), `op` the selection so far.
pub(crate) fn select_box(
    space: hid_t,
    op: H5S_seloper_t,
    start: &[u64],
    count: &[u64],
) -> hdf5::Result<()> {
    let (start, count) = (start.as_ptr(), count.as_ptr());
    let none = std::ptr::null();
    // SAFETY: `start` and `count` hold one extent per dimension.
    if unsafe { H5Sselect_hyperslab(space, op, start, none, count, none) } < 0 {
        return Err(failed());
    }
    Ok(())
}

/// The library's error of the call that just failed.
pub(crate) fn failed() -> hdf5::Error {
    hdf5::Error::query().unwrap_or_else(|e| e)
}

/// Reads the elements `file` selects of `dset` into `out`, laid out as
/// `memory` selects them, as elements of `memory_type`.
///
/// # Safety
/// `out` has room for the elements `memory` selects, of `memory_type`,
/// and every handle is open.
pub(crate) unsafe fn read_selection(
    dset: hid_t,
    memory_type: hid_t,
    (memory, file): (hid_t, hid_t),
    out: *mut c_void,
) -> hdf5::Result<()> {
    // SAFETY: as the caller promises.
    let status = unsafe { H5Dread(dset, memory_type, memory, file, H5P_DEFAULT, out) };
    if status < 0 {
        return Err(failed());
    }
    Ok(())
}

/// The file and memory spaces of rows `first..first + rows` of a dataset
/// of `shape`; the whole (scalar) dataset when `shape` is empty.
fn spaces(dset: hid_t, shape: &[u64], first: u64, rows: u64) -> hdf5::Result<(Space, Space)> {
    if shape.is_empty() {
        return Ok((Space(H5S_ALL), Space(H5S_ALL)));
    }
    let mut start = vec![0u64; shape.len()];
    start[0] = first;
    let mut count = shape.to_vec();
    count[0] = rows;
    // SAFETY: `dset` is an open dataset; the new space is ours.
    let file = Space(unsafe { H5Dget_space(dset) });
    if file.0 < 0 {
        return Err(failed());
    }
    select_box(file.0, H5S_seloper_t::H5S_SELECT_SET, &start, &count)?;
    // SAFETY: `count` holds `rank` extents.
    let memory =
        Space(unsafe { H5Screate_simple(count.len() as i32, count.as_ptr(), std::ptr::null()) });
    if memory.0 < 0 {
        return Err(failed());
    }
    Ok((file, memory))
}

/// Whether `dset` has a null dataspace (`H5S_NULL`): no elements and no
/// shape, not even a scalar's; h5py reads it as `h5py.Empty`.
pub(crate) fn has_null_space(dset: &hdf5::Dataset) -> bool {
    hdf5::sync::sync(|| {
        // SAFETY: `dset` is an open dataset; the space is ours, closed on
        // drop, and only read.
        let space = Space(unsafe { H5Dget_space(dset.id()) });
        space.0 >= 0
            // SAFETY: as above.
            && unsafe { H5Sget_simple_extent_type(space.0) } == H5S_class_t::H5S_NULL
    })
}

/// Writes `bytes`, elements of `memory_type` in C order, as rows
/// `first..` of `dset`, of `shape`.
pub(crate) fn write_rows(
    dset: &hdf5::Dataset,
    memory_type: &hdf5::Datatype,
    shape: &[u64],
    first: u64,
    bytes: &[u8],
) -> hdf5::Result<()> {
    let row = row_bytes(memory_type, shape);
    if bytes.is_empty() || row == 0 {
        return Ok(());
    }
    assert_eq!(bytes.len() % row, 0, "whole rows");
    let rows = (bytes.len() / row) as u64;
    hdf5::sync::sync(|| {
        let (file, memory) = spaces(dset.id(), shape, first, rows)?;
        let (dset, memory_type, out) = (dset.id(), memory_type.id(), bytes.as_ptr().cast());
        // SAFETY: `bytes` holds the elements the memory space selects, of
        // `memory_type`, and every handle is open.
        match unsafe { H5Dwrite(dset, memory_type, memory.0, file.0, H5P_DEFAULT, out) } {
            status if status < 0 => Err(failed()),
            _ => Ok(()),
        }
    })
}

/// Opens the dataset `name` of `file` with no chunk cache: a read of
/// whole chunks then goes from the file straight into the caller's memory
/// (HDF5 caches only chunks that fit its cache, 1 MiB by default, which
/// ours of about [`CHUNK_BYTES`](crate::CHUNK_BYTES) do: each would be
/// read into the cache and copied out). A filtered chunk is still decoded
/// once per read that touches it.
pub(crate) fn open_uncached(file: &hdf5::File, name: &str) -> hdf5::Result<hdf5::Dataset> {
    let dapl = hdf5::plist::DatasetAccess::build()
        .chunk_cache(0, 0, 1.0)
        .finish()?;
    let name = std::ffi::CString::new(name).map_err(|_| "a dataset name with a NUL byte")?;
    hdf5::sync::sync(|| {
        // SAFETY: `file` and `dapl` are open handles, `name` a C string;
        // the new handle is handed to `from_id`, which owns it.
        let id = unsafe { H5Dopen2(file.id(), name.as_ptr(), dapl.id()) };
        if id < 0 {
            return Err(failed());
        }
        // SAFETY: `id` is a dataset handle just opened, owned by no one else.
        unsafe { hdf5::from_id::<hdf5::Dataset>(id) }
    })
}

/// Reads rows `first..` of `dset`, of `shape`, into `out`, elements of
/// `memory_type` in C order, which the library converts them to (by field
/// name for compounds, and to the memory's byte order).
pub(crate) fn read_rows(
    dset: &hdf5::Dataset,
    memory_type: &hdf5::Datatype,
    shape: &[u64],
    first: u64,
    out: &mut [u8],
) -> hdf5::Result<()> {
    let row = row_bytes(memory_type, shape);
    if out.is_empty() || row == 0 {
        return Ok(());
    }
    assert_eq!(out.len() % row, 0, "whole rows");
    let rows = (out.len() / row) as u64;
    crate::filters::with_chunk_bytes(chunk_bytes(dset), || {
        hdf5::sync::sync(|| {
            let (file, memory) = spaces(dset.id(), shape, first, rows)?;
            let out = out.as_mut_ptr().cast();
            // SAFETY: `out` has room for the elements the memory space
            // selects, of `memory_type`, and every handle is open.
            unsafe { read_selection(dset.id(), memory_type.id(), (memory.0, file.0), out) }
        })
    })
}

/// Reads rows `first..` of `dset`, whose extents are `stored`, into `out`
/// as rows of the larger `shape` (netCDF's, along unlimited dimensions
/// another variable has grown): each element past the extents is `fill`
/// (one element of `memory_type`), as netCDF reads it.
pub(crate) fn read_rows_padded(
    dset: &hdf5::Dataset,
    memory_type: &hdf5::Datatype,
    (stored, shape): (&[u64], &[u64]),
    first: u64,
    out: &mut [u8],
    fill: &[u8],
) -> hdf5::Result<()> {
    let row = row_bytes(memory_type, shape);
    if out.is_empty() || row == 0 {
        return Ok(());
    }
    assert_eq!(out.len() % row, 0, "whole rows");
    assert_eq!(fill.len(), memory_type.size(), "one element");
    for element in out.chunks_exact_mut(fill.len()) {
        element.copy_from_slice(fill);
    }
    let rows = (out.len() / row) as u64;
    let mut count = stored.to_vec();
    count[0] = rows.min(stored[0].saturating_sub(first));
    if count.contains(&0) {
        return Ok(());
    }
    let mut start = vec![0u64; stored.len()];
    crate::filters::with_chunk_bytes(chunk_bytes(dset), || {
        hdf5::sync::sync(|| {
            // SAFETY: `dset` is an open dataset; the new spaces are ours.
            let file = Space(unsafe { H5Dget_space(dset.id()) });
            let mut extents = shape.to_vec();
            extents[0] = rows;
            // SAFETY: `extents` holds one extent per dimension.
            let memory = Space(unsafe {
                H5Screate_simple(extents.len() as i32, extents.as_ptr(), std::ptr::null())
            });
            if file.0 < 0 || memory.0 < 0 {
                return Err(failed());
            }
            select_box(memory.0, H5S_seloper_t::H5S_SELECT_SET, &start, &count)?;
            start[0] = first;
            select_box(file.0, H5S_seloper_t::H5S_SELECT_SET, &start, &count)?;
            let out = out.as_mut_ptr().cast();
            // SAFETY: `out` holds `rows` rows of `shape`, the memory space's
            // extents, of `memory_type`; the selections are of one size.
            unsafe { read_selection(dset.id(), memory_type.id(), (memory.0, file.0), out) }
        })
    })
}

/// The bytes of one whole chunk of `dset` as stored, where it is chunked:
/// what its filters' output is checked against.
fn chunk_bytes(dset: &hdf5::Dataset) -> Option<usize> {
    let chunk = dset.chunk()?;
    let stored = dset.dtype().ok()?.size();
    chunk.iter().try_fold(stored, |n, &d| n.checked_mul(d))
}

/// The bytes of one row of a dataset of `shape`: its elements after the
/// first dimension (one element for a scalar).
pub(crate) fn row_bytes(memory_type: &hdf5::Datatype, shape: &[u64]) -> usize {
    memory_type.size() * row_elements(shape)
}

/// The elements of one row of an array of `shape`: those after the first
/// dimension.
pub(crate) fn row_elements(shape: &[u64]) -> usize {
    shape.iter().skip(1).product::<u64>() as usize
}

//! Datasets of variable-length strings (h5py's `string_dtype()`,
//! netCDF-4's `NC_STRING`), read a batch of elements at a time as owned
//! bytes: what a converter pads to NumPy's fixed `U<n>` or `S<n>`.
//!
//! A UTF-8 dataset's values are checked to be UTF-8 (h5py's `.asstr()`
//! and netCDF4-python fail on one that is not); an ASCII dataset's are
//! bytes, as h5py reads them. An element never written (a NULL pointer)
//! is the empty string, as h5py and netCDF4-python read it.

use std::ffi::CStr;
use std::os::raw::c_char;
use std::path::{Path, PathBuf};

use hdf5_sys::h5::H5free_memory;
use hdf5_sys::h5d::H5Dget_space;
use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5s::{H5S_ALL, H5S_seloper_t, H5Sclose, H5Screate_simple, H5Sselect_none};
use hdf5_sys::h5t::{
    H5T_C_S1, H5T_VARIABLE, H5T_class_t, H5T_cset_t, H5Tclose, H5Tcopy, H5Tget_class, H5Tget_cset,
    H5Tis_variable_str, H5Tset_cset, H5Tset_size,
};

use crate::error::{Error, Result, hdf5_error};
use crate::lookup::open_dataset;
use crate::raw_io::{failed, read_selection, select_box};

/// The most elements one [`StringReader::next_batch`] reads.
pub const STRING_BATCH: usize = 1 << 16;

/// A dataset of variable-length strings opened to read its values in C
/// order.
pub struct StringReader {
    _file: hdf5::File,
    dataset: hdf5::Dataset,
    /// A variable-length C string of the dataset's character set.
    memory_type: Handle,
    shape: Vec<u64>,
    text: bool,
    /// The next element to read, in C order, and how many there are.
    next: u64,
    len: u64,
    path: PathBuf,
    name: String,
}

/// A batch of values, each the bytes between two ends.
#[derive(Debug, Default)]
pub struct Strings {
    bytes: Vec<u8>,
    ends: Vec<usize>,
    /// The index, in C order, of the first.
    first: u64,
}

impl Strings {
    /// How many values.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The `i`th value's bytes (UTF-8 for a text dataset).
    pub fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    /// The index, in C order, of the first value.
    pub fn first(&self) -> u64 {
        self.first
    }
}

impl StringReader {
    /// Opens `dataset` of the file at `path`.
    ///
    /// # Errors
    /// [`Error::NotAnArray`] when its elements are not variable-length
    /// strings; [`Error::NoDataset`] when there is no such dataset.
    pub fn open(path: impl AsRef<Path>, dataset: &str) -> Result<StringReader> {
        let path = path.as_ref().to_path_buf();
        let (file, found) = open_dataset(&path, dataset)?;
        let dtype = found.dtype().map_err(hdf5_error(&path, dataset))?;
        let Some(cset) = hdf5::sync::sync(|| variable_string_cset(dtype.id())) else {
            return Err(Error::NotAnArray {
                path,
                dataset: dataset.to_string(),
                message: "its elements are not variable-length strings".into(),
            });
        };
        let memory_type =
            hdf5::sync::sync(|| variable_string(cset)).map_err(hdf5_error(&path, dataset))?;
        let shape: Vec<u64> = found.shape().iter().map(|&d| d as u64).collect();
        let len = shape.iter().fold(1u64, |n, &d| n.saturating_mul(d));
        Ok(StringReader {
            _file: file,
            dataset: found,
            memory_type,
            shape,
            text: cset == H5T_cset_t::H5T_CSET_UTF8,
            next: 0,
            len,
            path,
            name: dataset.to_string(),
        })
    }

    /// The dataset's extents (empty for a scalar).
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// Whether the values are text (UTF-8), not bytes (ASCII).
    pub fn is_text(&self) -> bool {
        self.text
    }

    /// How many elements the dataset holds.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Starts again from the first element.
    pub fn rewind(&mut self) {
        self.next = 0;
    }

    /// The index of the element `flat` in C order, one entry per dimension.
    pub fn index_of(&self, flat: u64) -> Vec<u64> {
        let mut index = vec![0; self.shape.len()];
        let mut rest = flat;
        for (i, &d) in index.iter_mut().zip(&self.shape).rev() {
            *i = rest % d.max(1);
            rest /= d.max(1);
        }
        index
    }

    /// The next values, at most [`STRING_BATCH`]; `None` at the end.
    ///
    /// # Errors
    /// [`Error::InvalidString`] naming the element whose value is not
    /// UTF-8 in a UTF-8 dataset; [`Error::Hdf5`] when the library fails.
    pub fn next_batch(&mut self) -> Result<Option<Strings>> {
        if self.next >= self.len {
            return Ok(None);
        }
        let n = (self.len - self.next).min(STRING_BATCH as u64) as usize;
        let mut pointers: Vec<*mut c_char> = vec![std::ptr::null_mut(); n];
        let (first, shape) = (self.next, &self.shape);
        let (dataset, memory_type) = (&self.dataset, &self.memory_type);
        hdf5::sync::sync(|| {
            read_pointers(dataset.id(), memory_type.0, shape, first, &mut pointers)
        })
        .map_err(hdf5_error(&self.path, &self.name))?;
        let batch = take_values(&mut pointers, first);
        self.next += n as u64;
        if self.text {
            self.check_utf8(&batch)?;
        }
        Ok(Some(batch))
    }

    fn check_utf8(&self, batch: &Strings) -> Result<()> {
        for i in 0..batch.len() {
            if let Err(e) = std::str::from_utf8(batch.get(i)) {
                return Err(Error::InvalidString {
                    path: self.path.clone(),
                    dataset: self.name.clone(),
                    element: self.index_of(batch.first + i as u64),
                    message: format!(
                        "its value is not UTF-8 ({e}), though the dataset's strings are \
                         declared UTF-8; h5py's .asstr() fails on it too"
                    ),
                });
            }
        }
        Ok(())
    }
}

/// Copies out the values `pointers` point to, freeing each: a NULL
/// pointer (an element never written) is the empty string.
fn take_values(pointers: &mut [*mut c_char], first: u64) -> Strings {
    let mut batch = Strings {
        first,
        ends: Vec::with_capacity(pointers.len()),
        ..Strings::default()
    };
    for p in pointers.iter_mut() {
        if !p.is_null() {
            // SAFETY: the library wrote a NUL-terminated string it
            // allocated; it is read once and freed with its own free.
            unsafe {
                batch.bytes.extend_from_slice(CStr::from_ptr(*p).to_bytes());
                H5free_memory(p.cast());
            }
            *p = std::ptr::null_mut();
        }
        batch.ends.push(batch.bytes.len());
    }
    batch
}

/// A handle the library gave us (a type or a dataspace), closed on drop
/// with `close`.
struct Handle(hid_t, unsafe extern "C" fn(hid_t) -> hdf5_sys::h5::herr_t);

impl Drop for Handle {
    fn drop(&mut self) {
        if self.0 >= 0 && self.0 != H5S_ALL {
            // SAFETY: a handle we own, closed once.
            unsafe { (self.1)(self.0) };
        }
    }
}

/// The character set of `id` when it is a variable-length string.
fn variable_string_cset(id: hid_t) -> Option<H5T_cset_t> {
    // SAFETY: `id` is an open type handle; these only read it.
    unsafe {
        let is = H5Tget_class(id) == H5T_class_t::H5T_STRING && H5Tis_variable_str(id) > 0;
        is.then(|| H5Tget_cset(id))
    }
}

/// A variable-length C string type of `cset`: converting to it from the
/// file's own type copies the bytes as they are.
fn variable_string(cset: H5T_cset_t) -> hdf5::Result<Handle> {
    // SAFETY: copying a predefined type gives a new handle, ours, which
    // is then only set.
    unsafe {
        let handle = Handle(H5Tcopy(*H5T_C_S1), H5Tclose);
        if handle.0 < 0
            || H5Tset_size(handle.0, H5T_VARIABLE) < 0
            || H5Tset_cset(handle.0, cset) < 0
        {
            return Err(failed());
        }
        Ok(handle)
    }
}

/// Reads `out.len()` elements from `first` on, in C order, of the dataset
/// `dset` of `shape`, as pointers of `memory_type`.
fn read_pointers(
    dset: hid_t,
    memory_type: hid_t,
    shape: &[u64],
    first: u64,
    out: &mut [*mut c_char],
) -> hdf5::Result<()> {
    let n = out.len() as u64;
    let (file, memory) = if shape.is_empty() {
        (Handle(H5S_ALL, H5Sclose), Handle(H5S_ALL, H5Sclose))
    } else {
        // SAFETY: `dset` is open; the space is ours.
        let file = Handle(unsafe { H5Dget_space(dset) }, H5Sclose);
        select_run(file.0, shape, first, first + n)?;
        // SAFETY: one extent of `n` elements.
        let memory = Handle(
            unsafe { H5Screate_simple(1, &n, std::ptr::null()) },
            H5Sclose,
        );
        if memory.0 < 0 {
            return Err(failed());
        }
        (file, memory)
    };
    // SAFETY: `out` has room for the `n` pointers the memory space
    // selects, and every handle is open.
    unsafe {
        read_selection(
            dset,
            memory_type,
            (memory.0, file.0),
            out.as_mut_ptr().cast(),
        )
    }
}

/// Selects in `space` (of `shape`) the elements `from..to` in C order, as
/// a union of boxes, which the library visits in C order.
fn select_run(space: hid_t, shape: &[u64], from: u64, to: u64) -> hdf5::Result<()> {
    if space < 0 {
        return Err(failed());
    }
    // SAFETY: `space` is an open dataspace.
    if unsafe { H5Sselect_none(space) } < 0 {
        return Err(failed());
    }
    for (start, count) in boxes(shape, from, to) {
        select_box(space, H5S_seloper_t::H5S_SELECT_OR, &start, &count)?;
    }
    Ok(())
}

/// The elements `from..to` (in C order) of an array of `shape` as boxes,
/// each a start and a count per dimension: at most two per dimension.
fn boxes(shape: &[u64], mut from: u64, to: u64) -> Vec<(Vec<u64>, Vec<u64>)> {
    let rank = shape.len();
    // strides[d]: elements in one step of dimension d.
    let mut strides = vec![1u64; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    let mut out = Vec::new();
    while from < to {
        let mut start = vec![0u64; rank];
        let mut rest = from;
        for d in 0..rank {
            start[d] = rest / strides[d];
            rest %= strides[d];
        }
        // The outermost dimension at which `from` is aligned, and a whole
        // number of its steps fit before `to`.
        let d = (0..rank)
            .find(|&d| from.is_multiple_of(strides[d]) && to - from >= strides[d])
            .unwrap_or(rank - 1);
        let steps = ((to - from) / strides[d]).min(shape[d] - start[d]);
        let mut count = vec![1u64; rank];
        count[d] = steps;
        count[d + 1..].copy_from_slice(&shape[d + 1..]);
        out.push((start, count));
        from += steps * strides[d];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::boxes;

    /// The elements a set of boxes covers, in C order.
    fn covered(shape: &[u64], boxes: &[(Vec<u64>, Vec<u64>)]) -> Vec<u64> {
        let mut all = Vec::new();
        for (start, count) in boxes {
            let total: u64 = count.iter().product();
            for k in 0..total {
                let mut rest = k;
                let mut flat = 0;
                let mut stride = 1;
                for d in (0..shape.len()).rev() {
                    let i = start[d] + rest % count[d];
                    rest /= count[d];
                    flat += i * stride;
                    stride *= shape[d];
                }
                all.push(flat);
            }
        }
        all.sort_unstable();
        all
    }

    #[test]
    fn boxes_cover_exactly_the_run() {
        for shape in [vec![7u64], vec![3, 4], vec![2, 3, 5], vec![4, 1, 3]] {
            let n: u64 = shape.iter().product();
            for from in 0..n {
                for to in from + 1..=n {
                    let b = boxes(&shape, from, to);
                    assert!(b.len() <= 2 * shape.len(), "{shape:?} {from}..{to}: {b:?}");
                    assert_eq!(covered(&shape, &b), (from..to).collect::<Vec<_>>());
                }
            }
        }
    }
}

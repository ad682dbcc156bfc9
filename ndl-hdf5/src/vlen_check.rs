//! The lengths of a dataset's variable-length values checked against the
//! file before HDF5 reads them.
//!
//! HDF5 (1.10) converts a stored sequence by allocating, and zeroing, a
//! buffer of the length its element claims times the item's size before
//! it reads the data from the heap: a damaged length of 2³² would make it
//! zero gigabytes. In the file each variable-length value of an element
//! is a 4-byte little-endian length followed by a heap id, so where the
//! elements' bytes are plain in the file (contiguous storage, or chunks
//! with no filter applied) every length of a top-level value (a member,
//! a nested member, an array member's item) is read from them and checked
//! to fit the file first. Values inside a heap object (a sequence of
//! sequences) and elements in compressed chunks are bounded only by the
//! allocator of [`record_io`](crate::record_io).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use hdf5::dataset::Layout;
use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5t::{
    H5T_class_t, H5Tclose, H5Tget_array_dims2, H5Tget_array_ndims, H5Tget_class,
    H5Tget_member_name, H5Tget_member_offset, H5Tget_member_type, H5Tget_nmembers, H5Tget_size,
    H5Tget_super, H5Tis_variable_str,
};

use crate::error::{Error, Result, hdf5_error};
use crate::record_type::dotted;

/// One variable-length value of an element: where it starts, the bytes
/// of one of its items in the file, and its field.
struct Slot {
    at: usize,
    item: u64,
    field: String,
}

/// Elements checked at a time.
const BLOCK: usize = 1 << 14;

/// Refuses, naming record and field, a variable-length value of the
/// one-dimensional dataset `found` whose length claims more bytes than
/// the file (`file_len` bytes) holds.
pub(crate) fn check(
    path: &Path,
    dataset: &str,
    found: &hdf5::Dataset,
    file_len: u64,
) -> Result<()> {
    let stored = found.dtype().map_err(hdf5_error(path, dataset))?;
    let Some(heap_value) = heap_value_size(found) else {
        return Ok(());
    };
    let mut slots = Vec::new();
    let element = hdf5::sync::sync(|| layout(stored.id(), "", heap_value, &mut slots));
    if slots.is_empty() || element == 0 {
        return Ok(());
    }
    let n = found.shape().first().copied().unwrap_or(0);
    // Runs of elements in the file: (first record, file offset, count).
    // Where the stored size disagrees with the layout worked out, the
    // elements are not what it says: the library reads (or refuses) them.
    let runs: Vec<(usize, u64, usize)> = match found.layout() {
        Layout::Contiguous if found.storage_size() == (n * element) as u64 => {
            found.offset().map(|o| vec![(0, o, n)]).unwrap_or_default()
        }
        Layout::Chunked if found.filters().is_empty() => {
            let per_chunk = found.chunk().and_then(|c| c.first().copied()).unwrap_or(0);
            (0..found.num_chunks().unwrap_or(0))
                .filter_map(|i| found.chunk_info(i))
                .filter(|c| c.size == (per_chunk * element) as u64)
                .map(|c| {
                    let first = c.offset.first().copied().unwrap_or(0) as usize;
                    (first, c.addr, per_chunk.min(n.saturating_sub(first)))
                })
                .collect()
        }
        _ => Vec::new(),
    };
    let mut file = std::fs::File::open(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut bytes = Vec::new();
    for (first, offset, count) in runs {
        for start in (0..count).step_by(BLOCK) {
            let k = BLOCK.min(count - start);
            bytes.resize(k * element, 0);
            let at = offset + (start * element) as u64;
            let read = file
                .seek(SeekFrom::Start(at))
                .and_then(|_| file.read_exact(&mut bytes));
            if read.is_err() {
                // Past the end: the library reports it when it reads.
                return Ok(());
            }
            for (i, e) in bytes.chunks_exact(element).enumerate() {
                for slot in &slots {
                    let Some(len) = e.get(slot.at..slot.at + 4) else {
                        continue;
                    };
                    let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as u64;
                    if len.saturating_mul(slot.item) > file_len {
                        return Err(Error::InvalidValue {
                            path: path.to_path_buf(),
                            dataset: dataset.to_string(),
                            record: (first + start + i) as u64,
                            field: slot.field.clone(),
                            offset: slot.at,
                            message: format!(
                                "its variable-length value claims {len} items of {} bytes, \
                                 more than the whole file ({file_len} bytes): the file is \
                                 damaged",
                                slot.item
                            ),
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

/// The disk size of an element of `t`, a type as `H5Dget_type` gives it
/// (variable-length values in their memory size), and where its
/// variable-length values lie on disk: each is `heap_value` bytes there
/// (a length, then a heap id), and the library moves the members after
/// one by the difference, as it does when it stores the type.
fn layout(t: hid_t, field: &str, heap_value: usize, out: &mut Vec<Slot>) -> usize {
    // SAFETY: `t` is an open type; the handles of its parts are closed
    // after use; names the library allocates are copied and freed.
    unsafe {
        match H5Tget_class(t) {
            H5T_class_t::H5T_STRING if H5Tis_variable_str(t) > 0 => {
                out.push(Slot {
                    at: 0,
                    item: 1,
                    field: field.to_string(),
                });
                heap_value
            }
            H5T_class_t::H5T_VLEN => {
                let base = H5Tget_super(t);
                out.push(Slot {
                    at: 0,
                    item: H5Tget_size(base).max(1) as u64,
                    field: field.to_string(),
                });
                H5Tclose(base);
                heap_value
            }
            H5T_class_t::H5T_COMPOUND => {
                let mut members: Vec<(usize, u32)> = (0..H5Tget_nmembers(t).max(0) as u32)
                    .map(|i| (H5Tget_member_offset(t, i), i))
                    .collect();
                members.sort_unstable();
                let mut shift = 0isize;
                for (offset, i) in members {
                    let member = H5Tget_member_type(t, i);
                    let mut inner = Vec::new();
                    let disk = layout(
                        member,
                        &dotted(field, &member_name(t, i)),
                        heap_value,
                        &mut inner,
                    );
                    let memory = H5Tget_size(member);
                    H5Tclose(member);
                    let at = offset.saturating_add_signed(shift);
                    out.extend(inner.into_iter().map(|s| Slot { at: at + s.at, ..s }));
                    shift += disk as isize - memory as isize;
                }
                H5Tget_size(t).saturating_add_signed(shift)
            }
            H5T_class_t::H5T_ARRAY => {
                let rank = H5Tget_array_ndims(t).max(0) as usize;
                let mut dims = vec![0u64; rank];
                H5Tget_array_dims2(t, dims.as_mut_ptr());
                let base = H5Tget_super(t);
                let mut items = Vec::new();
                let size = layout(base, field, heap_value, &mut items);
                H5Tclose(base);
                // A count no element could hold is the library's to refuse.
                let count = dims
                    .iter()
                    .try_fold(1u64, |n, &d| n.checked_mul(d))
                    .unwrap_or(0);
                let count = if count <= 1 << 16 { count as usize } else { 0 };
                for k in 0..count {
                    out.extend(items.iter().map(|s| Slot {
                        at: k * size + s.at,
                        item: s.item,
                        field: s.field.clone(),
                    }));
                }
                count * size
            }
            _ => H5Tget_size(t),
        }
    }
}

/// The name of member `i` of the compound `t`.
///
/// # Safety
/// `t` is an open compound with a member `i`.
unsafe fn member_name(t: hid_t, i: u32) -> String {
    // SAFETY: as the caller promises; the name is copied, then freed with
    // the library's free.
    unsafe {
        let p = H5Tget_member_name(t, i);
        if p.is_null() {
            return String::new();
        }
        let name = std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned();
        hdf5_sys::h5::H5free_memory(p.cast());
        name
    }
}

/// The bytes of a variable-length value in the file: a 4-byte length and
/// a heap id (a file address and a 4-byte index).
fn heap_value_size(found: &hdf5::Dataset) -> Option<usize> {
    let sizes = found.file().ok()?.create_plist().ok()?.sizes();
    Some(8 + sizes.sizeof_addr as usize)
}
